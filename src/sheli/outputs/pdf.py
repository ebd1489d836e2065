"""Print an HTML page to PDF with the system's chromium (headless, through Playwright).

A small shared helper: the cue sheets use it, and any other output that is an HTML page can.
It never downloads a browser (no ``playwright install``): it drives the chromium the system
package manager installed (Debian: ``apt-get install chromium fonts-noto-cjk``), so the CJK
text is set in a font the machine really has. Nothing is written unless the whole PDF is made
(:func:`sheli.files.writing`: a temporary file beside the target, then a rename).

The printed text is the text. Noto CJK draws a Kangxi radical and its ideograph with one glyph
(⼸ U+2F38 and 弓 U+5F13), and chromium's PDF maps each glyph back to the lowest code point the
font gives it, so a PDF set in the installed font reads ⼸ where the page says 弓, and a search
for 弓 fails. So the browser is started with a fontconfig of its own (:func:`shadow_fonts`), in
which the families the pages name first for CJK text are subsets of themselves holding only
the page's characters, radicals left out: a glyph then has one code point, the ideograph's.
It holds for every text the browser sets, the diagrams' SVG images included.

"""

from __future__ import annotations

import base64
import io
import os
import re
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from xml.sax.saxutils import escape

from sheli import collector
from sheli.errors import SheliError
from sheli.files import writing
from sheli.forked import FORK, as_child, signals_held

# Debian's package puts the browser here; CHROMIUM names another one.
DEFAULT_CHROMIUM = "/usr/bin/chromium"

INSTALL_HINT = (
    "printing to PDF needs chromium and CJK fonts: on Debian or Ubuntu, "
    "`sudo apt-get install chromium fonts-noto-cjk` (or set CHROMIUM to a chromium binary); "
    "the .html output needs neither"
)

# Flags for a quiet, offline, one-shot print: no sandbox (containers, CI), no GPU, and none
# of the background traffic a desktop browser would start.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# The CJK families the project's pages name first (the cue sheets' template, the diagrams' FONT,
# the English cue sheets): each is shadowed by a subset of itself when printed.
SHADOWED_FAMILIES = ("Noto Sans CJK TC", "Noto Serif CJK TC")
# CSS weight -> fontconfig weight (regular 80, bold 200): the pages use both.
WEIGHTS = {400: 80, 700: 200}
# Kangxi radicals (U+2F00–U+2FDF) and the CJK radicals supplement (U+2E80–U+2EFF), with the
# unassigned code points between them: never put in a subset, so their glyphs' only code point
# is the ideograph's. A radical the page really writes is drawn by the installed font.
RADICALS = range(0x2E80, 0x2FE0)


class PdfError(SheliError, RuntimeError):
    """The PDF could not be made (no chromium, no Playwright, or the browser failed)."""


def chromium_path() -> str | None:
    """The chromium binary to drive: ``$CHROMIUM``, else /usr/bin/chromium, else on PATH.

    >>> chromium_path() is None or Path(chromium_path()).exists()
    True
    """
    env = os.environ.get("CHROMIUM")
    if env:
        return env if Path(env).exists() else None
    if Path(DEFAULT_CHROMIUM).exists():
        return DEFAULT_CHROMIUM
    return shutil.which("chromium") or shutil.which("chromium-browser")


