"""The diagram of one step, as SVG: the plan to scale, north (the 堂) at the top, everyone
present where the engine put him, facing, dressed and holding what the log says, the actor
highlighted, the paths walked, the arrows, the 筭 and the words spoken.

What is drawn and the conventions (symbols, colours, views) are in docs/diagrams.md; they
are presentation, not text. The SVG is written as plain strings (no dependency): every
person is a ``<g class="person" data-actor="…">`` (``person actor`` for the actor of the
step), every label a ``<g class="label">`` with its box in ``data-box``, every fixture's
shape and label carries ``data-box`` too, so that the viewer and the tests can read them.

>>> from sheli.engine import run
>>> from sheli.outputs.frames import build_frames
>>> r = run("xiangshe", seed=1)
>>> frames = build_frames(r)
>>> svg = render_svg(frames[150], r.scene)
>>> svg.startswith("<svg") and 'class="person actor"' in svg
True
"""

from sheli.outputs.diagram.draw import clear_caches, render_svg, render_svg_parts
from sheli.outputs.diagram.layout import body_boxes, label_boxes
from sheli.outputs.diagram.plan import VIEWS, Hou, View, beast_hou, choose_view, targets
from sheli.outputs.diagram.style import FACING, HEAD

__all__ = [
    "FACING",
    "HEAD",
    "VIEWS",
    "Hou",
    "View",
    "beast_hou",
    "body_boxes",
    "choose_view",
    "clear_caches",
    "label_boxes",
    "render_svg",
    "render_svg_parts",
    "targets",
]
