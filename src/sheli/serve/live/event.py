"""What the screens of a live event are drawn from: the state each view is sent.

:class:`LiveEvent` is the event's state (:class:`~sheli.serve.live.state.EventState`) with its
views: the full state every screen's message is cut from (:meth:`LiveEvent.state`), a
performer's cues, the 五物's question and totals, and the English of the audience screen.

>>> ev = LiveEvent({"id": "e1", "created_ms": 0, "rite": "xiangshe", "venue": "xie",
...                 "pairs": 0, "guests_shoot": False, "dafu": 1, "cast": []})
>>> s = ev.state(now=0)
>>> s["step"]["index"], s["step"]["cite"], s["version"]
(0, 'xiangshe:1', 0)
"""

from __future__ import annotations

from functools import cache
from typing import Any

from sheli import text
from sheli.engine.records import Shot, Step
from sheli.i18n import translation
from sheli.outputs.english import ROUNDS_EN, announcement_en, gloss, label, title_words
from sheli.outputs.viewer_english import EnglishTable
from sheli.serve import wuwu
from sheli.serve.hou import target_for
from sheli.serve.live.run import Derived
from sheli.serve.live.state import EventState, iso
from sheli.text.commentary import notes_for


def marks(shots: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The arrows of the round with a place on the 侯, as the audience screen draws them.

    >>> m = marks([{"pair": "上耦", "seat": "上射", "arrow": 1, "hit": True, "x": 1.0, "y": 2.0,
    ...             "hou": "采侯", "name": None, "archer": "上耦上射"}, {"x": None}])
    >>> [(a["pair"], a["arrow"], a["x"], a["y"], a["through"], a["hou"]) for a in m]
    [('上耦', 1, 1.0, 2.0, False, '采侯')]
    """
    keep = ("pair", "seat", "archer", "name", "arrow", "hit", "x", "y")
    return [
        {k: s.get(k) for k in keep} | {"through": bool(s.get("through")), "hou": s.get("hou")}
        for s in shots
        if s.get("x") is not None and s.get("y") is not None
    ]


#: the longest a "next moment" plays on the audience screen, in seconds: a moment longer on
#: the timeline is played faster to fit (an assumption: the hall waits that long, no more; the
#: default 鄉射禮's moments last 94 s on the timeline at the median, 1153 s at the longest)
PLAY_CAP_S = 20.0
#: the acts of a moment played at most (evenly spread; the median moment has 13, the largest
#: 237, and every screen gets every state)
PLAY_FRAMES = 30


@cache
def passage(cite: str) -> dict[str, Any]:
    """The passage a step enacts, with its 鄭注 and 賈疏 where the project has them."""
    try:
        p = text.get_passage(cite)
    except Exception:
        return {"cite": cite, "text": None, "zhu": [], "shu": []}
    zhu: list[str] = []
    shu: list[str] = []
    try:
        for n in notes_for(cite):
            if n.kind == "注" and n.text not in zhu:
                zhu.append(n.text)
            elif n.kind == "疏" and n.text not in shu:
                shu.append(n.text)
    except Exception:  # the commentary is optional; the passage is enough to perform
        pass
    return {
        "cite": cite,
        "text": p.text,
        "kind": p.kind,
        "section": p.section,
        "zhu": zhu,
        "shu": shu,
    }


#: each act's English sentence, made once (the audience screen's English, docs/serve.md)
_SENTENCES = EnglishTable()


def english_step(step: Step) -> str:
    """A step's English sentence as the audience screen shows it (outputs/english.py).

    >>> from sheli.engine.state import Holding, Objects
    >>> english_step(Step(7, 0, 9, "xiangshe:96", None, "司射", "袒", None, None, "W",
    ...     Holding(), None, "堂西", [], 0, Objects()))
    'The director of archery (司射) bares his left arm (袒) west of the hall (堂西), facing west.'
    """
    return _SENTENCES.text(_SENTENCES.sentence(step))


@cache
def audience_english() -> dict[str, str]:
    """The audience screen's interface strings in English, from the gettext catalogue (the
    message ids are the screen's own words); the page holds them, not every state.

    >>> audience_english()["drink"]
    'the losers drink'
    """
    tr = translation("en").gettext
    return {
        "hou": tr("侯 · 矢之所著"),
        "announce": tr("釋獲者告"),
        "tally": tr("獲"),
        "right": tr("右"),
        "left": tr("左"),
        "history": tr("告 · 飲"),
        "drink": tr("飲不勝者"),
        "section": tr("賈疏"),
        "notCounted": tr("獲而未釋獲"),
        "drum": tr("不鼓不釋"),
        "vote": tr("五物 · 詢衆庶"),
        "yes": tr("是"),
        "no": tr("否"),
        "answered": tr("此屏已答"),
        "live": tr("連線"),
        "reconnecting": tr("重新連線中…"),
        "revoked": tr("此連結已撤銷或無效"),
        **{f"round{k}": v for k, v in ROUNDS_EN.items()},
    }


class LiveEvent(EventState):
    """An event's inputs replayed into its current state, and the views drawn from it."""

    # ------------------------------------------------------------------ views
    def event_dict(self) -> dict[str, Any]:
        c = self.config
        d = self.derived()
        return {
            "id": self.id,
            "rite": c.get("rite"),
            "title": c.get("title") or d.run.title,
            # a title the director gave is his own words, kept as given; else the rite's name
            "title_en": c.get("title") or title_words(d.run.title),
            "venue": d.run.venue,
            "pairs": d.run.params.get("pairs"),
            "guests_shoot": d.run.params.get("guests_shoot"),
            "dafu": d.run.params.get("dafu"),
            "hou_dao_m": c.get("hou_dao_m"),
            "created_at": iso(c.get("created_ms")),
            "started_at": iso(self.started_ms),
            "cast": [
                {"role": x["role"], "actor": x["actor"], "name": x["name"]}
                for x in c.get("cast", ())
            ],
        }

    def state(self, now: int) -> dict[str, Any]:
        """The full state every view is drawn from (the role fields are added per token)."""
        d = self.derived()
        i = self.current(d)
        steps = d.steps
        cur = steps[i]
        seq = cur.seq
        rnd = cur.round
        step = d.step(i)
        step.update(index=i, total=len(steps), moments=d.moments)
        # the 筭 fallen so far this round; the count's result once it has been announced
        right = sum(
            1
            for s in d.shots
            if s.round == rnd and s.counted and s.archer == "上射" and s.seq <= seq
        )
        left = sum(
            1
            for s in d.shots
            if s.round == rnd and s.counted and s.archer == "下射" and s.seq <= seq
        )
        tally: dict[str, Any] = {"round": rnd, "right": right, "left": left, "announcement": None}
        # the English for the audience screen's switch (docs/serve.md): the step's sentence
        # and each announcement's (the tally's is its round's); kept to these, as every
        # screen gets every state (the drinkers' names stay the text's, in brackets)
        step["en"] = english_step(d.named(i))
        announcements = []
        for t in d.tallies:
            if t.seq <= seq:
                announcements.append(
                    {
                        "round": t.round,
                        "text": t.announcement,
                        "right": t.right,
                        "left": t.left,
                        "winner": t.winner,
                        "seq": t.seq,
                        "en": announcement_en(t.right, t.left),
                    }
                )
                if t.round == rnd:
                    tally.update(right=t.right, left=t.left, announcement=t.announcement)
                    tally["winner"] = t.winner
        # the 罰爵 drunk so far (飲不勝者, xiangshe:205–220): an archer's drink in a round of
        # shooting; the feast's drinks (round 0) and the 獻 of the 獲者 and the 釋獲者 are
        # not the losers' (as the engine's Run.drank)
        archers = {(s.round, s.person) for s in d.shots if s.pair != "誘射"}
        drinks = [
            {
                "round": r,
                "who": who,
                "en": label(who, "roles"),  # the audience screen in English names him so
                "name": self.names.get(who),
                "cite": cite,
            }
            for r, who, cite, at in d.drink_seq
            if at is not None and at <= seq and (r, who) in archers
        ]
        shots = []
        for s in d.shots:
            if s.round != rnd or s.pair == "誘射":
                continue
            k = (s.round, s.pair, s.archer, s.arrow)
            rec = self.arrows.get(k)
            on_beat = None
            if rec is not None:
                on_beat = rec.on_beat
                if on_beat is None and k in self.taps:
                    on_beat = self.taps[k]["on_beat"]
            shots.append(
                {
                    "round": s.round,
                    "pair": s.pair,
                    "seat": s.archer,
                    "archer": s.person,
                    "name": self.names.get(s.person),
                    "arrow": s.arrow,
                    "hit": rec.hit if rec else None,
                    "on_beat": on_beat,
                    "recorded": rec is not None,
                    "counted": s.counted if rec else None,
                    "corrections": rec.corrections if rec else 0,
                    "tap": self.taps.get(k),
                    "seq": s.seq,
                    "shot": seq >= s.seq,
                    "hou": target_for(self.config.get("rite", ""), s.target).name,
                    **(rec.detail if rec else {}),
                }
            )
        est = d.estimate
        if self.started_ms is None:
            elapsed = 0.0
            late = 0.0
            remaining = est.remaining_from(i)
        else:
            elapsed = max(0.0, (now - self.started_ms) / 1000)
            arrived = ((self.arrived_ms or self.started_ms) - self.started_ms) / 1000
            on_step = elapsed - arrived
            planned_start = est.elapsed_before(i) - est.elapsed_before(self.start_index(d))
            late = (arrived - planned_start) + max(0.0, on_step - est.seconds[i])
            remaining = est.remaining_from(i + 1) + max(0.0, est.seconds[i] - on_step)
        total = est.total
        if d.stopped and d.plan_total and d.plan_total > total:
            # the rest of the rite is not derivable yet: its time from a whole (seeded) run
            remaining += d.plan_total - total
            total = d.plan_total
        return {
            "version": self.version,
            "server_ms": now,
            "event": self.event_dict(),
            "step": step,
            "next": [d.step(j) for j in range(i + 1, min(i + 6, len(steps)))],
            "round": rnd,
            "tally": tally,
            "announcements": announcements,
            "drinks": drinks,
            "shots": shots,
            "marks": marks(shots),
            "drum": dict(self.drum),
            "timing": {
                "elapsed_s": round(elapsed, 1),
                "estimated_total_s": round(total, 1),
                "estimated_remaining_s": round(remaining, 1),
                "late_s": round(late, 1),
                "step_estimated_s": round(est.seconds[i], 1),
            },
            "passage": passage(cur.cite),
            "question": self.question(d, seq),
            "wuwu": self.wuwu(d, seq, rnd),
            "stopped": d.stopped,
            "last_step": i == len(steps) - 1,
            "play": self.play(d, i),
        }

    def play(self, d: Derived, i: int) -> dict[str, Any] | None:
        """The acts the last "next moment" passed over, for the audience screen to play
        before it shows step ``i`` (docs/serve.md, "Moments, jumps, the counter"): each act's
        ``at`` is seconds after the move, its ``t`` on the timeline less the old step's,
        divided by ``speed`` (1, real time, unless the moment is longer than
        :data:`PLAY_CAP_S`: then it is played in that long). At most :data:`PLAY_FRAMES` acts,
        evenly spread; None when the last move was not a "next moment"."""
        if self.moved_from is None or self.moved_ms is None:
            return None
        j = d.index_of.get(self.moved_from)
        if j is None or j >= i:
            return None
        t0, t1 = d.steps[j].t or 0.0, d.steps[i].t or 0.0
        span = max(0.0, t1 - t0)
        speed = max(1.0, span / PLAY_CAP_S)
        between = list(range(j + 1, i))
        if len(between) > PLAY_FRAMES:
            between = [between[k * len(between) // PLAY_FRAMES] for k in range(PLAY_FRAMES)]
        keep = ("seq", "round", "section", "cite", "jing", "actor", "verb", "says", "moment")
        frames = []
        for k in between:
            s = d.steps[k]
            f: dict[str, Any] = {key: getattr(s, key) for key in keep}
            f["at"] = round(max(0.0, (s.t or t0) - t0) / speed, 2)
            f["en"] = english_step(d.named(k))
            name = self.names.get(s.actor)
            if name:
                f["name"] = name
            frames.append(f)
        return {
            "version": self.moved_version,
            "t": iso(self.moved_ms),
            "t_ms": self.moved_ms,
            "span_s": round(span, 2),
            "speed": round(speed, 2),
            "seconds": round(span / speed, 2),
            "frames": frames,
        }

    # ------------------------------------------------------------------ the 五物
    def archers(self, d: Derived, rnd: int | None = None) -> dict[str, list[Shot]]:
        """Each archer's shots in the run (:meth:`Derived.archers`)."""
        return d.archers(rnd)

    def moment(self, d: Derived, archer: str, i: int) -> str:
        """Before, while or after the archer's shooting at step ``i`` (易氏's moments,
        :mod:`wuwu`): his arrows of the step's round if he shoots in it, else all of his."""
        s = d.steps[i]
        return self.moments(d, s.seq, s.round).get(archer, "before")

    def moments(self, d: Derived, seq: int, rnd: int) -> dict[str, str]:
        """:meth:`moment` of every archer at the step ``seq`` of round ``rnd``."""
        now = self.archers(d, rnd)
        return {
            a: wuwu.moment_of([s.seq for s in now.get(a) or shots], seq)
            for a, shots in self.archers(d).items()
        }

    def question(self, d: Derived, seq: int) -> dict[str, Any] | None:
        """The question open now, as an audience phone shows it (no totals: a screen answers
        without seeing how the hall answered)."""
        q = self.questions.open_one()
        if q is None:
            return None
        it = wuwu.item(q["item"]) or {}
        return {
            "id": q["id"],
            "item": q["item"],
            "archer": q["archer"],
            "name": self.names.get(q["archer"]),
            "reading": it.get("yi"),
            "answers": list(wuwu.ANSWERS),
            # for the screen's English (docs/serve.md): the text's terms kept in brackets
            "en": {
                "item": f"{it['en']} ({q['item']})" if it.get("en") else f"({q['item']})",
                "archer": label(q["archer"], "roles"),
                "reading": gloss(it["yi_en"]) if it.get("yi_en") else None,
            },
        }

    def wuwu(self, d: Derived, seq: int, rnd: int) -> dict[str, Any] | None:
        """The director's 五物: for each archer the moment he is at, his 主皮 from his
        recorded arrows, and the totals of each item asked, with every question and the
        sources. None for a rite other than 鄉射禮 (the 五物 are its own, 周禮 鄉大夫)."""
        if self.config.get("rite", wuwu.RITE) != wuwu.RITE:
            return None
        out = []
        moments = self.moments(d, seq, rnd)
        for archer, shots in self.archers(d).items():
            recorded = [self.arrows.get((s.round, s.pair, s.archer, s.arrow)) for s in shots]
            asked: dict[str, dict[str, Any]] = {}
            for q in self.questions.asked.values():
                if q["archer"] != archer:
                    continue
                yes, no = self.questions.totals.get(q["id"], [0, 0])
                a = asked.setdefault(q["item"], {"yes": 0, "no": 0, "questions": []})
                a["yes"] += yes
                a["no"] += no
                a["questions"].append(q | {"yes": yes, "no": no})
            out.append(
                {
                    "archer": archer,
                    "name": self.names.get(archer),
                    "moment": moments[archer],
                    "主皮": {
                        "hits": sum(1 for a in recorded if a is not None and a.hit),
                        "recorded": sum(1 for a in recorded if a is not None),
                        "arrows": len(shots),
                    },
                    "asked": asked,
                }
            )
        return {
            "source": wuwu.source(),
            "answers": list(wuwu.ANSWERS),
            "items": wuwu.items(),
            "open": self.questions.open_one(),
            "archers": out,
        }

    def cues(self, performer_role: str | None) -> list[dict[str, Any]]:
        """A performer's acts, in order, the current one marked."""
        if not performer_role:
            return []
        d = self.derived()
        i = self.current(d)
        keep = (
            "seq", "round", "section", "cite", "jing", "verb", "says", "place", "facing",
            "x", "y", "holds", "dress", "to", "obj", "at", "note",
        )  # fmt: skip
        out = []
        for j, st in enumerate(d.steps):
            if st.actor == performer_role or st.to == performer_role:
                s = st.to_json()  # the fields the performer's screen shows, as the log has them
                c = {k: s[k] for k in keep if k in s}
                c.update(index=j, actor=st.actor, current=j == i, done=j < i)
                c["addressed"] = st.actor != performer_role
                out.append(c)
        return out
