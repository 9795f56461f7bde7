"""The session core: who may do what, versions, acks, seats, clocks, limits. Sans-I/O.

The asyncio layer feeds it what happened (a connection opened, a frame arrived, a connection
closed, time passed, a bot engine answered) and drains `outputs()` (server/outputs.py): frames
to send, connections to close, bot turns to think about. The core never awaits, sleeps or reads
a clock other than the injected `now`, so tests drive it by hand.

It orchestrates named parts, each of which owns one thing: `Sessions` (connections and their
budgets), `LobbyListing` (subscribers and pages), `Shares` (the games not over and each
client's share of them), `Deadlines` (what time decides next), `Archive` (finished games kept
in memory, stored games rebuilt), the rematch steps (server/rematch.py) and the `Routing` in
front of it all (one node, or a cluster's). Each game's own rules are its `Room`'s.

Every change goes through `_commit`: a `Save` output, then the reply, then the broadcast. The
layer sends nothing made after a save before the store says it is durable, so an accepted move
is durable before anybody hears of it, and the mover's `ok` precedes its `moved` event.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
from collections import Counter
from collections.abc import Callable, Container, Iterable, Sequence
from typing import Any

from ubao.engine.game import GameError
from ubao.engine.games import make_game
from ubao.engine.searchable import Searchable
from ubao.protocol import (
    PROTOCOL_VERSION,
    AppCloseCode,
    BotInfo,
    Cancel,
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
    SeatEvent,
    ServerMessage,
    Takeback,
    TakebackAnswer,
    UnsupportedVersion,
    Watch,
    decode_command,
    escape,
    quote,
)
from ubao.protocol.errors import MAX_ERROR_MESSAGE
from ubao.protocol.timing import monotonic_ms
from ubao.server.archive import Archive, RulesCache, rebuild
from ubao.server.clock import Now, wall_ms
from ubao.server.crowd import catch_up, fan_out, tell
from ubao.server.deadlines import Deadlines
from ubao.server.lifecycle import Rejected
from ubao.server.limits import Limits
from ubao.server.lobby import LobbyLine, LobbyListing
from ubao.server.outputs import (
    POLICY_VIOLATION,
    BotsDone,
    BotTurn,
    Close,
    Output,
    Save,
    SendMessage,
)
from ubao.server.rematch import DeclineRematch, PlayRematch, rematch_create, rematch_step
from ubao.server.room import Room, hash_token
from ubao.server.routing import LocalRouting, Routing
from ubao.server.sessions import Connection, Sessions
from ubao.server.shares import Shares, check_seat_specs
from ubao.server.stores.protocol import GameStore, StoredGame, StoreError

log = logging.getLogger("ubao.server")

_SECOND_HELLO = "hello was already received on this connection"


class Core:
    def __init__(
        self,
        store: GameStore,
        limits: Limits | None = None,
        *,
        now: Now = monotonic_ms,
        wall: Now = wall_ms,
        games: Callable[[str, dict[str, Any]], Searchable[Any, Any]] = make_game,
        routing: Routing | None = None,
    ) -> None:
        self.store = store
        self.limits = limits or Limits()
        self.now = now
        self.wall = wall
        self.routing: Routing = routing or LocalRouting()
        self.rules = RulesCache(games)
        self.rooms: dict[str, Room] = {}
        """Every game in memory: those not over, and the finished ones the archive keeps."""
        self.sessions = Sessions(self.limits)
        self.listing = LobbyListing()
        self.shares = Shares(self.limits)
        self.deadlines = Deadlines()
        self.archive = Archive(self.limits)
        self.rejected: Counter[str] = Counter()
        """Rejected messages by reason (error code, with the decode failure's cause)."""
        self.closing = False
        self._bot_plies: dict[str, int] = {}
        """The ply each game's pending bot turn was issued for, so each is issued once."""
        self._out: list[Output] = []

    @property
    def conns(self) -> dict[int, Connection]:
        return self.sessions.conns

    @property
    def lobby(self) -> set[int]:
        """Connections subscribed to lobby changes."""
        return self.listing.subscribers

    @lobby.setter
    def lobby(self, subscribers: set[int]) -> None:
        self.listing.subscribers = subscribers

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
        self.shares.close_out(room)
        self.deadlines.touch(game_id)
        self.archive.discard(game_id)
        self._bot_plies.pop(game_id, None)
        if any(seat.is_bot for seat in room.seats):
            self._out.append(BotsDone(game_id))
        followers = set(room.watchers)
        if room.creator is not None:
            followers.add(room.creator)
        self._leave(game_id, followers)
        return followers

    def listed(self, game: GameSummary) -> None:
        """Another node's game changed its lobby line: tell this node's lobby subscribers."""
        if self.lobby and game.game_id not in self.rooms:
            self._out.append(SendMessage(tuple(self.lobby), Lobby(game=game)))

    def connect(self, ip: str, hello: Hello | None = None) -> int:
        """A new connection from `ip`; with `hello`, a proxy for another node's client that
        said it there (no reply: the client had it from its own node)."""
        conn = self.sessions.open(ip, self.now(), hello)
        if self.sessions.crowded(conn):
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
            game_id: str | None = getattr(command, "game_id", None)
            if game_id is not None and conn.role is not None and game_id not in self.rooms:
                routed = self.routing.route(conn, game_id, data)
                if routed is not None:
                    self._out.append(routed)
                    return
            self._dispatch(conn, command)
        except Rejected as exc:
            self._error(conn, command.id, exc.code, exc.message)
        except Exception:
            log.exception("error handling %s from connection %d", command.type, conn.id)
            self._error(conn, command.id, ErrorCode.INTERNAL_ERROR, "internal server error")

    def disconnect(self, conn_id: int) -> None:
        conn = self.sessions.close(conn_id)
        if conn is None:
            return
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
                self._commit(room, room.drop(seat, now, grace_ms))
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
        expiry), if ever."""
        return self.deadlines.next(self.rooms)

    def tick(self) -> None:
        for game_id in self.deadlines.due(self.now(), self.rooms):
            expiring = self.rooms.get(game_id)
            if expiring is not None:
                self._expire(expiring)

    def bot_moved(self, turn: BotTurn, move: str, info: BotInfo | None) -> bool:
        """A bot engine chose `move`. False if the rules reject it (the layer asks again);
        True once the turn is settled, including when the game moved on meanwhile."""
        room = self.rooms.get(turn.game_id)
        if self.closing or room is None or not self._turn_current(room, turn):
            return True  # after a restart the bot is asked again
        try:
            self._expire(room)
            if room.status == "playing":
                self._commit(room, room.play(turn.seat, turn.ply, move, self.now(), info))
        except Rejected as exc:
            log.warning("bot in game %s seat %d: %s", turn.game_id, turn.seat, exc.message)
            return False
        return True

    def bot_failed(self, turn: BotTurn, why: str) -> None:
        """The engine could not produce a move, even after restarts: the bot's seat loses."""
        room = self.rooms.get(turn.game_id)
        if self.closing or room is None or not self._turn_current(room, turn):
            return
        log.error("bot in game %s seat %d failed: %s", turn.game_id, turn.seat, why)
        self._commit(room, room.forfeit(turn.seat, "engine_failure", self.now()))

    def shutdown(self) -> None:
        """Freeze the clocks and save every game; later disconnects change no seat."""
        self.closing = True
        now = self.now()
        for room in self.rooms.values():
            if room.status != "over":
                room.pause(now)
                self._out.append(Save(self.store.snapshot(room, [], now)))
        if self.rejected:
            counts = ", ".join(f"{reason} {count}" for reason, count in self.rejected.most_common())
            log.info("rejected messages: %s", counts)

    # -- commands ------------------------------------------------------------------------------

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
            events = room.cancel(self.now())
            self._commit(room, events, reply=(conn, Ok(id=command.id)))
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
            events = room.play(seat, command.ply, command.move, self.now(), command.info)
            self._commit(room, events, reply=(conn, Ok(id=command.id)))
        elif isinstance(command, Resign):
            room = self._room(command.game_id)
            seat = self._held_seat(conn, room, command.token)
            events = room.resign(seat, self.now())
            self._commit(room, events, reply=(conn, Ok(id=command.id)))
        elif isinstance(command, Takeback | TakebackAnswer):
            self._takeback(conn, command)
        elif isinstance(command, Rematch | RematchAnswer):
            self._rematch(conn, command)

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

    def _list(self, conn: Connection, command: ListGames) -> None:
        """A page of the lobby: this node's games but those read back by id, and in a
        cluster the other nodes' too; subscribe or not."""
        self.listing.subscribe(conn.id, command.subscribe)
        read = self.archive.read  # old games read back by id: not in the lobby
        lines: list[LobbyLine] = [
            room for game_id, room in self.rooms.items() if game_id not in read
        ]
        lines += self.routing.lines(self.rooms, read)
        self._send(conn, self.listing.page(command, lines))

    def _create(self, conn: Connection, create: Create) -> None:
        room = self._new_room(conn, create)
        events = room.start_if_full(self.now())
        self._persist(room, events)
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
            game = self.rules.get(create.game, create.options)
        except GameError as exc:
            raise Rejected(ErrorCode.BAD_OPTIONS, str(exc)) from None
        check_seat_specs(create, game, self.limits)
        self.shares.admit(conn.id, conn.ip, create, seated, whose)
        room = Room(
            new_game_id(self.rooms),
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

    def _join(self, conn: Connection, join: Join) -> None:
        room = self._room(join.game_id)
        token = secrets.token_urlsafe(24)
        seat, events = room.join(
            join.seat, conn.name, hash_token(token), conn.id, self.now(), is_bot=conn.role == "bot"
        )
        self._persist(room, events)
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
        shown = room.seats[seat].info()
        previous, events = room.attach(seat, conn.id, self.now(), is_bot=conn.role == "bot")
        if events or room.status != "over":
            # A finished game's return changes nothing stored: writing its row would date it
            # as just finished, and a restart would list it among the recent results.
            self._persist(room, events)
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

    def _takeback(self, conn: Connection, command: Takeback | TakebackAnswer) -> None:
        """Ask for a takeback (a server bot opponent grants it at once) or answer one."""
        room = self._room(command.game_id)
        seat = self._held_seat(conn, room, command.token)
        ply = room.ply
        if isinstance(command, Takeback):
            granted = room.seats[1 - seat].is_bot
            events = room.ask_takeback(seat, command.ply, self.now(), granted=granted)
        else:
            events = room.answer_takeback(seat, command.ply, command.accept, self.now())
        self._persist(room, events)
        if room.ply < ply:
            # A bot turn asked before the takeback is for a position gone by: ask anew.
            self._bot_plies.pop(room.game_id, None)
        self._publish(room, events, reply=(conn, Ok(id=command.id)))

    def _rematch(self, conn: Connection, command: Rematch | RematchAnswer) -> None:
        """Offer a rematch of a finished game, or answer the opponent's offer (`rematch_step`
        decides which)."""
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
        step = rematch_step(room, seat, command)
        if isinstance(step, PlayRematch):
            self._play_rematch(conn, command.id, room, step.offerer)
            return
        if isinstance(step, DeclineRematch):
            room.rematch_offer = None
            news = RematchOffer(room.game_id, step.offerer, "declined")
        else:
            room.rematch_offer = step.seat
            news = RematchOffer(room.game_id, step.seat, "offered")
        self._send(conn, Ok(id=command.id))
        self._tell(room, news)

    def _play_rematch(self, conn: Connection, command_id: int, room: Room, offerer: int) -> None:
        """Create the rematch (the offerer's game, for its shares); seat both players with new
        tokens, tell everyone in the old game, and send each player the new game's snapshot."""
        players = {
            1 - index: self.conns[seat.holder]
            for index, seat in enumerate(room.seats)
            if not seat.is_bot and seat.holder is not None
        }
        maker = players[1 - offerer]  # whose shares the new game takes: not always `conn`'s
        whose = "this" if maker is conn else "the rematch offerer's"
        spec = rematch_create(room, command_id)
        new = self._new_room(maker, spec, seated=len(players), whose=whose)
        now = self.now()
        events: list[Event] = []
        tokens: dict[int, str] = {}
        for new_seat, player in players.items():
            tokens[new_seat] = secrets.token_urlsafe(24)
            name = room.seats[1 - new_seat].name or player.name
            token_hash = hash_token(tokens[new_seat])
            is_bot = player.role == "bot"
            events += new.join(new_seat, name, token_hash, player.id, now, is_bot=is_bot)[1]
        self._persist(new, events)
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

    # -- a change: persisted, then published ---------------------------------------------------

    def _commit(
        self, room: Room, events: Sequence[Event], *, reply: tuple[Connection, Reply] | None = None
    ) -> None:
        """Save the change the room made (its `events`), then publish it."""
        self._persist(room, events)
        self._publish(room, events, reply=reply)

    def _persist(self, room: Room, events: Sequence[Event]) -> None:
        """Save the room as it is now, with `events`: nothing after this output goes out before
        the store has kept it."""
        self.deadlines.touch(room.game_id)  # its deadline may have changed
        self._out.append(Save(self.store.snapshot(room, events, self.now())))

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
        self._out += fan_out(room, events, recipients, self.conns)
        if listed or any(isinstance(e, SeatEvent | Over) for e in events):
            if self.lobby:
                self._out.append(SendMessage(tuple(self.lobby), Lobby(game=room.summary())))
            self._out += self.routing.announce(room)
        self._follow_up(room)

    def _follow_up(self, room: Room) -> None:
        """Ask a bot for its move, or retire a finished game."""
        if room.status == "over":
            if self.archive.holds(room.game_id):
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

    # -- the games in memory -------------------------------------------------------------------

    def _room(self, game_id: str) -> Room:
        """The game, with whatever its clock or grace periods decided by now; a game not in
        memory comes back from the store: in a cluster one this node is to serve now (its
        routing found so), else a finished one read back by id."""
        room = self.rooms.get(game_id)
        if room is None and self.routing.adopts_live:
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

    def _rebuild(self, stored: StoredGame) -> Room | None:
        return rebuild(stored, self.rules, self.limits, self.now())

    def _open(self, room: Room) -> None:
        """A game not over joins the server's games (and its creator's share)."""
        self.rooms[room.game_id] = room
        self.shares.open(room)

    def _retain(self, room: Room) -> None:
        """Keep a finished game in memory, as one of the `keep_finished` most recent."""
        self.shares.close_out(room)
        self.rooms[room.game_id] = room
        self._forget(self.archive.keep_recent(room, self.rooms))

    def _keep_read(self, room: Room) -> None:
        """Keep a finished game read back by id, apart from the recent ones."""
        self.rooms[room.game_id] = room
        self._forget(self.archive.keep_read(room, self.rooms))

    def _forget(self, game_ids: Iterable[str]) -> None:
        for game_id in game_ids:
            room = self.rooms.pop(game_id, None)
            if room is not None:
                self._leave(game_id, room.watchers)

    def _leave(self, game_id: str, conn_ids: Iterable[int]) -> None:
        """The game is gone from memory: its followers no longer follow it nor hold its seats."""
        for conn_id in conn_ids:
            conn = self.conns.get(conn_id)
            if conn is not None:
                conn.leave(game_id)

    def _expire(self, room: Room) -> None:
        deadline = room.deadline()
        if deadline is None or deadline > self.now():
            return  # nothing for time to decide yet (most commands)
        events = room.expire(self.now())
        if events:
            self._commit(room, events)

    def _attend(self, room: Room) -> None:
        """Start or stop the expiry of a waiting game: it runs while neither the creator nor
        any player is connected."""
        self.deadlines.touch(room.game_id)
        attended = room.creator is not None or any(s.holder is not None for s in room.seats)
        if attended or room.status != "waiting":
            room.expires_at = None
        elif room.expires_at is None:
            room.expires_at = self.now() + self.limits.waiting_expiry_ms

    def _turn_current(self, room: Room, turn: BotTurn) -> bool:
        return (
            room.bot_to_move() and tuple(room.history) == turn.moves and room.to_move == turn.seat
        )

    # -- seats and followers -------------------------------------------------------------------

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
        """Send the joiner, resumer or watcher what it missed (`catch_up`), then keep it
        informed."""
        room.watchers.add(conn.id)
        conn.rooms.add(room.game_id)
        for message in catch_up(room, conn, since_v, self.now()):
            self._send(conn, message)

    def _tell(
        self, room: Room, message: ServerMessage, exclude: frozenset[int] = frozenset()
    ) -> None:
        self._out += tell(room, message, exclude)

    # -- replies -------------------------------------------------------------------------------

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