def font_file(family: str, weight: int) -> tuple[Path, int] | None:
    """The installed file and face index of ``family`` at the CSS ``weight``, by fontconfig.

    None when fontconfig is missing, the family is not installed, or only another weight of
    it is (the page then makes that weight as it would have).

    >>> font_file("No Such Family Anywhere", 400) is None
    True
    """
    exe = shutil.which("fc-match")
    if exe is None:
        return None
    pattern = f"{family}:weight={WEIGHTS.get(weight, 80)}"
    out = subprocess.run(
        [exe, "-f", "%{family}\t%{file}\t%{index}\t%{weight}", pattern],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    parts = out.split("\t")
    if len(parts) != 4 or family not in parts[0].split(","):
        return None
    if parts[3].strip() != str(WEIGHTS.get(weight, 80)):
        return None
    return Path(parts[1]), int(parts[2] or 0)


def subset_font(path: Path, index: int, text: str) -> bytes:
    """The face ``index`` of the font file ``path`` cut down to the characters of ``text``.

    Radicals (:data:`RADICALS`) are left out, so no glyph of the subset has a radical's code
    point. An OpenType (CFF or TrueType) font, as its source was.

    >>> found = font_file("Noto Sans CJK TC", 400)
    >>> if found is not None:  # only where the font is installed
    ...     from fontTools.ttLib import TTFont
    ...     cmap = TTFont(io.BytesIO(subset_font(*found, "弓⼸矢"))).getBestCmap()
    ...     assert 0x5F13 in cmap and 0x77E2 in cmap and 0x2F38 not in cmap
    """
    from fontTools import subset  # deferred: part of the extra sheli[pdf], like playwright
    from fontTools.ttLib import TTFont  # deferred (as above)

    unicodes = sorted({ord(c) for c in text} - set(RADICALS))
    # no bounding boxes recomputed on saving (hhea, vhea, the CFF FontBBox): two thirds of
    # the time, for numbers the subset can keep from the whole font
    font = TTFont(str(path), fontNumber=index, lazy=True, recalcBBoxes=False)
    options = subset.Options()
    options.notdef_outline = True
    options.name_IDs = ["*"]  # the typographic family and style, by which fontconfig finds it
    options.name_languages = ["*"]
    options.layout_features = ["*"]  # vertical forms, locale forms: as the page would set them
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=unicodes)
    subsetter.subset(font)
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def page_text(html: str) -> str:
    """Every character the browser will set for ``html``: the page's, and its SVG images'.

    An ``<img>`` whose source is a base64 ``data:image/svg+xml`` URL is a document of its own,
    whose words are not in the page's text.

    >>> import base64
    >>> svg = base64.b64encode("<svg><text>弓</text></svg>".encode()).decode()
    >>> "弓" in page_text(f'<img src="data:image/svg+xml;base64,{svg}">')
    True
    """
    parts = [html]
    for m in _SVG_DATA_URL.finditer(html):
        try:
            parts.append(base64.b64decode(m.group(1)).decode("utf-8", "replace"))
        except ValueError:
            continue  # not base64 after all: the browser will not show it either
    return "".join(parts)


_SVG_DATA_URL = re.compile(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)")


def shadow_fonts(text: str, folder: Path) -> Path | None:
    """Write subsets of :data:`SHADOWED_FAMILIES` for ``text`` and a fontconfig that uses them.

    The configuration is the system's, with the subsets' folder added and the installed faces
    they replace rejected (by file and face index: the other faces of a collection stay). The
    path of the configuration (for ``FONTCONFIG_FILE``), or None when there is nothing to
    shadow (no fontTools, no fontconfig, none of the families installed): the browser then uses
    the installed fonts as they are.

    >>> import tempfile
    >>> conf = shadow_fonts("弓矢", Path(tempfile.mkdtemp()))
    >>> conf is None or "<rejectfont>" in conf.read_text()
    True
    """
    try:
        import fontTools  # noqa: F401  deferred: part of the extra sheli[pdf]
    except ImportError:  # pragma: no cover - an install without the extra
        return None
    faces = []
    for family in SHADOWED_FAMILIES:
        for weight in WEIGHTS:
            found = font_file(family, weight)
            if found is not None:
                faces.append((f"{family.replace(' ', '')}-{weight}.otf", *found))
    if not faces:
        return None
    # a few seconds a face (fontTools is pure Python): the faces side by side, in processes
    # of sheli's one kind (sheli.forked, docs/architecture.md "Other processes"), forked
    # from the caller's thread (html_to_pdf calls this before its printing thread begins)
    workers = min(len(faces), os.cpu_count() or 1)
    if workers > 1:
        with collector.frozen(), signals_held():
            pool = FORK.Pool(workers, initializer=as_child)
        try:
            cut = pool.starmap(subset_font, [(p, i, text) for _, p, i in faces])
        finally:
            pool.terminate()
            pool.join()
    else:
        cut = [subset_font(p, i, text) for _, p, i in faces]
    rejected = []
    for (name, path, index), data in zip(faces, cut, strict=True):
        (folder / name).write_bytes(data)
        rejected.append(
            f'<pattern><patelt name="file"><string>{escape(str(path))}</string></patelt>'
            f'<patelt name="index"><int>{index}</int></patelt></pattern>'
        )
    conf = folder / "fonts.conf"
    # our cache directory first: fontconfig writes the subsets' cache to the first it may
    conf.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n'
        f"<fontconfig>\n<cachedir>{escape(str(folder / 'cache'))}</cachedir>\n"
        '<include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n'
        f"<dir>{escape(str(folder))}</dir>\n"
        f"<selectfont><rejectfont>{''.join(rejected)}</rejectfont></selectfont>\n"
        "</fontconfig>\n",
        encoding="utf-8",
    )
    return conf


