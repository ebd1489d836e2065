"""The cue sheets in English: each performer's sheet (:mod:`sheli.outputs.cues`) with every
row's step said as :func:`sheli.outputs.english.step_sentence` says it, as text or as the
printable HTML page; the sheets' facts and numbered assumptions in English.

>>> from sheli.engine import run
>>> from sheli.outputs.cues import build_book
>>> book = build_book(run("xiangshe", seed=1), ["司射"], floor=False, diagrams=False)
>>> text = english_cue_text(book)
>>> "director of archery" in text, "[A-" in text
(True, False)
"""

from __future__ import annotations

import html
import re
from typing import Any

from sheli.outputs.cues import (
    HALL_VIEW,
    dress_words,
    hold_words,
    metres_words,
    plan_svg,
    whole_view,
)
from sheli.outputs.english import (
    assumption_english,
    label,
    step_sentence,
    term,
    title_words,
    tr,
    words_said,
)
from sheli.text.english import english as passage_english

_GLOSSED = re.compile(r"([^,()]+?) \(([^()]*)\)")


def _gloss_first(words: str) -> str:
    """``張弓 (strung bow), 袒`` → ``strung bow (張弓), (袒)``: the English first, the
    text's word in brackets (the cue sheets' holds and dress).

    >>> _gloss_first("張弓 (strung bow), 袒")
    'strung bow (張弓), (袒)'
    """
    out = []
    for item in words.split(", "):
        m = _GLOSSED.fullmatch(item)
        out.append(f"{m.group(2)} ({m.group(1)})" if m else f"({item})")
    return ", ".join(out)


def _topic(sec: Any) -> str:
    """A section's topic on an English sheet: sheli's English, then 賈疏's words in brackets
    (``: The three rounds of shooting (三番射事)``); the words alone where sheli has none."""
    if sec.topic_en:
        return f": {sec.topic_en} ({sec.topic})"
    return f" ({sec.topic})"


def _after_sentence(row: Any, role: str) -> str:
    before = [b.acts[0].after for b in row.beats]
    first = before[0]
    if first is None:
        return tr("the first step of the run")
    if all(a is not None and a.actor == role for a in before):
        return tr("straight on from your previous act")
    said = step_sentence(first)
    if len(before) > 1:
        said += " " + tr("(and {n} like it)").format(n=len(before) - 1)
    return said


def english_cue_text(book: Any, width: int = 100) -> str:
    """The role sheets of a cue book (:func:`sheli.outputs.cues.build_book`) as plain text in
    English: each act a sentence, the passage in sheli's translation, the text's words in
    brackets. The floor plan's table follows as the Chinese sheet gives it, names bracketed.

    >>> from sheli.engine import run
    >>> from sheli.outputs.cues import build_book
    >>> from sheli.outputs.english import cjk_outside_brackets
    >>> t = english_cue_text(build_book(run("xiangshe", seed=1), ["釋獲者"], floor=False))
    >>> 'say "Left and right are equal" (「左右鈞」)' in t, cjk_outside_brackets(t)
    (True, [])
    """
    lines: list[str] = []
    add = lines.append
    for sh in book.sheets:
        add("=" * width)
        who = term(sh.role, "roles").removeprefix("the ")
        who = who[0].upper() + who[1:] + (f" ({sh.name})" if sh.name else "")
        add(
            tr("{who}: cue sheet, {title}, {venue} ({key})").format(
                who=who,
                title=title_words(book.title),
                venue=title_words(book.venue_title),
                key=book.venue_key,
            )
        )
        add(tr("{acts} acts, {n} times addressed (←)").format(acts=sh.acts, n=sh.addressed))
        lines += _facts(book)
        for sec in sh.sections:
            add("")
            cites = f" ({sec.cites[0]}–{sec.cites[1].split(':')[1]})" if sec.cites else ""
            add(tr("Section {n}").format(n=sec.section) + f"{_topic(sec)}{cites}")
            add("-" * width)
            for b in sec.blocks:
                indent = "  "
                if b.reps > 1:
                    add(
                        "  ┌ "
                        + tr("repeat ×{reps}: these acts in this order (seq {seqs})").format(
                            reps=b.reps, seqs=", ".join(map(str, b.rows[0].seqs))
                        )
                    )
                    indent = "  │ "
                for row in b.rows:
                    lines += _row_lines(row, b.reps, sh, indent)
                if b.reps > 1:
                    add("  └")
        if sh.marks.order:
            add("")
            add(tr("Assumptions (what the text does not say)"))
            lines += [f"  {x}" for x in _assumption_lines(sh)]
    return "\n".join(lines) + "\n"


