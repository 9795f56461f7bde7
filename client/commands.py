"""What each `ubao` command does with its parsed command line (`__main__` parses it): play,
watch and list games on a ubao server, run a bot, export and replay records. A command line
that cannot be acted on raises `UsageError`, whose message says why."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import getpass
import json
import os
import shlex
import shutil
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from websockets.exceptions import InvalidURI
from websockets.uri import parse_uri

from ubao.client import account
from ubao.client.bot import BotGame, EngineSettings
from ubao.client.connection import (
    DEFAULT_SERVER,
    Budget,
    fetch_analysis,
    fetch_snapshot,
    request_once,
    servers,
)
from ubao.client.export import record_of, replay_of
from ubao.client.keys import AccountKey, KeyStore, read_key_file
from ubao.client.lobby import lobby_table
from ubao.client.lobby_machine import takeover_question
from ubao.client.serving import serve
from ubao.client.standings import leaderboard_table, player_text
from ubao.client.tokens import TokenStore, join_command
from ubao.client.tournament_bot import play_tournament
from ubao.client.tournament_text import tournament_text
from ubao.client.tournaments import tournament
from ubao.engine.game import GameError
from ubao.engine.games import GAMES, make_game
from ubao.engine.record import RecordError, format_record, parse_record
from ubao.engine.search import pick_evaluation
from ubao.protocol import (
    DEFAULT_PAGE,
    MAX_PAGE,
    ClockSpec,
    Create,
    ErrorCode,
    GameAnalysis,
    GameSummary,
    ListGames,
    Player,
    Ratings,
    SeatSpec,
    to_wire,
)

if TYPE_CHECKING:
    from ubao.client.live import LiveGame


WAITING_EXPIRY_S = 60
"""How long a server keeps a waiting game nobody attends by default (docs/protocol.md)."""
MAX_LOBBY_PAGES = 1000
"""`ubao games --all` stops after this many pages (100 000 games), whatever the server says."""


class UsageError(Exception):
    """A command line that cannot be acted on; the message says why."""


def parse_clock(text: str) -> ClockSpec:
    """`INITIAL+INC` in seconds (decimals allowed), e.g. `300+5`; `INITIAL` alone means no
    increment."""
    initial, _, increment = text.partition("+")
    try:
        initial_ms = round(float(initial) * 1000)
        increment_ms = round(float(increment or 0) * 1000)
    except ValueError:
        raise UsageError(f"--clock {text!r}: write INITIAL+INC in seconds, e.g. 300+5") from None
    if initial_ms < 1:
        raise UsageError(f"--clock {text!r}: the initial time must be positive")
    if increment_ms < 0:
        raise UsageError(f"--clock {text!r}: the increment must be 0 or more")
    return ClockSpec(initial_ms, increment_ms)


def parse_options(text: str) -> dict[str, Any]:
    try:
        options = json.loads(text)
    except ValueError as error:
        raise UsageError(f"--options is not JSON: {error}") from None
    if not isinstance(options, dict):
        raise UsageError('--options must be a JSON object, e.g. {"pits": 4, "seeds": 3}')
    return options


def creation(args: argparse.Namespace, seats: tuple[SeatSpec, SeatSpec]) -> Create:
    """The `create` command for `--new GAME`, with the options checked by the local rules and
    `--pace`, the least time between two moves of server bots."""
    options = parse_options(args.options)
    try:
        make_game(args.new, options)
    except GameError as error:
        raise UsageError(str(error)) from None
    clock = parse_clock(args.clock) if args.clock else None
    pace_ms = None if args.pace is None else round(args.pace * 1000)
    return Create(
        id=0,
        game=args.new,
        options=options,
        seats=seats,
        clock=clock,
        pace_ms=pace_ms,
        rated=args.rated,
    )


def opponent_seats(args: argparse.Namespace) -> tuple[SeatSpec, SeatSpec]:
    """Seat `--seat` (default 0) open for us; the other a server bot (`--vs-bot`), a seat for
    a bot client (`--vs-external-bot`), or open for anybody."""
    ours = args.seat if args.seat is not None else 0
    other = args.vs_bot or args.vs_external_bot or SeatSpec.open()
    return (SeatSpec.open(), other) if ours == 0 else (other, SeatSpec.open())


async def command_play(args: argparse.Namespace) -> int:
    if args.join:
        needs_terminal()
        if not await takeover_agreed(args):
            print(
                f"your seat stays where it is; to join as the other player: "
                f"{join_command(args.join)}"
            )
            return 0
        return await show_live(args, game_id=args.join, seat=args.seat)
    return await show_live(args, create=creation(args, opponent_seats(args)), seat=args.seat or 0)


async def takeover_agreed(args: argparse.Namespace) -> bool:
    """`play --join` of a game where this name holds a seat still played elsewhere: whether
    the user, asked, agrees to take it over (else nothing is asked and the seat is resumed)."""
    held = TokenStore().get(args.server, args.join, args.name)
    if held is None or args.seat not in (None, held.seat):
        return True
    snapshot = await fetch_snapshot(args.server, args.name, args.join, account_key(args))
    question = takeover_question(snapshot.game_id, snapshot.status, snapshot.seats, held.seat)
    if question is None:
        return True
    try:
        answer = await asyncio.to_thread(input, question)
    except EOFError:
        answer = ""
    return answer.strip().lower() in ("y", "yes")


async def command_lobby(args: argparse.Namespace) -> int:
    """The lobby, and each game chosen in it on the game screen, back to the lobby when the
    user leaves the game, until they leave the lobby."""
    from ubao.client.lobby_machine import Start, Watch
    from ubao.client.lobby_screen import LobbyScreen

    needs_terminal()
    tokens = TokenStore()
    note = "choose a game with the arrows and Enter, or n for a new one"
    left: str | None = None
    while True:
        lobby = LobbyScreen(
            args.server, args.name, tokens=tokens, key=account_key(args), note=note, select=left
        )
        chosen = await lobby.run()
        if chosen is None:
            return 0
        if isinstance(chosen, Start):
            live = await show_game(args, create=chosen.create, seat=0, tokens=tokens)
        else:
            watch = isinstance(chosen, Watch)
            live = await show_game(args, game_id=chosen.game_id, watch=watch, tokens=tokens)
        note, left = lobby_note(live), live.game_id


def lobby_note(live: LiveGame) -> str:
    """What the lobby says after a game screen closed: why no game was shown, or how to
    return to a seat left in a game that goes on (Enter on it)."""
    status, text = ending(live)
    if status or not text:
        return text or ""
    expiry = f"; a waiting game nobody attends expires in {WAITING_EXPIRY_S} s"
    waiting = live.state.status == "waiting"
    return f"left game {live.game_id}: Enter on it takes you back" + (expiry if waiting else "")


async def command_watch(args: argparse.Namespace) -> int:
    if args.new:
        return await show_live(args, create=watch_creation(args), watch=True)
    if args.game_id:
        return await show_live(args, game_id=args.game_id, watch=True)
    raise UsageError("give a GAME_ID to watch, or --new GAME --bot DEPTH --bot DEPTH")


def watch_creation(args: argparse.Namespace) -> Create:
    """`watch --new`: a game of two bots, at a pace a viewer can follow."""
    if len(args.seats or []) != 2:
        raise UsageError(
            "watch --new needs two bots, South's first: each --bot DEPTH (a server bot) "
            "or --vs-external-bot [DEPTH] (a bot client, e.g. ubao bot --serve)"
        )
    return creation(args, (args.seats[0], args.seats[1]))


async def show_live(
    args: argparse.Namespace,
    *,
    game_id: str | None = None,
    create: Create | None = None,
    seat: int | None = None,
    watch: bool = False,
) -> int:
    """The game screen until the user leaves. The screens are imported only here and in
    `command_replay`, so that the headless commands (`bot`, `games`, `export`) never load the
    terminal library."""
    needs_terminal()
    live = await show_game(args, game_id=game_id, create=create, seat=seat, watch=watch)
    return report_end(live, args.command)


async def show_game(
    args: argparse.Namespace,
    *,
    game_id: str | None = None,
    create: Create | None = None,
    seat: int | None = None,
    watch: bool = False,
    tokens: TokenStore | None = None,
) -> LiveGame:
    """The game screen of one game, shown until the user leaves it."""
    from ubao.client.live import LiveGame

    live = LiveGame(
        args.server,
        args.name,
        game_id=game_id,
        create=create,
        seat=seat,
        watch=watch,
        tokens=tokens,
        step_seconds=args.speed,
        key=account_key(args),
        bell=args.bell,
    )
    await live.run()
    return live


def needs_terminal() -> None:
    """The screens read keys from a terminal and draw on one: say so rather than fail later."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(
            "needs a terminal (standard input and output); "
            "to play from a script, use ubao bot or the protocol (docs/protocol.md)"
        )


