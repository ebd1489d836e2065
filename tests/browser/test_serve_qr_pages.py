"""The links' QR codes as the pages show them, in chromium: the home page beside each new
link, and the printable pack. Each image is loaded and drawn (not empty: an SVG without its
namespace is), and its screenshot decodes (zxing-cpp) to the link beside it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_serve_event import Pages, Serve, _submit

from sheli.serve.process import free_port

zxingcpp = pytest.importorskip("zxingcpp")
Image = pytest.importorskip("PIL.Image")


@pytest.fixture(scope="module")
def qr_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    srv = Serve(free_port(), tmp_path_factory.mktemp("serve-qr") / "event.sqlite3")
    try:
        srv.start()
        yield srv.base
    finally:
        srv.stop()


def read(img: Any) -> list[str]:
    """The codes in an ``<img>`` as the screen shows it, once it is loaded and drawn."""
    import io

    img.scroll_into_view_if_needed()
    img.evaluate("i => i.decode()")  # rejects if the image cannot be drawn
    assert img.evaluate("i => i.naturalWidth") > 0
    png = img.screenshot()
    return [r.text for r in zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))]


def test_home_page_and_pack_draw_each_link_as_a_qr_code(browser: Any, qr_server: str) -> None:
    pages = Pages(browser, qr_server)
    try:
        home = pages.open("/", 1000, 1400)
        links = _submit(home)
        rows = home.locator("#links .link").all()
        assert len(rows) == len(links) >= 4
        for row in rows:
            assert read(row.locator("img.qr")) == [row.locator("input").input_value()]
        pack_href = home.locator("a[href*='/pack#links=']").get_attribute("href")
        pack = home.context.new_page()  # the pack's page has no script of its own but pack.js
        pack.goto(qr_server + pack_href)
        pack.wait_for_selector(".links-qr figure img")
        figures = pack.locator(".links-qr figure").all()
        assert len(figures) == len(links)
        shown = sorted(links.values())
        assert sorted(code for f in figures for code in read(f.locator("img"))) == shown
    finally:
        pages.close()
    assert not pages.errors, pages.errors
