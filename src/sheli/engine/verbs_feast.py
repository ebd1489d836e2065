"""Verbs of the feast (獻, 酢, 酬, 旅酬, 無筭爵 …) of 鄉射禮 and 大射儀.

Registered into :data:`sheli.engine.verbs.VERBS` with the same ``@verb`` decorator; a name
already defined elsewhere is an error, so two modules cannot silently define one verb.

Most acts of the feast are the vocabulary's (拜 答拜 揖 讓 辭 對 取 奠 受 授 洗 實 祭 卒爵 …).
This module adds the few the feast's text needs and the archery's does not:

- 在: where someone is when the whole rite begins (the cast is the archery's start);
- 盥 (wash the hands), 啐 (taste the wine: the cup stays full), 嚌 (taste the 肺);
- 歌, 笙, 鼓: the music of the feast (合樂 xiangshe:88, 陔 xiangshe:295–296), apart from the
  archery's 奏 (騶虞, round 3);

(That a cup set down full is taken up full, and that a drink of the feast is not a 罰爵, is
the core vocabulary's: :func:`sheli.engine.verbs.put`, ``take`` and ``cup``.)

>>> from sheli.engine.verbs import VERBS
>>> all(v.kind for v in VERBS.values())
True
>>> VERBS["啐"].kind, VERBS["在"].kind
('cup', 'stand')
"""

from __future__ import annotations

from sheli.engine.verbs import Ctx, VerbError, set_facing, set_place, verb

CUPS = ("爵", "觶")


@verb("在", kind="stand")
def be_at(ctx: Ctx) -> None:
    """在: where a person is when the whole rite begins (before 戒賓 xiangshe:1).

    The spec's ``cast:`` gives everyone's place at the start of the archery (xiangshe:110); when
    the feast runs first, its opening step puts those who come from elsewhere where the text
    first finds them (the 賓 at his gate, xiangshe:1 賓出迎; the 衆賓, the 大夫, the 工 and the
    笙 outside the 門, xiangshe:15, 75, 86, 87). No act of the rite, only a starting place: it
    goes between 堂 and 庭 without a 階 and does not change the person's 位.
    """
    ref = ctx.act.at if ctx.act.at is not None else ctx.act.to
    if ref is None:
        raise VerbError("在 needs at: the place where he is when the rite begins")
    set_place(ctx.p, ctx.place(ref))
    ctx.p.posture = "立"
    set_facing(ctx)


@verb("盥", "嚌", kind="courtesy")
def wash_hands(ctx: Ctx) -> None:
    """盥: wash the hands before washing a cup (下盥洗 xiangshe:25, 注 盥手又洗爵致潔敬也);
    嚌: taste the 肺 (尚左手嚌之 xiangshe:37, 注 嚌嘗也). No state changes."""
    set_facing(ctx)


@verb("啐", kind="cup")
def sip(ctx: Ctx) -> None:
    """啐: taste the wine (席末坐啐酒 xiangshe:38, 注 啐嘗也).

    Precondition: the cup is in hand and full (啐 comes between 祭酒 and 卒爵, xiangshe:38–40);
    it stays full.
    """
    obj = ctx.act.obj or "爵"
    if ctx.p.items.get(obj, 0) < 1:
        raise VerbError(f"{ctx.p.name} 啐 with no {obj} in hand (xiangshe:38 執爵…啐酒)")
    if not ctx.p.cup_full:
        raise VerbError(f"{ctx.p.name} 啐 from an empty {obj} (xiangshe:30 實之 comes first)")
    set_facing(ctx)


@verb("歌", "笙", "鼓", kind="music")
def feast_music(ctx: Ctx) -> None:
    """The feast's music: the 工 歌 with the 瑟 and the 笙 play (乃合樂周南…召南…
    xiangshe:88, 注 合金石絲竹而歌之); 陔作 (xiangshe:296), 注 xiangshe:295 「大夫士鼓而已」.
    Not the archery's 奏 (騶虞, xiangshe:250), which keeps the shooting's time."""
    says = ctx.act.says
    if says:
        ctx.extra["says"] = says
    set_facing(ctx)


@verb("亨", kind="other")
def cook(ctx: Ctx) -> None:
    """亨: the dog is cooked (羹定 xiangshe:13, 注 肉謂之羹定猶熟也; 其牲狗也, 亨于堂東北
    記 xiangshe:312–313). Not tracked by the state."""
    set_facing(ctx)


@verb("相旅", kind="speech")
def xiang_lv(ctx: Ctx) -> None:
    """相旅: the 司正 calls the next to receive the 旅酬 — 司正升自西階相旅，作受酬者曰某酬某子
    (xiangshe:266; 注 某者字也，某子者氏也).

    ``to`` names the one who receives (受酬者); ``from`` the one who gives (酬者), by default the
    one who received last. From then on the spec may name them 酬者 and 受酬者 (and the last to
    receive 卒受者, xiangshe:269), so that a procedure (如賓酬主人之禮 xiangshe:264, 268) passes the
    觶 down a row whose length the run decides (衆受酬者…辯，遂酬在下者 xiangshe:268).
    Precondition: the giver is present and is not the receiver.

    >>> from sheli.engine.verbs import VERBS
    >>> VERBS["相旅"].kind
    'speech'
    """
    w = ctx.world
    recv = ctx.other(ctx.act.to)
    if recv is None:
        raise VerbError("相旅 needs to: the one who receives the 酬 (作受酬者 xiangshe:266)")
    if ctx.act.from_ is not None:
        giver = ctx.other(ctx.act.from_)
    else:
        giver = w.person("受酬者") if "受酬者" in w.aliases else None
    if giver is None:
        raise VerbError(
            "相旅 with no one to give: name him with from: (the first 酬者), or call the 受酬者 "
            "of the last 相旅 (某酬某子 xiangshe:266)"
        )
    if giver.name == recv.name:
        raise VerbError(f"{giver.name} cannot 酬 himself (某酬某子 xiangshe:266)")
    w.aliases["酬者"] = giver.name
    w.aliases["受酬者"] = w.aliases["卒受者"] = recv.name
    ctx.extra["to"] = recv.name
    if ctx.act.says:
        ctx.extra["says"] = ctx.act.says
    set_facing(ctx)
