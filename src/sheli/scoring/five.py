"""The 五射 judged from recorded outcomes, and the 五物 asked of the 衆庶 (docs/scoring.md).

The definitions, their sources and every threshold are data (``data/five.yaml``), which a
scholar reads and may change; this module only applies them. Per archer and round:

- 白矢 from ``through``; 參連 from ``loosed_s``; 剡注 from ``flight``; 井儀 from ``x``, ``y``
  and ``hit``; 襄尺 from where the rite has the 臣 stand when the 君 shoots
  (:func:`sheli.outputs.xiangchi.xiangchi_places`, which reads a run).

>>> from sheli.scoring.outcomes import Outcome
>>> arrows = [Outcome(2, "上耦", "上射", n, True, x=x, y=y, loosed_s=t)
...           for n, (x, y, t) in enumerate([(-1, 1, 0), (1, 1, 9), (1, -1, 10), (-1, -1, 11)], 1)]
>>> [(v.name, v.kept) for v in judge_five(arrows) if v.name in ("井儀", "參連")]
[('參連', True), ('井儀', True)]
"""

from __future__ import annotations

import csv
import io
import itertools
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from sheli.files import read_at_most
from sheli.scoring.outcomes import Outcome, OutcomesError, normalise_name
from sheli.yamlfile import load_yaml


@cache
def five_data() -> dict[str, Any]:
    """The 五射 and 五物 as ``data/five.yaml`` gives them (definitions, sources, thresholds).

    >>> [i["name"] for i in five_data()["wushe"]["items"]]
    ['白矢', '參連', '剡注', '襄尺', '井儀']
    """
    text = resources.files("sheli.scoring").joinpath("data", "five.yaml").read_text("utf-8")
    data: dict[str, Any] = load_yaml(text)
    return data


def five_summary() -> dict[str, Any]:
    """The 五射 and the 五物 with their sources, as ``sheli params --json`` lists them.

    >>> d = five_summary()
    >>> [i["name"] for i in d["五物"]["items"]], d["五射"]["source"]
    (['和', '容', '主皮', '和容', '興舞'], '周禮 地官 保氏')
    """

    def strip(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if not str(k).startswith("__")}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    data = five_data()
    return {
        "五射": strip(data["wushe"]),
        "五物": strip(data["wuwu"]),
        "thresholds": strip(data["thresholds"]),
    }


def threshold(name: str) -> Any:
    """One stated threshold's value (``data/five.yaml`` ``thresholds:``).

    >>> threshold("canlian_gap_s")
    3.0
    """
    return five_data()["thresholds"][name]["value"]


def _item(group: str, name: str) -> dict[str, Any]:
    return next(i for i in five_data()[group]["items"] if i["name"] == name)


@dataclass(frozen=True)
class Verdict:
    """One of the 五射 for one archer in one round: kept (True), not (False) or not judged
    (None, with the reason in ``why``); with the definition and its source."""

    round: int
    pair: str
    archer: str
    name: str
    kept: bool | None
    why: str
    definition: str
    source: str

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "pair": self.pair,
            "archer": self.archer,
            "name": self.name,
            "kept": self.kept,
            "why": self.why,
            "definition": self.definition,
            "source": self.source,
        }


# ---------------------------------------------------------------- the five, one by one


def _baishi(arrows: list[Outcome]) -> tuple[bool | None, str]:
    through = [o.arrow for o in arrows if o.through]
    if through:
        return True, f"arrow {', '.join(map(str, through))} went through the 侯 (through)"
    if all(o.through is None for o in arrows):
        return False, "no arrow is recorded as going through the 侯"
    return False, "none of his arrows went through the 侯"


