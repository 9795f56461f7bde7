"""An SVG chart of `ubao-engine bench` rows: search effort and results against depth.

Plain SVG text, so the bench needs no plotting library and the chart diffs well in docs/.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from ubao.engine.tools.bench import BenchRow

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f")
DASHES = ("", "6 3", "2 3", "8 3 2 3")
PANEL_WIDTH, PANEL_HEIGHT = 420, 260
MARGIN_LEFT, MARGIN_TOP, MARGIN_BOTTOM, GAP = 70, 56, 50, 60


def _margin(row: BenchRow) -> float | None:
    """Player 0's final store/disc margin, or None for an unfinished game."""
    first, _, second = row.score.partition("-")
    if not (first.isdigit() and second.isdigit()):
        return None
    return int(first) - int(second)


def bench_svg(rows: Sequence[BenchRow], title: str) -> str:
    """Two panels over depth: nodes expanded (log scale) and player 0's final margin.

    Algorithms that return the same values play the same game, so their margin lines coincide;
    the dash pattern (per algorithm) keeps each visible.
    """
    searched = [row for row in rows if row.depth is not None]
    depths = sorted({row.depth for row in searched if row.depth is not None})
    if not depths:
        raise ValueError("a chart needs rows searched at a fixed depth")
    series: dict[tuple[str, str], list[BenchRow]] = {}
    for row in searched:
        series.setdefault((row.algorithm, row.evaluation), []).append(row)

    def x_at(depth: int, left: float) -> float:
        span = max(depths[-1] - depths[0], 1)
        return left + (depth - depths[0]) / span * PANEL_WIDTH

    expanded = [max(row.expanded, 1) for row in searched]
    low_exp, high_exp = math.floor(math.log10(min(expanded))), math.ceil(math.log10(max(expanded)))
    high_exp = max(high_exp, low_exp + 1)
    margins = [m for m in map(_margin, searched) if m is not None] or [0.0]
    bound = max(1.0, *(abs(m) for m in margins))

    def y_nodes(value: int) -> float:
        fraction = (math.log10(max(value, 1)) - low_exp) / (high_exp - low_exp)
        return MARGIN_TOP + PANEL_HEIGHT * (1 - fraction)

    def y_margin(value: float) -> float:
        return MARGIN_TOP + PANEL_HEIGHT * (1 - (value + bound) / (2 * bound))

    lefts = (MARGIN_LEFT, MARGIN_LEFT + PANEL_WIDTH + GAP + MARGIN_LEFT // 2)
    width = lefts[1] + PANEL_WIDTH + 20
    legend_top = MARGIN_TOP + PANEL_HEIGHT + MARGIN_BOTTOM
    height = legend_top + 18 * len(series) + 10
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="15">{escape(title)}</text>',
    ]
    panels = (
        ("nodes expanded (log scale)", lefts[0]),
        ("player 0's final margin (+ wins, - loses)", lefts[1]),
    )
    for label, left in panels:
        out.append(
            f'<rect x="{left}" y="{MARGIN_TOP}" width="{PANEL_WIDTH}" height="{PANEL_HEIGHT}" '
            'fill="none" stroke="#444"/>'
        )
        out.append(
            f'<text x="{left + PANEL_WIDTH / 2}" y="{MARGIN_TOP - 8}" '
            f'text-anchor="middle">{escape(label)}</text>'
        )
        for depth in depths:
            x = x_at(depth, left)
            bottom = MARGIN_TOP + PANEL_HEIGHT
            out.append(f'<line x1="{x}" y1="{bottom}" x2="{x}" y2="{bottom + 5}" stroke="#444"/>')
            out.append(f'<text x="{x}" y="{bottom + 18}" text-anchor="middle">{depth}</text>')
        out.append(
            f'<text x="{left + PANEL_WIDTH / 2}" y="{MARGIN_TOP + PANEL_HEIGHT + 36}" '
            'text-anchor="middle">depth (plies)</text>'
        )
    for exponent in range(low_exp, high_exp + 1):
        y = y_nodes(10**exponent)
        out.append(
            f'<line x1="{lefts[0]}" y1="{y}" x2="{lefts[0] + PANEL_WIDTH}" y2="{y}" stroke="#ddd"/>'
        )
        out.append(f'<text x="{lefts[0] - 6}" y="{y + 4}" text-anchor="end">1e{exponent}</text>')
    for value in (-bound, 0.0, bound):
        y = y_margin(value)
        out.append(
            f'<line x1="{lefts[1]}" y1="{y}" x2="{lefts[1] + PANEL_WIDTH}" y2="{y}" stroke="#ddd"/>'
        )
        out.append(f'<text x="{lefts[1] - 6}" y="{y + 4}" text-anchor="end">{value:+g}</text>')
    algorithms = sorted({algorithm for algorithm, _ in series})
    evaluations = sorted({evaluation for _, evaluation in series})
    for index, ((algorithm, evaluation), members) in enumerate(sorted(series.items())):
        # Colour tells the evaluation, dashes the algorithm: equal games overlap visibly.
        colour = PALETTE[evaluations.index(evaluation) % len(PALETTE)]
        dash = DASHES[algorithms.index(algorithm) % len(DASHES)]
        members.sort(key=lambda row: row.depth or 0)
        node_points = [(x_at(row.depth or 0, lefts[0]), y_nodes(row.expanded)) for row in members]
        margin_points = [
            (x_at(row.depth or 0, lefts[1]), y_margin(margin))
            for row in members
            if (margin := _margin(row)) is not None
        ]
        for points in (node_points, margin_points):
            if not points:
                continue
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
            out.append(
                f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2" '
                f'stroke-dasharray="{dash}"/>'
            )
            out.extend(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"/>' for x, y in points
            )
        y = legend_top + 18 * index
        out.append(
            f'<line x1="{lefts[0]}" y1="{y}" x2="{lefts[0] + 30}" y2="{y}" stroke="{colour}" '
            f'stroke-width="2" stroke-dasharray="{dash}"/>'
        )
        out.append(
            f'<text x="{lefts[0] + 38}" y="{y + 4}">{escape(algorithm)} / {escape(evaluation)}'
            "</text>"
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"
