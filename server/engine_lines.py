"""The lines the server writes to and reads from `ubao-engine stdio` (docs/engine-protocol.md).

Pure text in, text out, so the bot driver's I/O stays thin and this part is tested alone.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ubao.engine.search import DEFAULT_ALGORITHM
from ubao.protocol import BotInfo, Clocks, SeatSpec, mate_score


def position_command(game: str, options: dict[str, Any], moves: Sequence[str]) -> str:
    # OPTIONS is one space-free token; in compact JSON spaces can only sit inside strings,
    # where the escape \u0020 means the same thing.
    compact = json.dumps(options, separators=(",", ":")).replace(" ", "\\u0020")
    line = f"position {game} {compact} startpos"
    return f"{line} moves {' '.join(moves)}" if moves else line


def turn_commands(spec: SeatSpec, position: str) -> list[str]:
    """What an engine is told before it searches for a bot seat: the position, then the seat's
    algorithm and evaluation, each set back to the default when the seat has none, since the
    engine may have searched for another seat before. The evaluation comes after the position
    because the engine checks it against the game; it is set back first too, so that one
    chosen for another game (Othello's `positional` before a Kalah position) is not refused."""
    return [
        "setoption name Eval value <empty>",
        position,
        f"setoption name Algorithm value {spec.algorithm or DEFAULT_ALGORITHM}",
        f"setoption name Eval value {spec.eval or '<empty>'}",
    ]


def go_command(spec: SeatSpec, clocks: Clocks | None, max_time_ms: int) -> str:
    """The seat's search: to its depth, within its `time_ms`, or within `max_time_ms` (the
    server's `--max-bot-time`) when it has none, so that no search of a server bot holds an
    engine longer than a bot may think (a depth-only Othello search to depth 20 would run
    into the server's deadline every move)."""
    movetime = max_time_ms if spec.time_ms is None else spec.time_ms
    parts = ["go", "depth", str(spec.depth), "movetime", str(movetime)]
    if clocks is not None:
        white, black = clocks.remaining_ms
        increment = str(clocks.increment_ms)
        parts += ["wtime", str(white), "btime", str(black), "winc", increment, "binc", increment]
    return " ".join(parts)


def parse_info(line: str) -> BotInfo | None:
    """An `info` line as a BotInfo, or None if it is not one the server can use."""
    tokens = line.split()
    if not tokens or tokens[0] != "info":
        return None
    values: dict[str, int] = {}
    mate: int | None = None
    pv: tuple[str, ...] = ()
    i = 1
    try:
        while i < len(tokens):
            key = tokens[i]
            if key == "pv":
                pv = tuple(tokens[i + 1 :])
                break
            if key == "score" and tokens[i + 1] == "mate":
                mate = int(tokens[i + 2])
                i += 3
                continue
            values[key] = int(tokens[i + 1])
            i += 2
    except (IndexError, ValueError):
        return None
    if "depth" not in values:
        return None
    score = values.get("score", 0)
    if mate is not None:
        score = mate_score(mate)
    return BotInfo(
        depth=values["depth"],
        score=score,
        nodes=max(0, values.get("nodes", 0)),
        time_ms=max(0, values.get("time", 0)),
        pv=pv,
        mate=mate,
    )


def parse_bestmove(line: str) -> str | None:
    """The move of a `bestmove` line; None for `bestmove none` or a line that is not one."""
    tokens = line.split()
    if len(tokens) < 2 or tokens[0] != "bestmove" or tokens[1] == "none":
        return None
    return tokens[1]
