"""Print an HTML page to PDF with the system's chromium (headless, through Playwright).

A small shared helper: the cue sheets use it, and any other output that is an HTML page can.
It never downloads a browser (no ``playwright install``): it drives the chromium the system
package manager installed (Debian: ``apt-get install chromium fonts-noto-cjk``), so the CJK
text is set in a font the machine really has. Nothing is written unless the whole PDF is made
(:func:`sheli.files.writing`: a temporary file beside the target, then a rename).

>>> import shutil, tempfile, pathlib
>>> if chromium_path() is not None:          # only where chromium is installed
...     out = pathlib.Path(tempfile.mkdtemp()) / "x.pdf"
...     size = html_to_pdf("<p>射</p>", out)
...     assert out.read_bytes().startswith(b"%PDF")
"""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

from sheli.errors import SheliError
from sheli.files import writing

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

    def _print(made: list[bytes | BaseException]) -> None:
        try:
            made.append(_pdf())
        except BaseException as exc:
            made.append(exc)

    def _pdf() -> bytes:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
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
        with writing(path) as tmp:
            # Playwright's sync API refuses to start where an asyncio loop is already running
            # in this thread (a caller's own loop, or another sync_playwright session still
            # open, as in a test run): a thread of its own has none. A daemon, which only
            # makes the bytes: an interrupt (^C, kill) ends the command at once, its
            # temporary file removed, without waiting for the browser to finish.
            made: list[bytes | BaseException] = []
            printer = threading.Thread(target=_print, args=(made,), daemon=True)
            printer.start()
            printer.join()
            if isinstance(made[0], BaseException):
                raise made[0]
            tmp.write_bytes(made[0])
            return tmp.stat().st_size
    except PlaywrightError as exc:
        raise PdfError(f"chromium failed to print the PDF: {exc}. {INSTALL_HINT}") from exc
