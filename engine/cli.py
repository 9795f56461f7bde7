"""`ubao-engine`: the engine's command line (rules queries, perft, and the search tools)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from engine.game import Game, GameError, Outcome
from engine.games import GAMES, make_game
from engine.perft import perft

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


def game_and_position(args: argparse.Namespace) -> tuple[Game[Any, Any], Any]:
    """The game and the starting position the user asked for."""
    try:
        options = json.loads(args.options)
    except json.JSONDecodeError as error:
        raise CommandError(f"--options is not valid JSON: {error}") from None
    if not isinstance(options, dict):
        raise CommandError("--options must be a JSON object, e.g. '{\"pits\": 6}'")
    game = make_game(args.game, options)
    if args.position is not None:
        return game, game.parse_position(args.position)
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
            raise CommandError(f"move {number} ({text!r}): {error}") from None
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
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    handler: Handler = args.handler
    try:
        handler(args)
    except (CommandError, GameError) as error:
        print(f"ubao-engine {args.command}: {error}", file=sys.stderr)
        raise SystemExit(2) from None