def _canlian(arrows: list[Outcome]) -> tuple[bool | None, str]:
    if len(arrows) < 4:
        return False, f"{len(arrows)} arrow(s) recorded; 參連 is of the four (一矢, 三矢)"
    times = [o.loosed_s for o in arrows[:4]]
    if any(t is None for t in times):
        return False, "not every arrow has a loosing time (loosed_s)"
    ts = [float(t) for t in times if t is not None]
    gaps = [b - a for a, b in itertools.pairwise(ts)]
    limit = float(threshold("canlian_gap_s"))
    judged = gaps[1:] if threshold("canlian_first_apart") else gaps
    shown = ", ".join(f"{g:g}" for g in gaps)
    if any(g < 0 for g in gaps):
        return False, f"the arrows were not loosed in order (gaps {shown} s)"
    if all(g <= limit for g in judged):
        return True, f"gaps {shown} s, each within {limit:g} s (連續, canlian_gap_s)"
    return False, f"gaps {shown} s; 連續 is each within {limit:g} s (canlian_gap_s)"


def _yanzhu(arrows: list[Outcome]) -> tuple[bool | None, str]:
    marked = [o.arrow for o in arrows if o.flight == "剡注"]
    if marked:
        return True, f"arrow {', '.join(map(str, marked))} marked 剡注 by the scorer (flight)"
    return False, "no arrow's flight is marked 剡注"


def _jingyi(arrows: list[Outcome]) -> tuple[bool | None, str]:
    pierced = [o for o in arrows if o.hit and o.at is not None]
    if len(arrows) < 4 or len(pierced) < 4:
        return (
            False,
            f"{len(pierced)} of four arrows 貫 the 侯 with a place (x, y): 井儀 is 四矢貫侯",
        )
    ok, why = square_shape([o.at for o in pierced[:4] if o.at is not None])
    return ok, why


def square_shape(points: list[tuple[float, float]]) -> tuple[bool, str]:
    """Whether four points on the 侯 are the corners of an upright square, as 如井之容儀 is
    judged (thresholds jingyi_tolerance, jingyi_tilt_deg, jingyi_min_side_chi).

    >>> square_shape([(1, 1), (-1, 1), (-1, -1), (1, -1)])[0]
    True
    >>> square_shape([(0, 1), (1, 0), (0, -1), (-1, 0)])[0]     # on a corner: ◇, not 井
    False
    >>> square_shape([(0, 0), (1, 0), (2, 0), (3, 0)])[0]
    False
    """
    cx = sum(p[0] for p in points) / 4
    cy = sum(p[1] for p in points) / 4
    ring = sorted(points, key=lambda p: math.atan2(p[1] - cy, p[0] - cx))
    sides = [math.dist(ring[i], ring[(i + 1) % 4]) for i in range(4)]
    diagonals = [math.dist(ring[0], ring[2]), math.dist(ring[1], ring[3])]
    mean = sum(sides) / 4
    if mean < float(threshold("jingyi_min_side_chi")):
        return False, f"the four arrows lie within {mean:.2f} 尺: no shape (jingyi_min_side_chi)"
    tol = float(threshold("jingyi_tolerance"))
    worst = max(
        *(abs(s - mean) / mean for s in sides),
        *(abs(d - mean * math.sqrt(2)) / (mean * math.sqrt(2)) for d in diagonals),
    )
    if worst > tol:
        return (
            False,
            f"not a square: a side or diagonal is {worst:.0%} off (jingyi_tolerance {tol:.0%})",
        )
    # each side's angle from level or upright, whichever is nearer
    tilts = []
    for i in range(4):
        (x0, y0), (x1, y1) = ring[i], ring[(i + 1) % 4]
        deg = math.degrees(math.atan2(y1 - y0, x1 - x0)) % 90
        tilts.append(min(deg, 90 - deg))
    tilt_max = float(threshold("jingyi_tilt_deg"))
    if max(tilts) > tilt_max:
        return (
            False,
            f"a square tilted {max(tilts):.0f}°, not upright as 井 (jingyi_tilt_deg {tilt_max:g}°)",
        )
    return True, f"four arrows at the corners of a square of side {mean:.2f} 尺 (如井)"


