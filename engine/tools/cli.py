"""`ubao-engine`: the engine's command line (rules queries, perft, and the search tools)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, TextIO

from ubao.engine import solve as solving
from ubao.engine.backend import (
    BACKENDS,
    ENVIRONMENT,
    NATIVE_BUILT,
    backend_of,
    chosen,
    resolve_backend,
)
from ubao.engine.endgame import Endgame, native_rules, open_endgame
from ubao.engine.game import GameError, Outcome
from ubao.engine.games import GAMES, game_for_position, make_game
from ubao.engine.mancala.game import Mancala
from ubao.engine.othello.game import Othello
from ubao.engine.perft import MAX_PERFT_DEPTH, perft
from ubao.engine.protocols import DIALECTS
from ubao.engine.protocols.session import MAX_HASH_MB
from ubao.engine.protocols.ubao import decimal
from ubao.engine.record import Record, RecordError, parse_record, result_token
from ubao.engine.review import (
    DEFAULT_TIME_MS,
    PlyReview,
    ReviewBudget,
    review_game,
    review_to_json,
)
from ubao.engine.search import (
    ALGORITHMS,
    DEFAULT_ALGORITHM,
    DEFAULT_HASH_MB,
    ENTRY_BYTES,
    MAX_SEARCH_DEPTH,
    MAX_THREADS,
    Searcher,
    SearchResult,
    Tracer,
    format_score,
)
from ubao.engine.searchable import Searchable, format_line
from ubao.engine.solve import Result, Solver
from ubao.engine.tools import (
    bench,
    gtp,
    match,
    nboard,
    schedule,
    standings,
    stdio,
    tournament,
    tournament_files,
)
from ubao.engine.tools.argv import CommandLineParser, options_after_command
from ubao.engine.tools.chart import bench_svg
from ubao.engine.tools.entrants import EngineSpec, parse_entrant, parse_spec
from ubao.engine.tools.players import PLAYERS
from ubao.engine.tools.review_text import review_text

PLAYER_NAMES = ("player 0", "player 1")


class CommandError(Exception):
    """A user error on the command line: printed to stderr, exit status 2."""


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments every per-game command shares: the game, its options and a position."""
    parser.add_argument(
        "game", choices=sorted(GAMES), metavar="GAME", help=f"the game: {', '.join(GAMES)}"
    )
    parser.add_argument(
        "--options", default="{}", metavar="JSON", help="game options, e.g. '{\"pits\": 6}'"
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--position", metavar="POS", help="a position in the game's notation")
    where.add_argument("--position-json", metavar="JSON", help="a position in the game's JSON form")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    add_backend_argument(parser)


def add_backend_argument(parser: argparse.ArgumentParser) -> None:
    """The backend of the rules and the search (engine/backend.py)."""
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        help="the rules in C (native) or Python; default: $UBAO_BACKEND, else auto (native "
        "when built)",
    )


def number(text: str) -> float:
    """A finite number from the command line, else argparse's usage error."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number")
    return value


def milliseconds(text: str) -> float:
    """`--time-ms`, `--seconds`: positive (no time would search nothing and report a made-up
    move)."""
    value = number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return value


def at_least(least: int) -> Callable[[str], int]:
    """An argparse type: a whole number `least` or more."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = least - 1
        if value < least:
            raise argparse.ArgumentTypeError(f"must be a whole number, {least} or more, not {text}")
        return value

    return parse


def output_file(text: str) -> str:
    """A file to write after a long run: its folder must exist and be writable now, so that a
    typo does not cost the run."""
    folder = os.path.dirname(text) or "."
    if not (os.path.isdir(folder) and os.access(folder, os.W_OK)):
        raise argparse.ArgumentTypeError(f"cannot write {text}: no writable folder {folder}")
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"cannot write {text}: it is a folder")
    return text


def megabytes(text: str) -> float:
    """`--hash`: 0 (no table) to MAX_HASH_MB, the one cap of every command and `Hash`."""
    value = number(text)
    if not 0 <= value <= MAX_HASH_MB:
        raise argparse.ArgumentTypeError(f"must be from 0 to {MAX_HASH_MB} MB, not {text}")
    return value


def add_hash_argument(parser: argparse.ArgumentParser, default: float, what: str) -> None:
    """`--hash MB`, capped alike on every command."""
    parser.add_argument(
        "--hash",
        type=megabytes,
        default=default,
        metavar="MB",
        help=f"{what} in MB (default {default:g}; 0 to {MAX_HASH_MB})",
    )


def add_search_mode_arguments(parser: argparse.ArgumentParser) -> None:
    """The transposition table's memory, the exact mode and the threads (docs/engine.md)."""
    add_hash_argument(parser, DEFAULT_HASH_MB, "transposition-table memory (0: no table)")
    parser.add_argument(
        "--exact",
        action="store_true",
        help="the exact mode: every algorithm returns the same value at the same depth",
    )
    add_threads_argument(parser)


def add_probcut_argument(parser: argparse.ArgumentParser) -> None:
    """`--no-probcut`: a full-width strength search (docs/engine.md, Multi-ProbCut)."""
    parser.add_argument(
        "--no-probcut",
        dest="probcut",
        action="store_false",
        help="search full width: no multi-ProbCut (which only the strength mode's negamax of "
        "8x8 Othello applies)",
    )


def add_threads_argument(
    parser: argparse.ArgumentParser,
    which: str = "the native negamax in the strength mode",
) -> None:
    """The threads of the native search or solver (docs/engine.md, Threads)."""
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        metavar="N",
        help=f"search on N threads sharing the table ({which}; default 1)",
    )


def check_threads(threads: int) -> None:
    if not 1 <= threads <= MAX_THREADS:
        raise CommandError(f"--threads must be from 1 to {MAX_THREADS}")


def say_threads(note: str | None) -> None:
    """The one line saying why fewer threads search than asked (a `threads_note`), on
    stderr."""
    if note is not None:
        print(note, file=sys.stderr)


AUTO_ENDGAME_SEEDS = 16
"""`solve`'s endgame database when `--db` is not given and the native core builds it (in
seconds: 6 pits, 30 M positions in about 7 s, once; then cached)."""


def add_endgame_argument(parser: argparse.ArgumentParser, *, auto: bool = False) -> None:
    """The solver's endgame database (docs/engine.md, Solver)."""
    default = (
        f" (default: {AUTO_ENDGAME_SEEDS} where the native core builds it, else none; 0: none)"
        if auto
        else ""
    )
    parser.add_argument(
        "--db",
        type=at_least(0),
        default=None if auto else 0,
        metavar="SEEDS",
        help="mancala: use the endgame database of positions with up to SEEDS seeds on the "
        f"board, at most the game's own (built once, cached in ~/.cache/ubao){default}",
    )