_PAGE_CSS = """
@page { size: A4; margin: 11mm 10mm 12mm 10mm; }
body { font-family: "Noto Serif CJK TC", "Noto Serif CJK SC", serif; font-size: 10pt;
       margin: 0 auto; max-width: 190mm; color: #1d1d1b; }
h1 { font-size: 18pt; margin: 0 0 2pt; } h2 { font-size: 12pt; border-bottom: 2px solid; }
.role { break-before: page; } .role:first-of-type { break-before: auto; }
.floorplan { break-before: page; }
.facts { font-size: 9pt; border: 1px solid #cfcabb; background: #faf8f2; padding: 4pt 6pt; }
.cue { display: grid; grid-template-columns: 1fr auto; gap: 0 6pt; border-top: 1px solid #cfcabb;
       padding: 4pt 0; break-inside: avoid; }
.cue pre { white-space: pre-wrap; font-family: inherit; margin: 0; }
.block { border: 1.5px solid; border-radius: 3pt; padding: 0 4pt; margin: 4pt 0; }
table { border-collapse: collapse; width: 100%; font-size: 8pt; }
td, th { border-bottom: 1px solid #cfcabb; padding: 1.5pt 3pt; text-align: left; }
"""


def english_cue_html(book: Any) -> str:
    """The cue book (:func:`sheli.outputs.cues.build_book`) as one self-contained HTML page
    in English: each role's sheet (the rows of :func:`english_cue_text`, each beside its
    diagram, drawn in English where the book was built with ``lang="en"``), then the floor
    plan's table with every fixture's English and its taping measurements. The text's words
    stand in brackets.

    >>> from sheli.engine import run
    >>> from sheli.outputs.cues import build_book
    >>> page = english_cue_html(build_book(run("xiangshe", seed=1), ["釋獲者"], diagrams="none"))
    >>> page.startswith("<!DOCTYPE html>") and "Scorer (釋獲者): cue sheet" in page
    True
    """
    e = html.escape
    out = [
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">',
        '<meta name="generator" content="sheli cues">',
        "<title>" + e(title_words(book.title)) + ": " + e(tr("cue sheets")) + "</title>",
        f"<style>{_PAGE_CSS}</style>\n</head>\n<body>",
    ]
    add = out.append
    text_lines = english_cue_text(book).split("\n")
    heads = [i for i, line in enumerate(text_lines) if line.startswith("=" * 10)]
    for k, sh in enumerate(book.sheets):
        # the sheet's heading lines, as the text gives them (who, title, acts, scale, origin)
        head = text_lines[heads[k] + 1 : heads[k] + 6]
        add(f'<section class="role" data-role="{e(sh.role)}">')
        add(f"<h1>{e(head[0])}</h1>")
        add('<div class="facts">' + "".join(f"<p>{e(x)}</p>" for x in head[1:] if x) + "</div>")
        for sec in sh.sections:
            cites = f" ({sec.cites[0]}–{sec.cites[1].split(':')[1]})" if sec.cites else ""
            add(f"<h2>{e(tr('Section {n}').format(n=sec.section))}{e(_topic(sec))}{cites}</h2>")
            for b in sec.blocks:
                if b.reps > 1:
                    seqs = ", ".join(map(str, b.rows[0].seqs))
                    rep = tr("repeat ×{reps}: these acts in this order (seq {seqs})")
                    add(f'<div class="block"><b>{e(rep.format(reps=b.reps, seqs=seqs))}</b>')
                for row in b.rows:
                    lines = [x.strip() for x in _row_lines(row, b.reps, sh, "")]
                    pic = sh.diagrams.get(row.last.seq, "") if book.diagrams != "none" else ""
                    add(
                        f'<div class="cue" data-seqs="{" ".join(map(str, row.all_seqs))}">'
                        f"<pre>{e(chr(10).join(lines))}</pre><div>{pic}</div></div>"
                    )
                if b.reps > 1:
                    add("</div>")
        if sh.marks.order:
            add("<h2>" + e(tr("Assumptions (what the text does not say)")) + "</h2><ol>")
            for line in _assumption_lines(sh):
                n, _, text = line.partition(". ")
                add(f'<li value="{n}">{e(text)}</li>')
            add("</ol>")
        add("</section>")
    if book.floor is not None:
        add('<section class="floorplan">')
        add("<h1>" + e(tr("Floor plan")) + f": {e(title_words(book.title))}</h1>")
        add('<div class="facts">' + "".join(f"<p>{e(x)}</p>" for x in _facts(book)) + "</div>")
        numbered = {f.name: f.number for f in book.floor}
        plans = (
            plan_svg(book.venue, book.scale, HALL_VIEW, 470, numbered=numbered, lang="en"),
            plan_svg(
                book.venue, book.scale, whole_view(book.venue), 175, numbered=numbered, lang="en"
            ),
        )
        add(f'<div class="plans">{"".join(plans)}</div>')
        cols = ("#", tr("fixture"), "x m", "y m", tr("extent m"), tr("source"))
        add("<table><thead><tr>" + "".join(f"<th>{c}</th>" for c in cols) + "</tr></thead>")
        for f in book.floor:
            ext = "{:.2f}, {:.2f} – {:.2f}, {:.2f}".format(*f.extent_m) if f.extent_m else ""
            src = f"({f.source})" + (f" ({f.assumed})" if f.assumed else "")
            add(
                f'<tr data-name="{e(f.name)}"><td>{f.number}</td>'
                f"<td>{'● ' if f.used else ''}{e(label(f.name, 'places', 'objects'))}</td>"
                f"<td>{f.x_m:.2f}</td><td>{f.y_m:.2f}</td><td>{ext}</td><td>{e(src)}</td></tr>"
            )
        add("</table>")
        if book.marks:
            add("<h2>" + e(tr("Every performer's marks")) + "</h2><table>")
            for who, ms in book.performers:
                where = "; ".join(
                    f"{term(m.place, 'places', 'objects') if m.place else '—'} — "
                    f"{m.x_m:.2f}, {m.y_m:.2f} ({m.cite})"
                    for m in ms
                )
                add(
                    f'<tr data-performer="{e(who)}"><td>{e(label(who, "roles"))}</td>'
                    f"<td>{e(where)}</td></tr>"
                )
            add("</table>")
        add("</section>")
    add("</body>\n</html>\n")
    return "\n".join(out)


