"""The bench chart: an SVG a browser can show, with one line per combination and panel."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ubao.engine.games import make_game
from ubao.engine.tools.bench import bench_games
from ubao.engine.tools.chart import bench_svg
from ubao.engine.tools.cli import main

SVG = "{http://www.w3.org/2000/svg}"


def test_the_chart_draws_every_combination_in_both_panels() -> None:
    game = make_game("kalah", {"pits": 3, "seeds": 2})
    rows = bench_games(game, ["alphabeta", "minimax"], ["store_diff", "mobility"], [1, 2, 3])
    root = ET.fromstring(bench_svg(rows, "kalah(3,2)"))
    lines = root.findall(f"{SVG}polyline")
    assert len(lines) == 2 * 4, "two panels x (2 algorithms x 2 evaluations)"
    assert all(len(line.get("points", "").split()) == 3 for line in lines), "one point a depth"
    legend = [text.text for text in root.findall(f"{SVG}text")]
    assert "minimax / mobility" in legend and "kalah(3,2)" in legend


def test_a_chart_needs_fixed_depth_rows() -> None:
    game = make_game("kalah", {"pits": 3, "seeds": 2})
    with pytest.raises(ValueError, match="fixed depth"):
        bench_svg(bench_games(game, ["random"], [], [1]), "random only")


def test_bench_writes_the_chart_beside_the_table(tmp_path: Path) -> None:
    svg = tmp_path / "bench.svg"
    main(["bench", "--game", "kalah", "--options", '{"pits":2,"seeds":2}', "--depths", "1,2",
          "--algorithms", "negamax", "--svg", str(svg)])  # fmt: skip
    assert ET.parse(svg).getroot().tag == f"{SVG}svg"
