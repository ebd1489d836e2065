"""place — the 州序/榭 and the 鄉庠 as plans to scale, and the relations the text uses.

Unit 尺, x east, y north, origin at the middle of the 堂廉. Every fixture carries the
passage it follows from or an assumption stated in words (see ``sheli place --venue xie``).

>>> from sheli.place import load_venue
>>> v = load_venue("xie")
>>> v.point("乏").y - v.point("侯").y, v.point("侯").x - v.point("乏").x   # xiangshe:12 注
(100.0, 30.0)
"""

from __future__ import annotations

from .loader import VENUE_ALIASES, VENUES, load_venue, venue_key
from .model import Extent, Fixture, LedgerRow, Param, PlaceError, Point, Venue

__all__ = [
    "VENUES",
    "VENUE_ALIASES",
    "Extent",
    "Fixture",
    "LedgerRow",
    "Param",
    "PlaceError",
    "Point",
    "Venue",
    "load_venue",
    "venue_key",
]
