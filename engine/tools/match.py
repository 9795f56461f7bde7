"""`ubao-engine match`: two engines play a series of games; strength measured, not asserted.

Games come in pairs from one opening (a few seeded random plies from the start), each engine
playing each side once, so neither colour nor opening favours one. The report gives wins,
draws and losses of the first engine, its mean final margin, and the Elo difference that its
score implies with a 95 % error bar. An engine is either settings of the built-in search or an
external program speaking the line protocol of docs/engine-protocol.md.
"""

from __future__ import annotations

import contextlib
import json
import math
import queue
import random
import re
import shlex
import subprocess
import threading
import time
from dataclasses import asdict, dataclass, field
from statistics import pstdev
from typing import Any, TextIO

from ubao.engine.game import GameError
from ubao.engine.search import ALGORITHMS, DEFAULT_ALGORITHM, DEFAULT_HASH_MB, MAX_SEARCH_DEPTH
from ubao.engine.searchable import Searchable
from ubao.engine.tools.players import Player, SearchPlayer, play_game
from ubao.engine.tools.stdio import MAX_HASH_MB, decimal

Z_95 = 1.96
"""Standard errors either side of the mean for a 95 % interval."""


@dataclass(frozen=True, slots=True)
class EngineSpec:
    """How the built-in search plays: `depth=6,eval=mobility,exact` on the command line."""

    algorithm: str = DEFAULT_ALGORITHM
    evaluation: str | None = None
    depth: int | None = None
    time_ms: float | None = None
    hash_mb: float = DEFAULT_HASH_MB
    exact: bool = False
    threads: int = 1

    def describe(self) -> str:
        parts = [self.algorithm, self.evaluation or "default"]
        if self.depth is not None:
            parts.append(f"d{self.depth}")
        if self.time_ms is not None:
            parts.append(f"{self.time_ms:g}ms")
        if self.exact:
            parts.append("exact")
        if self.threads > 1:
            parts.append(f"t{self.threads}")
        return ":".join(parts)

    def go(self) -> str:
        """The `go` limits an external opponent gets when this engine sets the budget."""
        limits = []
        if self.depth is not None:
            limits.append(f"depth {self.depth}")
        if self.time_ms is not None:
            limits.append(f"movetime {round(self.time_ms)}")
        return " ".join(limits)


SPEC_SETTINGS = ("algorithm", "eval", "depth", "time", "hash", "threads", "exact")
"""Every setting of a built-in engine's spec."""
SETTING = re.compile(r"\w+=\S*")
"""One `name=value` item (a command line has spaces or no `=`)."""


def parse_spec(text: str, threads: int = 1) -> EngineSpec | None:
    """Settings such as `depth=6,eval=mobility,hash=32,threads=2,exact`, or None when `text` is
    not made of such items (then it is a command line to run an external engine); `threads` is
    the threads when the settings do not say. Text made of `name=value` items is settings:
    ValueError names an unknown one rather than running the text as a program."""
    items = [item.strip() for item in text.split(",")]
    if not all(item == "exact" or SETTING.fullmatch(item) for item in items):
        return None
    unknown = [
        item.partition("=")[0] for item in items if item.partition("=")[0] not in SPEC_SETTINGS
    ]
    if unknown:
        raise ValueError(
            f"unknown setting{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
            f"known: {', '.join(SPEC_SETTINGS)}"
        )
    names = [item.partition("=")[0] for item in items]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"{', '.join(twice)} given twice: which one is meant?")
    values: dict[str, Any] = {"threads": threads}
    for item in items:
        name, equals, value = item.partition("=")
        if name == "exact":
            if equals:
                raise ValueError("exact takes no value: write exact, not exact=...")
            values["exact"] = True
        elif name == "algorithm":
            if value not in ALGORITHMS:
                raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}")
            values["algorithm"] = value
        elif name == "eval":
            values["evaluation"] = value
        elif name in ("depth", "threads"):
            if not decimal(value):
                raise ValueError(f"{name} must be a whole number, not {value!r}")
            if name == "depth" and not 1 <= int(value) <= MAX_SEARCH_DEPTH:
                raise ValueError(f"depth must be from 1 to {MAX_SEARCH_DEPTH}")
            values[name] = int(value)
        else:
            number = _number(name, value)
            if name == "time" and number <= 0:
                raise ValueError("time must be more than 0 (ms)")
            if name == "hash" and not 0 <= number <= MAX_HASH_MB:
                raise ValueError(
                    f"hash must be at least 0 (no table) and at most {MAX_HASH_MB} (MB)"
                )
            values["time_ms" if name == "time" else "hash_mb"] = number
    spec = EngineSpec(**values)
    if spec.depth is None and spec.time_ms is None:
        raise ValueError(f"{text!r}: give depth=N or time=MS")
    return spec