def report_end(live: LiveGame, command: str = "play") -> int:
    """After the screen closed: say what `ending` says, on standard error if it failed, after
    the command's name as every other failure of `command` is said (`ubao play: ...`)."""
    status, text = ending(live)
    if text:
        said = f"ubao {command}: {text}" if status else text
        print(said, file=sys.stderr if status else sys.stdout)
    return status


def ending(live: LiveGame) -> tuple[int, str | None]:
    """After the screen closed: the exit status and what to say. The game's id (to come
    back), or why no game was ever shown (the server could not be reached or refused; or the
    user left while still trying)."""
    if not live.state.started:
        reason = live.error or f"left before the game was reached ({live.app.connection})"
        if live.refusal == ErrorCode.SEAT_TAKEN and live.game_id is not None:
            reason += f"; to watch it: {watch_command(live.game_id, live.url)}"
        return 1, reason
    if live.game_id and not live.state.over and not live.watch:
        command = return_command(live.game_id, live.session.name, live.url)
        if live.state.status == "waiting":
            # docs/protocol.md, `cancel`: nobody there, a waiting game expires.
            return 0, (
                f"left game {live.game_id}, which waits for an opponent: unless somebody joins "
                f"or you return within {WAITING_EXPIRY_S} s (the server's default "
                f"--waiting-expiry), it expires; return with: {command}"
            )
        return 0, f"left game {live.game_id}; return with: {command}"
    return 0, None


