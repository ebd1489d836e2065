"""Label boxes and their placement, shared by the renderer and the tests.

A label's box is estimated, not measured (no font engine): a CJK glyph (and any full-width
character) is 1 em wide, any other character 0.6 em; a line is 1.25 em high. The renderer
draws with these sizes and the tests check overlaps with the same estimate, so what the tests
pass is what is drawn (a real font may draw a Latin run a little narrower, never wider).

Placement is greedy: labels are placed in priority order, each at the first free candidate
around its anchor (8 positions next to it, then rings further out with a leader line), free
meaning inside the bounds and clear of every obstacle and every label already placed. If no
ring is free, the label goes to an overflow column outside the plan, with a leader line.
A candidate is tested only against the boxes in the cells of a grid that it covers, so a
crowd of two hundred labels costs about what a few do.

>>> b = Box(0, 0, 10, 10)
>>> b.overlaps(Box(5, 5, 20, 20)), b.overlaps(Box(10, 0, 20, 10))
(True, False)
>>> text_width("司射", 12), text_width("筭16", 10)
(24.0, 22.0)
"""

from sheli.outputs.labels.grid import Obstacles, obstacle_grid
from sheli.outputs.labels.kept import LabelMemory
from sheli.outputs.labels.measure import (
    LINE_HEIGHT,
    RUN_GAP,
    Box,
    Label,
    line_width,
    size_of,
    text_width,
)
from sheli.outputs.labels.place import clear_placements, place_labels

__all__ = [
    "LINE_HEIGHT",
    "RUN_GAP",
    "Box",
    "Label",
    "LabelMemory",
    "Obstacles",
    "clear_placements",
    "line_width",
    "obstacle_grid",
    "place_labels",
    "size_of",
    "text_width",
]