def endgame_seeds(game: Searchable[Any, Any], asked: int | None) -> int:
    """The database `solve` uses: the one asked for, else the automatic one where the native
    core builds and reads it, else none; never more seeds than the game has."""
    if not isinstance(game, Mancala):
        return 0
    if asked is None:
        asked = AUTO_ENDGAME_SEEDS if native_rules(game) is not None else 0
    return bench.endgame_cap(game, asked)


def parse_options(text: str) -> dict[str, Any]:
    """The `--options` JSON object."""
    try:
        options = json.loads(text)
    except json.JSONDecodeError as error:
        raise CommandError(f"--options is not valid JSON: {error}") from None
    if not isinstance(options, dict):
        raise CommandError("--options must be a JSON object, e.g. '{\"pits\": 6}'")
    return options


def game_and_position(args: argparse.Namespace) -> tuple[Searchable[Any, Any], Any]:
    """The game and the starting position the user asked for."""
    options = parse_options(args.options)
    if args.position is not None:
        return game_for_position(args.game, options, args.position, args.backend)
    if args.position_json is None:
        game = make_game(args.game, options, args.backend)
        return game, game.start()
    try:
        data = json.loads(args.position_json)
    except json.JSONDecodeError as error:
        raise CommandError(f"--position-json is not valid JSON: {error}") from None
    # As game_for_position for the text form: the position fills in the options not given.
    implied = GAMES[args.game].rules.options_in_position_json(data)
    game = make_game(args.game, {**implied, **options}, args.backend)
    return game, game.parse_position_json(data)


def describe_outcome(outcome: Outcome) -> str:
    """A one-line human summary of a result, the winner's score first (as the clients say it)."""
    first, second = outcome.score if outcome.winner != 1 else reversed(outcome.score)
    if outcome.winner is None:
        return f"draw {first}-{second} ({outcome.reason})"
    return f"{PLAYER_NAMES[outcome.winner]} wins {first}-{second} ({outcome.reason})"


def position_report(game: Searchable[Any, Any], position: Any) -> dict[str, Any]:
    """Everything `--json` output says about a position."""
    outcome = game.outcome(position)
    return {
        "game": game.name,
        "options": dict(game.options),
        "position": game.format_position(position),
        "position_json": game.position_json(position),
        "to_move": game.to_move(position),
        "over": outcome is not None,
        "result": outcome.to_dict() if outcome else None,
    }


