"""Benchmarks: AI-vs-AI games per algorithm x evaluation x depth, search speed, and solving.

Everything here is reproducible: games start from the start position, searches are limited by
depth (not time), and random players are seeded, so two runs print the same node counts; only
the times differ. Used by `ubao-engine bench` (see docs/engine.md).
"""

from __future__ import annotations

import csv
import random
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, TextIO

from ubao.engine.backend import NATIVE_BUILT, NATIVE_RULES
from ubao.engine.endgame import open_endgame
from ubao.engine.games import GAMES, make_game
from ubao.engine.mancala.game import Mancala
from ubao.engine.perft import perft
from ubao.engine.protocols.ubao import decimal
from ubao.engine.search import ALGORITHMS, DEFAULT_HASH_MB, Searcher, SearchResult
from ubao.engine.searchable import Searchable
from ubao.engine.solve import Solver
from ubao.engine.tools.players import (
    BASELINES,
    GameRecord,
    Player,
    SearchPlayer,
    make_player,
    play_game,
)

KALAH_VALUES: dict[tuple[int, int], int] = {
    (1, 1): 0, (1, 2): -2, (1, 3): 6, (1, 4): -2, (1, 5): 2, (1, 6): 0,
    (2, 1): 2, (2, 2): -2, (2, 3): -2, (2, 4): -12, (2, 5): 6, (2, 6): 8,
    (3, 1): 0, (3, 2): 4, (3, 3): 2, (3, 4): 2, (3, 5): 6, (3, 6): -10,
    (4, 1): 2, (4, 2): 6, (4, 3): 8, (4, 4): 2, (4, 5): 2, (4, 6): 0,
    (5, 1): 0, (5, 2): 0, (5, 3): 8, (5, 4): 12, (5, 5): 2, (5, 6): 2,
    (6, 1): 2, (6, 2): 10, (6, 3): 2, (6, 4): 10, (6, 5): 12, (6, 6): 2,
}  # fmt: skip
"""(pits, seeds) -> South's final margin under perfect play in `kalah` with default rules:
the table of docs/mancala.md §7 (Irving, Donkers & Uiterwijk 2000)."""

DEFAULT_SOLVE_CELLS = (
    *((m, n) for m in (1, 2, 3) for n in range(1, 7)),
    (4, 1), (4, 2), (4, 3), (5, 1), (5, 2), (6, 1),
)  # fmt: skip
"""The cells `bench --solve` checks by default: every m <= 3 and the quick larger ones."""

SPEED_PLIES = (0, 10, 20)
"""`bench --speed` searches the start position and the positions these many seeded random
plies into the game."""


@dataclass(frozen=True, slots=True)
class BenchRow:
    """One combination's game: what its searches did and how the game ended."""

    game: str
    algorithm: str
    evaluation: str
    depth: int | None
    opponent: str
    generated: int
    expanded: int
    plies: int
    """The game's length."""
    seconds: float
    """Time spent in the combination's own searches."""
    peak_memory: int | None
    """The highest tracemalloc peak of its searches, in bytes (only with --memory)."""
    table_entries: int
    """The most transposition-table entries it held."""
    winner: str
    """`player 0`, `player 1`, `draw`, or `unfinished` at the ply limit."""
    score: str
    search: str = "python"
    """Where the combination's search ran: `python`, `native` (then no peak memory: tracemalloc
    sees Python's allocations only), or `-` for a baseline, which does not search."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class SpeedRow:
    """The search's speed in one game, over the fixed positions."""

    game: str
    backend: str
    """Where the game's rules ran: `python` or `native`."""
    search: str
    """Where the search ran: `native` wherever the game's rules are native (every algorithm and
    evaluation; docs/engine.md, Native core), else `python`."""
    algorithm: str
    positions: int
    generated: int
    seconds: float
    movegen_per_second: float
    """Children the game's own `children` generates per second: the rules' share of the cost."""
    perft_per_second: float
    """Perft sequences counted per second from the start: the move generator alone."""

    @property
    def nps(self) -> float:
        return self.generated / self.seconds if self.seconds else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "nps": round(self.nps)}


