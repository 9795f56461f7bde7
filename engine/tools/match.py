"""`ubao-engine match`: two engines play a series of games; strength measured, not asserted.

Games come in pairs from one opening (a few seeded random plies from the start), each engine
playing each side once, so neither colour nor opening favours one. The report gives wins,
draws and losses of the first engine, its mean final margin, and the Elo difference that its
score implies with a 95 % error bar. An engine is either settings of the built-in search or an
external program speaking the line protocol of docs/engine-protocol.md.
"""

from __future__ import annotations

import json
import math
import random
import shlex
import subprocess
from dataclasses import asdict, dataclass, field
from statistics import pstdev
from typing import Any, TextIO

from ubao.engine.game import Game
from ubao.engine.search import ALGORITHMS, DEFAULT_ALGORITHM, DEFAULT_HASH_MB
from ubao.engine.tools.players import Player, SearchPlayer, play_game

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


def parse_spec(text: str, threads: int = 1) -> EngineSpec | None:
    """Settings such as `depth=6,eval=mobility,hash=32,threads=2,exact`, or None when `text` is
    not made of such items (then it is a command line to run an external engine); `threads` is
    the threads when the settings do not say."""
    values: dict[str, Any] = {"threads": threads}
    for item in text.split(","):
        name, equals, value = item.strip().partition("=")
        if name == "exact" and not equals:
            values["exact"] = True
        elif not equals or name not in ("algorithm", "eval", "depth", "time", "hash", "threads"):
            return None
        elif name == "algorithm":
            if value not in ALGORITHMS:
                raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}")
            values["algorithm"] = value
        elif name == "eval":
            values["evaluation"] = value
        else:
            try:
                number = float(value)
            except ValueError:
                raise ValueError(f"{name} must be a number, not {value!r}") from None
            if number < 0 or (name != "hash" and number <= 0):
                raise ValueError(f"{name} must be positive")
            if name in ("depth", "threads"):
                values[name] = int(number)
            else:
                values["time_ms" if name == "time" else "hash_mb"] = number
    spec = EngineSpec(**values)
    if spec.depth is None and spec.time_ms is None:
        raise ValueError(f"{text!r}: give depth=N or time=MS")
    return spec


class ExternalPlayer:
    """An engine program over the line protocol, one process for the whole match."""

    def __init__(self, game: Game[Any, Any], command: str, go: str) -> None:
        self.game = game
        self.name = command
        self.go = go
        self.moves: list[str] = []
        self.start: Any = None
        self.process = subprocess.Popen(
            shlex.split(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self._send("uci")
        self._read_until("uciok")

    def _send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def _read_until(self, word: str) -> str:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.split()[:1] == [word]:
                return line.strip()
        raise RuntimeError(f"the engine {self.name!r} exited before answering {word}")

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
        self._send(f"position {game.name} {options} {text}{moves}")
        self._send(f"go {self.go}")
        answer = self._read_until("bestmove").split()
        return game.parse_move(position, answer[1]), None

    def close(self) -> None:
        self._send("quit")
        self.process.wait(timeout=10)


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
        elo = -400 * math.log10(1 / score - 1)
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


def opening(game: Game[Any, Any], rng: random.Random, plies: int) -> tuple[Any, list[Any]]:
    """A start position `plies` random moves in (fewer if the game ends), and its moves."""
    position = game.start()
    moves: list[Any] = []
    for _ in range(plies):
        legal = game.legal_moves(position)
        if not legal:
            break
        move = rng.choice(legal)
        moves.append(move)
        next_position = game.play(position, move)
        if not game.legal_moves(next_position):
            moves.pop()  # an opening that ends the game is no opening
            break
        position = next_position
    return position, moves


def run_match(
    game: Game[Any, Any],
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
    external = ExternalPlayer(game, second, first.go()) if isinstance(second, str) else None
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


def _builtin(game: Game[Any, Any], spec: EngineSpec) -> SearchPlayer:
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


def _walk(game: Game[Any, Any], moves: list[Any]) -> list[tuple[Any, Any]]:
    """Each move with the position it is played in, from the start."""
    position = game.start()
    pairs = []
    for move in moves:
        pairs.append((position, move))
        position = game.play(position, move)
    return pairs
