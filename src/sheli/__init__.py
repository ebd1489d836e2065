"""sheli (射禮): the archery rites of the 儀禮 made executable.

Layers, each importing only those below it (docs/architecture.md):
text → place → rite → scoring → engine → outputs → serve → cli.

>>> from sheli.text import get_passage
>>> get_passage("xiangshe:1").text.startswith("鄉射之禮主人戒賓")
True
"""

__version__ = "0.1.0"