def _xiangchi(backs: list[float] | None) -> tuple[bool | None, str]:
    if backs is None:
        return None, "his 耦 is not the 君: 襄尺 is of a 臣 shooting with the 君"
    need = float(threshold("xiangchi_back_chi"))
    least = min(backs)
    if least >= need:
        return True, f"at the 君's arrows he stood {least:g} 尺 or more behind him (不與君竝立)"
    return False, (
        f"at one of the 君's arrows he stood {least:g} 尺 behind him; 襄尺 needs {need:g} 尺 "
        "(xiangchi_back_chi)"
    )


JUDGES = {"白矢": _baishi, "參連": _canlian, "剡注": _yanzhu, "井儀": _jingyi}


def judge_five(
    outcomes: Iterable[Outcome],
    places: Mapping[tuple[int, str, str], list[float]] | None = None,
) -> list[Verdict]:
    """The 五射 for every archer and round of ``outcomes``, in the file's order of archers.

    ``places`` (from :func:`sheli.outputs.xiangchi.xiangchi_places`) decides 襄尺; without
    it 襄尺 is not judged (kept None). Each verdict carries 賈疏's definition and its source.

    >>> from sheli.scoring.outcomes import Outcome
    >>> v = judge_five([Outcome(2, "上耦", "上射", 1, True, through=True)])
    >>> [(x.name, x.kept) for x in v]
    [('白矢', True), ('參連', False), ('剡注', False), ('襄尺', None), ('井儀', False)]
    """
    groups: dict[tuple[int, str, str], list[Outcome]] = defaultdict(list)
    for o in outcomes:
        groups[(o.round, o.pair, o.archer)].append(o)
    out: list[Verdict] = []
    for key in sorted(groups, key=lambda k: k[0]):
        arrows = sorted(groups[key], key=lambda o: o.arrow)
        for item in five_data()["wushe"]["items"]:
            name = item["name"]
            if name == "襄尺":
                if places is None:
                    kept, why = None, "not judged: where the 臣 stands is the rite's (--rite)"
                else:
                    other = (key[0], key[1], "上射" if key[2] == "下射" else "下射")
                    if key not in places and other in places:
                        kept, why = None, "he is the 君: 襄尺 is of the 臣 who shoots with him"
                    else:
                        kept, why = _xiangchi(places.get(key))
            else:
                kept, why = JUDGES[name](arrows)
            out.append(Verdict(*key, name, kept, why, item["definition"], item["source"]))
    return out


# ---------------------------------------------------------------- the 五物: the 衆庶's votes

#: the header of a votes file
VOTE_FIELDS: tuple[str, ...] = ("pair", "archer", "question", "voter", "answer")


@dataclass(frozen=True)
class Vote:
    """One voice of the 衆庶 on one question (和, 容, 和容, 興舞) about one archer."""

    pair: str
    archer: str
    question: str
    voter: str
    answer: bool
    line: int | None = None


def asked_questions() -> tuple[str, ...]:
    """The 五物 asked of the 衆庶, in 易氏's order; 主皮 is counted from the hits.

    >>> asked_questions()
    ('和', '容', '和容', '興舞')
    """
    return tuple(i["name"] for i in five_data()["wuwu"]["items"] if i["asked"])