def _number(name: str, value: str) -> float:
    """A setting's finite number; ValueError says which setting is wrong."""
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a number, not {value!r}")
    return number


HANDSHAKE_SECONDS = 30.0
"""How long an external engine may take to answer `uci` or `isready` (UCI engines answer at
once)."""
QUIT_SECONDS = 10.0
"""How long an external engine may take to quit before it is killed."""
MOVE_MARGIN_SECONDS = 5.0
"""How long past its `movetime` an external engine may take to answer `go` (start-up, a loaded
machine) before it is told to `stop`."""
STOP_GRACE_SECONDS = 2.0
"""How long it then has to answer `stop` with its move; an engine silent after that ends the
match."""


class EngineError(RuntimeError):
    """An external engine that cannot be run, dies, or answers nonsense: the match ends."""


class EngineTimeout(EngineError):
    """An external engine silent for longer than it may be."""


class ExternalPlayer:
    """An engine program over the line protocol, one process for the whole match."""

    def __init__(
        self, game: Searchable[Any, Any], command: str, go: str, time_ms: float | None = None
    ) -> None:
        self.game = game
        self.name = command
        self.go = go
        self.time_ms = time_ms
        """The `movetime` of `go`, which bounds the wait for each move (None: a depth-only `go`
        has no time bound, and the match waits as long as the engine searches)."""
        self.stuck = False
        """Set when the engine ignored `stop`: it will not heed `quit` either."""
        self.moves: list[str] = []
        self.start: Any = None
        try:
            argv = shlex.split(command)
        except ValueError as error:
            raise EngineError(f"the engine command {command!r}: {error}") from None
        if not argv:
            raise EngineError("the engine command is empty")
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                encoding="utf-8",
                errors="replace",  # a stray byte is the engine's mistake, not a crash of ours
                bufsize=1,
            )
        except OSError as error:
            raise EngineError(f"cannot run the engine {command!r}: {error.strerror}") from None
        self.lines: queue.Queue[str | None] = queue.Queue()
        """The engine's output lines, then None when it closes its output: a thread reads them,
        so that waiting for one can give up."""
        threading.Thread(target=self._read_lines, daemon=True).start()
        try:
            self._send("uci")
            self._read_until("uciok", HANDSHAKE_SECONDS)
        except EngineError:
            self.close()
            raise

    def _send(self, line: str) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except OSError:  # a broken pipe: the engine is gone
            raise self._gone(line.split()[0]) from None

    def _read_lines(self) -> None:
        assert self.process.stdout is not None
        try:
            with self.process.stdout as output:
                for line in output:
                    self.lines.put(line)
        finally:  # whatever ended the reading, the waiting side learns it
            self.lines.put(None)

    def _read_until(
        self, word: str, seconds: float | None = None, refused: str | None = None
    ) -> str:
        """The first line that starts with `word`; EngineTimeout when it has not come within
        `seconds` (None: as long as it takes), however many other lines the engine prints.
        With `refused` (what was sent), an `error` line before it is an EngineError."""
        deadline = None if seconds is None else time.monotonic() + seconds
        while True:
            try:
                left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
                line = self.lines.get(timeout=left)
            except queue.Empty:
                raise EngineTimeout(
                    f"the engine {self.name!r} did not answer {word} within {seconds:g} s"
                ) from None
            if line is None:
                raise self._gone(word)
            first = line.split()[:1]
            if first == [word]:
                return line.strip()
            if refused is not None and first == ["error"]:
                raise EngineError(f"the engine {self.name!r} refused {refused}: {line.strip()}")

    def _gone(self, word: str) -> EngineError:
        code = self.process.poll()
        status = "" if code is None else f" (exit status {code})"
        return EngineError(f"the engine {self.name!r} exited before answering {word}{status}")

    def new_game(self, start: Any) -> None:
        self.start = start
        self.moves = []
        self._send("ucinewgame")

    def played(self, position: Any, move: Any) -> None:
        """Every move of the game, either side's, in notation from the start."""
        self.moves.append(self.game.format_move(position, move))

    def choose(self, position: Any) -> tuple[Any, None]:
        game = self.game
        options = json.dumps(dict(game.options), separators=(",", ":"))
        text = game.format_position(self.start)
        moves = f" moves {' '.join(self.moves)}" if self.moves else ""
        # As the protocol asks of a driver: every `error` before `readyok` refuses the position,
        # and a `go` then would search another one.
        self._send(f"position {game.name} {options} {text}{moves}")
        self._send("isready")
        self._read_until("readyok", HANDSHAKE_SECONDS, refused="the position")
        self._send(f"go {self.go}")
        answer = self._await_move().split()
        try:
            return game.parse_move(position, answer[1]), None
        except (IndexError, GameError) as error:
            reason = "no move" if isinstance(error, IndexError) else error
            raise EngineError(
                f"the engine {self.name!r} answered {' '.join(answer)!r}: {reason}"
            ) from None

    def _await_move(self) -> str:
        """The `bestmove` line. Under a `movetime` the engine gets that time and a margin, then
        `stop` and a short grace: one still silent ends the match (EngineError)."""
        if self.time_ms is None:
            return self._read_until("bestmove")  # a depth-only search: as long as it takes
        allowed = self.time_ms / 1000 + MOVE_MARGIN_SECONDS
        try:
            return self._read_until("bestmove", allowed)
        except EngineTimeout:
            self._send("stop")
        try:
            return self._read_until("bestmove", STOP_GRACE_SECONDS)
        except EngineTimeout:
            self.stuck = True
            raise EngineError(
                f"the engine {self.name!r} did not answer bestmove within {allowed:g} s of "
                f"'go {self.go}', nor within {STOP_GRACE_SECONDS:g} s of stop"
            ) from None

    def close(self) -> None:
        """Ask the engine to quit; one that does not within seconds, or that already ignored
        `stop`, is killed."""
        if self.stuck:
            self.process.kill()
        stdin = self.process.stdin
        assert stdin is not None
        with contextlib.suppress(OSError):  # an engine already gone
            stdin.write("quit\n")
            stdin.flush()
        with contextlib.suppress(OSError):
            stdin.close()
        try:
            self.process.wait(timeout=QUIT_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@dataclass
class MatchReport:
    """The first engine's results against the second."""

    engine1: str
    engine2: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    margins: list[int] = field(default_factory=list)
    """The first engine's final margin in each game."""
    openings: list[list[str]] = field(default_factory=list)

    @property
    def score(self) -> float:
        """Points per game: 1 a win, 1/2 a draw."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.5

    @property
    def mean_margin(self) -> float:
        return sum(self.margins) / len(self.margins) if self.margins else 0.0

    def elo(self) -> tuple[float | None, float | None]:
        """The Elo difference the score implies, and the half-width of its 95 % interval: the
        standard error of the per-game points carried through the Elo curve at the score
        (None for both when a score of 0 or 1 makes the difference unbounded)."""
        points = [1.0] * self.wins + [0.5] * self.draws + [0.0] * self.losses
        score = self.score
        if not points or not 0 < score < 1:
            return None, None
        elo = 400 * math.log10(score / (1 - score))  # 0.0 at an even score, never -0.0
        slope = 400 / (math.log(10) * score * (1 - score))
        return elo, Z_95 * pstdev(points) / math.sqrt(len(points)) * slope

    def to_dict(self) -> dict[str, Any]:
        elo, error = self.elo()
        return {
            **asdict(self),
            "score": self.score,
            "mean_margin": self.mean_margin,
            "elo": elo,
            "elo_error": error,
        }

    def summary(self) -> str:
        elo, error = self.elo()
        if elo is None or error is None:
            rating = "Elo unbounded (a score of 0 or 1)"
        else:
            rating = f"Elo {round(elo):+d} ± {round(error)} (95 %)"
        return (
            f"{self.engine1} vs {self.engine2}: {self.games} games, "
            f"+{self.wins} ={self.draws} -{self.losses} (W/D/L of the first), "
            f"score {self.score:.3f}, mean margin {self.mean_margin:+.2f}, {rating}"
        )


OPENING_ATTEMPTS = 100
"""Random openings drawn for one pair of games before the match gives up: each one that ends
the game is drawn again."""


class OpeningError(ValueError):
    """No random opening of the plies asked leaves a game to play."""


def opening(game: Searchable[Any, Any], rng: random.Random, plies: int) -> tuple[Any, list[Any]]:
    """A position `plies` random moves from the start, and its moves. An opening that ends the
    game would leave the engines nothing to play (its result the dice's), so it is drawn again
    from the same generator (the match stays reproducible), at most OPENING_ATTEMPTS times."""
    for _ in range(OPENING_ATTEMPTS):
        position = game.start()
        moves: list[Any] = []
        for _ in range(plies):
            legal = game.legal_moves(position)
            if not legal:
                break
            moves.append(rng.choice(legal))
            position = game.play(position, moves[-1])
        if game.outcome(position) is None:
            return position, moves
    raise OpeningError(
        f"--random-plies {plies}: {OPENING_ATTEMPTS} random openings of {game.describe()} all "
        "ended the game; ask for fewer plies"
    )


def run_match(
    game: Searchable[Any, Any],
    first: EngineSpec,
    second: EngineSpec | str,
    games: int = 10,
    random_plies: int = 2,
    seed: int = 0,
    max_plies: int | None = 1000,
    progress: TextIO | None = None,
) -> MatchReport:
    """Play `games` games (pairs from one opening, each engine on each side once): `first` is
    built-in settings, `second` settings too or the command line of an external engine."""
    external = (
        ExternalPlayer(game, second, first.go(), first.time_ms) if isinstance(second, str) else None
    )
    name2 = second if isinstance(second, str) else second.describe()
    report = MatchReport(first.describe(), name2)
    rng = random.Random(seed)
    try:
        for number in range(games):
            if number % 2 == 0:
                start, moves = opening(game, rng, random_plies)
                pairs = _walk(game, moves)
            theirs: Player
            if isinstance(second, EngineSpec):
                theirs = _builtin(game, second)
            else:
                assert external is not None
                theirs = external
                external.new_game(game.start())
                for position, move in pairs:
                    external.played(position, move)
            seat = number % 2
            ours = _builtin(game, first)
            players = (ours, theirs) if seat == 0 else (theirs, ours)
            record = play_game(
                game, players, start, max_plies, on_move=external.played if external else None
            )
            report.games += 1
            report.openings.append([game.format_move(p, m) for p, m in pairs])
            outcome = record.outcome
            if outcome is None or outcome.winner is None:
                report.draws += 1
            elif outcome.winner == seat:
                report.wins += 1
            else:
                report.losses += 1
            margin = 0 if outcome is None else outcome.score[seat] - outcome.score[1 - seat]
            report.margins.append(margin)
            if progress is not None:
                progress.write(f"\rgame {number + 1}/{games}: {report.summary()[:100]}")
                progress.flush()
    finally:
        if external is not None:
            external.close()
        if progress is not None:
            progress.write("\n")
    return report


def _builtin(game: Searchable[Any, Any], spec: EngineSpec) -> SearchPlayer:
    """A fresh built-in player for one game (its table kept over that game's moves)."""
    return SearchPlayer(
        game,
        spec.algorithm,
        spec.evaluation,
        spec.depth,
        spec.time_ms,
        hash_mb=spec.hash_mb,
        exact=spec.exact,
        threads=spec.threads,
    )


def _walk(game: Searchable[Any, Any], moves: list[Any]) -> list[tuple[Any, Any]]:
    """Each move with the position it is played in, from the start."""
    position = game.start()
    pairs = []
    for move in moves:
        pairs.append((position, move))
        position = game.play(position, move)
    return pairs
