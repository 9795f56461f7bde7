"""ubao's stdio line protocol (docs/engine-protocol.md), both sides' text in one place.

The engine's side parses what a driver says (`parse_go`, `parse_position`, `parse_setoption`)
and formats its reports (`format_info`); the driver's side (`UbaoDialect`) formats commands
(`format_position`, `format_go`) and parses the reports (`parse_info`, `parse_bestmove`).
Pure text in, data out: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ubao.engine.protocols.dialect import EnginePosition, Ready, Refused, Reply, Send
from ubao.engine.protocols.limits import Limits
from ubao.engine.protocols.results import Info, PlayResult
from ubao.engine.search import MAX_NODES, MAX_SEARCH_DEPTH


class EngineProtocolError(ValueError):
    """A malformed or impossible command; the engine's reply is `error MESSAGE`."""


INTEGER_LIMITS = (
    "depth",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "nodes",
    "mate",
    "movestogo",
)
GO_WORDS = (*INTEGER_LIMITS, "infinite", "ponder", "searchmoves")
"""Every word `go` knows: `searchmoves` takes the moves up to the next of them."""


def decimal(value: str) -> bool:
    """An integer in ASCII digits: `str.isdigit` also takes '²', which `int` refuses."""
    return value.isascii() and value.isdigit()


# -- the engine's side ---------------------------------------------------------------------------


def parse_go(words: list[str]) -> Limits:
    """The limits of `go` from the words after it; EngineProtocolError says what is wrong."""
    values: dict[str, int] = {}
    flags: set[str] = set()
    searchmoves: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("infinite", "ponder"):
            flags.add(word)
            i += 1
            continue
        if word == "searchmoves":
            i += 1
            start = i
            while i < len(words) and words[i] not in GO_WORDS:
                i += 1
            if i == start:
                raise EngineProtocolError("go: searchmoves needs one move or more")
            searchmoves += words[start:i]
            continue
        if word not in INTEGER_LIMITS:
            raise EngineProtocolError(f"go: unknown limit {word!r}")
        if i + 1 == len(words):
            raise EngineProtocolError(f"go: {word} needs a value")
        text = words[i + 1]
        if not decimal(text.removeprefix("-")):  # `int` also takes '٥', '1_0' and ' 5'
            raise EngineProtocolError(f"go: {word} must be an integer, not {text!r}")
        value = int(text)
        if word == "depth" and not 1 <= value <= MAX_SEARCH_DEPTH:
            raise EngineProtocolError(f"go: depth must be from 1 to {MAX_SEARCH_DEPTH}")
        if word in ("nodes", "mate", "movestogo") and value < 1:
            raise EngineProtocolError(f"go: {word} must be 1 or more")
        if word == "nodes":
            value = min(value, MAX_NODES)  # more than any search makes: no limit, as a C int
        if word in ("wtime", "btime"):
            value = max(value, 0)  # a GUI's clock after overstepping: move at once, as UCI's do
        if value < 0:
            raise EngineProtocolError(f"go: {word} must not be negative")
        values[word] = value
        i += 2
    limited = {"depth", "movetime", "wtime", "btime", "nodes", "mate"} & values.keys()
    return Limits(
        depth=values.get("depth"),
        time_ms=values.get("movetime"),
        clocks=(values.get("wtime"), values.get("btime")),
        increments=(values.get("winc", 0), values.get("binc", 0)),
        infinite="infinite" in flags or not limited,
        nodes=values.get("nodes"),
        mate=values.get("mate"),
        moves_to_go=values.get("movestogo"),
        ponder="ponder" in flags,
        searchmoves=tuple(dict.fromkeys(searchmoves)),
    )


