"""Verbs of the feast (獻, 酢, 酬, 旅酬, 無筭爵 …) of 鄉射禮 and 大射儀.

Registered into :data:`sheli.engine.verbs.VERBS` with the same ``@verb`` decorator; a name
already defined elsewhere is an error, so two modules cannot silently define one verb.

>>> from sheli.engine.verbs import VERBS
>>> all(v.kind for v in VERBS.values())
True
"""

from __future__ import annotations

from sheli.engine.verbs import VERBS, Ctx, VerbError, verb  # noqa: F401
