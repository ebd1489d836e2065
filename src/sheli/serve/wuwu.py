"""The 五物 asked of the audience at a 鄉射禮 (周禮 地官 鄉大夫: 以鄉射之禮五物詢衆庶, 一曰和，
二曰容，三曰主皮，四曰和容，五曰興舞; 鄭注 xiangshe:1). The items, when each is seen and the
readings are the scoring layer's data (:func:`sheli.scoring.five.five_data`, which ``sheli
score --votes`` reads too); here: when an item may be asked of an archer, the director's
questions as replayed from the log, and the totals.

易氏's order (seed 001): 和 and 容 are seen before the archer shoots, 主皮 and 和容 while he
shoots, 興舞 after. The moment is taken from the archer's arrows in the run and the step the
rite is on:

>>> moment_of([10, 20, 30, 40], 5), moment_of([10, 20, 30, 40], 10), moment_of([10, 40], 41)
('before', 'while', 'after')
>>> [i["name"] for i in items() if i["asked"]]
['和', '容', '和容', '興舞']

A question is opened and closed by the director (inputs of the log); the answers are counted
as they come (``Questions.count``):

>>> q = Questions()
>>> q.apply({"action": "open", "id": 1, "item": "和", "archer": "上耦上射"}, 1000)
>>> q.count(1, True); q.count(1, True); q.count(1, False)
>>> q.open_one()["id"], q.totals[1]
(1, [2, 1])
>>> q.apply({"action": "close", "id": 1}, 2000)
>>> q.open_one() is None
True
"""

from __future__ import annotations

from typing import Any

from sheli.scoring.five import five_data

#: answers one question takes at most (a hall's audience; more are refused with 409)
MAX_ANSWERS = 5000
#: the rite whose audience is asked: the 五物 are 鄉射之禮's (周禮 鄉大夫)
RITE = "xiangshe"
MOMENTS = {"before": "未射之時", "while": "射侯之際", "after": "既射之後"}
#: the data's word for 易氏's 射侯之際 is ``shooting``; the live app's moment is ``while``
_WHEN = {"shooting": "while"}
#: Assumption (docs/serve.md): an answer is yes or no. 鄉大夫 詢衆庶, asks the crowd (鄭司農:
#: 詢，謀也，問於衆庶); each 物 is read as a quality the archer shows or does not (易氏: 是之謂
#: 和 …), and no commentator grades it: a scale would add steps the text does not have (and
#: the votes file of ``sheli score --votes`` holds true or false).
ANSWERS = ("是", "否")


def items() -> list[dict[str, Any]]:
    """The five items in the order of 周禮 鄉大夫, each with its ``moment`` (before, while,
    after: 易氏), ``asked`` (主皮 is counted from the hits), 鄭's and 易氏's readings."""
    w = five_data()["wuwu"]
    return [i | {"moment": _WHEN.get(i["when"], i["when"])} for i in w["items"]]


def source() -> str:
    """Where the 五物 are given (周禮 鄉大夫, and 鄭注 xiangshe:1)."""
    return str(five_data()["wuwu"]["source"])


def item(name: str) -> dict[str, Any] | None:
    """One item by name (和, 容, 主皮, 和容, 興舞)."""
    return next((i for i in items() if i["name"] == name), None)


def moment_of(arrow_seqs: list[int], seq: int) -> str:
    """Where the step ``seq`` falls against an archer's arrows (their shot lines' seq):
    before the first, from the first to the last, or after the last."""
    if not arrow_seqs or seq < min(arrow_seqs):
        return "before"
    if seq > max(arrow_seqs):
        return "after"
    return "while"


class Questions:
    """The director's questions of an event, replayed from its inputs, and their totals."""

    def __init__(self) -> None:
        self.asked: dict[int, dict[str, Any]] = {}
        self.totals: dict[int, list[int]] = {}  # question → [是, 否]

    def apply(self, body: dict[str, Any], t_ms: int) -> None:
        """Apply one stored ``question`` input: ``open`` (with its id, item and archer) or
        ``close``."""
        qid = body["id"]
        if body["action"] == "open":
            keep = ("id", "item", "archer", "round", "moment")
            self.asked[qid] = {k: body.get(k) for k in keep} | {"opened_ms": t_ms, "open": True}
            self.totals.setdefault(qid, [0, 0])
        elif qid in self.asked:
            self.asked[qid] |= {"open": False, "closed_ms": t_ms}

    def count(self, qid: int, answer: bool) -> None:
        """One answer to question ``qid`` (the store has made sure it is a screen's first)."""
        t = self.totals.setdefault(qid, [0, 0])
        t[0 if answer else 1] += 1

    def open_one(self) -> dict[str, Any] | None:
        """The question open now, if any (one at a time)."""
        return next((q for q in self.asked.values() if q["open"]), None)

    def next_id(self) -> int:
        return max(self.asked, default=0) + 1

    def answers(self, qid: int) -> int:
        return sum(self.totals.get(qid, (0, 0)))