def return_command(game_id: str, name: str, server: str) -> str:
    """The command that comes back to a seat, as a shell reads it: with the name the seat's
    token is stored under and the server, unless they are the defaults, and `--join=ID`,
    which also holds for an id that begins with `-`."""
    words = ["ubao", "play", f"--join={game_id}"]
    if name != default_name():
        words.append(f"--name={name}")
    if server != default_server():
        words.append(f"--server={server}")
    return shlex.join(words)


def watch_command(game_id: str, server: str) -> str:
    """The command that watches a game, as a shell reads it (an id that begins with `-`
    after `--`)."""
    words = ["ubao", "watch"]
    if server != default_server():
        words.append(f"--server={server}")
    return shlex.join([*words, *(["--"] if game_id.startswith("-") else []), game_id])


def default_server() -> str:
    """`$UBAO_SERVER` (as `--server` reads it), else the default."""
    given = os.environ.get("UBAO_SERVER", DEFAULT_SERVER)
    try:
        return server_urls(given)
    except argparse.ArgumentTypeError:
        return given  # `--server`'s default: refused there with the reason


def server_urls(text: str) -> str:
    """A `--server` value with `ws://` put before each URL that has no scheme (`host:port`,
    as python-chess and lichess tools take it); a URL that is still not a WebSocket URL is
    a bad command line, with how to write one."""
    urls = []
    for url in servers(text):
        url = url if "://" in url else f"ws://{url}"
        try:
            parse_uri(url)
        except InvalidURI:
            raise argparse.ArgumentTypeError(
                f"{url!r} is not a WebSocket URL: write ws://HOST:PORT/ (or wss://)"
            ) from None
        urls.append(url)
    return ",".join(urls)


def output_width() -> int | None:
    """The columns a printed table may take: the terminal's (or `$COLUMNS`); None for a pipe
    or a file, which get whole rows."""
    if "COLUMNS" in os.environ or sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


def lobby_query(args: argparse.Namespace) -> ListGames:
    """The `games` command for `ubao games`' options (the page size is set per request)."""
    return ListGames(id=0, filter=args.filter, player=args.player, cursor=args.cursor)


async def lobby_pages(
    args: argparse.Namespace, query: ListGames, count: int | None
) -> tuple[list[GameSummary], str | None]:
    """`count` games of the lobby from `query` on (all of them with None; fewer if there are
    not so many), following the server's cursors; and the cursor of the games after them, if
    more follow."""
    games: list[GameSummary] = []
    cursor = query.cursor
    for _ in range(MAX_LOBBY_PAGES):
        want = MAX_PAGE if count is None else min(count - len(games), MAX_PAGE)
        page = dataclasses.replace(query, limit=want, cursor=cursor)
        ok = await request_once(args.server, args.name, "spectator", page, account_key(args))
        games += ok.games or ()
        cursor = ok.cursor
        if cursor is None or not ok.games or (count is not None and len(games) >= count):
            break
    return games, cursor