def html_to_pdf(html: str, path: Path | str, *, landscape: bool = False) -> int:
    """Print ``html`` (a self-contained page) to the PDF ``path``; return its size in bytes.

    The page's own ``@page`` CSS sets the paper and margins (``prefer_css_page_size``); A4 is
    the fallback. Raises :class:`PdfError` with what to install when chromium or Playwright
    is missing; then nothing is written.
    """
    exe = chromium_path()
    if exe is None:
        raise PdfError(f"chromium not found. {INSTALL_HINT}")
    try:  # deferred: playwright is the optional extra sheli[pdf], needed by this command only
        from playwright.sync_api import Error as PlaywrightError  # deferred (as above)
        from playwright.sync_api import sync_playwright  # deferred (as above)
    except ImportError as exc:  # pragma: no cover - an install without the extra
        raise PdfError(
            "printing to PDF needs the Python package playwright: "
            "pip install 'sheli[pdf]' (no `playwright install` is needed)"
        ) from exc

    def _print(made: list[bytes | BaseException], conf: Path | None) -> None:
        try:
            made.append(_pdf(conf))
        except BaseException as exc:
            made.append(exc)

    def _pdf(conf: Path | None) -> bytes:
        env: dict[str, str | float | bool] | None = None
        if conf is not None:
            env = {**os.environ, "FONTCONFIG_FILE": str(conf)}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, env=env)
            try:
                page = browser.new_page()
                # set_content, not a file: URL, so the page cannot reach anything else.
                page.set_content(html, wait_until="load")
                return page.pdf(
                    format="A4",
                    landscape=landscape,
                    print_background=True,
                    prefer_css_page_size=True,
                    outline=True,  # bookmarks from the headings: one per role
                    tagged=True,
                )
            finally:
                browser.close()

    try:
        with writing(path) as tmp, tempfile.TemporaryDirectory(prefix="sheli-fonts-") as fonts:
            # the fonts cut here, in the caller's thread, where their processes are forked
            conf = shadow_fonts(page_text(html), Path(fonts))
            # Playwright's sync API refuses to start where an asyncio loop is already running
            # in this thread (a caller's own loop, or another sync_playwright session still
            # open, as in a test run): a thread of its own has none. A daemon, which only
            # makes the bytes: an interrupt (^C, kill) ends the command at once, its
            # temporary file removed, without waiting for the browser to finish.
            made: list[bytes | BaseException] = []
            printer = threading.Thread(target=_print, args=(made, conf), daemon=True)
            printer.start()
            printer.join()
            if isinstance(made[0], BaseException):
                raise made[0]
            tmp.write_bytes(made[0])
            return tmp.stat().st_size
    except PlaywrightError as exc:
        raise PdfError(f"chromium failed to print the PDF: {exc}. {INSTALL_HINT}") from exc
