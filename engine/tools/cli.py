"""`ubao-engine`: the engine's command line (rules queries, perft, and the search tools)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from ubao.engine.game import Game, GameError, Outcome
from ubao.engine.games import GAMES, game_for_position, make_game
from ubao.engine.perft import perft
from ubao.engine.search import (
    ALGORITHMS,
    DEFAULT_ALGORITHM,
    Searcher,
    SearchResult,
    Tracer,
    format_score,
)
from ubao.engine.solve import Solver
from ubao.engine.tools import bench, stdio
from ubao.engine.tools.chart import bench_svg
from ubao.engine.tools.players import PLAYERS

PLAYER_NAMES = ("player 0", "player 1")


class CommandError(Exception):
    """A user error on the command line: printed to stderr, exit status 2."""


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments every per-game command shares: the game, its options and a position."""
    parser.add_argument("game", choices=sorted(GAMES), metavar="GAME", help="the game's name")
    parser.add_argument(
        "--options", default="{}", metavar="JSON", help="game options, e.g. '{\"pits\": 6}'"
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--position", metavar="POS", help="a position in the game's notation")
    where.add_argument("--position-json", metavar="JSON", help="a position in the game's JSON form")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def parse_options(text: str) -> dict[str, Any]:
    """The `--options` JSON object."""
    try:
        options = json.loads(text)
    except json.JSONDecodeError as error:
        raise CommandError(f"--options is not valid JSON: {error}") from None
    if not isinstance(options, dict):
        raise CommandError("--options must be a JSON object, e.g. '{\"pits\": 6}'")
    return options


def game_and_position(args: argparse.Namespace) -> tuple[Game[Any, Any], Any]:
    """The game and the starting position the user asked for."""
    options = parse_options(args.options)
    if args.position is not None:
        return game_for_position(args.game, options, args.position)
    game = make_game(args.game, options)
    if args.position_json is not None:
        try:
            data = json.loads(args.position_json)
        except json.JSONDecodeError as error:
            raise CommandError(f"--position-json is not valid JSON: {error}") from None
        return game, game.parse_position_json(data)
    return game, game.start()


def describe_outcome(outcome: Outcome) -> str:
    """A one-line human summary of a result."""
    score = f"{outcome.score[0]}-{outcome.score[1]}"
    if outcome.winner is None:
        return f"draw {score} ({outcome.reason})"
    return f"{PLAYER_NAMES[outcome.winner]} wins {score} ({outcome.reason})"


def position_report(game: Game[Any, Any], position: Any) -> dict[str, Any]:
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
    if args.depth < 0:
        raise CommandError("--depth must be 0 or more")
    game, position = game_and_position(args)
    nodes = perft(game, position, args.depth)
    emit(args, {"depth": args.depth, "nodes": nodes, **position_report(game, position)}, str(nodes))


def format_line(game: Game[Any, Any], position: Any, moves: Sequence[Any]) -> list[str]:
    """Moves played one after another from `position`, in the game's notation."""
    texts = []
    for move in moves:
        texts.append(game.format_move(position, move))
        position = game.play(position, move)
    return texts


def command_analyse(args: argparse.Namespace) -> None:
    if args.depth is None and args.time_ms is None:
        raise CommandError("give --depth N, --time-ms MS or both")
    if args.depth is not None and args.depth < 1:
        raise CommandError("--depth must be 1 or more")
    game, position = game_and_position(args)
    try:
        searcher = Searcher(game, args.algorithm, args.eval)
    except ValueError as error:
        raise CommandError(str(error)) from None
    # Trace lines go to stderr under --json, so that stdout stays one JSON document.
    out = sys.stderr if args.json else sys.stdout
    tracer = None
    if args.trace:
        tracer = Tracer(lambda line: print(line, file=out), args.trace_depth, args.trace_lines)

    def report(result: SearchResult[Any]) -> None:
        if not args.json:
            pv = " ".join(format_line(game, position, result.pv))
            print(
                f"depth {result.stats.depth:>2}  score {format_score(result.score):>10}  "
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
    pv = format_line(game, position, result.pv)
    data = {
        "algorithm": searcher.algorithm,
        "evaluation": searcher.evaluation_name,
        "move": pv[0] if pv else None,
        "score": result.score,
        "score_text": format_score(result.score),
        "mate": result.mate,
        "pv": pv,
        "stopped": result.stopped,
        "stats": stats.to_dict(),
        **position_report(game, position),
    }
    memory = "not measured (--memory)" if stats.peak_memory is None else f"{stats.peak_memory} B"
    lines = [
        f"best move: {data['move'] or 'none, the game is over'}",
        f"score: {data['score_text']} for player {game.to_move(position)}, the side to move "
        f"({searcher.algorithm}, {searcher.evaluation_name})",
        f"pv: {' '.join(pv)}",
        f"depth {stats.depth}{' (stopped by the time limit)' if result.stopped else ''}, "
        f"{stats.seconds:.3f} s, {round(stats.nps)} nodes/s",
        f"nodes: {stats.generated} generated, {stats.expanded} expanded, "
        f"{stats.evaluated} evaluated; {stats.cutoffs} cut-offs, {stats.table_hits} table hits",
        f"memory: {stats.table_entries} table entries, peak {memory}",
    ]
    emit(args, data, "\n".join(lines))


def command_solve(args: argparse.Namespace) -> None:
    game, position = game_and_position(args)
    try:
        solution = Solver(game).solve(position)
    except ValueError as error:
        raise CommandError(str(error)) from None
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
        f"{solution.table_entries} table entries, {solution.seconds:.2f} s",
    ]
    emit(args, data, "\n".join(lines))


def split_list(text: str) -> list[str]:
    return [item for item in text.split(",") if item]


def parse_cells(text: str) -> list[tuple[int, int]]:
    """`3x6,4x4` as [(3, 6), (4, 4)]."""
    cells = []
    for item in split_list(text):
        pits, _, seeds = item.partition("x")
        if not (pits.isdigit() and seeds.isdigit()):
            raise CommandError(f"--cells: {item!r} is not PITSxSEEDS, e.g. 3x6")
        cells.append((int(pits), int(seeds)))
    return cells


def command_bench(args: argparse.Namespace) -> None:
    progress = sys.stderr if args.progress == "always" or sys.stderr.isatty() else None
    header: str
    if args.svg and (args.speed or args.solve):
        raise CommandError("--svg draws the games bench; it has no chart for --speed or --solve")
    if args.speed:
        names = split_list(args.games) if args.games else list(GAMES)
        unknown = [name for name in names if name not in GAMES]
        if unknown:
            raise CommandError(f"unknown game(s) {', '.join(unknown)}; known: {', '.join(GAMES)}")
        algorithms = split_list(args.algorithms) if args.algorithms else ["negamax"]
        _check_names("--algorithms", algorithms, ALGORITHMS)
        speed_rows = bench.bench_speed(names, algorithms, args.seconds, progress)
        rows = [row.to_dict() for row in speed_rows]
        header = bench.speed_table(speed_rows)
    elif args.solve:
        cells = parse_cells(args.cells) if args.cells else list(bench.DEFAULT_SOLVE_CELLS)
        solve_rows = bench.bench_solve(cells, progress)
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


def _bench_games(
    args: argparse.Namespace, progress: TextIO | None
) -> tuple[list[dict[str, Any]], str]:
    game = make_game(args.game, parse_options(args.options))
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
    stdio.main()


Handler = Callable[[argparse.Namespace], None]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ubao-engine",
        description="The ubao engine: rules of every game, perft, and the game-tree search.",
    )
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
    perft_parser.add_argument("--depth", type=int, required=True, metavar="N")
    perft_parser.set_defaults(handler=command_perft)

    analyse = commands.add_parser(
        "analyse", help="search a position: best move, score, principal variation, statistics"
    )
    add_game_arguments(analyse)
    analyse.add_argument("--depth", type=int, metavar="N", help="search N plies deep")
    analyse.add_argument("--time-ms", type=float, metavar="MS", help="search for MS milliseconds")
    analyse.add_argument("--algorithm", choices=ALGORITHMS, default=DEFAULT_ALGORITHM)
    analyse.add_argument("--eval", metavar="E", help="evaluation name (default: the game's first)")
    analyse.add_argument(
        "--trace", action="store_true", help="print the tree as it is searched (a teaching aid)"
    )
    analyse.add_argument("--trace-depth", type=int, default=3, metavar="PLY", help="default 3")
    analyse.add_argument("--trace-lines", type=int, default=1000, metavar="N", help="default 1000")
    analyse.add_argument(
        "--memory", action="store_true", help="measure peak memory with tracemalloc (slower)"
    )
    analyse.set_defaults(handler=command_analyse)

    solve = commands.add_parser(
        "solve", help="the exact value under perfect play (small games only)"
    )
    add_game_arguments(solve)
    solve.set_defaults(handler=command_solve)

    bench_parser = commands.add_parser(
        "bench",
        help="AI-vs-AI games per algorithm x evaluation x depth (or --speed, --solve)",
    )
    mode = bench_parser.add_mutually_exclusive_group()
    mode.add_argument("--speed", action="store_true", help="nodes per second of every game")
    mode.add_argument("--solve", action="store_true", help="solve Kalah cells, check the table")
    bench_parser.add_argument("--game", choices=sorted(GAMES), default="kalah", metavar="GAME")
    bench_parser.add_argument("--options", default="{}", metavar="JSON", help="game options")
    bench_parser.add_argument(
        "--algorithms",
        metavar="LIST",
        help=f"comma-separated, from {', '.join(PLAYERS)} (default: the three algorithms)",
    )
    bench_parser.add_argument("--evals", metavar="LIST", help="default: all of the game's")
    bench_parser.add_argument("--depths", default="2,3,4,5", metavar="LIST", help="default 2,3,4,5")
    bench_parser.add_argument(
        "--opponent",
        default="same",
        metavar="SPEC",
        help="same (self-play, default), random, first or ALGORITHM:EVAL:DEPTH",
    )
    bench_parser.add_argument("--seat", type=int, choices=(0, 1), default=0)
    bench_parser.add_argument("--seed", type=int, default=0, help="for random players")
    bench_parser.add_argument("--max-plies", type=int, default=1000, metavar="N")
    bench_parser.add_argument(
        "--memory", action="store_true", help="measure peak memory with tracemalloc (slower)"
    )
    bench_parser.add_argument("--games", metavar="LIST", help="--speed: games (default: all)")
    bench_parser.add_argument(
        "--seconds", type=float, default=1.0, help="--speed: seconds per position (default 1)"
    )
    bench_parser.add_argument("--cells", metavar="LIST", help="--solve: e.g. 3x6,4x4")
    bench_parser.add_argument("--csv", metavar="PATH", help="also write the rows as CSV")
    bench_parser.add_argument("--json-file", metavar="PATH", help="also write the rows as JSON")
    bench_parser.add_argument(
        "--svg", metavar="PATH", help="games: also draw nodes and results by depth as an SVG chart"
    )
    bench_parser.add_argument("--json", action="store_true", help="print JSON, not a table")
    bench_parser.add_argument(
        "--progress",
        choices=("auto", "always"),
        default="auto",
        help="the progress bar on stderr: on a terminal only (auto) or always",
    )
    bench_parser.set_defaults(handler=command_bench)

    stdio_parser = commands.add_parser(
        "stdio", help="speak the engine line protocol on stdin/stdout (docs/engine-protocol.md)"
    )
    stdio_parser.set_defaults(handler=command_stdio)
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command == "play" and not any(word.startswith("-") for word in extra):
        args.moves += extra  # moves may follow the options: play GAME --options JSON 3 5
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    handler: Handler = args.handler
    try:
        handler(args)
    except (CommandError, GameError) as error:
        print(f"ubao-engine {args.command}: {error}", file=sys.stderr)
        if getattr(args, "json", False):
            print(json.dumps({"error": str(error), "kind": type(error).__name__}))
        raise SystemExit(2) from None