def _facts(book: Any) -> list[str]:
    """The scale and the origin of a cue book, in English."""
    sc = book.scale
    return [
        tr(
            "Scale ×{factor:.3f}. One chi (尺) = {m:g} m; the target range (侯道) of "
            "{chi:g} chi is {range:.1f} m on this floor."
        ).format(factor=sc.factor, m=sc.metre_per_chi, chi=sc.hou_dao_chi, range=sc.hou_dao_m),
        tr(
            "Origin 0,0: the middle of the edge of the hall (堂廉); x runs east (E), "
            "y north (N), towards the hall (堂)."
        ),
    ]


def _row_lines(row: Any, reps: int, sheet: Any, indent: str = "  ") -> list[str]:
    """One row of a role's sheet in English: the act, the passage, the words, the tape, the
    holds, the cue (the lines of :func:`english_cue_text` and :func:`english_cue_html`);
    an assumption named by its number on the sheet (``sheet.marks``), never by its id."""
    role = sheet.role
    lines: list[str] = []
    add = lines.append
    s, c, z = row.step, row.first, row.last
    times = f" ×{row.count}" if row.count > 1 and reps == 1 else ""
    head = f"{row.seqs[0]:>5} {s.cite:<14}"
    if c.addressed:
        add(f"{indent}{head} ← {step_sentence(s)}{times}")
    else:
        said = " ".join(
            step_sentence(a.step, subject=None if i == 0 else tr("He"))
            for i, a in enumerate(row.acts)
        )
        add(f"{indent}{head} {said}{times}")
    pad = indent + " " * 21
    t = passage_english(s.cite)
    text = f"{t.text} " if t else ""
    add(f"{pad}{tr('Text')}: {text}({s.jing})")
    for w in row.says:
        add(f"{pad}{tr('say') if not c.addressed else tr('hear')} {words_said(w)}")
    if not c.addressed:
        where = metres_words(z.x_m, z.y_m)
        add(f"{pad}{tr('tape')}: {where}")
        holds = " … ".join(_gloss_first(hold_words(h)) if h else tr("nothing") for h in row.holds)
        dress = z.step.dress
        dress_s = f"; {tr('dress')}: {_gloss_first(dress_words(dress))}"
        add(f"{pad}{tr('holds')}: {holds}{dress_s if dress else ''}")
        add(f"{pad}{tr('cue')}: {_after_sentence(row, role)}")
    for n in row.notes:
        add(f"{pad}· ({n})")
    return [sheet.marks.mark(line) for line in lines]


def _assumption_lines(sheet: Any) -> list[str]:
    """The assumptions a role's sheet names, by their numbers, in English."""
    out = []
    for aid, n in sheet.marks.order.items():
        what, why = assumption_english(aid, *sheet.marks.known[aid])
        out.append(f"{n}. {what} — {why}")
    return out