def parse_position(words: list[str]) -> tuple[str, dict[str, Any], str, tuple[str, ...]]:
    """The game, its options, the start (`startpos` or a position) and the moves of
    `position`'s words; the game's name is checked by the rules, not here."""
    if len(words) < 3:
        raise EngineProtocolError("position GAME OPTIONS startpos|POS [moves M1 M2 ...]")
    name, options_text = words[0], words[1]
    try:
        options = json.loads(options_text)
    except json.JSONDecodeError as error:
        raise EngineProtocolError(f"OPTIONS is not JSON without spaces: {error}") from None
    if not isinstance(options, dict):
        raise EngineProtocolError('OPTIONS must be a JSON object, e.g. {} or {"pits":6}')
    rest = words[2:]
    moves: list[str] = []
    if "moves" in rest:
        split = rest.index("moves")
        rest, moves = rest[:split], rest[split + 1 :]
    if not rest:
        raise EngineProtocolError("position needs startpos or a position")
    return name, options, " ".join(rest), tuple(moves)


def parse_setoption(words: list[str]) -> tuple[str, str]:
    """The name and value of `setoption name NAME value VALUE` (both may hold spaces)."""
    if len(words) < 3 or words[0] != "name" or "value" not in words[2:]:
        raise EngineProtocolError("setoption name NAME value VALUE")
    split = words.index("value", 2)
    return " ".join(words[1:split]), " ".join(words[split + 1 :])


def format_info(info: Info, multipv: bool = False) -> str:
    """An `info` line; `multipv` says which root line it is (an engine with MultiPV above 1)."""
    if info.string is not None:
        return f"info string {info.string}"
    parts = ["info"]
    if info.depth is not None:
        parts += ["depth", str(info.depth)]
    if multipv:
        parts += ["multipv", str(info.multipv)]
    if info.mate is not None:
        parts += ["score", "mate", str(info.mate)]
    elif info.score is not None:
        parts += ["score", str(info.score)]
    for word, value in (("nodes", info.nodes), ("nps", info.nps), ("time", info.time_ms)):
        if value is not None:
            parts += [word, str(value)]
    if info.pv:
        parts += ["pv", *info.pv]
    return " ".join(parts)


# -- the driver's side ---------------------------------------------------------------------------


def format_position(position: EnginePosition) -> str:
    """The `position` line. OPTIONS is one space-free token; in compact JSON spaces can only
    sit inside strings, where the escape \\u0020 means the same thing."""
    compact = json.dumps(dict(position.options), separators=(",", ":")).replace(" ", "\\u0020")
    line = f"position {position.game} {compact} {position.start}"
    return f"{line} moves {' '.join(position.moves)}" if position.moves else line


def format_go(limits: Limits) -> str:
    """The `go` line of `limits`."""
    parts = ["go"]
    white, black = limits.clocks
    for word, value in (
        ("depth", limits.depth),
        ("movetime", limits.time_ms),
        ("nodes", limits.nodes),
        ("mate", limits.mate),
        ("wtime", white),
        ("btime", black),
    ):
        if value is not None:
            parts += [word, str(value)]
    if limits.clocks != (None, None):
        parts += ["winc", str(limits.increments[0]), "binc", str(limits.increments[1])]
    if limits.moves_to_go is not None:
        parts += ["movestogo", str(limits.moves_to_go)]
    if limits.infinite:
        parts.append("infinite")
    if limits.ponder:
        parts.append("ponder")
    if limits.searchmoves:
        parts += ["searchmoves", *limits.searchmoves]
    return " ".join(parts)


INFO_INTEGERS = {
    "depth": "depth",
    "nodes": "nodes",
    "nps": "nps",
    "time": "time_ms",
    "multipv": "multipv",
}
"""The `info` words a report keeps, and its fields."""
INFO_SKIPPED = {"seldepth", "hashfull", "tbhits", "cpuload", "currmovenumber", "sbhits"}
"""Integer words of UCI engines' reports that a report drops."""


