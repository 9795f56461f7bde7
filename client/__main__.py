"""`ubao`: play, watch and list games on a ubao server; run a bot; export and replay records.

The command line's grammar (`build_parser`) and how a run ends (`run`: the exit status, and
what went wrong in one line); what each command does is `commands.py`'s."""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import os
import sys
from collections.abc import Sequence
from importlib import metadata
from typing import Any, get_args

from websockets.exceptions import InvalidHandshake, InvalidURI

from ubao.client.board import STEP_SECONDS
from ubao.client.commands import (
    UsageError,
    command_account,
    command_bot,
    command_export,
    command_games,
    command_lobby,
    command_play,
    command_player,
    command_ratings,
    command_replay,
    command_tournament,
    command_watch,
    default_name,
    server_urls,
)
from ubao.client.connection import (
    DEFAULT_BUDGET,
    DEFAULT_SERVER,
    ServerError,
    SessionClosed,
)
from ubao.engine.games import GAMES, make_game
from ubao.engine.search import ALGORITHMS
from ubao.engine.tools.argv import CommandLineParser, options_after_command
from ubao.protocol import (
    DEFAULT_PAGE,
    MAX_PACE_MS,
    SPEED_NAMES,
    LobbyFilter,
    ProtocolError,
    SeatSpec,
)
from ubao.protocol.messages import MAX_BOT_DEPTH, MAX_NAME

TOP_OPTIONS = ("-h", "--help", "--version")
"""The options of `ubao` itself; any other first word that is an option is the lobby's."""
PACE_SECONDS = 1.0
"""`watch --new`: the default least time between two bot moves, about what a viewer follows."""


# -- the parser --------------------------------------------------------------------------------


KEY_FILE_HELP = (
    "a file holding the key of the name's account (default: the key kept for the name and "
    "server by ubao account, if any; without one you play as a guest)"
)


def _add_connection(
    parser: argparse.ArgumentParser, name: bool = True, key_help: str = KEY_FILE_HELP
) -> None:
    parser.add_argument(
        "--server",
        type=server_urls,
        default=os.environ.get("UBAO_SERVER", DEFAULT_SERVER),
        metavar="URL[,URL...]",
        help="the server's WebSocket URL (HOST:PORT means ws://HOST:PORT/), or a cluster's "
        "nodes separated by commas: the first that answers is used, the next when a connection "
        "drops "
        f"(default: $UBAO_SERVER or {DEFAULT_SERVER})",
    )
    if name:
        parser.add_argument(
            "--name",
            type=_player_name,
            default=default_name(),
            help="your name as others see it (default: login name)",
        )
    parser.add_argument("--key-file", metavar="PATH", help=key_help)


def _add_new_game(
    parser: argparse.ArgumentParser, bots: bool, pace: float | None = None, pace_help: str = ""
) -> None:
    """The options of a game to create (`--new`): `bots` adds the other seat's bot, `pace`
    is `--pace`'s default."""
    parser.add_argument(
        "--pace",
        type=_pace,
        default=pace,
        metavar="SECONDS",
        help="with --new: the least time between two moves of server bots, so that the game "
        f"can be followed{pace_help} (default "
        + ("none" if pace is None else f"{pace:g}")
        + "; 0: as fast as they play)",
    )
    parser.add_argument(
        "--options",
        default="{}",
        metavar="JSON",
        help='with --new: the game\'s options as JSON, e.g. \'{"pits": 4, "seeds": 3}\'',
    )
    parser.add_argument(
        "--clock", metavar="INITIAL+INC", help="with --new: a Fischer clock in seconds, e.g. 300+5"
    )
    parser.add_argument(
        "--rated",
        action="store_true",
        help="with --new: a rated game, between two accounts only (docs/ratings.md)",
    )
    if bots:
        opponent = parser.add_mutually_exclusive_group()
        opponent.add_argument(
            "--vs-bot",
            type=_server_bot,
            metavar="[ENGINE:]DEPTH",
            help="with --new: the other seat is a server-hosted bot searching DEPTH plies: "
            "ubao's engine, or ENGINE, one of the server's engine bots",
        )
        opponent.add_argument(
            "--vs-external-bot",
            help="with --new: the other seat waits for a bot client (ubao bot --serve), "
            "wished to search DEPTH plies if given",
            **_external_bot_options(),
        )


