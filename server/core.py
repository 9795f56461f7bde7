"""The session core: who may do what, versions, acks, seats, clocks, limits. Sans-I/O.

The asyncio layer feeds it what happened (a connection opened, a frame arrived, a connection
closed, time passed, a bot engine answered) and drains `outputs()`: frames to send, connections
to close, bot turns to think about. The core never awaits, sleeps or reads a clock other than
the injected `now`, so tests drive it by hand.

Every change goes through `_commit`: persist, then reply, then broadcast. So an accepted move is
durable before anybody hears of it, and the mover's `ok` precedes its `moved` event. A change the
store cannot keep is rolled back in memory too and answered with `storage_error`: what clients
were told, what the server holds and what the disk holds never disagree.

In a cluster (docs/cluster.md) the core also has `Peers`: a command for a game another node owns
becomes a `Forward` output (the layer sends it to that node, where a proxy connection, made by
`connect` with the client's `hello`, plays the client), the lobby lists every node's games, and
a live game nobody owns any more is adopted from the store.
"""

from __future__ import annotations

import contextlib
import dataclasses
import heapq
import json
import logging
import re
import secrets
from collections import Counter
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ubao.engine.game import Game, GameError
from ubao.engine.games import make_game
from ubao.engine.search import ALGORITHMS
from ubao.protocol import (
    DEFAULT_PAGE,
    PROTOCOL_VERSION,
    AppCloseCode,
    BotInfo,
    Cancel,
    Clocks,
    Command,
    Create,
    Error,
    ErrorCode,
    Event,
    GameSummary,
    Hello,
    Join,
    ListGames,
    Lobby,
    LobbyFilter,
    Move,
    Ok,
    Over,
    Ping,
    ProtocolError,
    Rematch,
    RematchAnswer,
    RematchOffer,
    RematchState,
    Reply,
    Resign,
    Resume,
    Role,
    SeatEvent,
    SeatSpec,
    ServerMessage,
    Status,
    Takeback,
    TakebackAnswer,
    UnsupportedVersion,
    Watch,
    decode_command,
    escape,
    quote,
)
from ubao.protocol.errors import MAX_ERROR_MESSAGE
from ubao.protocol.messages import MAX_GAME_ID
from ubao.protocol.timing import monotonic_ms
from ubao.server.clock import MessageBudget, Now, wall_ms
from ubao.server.room import Bounds, Checkpoint, Rejected, Room, hash_token
from ubao.server.stores.protocol import GameStore, StoredGame, StoreError

log = logging.getLogger("ubao.server")

POLICY_VIOLATION = 1008
"""The WebSocket close code for a connection over its limits (RFC 6455)."""
SERVICE_RESTART = 1012
"""The WebSocket close code that tells a client to reconnect and resume (RFC 6455): the node
serving its game is gone or no longer owns it."""
STORE_RETRY_MS = 1_000
"""After a failed write, how long timers and bot turns wait before the store is tried again
(a broken disk must not make the server spin)."""
LOBBY_STATUS: dict[LobbyFilter, Status] = {"open": "waiting", "live": "playing", "finished": "over"}
LOBBY_RANK: dict[Status, int] = {"waiting": 0, "playing": 1, "over": 2}
"""A lobby without a filter lists open games first (what a client looking for a game wants),
then live ones, then finished ones; each newest first."""
_SECOND_HELLO = "hello was already received on this connection"
KEPT_RULES = 64
"""Distinct (game, options) whose rules objects are kept for the next room of the same kind."""


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
    waiting_expiry_ms: int = 60_000
    """A waiting game whose creator and players are all gone is withdrawn after this long."""
    bounds: Bounds = field(default_factory=Bounds)


@dataclass(frozen=True, slots=True)
class SendMessage:
    """A message for connections `to`: the layer sends it once the changes before it are durable."""

    to: tuple[int, ...]
    message: ServerMessage
    frame: bytes | None = None
    """The message already encoded, when the store encoded it (an event's `Room.body`)."""


@dataclass(frozen=True, slots=True)
class Close:
    conn: int
    code: int
    reason: str


@dataclass(frozen=True, slots=True)
class BotTurn:
    """A server-hosted bot is to move: the layer asks its engine and calls `bot_moved`."""

    game_id: str
    seat: int
    ply: int
    game: str
    options: dict[str, Any]
    moves: tuple[str, ...]
    """Every move from the start position, in the game's notation."""
    spec: SeatSpec
    clocks: Clocks | None
    pace_ms: int = 0
    """The least time from now until the bot's move is played (the game's `pace_ms`)."""


@dataclass(frozen=True, slots=True)
class BotsDone:
    """The game is over or gone: its bot engines can be shut down."""

    game_id: str


@dataclass(frozen=True, slots=True)
class Forward:
    """A client's frame for a game that node `node` owns: the layer sends it there."""

    conn: int
    node: str
    data: bytes | str


@dataclass(frozen=True, slots=True)
class Listed:
    """A game's lobby line changed: the layer tells the other nodes' lobby subscribers."""

    game: GameSummary


Output = SendMessage | Close | BotTurn | BotsDone | Forward | Listed


class OwnerDown(Exception):
    """The node that owns a game has stopped and no other has taken the game over yet."""


class Peers(Protocol):
    """The other nodes of a cluster, as the core sees them (server/cluster.py); a single node
    has none. Reads go to the shared store, so they answer at once."""

    def owner(self, game_id: str) -> str | None:
        """The other node that owns the live game `game_id`, or None if this node is to serve
        it: it owns it (having just claimed it, if nobody did), or the game is not live
        (over, or unknown). OwnerDown if its owner stopped and its lease has not expired."""

    def games(self) -> list[GameSummary]:
        """The lobby lines of every node's games (live, and the recently finished ones)."""


@dataclass(slots=True)
class Connection:
    id: int
    ip: str
    session: str
    budget: MessageBudget
    name: str = ""
    role: Role | None = None
    """None until `hello`."""
    seats: set[tuple[str, int]] = field(default_factory=set)
    """(game_id, seat) of the seats this connection holds."""
    rooms: set[str] = field(default_factory=set)
    """Games whose events this connection receives."""
    closing: bool = False
    proxy: bool = False
    """It plays a client of another node (in a cluster): its frames never go further."""
    remote: dict[str, str] = field(default_factory=dict)
    """The nodes its commands for other nodes' games went to, by game: each game's commands
    keep going to the same node while this connection lasts."""