def emit(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    print(json.dumps(data) if args.json else text)


def command_moves(args: argparse.Namespace) -> None:
    game, position = game_and_position(args)
    moves = [game.format_move(position, move) for move in game.legal_moves(position)]
    emit(args, {"moves": moves, **position_report(game, position)}, "\n".join(moves))


def command_play(args: argparse.Namespace) -> None:
    game, position = game_and_position(args)
    played: list[str] = []
    for number, text in enumerate(args.moves, 1):
        try:
            move = game.parse_move(position, text)
        except GameError as error:
            raise type(error)(f"move {number} ({text!r}): {error}") from None
        played.append(game.format_move(position, move))
        position = game.play(position, move)
    report = {"moves": played, **position_report(game, position)}
    lines = [game.format_position(position)]
    outcome = game.outcome(position)
    if outcome is not None:
        lines.append(f"result: {describe_outcome(outcome)}")
    emit(args, report, "\n".join(lines))


def command_perft(args: argparse.Namespace) -> None:
    if not 0 <= args.depth <= MAX_PERFT_DEPTH:
        raise CommandError(f"--depth must be from 0 to {MAX_PERFT_DEPTH}")
    game, position = game_and_position(args)
    nodes = perft(game, position, args.depth)
    data = {"depth": args.depth, "nodes": nodes, "backend": backend_of(game)}
    emit(args, {**data, **position_report(game, position)}, str(nodes))


def command_analyse(args: argparse.Namespace) -> None:
    if args.depth is None and args.time_ms is None:
        raise CommandError("give --depth N, --time-ms MS or both")
    if args.depth is not None and not 1 <= args.depth <= MAX_SEARCH_DEPTH:
        raise CommandError(f"--depth must be from 1 to {MAX_SEARCH_DEPTH}")
    if args.trace_depth < 1 or args.trace_lines < 1:
        raise CommandError("--trace-depth and --trace-lines must be 1 or more")
    check_threads(args.threads)
    game, position = game_and_position(args)
    try:
        searcher = Searcher(
            game, args.algorithm, args.eval, args.hash, args.exact, args.threads, args.probcut
        )
    except ValueError as error:
        raise CommandError(str(error)) from None
    if args.trace and searcher.threads > 1:
        print("threads: 1: a traced search runs the Python search, on one thread", file=sys.stderr)
    else:
        say_threads(searcher.threads_note)
    # Trace lines go to stderr under --json, so that stdout stays one JSON document.
    out = sys.stderr if args.json else sys.stdout
    tracer = None
    if args.trace:
        tracer = Tracer(lambda line: print(line, file=out), args.trace_depth, args.trace_lines)

    def report(result: SearchResult[Any]) -> None:
        if not args.json:
            pv = " ".join(format_line(game, position, result.pv))
            score = format_score(result.score, result.proved)
            print(
                f"depth {result.stats.depth:>2}  score {score:>10}  "
                f"nodes {result.stats.generated:>9}  time {result.stats.seconds:7.3f}s  pv {pv}"
            )

    result = searcher.search(
        position,
        args.depth,
        args.time_ms,
        on_iteration=report,
        tracer=tracer,
        measure_memory=args.memory,
    )
    stats = result.stats
    # A search stopped before its first iteration completed has a move (the first one it
    # would have searched) but no score and no line, as `go movetime 0` writes no `info`.
    scored = stats.depth > 0 or result.move is None
    pv = format_line(game, position, result.pv) if scored else []
    data = {
        "algorithm": searcher.algorithm,
        "evaluation": searcher.evaluation_name,
        "move": None if result.move is None else game.format_move(position, result.move),
        "score": result.score if scored else None,
        "score_text": format_score(result.score, result.proved) if scored else None,
        "proved": result.proved,
        "mate": result.mate,
        "margin": result.margin,
        "exact": searcher.exact,
        "probcut": searcher.cuts(args.depth) is not None,
        "pv": pv,
        "stopped": result.stopped,
        "stats": stats.to_dict(),
        **position_report(game, position),
    }
    if stats.peak_memory is not None:
        memory = f"{stats.peak_memory} B"
    elif args.memory:  # tracemalloc sees Python allocations only
        memory = "not measured: the native search's memory is its table"
    else:
        memory = "not measured (--memory)"
    whose = f"{data['score_text']} for player {game.to_move(position)}, the side to move"
    lines = [
        f"best move: {data['move'] or 'none, the game is over'}",
        f"score: {whose if scored else 'none, no iteration completed in time'} "
        f"({searcher.algorithm}, {searcher.evaluation_name}, "
        f"{'exact' if searcher.exact else 'strength'} mode"
        f"{', ProbCut' if searcher.cuts(args.depth) is not None else ''}, {stats.threads} "
        f"thread{'s' if stats.threads > 1 else ''})",
        f"pv: {' '.join(pv)}",
        f"depth {stats.depth}{' (stopped by the time limit)' if result.stopped else ''}, "
        f"{stats.seconds:.3f} s, {round(stats.nps)} nodes/s",
        f"nodes: {stats.generated} generated, {stats.expanded} expanded, "
        f"{stats.evaluated} evaluated; {stats.cutoffs} cut-offs, {stats.table_hits} table hits",
        f"memory: {stats.table_entries} table entries ({ENTRY_BYTES} B each, at most "
        f"{searcher.table.capacity} in {args.hash:g} MB), peak {memory}",
    ]
    emit(args, data, "\n".join(lines))


def read_record(source: str) -> Record:
    """The record in file `source`, or on stdin for `-`."""
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CommandError(f"cannot read {source}: {error}") from None
    try:
        return parse_record(text)
    except RecordError as error:
        raise CommandError(f"{source}: {error}") from None


def command_review(args: argparse.Namespace) -> None:
    record = read_record(args.record)
    budget = ReviewBudget(
        args.time_ms, args.exact_within, args.nodes, args.solve_ms, args.confirm_ms
    )

    def heard(ply: PlyReview) -> None:
        print(f"reviewed ply {ply.ply + 1} of {len(record.moves)}", file=sys.stderr, flush=True)

    try:
        review = review_game(
            record.game,
            record.options,
            record.moves,
            budget,
            on_ply=heard if progress_wanted(args) else None,
            backend=args.backend,
        )
    except ValueError as error:
        raise CommandError(str(error)) from None
    if args.json:
        print(json.dumps(review_to_json(review)))
    else:
        print(review_text(review, record.tags))


def progress_wanted(args: argparse.Namespace) -> bool:
    """`--progress`: on a terminal (`auto`), or `always`."""
    return bool(args.progress == "always" or sys.stderr.isatty())


def command_solve(args: argparse.Namespace) -> None:
    check_threads(args.threads)
    game, position = game_and_position(args)
    if args.db and not isinstance(game, Mancala):
        raise CommandError("--db: endgame databases exist for the mancala games only")
    seeds = endgame_seeds(game, args.db)
    progress = progress_wanted(args)
    try:
        endgame = (
            open_endgame(game, seeds, building=say_building(game, seeds) if progress else None)
            if isinstance(game, Mancala) and seeds
            else None
        )
        solver = Solver(game, hash_mb=args.hash, endgame=endgame, threads=args.threads)
        say_threads(solver.threads_note)
        faster = slow_solve_note(game, solver)
        with still_solving(solver, faster) if progress else contextlib.nullcontext():
            if args.wld:
                result = solver.result(position)
            else:
                on_probe = probe_progress(not game.search_hints.board_keys) if progress else None
                solution = solver.solve(position, on_probe)
    except ValueError as error:
        raise CommandError(str(error)) from None
    if args.wld:
        emit_result(args, game, position, result)
        return
    pv = format_line(game, position, solution.pv)
    data = {
        **solution.to_dict(),
        "move": pv[0] if pv else None,
        "pv": pv,
        **position_report(game, position),
    }
    verdict = {"W": "player 0 wins", "D": "draw", "L": "player 1 wins"}[solution.wdl]
    lines = [
        f"value: {solution.value:+d} (player 0's final score minus player 1's): {verdict}",
        f"best move: {data['move'] or 'none, the game is over'}",
        f"best play: {' '.join(pv)}",
        f"{solution.expanded} positions expanded, {solution.probes} probes, "
        f"{solution.table_entries} table entries, {solution.seconds:.2f} s"
        + (f", {solution.threads} threads" if solution.threads > 1 else ""),
    ]
    if endgame is not None:
        lines.append(f"endgame database: {endgame.seeds} seeds, {len(endgame.values)} positions")
    emit(args, data, "\n".join(lines))


def emit_result(
    args: argparse.Namespace, game: Searchable[Any, Any], position: Any, result: Result[Any]
) -> None:
    """`solve --wld`'s answer: who wins, a move that keeps it, what it took."""
    move = None if result.move is None else game.format_move(position, result.move)
    data = {**result.to_dict(), "move": move, **position_report(game, position)}
    verdict = {"W": "player 0 wins", "D": "draw", "L": "player 1 wins"}[result.wdl]
    lines = [
        f"result: {verdict} (win, draw or loss only: the margin is not sought)",
        f"move that keeps it: {move or 'none, the game is over'}",
        f"{result.expanded} positions expanded, {result.probes} probes, {result.seconds:.2f} s",
    ]
    emit(args, data, "\n".join(lines))


def slow_solve_note(game: Searchable[Any, Any], solver: Solver[Any, Any]) -> str | None:
    """Where `solve` runs the generic Python solver on Othello, what is faster (said on its
    still-solving lines): the native 8x8 endgame solver, else the native search to the end."""
    if not isinstance(game, Othello) or solver.othello is not None:
        return None
    if game.size == 8:
        return (
            "the Python solver is slow on Othello (hours from 20 empties): the native core's "
            "endgame solver takes seconds (--backend native, on a build with a C compiler)"
        )
    if backend_of(game) == "native":
        return (
            f"the Python solver is slow on Othello: `ubao-engine analyse othello --options "
            f"'{{\"size\": {game.size}}}' --depth {game.size * game.size}` searches natively to "
            "the end of the game, and says the exact result sooner"
        )
    return None


def say_building(game: Mancala, seeds: int) -> Callable[[Path], None]:
    """The line on stderr before a database is built (the 24-seed one takes minutes)."""

    def building(path: Path) -> None:
        size = Endgame.size(game.pits, seeds)
        print(
            f"building the {seeds}-seed endgame database ({size:,} positions, a byte each), "
            f"once: it is cached in {path}",
            file=sys.stderr,
            flush=True,
        )

    return building


PROGRESS_EVERY_S = 5.0
"""How often a long solve says it is still at work."""


@contextlib.contextmanager
def still_solving(solver: Solver[Any, Any], faster: str | None = None) -> Iterator[None]:
    """A line on stderr every few seconds while `solver` works: a game too big to solve (the
    8x8 Othello start, Bao) shows that it runs, how fast, and how to stop it (and the `faster`
    path, where `slow_solve_note` knows one)."""
    done = threading.Event()
    started = time.monotonic()

    def report() -> None:
        while not done.wait(PROGRESS_EVERY_S):
            seconds = time.monotonic() - started
            expanded = solver.expanded_now()
            print(
                f"still solving after {seconds:.0f} s: {expanded} positions expanded "
                f"({expanded / seconds:,.0f}/s); a game this size may take far longer "
                "than you will wait (Ctrl-C stops)" + (f"; {faster}" if faster else ""),
                file=sys.stderr,
                flush=True,
            )

    reporter = threading.Thread(target=report, name="still-solving", daemon=True)
    reporter.start()
    try:
        yield
    finally:
        done.set()
        reporter.join()


def value_words(value: int, ranked: bool) -> str:
    """A solver's value for its mover in words: `a win by 2`, `a draw`, `a loss by 38` (a
    `ranked` value is `result_value`'s, winner first; otherwise the value is the margin)."""
    winner, margin = solving.winner_and_margin(value) if ranked else (None, value)
    if not ranked and margin:
        winner = 0 if margin > 0 else 1
    if winner is None:
        return "a draw"
    return f"a {'win' if winner == 0 else 'loss'} by {abs(margin)}"


def probe_progress(ranked: bool) -> Callable[[int, int, int], None]:
    """One line per MTD(f) probe on stderr: the bounds proved so far on the mover's value, in
    words (`ranked`: values as `value_words` reads them)."""

    def say(low: int, high: int, expanded: int) -> None:
        if low == high:
            bounds = f"exactly {value_words(low, ranked)}"
        else:
            bounds = " and ".join(
                f"{side} {value_words(bound, ranked)}"
                for side, bound in (("at least", low), ("at most", high))
                if abs(bound) < solving.UNBOUNDED
            )
        print(
            f"the side to move gets {bounds or 'anything yet'}, {expanded} positions expanded",
            file=sys.stderr,
        )

    return say


def split_list(text: str) -> list[str]:
    return [item for item in text.split(",") if item]


def parse_cells(text: str) -> list[tuple[int, int]]:
    """`3x6,4x4` as [(3, 6), (4, 4)]."""
    cells = []
    for item in split_list(text):
        pits, _, seeds = item.partition("x")
        if not (decimal(pits) and decimal(seeds)):
            raise CommandError(f"--cells: {item!r} is not PITSxSEEDS, e.g. 3x6")
        cells.append((int(pits), int(seeds)))
    return cells


BENCH_DEFAULTS: dict[str, Any] = {
    "game": "kalah",
    "options": "{}",
    "depths": "2,3,4,5",
    "opponent": "same",
    "seat": 0,
    "seed": 0,
    "max_plies": 1000,
    "hash": DEFAULT_HASH_MB,
    "threads": 1,
    "seconds": 1.0,
    "db": 0,
}
"""The bench's defaults, filled in after the parse: an option left at None was not given, so
that one a mode does not use is refused even when it repeats the default."""

BENCH_OPTIONS: dict[str, tuple[str, ...]] = {
    "the games bench": (
        "game", "options", "algorithms", "evals", "depths", "opponent", "seat", "seed",
        "max_plies", "memory", "hash", "exact", "threads", "backend", "svg",
    ),
    "--speed": ("games", "seconds", "algorithms", "backends"),
    "--speed --threads": ("games", "seconds", "threads"),
    "--solve": ("cells", "db", "backend"),
}  # fmt: skip
"""The options each mode of the bench uses (besides --csv, --json-file, --json, --progress)."""


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def check_bench_options(args: argparse.Namespace) -> str:
    """The bench's mode, after refusing any option given that it does not use (CommandError)."""
    threads = args.threads if args.threads is not None else BENCH_DEFAULTS["threads"]
    check_threads(threads)
    if args.speed:
        mode = "--speed --threads" if threads > 1 else "--speed"
    else:
        mode = "--solve" if args.solve else "the games bench"
    used = BENCH_OPTIONS[mode]
    every = {dest for dests in BENCH_OPTIONS.values() for dest in dests}
    unused = sorted(dest for dest in every - set(used) if getattr(args, dest) not in (None, False))
    if unused:
        flags = ", ".join(map(_flag, unused))
        hint = ""
        if "backend" in unused:
            hint = "; --speed sets the backends side by side: choose them with --backends"
        raise CommandError(
            f"{flags} {'is' if len(unused) == 1 else 'are'} not used by {mode}, which takes "
            f"{', '.join(map(_flag, used))}{hint}"
        )
    if args.seat is not None and args.opponent in (None, "same"):
        raise CommandError(
            "--seat says which side plays an --opponent; in self-play (--opponent same) the "
            "combination plays both"
        )
    for dest, default in BENCH_DEFAULTS.items():
        if getattr(args, dest) is None:
            setattr(args, dest, default)
    return mode


def command_bench(args: argparse.Namespace) -> None:
    progress = sys.stderr if progress_wanted(args) else None
    header: str
    mode = check_bench_options(args)
    if mode == "--speed --threads":
        if not NATIVE_BUILT:
            raise CommandError("--threads: only the native search runs threads; it is not built")
        print(
            f"threads: the native search on 1 and {args.threads} threads (the Python search "
            "runs on one and is left out)",
            file=sys.stderr,
        )
        threads_rows = bench.bench_threads(_speed_games(args), args.threads, args.seconds, progress)
        rows = [row.to_dict() for row in threads_rows]
        header = bench.threads_table(threads_rows)
    elif mode == "--speed":
        names = _speed_games(args)
        algorithms = split_list(args.algorithms) if args.algorithms else ["negamax"]
        _check_names("--algorithms", algorithms, ALGORITHMS)
        backends = split_list(args.backends) if args.backends else list(bench.SPEED_BACKENDS)
        _check_names("--backends", backends, ["python", "native"])
        speed_rows = bench.bench_speed(names, algorithms, args.seconds, progress, backends)
        rows = [row.to_dict() for row in speed_rows]
        header = bench.speed_table(speed_rows)
    elif mode == "--solve":
        cells = parse_cells(args.cells) if args.cells else list(bench.DEFAULT_SOLVE_CELLS)
        try:
            solve_rows = bench.bench_solve(cells, progress, args.db, args.backend)
        except ValueError as error:
            raise CommandError(str(error)) from None
        rows = [row.to_dict() for row in solve_rows]
        header = bench.solve_table(solve_rows)
    else:
        rows, header = _bench_games(args, progress)
    if args.csv:
        bench.write_csv(args.csv, rows)
    if args.json_file:
        with open(args.json_file, "w") as file:
            json.dump(rows, file, indent=1)
    print(json.dumps(rows) if args.json else header)


def _speed_games(args: argparse.Namespace) -> list[str]:
    """The games of `bench --speed`: --games, else all."""
    names = split_list(args.games) if args.games else list(GAMES)
    unknown = [name for name in names if name not in GAMES]
    if unknown:
        raise CommandError(f"unknown game(s) {', '.join(unknown)}; known: {', '.join(GAMES)}")
    return names


def _bench_games(
    args: argparse.Namespace, progress: TextIO | None
) -> tuple[list[dict[str, Any]], str]:
    game = make_game(args.game, parse_options(args.options), args.backend)
    algorithms = split_list(args.algorithms) if args.algorithms else list(ALGORITHMS)
    _check_names("--algorithms", algorithms, PLAYERS)
    evaluations = split_list(args.evals) if args.evals else list(game.evaluations)
    _check_names("--evals", evaluations, list(game.evaluations))
    try:
        depths = [int(depth) for depth in split_list(args.depths)]
    except ValueError:
        raise CommandError(
            f"--depths must be integers separated by commas, not {args.depths!r}"
        ) from None
    if not depths or min(depths) < 1:
        raise CommandError("--depths needs at least one depth, each 1 or more")
    if args.threads > 1:  # as analyse and match do: why fewer threads search than asked
        notes = {
            Searcher(game, name, evaluations[0], 0, args.exact, args.threads).threads_note
            for name in algorithms
            if name in ALGORITHMS
        }
        for note in sorted(note for note in notes if note is not None):
            print(note, file=sys.stderr)
    try:
        game_rows = bench.bench_games(
            game,
            algorithms,
            evaluations,
            depths,
            opponent=args.opponent,
            seat=args.seat,
            seed=args.seed,
            max_plies=args.max_plies,
            measure_memory=args.memory,
            progress=progress,
            hash_mb=args.hash,
            exact=args.exact,
            threads=args.threads,
        )
    except ValueError as error:
        raise CommandError(str(error)) from None
    title = f"{game.describe()}, opponent {args.opponent}" + (
        "" if args.opponent == "same" else f", playing as player {args.seat}"
    )
    if args.svg:
        with open(args.svg, "w") as file:
            file.write(bench_svg(game_rows, title))
    return [row.to_dict() for row in game_rows], f"{title}\n{bench.games_table(game_rows)}"


def _check_names(option: str, names: Sequence[str], known: Sequence[str]) -> None:
    unknown = [name for name in names if name not in known]
    if unknown:
        raise CommandError(f"{option}: unknown {', '.join(unknown)}; known: {', '.join(known)}")


def command_stdio(args: argparse.Namespace) -> None:
    resolve_backend(args.backend)  # a native core that is not built fails now, not at `position`
    stdio.main(args.backend)


def command_othello_front_end(args: argparse.Namespace) -> None:
    """`nboard` and `gtp`: ubao's Othello engine for GUIs and tools (docs/othello-engines.md)."""
    if not 1 <= args.depth <= MAX_SEARCH_DEPTH:
        raise CommandError(f"--depth must be from 1 to {MAX_SEARCH_DEPTH}")
    resolve_backend(args.backend)
    (nboard.main if args.command == "nboard" else gtp.main)(args.backend, args.depth)


def command_worker(args: argparse.Namespace) -> None:
    if not args.redis:
        raise CommandError("give --redis URL (or set UBAO_REDIS), e.g. redis://127.0.0.1:6379/0")
    if not 0 <= args.hash <= MAX_HASH_MB:
        raise CommandError(f"--hash must be from 0 to {MAX_HASH_MB} (MB)")
    try:
        import redis  # noqa: F401  (the cluster extra; the worker imports it when it starts)
    except ImportError:
        raise CommandError("needs the redis package: pip install 'ubao[cluster]'") from None
    from ubao.engine.tools import worker

    resolve_backend(args.backend)  # a native core that is not built fails now, not at the first job
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        asyncio.run(worker.serve(args.redis, args.hash, args.backend, args.review_nice))
    except worker.Stuck as exc:
        print(
            f"ubao-engine worker: {exc}; exiting so that a supervisor restarts it", file=sys.stderr
        )
        raise SystemExit(1) from None


def command_match(args: argparse.Namespace) -> None:
    check_threads(args.threads)
    game = make_game(args.game, parse_options(args.options), args.backend)
    try:
        first = parse_spec(args.engine1, args.threads)
        if first is None:
            raise CommandError(f"--engine1 {args.engine1!r}: give settings such as depth=6")
        second = parse_spec(args.engine2, args.threads) or args.engine2
        if isinstance(second, EngineSpec) and args.protocol2 is not None:
            raise ValueError("--protocol2 is the protocol of an external --engine2 command")
        for spec in (first, second):
            if isinstance(spec, EngineSpec):
                check_builtin(game, spec)
    except ValueError as error:
        raise CommandError(str(error)) from None
    progress = sys.stderr if progress_wanted(args) else None
    try:
        report = match.run_match(
            game, first, second, args.games, args.random_plies, args.seed, args.max_plies,
            progress, args.concurrency, args.out, args.backend, args.protocol2 or "ubao",
        )  # fmt: skip
    except (ValueError, OSError, tournament.TournamentStopped) as error:
        raise CommandError(str(error)) from None
    data = {"game": game.describe(), "backend": backend_of(game), **report.to_dict()}
    emit(args, data, report.summary())


def check_builtin(game: Searchable[Any, Any], spec: EngineSpec) -> None:
    """Unknown evaluations and thread counts fail now; fewer threads say why."""
    searcher = Searcher(
        game, spec.algorithm, spec.evaluation, 0, spec.exact, spec.threads, spec.selective
    )
    say_threads(searcher.threads_note)


# `ubao-engine tournament` (engine/tools/tournament.py; docs/tournaments.md) and the options
# `match`, its two-engine case, shares with it.


def command_tournament(args: argparse.Namespace) -> None:
    check_threads(args.threads)
    game = make_game(args.game, parse_options(args.options), args.backend)
    try:
        entrants = tuple(
            parse_entrant(words, args.each or (), args.threads) for words in args.engine
        )
        tournament.check_entrants(entrants)
        for entrant in entrants:
            if not entrant.external:
                check_builtin(game, entrant.spec)
        if args.openings is not None:
            with open(args.openings, encoding="utf-8") as lines:
                openings = schedule.read_openings(game, lines)
        else:
            count = schedule.openings_needed(args.rounds, args.games)
            openings = schedule.random_openings(game, args.seed, args.random_plies, count)
        plan = tournament.Plan(
            game, entrants, args.format, args.rounds, args.games, tuple(openings),
            args.max_plies, args.recover, args.clock_margin,
        )  # fmt: skip
        total = len(plan.schedule())
    except (ValueError, OSError) as error:
        raise CommandError(str(error)) from None

    def heard(result: standings.GameResult, results: Sequence[standings.GameResult]) -> None:
        if progress_wanted(args):
            names = [plan.entrants[i].name for i in result.seats]
            token = result_token(result.winner, finished=True)
            print(f"game {result.number} ({len(results)}/{total}): {names[0]} {token} "
                  f"{names[1]} ({result.reason})", file=sys.stderr)  # fmt: skip

    try:
        results = asyncio.run(
            tournament.run_tournament(plan, args.out, args.concurrency, args.backend, heard)
        )
    except (ValueError, OSError, tournament.TournamentStopped) as error:
        raise CommandError(str(error)) from None
    data = {
        "game": game.describe(),
        "backend": backend_of(game),
        **tournament_files.tables_json(plan.names, results, total),
    }
    emit(args, data, standings.crosstable(plan.names, results))


def add_tournament_arguments(parser: argparse.ArgumentParser, match: bool = False) -> None:
    """The options of a tournament that `match` takes as well."""
    parser.add_argument(
        "--concurrency", type=at_least(1), default=1, metavar="N", help="games at once (1)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="write every game's record and the crosstable there; the same command run again "
        "resumes an interrupted " + ("match" if match else "tournament"),
    )


def add_tournament_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "tournament",
        help="N engines round-robin or gauntlet from openings: crosstable, points, Elo",
    )
    parser.add_argument(
        "game", choices=sorted(GAMES), metavar="GAME", help=f"the game: {', '.join(GAMES)}"
    )
    parser.add_argument("--options", default="{}", metavar="JSON", help="game options")
    add_backend_argument(parser)
    parser.add_argument(
        "--engine",
        action="append",
        nargs="+",
        required=True,
        metavar="ITEM",
        help="one entrant (give two or more): built-in settings as match's (depth=6,eval=mobility)"
        " or an external engine (cmd=COMMAND proto=ubao|nboard|gtp option.NAME=VALUE), with "
        "name=NAME and a limit: depth=N, time=MS per move or tc=SECONDS+INCREMENT",
    )
    parser.add_argument(
        "--each", nargs="+", metavar="ITEM", help="items for every engine that does not give them"
    )
    parser.add_argument(
        "--format",
        choices=schedule.FORMATS,
        default="round-robin",
        help="every engine against every other, or the first against each other (gauntlet)",
    )
    parser.add_argument("--rounds", type=at_least(1), default=1, metavar="N", help="default 1")
    parser.add_argument(
        "--games",
        type=at_least(1),
        default=2,
        metavar="N",
        help="games of each pairing per round, in pairs from one opening (default 2)",
    )
    parser.add_argument(
        "--openings", metavar="FILE", help="one opening a line: moves from the start in notation"
    )
    parser.add_argument(
        "--random-plies",
        type=at_least(0),
        default=2,
        metavar="K",
        help="without --openings: random opening plies (2)",
    )
    parser.add_argument("--seed", type=int, default=0, help="for the random openings")
    add_threads_argument(parser)
    add_tournament_arguments(parser)
    parser.add_argument(
        "--max-plies",
        type=at_least(1),
        default=1000,
        metavar="N",
        help="a game still going after N plies is a draw (default 1000)",
    )
    parser.add_argument(
        "--recover",
        action="store_true",
        help="an engine that fails loses that game and is restarted (default: the tournament "
        "stops)",
    )
    parser.add_argument(
        "--clock-margin",
        type=at_least(0),
        default=tournament.CLOCK_MARGIN_MS,
        metavar="MS",
        help=f"how far past its clock a move may come (default {tournament.CLOCK_MARGIN_MS})",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--progress",
        choices=("auto", "always"),
        default="auto",
        help="a line per game on stderr: on a terminal only (auto) or always",
    )
    parser.set_defaults(handler=command_tournament)