@dataclass(frozen=True, slots=True)
class ThreadsRow:
    """The native search of one game on one thread and on `threads`, over the fixed positions:
    each position searched to the depth one thread completes in the time given, both ways."""

    game: str
    threads: int
    depths: tuple[int, ...]
    """The depth searched in each position."""
    one_seconds: float
    """Time to those depths on one thread (summed over the positions) ..."""
    many_seconds: float
    """... and on `threads` threads."""
    one_generated: int
    many_generated: int
    """Nodes, every thread's."""

    @property
    def speedup(self) -> float:
        """Time to depth on one thread over time to depth on `threads`: the honest gain."""
        return self.one_seconds / self.many_seconds if self.many_seconds else 0.0

    @property
    def one_nps(self) -> float:
        return self.one_generated / self.one_seconds if self.one_seconds else 0.0

    @property
    def many_nps(self) -> float:
        return self.many_generated / self.many_seconds if self.many_seconds else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "depths": list(self.depths),
            "one_nps": round(self.one_nps),
            "many_nps": round(self.many_nps),
            "speedup": round(self.speedup, 3),
        }


@dataclass(frozen=True, slots=True)
class SolveRow:
    """One solved Kalah cell against the published value."""

    pits: int
    seeds: int
    value: int
    reference: int | None
    expanded: int
    table_entries: int
    seconds: float

    @property
    def agrees(self) -> bool | None:
        return None if self.reference is None else self.value == self.reference

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "agrees": self.agrees}


class Progress:
    """A one-line progress bar redrawn in place on `stream`; silent when it is None."""

    def __init__(self, total: int, stream: TextIO | None, width: int = 30) -> None:
        self.total = max(total, 1)
        self.stream = stream
        self.width = width
        self.done = 0

    def step(self, label: str) -> None:
        """Show that the step `label` is starting."""
        if self.stream is not None:
            filled = self.width * self.done // self.total
            bar = "#" * filled + "." * (self.width - filled)
            self.stream.write(f"\r[{bar}] {self.done}/{self.total} {label[:40]:<40}")
            self.stream.flush()
        self.done += 1

    def close(self) -> None:
        if self.stream is not None:
            self.stream.write("\r" + " " * (self.width + 55) + "\r")
            self.stream.flush()


def parse_opponent(
    game: Searchable[Any, Any],
    spec: str,
    seed: int,
    hash_mb: float = DEFAULT_HASH_MB,
    exact: bool = False,
    threads: int = 1,
) -> Callable[[], Player] | None:
    """A factory of fresh opponents from `same` (None: self-play), a baseline or ALG:EVAL:DEPTH
    (searching with `hash_mb`, in the exact mode if `exact`, on `threads` threads)."""
    if spec == "same":
        return None
    name, _, rest = spec.partition(":")
    if name in BASELINES:
        return lambda: make_player(game, name, seed=seed)
    evaluation, _, depth_text = rest.partition(":")
    if name not in ALGORITHMS or not decimal(depth_text) or int(depth_text) < 1:
        raise ValueError(
            f"--opponent {spec!r}: write same, random, first, or ALGORITHM:EVAL:DEPTH "
            "(e.g. alphabeta:store_diff:4; an empty EVAL is the game's first)"
        )
    make_player(game, name, evaluation or None, 1, hash_mb=0)  # reject unknown names now
    return lambda: make_player(
        game,
        name,
        evaluation or None,
        int(depth_text),
        hash_mb=hash_mb,
        exact=exact,
        threads=threads,
    )