def more_games(args: argparse.Namespace, shown: int, cursor: str) -> str:
    """The lines under a lobby cut short: that more games follow, and the commands that show
    them all, or the next page."""
    words = ["ubao", "games"]
    for option in ("filter", "player"):
        if getattr(args, option) is not None:
            words.append(f"--{option}={getattr(args, option)}")
    if args.server != default_server():
        words.append(f"--server={args.server}")
    page = [f"--limit={args.limit}"] if args.limit != DEFAULT_PAGE else []
    plural = "s" if shown > 1 else ""
    return (
        f"{shown} game{plural} shown, more follow; all of them: {shlex.join([*words, '--all'])}\n"
        f"the next {args.limit}: {shlex.join([*words, *page, f'--cursor={cursor}'])}"
    )


async def command_games(args: argparse.Namespace) -> int:
    games, cursor = await lobby_pages(args, lobby_query(args), None if args.all else args.limit)
    if not games:
        print(
            "no games" + (" of that kind" if args.filter or args.player else "") + " on the server"
        )
        return 0
    print(lobby_table(games, output_width()))
    if cursor is not None:
        print(more_games(args, len(games), cursor))
    return 0


async def command_ratings(args: argparse.Namespace) -> int:
    query = Ratings(id=0, game=args.game, speed=args.speed, limit=min(args.limit, MAX_PAGE))
    ok = await request_once(args.server, args.name, "spectator", query, account_key(args))
    rows = ok.leaderboard or ()
    if args.json:
        print(json.dumps([to_wire(row) for row in rows], indent=2, ensure_ascii=False))
    elif rows:
        print(leaderboard_table(rows))
    else:
        print(
            f"nobody has a rated {args.game} game yet" + (f" at {args.speed}" if args.speed else "")
        )
    return 0


async def command_player(args: argparse.Namespace) -> int:
    query = Player(id=0, name=args.player, limit=min(args.limit, MAX_PAGE))
    ok = await request_once(args.server, args.name, "spectator", query, account_key(args))
    card = ok.player
    if card is None:
        raise UsageError("the server does not keep ratings (an older server)")
    print(
        json.dumps(to_wire(card), indent=2, ensure_ascii=False) if args.json else player_text(card)
    )
    return 0


async def command_tournament(args: argparse.Namespace) -> int:
    options = parse_options(args.options) if args.action == "new" else {}
    return await tournament(args, account_key(args), options)


def playable_games(settings: EngineSettings) -> list[str]:
    """The games `settings` can play (those with the evaluation `--eval` names); none is a
    usage error, said before the bot connects."""
    games = [name for name in GAMES if settings.plays(name)]
    if not games:
        known = "; ".join(f"{name}: {', '.join(make_game(name).evaluations)}" for name in GAMES)
        raise UsageError(f"no game has the evaluation {settings.eval!r} (--eval); known: {known}")
    return games


async def check_playable(args: argparse.Namespace, settings: EngineSettings, game: str) -> None:
    """`--eval` holds for the game the bot is to join, asked of the server before any seat is
    taken (only when an evaluation is named: any game has its default one)."""
    if settings.eval is None:
        return
    snapshot = await fetch_snapshot(args.server, args.name, game, account_key(args))
    try:
        pick_evaluation(make_game(snapshot.game, snapshot.options), settings.eval)
    except (ValueError, GameError) as error:
        raise UsageError(f"game {game}: {error}") from None


async def command_bot(args: argparse.Namespace) -> int:
    settings = EngineSettings(args.depth, args.time_ms, args.eval, args.algorithm, args.threads)
    games = [] if args.new else playable_games(settings)  # --new: its game's own check
    budget = Budget(args.message_burst, args.message_rate)
    pace = args.pace or 0.0
    key = account_key(args)
    if args.tournament:
        if key is None:
            raise UsageError("--tournament plays under an account: claim it (ubao account create)")
        view = await play_tournament(
            args.server, args.name, settings, args.tournament, key=key, budget=budget, pace=pace
        )
        print(tournament_text(view))
        return 0
    if args.serve:
        await serve(
            args.server,
            args.name,
            settings,
            max_games=args.max_games,
            budget=budget,
            pace=pace,
            key=key,
            games=games,
        )
        return 0
    if args.join:
        await check_playable(args, settings, args.join)
        bot = BotGame(
            args.server,
            args.name,
            settings,
            game_id=args.join,
            seat=args.seat,
            budget=budget,
            pace=pace,
            key=key,
        )
    else:
        create = creation(args, opponent_seats(args))
        try:
            pick_evaluation(make_game(create.game, create.options), args.eval)
        except ValueError as error:
            raise UsageError(str(error)) from None
        bot = BotGame(
            args.server,
            args.name,
            settings,
            create=create,
            seat=args.seat or 0,
            budget=budget,
            pace=pace,
            key=key,
        )
    await bot.run()  # it logs every move and how the game ended
    if bot.error:
        print(f"ubao bot: {bot.error}", file=sys.stderr)
        return 1
    return 0