Handler = Callable[[argparse.Namespace], None]


def version() -> str:
    """The version, and which backend the rules run on here unless --backend says otherwise;
    an environment asking for what cannot run says so, once."""
    try:
        where = (
            f"backend {resolve_backend()}; native core {'built' if NATIVE_BUILT else 'not built'}"
        )
    except GameError:
        asked = os.environ.get(ENVIRONMENT)
        if asked in BACKENDS:  # native, which is not built
            where = f"{ENVIRONMENT}={asked}, but the native core is not built"
        else:  # short enough for one line of argparse's wrapped output
            where = f"{ENVIRONMENT}={asked!r} is none of {', '.join(BACKENDS)}"
    return f"ubao-engine {metadata.version('ubao')} ({where})"


def build_parser() -> argparse.ArgumentParser:
    parser = CommandLineParser(
        prog="ubao-engine",
        description="The ubao engine: rules of every game, perft, and the game-tree search.",
    )
    parser.add_argument("--version", action="version", version=version())
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    moves = commands.add_parser("moves", help="print the legal moves, one per line")
    add_game_arguments(moves)
    moves.set_defaults(handler=command_moves)

    play = commands.add_parser("play", help="play moves and print the resulting position")
    add_game_arguments(play)
    play.add_argument("moves", nargs="*", metavar="MOVE", help="moves in the game's notation")
    play.set_defaults(handler=command_play)

    perft_parser = commands.add_parser("perft", help="count move sequences of N plies")
    add_game_arguments(perft_parser)
    perft_parser.add_argument(
        "--depth", type=int, required=True, metavar="N", help="plies (0 counts the position)"
    )
    perft_parser.set_defaults(handler=command_perft)

    analyse = commands.add_parser(
        "analyse", help="search a position: best move, score, principal variation, statistics"
    )
    add_game_arguments(analyse)
    analyse.add_argument("--depth", type=int, metavar="N", help="search N plies deep")
    analyse.add_argument(
        "--time-ms", type=milliseconds, metavar="MS", help="search for MS milliseconds (above 0)"
    )
    analyse.add_argument(
        "--algorithm",
        choices=ALGORITHMS,
        default=DEFAULT_ALGORITHM,
        help=f"the search algorithm (default {DEFAULT_ALGORITHM})",
    )
    analyse.add_argument("--eval", metavar="E", help="evaluation name (default: the game's first)")
    analyse.add_argument(
        "--trace", action="store_true", help="print the tree as it is searched (a teaching aid)"
    )
    analyse.add_argument("--trace-depth", type=int, default=3, metavar="PLY", help="default 3")
    analyse.add_argument("--trace-lines", type=int, default=1000, metavar="N", help="default 1000")
    analyse.add_argument(
        "--memory",
        action="store_true",
        help="measure peak memory with tracemalloc (slower; Python searches only: it does not "
        "see the native search's C memory)",
    )
    add_search_mode_arguments(analyse)
    add_probcut_argument(analyse)
    analyse.set_defaults(handler=command_analyse)

    solve = commands.add_parser(
        "solve", help="the exact value under perfect play (small games only)"
    )
    add_game_arguments(solve)
    add_hash_argument(solve, solving.SOLVER_HASH_MB, "the solver's table memory")
    add_endgame_argument(solve, auto=True)
    add_threads_argument(solve, "the native mancala solver")
    solve.add_argument(
        "--wld",
        action="store_true",
        help="who wins only (win, draw or loss) and a move that keeps it, not the margin: "
        "null-window searches around a draw, much faster",
    )
    solve.add_argument(
        "--progress",
        choices=("auto", "always"),
        default="auto",
        help="progress lines on stderr (every MTD(f) probe, and every "
        f"{PROGRESS_EVERY_S:g} s): on a terminal only (auto) or always",
    )
    solve.set_defaults(handler=command_solve)

    review = commands.add_parser(
        "review", help="review a recorded game: every move valued, marked, each side's accuracy"
    )
    review.add_argument("record", metavar="RECORD", help="a game record file (docs), - for stdin")
    review.add_argument(
        "--time-ms",
        type=at_least(1),
        default=DEFAULT_TIME_MS,
        metavar="MS",
        help=f"search time per position (default {DEFAULT_TIME_MS})",
    )
    review.add_argument(
        "--exact-within",
        type=at_least(0),
        metavar="N",
        help="prove the positions N plies or fewer from the end (Othello: N empties) "
        "(default: mancala 12, Othello 12, Bao 0)",
    )
    review.add_argument("--nodes", type=at_least(1), metavar="N", help="node limit per search")
    review.add_argument(
        "--solve-ms",
        type=at_least(0),
        metavar="MS",
        help="the native mancala solver's time a ply, pooled over the game, to prove the "
        "other positions (default: half of --time-ms; 0: none)",
    )
    review.add_argument(
        "--confirm-ms",
        type=at_least(0),
        metavar="MS",
        help="the native mancala solver's time a ply to confirm an unproved mistake or "
        "blunder, lowered when not confirmed (default: --time-ms; 0: none)",
    )
    review.add_argument("--json", action="store_true", help="machine-readable output")
    review.add_argument(
        "--progress",
        choices=("auto", "always"),
        default="auto",
        help="a line on stderr per ply reviewed: on a terminal only (auto) or always",
    )
    add_backend_argument(review)
    review.set_defaults(handler=command_review)

    bench_parser = commands.add_parser(
        "bench",
        help="AI-vs-AI games per algorithm x evaluation x depth (or --speed, --solve)",
    )
    mode = bench_parser.add_mutually_exclusive_group()
    mode.add_argument("--speed", action="store_true", help="nodes per second of every game")
    mode.add_argument("--solve", action="store_true", help="solve Kalah cells, check the table")
    bench_parser.add_argument(
        "--game",
        choices=sorted(GAMES),
        metavar="GAME",
        help=f"the game of the AI-vs-AI games: {', '.join(GAMES)} (default kalah)",
    )
    bench_parser.add_argument("--options", metavar="JSON", help="game options")
    bench_parser.add_argument(
        "--algorithms",
        metavar="LIST",
        help=f"comma-separated, from {', '.join(PLAYERS)} (default: the three algorithms; "
        "--speed: negamax)",
    )
    bench_parser.add_argument("--evals", metavar="LIST", help="default: all of the game's")
    bench_parser.add_argument("--depths", metavar="LIST", help="default 2,3,4,5")
    bench_parser.add_argument(
        "--opponent",
        metavar="SPEC",
        help="same (self-play, default), random, first or ALGORITHM:EVAL:DEPTH",
    )
    bench_parser.add_argument(
        "--seat",
        type=int,
        choices=(0, 1),
        help="against an --opponent: the player the measured engine is (default 0)",
    )
    bench_parser.add_argument("--seed", type=int, help="for random players (default 0)")
    bench_parser.add_argument(
        "--max-plies",
        type=at_least(1),
        metavar="N",
        help="end a game still going after N plies (its row says unfinished; default 1000)",
    )
    bench_parser.add_argument(
        "--memory",
        action="store_true",
        help="measure peak memory with tracemalloc (slower; Python searches only: it does not "
        "see the native search's C memory)",
    )
    add_search_mode_arguments(bench_parser)
    add_backend_argument(bench_parser)
    bench_parser.add_argument("--games", metavar="LIST", help="--speed: games (default: all)")
    bench_parser.add_argument(
        "--seconds",
        type=milliseconds,
        help="--speed: seconds per position (default 1)",
    )
    bench_parser.add_argument(
        "--backends",
        metavar="LIST",
        help="--speed: the backends set side by side, python,native (default: both when "
        "built); --backend is the one backend of the games and --solve",
    )
    bench_parser.add_argument("--cells", metavar="LIST", help="--solve: e.g. 3x6,4x4")
    add_endgame_argument(bench_parser)
    # Not given is None (BENCH_DEFAULTS fills it in), so that a mode can refuse what it ignores.
    bench_parser.set_defaults(hash=None, threads=None, db=None)
    bench_parser.add_argument(
        "--csv", type=output_file, metavar="PATH", help="also write the rows as CSV"
    )
    bench_parser.add_argument(
        "--json-file", type=output_file, metavar="PATH", help="also write the rows as JSON"
    )
    bench_parser.add_argument(
        "--svg",
        type=output_file,
        metavar="PATH",
        help="games: also draw nodes and results by depth as an SVG chart",
    )
    bench_parser.add_argument("--json", action="store_true", help="print JSON, not a table")
    bench_parser.add_argument(
        "--progress",
        choices=("auto", "always"),
        default="auto",
        help="the progress bar on stderr: on a terminal only (auto) or always",
    )
    bench_parser.set_defaults(handler=command_bench)

    match_parser = commands.add_parser(
        "match", help="two engines play N games with alternating sides: W/D/L, margin, Elo"
    )
    match_parser.add_argument(
        "game", choices=sorted(GAMES), metavar="GAME", help=f"the game: {', '.join(GAMES)}"
    )
    match_parser.add_argument("--options", default="{}", metavar="JSON", help="game options")
    add_backend_argument(match_parser)
    match_parser.add_argument(
        "--engine1",
        required=True,
        metavar="SPEC",
        help="settings: depth=N and/or time=MS, algorithm=A, eval=E, hash=MB, threads=N, exact, "
        "book=off (comma-separated)",
    )
    match_parser.add_argument(
        "--engine2",
        required=True,
        metavar="SPEC|CMD",
        help="settings as --engine1, or the command of an engine speaking the stdio protocol "
        "(it gets engine1's depth/time; under a time it must answer within the time and "
        f"{tournament.MOVE_MARGIN_SECONDS:g} s, else it is told to stop; under a depth alone the "
        "match waits as long as it searches)",
    )
    match_parser.add_argument(
        "--protocol2",
        choices=sorted(DIALECTS),
        help="the protocol an external --engine2 speaks: ubao (the stdio protocol, the default), "
        "nboard or gtp (Othello engines: docs/othello-engines.md)",
    )
    match_parser.add_argument(
        "--games", type=at_least(1), default=10, metavar="N", help="default 10"
    )
    match_parser.add_argument(
        "--random-plies",
        type=at_least(0),
        default=2,
        metavar="K",
        help="random opening plies (2); an opening that ends the game is drawn again",
    )
    match_parser.add_argument("--seed", type=int, default=0, help="for the openings")
    add_threads_argument(match_parser)
    match_parser.add_argument(
        "--max-plies",
        type=at_least(1),
        default=1000,
        metavar="N",
        help="a game still going after N plies counts as a draw (default 1000)",
    )
    match_parser.add_argument("--json", action="store_true", help="print JSON")
    match_parser.add_argument(
        "--progress",
        choices=("auto", "always"),
        default="auto",
        help="the score so far after every game, on stderr: on a terminal only (auto) or always",
    )
    add_tournament_arguments(match_parser, match=True)
    match_parser.set_defaults(handler=command_match)
    add_tournament_parser(commands)

    stdio_parser = commands.add_parser(
        "stdio", help="speak the engine line protocol on stdin/stdout (docs/engine-protocol.md)"
    )
    add_backend_argument(stdio_parser)
    stdio_parser.set_defaults(handler=command_stdio)

    for name, what in (("nboard", "NBoard (Othello GUIs)"), ("gtp", "GTP (the Go Text Protocol)")):
        front_end = commands.add_parser(name, help=f"play Othello over {what} on stdin/stdout")
        front_end.add_argument(
            "--depth",
            type=int,
            default=nboard.DEFAULT_DEPTH,
            metavar="N",
            help=f"plies to search (default {nboard.DEFAULT_DEPTH}; `set depth` changes it)",
        )
        add_backend_argument(front_end)
        front_end.set_defaults(handler=command_othello_front_end)

    worker_parser = commands.add_parser(
        "worker",
        help="think for the bot seats of a cluster: take jobs from Redis (docs/cluster.md)",
    )
    worker_parser.add_argument(
        "--redis",
        default=os.environ.get("UBAO_REDIS"),
        metavar="URL",
        help="the cluster's Redis, e.g. redis://127.0.0.1:6379/0 (default: $UBAO_REDIS)",
    )
    worker_parser.add_argument(
        "--hash",
        type=int,
        default=DEFAULT_HASH_MB,
        metavar="MB",
        help=f"the engine's transposition table in MB (default {DEFAULT_HASH_MB}; 0 to "
        f"{MAX_HASH_MB})",
    )
    worker_parser.add_argument(
        "--backend",
        choices=BACKENDS,
        help="the rules in C (native) or Python; default: $UBAO_BACKEND, else auto",
    )
    worker_parser.add_argument(
        "--review-nice",
        type=int,
        choices=range(20),
        default=19,
        metavar="N",
        help="the nice (0 to 19) of the reviews' own scheduling group (default 19: only cores "
        "no other session wants; docs/cluster.md)",
    )
    worker_parser.add_argument(
        "--log-level",
        choices=("debug", "info", "warning", "error"),
        default="info",
        help="the least important log lines shown, on stderr (default info)",
    )
    worker_parser.set_defaults(handler=command_worker)

    kgp_parser = commands.add_parser(
        "kgp", help="play Kalah on a KGP server as an agent (docs/kgp.md)"
    )
    kgp_parser.add_argument(
        "--server",
        required=True,
        help="HOST:PORT (TCP, port 2671 if left out), ws://... or wss://...",
    )
    kgp_parser.add_argument("--depth", type=at_least(1), help="search to this depth (plies)")
    kgp_parser.add_argument(
        "--time-ms",
        type=at_least(1),
        help="think this long a move (default: from the server's time:clock)",
    )
    kgp_parser.add_argument("--token", help="auth:token: the same agent across connections")
    kgp_parser.add_argument("--name", default="ubao-engine", help="info:name (default ubao-engine)")
    kgp_parser.add_argument("--authors", help="info:authors")
    kgp_parser.add_argument("--description", help="info:description")
    kgp_parser.add_argument("--games", type=at_least(1), help="leave after this many games")
    kgp_parser.add_argument(
        "--tournament",
        metavar="ID",
        help="on a ubao server: enter this tournament (under --name's account, --token its "
        "key) and play its games",
    )
    add_backend_argument(kgp_parser)
    kgp_parser.set_defaults(handler=command_kgp)
    return parser