def bench_games(
    game: Searchable[Any, Any],
    algorithms: Sequence[str],
    evaluations: Sequence[str],
    depths: Sequence[int],
    opponent: str = "same",
    seat: int = 0,
    seed: int = 0,
    max_plies: int | None = None,
    measure_memory: bool = False,
    progress: TextIO | None = None,
    hash_mb: float = DEFAULT_HASH_MB,
    exact: bool = False,
    threads: int = 1,
) -> list[BenchRow]:
    """One complete game per algorithm x evaluation x depth (one per baseline player).

    With `opponent` "same" the combination plays itself; otherwise it plays `seat` against the
    opponent, and only its own searches are counted. Every search player gets a table of
    `hash_mb`, searches in the exact mode if `exact`, and on `threads` threads (then the node
    counts, and maybe the games, vary from run to run).
    """
    make_opponent = parse_opponent(game, opponent, seed, hash_mb, exact, threads)
    combinations: list[tuple[str, str | None, int | None]] = []
    for algorithm in algorithms:
        if algorithm in BASELINES:
            combinations.append((algorithm, None, None))
        else:
            combinations.extend(
                (algorithm, evaluation, depth) for evaluation in evaluations for depth in depths
            )
    bar = Progress(len(combinations), progress)
    rows = []
    try:
        for algorithm, evaluation, depth in combinations:
            bar.step(f"{algorithm} {evaluation or ''} {depth or ''}")
            ours = make_player(
                game,
                algorithm,
                evaluation,
                depth,
                seed=seed,
                measure_memory=measure_memory,
                hash_mb=hash_mb,
                exact=exact,
                threads=threads,
            )
            players: tuple[Player, Player]
            counted: tuple[int, ...]
            if make_opponent is None:
                twin = make_player(
                    game,
                    algorithm,
                    evaluation,
                    depth,
                    seed=seed + 1,
                    measure_memory=measure_memory,
                    hash_mb=hash_mb,
                    exact=exact,
                    threads=threads,
                )
                players, counted = (ours, twin), (0, 1)
            else:
                theirs = make_opponent()
                players = (ours, theirs) if seat == 0 else (theirs, ours)
                counted = (seat,)
            record = play_game(game, players, max_plies=max_plies)
            search = "-"
            if isinstance(ours, SearchPlayer):
                search = "python" if ours.searcher.native is None else "native"
            rows.append(_row(game, record, algorithm, evaluation, depth, opponent, counted, search))
    finally:
        bar.close()
    return rows


def _row(
    game: Searchable[Any, Any],
    record: GameRecord,
    algorithm: str,
    evaluation: str | None,
    depth: int | None,
    opponent: str,
    counted: Sequence[int],
    search: str,
) -> BenchRow:
    sides = [record.sides[side] for side in counted]
    # tracemalloc sees nothing of the native search's C allocations: its peak would be a lie.
    peaks = [side.peak_memory for side in sides if side.peak_memory is not None]
    if search == "native":
        peaks = []
    outcome = record.outcome
    if outcome is None:
        winner, score = "unfinished", "-"
    else:
        winner = "draw" if outcome.winner is None else f"player {outcome.winner}"
        score = f"{outcome.score[0]}-{outcome.score[1]}"
    return BenchRow(
        game=game.describe(),
        algorithm=algorithm,
        evaluation=evaluation or "-",
        depth=depth,
        opponent=opponent,
        generated=sum(side.generated for side in sides),
        expanded=sum(side.expanded for side in sides),
        plies=len(record.moves),
        seconds=sum(side.seconds for side in sides),
        peak_memory=max(peaks) if peaks else None,
        table_entries=max(side.table_entries for side in sides),
        winner=winner,
        score=score,
        search=search,
    )


def fixed_positions(game: Searchable[Any, Any], seed: int = 1) -> list[Any]:
    """The start and the positions SPEED_PLIES seeded random plies in (while not over)."""
    rng = random.Random(seed)
    position = game.start()
    found = []
    for ply in range(max(SPEED_PLIES) + 1):
        if ply in SPEED_PLIES:
            found.append(position)
        moves = game.legal_moves(position)
        if not moves:
            break
        position = game.play(position, rng.choice(moves))
    return found


SPEED_BACKENDS = ("python", "native") if NATIVE_BUILT else ("python",)
"""The backends `bench --speed` sets side by side: both where the native core is built."""


def bench_speed(
    names: Iterable[str] = GAMES,
    algorithms: Sequence[str] = ("negamax",),
    seconds: float = 1.0,
    progress: TextIO | None = None,
    backends: Sequence[str] = SPEED_BACKENDS,
) -> list[SpeedRow]:
    """Nodes per second of each algorithm in each game's default variant, `seconds` per position,
    with the rules on each of `backends` that has the game (the core has every registered one).

    Every search gets a fresh game object, so that a game that caches its move generation
    (Bao does) starts each search cold.
    """
    runs = [
        (name, backend)
        for name in names
        for backend in backends
        if backend == "python" or GAMES[name].rules in NATIVE_RULES
    ]
    bar = Progress(len(runs) * len(algorithms), progress)
    rows = []
    try:
        for name, backend in runs:
            positions = fixed_positions(make_game(name, {}, backend))
            movegen = _movegen_rate(name, backend, positions, seconds / 2)
            perft_rate = _perft_rate(make_game(name, {}, backend), seconds / 2)
            for algorithm in algorithms:
                bar.step(f"{name} {backend} {algorithm}")
                generated = 0
                spent = 0.0
                native = False
                for position in positions:
                    searcher = Searcher(make_game(name, {}, backend), algorithm)
                    native = searcher.native is not None
                    stats = searcher.search(position, time_ms=seconds * 1000).stats
                    generated += stats.generated
                    spent += stats.seconds
                rows.append(
                    SpeedRow(
                        name,
                        backend,
                        "native" if native else "python",
                        algorithm,
                        len(positions),
                        generated,
                        spent,
                        movegen,
                        perft_rate,
                    )
                )
    finally:
        bar.close()
    return rows