def _external_bot_options() -> dict[str, Any]:
    """`--vs-external-bot [DEPTH]`: a seat spec that asks for a bot client, with or without a
    wished depth."""
    return {
        "nargs": "?",
        "type": _external_bot,
        "const": SeatSpec.external_bot(),
        "metavar": "DEPTH",
    }


def _add_speed(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--speed",
        type=_number,
        default=STEP_SECONDS,
        metavar="SECONDS",
        help="pause between holes of the sowing animation; 0 turns it off "
        "(Ctrl-F/Ctrl-B change it while playing)",
    )
    parser.add_argument(
        "--bell",
        action="store_true",
        help="ring the terminal's bell when the opponent moves while you are not looking "
        "(the terminal has not the focus, or no key was pressed for 30 s)",
    )


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number, 1 or more")
    return value


def _number(text: str) -> float:
    """A finite number, else a usage error that says so (not argparse's "invalid float")."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number")
    return value


def _positive_float(text: str) -> float:
    value = _number(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return value


def _bot_depth(text: str) -> int:
    """A server bot's depth (or a bot client's wished one), within what the protocol carries;
    the server's own limit, often lower, is the server's to say ("this server's bots search at
    most 20 plies deep")."""
    depth = _positive(text)
    if depth > MAX_BOT_DEPTH:
        raise argparse.ArgumentTypeError(
            f"{text}: at most {MAX_BOT_DEPTH} plies (the protocol's limit; a server may allow "
            "fewer, and says so)"
        )
    return depth


def _server_bot(text: str) -> SeatSpec:
    """`DEPTH` (ubao's engine) or `ENGINE:DEPTH` (one of the server's engine bots)."""
    engine, _, depth = text.rpartition(":")
    return SeatSpec.bot(_bot_depth(depth), engine=engine or None)


def _external_bot(text: str) -> SeatSpec:
    return SeatSpec.external_bot(_bot_depth(text))


def _player_name(text: str) -> str:
    """A name as the server takes it: 1 to MAX_NAME characters, no space at either end."""
    if not text.strip() or text != text.strip() or len(text) > MAX_NAME:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a name: give 1 to {MAX_NAME} characters, no space at either end"
        )
    return text


def _pace(text: str) -> float:
    value = _number(text)
    if not 0 <= value <= MAX_PACE_MS / 1000:
        raise argparse.ArgumentTypeError(f"{text}: give 0 to {MAX_PACE_MS // 1000} seconds")
    return value


def _seat(text: str) -> int:
    if text not in ("0", "1"):
        raise argparse.ArgumentTypeError("a seat is 0 (South/Black, moves first) or 1")
    return int(text)