def parse_info(line: str) -> Info | None:
    """An `info` line as a report; None if it is not one, or is malformed."""
    tokens = line.split()
    if not tokens or tokens[0] != "info":
        return None
    if len(tokens) > 1 and tokens[1] == "string":
        return Info(string=line.split(None, 2)[2] if len(tokens) > 2 else "")
    fields: dict[str, Any] = {}
    i = 1
    try:
        while i < len(tokens):
            key = tokens[i]
            if key == "pv":
                fields["pv"] = tuple(tokens[i + 1 :])
                break
            if key == "score":
                kind = tokens[i + 1]
                if kind == "mate":
                    fields["mate"] = int(tokens[i + 2])
                    i += 3
                elif kind == "cp":
                    fields["score"] = int(tokens[i + 2])
                    i += 3
                else:
                    fields["score"] = int(kind)
                    i += 2
                continue
            if key in ("lowerbound", "upperbound"):
                i += 1
            elif key == "currmove":
                i += 2
            elif key in INFO_INTEGERS:
                fields[INFO_INTEGERS[key]] = int(tokens[i + 1])
                i += 2
            elif key in INFO_SKIPPED:
                int(tokens[i + 1])
                i += 2
            else:
                return None
    except (IndexError, ValueError):
        return None
    return Info(**fields)


def parse_bestmove(line: str) -> PlayResult | None:
    """A `bestmove` line as a result without its report; None if it is not one."""
    tokens = line.split()
    if not tokens or tokens[0] != "bestmove":
        return None
    if len(tokens) < 2:
        return None
    move = None if tokens[1] == "none" else tokens[1]
    ponder = tokens[3] if len(tokens) >= 4 and tokens[2] == "ponder" else None
    return PlayResult(move, None, ponder)


class UbaoDialect:
    """The driver's side of the stdio protocol.

    The evaluation (`Eval`) is an option of the game, which the engine checks against its
    current position: the dialect keeps the one configured and sets it around every position
    (back to the default before it, the one wanted after it), so that one chosen for another
    game is never refused. A search checks its position with `isready` before its `go`.
    """

    name = "ubao"

    def __init__(self) -> None:
        self._eval: str | None = None
        """The `Eval` configured last (None: never configured)."""
        self._go: str | None = None
        """The `go` line due once the position's check passes."""
        self._refused = False
        """An `error` came while the position was checked: the search does not start."""
        self._info: Info | None = None
        """The running search's last report of its principal line."""

    def start(self) -> list[str]:
        return ["uci"]

    def configure(self, options: Mapping[str, str]) -> list[str]:
        lines = []
        for name, value in options.items():
            if name.lower() == "eval":
                self._eval = value
            else:
                lines.append(f"setoption name {name} value {value}")
        return [*lines, "isready"] if lines else []

    def new_game(self) -> list[str]:
        return ["ucinewgame", "isready"]

    def search(self, position: EnginePosition, limits: Limits) -> list[str]:
        self._go, self._refused, self._info = format_go(limits), False, None
        line = format_position(position)
        if self._eval is None:
            return [line, "isready"]
        return [
            "setoption name Eval value <empty>",
            line,
            f"setoption name Eval value {self._eval}",
            "isready",
        ]

    def stop(self) -> list[str]:
        return ["stop"]

    def quit(self) -> list[str]:
        return ["quit"]

    def receive(self, line: str) -> list[Reply]:
        word = line.split(maxsplit=1)[0] if line.strip() else ""
        if word == "uciok":
            return [Ready()]
        if word == "readyok":
            go, self._go = self._go, None
            if go is None or self._refused:
                return [Ready()]
            return [Send((go,))]
        if word == "error":
            self._refused = self._refused or self._go is not None
            return [Refused(line.strip().removeprefix("error").strip())]
        if word == "info":
            info = parse_info(line)
            if info is None:
                return []
            if info.principal:
                self._info = info
            return [info]
        if word == "bestmove":
            result = parse_bestmove(line)
            if result is None:
                return []
            info, self._info = self._info, None
            return [PlayResult(result.move, info, result.ponder)]
        return []