def bench_threads(
    names: Iterable[str] = GAMES,
    threads: int = 2,
    seconds: float = 1.0,
    progress: TextIO | None = None,
) -> list[ThreadsRow]:
    """What `threads` threads gain over one in each game whose native search runs threads (the
    Python search runs one): in each fixed position, the deepest iteration one thread completes
    in `seconds`, and the time `threads` threads take to complete it from a fresh table too.
    The threads search more nodes than one does, so time to depth is the gain that counts;
    nodes per second says how busy the threads kept."""
    runs = []
    for name in names:
        probe = Searcher(make_game(name, {}, "native"), threads=threads)
        if probe.native is not None:
            runs.append((name, probe.threads))
    bar = Progress(len(runs), progress)
    rows = []
    try:
        for name, used in runs:
            bar.step(f"{name} 1 and {threads} threads")
            depths = []
            one = many = 0.0
            one_generated = many_generated = 0
            for position in fixed_positions(make_game(name, {}, "native")):
                done: list[SearchResult[Any]] = []
                Searcher(make_game(name, {}, "native")).search(
                    position, time_ms=seconds * 1000, on_iteration=done.append
                )
                if not done:
                    continue  # not even depth 1 in the time: nothing to compare
                last = done[-1].stats
                depths.append(last.depth)
                one += last.seconds
                one_generated += last.generated
                stats = (
                    Searcher(make_game(name, {}, "native"), threads=threads)
                    .search(position, last.depth)
                    .stats
                )
                many += stats.seconds
                many_generated += stats.generated
            rows.append(
                ThreadsRow(name, used, tuple(depths), one, many, one_generated, many_generated)
            )
    finally:
        bar.close()
    return rows


def _perft_rate(game: Searchable[Any, Any], seconds: float) -> float:
    """Perft sequences per second from the start, one depth deeper while the last depth took
    under a tenth of `seconds` (a depth costs a branching factor more than the one before)."""
    counted = 0
    spent = 0.0
    clock = time.perf_counter
    last = 0.0
    depth = 1
    while last < seconds / 10 and depth <= 30:
        start = clock()
        counted += perft(game, game.start(), depth)
        last = clock() - start
        spent += last
        depth += 1
    return counted / spent if spent else 0.0


def _movegen_rate(name: str, backend: str, positions: Sequence[Any], seconds: float) -> float:
    """Children per second of the game's `children`, each position generated once.

    A breadth-first walk from `positions` visits new positions only, and only the `children`
    calls are timed.
    """
    game = make_game(name, {}, backend)
    frontier = deque(positions)
    seen = set(positions)
    made = 0
    spent = 0.0
    clock = time.perf_counter
    while frontier and spent < seconds:
        position = frontier.popleft()
        start = clock()
        kids = game.children(position)
        spent += clock() - start
        made += len(kids)
        for _, kid in kids:
            if kid not in seen:
                seen.add(kid)
                frontier.append(kid)
    return made / spent if spent else 0.0


def endgame_cap(game: Mancala, seeds: int) -> int:
    """The endgame database worth building for `game` when `seeds` are asked: no board of the
    game holds more seeds than it starts with, so a larger database only costs time and
    memory (kalah(3,2) asked for 99 gets 12)."""
    return min(seeds, 2 * game.pits * game.seeds)


def bench_solve(
    cells: Sequence[tuple[int, int]] = DEFAULT_SOLVE_CELLS,
    progress: TextIO | None = None,
    endgame_seeds: int = 0,
    backend: str | None = None,
) -> list[SolveRow]:
    """Solve `kalah` (pits, seeds) cells on `backend` (engine/backend.py; None: the default)
    and set each beside its published value; with `endgame_seeds`, with the endgame database
    of that many seeds, at most the cell's own (its build is not timed). ValueError names the
    cell it cannot solve."""
    bar = Progress(len(cells), progress)
    rows = []
    try:
        for pits, seeds in cells:
            name = f"kalah({pits},{seeds})"
            bar.step(name)
            game = make_game("kalah", {"pits": pits, "seeds": seeds}, backend)
            assert isinstance(game, Mancala)
            try:
                cap = endgame_cap(game, endgame_seeds)
                endgame = open_endgame(game, cap) if cap else None
                solution = Solver(game, endgame=endgame).solve()
            except ValueError as error:
                raise ValueError(f"{name}: {error}") from None
            rows.append(
                SolveRow(
                    pits,
                    seeds,
                    solution.value,
                    KALAH_VALUES.get((pits, seeds)),
                    solution.expanded,
                    solution.table_entries,
                    solution.seconds,
                )
            )
    finally:
        bar.close()
    return rows


