"""The links' QR codes (``/qr/TOKEN.svg``), read back as a phone reads them.

Each link an event is made with (the director's, the audience's, the scorers', every
performer's) and one the director makes later: its served SVG is an SVG document (the SVG
namespace on its root: without it a browser draws the ``<img>`` empty), rasterised
(cairosvg) and decoded (zxing-cpp) back to the very link it stands for, whole (the address
as the page shows it).
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest
from test_serve_helpers import Live, make_client, new_event

cairosvg = pytest.importorskip("cairosvg")  # dev extras; needs the system's libcairo
zxingcpp = pytest.importorskip("zxingcpp")
Image = pytest.importorskip("PIL.Image")

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture()
def live(tmp_path):
    with make_client(tmp_path) as c:
        yield new_event(c, feast=True)


def decode(svg: bytes, size: int) -> list[str]:
    """What a reader finds in the image, drawn ``size`` pixels wide (on white, as on paper)."""
    png = cairosvg.svg2png(bytestring=svg, output_width=size, background_color="white")
    return [r.text for r in zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))]


def every_link(links: dict) -> list[str]:
    return [
        links["director"],
        links["audience"],
        *links["scorers"].values(),
        *links["performers"].values(),
    ]


@pytest.mark.slow
def test_each_qr_code_reads_back_as_its_link(live: Live) -> None:
    links = every_link(live.links)
    assert len(links) > 10  # the feast's performers among them
    made = live.post("/api/tokens/new", live.director, {"role": "audience"})
    assert made.status_code == 201, made.text
    links.append(made.json()["link"])
    base = str(live.client.base_url).rstrip("/")
    for link in links:
        # the answer gives a link from the server's root; the page shows it whole, as the
        # QR code holds it (home.js, linkRow)
        assert link.startswith("/v/")
        r = live.client.get(f"/qr/{Live.token(link)}.svg")
        assert r.status_code == 200 and r.headers["content-type"] == "image/svg+xml"
        root = ET.fromstring(r.content)
        assert root.tag == f"{SVG}svg", root.tag  # an SVG document, not an unknown element
        assert root.get("viewBox"), "it must scale to the size the page gives it"
        # as the home page shows it (120 px) and as the pack prints it (140 px), and larger
        for size in (120, 140, 300):
            assert decode(r.content, size) == [base + link], (link, size)


@pytest.mark.slow
def test_a_revoked_link_has_no_qr_code(live: Live) -> None:
    made = live.post("/api/tokens/new", live.director, {"role": "audience"}).json()
    tokens = live.client.get("/api/tokens", headers={"Authorization": f"Bearer {live.director}"})
    last = max(t["token_id"] for t in tokens.json()["tokens"])
    r = live.post("/api/tokens/revoke", live.director, {"token_id": last})
    assert r.status_code == 200, r.text
    assert live.client.get(f"/qr/{Live.token(made['link'])}.svg").status_code == 404