def load_votes(path: str | Path) -> list[Vote]:
    """Read a votes file (CSV, header ``pair,archer,question,voter,answer``); any fault raises
    :class:`OutcomesError` with the file and line. One voice per voter per question.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "v.csv")
    >>> _ = open(p, "w", encoding="utf-8").write(
    ...     "pair,archer,question,voter,answer\\n上耦,上射,和,a,true\\n上耦,上射,主皮,a,true\\n")
    >>> load_votes(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sheli.scoring.outcomes.OutcomesError: ...v.csv:3: question must be one of ..., not '主皮'; ...
    """
    path = Path(path)
    try:
        text = read_at_most(path, 8 << 20).decode("utf-8-sig")
    except OSError as exc:
        raise OutcomesError(path, None, f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise OutcomesError(path, None, "not UTF-8 text") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    header: list[str] | None = None
    votes: list[Vote] = []
    seen: dict[tuple[str, str, str, str], int] = {}
    asked = asked_questions()
    for row in reader:
        line = reader.line_num
        if not row or all(not c.strip() for c in row) or row[0].lstrip().startswith("#"):
            continue
        if header is None:
            header = [c.strip() for c in row]
            if header != list(VOTE_FIELDS):
                raise OutcomesError(
                    path,
                    line,
                    f"the header is {','.join(header)!r}; a votes file begins with "
                    f"the header {','.join(VOTE_FIELDS)}",
                )
            continue
        if len(row) != len(VOTE_FIELDS):
            raise OutcomesError(path, line, f"{len(row)} fields where the header has 5")
        pair, archer, question, voter, answer = (c.strip() for c in row)
        pair, archer = normalise_name(pair), normalise_name(archer)
        if not pair:
            raise OutcomesError(path, line, "pair is empty; name it as the event log does")
        if archer not in ("上射", "下射"):
            raise OutcomesError(path, line, f"unknown archer {archer!r}; an archer is 上射 or 下射")
        if question not in asked:
            extra = "; 主皮 is counted from his hits, not asked" if question == "主皮" else ""
            raise OutcomesError(
                path, line, f"question must be one of {'、'.join(asked)}, not {question!r}{extra}"
            )
        if not voter:
            raise OutcomesError(path, line, "voter is empty; one voice per voter per question")
        if answer.lower() not in ("true", "false"):
            raise OutcomesError(path, line, f"answer must be true or false, not {answer!r}")
        key = (pair, archer, question, voter)
        if key in seen:
            raise OutcomesError(
                path,
                line,
                f"{voter} answers {question} for {pair}{archer} twice "
                f"(first on line {seen[key]}): one voice per voter per question",
            )
        seen[key] = line
        votes.append(Vote(pair, archer, question, voter, answer.lower() == "true", line))
    if header is None:
        raise OutcomesError(path, 1, f"empty file; expected the header {','.join(VOTE_FIELDS)}")
    return votes


@dataclass(frozen=True)
class WuwuResult:
    """One of the 五物 for one archer: ``yes`` of ``asked`` voices (主皮: hits of arrows),
    with 鄭's and 易氏's readings and when 易氏 has it seen."""

    pair: str
    archer: str
    name: str
    yes: int
    of: int
    when: str
    zheng: str
    yi: str

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def tally_wuwu(
    votes: Iterable[Vote], outcomes: Iterable[Outcome] | None = None
) -> list[WuwuResult]:
    """The 五物 per archer: the voices for 和, 容, 和容, 興舞 and, from ``outcomes``, his hits
    of his arrows for 主皮 (not asked).

    >>> votes = [Vote("上耦", "上射", "和", "a", True), Vote("上耦", "上射", "和", "b", False)]
    >>> shots = [Outcome(2, "上耦", "上射", 1, True), Outcome(2, "上耦", "上射", 2, False)]
    >>> r = tally_wuwu(votes, shots)
    >>> [(x.name, x.yes, x.of) for x in r]
    [('和', 1, 2), ('容', 0, 0), ('主皮', 1, 2), ('和容', 0, 0), ('興舞', 0, 0)]
    """
    counts: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(
        lambda: defaultdict(lambda: [0, 0])
    )
    for v in votes:
        c = counts[(v.pair, v.archer)][v.question]
        c[0] += v.answer
        c[1] += 1
    for o in outcomes or ():
        c = counts[(o.pair, o.archer)]["主皮"]
        c[0] += o.hit
        c[1] += 1
    out = []
    for (pair, archer), by in counts.items():
        for item in five_data()["wuwu"]["items"]:
            yes, of = by.get(item["name"], [0, 0])
            out.append(
                WuwuResult(
                    pair, archer, item["name"], yes, of, item["when"], item["zheng"], item["yi"]
                )
            )
    return out