class Core:
    def __init__(
        self,
        store: GameStore,
        limits: Limits | None = None,
        *,
        now: Now = monotonic_ms,
        wall: Now = wall_ms,
        games: Callable[[str, dict[str, Any]], Game[Any, Any]] = make_game,
        peers: Peers | None = None,
    ) -> None:
        self.store = store
        self.peers = peers
        self.limits = limits or Limits()
        self.now = now
        self.wall = wall
        self.make_game = games
        self._rules: dict[tuple[str, str], Game[Any, Any]] = {}
        """Rules objects by game and options: a `Game` is stateless (engine/game.py), so every
        room of the same game and options shares one instead of building its tables again."""
        self.rooms: dict[str, Room] = {}
        self._live: dict[str, Room] = {}
        """The games not over, which the limits count."""
        self._by_address: dict[str, dict[str, Room]] = {}
        """The games not over by the address they were created from (their shares)."""
        self.conns: dict[int, Connection] = {}
        self.per_ip: Counter[str] = Counter()
        self.rejected: Counter[str] = Counter()
        """Rejected messages by reason (error code, with the decode failure's cause)."""
        self.closing = False
        self.lobby: set[int] = set()
        """Connections subscribed to lobby changes."""
        self._finished: dict[str, None] = {}
        """The `keep_finished` most recently finished games, in the order they finished: the
        lobby lists these (and the games not over)."""
        self._read: dict[str, None] = {}
        """Older finished games read back from the store because a command named them
        (`watch`, `resume`, hence `ubao export`), in the order they were read, as many as
        `keep_finished`: kept apart and not listed, so that reading old games never pushes the
        recent results out of the lobby."""
        self._bot_plies: dict[str, int] = {}
        """The ply each game's pending bot turn was issued for, so each is issued once."""
        self._retry_at: int | None = None
        """After a failed write: when to try the store again (timers, bot turns)."""
        self._deadlines: dict[str, int] = {}
        """Each game's next deadline (`Room.deadline`), as `_timeline` holds it."""
        self._timeline: list[tuple[int, str]] = []
        """A heap of (deadline, game): the next deadline without looking at every game; an
        entry that `_deadlines` no longer agrees with is stale and skipped."""
        self._touched: set[str] = set()
        """Games changed since their deadline was last indexed."""
        self._next_conn = 0
        self._out: list[Output] = []

    # -- what the layer calls ------------------------------------------------------------------

    def outputs(self) -> list[Output]:
        """Everything to do since the last call, in order."""
        out, self._out = self._out, []
        return out

    def restore(self) -> int:
        """Load every unfinished game from the store, and the most recently finished ones;
        returns how many unfinished. No clock ran while the server was down, and none runs
        until the player to move is back (`Room.resume_clock`): a server bot's turn at once, a
        player's when they resume. Players have a grace period to resume; a waiting game nobody
        comes back to expires."""
        for stored in self.store.finished(self.limits.keep_finished):
            room = self._rebuild(stored)
            if room is not None:
                self._retain(room)
        restored = 0
        for stored in self.store.unfinished():
            room = self._rebuild(stored)
            if room is None:
                continue
            self._open(room)
            restored += 1
            log.info("restored game %s (%s, ply %d)", room.game_id, room.game_name, room.ply)
            self._attend(room)
            self._follow_up(room)
        return restored

    def adopt(self, game_id: str) -> bool:
        """Take a game over from the store (in a cluster: this node holds its lease now), a live
        one as a restart does (clocks wait for the player to move, players have a grace period),
        a finished one as one read back by id (the cluster's lobby lists it if it finished
        recently); False if there is no such game."""
        if game_id in self.rooms:
            return True
        stored = self.store.load(game_id)
        room = self._rebuild(stored) if stored is not None else None
        if room is None:
            return False
        if room.status == "over":
            self._keep_read(room)
            return True
        self._open(room)
        log.info("took over game %s (%s, ply %d)", game_id, room.game_name, room.ply)
        self._attend(room)
        self._follow_up(room)
        return True

    def drop(self, game_id: str) -> set[int]:
        """Forget a game this node no longer owns (another node took it over); returns the
        connections that followed it, which the layer closes so that they come back to it."""
        room = self.rooms.pop(game_id, None)
        if room is None:
            return set()
        log.warning("game %s is owned by another node now: dropped here", game_id)
        self._close_out(room)
        self._touched.add(game_id)
        self._finished.pop(game_id, None)
        self._read.pop(game_id, None)
        self._bot_plies.pop(game_id, None)
        if any(seat.is_bot for seat in room.seats):
            self._out.append(BotsDone(game_id))
        followers = set(room.watchers)
        if room.creator is not None:
            followers.add(room.creator)
        for conn_id in followers:
            conn = self.conns.get(conn_id)
            if conn is not None:
                conn.rooms.discard(game_id)
                conn.seats -= {(game_id, 0), (game_id, 1)}
        return followers

    def listed(self, game: GameSummary) -> None:
        """Another node's game changed its lobby line: tell this node's lobby subscribers."""
        if self.lobby and game.game_id not in self.rooms:
            self._out.append(SendMessage(tuple(self.lobby), Lobby(game=game)))

    def connect(self, ip: str, hello: Hello | None = None) -> int:
        """A new connection from `ip`; with `hello`, a proxy for another node's client that
        said it there (no reply: the client had it from its own node)."""
        self._next_conn += 1
        now = self.now()
        conn = Connection(
            id=self._next_conn,
            ip=ip,
            session=secrets.token_hex(8),
            budget=MessageBudget.new(self.limits.burst, self.limits.per_second, now),
        )
        if hello is not None:
            conn.name, conn.role, conn.proxy = hello.name, hello.role, True
        self.conns[conn.id] = conn
        self.per_ip[ip] += 1
        if self.per_ip[ip] > self.limits.connections_per_ip:
            self.rejected["too_many_connections"] += 1
            self._close(conn, POLICY_VIOLATION, "too many connections from this address")
        return conn.id

    def receive(self, conn_id: int, data: bytes | str) -> None:
        conn = self.conns.get(conn_id)
        if conn is None or conn.closing or self.closing:
            return
        within_budget = conn.budget.take(self.now())
        try:
            command = decode_command(data)
        except UnsupportedVersion as exc:
            if conn.role is None:
                self._unsupported(conn, exc.id, exc.proto)
            else:
                self._error(conn, exc.id, ErrorCode.BAD_MESSAGE, _SECOND_HELLO)
            return
        except ProtocolError as exc:
            if within_budget:
                self._error(conn, exc.id, exc.code, exc.message, f"{exc.code}:{exc.reason}")
            else:
                self._flooded(conn, exc.id)
            return
        if not within_budget:
            self._flooded(conn, command.id)
            return
        try:
            if self._forwarded(conn, command, data):
                return
            self._dispatch(conn, command)
        except Rejected as exc:
            self._error(conn, command.id, exc.code, exc.message)
        except Exception:
            log.exception("error handling %s from connection %d", command.type, conn.id)
            self._error(conn, command.id, ErrorCode.INTERNAL_ERROR, "internal server error")

    def disconnect(self, conn_id: int) -> None:
        conn = self.conns.pop(conn_id, None)
        if conn is None:
            return
        self.per_ip[conn.ip] -= 1
        if self.per_ip[conn.ip] <= 0:
            del self.per_ip[conn.ip]
        self.lobby.discard(conn.id)
        for game_id in conn.rooms:
            room = self.rooms.get(game_id)
            if room is not None:
                room.watchers.discard(conn.id)
        if self.closing:
            return  # a restart is not a player leaving: seats stay as they were
        now, grace_ms = self.now(), self.limits.grace_ms
        for room in self.rooms.values():
            if room.creator == conn.id:
                room.creator = None
                self._attend(room)
        for game_id, seat in sorted(conn.seats):
            room = self.rooms.get(game_id)
            if room is None:
                continue
            holds = room.seats[seat].holder == conn.id
            if holds and room.status == "over":
                # Nothing to store or hold: the others see the player gone, as during play.
                room.release(seat, now, grace_ms)
                self._tell(room, room.presence(seat))
            elif holds:
                before = room.checkpoint()
                try:
                    self._commit(room, before, room.drop(seat, now, grace_ms))
                except Rejected:
                    # The drop could not be stored or told; the seat is still held in memory.
                    room.release(seat, now, grace_ms)
                self._attend(room)
            offer = room.rematch_offer
            if offer is not None and (offer == seat or holds):
                # As on lichess, an offer lapses when its player leaves (withdrawn), and when
                # the player it waits for leaves (declined: they will not answer it).
                room.rematch_offer = None
                state: RematchState = "withdrawn" if offer == seat else "declined"
                self._tell(room, RematchOffer(game_id, offer, state))

    def next_deadline(self) -> int | None:
        """When `tick` next has work (a flag fall, a grace period's end, a waiting game's
        expiry, a retry), if ever."""
        if self._retry_at is not None:
            return self._retry_at
        self._index()
        timeline, deadlines = self._timeline, self._deadlines
        while timeline and deadlines.get(timeline[0][1]) != timeline[0][0]:
            heapq.heappop(timeline)
        return timeline[0][0] if timeline else None

    def tick(self) -> None:
        now = self.now()
        if self._retry_at is not None:
            if now < self._retry_at:
                return
            self._retry_at = None
            for room in list(self.rooms.values()):
                self._follow_up(room)  # bot turns whose move could not be stored
        self._index()
        timeline, deadlines = self._timeline, self._deadlines
        due: dict[str, None] = {}
        while timeline and timeline[0][0] <= now:
            deadline, game_id = heapq.heappop(timeline)
            if deadlines.get(game_id) == deadline:
                del deadlines[game_id]
                due[game_id] = None
        self._touched.update(due)  # indexed again, whatever expiring them did
        for game_id in due:
            expiring = self.rooms.get(game_id)
            if expiring is not None:
                with contextlib.suppress(Rejected):  # not stored: tried again after a pause
                    self._expire(expiring)

    def _index(self) -> None:
        """Bring the deadlines of the games changed since the last call up to date."""
        deadlines, timeline = self._deadlines, self._timeline
        for game_id in self._touched:
            room = self.rooms.get(game_id)
            deadline = room.deadline() if room is not None and room.status != "over" else None
            if deadline is None:
                deadlines.pop(game_id, None)
            elif deadlines.get(game_id) != deadline:
                deadlines[game_id] = deadline
                heapq.heappush(timeline, (deadline, game_id))
        self._touched.clear()
        if len(timeline) > 2 * len(deadlines) + 64:  # mostly stale entries: start afresh
            self._timeline = [(deadline, game_id) for game_id, deadline in deadlines.items()]
            heapq.heapify(self._timeline)

    def bot_moved(self, turn: BotTurn, move: str, info: BotInfo | None) -> bool:
        """A bot engine chose `move`. False if the rules reject it (the layer asks again);
        True once the turn is settled, including when the game moved on meanwhile."""
        room = self.rooms.get(turn.game_id)
        if self.closing or room is None or not self._turn_current(room, turn):
            return True  # after a restart the bot is asked again
        try:
            self._expire(room)
            if room.status == "playing":
                before = room.checkpoint()
                self._commit(room, before, room.play(turn.seat, turn.ply, move, self.now(), info))
        except Rejected as exc:
            if exc.code != ErrorCode.STORAGE_ERROR:
                log.warning("bot in game %s seat %d: %s", turn.game_id, turn.seat, exc.message)
                return False
            # Not stored, so not played: the bot is asked again once the store may work.
            self._bot_plies.pop(turn.game_id, None)
        return True

    def bot_failed(self, turn: BotTurn, why: str) -> None:
        """The engine could not produce a move, even after restarts: the bot's seat loses."""
        room = self.rooms.get(turn.game_id)
        if self.closing or room is None or not self._turn_current(room, turn):
            return
        log.error("bot in game %s seat %d failed: %s", turn.game_id, turn.seat, why)
        before = room.checkpoint()
        try:
            self._commit(room, before, room.forfeit(turn.seat, "engine_failure", self.now()))
        except Rejected:
            self._bot_plies.pop(turn.game_id, None)  # the bot gets another chance

    def shutdown(self) -> None:
        """Freeze the clocks and persist every game; later disconnects change no seat."""
        self.closing = True
        now = self.now()
        for room in self.rooms.values():
            if room.status != "over":
                room.pause(now)
                try:
                    self.store.save(room, [], now)
                except StoreError as exc:
                    log.error("%s: its clocks restart from its last saved state", exc)
        if self.rejected:
            counts = ", ".join(f"{reason} {count}" for reason, count in self.rejected.most_common())
            log.info("rejected messages: %s", counts)

    # -- commands ------------------------------------------------------------------------------

    def _forwarded(self, conn: Connection, command: Command, data: bytes | str) -> bool:
        """In a cluster: send a command for another node's game there (a proxy's command is
        never sent on: its node is not the owner any more, so its client has to come back)."""
        game_id = getattr(command, "game_id", None)
        if self.peers is None or game_id is None or conn.role is None or game_id in self.rooms:
            return False
        node = conn.remote.get(game_id)
        if node is None:
            try:
                node = self.peers.owner(game_id)
            except OwnerDown:
                node = ""
            if node is None:
                return False
        if node == "" or conn.proxy:
            self._close(conn, SERVICE_RESTART, "service restart")
        else:
            conn.remote[game_id] = node
            self._out.append(Forward(conn.id, node, data))
        return True

    def _dispatch(self, conn: Connection, command: Command) -> None:
        if isinstance(command, Hello):
            self._hello(conn, command)
        elif isinstance(command, Ping):
            self._send(conn, Ok(id=command.id, t=command.t, server_t=self.wall()))
        elif conn.role is None:
            raise Rejected(ErrorCode.HELLO_REQUIRED, "send hello first")
        elif isinstance(command, ListGames):
            self._list(conn, command)
        elif isinstance(command, Create):
            self._create(conn, command)
        elif isinstance(command, Cancel):
            room = self._room(command.game_id)
            if room.creator != conn.id:
                message = f"game {room.game_id} was not created on this connection"
                raise Rejected(ErrorCode.NOT_YOUR_GAME, message)
            before = room.checkpoint()
            events = room.cancel(self.now())
            self._commit(room, before, events, reply=(conn, Ok(id=command.id)))
        elif isinstance(command, Watch):
            self._watch(conn, command)
        elif conn.role == "spectator":
            raise Rejected(ErrorCode.NOT_YOUR_SEAT, "spectators cannot take seats or move")
        elif isinstance(command, Join):
            self._join(conn, command)
        elif isinstance(command, Resume):
            self._resume(conn, command)
        elif isinstance(command, Move):
            room = self._room(command.game_id)
            seat = self._held_seat(conn, room, command.token)
            before = room.checkpoint()
            events = room.play(seat, command.ply, command.move, self.now(), command.info)
            self._commit(room, before, events, reply=(conn, Ok(id=command.id)))
        elif isinstance(command, Resign):
            room = self._room(command.game_id)
            seat = self._held_seat(conn, room, command.token)
            before = room.checkpoint()
            events = room.resign(seat, self.now())
            self._commit(room, before, events, reply=(conn, Ok(id=command.id)))
        elif isinstance(command, Takeback | TakebackAnswer):
            self._takeback(conn, command)
        elif isinstance(command, Rematch | RematchAnswer):
            self._rematch(conn, command)

    def _takeback(self, conn: Connection, command: Takeback | TakebackAnswer) -> None:
        """Ask for a takeback (a server bot opponent grants it at once) or answer one."""
        room = self._room(command.game_id)
        seat = self._held_seat(conn, room, command.token)
        before = room.checkpoint()
        if isinstance(command, Takeback):
            granted = room.seats[1 - seat].is_bot
            events = room.ask_takeback(seat, command.ply, self.now(), granted=granted)
        else:
            events = room.answer_takeback(seat, command.ply, command.accept, self.now())
        self._persist(room, before, events)
        if room.ply < before.ply:
            # A bot turn asked before the takeback is for a position gone by: ask anew.
            self._bot_plies.pop(room.game_id, None)
        self._publish(room, events, reply=(conn, Ok(id=command.id)))

    def _rematch(self, conn: Connection, command: Rematch | RematchAnswer) -> None:
        """Offer a rematch of a finished game, or answer the opponent's offer; a server bot
        opponent accepts at once, and so does a `rematch` crossing the opponent's offer."""
        room = self._room(command.game_id)
        if self.rooms.get(room.game_id) is not room and room.seat_of(command.token) is not None:
            # Read back for this command alone and forgotten again (`--keep-finished 0`): the
            # game is over and its players' seats went with it, so "resume it first" would not
            # help. Nobody is in it to play again with.
            kept = "it keeps no finished games" if not self.limits.keep_finished else "any more"
            message = (
                f"game {room.game_id} is over and not kept by this server ({kept}): "
                "nobody is in it to play a rematch with"
            )
            raise Rejected(ErrorCode.NOT_STARTED, message)
        seat = self._held_seat(conn, room, command.token)
        if room.status != "over":
            raise Rejected(ErrorCode.NOT_OVER, f"game {room.game_id} is not over yet")
        if room.seats[1 - seat].free:
            message = (
                f"game {room.game_id} never started: nobody sat in seat {1 - seat} "
                "to play a rematch with"
            )
            raise Rejected(ErrorCode.NOT_STARTED, message)
        if room.rematch_id is not None:
            message = f"game {room.game_id} was rematched already: game {room.rematch_id}"
            raise Rejected(ErrorCode.ALREADY_REMATCHED, message)
        offer = room.rematch_offer
        if isinstance(command, RematchAnswer):
            if offer is None or offer == seat:
                message = f"no rematch offer of the opponent's waits in game {room.game_id}"
                raise Rejected(ErrorCode.NO_REMATCH_OFFER, message)
            if command.accept:
                self._play_rematch(conn, command.id, room, offer)
                return
            room.rematch_offer = None
            self._send(conn, Ok(id=command.id))
            self._tell(room, RematchOffer(room.game_id, offer, "declined"))
        elif offer == seat:
            message = f"your rematch offer in game {room.game_id} waits for its answer"
            raise Rejected(ErrorCode.REMATCH_PENDING, message)
        elif offer is not None or room.seats[1 - seat].is_bot:
            self._play_rematch(conn, command.id, room, seat if offer is None else offer)
        elif room.seats[1 - seat].holder is None:
            # As on lichess, where the rematch button goes once the opponent has left.
            message = (
                f"{room.seats[1 - seat].name} has left game {room.game_id}: "
                "nobody is there to play a rematch with"
            )
            raise Rejected(ErrorCode.NOT_STARTED, message)
        else:
            room.rematch_offer = seat
            self._send(conn, Ok(id=command.id))
            self._tell(room, RematchOffer(room.game_id, seat, "offered"))

    def _play_rematch(self, conn: Connection, command_id: int, room: Room, offerer: int) -> None:
        """Create the rematch (the offerer's game, for its shares): same game, options, clock,
        pace and seat kinds, seats swapped; seat both players with new tokens, tell everyone
        in the old game, and send each player the new game's snapshot."""
        players = {
            1 - index: self.conns[seat.holder]
            for index, seat in enumerate(room.seats)
            if not seat.is_bot and seat.holder is not None
        }
        spec = Create(
            id=command_id,
            game=room.game_name,
            options=room.options,
            seats=(room.seats[1].spec, room.seats[0].spec),
            clock=room.clock_spec,
            pace_ms=room.pace_ms or None,
        )
        maker = players[1 - offerer]  # whose shares the new game takes: not always `conn`'s
        whose = "this" if maker is conn else "the rematch offerer's"
        new = self._new_room(maker, spec, seated=len(players), whose=whose)
        before, now = new.checkpoint(), self.now()
        events: list[Event] = []
        tokens: dict[int, str] = {}
        for new_seat, player in players.items():
            tokens[new_seat] = secrets.token_urlsafe(24)
            name = room.seats[1 - new_seat].name or player.name
            token_hash = hash_token(tokens[new_seat])
            is_bot = player.role == "bot"
            events += new.join(new_seat, name, token_hash, player.id, now, is_bot=is_bot)[1]
        self._persist(new, before, events)
        self._open(new)
        room.rematch_offer, room.rematch_id = None, new.game_id
        log.info("game %s rematched as game %s", room.game_id, new.game_id)
        self._send(conn, Ok(id=command_id))
        accepted = RematchOffer(room.game_id, offerer, "accepted", new_game_id=new.game_id)
        for new_seat, player in players.items():
            player.seats.add((new.game_id, new_seat))
            mine = dataclasses.replace(accepted, new_seat=new_seat, token=tokens[new_seat])
            self._send(player, mine)
        self._tell(room, accepted, frozenset(player.id for player in players.values()))
        self._publish(new, events, joiners=[(p, None) for p in players.values()], listed=True)

    def _tell(
        self, room: Room, message: ServerMessage, exclude: frozenset[int] = frozenset()
    ) -> None:
        """Everyone in the finished game (but `exclude`) hears of its rematch offer, or of a
        player leaving or coming back: news that is no game event (nothing stored, no new
        version)."""
        recipients = tuple(conn for conn in room.watchers if conn not in exclude)
        if recipients:
            self._out.append(SendMessage(recipients, message))

    def _hello(self, conn: Connection, hello: Hello) -> None:
        if conn.role is not None:
            raise Rejected(ErrorCode.BAD_MESSAGE, _SECOND_HELLO)
        conn.name, conn.role = hello.name, hello.role
        log.info("connection %d (%s) is %s %r", conn.id, conn.ip, hello.role, hello.name)
        self._send(conn, Ok(id=hello.id, proto=PROTOCOL_VERSION, session=conn.session))

    def _unsupported(self, conn: Connection, id: int | None, proto: int) -> None:
        """A hello of another version (the codec checks it first: `UnsupportedVersion`)."""
        message = f"protocol version {proto} is not supported; this server speaks "
        message += str(PROTOCOL_VERSION)
        self._error(conn, id, ErrorCode.UNSUPPORTED_VERSION, message)
        self._close(conn, AppCloseCode.UNSUPPORTED_VERSION, "unsupported protocol version")

    def _create(self, conn: Connection, create: Create) -> None:
        room = self._new_room(conn, create)
        before = room.checkpoint()
        events = room.start_if_full(self.now())
        self._persist(room, before, events)
        self._open(room)
        if log.isEnabledFor(logging.DEBUG):  # per-game lines are debug: nothing per game at info
            game = room.game.describe()
            log.debug("game %s created by connection %d: %s", room.game_id, conn.id, game)
        ok = Ok(id=create.id, game_id=room.game_id)
        self._publish(room, events, reply=(conn, ok), listed=True)

    def _new_room(
        self, conn: Connection, create: Create, *, seated: int = 0, whose: str = "this"
    ) -> Room:
        """A new game created by `conn`, checked against the limits and its shares, not yet
        stored or listed; `seated` players sit down in it at once (it will not wait for them).
        A refusal names the shares as `whose` (`this` connection's, or a rematch offerer's)."""
        # The codec checks only that the game's name is well formed; the engine's registry says
        # whether there is such a game (OptionsError: bad_options), before any limit is asked.
        try:
            game = self._game(create.game, create.options)
        except GameError as exc:
            raise Rejected(ErrorCode.BAD_OPTIONS, str(exc)) from None
        limits = self.limits
        for index, spec in enumerate(create.seats):
            if spec.eval is not None and spec.eval not in game.evaluations:
                known = ", ".join(game.evaluations)
                message = (
                    f"seat {index}: {create.game} has no evaluation {quote(spec.eval)} ({known})"
                )
                raise Rejected(ErrorCode.BAD_OPTIONS, message)
            if spec.algorithm is not None and spec.algorithm not in ALGORITHMS:
                known = ", ".join(ALGORITHMS)
                message = f"seat {index}: unknown algorithm {quote(spec.algorithm)} ({known})"
                raise Rejected(ErrorCode.BAD_OPTIONS, message)
            if spec.kind == "bot" and (spec.depth or 0) > limits.max_bot_depth:
                deepest = limits.max_bot_depth
                message = f"seat {index}: this server's bots search at most {deepest} plies deep"
                raise Rejected(ErrorCode.BAD_OPTIONS, message)
            if (spec.time_ms or 0) > limits.max_bot_time_ms:
                longest = limits.max_bot_time_ms
                message = f"seat {index}: this server's bots think at most {longest} ms a move"
                raise Rejected(ErrorCode.BAD_OPTIONS, message)
        bots = sum(spec.kind == "bot" for spec in create.seats)
        waits = bots + seated < len(create.seats)
        ours = list(self._by_address.get(conn.ip, {}).values())
        if bots or not limits.per_connection.within(len(ours)):
            mine = [room for room in ours if room.creator == conn.id]
            self._check_share(limits.per_connection, f"{whose} connection", mine, bots, waits)
        self._check_share(limits.per_address, f"{whose} address", ours, bots, waits)
        if len(self._live) >= limits.max_games:
            raise Rejected(ErrorCode.SERVER_BUSY, "too many games are going on; try again later")
        if bots:
            running = sum(seat.is_bot for room in self._live.values() for seat in room.seats)
            if running + bots > limits.max_bot_seats:
                message = "too many bot seats are busy; try again later"
                raise Rejected(ErrorCode.SERVER_BUSY, message)
        game_id = new_game_id(self.rooms)
        room = Room(
            game_id,
            create.game,
            create.options,
            game,
            create.seats,
            create.clock,
            self.limits.bounds,
            created=self.wall(),
        )
        room.creator, room.creator_ip = conn.id, conn.ip
        room.pace_ms = create.pace_ms or 0
        room.first_move_ms = self.limits.grace_ms
        return room

    @staticmethod
    def _check_share(share: Share, whose: str, rooms: list[Room], bots: int, waits: bool) -> None:
        """Refuse a new game that would take `whose` over its share (`rooms`: its games not
        over)."""
        if not bots and share.within(len(rooms)):
            return  # fewer games than either count allows: none needs counting
        held = sum(seat.is_bot for room in rooms for seat in room.seats) if bots else 0
        if len(rooms) >= share.games:
            why = f"{len(rooms)} games not over"
        elif waits and sum(room.status == "waiting" for room in rooms) >= share.waiting:
            why = f"{share.waiting} games waiting for players"
        elif bots and held + bots > share.bot_seats:
            why = f"{held} of its {share.bot_seats} server bot seats taken"
        else:
            return
        message = f"{whose} already has {why}; finish or cancel one first"
        raise Rejected(ErrorCode.QUOTA_EXCEEDED, message)

    def _list(self, conn: Connection, command: ListGames) -> None:
        """A page of the lobby, in `LOBBY_RANK` order, newest first; subscribe or not."""
        after = _cursor_key(command.cursor) if command.cursor else None
        if command.subscribe is not None:
            (self.lobby.add if command.subscribe else self.lobby.discard)(conn.id)
        status = LOBBY_STATUS[command.filter] if command.filter else None
        read = self._read  # old games read back by id: not in the lobby
        lines: list[Room | GameSummary] = [
            room for game_id, room in self.rooms.items() if game_id not in read
        ]
        if self.peers is not None:  # a cluster: the other nodes' games too
            lines += (
                game
                for game in self.peers.games()
                if game.game_id not in self.rooms or game.game_id in read
            )
        keyed = (
            (_lobby_key(line), line)
            for line in lines
            if (status is None or line.status == status)
            and (command.player is None or any(s.name == command.player for s in line.seats))
        )
        later = (item for item in keyed if after is None or item[0] > after)
        limit = command.limit or DEFAULT_PAGE
        page = heapq.nsmallest(limit + 1, later, key=lambda item: item[0])
        cursor = _cursor(page[limit - 1][0]) if len(page) > limit else None
        summaries = tuple(
            line.summary() if isinstance(line, Room) else line for _, line in page[:limit]
        )
        self._send(conn, Ok(id=command.id, games=summaries, cursor=cursor))

    def _join(self, conn: Connection, join: Join) -> None:
        room = self._room(join.game_id)
        token = secrets.token_urlsafe(24)
        before = room.checkpoint()
        seat, events = room.join(
            join.seat, conn.name, hash_token(token), conn.id, self.now(), is_bot=conn.role == "bot"
        )
        self._persist(room, before, events)
        conn.seats.add((room.game_id, seat))
        self._attend(room)
        log.debug("connection %d joined game %s as seat %d", conn.id, room.game_id, seat)
        ok = Ok(id=join.id, game_id=room.game_id, seat=seat, token=token)
        self._publish(room, events, reply=(conn, ok), joiners=((conn, None),))

    def _resume(self, conn: Connection, resume: Resume) -> None:
        room = self._room(resume.game_id)
        seat = room.seat_of(resume.token)
        if seat is None:
            raise Rejected(ErrorCode.NOT_YOUR_SEAT, f"this token holds no seat of {room.game_id}")
        before, shown = room.checkpoint(), room.seats[seat].info()
        previous, events = room.attach(seat, conn.id, self.now(), is_bot=conn.role == "bot")
        if events or room.status != "over":
            # A finished game's return changes nothing stored: writing its row would date it
            # as just finished, and a restart would list it among the recent results.
            self._persist(room, before, events)
        if previous is not None and previous != conn.id:
            self._take_over(previous, room, seat)
        conn.seats.add((room.game_id, seat))
        self._attend(room)
        log.info("connection %d resumed game %s seat %d", conn.id, room.game_id, seat)
        reply = (conn, Ok(id=resume.id))
        self._publish(room, events, reply=reply, joiners=((conn, resume.since_v),))
        if room.status == "over" and room.seats[seat].info() != shown:
            # Back in a finished game (or another kind of client in the seat): the others see
            # it, as a player leaving it; the player's own snapshot or replay already says so.
            self._tell(room, room.presence(seat), frozenset({conn.id}))

    def _watch(self, conn: Connection, watch: Watch) -> None:
        room = self._room(watch.game_id)
        self._send(conn, Ok(id=watch.id))
        # A watcher who missed nothing gets a snapshot, not silence: the protocol promises
        # something after a watch's `ok` (docs/protocol.md, `watch`).
        since_v = watch.since_v if watch.since_v is not None and watch.since_v < room.v else None
        self._subscribe(conn, room, since_v)

    # -- helpers -------------------------------------------------------------------------------

    def _room(self, game_id: str) -> Room:
        """The game, with whatever its clock or grace periods decided by now; a finished game
        no longer in memory comes back from the store."""
        room = self.rooms.get(game_id)
        if room is None and self.peers is not None:
            # In a cluster, `Peers.owner` found that this node is to serve it, live or not.
            if not self.adopt(game_id):
                raise Rejected(ErrorCode.UNKNOWN_GAME, f"there is no game {quote(game_id)}")
            room = self.rooms[game_id]
        elif room is None:
            try:
                stored = self.store.load(game_id)
            except StoreError as exc:  # its last changes are not kept yet: the disk fails
                log.error("%s", exc)
                message = "the server cannot read this game now; try again"
                raise Rejected(ErrorCode.STORAGE_ERROR, message) from None
            room = self._rebuild(stored) if stored and stored.status == "over" else None
            if room is None:
                raise Rejected(ErrorCode.UNKNOWN_GAME, f"there is no game {quote(game_id)}")
            self._keep_read(room)
        self._expire(room)
        return room

    def _held_seat(self, conn: Connection, room: Room, token: str) -> int:
        seat = room.seat_of(token)
        if seat is None:
            raise Rejected(ErrorCode.NOT_YOUR_SEAT, f"this token holds no seat of {room.game_id}")
        if (room.game_id, seat) not in conn.seats:
            message = (
                f"seat {seat} of {room.game_id} is not held by this connection; resume it first"
                if room.seats[seat].holder is None
                else f"seat {seat} is played from another connection; resume it to take over"
            )
            raise Rejected(ErrorCode.NOT_YOUR_SEAT, message)
        return seat

    def _take_over(self, previous: int, room: Room, seat: int) -> None:
        """Close the connection the seat was taken from (4001), whatever else it holds: the
        close is the protocol's only notice of a lost seat (clients stop on it), so its other
        seats go as in any disconnection, when the layer reports the close. Only the seat
        taken over is not dropped: it is the new connection's."""
        old = self.conns.get(previous)
        if old is None:
            return
        old.seats.discard((room.game_id, seat))
        log.info("connection %d lost game %s seat %d to a takeover", old.id, room.game_id, seat)
        self._close(old, AppCloseCode.SEAT_TAKEN_OVER, "seat taken over by another connection")

    def _subscribe(self, conn: Connection, room: Room, since_v: int | None) -> None:
        """Send the joiner, resumer or watcher what it missed, then keep it informed. A rematch
        offer waiting in a finished game follows (it is in no replayed event): a player who
        comes back to the game sees it, as everyone there did when it was made."""
        room.watchers.add(conn.id)
        conn.rooms.add(room.game_id)
        missed = room.events_since(since_v) if since_v is not None else None
        to_move = self._holds_turn(conn, room)
        if missed is None:
            self._send(conn, room.snapshot(self.now(), with_legal=to_move))
        else:
            for event in missed:
                self._send(conn, room.with_legal(event) if to_move else event)
        if room.rematch_offer is not None:
            self._send(conn, RematchOffer(room.game_id, room.rematch_offer, "offered"))

    def _attend(self, room: Room) -> None:
        """Start or stop the expiry of a waiting game: it runs while neither the creator nor
        any player is connected."""
        self._touched.add(room.game_id)
        attended = room.creator is not None or any(s.holder is not None for s in room.seats)
        if attended or room.status != "waiting":
            room.expires_at = None
        elif room.expires_at is None:
            room.expires_at = self.now() + self.limits.waiting_expiry_ms

    def _holds_turn(self, conn: Connection, room: Room) -> bool:
        return (room.game_id, room.to_move) in conn.seats

    def _expire(self, room: Room) -> None:
        deadline = room.deadline()
        if deadline is None or deadline > self.now():
            return  # nothing for time to decide yet (most commands): no checkpoint
        before = room.checkpoint()
        events = room.expire(self.now())
        if events:
            self._commit(room, before, events)

    def _turn_current(self, room: Room, turn: BotTurn) -> bool:
        return (
            room.bot_to_move() and tuple(room.history) == turn.moves and room.to_move == turn.seat
        )

    def _commit(
        self,
        room: Room,
        before: Checkpoint,
        events: Sequence[Event],
        *,
        reply: tuple[Connection, Reply] | None = None,
    ) -> None:
        """Persist the change made since `before`, then publish it."""
        self._persist(room, before, events)
        self._publish(room, events, reply=reply)

    def _persist(self, room: Room, before: Checkpoint, events: Sequence[Event]) -> None:
        """Store the room as changed since `before`; if that fails, undo the change in memory
        too, so that nothing changed anywhere, and refuse the command with `storage_error`."""
        self._touched.add(room.game_id)  # its deadline may have changed, or be undone
        try:
            self.store.save(room, events, self.now())
        except Exception as exc:
            room.rollback(before)
            if not isinstance(exc, StoreError):
                raise
            self._retry_at = self.now() + STORE_RETRY_MS
            log.error("%s; the change was undone", exc)
            message = "the server could not store this change, so nothing changed; try again"
            raise Rejected(ErrorCode.STORAGE_ERROR, message) from None

    def _publish(
        self,
        room: Room,
        events: Sequence[Event],
        *,
        reply: tuple[Connection, Reply] | None = None,
        joiners: Sequence[tuple[Connection, int | None]] = (),
        listed: bool = False,
    ) -> None:
        """Reply, then bring the `joiners` (who joined, resumed or were seated by a rematch,
        each with the version it saw) up to date, then broadcast to the others, then tell
        lobby subscribers if the game's line changed (it is `listed` anew, or a seat or its
        status changed), then start whatever comes next. So a joiner's `ok` is followed by its
        snapshot or missed events before anything else, a lobby event included."""
        if reply is not None:
            self._send(*reply)
        for joiner, since_v in joiners:
            self._subscribe(joiner, room, since_v)
        joined = {joiner.id for joiner, _ in joiners}
        recipients = [conn for conn in room.watchers if conn not in joined]
        movers = tuple(c for c in recipients if self._holds_turn(self.conns[c], room))
        others = tuple(c for c in recipients if c not in movers)
        for event in events:
            personal = room.with_legal(event)
            body = room.take_body(event)
            if personal is not event and movers:
                self._out.append(SendMessage(movers, personal))
                if others:
                    self._out.append(SendMessage(others, event, body))
            elif recipients:
                self._out.append(SendMessage(tuple(recipients), event, body))
        if listed or any(isinstance(e, SeatEvent | Over) for e in events):
            if self.lobby:
                self._out.append(SendMessage(tuple(self.lobby), Lobby(game=room.summary())))
            if self.peers is not None:
                self._out.append(Listed(room.summary()))
        self._follow_up(room)

    def _follow_up(self, room: Room) -> None:
        """Ask a bot for its move, or retire a finished game."""
        if room.status == "over":
            if room.game_id in self._finished or room.game_id in self._read:
                return
            log.debug("game %s over: %s", room.game_id, room.result)
            self._bot_plies.pop(room.game_id, None)
            if any(seat.is_bot for seat in room.seats):
                self._out.append(BotsDone(room.game_id))
            self._retain(room)
        elif room.bot_to_move() and self._bot_plies.get(room.game_id) != room.ply:
            self._bot_plies[room.game_id] = room.ply
            seat = room.to_move
            self._out.append(
                BotTurn(
                    game_id=room.game_id,
                    seat=seat,
                    ply=room.ply,
                    game=room.game_name,
                    options=room.options,
                    moves=tuple(room.history),
                    spec=room.seats[seat].spec,
                    clocks=room.clocks(self.now()),
                    pace_ms=room.pace_ms,
                )
            )

    def _open(self, room: Room) -> None:
        """A game not over joins the server's games (and its creator's share)."""
        self.rooms[room.game_id] = room
        self._live[room.game_id] = room
        if room.creator_ip is not None:
            self._by_address.setdefault(room.creator_ip, {})[room.game_id] = room

    def _close_out(self, room: Room) -> None:
        """The game is over or gone: the limits no longer count it."""
        self._live.pop(room.game_id, None)
        address = room.creator_ip
        if address is not None and address in self._by_address:
            ours = self._by_address[address]
            ours.pop(room.game_id, None)
            if not ours:
                del self._by_address[address]

    def _retain(self, room: Room) -> None:
        """Keep a finished game in memory, as one of the `keep_finished` most recent."""
        self._close_out(room)
        self._keep(room, self._finished)

    def _keep_read(self, room: Room) -> None:
        """Keep a finished game read back by id, apart from the recent ones (`_read`)."""
        self._keep(room, self._read)

    def _keep(self, room: Room, kept: dict[str, None]) -> None:
        """Keep `room` in memory as the newest of `kept`, forgetting the oldest beyond
        `keep_finished`, but not one whose rematch offer waits for its answer: forgetting the
        game would drop the offer unseen (an offer lapses only when a player leaves, and its
        game is forgotten at the next game kept after that)."""
        self.rooms[room.game_id] = room
        kept[room.game_id] = None
        excess = len(kept) - self.limits.keep_finished
        if excess <= 0:
            return
        forget: list[str] = []
        for game_id in kept:
            if len(forget) == excess:
                break
            if self.rooms[game_id].rematch_offer is None:
                forget.append(game_id)
        for game_id in forget:
            del kept[game_id]
            self._forget(game_id)

    def _forget(self, game_id: str) -> None:
        room = self.rooms.pop(game_id, None)
        if room is None:
            return
        for conn_id in room.watchers:
            conn = self.conns.get(conn_id)
            if conn is not None:
                conn.rooms.discard(game_id)
                conn.seats -= {(game_id, 0), (game_id, 1)}

    def _rebuild(self, stored: StoredGame) -> Room | None:
        """The room of a stored game, or None (logged) if it cannot be rebuilt."""
        try:
            return self._rebuilt(stored)
        except (GameError, ValueError, KeyError) as exc:
            log.error("cannot restore game %s: %s", stored.game_id, exc)
            return None

    def _rebuilt(self, stored: StoredGame) -> Room:
        now = self.now()
        if stored.status not in ("waiting", "playing", "over"):
            raise ValueError(f"unexpected status {stored.status!r}")
        room = Room(
            stored.game_id,
            stored.game,
            stored.options,
            self._game(stored.game, stored.options),
            [spec for spec, _, _ in stored.seats],
            stored.clock,
            self.limits.bounds,
            created=stored.created,
        )
        room.pace_ms = stored.pace_ms
        room.first_move_ms = self.limits.grace_ms
        over = stored.status == "over"
        for seat, (_, name, token_hash) in zip(room.seats, stored.seats, strict=True):
            seat.name, seat.token_hash = name, token_hash
            if token_hash is not None and not over:
                seat.grace_until = now + self.limits.grace_ms
                seat.returning = True  # no clock of theirs runs until they are back
        room.replay(stored.movers, stored.moves)
        room.restore_events(stored.events)
        if over:
            last = room.events[-1] if room.events else None
            if not isinstance(last, Over):
                raise ValueError("a finished game without its over event")
            room.status, room.result = "over", last.result
        else:
            room.status = "playing" if stored.status == "playing" else "waiting"
        if room.clock is not None and stored.clocks is not None:
            room.clock.remaining = list(stored.clocks)
        room.resume_clock(now)
        return room

    def _game(self, name: str, options: dict[str, Any]) -> Game[Any, Any]:
        """The rules of `name` with `options`, shared by the rooms that play them."""
        key = (name, json.dumps(options, sort_keys=True))
        game = self._rules.get(key)
        if game is None:
            game = self._rules[key] = self.make_game(name, options)
            if len(self._rules) > KEPT_RULES:
                del self._rules[next(iter(self._rules))]
        return game

    def _send(self, conn: Connection, message: ServerMessage) -> None:
        self._out.append(SendMessage((conn.id,), message))

    def _error(
        self,
        conn: Connection,
        id: int | None,
        code: ErrorCode,
        message: str,
        reason: str | None = None,
    ) -> None:
        self.rejected[reason or code] += 1
        # Whatever went into it, an error message is short and printable on anyone's terminal.
        message = escape(message, MAX_ERROR_MESSAGE)
        log.debug("connection %d: %s (%s)", conn.id, code, message)
        self._send(conn, Error(id=id, code=code, message=message))

    def _flooded(self, conn: Connection, id: int | None) -> None:
        message = "too many messages: this connection is closed"
        self._error(conn, id, ErrorCode.RATE_LIMITED, message)
        self._close(conn, POLICY_VIOLATION, "message budget exceeded")

    def _close(self, conn: Connection, code: int, reason: str) -> None:
        conn.closing = True
        self._out.append(Close(conn.id, code, reason))


