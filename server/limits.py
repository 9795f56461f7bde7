"""What the server allows: its limits, and the share of them one client may hold. Pure data."""

from __future__ import annotations

from dataclasses import dataclass, field

from ubao.engine.review import DEFAULT_TIME_MS
from ubao.server.room import Bounds


@dataclass(frozen=True, slots=True)
class Share:
    """What one client (a connection, or all connections from one address) may hold at once,
    so that no client can take the server's games or engines from everybody else."""

    games: int
    """Games it created that are not over."""
    waiting: int
    """Of those, games that wait for a player."""
    bot_seats: int
    """Server-hosted bot seats in those games (an engine process each)."""

    def within(self, games: int) -> bool:
        """Whether a client holding `games` games may create one more without a bot seat,
        whatever their status: fewer than both counts allow, so none needs counting (a game
        creation would otherwise walk every game of its address, a thousand in the load
        benchmark)."""
        return games < self.games and games < self.waiting


@dataclass(frozen=True, slots=True)
class Limits:
    """The server's limits; tests shrink them (a grace period of a few ms, tiny budgets)."""

    grace_ms: int = 60_000
    """How long a dropped player's seat is held before the game is abandoned; also how long a
    player of a game with a clock may take over their untimed first move before it is
    aborted."""
    burst: int = 60
    """Messages a connection may send at once..."""
    per_second: float = 20.0
    """...and per second after that; beyond, the connection is closed (policy violation)."""
    connections_per_ip: int = 32
    """Connections one address (an IPv6 /64) may have past `hello`'s handshake; beyond, the
    next is closed with 1008..."""
    open_per_ip: int = 0
    """...and connections it may have open at all, counted from accept (handshakes too):
    beyond, the next is refused at once with an HTTP 503, before any handshake. 0: twice
    `connections_per_ip`."""
    max_connections: int = 0
    """Connections open at once, counted from accept; beyond, refused at once with an HTTP
    503. 0: derived from the descriptor limit (`door.connections_for`)."""
    max_games: int = 1000
    """Games not over at the same time."""
    max_bot_seats: int = 32
    """Server-hosted bot seats (one engine process each) in games not over."""
    keep_finished: int = 200
    """The most recently finished games kept in memory for the lobby and late watchers (also
    after a restart); older ones are loaded from the store when asked for by id."""
    per_connection: Share = Share(games=8, waiting=4, bot_seats=4)
    """What the games one connection created may hold (`quota_exceeded` beyond)."""
    per_address: Share = Share(games=32, waiting=16, bot_seats=8)
    """What the games created from one address may hold, whichever connection created them."""
    max_bot_depth: int = 20
    """Deepest search a server-hosted bot seat may ask for."""
    max_bot_time_ms: int = 10_000
    """Longest thinking time per move a server-hosted bot seat may ask for."""
    max_analyses: int = 50
    """Analyses of finished games (`analyse`) waiting or running at once (`server_busy`)."""
    analyses_per_address: int = 2
    """Of them, those one address asked for (`quota_exceeded`)."""
    analysis_time_ms: int = DEFAULT_TIME_MS
    """The engine's time for each move of a game's analysis: `ubao-engine review`'s default, so
    that both mark a game alike."""
    engine_bots: tuple[str, ...] = ()
    """The names of the operator's engine bots (`--engine-bot`), which a bot seat may ask for
    instead of ubao's own engine."""
    move_limit_ms: int = 600_000
    """In a game without a clock, the longest a player may take over a move: past it the game
    ends, `timeout` against them, or `aborted` if they have not moved in it yet."""
    waiting_expiry_ms: int = 60_000
    """A waiting game whose creator and players are all gone is withdrawn after this long..."""
    longest_wait_ms: int = 1_800_000
    """...and any waiting game after this long, its creator there or not."""
    reserved_games: int = 100
    """Of `max_games`, the last ones (a tenth of them at most) go only to addresses that hold
    no game not over: an address that holds one gets `server_busy` beyond the rest."""
    lobby_window_ms: int = 250
    """A game's lobby line goes to subscribers at most once per this long (the latest line at
    the window's end), and a new game's first line after it: none for a game withdrawn
    within it. 0: every change at once."""
    lobby_subscribers_per_ip: int = 8
    """Connections of one address subscribed to the lobby (`quota_exceeded` beyond)."""
    bounds: Bounds = field(default_factory=Bounds)
    wrong_keys_per_name: int = 5
    """Wrong keys for one account's name within `attempts_window_ms` before it waits..."""
    wrong_keys_per_address: int = 20
    """...wrong keys from one address (for any names) before it waits..."""
    claims_per_address: int = 10
    """...and accounts claimed or keys rotated from one address (each one a slow hash)."""
    attempts_window_ms: int = 600_000
    """The window those counts are kept in (`too_many_attempts` with `retry_after_ms`)."""
