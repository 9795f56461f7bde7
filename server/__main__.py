"""`ubao-server`: run the game server until SIGTERM, SIGINT or SIGHUP, then shut down gracefully.

Every setting is one row of `SERVER_SETTINGS`: its flag, the field of `Options` it sets, its help.
The environment variable follows from the flag (`--max-games` is `UBAO_MAX_GAMES`) and the
default from the dataclasses, so each is declared once. A flag beats its variable, which beats
the default.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import functools
import gc
import logging
import math
import os
import shlex
import signal
import sqlite3
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from ubao.engine.protocols.client import EngineFailure
from ubao.server.app import GameServer, ServerConfig, address
from ubao.server.bots import EngineBot
from ubao.server.door import Networks
from ubao.server.edge import raise_descriptor_limit
from ubao.server.stores.sqlite import DatabaseInUse, UnusableDatabase, default_db_path

LOG_LEVELS = ("debug", "info", "warning", "error")


@dataclass(frozen=True, slots=True)
class Options:
    """Everything `ubao-server` can be told."""

    server: ServerConfig = field(default_factory=lambda: ServerConfig(db=default_db_path()))
    log_level: str = "info"


@dataclass(frozen=True, slots=True)
class Setting:
    """One operator setting: a flag, its environment variable, the field of `Options` it sets."""

    flag: str
    path: str
    """The field it sets: a dotted path in `Options`, e.g. `server.limits.bounds.max_plies`."""
    help: str
    metavar: str = "N"
    scale: int = 1
    """The field counts in units `scale` times smaller than the flag (1000: seconds to ms)."""
    choices: tuple[str, ...] = ()
    least: float = 0
    """The smallest value a number may have..."""
    above: bool = False
    """...or the value it must be above (a time or a rate, for which 0 would stop the server
    from working: every handshake timed out, every message over the budget)."""
    most: float = math.inf
    """The largest value a number may have."""
    each: Callable[[str], Any] | None = None
    """A flag that may be given several times: each value is read by this (ValueError says
    what is wrong), and its variable holds one value per line."""

    @property
    def env(self) -> str:
        """The environment variable: `--max-games` is `UBAO_MAX_GAMES`."""
        return "UBAO_" + self.flag.removeprefix("--").replace("-", "_").upper()

    def get(self, options: Options) -> Any:
        """The value in `options`, in the flag's unit."""
        value: Any = options
        for name in self.path.split("."):
            value = getattr(value, name)
        return value / self.scale if self.scale != 1 else value

    def parse(self, text: str, like: Any) -> Any:
        """`text` as a value of this flag, of the kind of `like` (its default)."""
        if self.choices and text not in self.choices:
            raise argparse.ArgumentTypeError(
                f"must be one of {', '.join(self.choices)}, not {text!r}"
            )
        if isinstance(like, tuple):
            words = tuple(shlex.split(text))
            if not words:
                raise argparse.ArgumentTypeError("must name a command")
            return words
        if isinstance(like, Path):
            if not text:  # Path("") is the current directory
                raise argparse.ArgumentTypeError(
                    "is empty: it must name a database file, or :memory: for a throwaway server"
                )
            return text
        if not isinstance(like, int | float):
            return text
        kind = "a whole number" if isinstance(like, int) else "a number"
        try:
            value = type(like)(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {kind}, not {text!r}") from None
        least = self.least
        if self.above and self.scale != 1:
            least = 1 / self.scale  # the field's unit: less would be 0
        elif self.above:
            least = math.nextafter(least, math.inf)
        if not (least <= value <= self.most and math.isfinite(value)):
            raise argparse.ArgumentTypeError(f"must be {kind} {self.bounds}, not {text!r}")
        return value

    @property
    def bounds(self) -> str:
        """The values a number may take, as an error message says it."""
        if self.most < math.inf:
            return f"from {self.least:g} to {self.most:g}"
        if self.above and self.scale != 1:
            return f"≥ {1 / self.scale:g}"
        return f"> {self.least:g}" if self.above else f"≥ {self.least:g}"

    def put(self, options: Options, value: Any) -> Options:
        """`options` with the field set to `value` (in the flag's unit)."""
        if self.scale != 1:
            value = round(value * self.scale)
        replaced: Options = replace_path(options, self.path.split("."), value)
        return replaced

    @property
    def description(self) -> str:
        """The help text, with the choices if there are any."""
        return f"{self.help}: {', '.join(self.choices)}" if self.choices else self.help


def replace_path(obj: Any, names: Sequence[str], value: Any) -> Any:
    """A copy of the frozen dataclass `obj` with the field at `names` set to `value`."""
    name, *rest = names
    if rest:
        value = replace_path(getattr(obj, name), rest, value)
    return dataclasses.replace(obj, **{name: value})


def proxy_network(text: str) -> str:
    """A `--proxy` value: an address or a network."""
    Networks.parse([text])
    return text.strip()


def help_default(value: Any) -> str:
    """A default as the help shows it."""
    if isinstance(value, tuple):
        return shlex.join(value)
    if value == "":
        return "none"
    return f"{value:g}" if isinstance(value, float) else str(value)


SERVER_SETTINGS = (
    Setting("--host", "server.host", "address to listen on", "ADDRESS"),
    Setting("--port", "server.port", "port to listen on; 0 picks a free one", "PORT", most=65535),
    Setting(
        "--db", "server.db", "SQLite database file, or :memory: for a throwaway server", "FILE"
    ),
    Setting(
        "--redis",
        "server.redis",
        "join a cluster of nodes sharing games over this Redis (docs/cluster.md); "
        "empty: one node with the SQLite file",
        "URL",
    ),
    Setting("--node-id", "server.node_id", "this node's name in a cluster; empty: random", "NAME"),
    Setting("--log-level", "log_level", "log verbosity", "LEVEL", choices=LOG_LEVELS),
    Setting(
        "--kgp-port",
        "server.kgp.port",
        "TCP port for Kalah agents speaking KGP (docs/kgp.md; 2671 by custom); 0 picks a free "
        "one, -1 none (they still connect over WebSocket at /kgp)",
        "PORT",
        least=-1,
        most=65535,
    ),
    Setting("--kgp-pits", "server.kgp.pits", "pits a side of the KGP games", least=1, most=12),
    Setting("--kgp-seeds", "server.kgp.seeds", "seeds per pit of the KGP games", least=1, most=12),
    Setting(
        "--kgp-wait",
        "server.kgp.wait_ms",
        "how long a KGP agent waits for another before it plays a server bot",
        "SECONDS",
        scale=1000,
    ),
    Setting(
        "--kgp-move-time",
        "server.kgp.move_ms",
        "the longest a KGP agent may think about a move",
        "SECONDS",
        scale=1000,
        above=True,
    ),
    Setting(
        "--kgp-bot-depth",
        "server.kgp.bot_depth",
        "search depth of the server bot a KGP agent plays",
        least=1,
        most=64,
    ),
    Setting(
        "--grace",
        "server.limits.grace_ms",
        "how long a dropped player's seat is held",
        "SECONDS",
        scale=1000,
        above=True,
    ),
    Setting(
        "--max-plies",
        "server.limits.bounds.max_plies",
        "a game still going at this ply is drawn",
        least=1,
    ),
    Setting(
        "--repetitions",
        "server.limits.bounds.repetitions",
        "a position seen this often is drawn",
        least=2,
    ),
    Setting("--max-games", "server.limits.max_games", "games not over at the same time", least=1),
    Setting(
        "--max-bot-seats",
        "server.limits.max_bot_seats",
        "server-hosted bot seats in games not over (they share the --engines pool)",
    ),
    Setting(
        "--keep-finished",
        "server.limits.keep_finished",
        "finished games kept in memory for the lobby and late watchers",
    ),
    Setting(
        "--games-per-connection",
        "server.limits.per_connection.games",
        "games not over that one connection may have created",
        least=1,
    ),
    Setting(
        "--waiting-per-connection",
        "server.limits.per_connection.waiting",
        "of those, games waiting for players",
        least=1,
    ),
    Setting(
        "--bot-seats-per-connection",
        "server.limits.per_connection.bot_seats",
        "server bot seats in the games one connection created",
    ),
    Setting(
        "--games-per-address",
        "server.limits.per_address.games",
        "games not over created from one address",
        least=1,
    ),
    Setting(
        "--waiting-per-address",
        "server.limits.per_address.waiting",
        "of those, games waiting for players",
        least=1,
    ),
    Setting(
        "--bot-seats-per-address",
        "server.limits.per_address.bot_seats",
        "server bot seats in the games created from one address",
    ),
    Setting(
        "--max-bot-depth",
        "server.limits.max_bot_depth",
        "deepest search a server bot seat may ask for",
        least=1,
    ),
    Setting(
        "--max-bot-time",
        "server.limits.max_bot_time_ms",
        "longest thinking time per move a server bot seat may ask for",
        "SECONDS",
        scale=1000,
        above=True,
    ),
    Setting(
        "--max-analyses",
        "server.limits.max_analyses",
        "analyses of finished games waiting or running at once",
    ),
    Setting(
        "--analyses-per-address",
        "server.limits.analyses_per_address",
        "of those, the ones one address asked for",
    ),
    Setting(
        "--analysis-time",
        "server.limits.analysis_time_ms",
        "the engine's time for each move of a game's analysis",
        "SECONDS",
        scale=1000,
        above=True,
    ),
    Setting(
        "--waiting-expiry",
        "server.limits.waiting_expiry_ms",
        "a waiting game whose creator and players are all gone is withdrawn after this",
        "SECONDS",
        scale=1000,
    ),
    Setting(
        "--wrong-keys-per-name",
        "server.limits.wrong_keys_per_name",
        "wrong keys for one account's name within --attempts-window before it waits",
        least=1,
    ),
    Setting(
        "--wrong-keys-per-address",
        "server.limits.wrong_keys_per_address",
        "wrong keys from one address within --attempts-window before it waits",
        least=1,
    ),
    Setting(
        "--keys-per-address",
        "server.limits.claims_per_address",
        "accounts claimed and keys rotated from one address within --attempts-window",
        least=1,
    ),
    Setting(
        "--attempts-window",
        "server.limits.attempts_window_ms",
        "the window those counts are kept in",
        "SECONDS",
        scale=1000,
        above=True,
    ),
    Setting(
        "--connections-per-ip",
        "server.limits.connections_per_ip",
        "connections from one address (an IPv6 /64) past their handshake; more are closed",
        least=1,
    ),
    Setting(
        "--open-per-ip",
        "server.limits.open_per_ip",
        "connections one address may have open, handshakes too; more are refused at accept; "
        "0: twice --connections-per-ip",
    ),
    Setting(
        "--move-limit",
        "server.limits.move_limit_ms",
        "in a game without a clock, the longest a player may take over a move; past it the "
        "game ends (timeout, or aborted before their first move)",
        "SECONDS",
        scale=1000,
        above=True,
    ),
    Setting(
        "--lobby-window",
        "server.limits.lobby_window_ms",
        "a game's lobby line goes to subscribers at most once per this long; 0: at once",
        "SECONDS",
        scale=1000,
    ),
    Setting(
        "--lobby-subscribers-per-ip",
        "server.limits.lobby_subscribers_per_ip",
        "connections of one address subscribed to the lobby",
        least=1,
    ),
    Setting(
        "--longest-wait",
        "server.limits.longest_wait_ms",
        "the longest a game waits for players, its creator connected or not",
        "SECONDS",
        scale=1000,
        above=True,
    ),
    Setting(
        "--reserved-games",
        "server.limits.reserved_games",
        "game slots (a tenth of --max-games at most) kept for addresses that hold no game",
    ),
    Setting(
        "--max-connections",
        "server.limits.max_connections",
        "connections open at once; more are refused at accept; 0: 90% of the descriptor "
        "limit, less 64 kept for the rest",
    ),
    Setting(
        "--proxy",
        "server.proxies",
        "the address or network of a proxy that sends the PROXY protocol v2 header "
        "(HAProxy's send-proxy-v2); its clients are counted by the address it names",
        "NETWORK",
        each=proxy_network,
    ),
    Setting(
        "--message-burst",
        "server.limits.burst",
        "messages a connection may send at once",
        least=1,
    ),
    Setting(
        "--message-rate",
        "server.limits.per_second",
        "messages per second a connection may send after its burst",
        "PER_SECOND",
        above=True,
    ),
    Setting(
        "--max-message-size",
        "server.max_size",
        "largest message a client may send; larger ones close the connection",
        "BYTES",
        least=1,
    ),
    Setting(
        "--receive-queue",
        "server.max_queue",
        "messages received but not yet handled, per connection",
    ),
    Setting(
        "--send-budget",
        "server.send_budget",
        "bytes waiting to be sent to one connection; more close it at once",
        "BYTES",
    ),
    Setting(
        "--handshake-timeout",
        "server.open_timeout_s",
        "time for a WebSocket opening handshake",
        "SECONDS",
        above=True,
    ),
    Setting(
        "--ping-interval",
        "server.ping_interval_s",
        "how often connections are pinged",
        "SECONDS",
        above=True,
    ),
    Setting(
        "--ping-timeout",
        "server.ping_timeout_s",
        "time for a ping's pong, writing the ping included; then the connection is cut",
        "SECONDS",
        above=True,
    ),
    Setting(
        "--close-timeout",
        "server.close_timeout_s",
        "time for a closing handshake; then the connection is cut",
        "SECONDS",
        above=True,
    ),
    Setting(
        "--engine",
        "server.bots.command",
        "the engine a bot seat runs, as one command line",
        "COMMAND",
    ),
    Setting(
        "--engine-bot",
        "server.bots.engine_bots",
        "an engine of yours that bot seats may ask for by NAME, speaking protocol DIALECT "
        "(ubao: docs/engine-protocol.md; nboard or gtp for Othello engines: "
        "docs/othello-engines.md); one command line",
        "NAME=DIALECT:COMMAND",
        each=EngineBot.parse,
    ),
    Setting(
        "--engine-start-timeout",
        "server.bots.start_timeout_s",
        "time for a new engine to answer uci and isready",
        "SECONDS",
        above=True,
    ),
    Setting(
        "--engine-move-timeout",
        "server.bots.move_timeout_s",
        "a move's budget when the bot seat has no time per move",
        "SECONDS",
        above=True,
    ),
    Setting(
        "--engine-margin",
        "server.bots.margin_s",
        "added to a bot seat's time per move before the engine is told to stop",
        "SECONDS",
    ),
    Setting(
        "--engine-stop-grace",
        "server.bots.stop_grace_s",
        "after stop, time for the engine to answer before it is killed",
        "SECONDS",
    ),
    Setting(
        "--engine-attempts",
        "server.bots.attempts",
        "attempts per move (another engine after a failure) before the bot's seat forfeits",
        least=1,
    ),
    Setting(
        "--engines",
        "server.bots.engines",
        "engine processes at most, shared by every server bot seat",
        least=1,
    ),
    Setting(
        "--analysis-engines",
        "server.bots.analysis_engines",
        "analyses run at once at most, at low priority, beside the --engines pool",
        least=1,
    ),
    Setting(
        "--analysis-nice",
        "server.bots.analysis_nice",
        "the nice of the analyses' scheduling group (Linux's autogroup): 19 keeps them off "
        "any core another session wants",
        most=19,
    ),
    Setting(
        "--engine-hash",
        "server.bots.hash_mb",
        "each engine's transposition table",
        "MB",
    ),
    Setting(
        "--engine-quit-timeout",
        "server.bots.quit_timeout_s",
        "at a game's end, time for the engine to exit before it is killed",
        "SECONDS",
    ),
)


def parse_args(
    argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None
) -> Options:
    """The options from the flags in `argv`, then the variables in `environ`, then defaults;
    a bad value exits with status 2 and says which flag or variable it was."""
    environ = os.environ if environ is None else environ
    defaults = Options()
    parser = argparse.ArgumentParser(
        prog="ubao-server",
        description="Host Bao, mancala and Othello games over WebSocket (wire protocol v1).",
        epilog="Every flag can also be set by its environment variable; a flag beats it. "
        "docs/server.md explains every default.",
    )
    parser.add_argument(
        "--version", action="version", version=f"ubao-server {metadata.version('ubao')}"
    )
    for setting in SERVER_SETTINGS:
        default = setting.get(defaults)
        text = f"{setting.description} (default {help_default(default)}, env {setting.env})"
        if setting.each is not None:
            parser.add_argument(
                setting.flag,
                dest=setting.path,
                action="append",
                type=functools.partial(read_each, setting.each),
                metavar=setting.metavar,
                help=f"{setting.description}; may be repeated (env {setting.env}, one a line)",
            )
            continue
        parser.add_argument(
            setting.flag,
            dest=setting.path,
            type=functools.partial(setting.parse, like=default),
            metavar=setting.metavar,
            help=text.replace("%", "%%"),  # argparse expands % in help texts
        )
    args = parser.parse_args(argv)
    options = defaults
    for setting in SERVER_SETTINGS:
        value = getattr(args, setting.path)
        if value is None and setting.env in environ:
            try:
                value = read_variable(setting, environ[setting.env], setting.get(defaults))
            except argparse.ArgumentTypeError as exc:
                parser.error(f"environment variable {setting.env}: {exc}")
        if value is not None:
            options = setting.put(options, tuple(value) if setting.each else value)
    return options


def read_each(each: Callable[[str], Any], text: str) -> Any:
    """One value of a repeated flag."""
    try:
        return each(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def read_variable(setting: Setting, text: str, default: Any) -> Any:
    """An environment variable's value: one per line for a repeated flag."""
    if setting.each is None:
        return setting.parse(text, default)
    return [read_each(setting.each, line) for line in text.splitlines() if line.strip()]


CLUSTER_EXTRA = "pip install 'ubao[cluster]'"


def cluster_usable() -> str | None:
    """Why `--redis` cannot work here (the Redis client is an optional dependency), or None."""
    try:
        import redis  # noqa: F401
    except ImportError:
        return f"--redis needs the Redis client: {CLUSTER_EXTRA}"
    return None


async def serve(config: ServerConfig) -> None:
    # SIGTERM, SIGINT and SIGHUP (the terminal or ssh session it runs in closing) from the
    # start: one that comes while the server opens its store or restores its games stops it as
    # soon as it is up, cleanly, not by the default handler (which ends it at once: clients
    # see 1006, not 1012, and thinking engines are left behind).
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(signum, stop.set)
    try:
        server = GameServer(config)
    except DatabaseInUse as exc:  # another server hosts its games: leave them to it
        print(f"ubao-server: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except (OSError, sqlite3.DatabaseError, UnusableDatabase) as exc:  # a folder, not SQLite...
        print(f"ubao-server: cannot use --db {config.db}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except ValueError as exc:  # a node name or Redis URL that cannot be used: a bad flag
        print(f"ubao-server: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    try:
        await server.check_engine()  # a wrong --engine: found now, not at the first bot turn
    except EngineFailure as exc:
        server.database.close()
        command = shlex.join(config.bots.command)
        print(f"ubao-server: --engine {command} does not work: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    try:
        await server.check_engine_bots()
    except EngineFailure as exc:
        await server.bots.close()
        server.database.close()
        print(f"ubao-server: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    try:
        await server.start()
    except (sqlite3.DatabaseError, UnusableDatabase) as exc:  # damaged past the open's check
        await server.bots.close()
        server.database.close()
        print(f"ubao-server: cannot use --db {config.db}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except OSError as exc:
        await server.bots.close()
        where = address(config.host, config.port)
        raise SystemExit(f"ubao-server: cannot listen on {where}: {exc}") from None
    except Exception as exc:  # Redis unreachable (its errors are not OSErrors)
        if not config.redis:
            raise
        raise SystemExit(f"ubao-server: cannot join the cluster at {config.redis}: {exc}") from None
    await stop.wait()
    await server.stop()


YOUNG_OBJECTS = 3_000
"""Allocations between two collections of the youngest objects, where CPython has 700. At 700,
the objects in flight at each collection (frames, futures, messages) soon made up a quarter of
the oldest generation, and each full collection over the hundreds of thousands of objects of
thousands of connections stopped every game for half a second (five in a minute of the load
benchmark of docs/benchmarks.md). At 20,000 there was no full collection, but a game's state
lives long: the youngest generation held 40,000 to 150,000 objects when it was collected, every
5 to 15 s at 1,000 games, and each collection stopped the server for 26 to 88 ms of CPU. At
3,000 each takes about 4 ms (at most 18), more often: flat out they cost a few per cent of
the CPU where the larger threshold cost one."""

MIDDLE_COLLECTIONS = 200
"""Collections of the youngest objects between two of the middle generation, where CPython has
10: that generation holds most of the games' state (it is freed when a game is forgotten, not
by the collector), and walking it takes 60 to 90 ms at 1,000 games. Every 200 youngest
collections it runs every few minutes at 500 moves a second (every 15 s flat out) instead of
every few seconds; what it frees (reference cycles: closed connections, exceptions) waits that
long."""


SWITCH_INTERVAL_S = 0.0005
"""How long the event loop's thread may keep the interpreter lock while the store's writer
waits for it (CPython: 5 ms). The writer takes the lock back after each SQLite statement and
after the commit's fsync, and every reply waits for that commit ("durable before anyone hears
of it"): at 5 ms, each of those hand-overs could cost a move's watchers 5 ms. Paced load
benchmark (1,000 games, 5 spectators, docs/benchmarks.md): move -> spectator p99 117-157 ms at
5 ms, 60-82 ms at 0.5 ms; 0.1 ms switched so often that it was slower again."""


def prepare(argv: Sequence[str] | None = None) -> Options:
    """The options, with the process set up to serve them (logging, the collector, the
    interpreter lock's switch interval); the load
    benchmark runs `serve` after it inside its own measuring harness (benchmarks/load.py)."""
    options = parse_args(argv)
    if options.server.redis and (why := cluster_usable()):
        print(f"ubao-server: {why}", file=sys.stderr)
        raise SystemExit(2)
    logging.basicConfig(
        level=options.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_OBJECTS, max(middle, MIDDLE_COLLECTIONS), old)  # the server's process
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    before, after = raise_descriptor_limit()
    if after != before:
        logging.getLogger("ubao.server").info(
            "open files: limit raised from %d to %d", before, after
        )
    return options


def main(argv: Sequence[str] | None = None) -> None:
    asyncio.run(serve(prepare(argv).server))


if __name__ == "__main__":
    main()