def command_kgp(args: argparse.Namespace) -> None:
    from ubao.engine.tools import kgp_agent

    resolve_backend(args.backend)
    if args.backend:
        os.environ[ENVIRONMENT] = args.backend  # the in-process engine's default backend
    try:
        server = kgp_agent.parse_server(args.server)
    except ValueError as error:
        raise CommandError(str(error)) from None
    infos = {"name": args.name, "authors": args.authors, "description": args.description}
    settings = kgp_agent.AgentSettings(
        args.depth,
        args.time_ms,
        {key: value for key, value in infos.items() if value},
        args.token,
        args.games,
        args.tournament,
    )
    logging.basicConfig(level="INFO", format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        answered = asyncio.run(kgp_agent.run_agent(server, settings))
    except OSError as error:
        raise CommandError(f"cannot reach {args.server}: {error}") from None
    print(f"answered {answered} states")


def main(argv: Sequence[str] | None = None) -> None:
    """Run one command; Ctrl-C and a reader gone away (`| head`) end it without a traceback."""
    try:
        run(argv)
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except BrokenPipeError:
        # Nowhere to write any more: point stdout at nothing so the exit's flush is quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(1) from None


NO_NATIVE_CORE = (
    "ubao-engine: the native core is not built (no C compiler at install time); "
    "the pure-Python engine runs, tens of times slower (ubao-engine bench --speed measures it)"
)
"""Said on stderr by every command that searches or plays on the default backend without it."""


def run(argv: Sequence[str] | None) -> None:
    parser = build_parser()
    words = sys.argv[1:] if argv is None else argv
    args, extra = parser.parse_known_args(options_after_command(parser, words))
    if args.command == "play" and not any(word.startswith("-") for word in extra):
        args.moves += extra  # moves may follow the options: play GAME --options JSON 3 5
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    handler: Handler = args.handler
    try:
        if "backend" in args and not NATIVE_BUILT and chosen(args.backend) == "auto":
            print(NO_NATIVE_CORE, file=sys.stderr)  # pip hides the build's own line
        handler(args)
    except (CommandError, GameError) as error:
        print(f"ubao-engine {args.command}: {error}", file=sys.stderr)
        if getattr(args, "json", False):
            print(json.dumps({"error": str(error), "kind": type(error).__name__}))
        raise SystemExit(2) from None
