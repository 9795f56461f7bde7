"""A server tournament as `ubao tournament show` and `watch` print it: its standings with
their tiebreaks, its crosstable and its latest games. Pure text from the protocol's values
(docs/tournaments-server.md)."""

from __future__ import annotations

from collections.abc import Sequence

from ubao.client.standings import _table
from ubao.protocol import TournamentSummary, TournamentView

FORMATS = {"round_robin": "round-robin", "swiss": "Swiss", "arena": "arena"}


def tournament_text(view: TournamentView, games: int = 8) -> str:
    """Its head line, the standings, the crosstable and its `games` latest games."""
    rounds = f"round {view.round} of {view.rounds}" if view.rounds else "not paired yet"
    head = (
        f"{view.name} ({view.tournament_id}): {FORMATS[view.format]} of {view.game}, "
        f"{view.status}, {rounds}" + (", rated" if view.rated else "")
    )
    first, second = ("SB", "Buchholz") if view.format == "round_robin" else ("Buchholz", "SB")
    rows = []
    for line in view.standings:
        tiebreaks = [line.sonneborn_berger, line.buchholz]
        if view.format != "round_robin":
            tiebreaks.reverse()
        rows.append(
            [
                str(line.rank),
                view.entrants[line.entrant],
                view.kinds[line.entrant],
                line.points,
                str(line.games),
                f"{line.wins}/{line.draws}/{line.losses}",
                *tiebreaks,
                str(line.performance) if line.games else "-",
            ]
        )
    header = ["#", "entrant", "kind", "points", "games", "W/D/L", first, second, "perf"]
    parts = [head, "", _table(header, rows, 3)]
    if view.format != "arena" and view.entrants:
        order = by_rank(view)
        numbers = [str(i + 1) for i in range(len(order))]
        cross = [
            [
                str(rank),
                view.entrants[i],
                *(view.crosstable[i][j] or ("x" if i == j else ".") for j in order),
            ]
            for rank, i in enumerate(order, 1)
        ]
        parts += ["", _table(["", "crosstable", *numbers], cross, 2)]
    latest = [p for p in view.pairings if p.game_id is not None][-games:]
    if latest:
        parts.append("")
        for p in latest:
            black = view.entrants[p.black] if p.black is not None else "(bye)"
            parts.append(
                f"round {p.round}: {view.entrants[p.white]} - {black}  {p.result or ''}  "
                f"{p.game_id}"
            )
    return "\n".join(parts)


def tournaments_table(lines: Sequence[TournamentSummary]) -> str:
    """`ubao tournament list`: one tournament a row."""
    header = ["id", "name", "game", "format", "status", "round", "entrants", "leader"]
    rows = [
        [
            t.tournament_id,
            t.name,
            t.game,
            FORMATS[t.format],
            t.status,
            f"{t.round}/{t.rounds}",
            str(t.entrants),
            t.leader or "",
        ]
        for t in lines
    ]
    return _table(header, rows, 5)


def by_rank(view: TournamentView) -> list[int]:
    """The entrants in the standings' order (any not in them after), so that the crosstable
    numbers each entrant as the standings do."""
    ranked = [line.entrant for line in view.standings]
    return ranked + [i for i in range(len(view.entrants)) if i not in ranked]