async def command_export(args: argparse.Namespace) -> int:
    if args.output:
        check_writable(Path(args.output))  # before the server is asked anything
    key = account_key(args)
    snapshot = await fetch_snapshot(args.server, args.name, args.game_id, key)
    if args.analyse and snapshot.status != "over":
        print("ubao: the game is not over: it has no analysis yet", file=sys.stderr)
    elif args.analyse and snapshot.analysis is None:
        analysis = await fetch_analysis(args.server, args.name, args.game_id, key, say_queued)
        snapshot = dataclasses.replace(snapshot, analysis=analysis)
    text = format_record(record_of(snapshot))
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as error:
            raise UsageError(f"cannot write {args.output}: {error.strerror}") from None
    else:
        sys.stdout.write(text)
    return 0


def check_writable(path: Path) -> None:
    """`path` can be written as a file (a directory cannot, nor a file in a folder that is
    missing or not ours to write); else a usage error that says why, not the server's fault."""
    if path.is_dir():
        raise UsageError(f"cannot write {path}: it is a directory")
    folder = path.parent
    if not folder.is_dir():
        raise UsageError(f"cannot write {path}: no folder {folder}")
    if not os.access(path if path.exists() else folder, os.W_OK):
        raise UsageError(f"cannot write {path}: permission denied")


def say_queued(ahead: int) -> None:
    """`ubao export --analyse` waits for the server's analysis: it says so on stderr."""
    waiting = f"{ahead} ahead" if ahead else "being made"
    print(f"ubao: waiting for the server's analysis ({waiting})", file=sys.stderr)


async def command_replay(args: argparse.Namespace) -> int:
    from ubao.client.replay import ReplayApp

    try:
        record = parse_record(Path(args.file).read_text(encoding="utf-8"))
        replay = replay_of(record)
    except OSError as error:
        raise UsageError(f"cannot read {args.file}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{args.file} is not a game record: it is not UTF-8 text") from None
    except (RecordError, GameError) as error:
        raise UsageError(f"{args.file}: {error}") from None
    needs_terminal()
    game_id = record.tags.get("GameId")
    fetch = None
    if game_id:
        key = account_key(args)

        def fetch(queued: Callable[[int], None]) -> Awaitable[GameAnalysis]:
            return fetch_analysis(args.server, args.name, game_id, key, queued)

    await ReplayApp(record, replay, fetch=fetch).run()
    return 0


def account_key(args: argparse.Namespace) -> str | None:
    """The key `hello` says: `--key-file`'s, else the one kept for the name on the server (none:
    a guest)."""
    if args.key_file is not None:
        return key_in(args.key_file)
    kept = KeyStore().get(args.server, args.name)
    return None if kept is None else kept.key


def key_in(path: str) -> str:
    try:
        return read_key_file(Path(path))
    except (OSError, ValueError) as error:
        raise UsageError(f"--key-file {path}: {error}") from None


async def command_account(args: argparse.Namespace) -> int:
    """`ubao account create|rotate|show`: the logic is client/account.py's."""
    keys = KeyStore()
    key_file = Path(args.key_file) if args.key_file else None
    if args.action == "create":
        made = await account.create(args.server, args.account, args.bot, keys, key_file)
        where = f"{keys.path} and in {key_file}" if key_file else str(keys.path)
        print(f"claimed {made.name} on {args.server}; its key is kept in {where}")
    elif args.action == "rotate":
        kept = keys.get(args.server, args.account)
        if key_file is not None and key_file.exists():
            name, bot = (kept.name, kept.bot) if kept else (args.account, args.bot)
            kept = AccountKey(name, key_in(args.key_file), bot)
        if kept is None:
            raise UsageError(f"no key of {args.account} is kept for {args.server}; give --key-file")
        current = kept
        await account.rotate(args.server, current, keys, key_file)
        print(f"rotated the key of {current.name}; the old key opens nothing any more")
    else:
        lines = await account.show(args.server, args.account, keys, check=not args.offline)
        if args.json:
            print(json.dumps([dataclasses.asdict(line) for line in lines], indent=1))
        for line in [] if args.json else lines:
            print(line.text())
    return 0


def default_name() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "player"
