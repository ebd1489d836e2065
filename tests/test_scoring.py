"""Scoring: 釋獲, 數獲, 告獲, the 筭 as objects and 飲不勝者 (sheli.scoring)."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from loglines import step_lines

from sheli.cli import cli
from sheli.engine import run
from sheli.engine.records import BaseVisitor, Step, Tally
from sheli.scoring import (
    announce,
    count_layout,
    count_procedure,
    drinking,
    losers,
    release,
    release_rules,
    replay_count,
    side_of,
    to_chinese,
)

# ---------------------------------------------------------------- numerals

_VALUE = {c: i for i, c in enumerate("〇一二三四五六七八九")}


def _from_chinese(text: str) -> int:
    """An independent reader of the numerals to_chinese writes (for the round trip)."""
    if "萬" in text:
        high, low = text.split("萬")
        return (_from_chinese(high) if high else 1) * 10000 + (_from_chinese(low) if low else 0)
    total, digit = 0, None
    for ch in text.replace("有", ""):
        if ch in _VALUE:
            digit = _VALUE[ch]
        else:
            total += (1 if digit is None else digit) * {"十": 10, "百": 100, "千": 1000}[ch]
            digit = None
    return total + (digit or 0)


@pytest.mark.parametrize(
    ("n", "text"),
    [(1, "一"), (2, "二"), (9, "九"), (10, "十"), (11, "十一"), (19, "十九"), (20, "二十"),
     (40, "四十"), (99, "九十九"), (100, "百"), (101, "百有一"), (110, "百一十"),
     (120, "百二十"), (200, "二百"), (1000, "千"), (10000, "萬"), (10001, "萬有一"),
     (11000, "萬一千"), (20000, "二萬"), (100000, "十萬")],
)  # fmt: skip
def test_to_chinese_known_values(n: int, text: str) -> None:
    assert to_chinese(n) == text


@given(st.integers(min_value=1, max_value=10**8 - 1))
def test_to_chinese_round_trips(n: int) -> None:
    assert _from_chinese(to_chinese(n)) == n


@pytest.mark.parametrize("bad", [-1, 10**8])
def test_to_chinese_refuses_out_of_range(bad: int) -> None:
    with pytest.raises(ValueError):
        to_chinese(bad)


# ---------------------------------------------------------------- announcement


@pytest.mark.parametrize(
    ("right", "left", "said"),
    [
        (19, 14, "右賢於左二純一奇"),
        (14, 19, "左賢於右二純一奇"),
        (7, 7, "左右鈞"),
        (0, 0, "左右鈞"),
        (1, 0, "右賢於左一奇"),
        (0, 2, "左賢於右一純"),
        (24, 0, "右賢於左十二純"),
        (40, 1, "右賢於左十九純一奇"),
    ],
)
def test_announce_examples(right: int, left: int, said: str) -> None:
    assert announce(right, left) == said


_ANNOUNCEMENT = re.compile(r"^(右賢於左|左賢於右)(?:(.+)純)?(一奇)?$")


@given(st.integers(0, 200), st.integers(0, 200))
def test_announcement_gives_back_the_difference(right: int, left: int) -> None:
    said = announce(right, left)
    if right == left:
        assert said == "左右鈞"
        return
    m = _ANNOUNCEMENT.match(said)
    assert m, said
    assert m.group(1) == ("右賢於左" if right > left else "左賢於右")
    pures = _from_chinese(m.group(2)) if m.group(2) else 0
    odd = 1 if m.group(3) else 0
    assert pures * 2 + odd == abs(right - left)
    assert said != m.group(1)  # a winner always has something to announce


@pytest.mark.parametrize("bad", [(-1, 0), (0, -3), (True, 0), (1.5, 0)])
def test_announce_refuses_non_counts(bad: tuple[object, object]) -> None:
    with pytest.raises(ValueError):
        announce(*bad)  # type: ignore[arg-type]


@given(st.integers(0, 200), st.integers(0, 200))
def test_losers_is_the_side_that_did_not_win(right: int, left: int) -> None:
    loser = losers(right, left)
    if right == left:
        assert loser is None
    else:
        assert loser == ("left" if right > left else "right")


# ---------------------------------------------------------------- release (釋獲)


@pytest.mark.parametrize(
    ("args", "counted", "cite"),
    [
        ((1, True, None), False, "xiangshe:150"),
        ((1, False, None), False, "xiangshe:150"),
        ((1, True, True), False, "xiangshe:150"),
        ((2, True, None), True, "xiangshe:186"),
        ((2, True, False), True, "xiangshe:186"),  # the drum does not matter in round 2
        ((2, False, None), False, "xiangshe:184"),
        ((3, True, True), True, "xiangshe:250"),
        ((3, True, False), False, "xiangshe:248"),
        ((3, True, None), False, "xiangshe:248"),
        ((3, False, True), False, "xiangshe:184"),
    ],
)
def test_release_cases(args: tuple[int, bool, bool | None], counted: bool, cite: str) -> None:
    got, reason = release(*args)
    assert got is counted
    assert reason.endswith(f"({cite})")


def test_release_reasons_are_the_texts_words() -> None:
    assert release(2, False, None)[1].startswith("不貫不釋")
    assert release(3, True, False)[1].startswith("不鼓不釋")
    assert release(1, True, None)[1].startswith("獲而未釋獲")


@given(st.integers(1, 3), st.booleans(), st.sampled_from([True, False, None]))
def test_release_decides_every_shot(rnd: int, hit: bool, on_beat: bool | None) -> None:
    counted, _ = release(rnd, hit, on_beat)
    # a 筭 only for a hit, never in round 1, and in round 3 only on the drum
    assert counted == ((hit and rnd == 2) or (hit and rnd == 3 and on_beat is True))


def test_release_refuses_a_fourth_round() -> None:
    with pytest.raises(ValueError):
        release(4, True, True)


def test_side_of() -> None:
    assert side_of("上射") == "right"
    assert side_of("下射") == "left"
    with pytest.raises(ValueError):
        side_of("司射")


# ---------------------------------------------------------------- 數獲


@given(st.integers(0, 200), st.sampled_from(["right", "left", "右", "左"]))
def test_count_procedure_moves_every_rod_exactly_once(n: int, side: str) -> None:
    actions = count_procedure(n, side)
    layout = count_layout(n)
    ends = replay_count(actions, n)  # raises if the ground or hand is not emptied
    assert sum(ends.values()) == n
    assert ends.get("odd", 0) == layout.odd
    assert ends.get("rest", 0) == 2 * layout.rest_pures
    heaps = {k: v for k, v in ends.items() if k.startswith("heap")}
    assert len(heaps) == layout.heaps
    assert all(v == 20 for v in heaps.values())  # 十純則縮而委之


@given(st.integers(0, 200))
def test_right_takes_by_pure_left_gathers_at_once(n: int) -> None:
    right = count_procedure(n, "right")
    left = count_procedure(n, "left")
    # 一純以取實于左手 (xiangshe:195) … 坐兼歛算實于左手 (xiangshe:200)
    assert [a.count for a in right if a.kind == "take"] == [2] * (n // 2)
    assert [a.count for a in left if a.kind == "gather"] == ([n] if n else [])
    # 一純以委 (xiangshe:200): on the left every 純 is laid on its own
    assert all(a.count in (1, 2) for a in left if a.kind == "lay")
    assert right[0].cite == "xiangshe:193" and left[0].cite == "xiangshe:199"


def test_count_of_forty_seven_right() -> None:
    lays = [(a.count, a.dest, a.form) for a in count_procedure(47, "right") if a.kind == "lay"]
    assert lays == [(20, "heap 1", "縮"), (20, "heap 2", "縮"), (6, "rest", "横"), (1, "odd", "縮")]
    apart = [a for a in count_procedure(47, "right") if a.kind == "set_apart"]
    assert [a.cite for a in apart] == ["xiangshe:196", "xiangshe:196"]  # 每委異之


def test_count_procedure_refuses_bad_input() -> None:
    with pytest.raises(ValueError):
        count_procedure(-1, "right")
    with pytest.raises(ValueError):
        count_procedure(3, "middle")


# ---------------------------------------------------------------- the 筭 as objects


class RodsInPlay(BaseVisitor):
    """Where the 筭 are at each step from the filling of the 中 on, in the engine's one model
    of them: (in the 中, 委 west of it, on the ground right, left, in the hand of the one who
    fills the 中 — the 釋獲者, 大史 in 大射儀). The 筭 of a count in his left hand are those on
    the ground (they stay there until 兼歛算 xiangshe:204), so they are not added twice. Rows
    end when he lays them away with the 中 (退中與筭, xiangshe:258, dashe:277): out of play."""

    PUT_AWAY = frozenset({"xiangshe:258", "dashe:277"})

    def __init__(self) -> None:
        self.keeper: str | None = None
        self.put_away = False
        self.hand = 0
        self.rows: list[tuple[int, int, int, int, int]] = []
        self.released: dict[int, Counter[str]] = {}
        self.tallies: list[Tally] = []

    def visit_step(self, s: Step) -> None:
        if self.keeper is None and s.objects.rods_in_vessel:
            self.keeper = s.actor
        if s.actor == self.keeper and s.cite in self.PUT_AWAY:
            self.put_away = True
        if s.actor == self.keeper:
            self.hand = s.holding.count("筭") - s.holding.counting
        if self.keeper is not None and not self.put_away:
            o = s.objects
            self.rows.append(
                (o.rods_in_vessel, o.rods_reserve, o.rods_right, o.rods_left, self.hand)
            )
        if s.verb == "釋獲":
            self.released.setdefault(s.round, Counter())[s.side or ""] += 1

    def visit_tally(self, tally: Tally) -> None:
        self.tallies.append(tally)

    def result(self) -> RodsInPlay:
        return self


class AllHit:
    """Every arrow hits, on the beat."""

    def outcome(self, *arrow: object) -> tuple[bool, bool]:
        return True, True


@pytest.mark.parametrize(
    "kw",
    [
        {"rite": "xiangshe", "seed": 1},
        {"rite": "xiangshe", "seed": 2, "pairs": 3},
        {"rite": "xiangshe", "pairs": 6, "guests": False, "outcomes": AllHit()},
        {"rite": "dashe"},
        {"rite": "yanshe"},
    ],
)
@pytest.mark.slow
def test_every_rod_is_somewhere_and_the_count_is_what_was_released(kw: dict) -> None:
    # 箭籌八十 (記 xiangshe:378); the 中 holds eight, 鑿背容八算 (記 xiangshe:354)
    rods = run(**kw).accept(RodsInPlay())
    assert rods.rows and {sum(row) for row in rods.rows} == {80}
    assert max(row[0] for row in rods.rows) == 8
    # one 筭 laid for each counted hit, 上射於右，下射於左 (xiangshe:186), counted by side
    assert [t.round for t in rods.tallies] == [2, 3]
    for t in rods.tallies:
        assert (t.right, t.left) == (rods.released[t.round]["右"], rods.released[t.round]["左"])
        assert t.announcement == announce(t.right, t.left)


@pytest.mark.slow
def test_eighty_rods_serve_ten_pairs_that_hit_every_arrow() -> None:
    # 箭籌八十, 注「略以十耦爲正」(xiangshe:378): the 中 is not filled again before the last
    # pair shoots (A-gai-shi), so eighty serve ten pairs that hit every arrow
    r = run("xiangshe", pairs=7, guests=False, outcomes=AllHit())
    rods = r.accept(RodsInPlay())
    assert [(t.right, t.left) for t in rods.tallies] == [(40, 40), (40, 40)]
    refills = [
        e
        for e in step_lines(r)
        if e["cite"] == "xiangshe:187" and e["verb"] == "實" and e["actor"] == "釋獲者"
    ]
    # 改實八算于中 before each of the nine pairs after the first, but the last: eight a round
    assert len(refills) == 2 * 8


@pytest.mark.parametrize("kw", [{"seed": 1}, {"seed": 2, "pairs": 2}, {"rite": "yanshe"}])
@pytest.mark.slow
def test_the_zhong_is_filled_again_for_every_pair_but_the_last(kw: dict) -> None:
    # 又取中之八算改實八算于中 (xiangshe:187) before each pair after the first; before the last
    # the eight are taken and the 中 is left empty (A-gai-shi), whichever pair shoots last
    r = run(**{"rite": "xiangshe", **kw})
    pairs = len(r.world.groups["射耦"])
    for rnd in (2, 3):
        refills = [
            e
            for e in step_lines(r)
            if e["round"] == rnd and e["cite"] == "xiangshe:187" and e["verb"] == "實"
        ]
        assert len(refills) == pairs - 2


# ---------------------------------------------------------------- 飲不勝者


def test_three_pairs_drink_first_with_their_winner() -> None:
    ds = drinking(10, 3, ["衆耦1", "上耦", "次耦", "下耦"])
    assert [d.name for d in ds] == ["上耦下射", "次耦下射", "下耦下射", "衆耦1下射"]
    assert all(d.partner_ascends and d.bow == "弛弓" for d in ds)
    assert ds[0].poured_by == "勝者之弟子" and ds[1].poured_by == "執爵者"  # xiangshe:206, 214


def test_guest_host_and_dafu_special_cases() -> None:
    pairs = ["上耦", "次耦", "下耦", "賓耦", "大夫耦1", "衆耦1"]
    left_loses = {d.name: d for d in drinking(12, 2, pairs)}
    host, dafu = left_loses["賓耦下射"], left_loses["大夫耦1下射"]
    assert host.rank == "主人" and host.bow is None and not host.partner_ascends
    assert "xiangshe:360" in host.cites  # 主人亦飲于西階上
    assert dafu.rank == "大夫" and dafu.bow is None and not dafu.partner_ascends  # 耦不升
    assert dafu.cup.endswith("以授于席前")
    right_loses = {d.name: d for d in drinking(2, 12, pairs)}
    guest, partner = right_loses["賓耦上射"], right_loses["大夫耦1上射"]
    assert guest.rank == "賓" and guest.bow is None
    # 若大夫之耦不勝則亦執弛弓特升飲 (xiangshe:219)
    assert partner.rank == "大夫之耦" and partner.bow == "弛弓" and not partner.partner_ascends
    assert partner.cites == ("xiangshe:219",)
    order = [d.name for d in drinking(2, 12, pairs)]
    assert order == ["上耦上射", "次耦上射", "下耦上射", "賓耦上射", "大夫耦1上射", "衆耦1上射"]


def test_no_one_drinks_when_even() -> None:
    assert drinking(5, 5, ["上耦", "賓耦"]) == []


# ---------------------------------------------------------------- against the corpus

_FOLD = str.maketrans({"竒": "奇", "筭": "算", "于": "於", "橫": "横", "爲": "為"})


def _jing(corpus_dir) -> list[str]:
    lines = (corpus_dir / "yili-jing-xiangshe.txt").read_text("utf-8").splitlines()
    return [ln.translate(_FOLD) for ln in lines]


def _cited_text(jing: list[str], cites: tuple[str, ...] | list[str]) -> str:
    return "".join(jing[int(c.split(":")[1]) - 1] for c in cites)


def test_release_words_are_in_the_cited_passages(corpus_dir) -> None:
    jing = _jing(corpus_dir)
    zhu = {
        int(row.split("\t")[0]): row.split("\t")[3]
        for row in (corpus_dir / "yili-zhushu-xiangshe.tsv").read_text("utf-8").splitlines()[1:]
    }
    for rule in release_rules():
        line = int(rule.cite.split(":")[1])
        source = jing[line - 1] + zhu[line].translate(_FOLD)
        assert rule.reason.translate(_FOLD) in source, (rule.reason, rule.cite)


@pytest.mark.parametrize("side", ["right", "left"])
def test_count_words_are_in_the_cited_passages(corpus_dir, side: str) -> None:
    jing = _jing(corpus_dir)
    for act in count_procedure(47, side):
        assert act.jing.translate(_FOLD) in _cited_text(jing, [act.cite]), act


def test_drinking_words_are_in_the_cited_passages(corpus_dir) -> None:
    jing = _jing(corpus_dir)
    pairs = ["上耦", "賓耦", "大夫耦1", "衆耦1"]
    for d in [*drinking(9, 1, pairs), *drinking(1, 9, pairs)]:
        assert d.jing.translate(_FOLD) in _cited_text(jing, d.cites), d


def test_announcement_forms_are_the_texts(corpus_dir) -> None:
    jing = _jing(corpus_dir)
    assert "若右勝則曰右賢於左若左勝則曰左賢於右" in jing[203 - 1]
    assert "曰左右鈞" in jing[204 - 1]


# ---------------------------------------------------------------- CLI


@pytest.mark.parametrize(
    ("args", "out"),
    [(["19", "14"], "右賢於左二純一奇"), (["7", "7"], "左右鈞"), (["0", "3"], "左賢於右一純一奇")],
)
def test_cli_score_prints_the_announcement(args: list[str], out: str) -> None:
    result = CliRunner().invoke(cli, ["score", *args])
    assert result.exit_code == 0, result.output
    assert result.output == out + "\n"


def test_cli_score_explain_and_count() -> None:
    result = CliRunner().invoke(cli, ["score", "19", "14", "--explain", "--count"])
    assert result.exit_code == 0, result.output
    assert "xiangshe:203" in result.output
    assert "十純則縮而委之" not in result.output  # nineteen is fewer than ten 純
    assert "有餘純則横於下" in result.output and "一純以委" in result.output


def test_cli_score_refuses_bad_counts() -> None:
    assert CliRunner().invoke(cli, ["score", "--", "-1", "2"]).exit_code != 0
    result = CliRunner().invoke(cli, ["score", "3"])
    assert result.exit_code != 0 and "RIGHT LEFT" in result.output


# ---------------------------------------------------------------- event log lines


def test_cli_explain_even_counts() -> None:
    held = CliRunner().invoke(cli, ["score", "3", "3", "-e"]).output
    assert "左右皆執一算" in held and "no 不勝者" in held
    empty = CliRunner().invoke(cli, ["score", "0", "0", "-e"]).output
    assert "左右皆執一算" not in empty and "no 算 on either side" in empty
