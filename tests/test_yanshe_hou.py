"""The 燕射's 侯 drawn as the 獸侯 of the host's rank (記 xiangshe:336 諸矦麋矦赤質; 注 此所謂獸
矦也燕射則張之), in the step diagrams and in ``sheli params --target``; the 鄉射 and 大射儀 keep
their own."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import CliRunner

from sheli.cli import cli
from sheli.outputs.diagram import beast_hou, render_svg
from sheli.outputs.frames import build_frames


def _hou_labels(run_once: Callable[..., Any], rite: str, view: str, **kw: object) -> list[str]:
    r = run_once(rite, **kw)
    f = next(f for f in build_frames(r) if f.verb == "射")
    svg = render_svg(f, r.scene, view=view)
    labels = re.findall(
        r'<g class="label fixture-label" data-for="fixture:([^"]*侯)"[^>]*>(.*?)</g>', svg, re.S
    )
    return [re.sub(r"<[^>]+>", "", body).strip() for _key, body in labels]


@pytest.mark.slow
def test_the_yanshe_draws_the_milu_hou_red(run_once: Callable[..., Any]) -> None:
    assert beast_hou(run_once("yanshe").scene) == ("麋侯", "赤質")
    assert _hou_labels(run_once, "yanshe", "range") == ["麋侯（赤質）"]
    r = run_once("yanshe")
    f = next(f for f in build_frames(r) if f.verb == "射")
    svg = render_svg(f, r.scene, view="range")
    hou = re.search(r'<g class="fixture" data-name="侯"[^>]*>(.*?)</g>', svg, re.S)
    assert hou and 'stroke="#c0392b"' in hou.group(1)


@pytest.mark.slow
def test_the_king_has_the_xiong_hou(run_once: Callable[..., Any]) -> None:
    assert _hou_labels(run_once, "yanshe", "range", options={"rank": "王"}) == ["熊侯（白質）"]


@pytest.mark.slow
def test_xiangshe_and_dashe_keep_their_hou(run_once: Callable[..., Any]) -> None:
    assert beast_hou(run_once("xiangshe").scene) is None
    assert _hou_labels(run_once, "xiangshe", "range") == ["侯"]
    assert sorted(_hou_labels(run_once, "dashe", "range")) == ["參侯", "大侯", "干侯"]


def test_params_target_draws_the_ground(tmp_path: object) -> None:
    out = f"{tmp_path}/hou.svg"
    res = CliRunner().invoke(cli, ["params", "--target", "諸侯/燕射", "--svg", out])
    assert res.exit_code == 0, res.output
    svg = open(out, encoding="utf-8").read()
    assert 'data-hou="麋侯"' in svg and 'data-ground="赤質"' in svg and "麋首" in svg
    res = CliRunner().invoke(cli, ["params", "--target", "士/鄉射", "--svg", out])
    assert res.exit_code == 0, res.output
    assert "data-ground" not in open(out, encoding="utf-8").read()