def catalogue() -> str:
    """What `--help` lists besides the options: the games of the registry with their
    evaluations, and the search algorithms."""
    lines = ["games (--new GAME) and their evaluations (--eval E, the first by default):"]
    lines += [f"  {name}: {', '.join(make_game(name).evaluations)}" for name in GAMES]
    lines.append(f"search algorithms (--algorithm A): {', '.join(ALGORITHMS)}")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = CommandLineParser(
        prog="ubao",
        description="Play and watch Bao, the mancala family and Othello on a ubao server.",
        epilog=catalogue(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"ubao {metadata.version('ubao')}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    lobby = commands.add_parser(
        "lobby",
        help="the server's games, live, to join, watch or create (what ubao alone opens)",
        description="The interactive lobby: open, live and finished games, kept current; "
        "arrows and Enter join an open game or watch the others, n creates one, q quits. "
        "Leaving a game brings you back here. `ubao` with no command (or with only these "
        "options) opens it too.",
    )
    _add_connection(lobby)
    _add_speed(lobby)
    lobby.set_defaults(handler=command_lobby)

    games = commands.add_parser(
        "games",
        help="list the server's games",
        description="List the server's games, open ones first, then live, then finished "
        f"(the first {DEFAULT_PAGE} unless told otherwise; a last line says when more follow).",
    )
    _add_connection(games)
    games.add_argument(
        "--filter",
        choices=get_args(LobbyFilter),
        help="only games waiting for a player (open), being played (live), or over (finished)",
    )
    games.add_argument("--player", metavar="NAME", help="only games with a seat of this name")
    count = games.add_mutually_exclusive_group()
    count.add_argument(
        "--limit",
        type=_positive,
        default=DEFAULT_PAGE,
        metavar="N",
        help="at most N games (default %(default)s)",
    )
    count.add_argument("--all", action="store_true", help="every game, however many")
    games.add_argument(
        "--cursor",
        help="the games after those of an earlier listing (the command its last line gives)",
    )
    games.set_defaults(handler=command_games)

    play = commands.add_parser(
        "play",
        help="create or join a game and play it",
        description="Join a game (--join) or create one (--new) and play it full-screen.",
    )
    _add_connection(play)
    target = play.add_mutually_exclusive_group(required=True)
    target.add_argument("--join", metavar="GAME_ID", help="join (or return to) this game")
    target.add_argument("--new", metavar="GAME", help=f"create a game: {', '.join(GAMES)}")
    play.add_argument(
        "--seat",
        type=_seat,
        metavar="N",
        help="the seat to take: 0 moves first (default: any open seat with --join, 0 with --new)",
    )
    _add_new_game(play, bots=True)
    _add_speed(play)
    play.set_defaults(handler=command_play)

    watch = commands.add_parser(
        "watch",
        help="watch a game, or start a bot-vs-bot game and watch it",
        description="Watch GAME_ID, or create a game between two bots and watch it: "
        "ubao watch --new kalah --bot 2 --bot 6 (server bots), or --bot 2 --vs-external-bot "
        "(a server bot against a bot client that serves, ubao bot --serve)",
    )
    _add_connection(watch)
    watch.add_argument("game_id", nargs="?", metavar="GAME_ID")
    watch.add_argument("--new", metavar="GAME", help="create a game between two bots")
    watch.add_argument(
        "--bot",
        type=_server_bot,
        action="append",
        dest="seats",
        metavar="[ENGINE:]DEPTH",
        help="a seat for a server bot searching DEPTH plies (ubao's engine, or ENGINE, one of "
        "the server's engine bots); two seats in all, South's first",
    )
    watch.add_argument(
        "--vs-external-bot",
        action="append",
        dest="seats",
        help="a seat for a bot client (ubao bot --serve), wished to search DEPTH plies if given",
        **_external_bot_options(),
    )
    _add_new_game(watch, bots=False, pace=PACE_SECONDS)
    _add_speed(watch)
    watch.set_defaults(handler=command_watch)

    bot = commands.add_parser(
        "bot",
        help="play with the local engine as a bot client",
        description="A bot that plays over the network with the local engine. --serve waits "
        "in the lobby and joins the seats that ask for a bot client (--vs-external-bot).",
        epilog=catalogue(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_connection(bot)
    bot.add_argument(
        "--depth", type=_positive, required=True, metavar="N", help="search depth in plies"
    )
    bot.add_argument(
        "--time-ms",
        type=_positive,
        metavar="MS",
        help="at most this long per move (also capped by the game clock)",
    )
    bot.add_argument(
        "--eval",
        metavar="E",
        help="the game's static evaluation by name (default: the game's first)",
    )
    bot.add_argument("--algorithm", choices=ALGORITHMS, default="negamax")
    bot.add_argument(
        "--threads",
        type=_positive,
        default=1,
        metavar="N",
        help="search threads (native negamax: ABDADA; default 1)",
    )
    mode = bot.add_mutually_exclusive_group(required=True)
    mode.add_argument("--join", metavar="GAME_ID", help="play in this game")
    mode.add_argument("--new", metavar="GAME", help="create a game and play in it")
    mode.add_argument(
        "--tournament",
        metavar="ID",
        help="enter this server tournament under your account and play its games to its end",
    )
    mode.add_argument(
        "--serve",
        action="store_true",
        help="wait in the lobby and join the seats that ask for a bot client "
        "(their wished depth is honoured up to --depth)",
    )
    bot.add_argument("--seat", type=_seat, metavar="N", help="the seat to take (0 moves first)")
    bot.add_argument(
        "--max-games",
        type=_positive,
        default=1,
        metavar="N",
        help="with --serve: games played at the same time (default 1)",
    )
    bot.add_argument(
        "--message-burst",
        type=_positive,
        default=DEFAULT_BUDGET.burst,
        metavar="N",
        help="commands sent at once at most (default %(default)s: half a default server's "
        "--message-burst); lower it for a server with a smaller budget",
    )
    bot.add_argument(
        "--message-rate",
        type=_positive_float,
        default=DEFAULT_BUDGET.per_second,
        metavar="PER_SECOND",
        help="commands per second after the burst (default %(default)g: three quarters of a "
        "default server's --message-rate)",
    )
    _add_new_game(bot, bots=True, pace_help="; this bot keeps the same pace")
    bot.set_defaults(handler=command_bot)

    accounts = commands.add_parser(
        "account",
        help="claim a name with a key, rotate the key, show your accounts",
        description="Claim a name on a server: from then on only its key plays under it (the "
        "key is kept per server and name, 0600, and used by play, watch and bot). Names "
        "without a key play as guests, and can never take a claimed one.",
    )
    actions = accounts.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = actions.add_parser("create", help="claim NAME; the server makes its key")
    create.add_argument("--bot", action="store_true", help="an account for a bot (shown as one)")
    rotate = actions.add_parser("rotate", help="replace NAME's key with a new one")
    rotate.add_argument("--bot", action="store_true", help=argparse.SUPPRESS)
    for action in (create, rotate):
        action.add_argument("account", metavar="NAME")
    show = actions.add_parser("show", help="the accounts kept for the server, checked with it")
    show.add_argument("account", metavar="NAME", nargs="?")
    for action in (create, rotate, show):
        _add_connection(
            action,
            name=False,
            key_help="create, rotate: also write the new key in this file (0600); "
            "rotate: the current key is in this file if it exists (else the one kept)",
        )
    show.add_argument("--json", action="store_true", help="as JSON")
    show.add_argument("--offline", action="store_true", help="do not ask the server")
    accounts.set_defaults(handler=command_account)

    export = commands.add_parser("export", help="write a game's record (PGN-like)")
    _add_connection(export)
    export.add_argument("game_id", metavar="GAME_ID")
    export.add_argument("-o", "--output", metavar="FILE", help="write here (default: stdout)")
    export.add_argument(
        "--analyse",
        action="store_true",
        help="with the server's analysis: each move's mark (?!, ?, ??), asked for and waited "
        "for if the server has not made it yet",
    )
    export.set_defaults(handler=command_export)

    ratings = commands.add_parser(
        "ratings",
        help="a game's leaderboard",
        description="The best rated accounts of a game, in each of its pools (docs/ratings.md).",
    )
    _add_connection(ratings)
    ratings.add_argument("game", metavar="GAME", choices=GAMES, help=", ".join(GAMES))
    ratings.add_argument("--speed", choices=SPEED_NAMES, help="only this speed's pool")
    ratings.add_argument(
        "--limit",
        type=_positive,
        default=20,
        metavar="N",
        help="per pool (default %(default)s, at most 100)",
    )
    ratings.add_argument("--json", action="store_true", help="as JSON, for scripts")
    ratings.set_defaults(handler=command_ratings)

    player = commands.add_parser(
        "player",
        help="an account's ratings and latest rated games",
        description="An account's rating in each pool, its wins, draws and losses there, and "
        "its latest rated games.",
    )
    _add_connection(player)
    player.add_argument("player", metavar="NAME")
    player.add_argument(
        "--limit",
        type=_positive,
        default=10,
        metavar="N",
        help="latest games (default 10, at most 100)",
    )
    player.add_argument("--json", action="store_true", help="as JSON, for scripts")
    player.set_defaults(handler=command_player)

    tourney = commands.add_parser(
        "tournament",
        help="server tournaments: make, enter, start, show, watch",
        description="Tournaments the server runs: round-robin, Swiss or arena, of accounts, bot "
        "clients and server bots (docs/tournaments-server.md).",
    )
    actions = tourney.add_subparsers(dest="action", required=True, metavar="ACTION")
    new = actions.add_parser("new", help="make a tournament; prints its id")
    new.add_argument("title", metavar="NAME")
    new.add_argument("--game", choices=GAMES, default="kalah")
    new.add_argument("--options", default="{}", metavar="JSON", help="the game's options")
    new.add_argument("--format", choices=("round_robin", "swiss", "arena"), default="round_robin")
    new.add_argument("--double", action="store_true", help="round-robin: every pair twice")
    new.add_argument("--rounds", type=_positive, default=0, help="Swiss: rounds (default: enough)")
    new.add_argument("--minutes", type=_positive, default=0, help="arena: how long it pairs")
    new.add_argument("--scoring", choices=("standard", "kgp"), default="standard",
                     help="standard: 1 a win, ½ a draw; kgp: 2 a win, 1 a draw")  # fmt: skip
    new.add_argument("--rated", action="store_true", help="its games between accounts rated")
    new.add_argument("--concurrency", type=_positive, default=4, help="games at once at most")
    new.add_argument("--pace", type=_pace, default=0.0, help="least seconds between bot moves")
    new.add_argument("--start", action="store_true", help="start it at once")
    join = actions.add_parser("join", help="enter: you, or server bots")
    for entering in (new, join):
        entering.add_argument("--bot", type=_server_bot, action="append", metavar="DEPTH",
                            help="enter a server bot at this depth (again for more)")  # fmt: skip
    join.add_argument("tournament_id", metavar="ID")
    start = actions.add_parser("start", help="start it (its maker only)")
    start.add_argument("tournament_id", metavar="ID")
    listing = actions.add_parser("list", help="the latest tournaments, the latest first")
    listing.add_argument("--limit", type=_positive, default=20, metavar="N")
    listing.add_argument("--json", action="store_true", help="as JSON, for scripts")
    for verb, what in (("show", "its standings and crosstable"), ("watch", "the same, live")):
        shown = actions.add_parser(verb, help=what)
        shown.add_argument("tournament_id", metavar="ID")
        shown.add_argument("--json", action="store_true", help="as JSON, for scripts")
    for each in actions.choices.values():
        _add_connection(each)
    tourney.set_defaults(handler=command_tournament)

    replay = commands.add_parser("replay", help="step through a game record")
    replay.add_argument("file", metavar="FILE")
    _add_connection(replay)  # `a` asks this server for the analysis of the record's GameId
    replay.set_defaults(handler=command_replay)
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    try:
        status = run(argv)
    except KeyboardInterrupt:
        status = 130
    except BrokenPipeError:
        # The reader went away (`ubao games | head -1`): nothing more to say, and nowhere to
        # say it; point stdout at nothing so that the exit's flush does not complain.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 1
    raise SystemExit(status)


def with_command(argv: Sequence[str], parser: argparse.ArgumentParser | None = None) -> list[str]:
    """The command line with its command first: options written before it go after it
    (`ubao --server URL games`), and `lobby` goes before a line that names no command: `ubao`
    alone, or with the lobby's options only (`ubao --server URL --name NAME`), opens the
    lobby."""
    words = options_after_command(parser or build_parser(), argv)
    if not words or (words[0].startswith("-") and words[0] not in TOP_OPTIONS):
        return ["lobby", *words]
    return words


def run(argv: Sequence[str] | None) -> int:
    """The command's exit status; what went wrong is said on standard error, as one line."""
    parser = build_parser()
    words = with_command(sys.argv[1:] if argv is None else argv, parser)
    args = parser.parse_args(words)
    logging.basicConfig(
        level=logging.INFO if args.command == "bot" else logging.WARNING,
        format="%(asctime)s %(message)s",
        datefmt="%H:%M:%S",
    )
    try:
        status: int = asyncio.run(args.handler(args))
    except UsageError as error:
        print(f"ubao {args.command}: {error}", file=sys.stderr)
        return 2
    except ServerError as error:
        print(f"ubao {args.command}: the server refused: {error}", file=sys.stderr)
        return 1
    except SessionClosed as error:
        print(f"ubao {args.command}: {error}", file=sys.stderr)
        return 1
    except ProtocolError as error:
        print(
            f"ubao {args.command}: the server sent what the protocol forbids: {error}",
            file=sys.stderr,
        )
        return 1
    except BrokenPipeError:
        raise
    except (OSError, InvalidHandshake, InvalidURI) as error:
        print(
            f"ubao {args.command}: cannot reach {getattr(args, 'server', '')}: {error}",
            file=sys.stderr,
        )
        return 1
    return status


if __name__ == "__main__":
    main()
