"""The 筭 as objects: where every tally rod is during 釋獲, 數獲 and 告獲.

Places (the names the engine's state uses):

- ``vessel``: in the 中 (鹿中 「鑿背容八算」, 記 xiangshe:354: it never holds more than eight);
- ``pile``: on the ground west of the 中, 「横委其餘于中西南末」 (xiangshe:183);
- ``hand``: held by the 釋獲者 (「興執而俟」 xiangshe:185);
- ``right`` / ``left``: released, on the ground to his right (上射) or left (下射), xiangshe:186.

The supply is 「箭籌八十」 (記 xiangshe:378); 鄭注 「略以十耦爲正」, 賈疏 「射之耦隨賓多少
今言八十舉成數」: eighty is the round number for ten pairs, and a rite with more pairs has more
筭 (:meth:`Tally.for_pairs`).

>>> t = Tally()
>>> t.set_up()                 # xiangshe:183 實八算于中, 横委其餘于中西
>>> t.take_eight()             # xiangshe:185 取中之八算, 改實八算于中
8
>>> t.release("right"); t.release("left"); t.release("right")
>>> t.return_rest()            # xiangshe:186 若有餘算則反委之
5
>>> t.right, t.left
(2, 1)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sheli.scoring.rules import Side, announce, winner

#: 箭籌八十 (記 xiangshe:378)
DEFAULT_SUPPLY = 80
#: 鹿中 … 鑿背容八算 (記 xiangshe:354); 實八算于中 (xiangshe:183)
VESSEL_HOLDS = 8


class TallyError(RuntimeError):
    """An act on the 筭 that the state does not allow (the message cites the passage)."""


@dataclass
class Tally:
    """The 筭 of one rite and where each is. Invariants are checked after every act.

    >>> t = Tally(total=20)
    >>> t.set_up(); t.vessel, t.pile
    (8, 12)
    """

    total: int = DEFAULT_SUPPLY
    vessel: int = 0
    pile: int = 0
    hand: int = 0
    right: int = 0
    left: int = 0
    #: the (right, left) of the last 數獲, kept after the 筭 are gathered up
    last_count: tuple[int, int] | None = None
    #: the side whose 賢獲 the 釋獲者 holds (None when he holds one of each for 鈞)
    held_from: Side | None = None
    log: list[str] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        if self.total < VESSEL_HOLDS:
            raise ValueError(f"a supply of {self.total} 筭 cannot fill the 中 (八算)")
        self._check()

    @classmethod
    def for_pairs(cls, pairs: int) -> Tally:
        """A supply large enough for ``pairs`` pairs: eighty, or more when there are more pairs.

        Each pair takes the eight in the 中 and the 中 is filled again for the next pair
        (xiangshe:185–187), so the last of ``pairs`` pairs needs at most ``8 × pairs`` 筭 when
        every arrow before it was counted: 八十 is exactly ten pairs (注 「以十耦爲正」).

        >>> Tally.for_pairs(10).total, Tally.for_pairs(12).total
        (80, 96)
        """
        return cls(total=max(DEFAULT_SUPPLY, VESSEL_HOLDS * pairs))

    # ------------------------------------------------------------------ state

    @property
    def unplaced(self) -> int:
        """筭 not yet brought out (before :meth:`set_up`)."""
        return self.total - (self.vessel + self.pile + self.hand + self.right + self.left)

    def snapshot(self) -> dict[str, int]:
        """Where the 筭 are, by place.

        >>> Tally(total=20).snapshot()
        {'vessel': 0, 'pile': 0, 'hand': 0, 'right': 0, 'left': 0, 'unplaced': 20}
        """
        return {
            "vessel": self.vessel,
            "pile": self.pile,
            "hand": self.hand,
            "right": self.right,
            "left": self.left,
            "unplaced": self.unplaced,
        }

    def _check(self) -> None:
        for name, value in self.snapshot().items():
            if value < 0:
                raise TallyError(f"{name} holds {value} 筭")
        if self.vessel > VESSEL_HOLDS:
            raise TallyError(f"the 中 holds {self.vessel} 筭; it holds eight (xiangshe:354)")

    def _note(self, text: str) -> None:
        self.log.append(text)
        self._check()

    # ------------------------------------------------------------------ acts

    def set_up(self) -> None:
        """「坐實八算于中，横委其餘于中西南末」 (xiangshe:183): eight in the 中, the rest west."""
        if self.unplaced != self.total:
            raise TallyError("the 筭 are already set out (xiangshe:183 is done once)")
        self.vessel = VESSEL_HOLDS
        self.pile = self.total - VESSEL_HOLDS
        self._note("xiangshe:183 實八算于中，横委其餘于中西")

    def take_eight(self) -> int:
        """「取中之八算，改實八算于中，興執而俟」 (xiangshe:185, 187): take eight, refill the 中.

        The 中 is refilled from the pile west of it, for the next pair (賈疏 「改實八算擬後來
        者用之」). If fewer than eight are left there, all that are left go in (the text does not
        foresee it; with 箭籌八十 it happens only after the tenth pair). Returns the number now
        held. The 筭 still in hand from the last pair must have been 反委 first.
        """
        if self.hand:
            raise TallyError("the 釋獲者 still holds 筭: 反委 them first (xiangshe:186)")
        if not self.vessel:
            raise TallyError("the 中 is empty: set it up first (xiangshe:183)")
        self.hand, self.vessel = self.vessel, 0
        refill = min(VESSEL_HOLDS, self.pile)
        self.pile -= refill
        self.vessel = refill
        self._note(f"xiangshe:185 取中之八算，改實{refill}算于中")
        return self.hand

    def release(self, side: str) -> None:
        """Release one 筭 for a counted hit: 「每一个釋一算，上射於右，下射於左」 (xiangshe:186)."""
        if side not in ("right", "left"):
            raise ValueError(f"side is 'right' or 'left', not {side!r}")
        if not self.hand:
            raise TallyError("no 筭 in hand to release (xiangshe:185 取中之八算 first)")
        self.hand -= 1
        setattr(self, side, getattr(self, side) + 1)
        self._note(f"xiangshe:186 釋一算於{'右' if side == 'right' else '左'}")

    def return_rest(self) -> int:
        """「若有餘算則反委之」 (xiangshe:186; 注 「委之合於中西」); 「委餘獲于中西」 (190).

        Returns how many were put back on the pile west of the 中.
        """
        rest, self.hand = self.hand, 0
        self.pile += rest
        self._note(f"xiangshe:186 反委餘算{rest}")
        return rest

    def count(self) -> tuple[int, int]:
        """數獲 (xiangshe:193–201): the counts of the right and the left, remembered.

        >>> t = Tally(); t.set_up(); _ = t.take_eight(); t.release("left"); _ = t.return_rest()
        >>> t.count()
        (0, 1)
        """
        if self.hand:
            raise TallyError("筭 still in hand: 委餘獲于中西 before the count (xiangshe:190)")
        self.last_count = (self.right, self.left)
        self._note(f"xiangshe:193 數獲 右{self.right} 左{self.left}")
        return self.last_count

    def announcement(self) -> str:
        """The 告獲 for the last count (xiangshe:203–204)."""
        if self.last_count is None:
            raise TallyError("no count yet (xiangshe:193)")
        return announce(*self.last_count)

    def hold_winning(self) -> int:
        """「取賢獲執以升」 (xiangshe:202): take up the winner's surplus; or, when 鈞, one of each.

        注 「賢獲勝黨之算也，齊之而取其餘」. When 鈞, 「左右皆執一算以告」 (xiangshe:204).
        Returns the number held.
        """
        if self.last_count is None:
            raise TallyError("take the 賢獲 only after the count (xiangshe:193–202)")
        if self.hand:
            raise TallyError("the hand must be empty to take the 賢獲")
        right, left = self.last_count
        win = winner(right, left)
        self.held_from = win
        if win is None:
            if right == 0:
                # 左右鈞 with nothing on either side: there is no 算 to hold (text silent)
                self._note("xiangshe:204 左右鈞 (no 算 on either side to hold)")
                return 0
            self.right -= 1
            self.left -= 1
            self.hand = 2
            self._note("xiangshe:204 左右皆執一算")
        else:
            surplus = abs(right - left)
            setattr(self, win, getattr(self, win) - surplus)
            self.hand = surplus
            self._note(f"xiangshe:202 取賢獲{surplus}")
        return self.hand

    def gather(self) -> None:
        """「坐兼歛算，實八算于中，委其餘于中西」 (xiangshe:204): all gathered, the 中 refilled.

        This readies the 筭 for the next round (賈疏 「此將爲第三番射故豫設之」).
        """
        placed = self.total - self.unplaced
        self.right = self.left = self.hand = 0
        self.vessel = min(VESSEL_HOLDS, placed)
        self.pile = placed - self.vessel
        self.held_from = None
        self._note("xiangshe:204 兼歛算，實八算于中，委其餘于中西")