def new_game_id(taken: Container[str]) -> str:
    """8 URL-safe characters (48 random bits) that do not start with `-` or `_`: a command line
    would read `-x...` as an option (`ubao watch ID`)."""
    while True:
        game_id = secrets.token_urlsafe(6)
        if game_id[0].isalnum() and game_id not in taken:
            return game_id


def _lobby_key(line: Room | GameSummary) -> tuple[int, int, str]:
    """Where a game stands in the lobby: by `LOBBY_RANK`, then newest first."""
    return LOBBY_RANK[line.status], -(line.created or 0), line.game_id


_CURSOR = re.compile(rf"([0-2]):(0|-?[1-9][0-9]*):([A-Za-z0-9_-]{{1,{MAX_GAME_ID}}})")
"""What `_cursor` writes: a `LOBBY_RANK`, a negated creation time and a game id (`new_game_id`
writes URL-safe characters), in ASCII."""


def _cursor(key: tuple[int, int, str]) -> str:
    return f"{key[0]}:{key[1]}:{key[2]}"


def _cursor_key(cursor: str) -> tuple[int, int, str]:
    """The lobby key a `cursor` of ours stands for; anything `_cursor` does not write (spaces,
    signs or digits other than ASCII's, which `int` would take, more fields) is a bad message."""
    found = _CURSOR.fullmatch(cursor)
    if found is None:
        raise Rejected(
            ErrorCode.BAD_MESSAGE, f"games: {quote(cursor)} is not a cursor of this server"
        )
    rank, created, game_id = found.groups()
    return int(rank), int(created), game_id