def format_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """Columns right-aligned to their widest cell, text columns left-aligned."""
    cells = [[str(value) for value in row] for row in rows]
    widths = [max(len(text) for text in column) for column in zip(header, *cells, strict=True)]
    numeric = [all(_is_number(row[i]) for row in cells) and bool(cells) for i in range(len(header))]
    lines = []
    for row in [list(header), *cells]:
        parts = [
            text.rjust(width) if right else text.ljust(width)
            for text, width, right in zip(row, widths, numeric, strict=True)
        ]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def _is_number(text: str) -> bool:
    return text.replace(".", "", 1).replace("-", "", 1).isdigit() or text == "-"


def games_table(rows: Sequence[BenchRow]) -> str:
    header = (
        "algorithm", "eval", "depth", "generated", "expanded", "plies", "time ms", "peak KiB",
        "table", "winner", "score",
    )  # fmt: skip
    table = format_table(
        header,
        (
            (
                row.algorithm,
                row.evaluation,
                "-" if row.depth is None else row.depth,
                row.generated,
                row.expanded,
                row.plies,
                f"{row.seconds * 1000:.1f}",  # a native game can take well under 10 ms
                "-" if row.peak_memory is None else round(row.peak_memory / 1024),
                row.table_entries,
                row.winner,
                row.score,
            )
            for row in rows
        ),
    )
    notes = ["table: the most transposition-table entries a side held after a move"]
    if any(row.peak_memory is None for row in rows):
        native = any(row.search == "native" for row in rows)
        notes.append(
            "peak KiB: measured with --memory only (tracemalloc slows the search)"
            + (", not in native searches" if native else "")
        )
    return "\n".join([table, *notes])


def speed_table(rows: Sequence[SpeedRow]) -> str:
    header = (
        "game", "rules", "search", "algorithm", "positions", "generated", "time s", "nodes/s",
        "movegen/s", "perft/s",
    )  # fmt: skip
    return format_table(
        header,
        (
            (
                row.game,
                row.backend,
                row.search,
                row.algorithm,
                row.positions,
                row.generated,
                f"{row.seconds:.2f}",
                round(row.nps),
                round(row.movegen_per_second),
                round(row.perft_per_second),
            )
            for row in rows
        ),
    )


def threads_table(rows: Sequence[ThreadsRow]) -> str:
    header = (
        "game", "threads", "depths", "1 thread s", "threads s", "speedup", "1 thread nodes/s",
        "threads nodes/s", "nodes/s gain",
    )  # fmt: skip
    return format_table(
        header,
        (
            (
                row.game,
                row.threads,
                ",".join(map(str, row.depths)),
                f"{row.one_seconds:.2f}",
                f"{row.many_seconds:.2f}",
                f"{row.speedup:.2f}x",
                round(row.one_nps),
                round(row.many_nps),
                f"{row.many_nps / row.one_nps if row.one_nps else 0.0:.2f}x",
            )
            for row in rows
        ),
    )


def solve_table(rows: Sequence[SolveRow]) -> str:
    header = ("game", "value", "published", "agrees", "expanded", "table", "time s")
    return format_table(
        header,
        (
            (
                f"kalah({row.pits},{row.seeds})",
                f"{row.value:+d}",
                "-" if row.reference is None else f"{row.reference:+d}",
                {True: "yes", False: "NO", None: "-"}[row.agrees],
                row.expanded,
                row.table_entries,
                f"{row.seconds:.2f}",
            )
            for row in rows
        ),
    )


def write_csv(path: str, rows: Sequence[dict[str, Any]]) -> None:
    """`rows` as CSV with a header line (nothing but the header when there are none)."""
    with open(path, "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]) if rows else [])
        writer.writeheader()
        writer.writerows(rows)
