"""The session core: who may do what, versions, acks, seats, clocks, limits. Sans-I/O.

The asyncio layer feeds it what happened (a connection opened, a frame arrived, a connection
closed, time passed, a bot engine answered) and drains `outputs()` (server/outputs.py): frames
to send, connections to close, bot turns to think about. The core never awaits, sleeps or reads
a clock other than the injected `now`, so tests drive it by hand.

It orchestrates named parts, each of which owns one thing: `Sessions` (connections and their
budgets), `Intake` (frames decoded within budget, or refused), `Games` (the games in memory:
new, restored, adopted, read back, kept, forgotten; with `Shares` and the `Archive`),
`LobbyListing` (subscribers and pages), `Deadlines` (what time decides next), `BotTurns` (the
server bots' turns), the rematch steps (server/rematch.py) and the `Routing` in front of it
all (one node, or a cluster's). Each game's own rules are its `Room`'s.

Every change goes through `_commit`: a `Save` output, then the reply, then the broadcast. The
layer sends nothing made after a save before the store says it is durable, so an accepted move
is durable before anybody hears of it, and the mover's `ok` precedes its `moved` event.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from ubao.engine.games import make_game
from ubao.engine.searchable import Searchable
from ubao.protocol import (
    PROTOCOL_VERSION,
    Abort,
    Analyse,
    AnalysisEvent,
    BotInfo,
    Cancel,
    Claim,
    Command,
    Create,
    Draw,
    DrawAnswer,
    ErrorCode,
    Event,
    GameAnalysis,
    GameSummary,
    Hello,
    Join,
    ListGames,
    Move,
    Ok,
    Over,
    Ping,
    Player,
    PlayerCard,
    Ratings,
    Rematch,
    RematchAnswer,
    Reply,
    Resign,
    Result,
    Resume,
    Rotate,
    SeatEvent,
    SeatSpec,
    ServerMessage,
    Takeback,
    TakebackAnswer,
    TournamentJoin,
    TournamentList,
    TournamentNew,
    TournamentShow,
    TournamentStart,
    Watch,
    canonical_name,
    quote,
)
from ubao.protocol.timing import monotonic_ms
from ubao.server.accounts import AttemptCounter, Attempts, SharesAttempts, StoredAccount
from ubao.server.analyses import Analyses
from ubao.server.bot_turns import BotTurns
from ubao.server.clock import Now, wall_ms
from ubao.server.crowd import fan_out, tell
from ubao.server.deadlines import Deadlines
from ubao.server.games import Games
from ubao.server.intake import SECOND_HELLO, Intake
from ubao.server.lifecycle import Rejected
from ubao.server.limits import Limits
from ubao.server.lobby import LobbyLine, LobbyListing
from ubao.server.outputs import BotTurn, CheckKey, MakeKey, Output, Save, SendMessage
from ubao.server.ratings import RatedGame, RatingBook, pool_of
from ubao.server.rematch import (
    PlayRematch,
    check_kept,
    offer_news,
    rematch_create,
    rematch_lapse,
    rematch_news,
    rematch_players,
    rematch_step,
    seat_players,
)
from ubao.server.room import Room
from ubao.server.routing import LocalRouting, Routing
from ubao.server.seating import (
    check_account,
    check_rated_joiner,
    held_seat,
    seat_joiner,
    subscribe,
    take_over,
)
from ubao.server.sessions import Connection, Sessions
from ubao.server.stores.protocol import GameStore, StoreError
from ubao.server.tournament import Entrant
from ubao.server.tournaments import Tournaments, TournamentStore

log = logging.getLogger("ubao.server")

OPEN = (SeatSpec.open(), SeatSpec.open())
"""Two open seats: a tournament's game and options are checked as a game of them."""


class Core:
    def __init__(
        self,
        store: GameStore,
        limits: Limits | None = None,
        *,
        now: Now = monotonic_ms,
        wall: Now = wall_ms,
        make_game: Callable[[str, dict[str, Any]], Searchable[Any, Any]] = make_game,
        routing: Routing | None = None,
    ) -> None:
        self.store = store
        self.limits = limits or Limits()
        self.now = now
        self.wall = wall
        self.routing: Routing = routing or LocalRouting()
        self.sessions = Sessions(self.limits)
        self.intake = Intake()
        self.ratings = RatingBook(store)
        self.games = Games(store, self.limits, self.sessions, make_game, now, self._rate)
        self.listing = LobbyListing(
            self.limits.lobby_window_ms, self.limits.lobby_subscribers_per_ip
        )
        self.deadlines = Deadlines()
        self.bot_turns = BotTurns()
        self.analyses = Analyses(self.limits)
        window = self.limits.attempts_window_ms
        shared = store if isinstance(store, SharesAttempts) else None
        self.wrong_keys: AttemptCounter = (
            shared.attempts("name", self.limits.wrong_keys_per_name, window)
            if shared
            else Attempts(self.limits.wrong_keys_per_name, window)
        )
        """Wrong keys by account (canonical name)... (in a cluster, counted for every node)"""
        self.wrong_keys_from: AttemptCounter = (
            shared.attempts("address", self.limits.wrong_keys_per_address, window)
            if shared
            else Attempts(self.limits.wrong_keys_per_address, window)
        )
        """...and by address."""
        self.keys_made = Attempts(self.limits.claims_per_address, window)
        """Keys made (claims and rotations) by address."""
        kept_by = store if isinstance(store, TournamentStore) else None
        self.tournaments = Tournaments(
            kept_by,
            self._tournament_game,
            self._start_tournament_game,
            self.wall,
            self.limits.grace_ms,
            self.rooms.__contains__,
        )
        self.closing = False
        self._out: list[Output] = []

    @property
    def rooms(self) -> dict[str, Room]:
        """Every game in memory: those not over, and the finished ones the archive keeps."""
        return self.games.rooms

    @property
    def conns(self) -> dict[int, Connection]:
        return self.sessions.conns

    @property
    def rejected(self) -> Counter[str]:
        """Rejected messages by reason (error code, with the decode failure's cause)."""
        return self.intake.rejected

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
        reopened = self.games.reopen()
        for room in reopened:
            self._reopened(room, "restored")
        self._out += self.tournaments.restore(self.now())
        return len(reopened)

    def adopt(self, game_id: str) -> bool:
        """Take a game over from the store (in a cluster: this node holds its lease now), a live
        one as a restart does (clocks wait for the player to move, players have a grace period),
        a finished one as one read back by id (the cluster's lobby lists it if it finished
        recently); False if there is no such game."""
        if game_id in self.rooms:
            return True
        room = self.games.load(game_id)
        if room is None:
            return False
        if room.status == "over":
            self.games.keep_read(room)
            return True
        self.games.open(room)
        self._reopened(room, "took over")
        return True

    def _reopened(self, room: Room, how: str) -> None:
        """A game not over is back in memory: its waiting expiry and its bot turn go on."""
        log.info("%s game %s (%s, ply %d)", how, room.game_id, room.game_name, room.ply)
        self._attend(room)
        self._follow_up(room)

    def drop(self, game_id: str) -> set[int]:
        """Forget a game this node no longer owns (another node took it over); returns the
        connections that followed it, which the layer closes so that they come back to it."""
        room = self.games.drop(game_id)
        if room is None:
            return set()
        log.warning("game %s is owned by another node now: dropped here", game_id)
        self.deadlines.touch(game_id)
        self._out += self.bot_turns.done(room)
        followers = set(room.watchers)
        if room.creator is not None:
            followers.add(room.creator)
        self.sessions.leave(game_id, followers)
        return followers

    def adopt_tournament(self, tid: str) -> bool:
        """Take a tournament over from the store (in a cluster: this node holds its lease now):
        it goes on where its record says; False if there is no such tournament."""
        try:
            self._out += self.tournaments.adopt(tid, self.now())
        except Rejected:
            return False
        return True

    def drop_tournament(self, tid: str) -> set[int]:
        """Forget a tournament this node no longer owns; returns its subscribers here, which
        the layer closes so that they come back to its new owner."""
        return self.tournaments.drop(tid)

    def listed(self, game: GameSummary) -> None:
        """Another node's game changed its lobby line: tell this node's lobby subscribers."""
        if game.game_id not in self.rooms:
            self._out += self.listing.changed(game, self.now(), new=False)

    def connect(self, ip: str, hello: Hello | None = None, account: str | None = None) -> int:
        """A new connection from `ip`; with `hello`, a proxy for another node's client that
        said it there (no reply: the client had it from its own node), and with `account`
        (`human` or `bot`), that proved there the key of its name's account."""
        conn = self.sessions.open(ip, self.now(), hello, account)
        if self.sessions.crowded(conn):
            self._out.append(self.intake.crowded(conn))
        return conn.id

    def receive(self, conn_id: int, data: bytes | str) -> None:
        conn = self.conns.get(conn_id)
        if conn is None or conn.closing or self.closing:
            return
        command = self.intake.decode(conn, data, conn.budget.take(self.now()))
        if isinstance(command, list):
            self._out += command  # refused
            return
        try:
            game_id: str | None = getattr(command, "game_id", None)
            if game_id is not None and conn.role is not None and game_id not in self.rooms:
                routed = self.routing.route(conn, game_id, data)
                if routed is not None:
                    self._out.append(routed)
                    return
            tid: str | None = getattr(command, "tournament_id", None)
            if tid is not None and conn.role is not None and tid not in self.tournaments.held:
                routed = self.routing.route(conn, tid, data, tournament=True)
                if routed is not None:
                    self._out.append(routed)
                    return
            self._dispatch(conn, command)
        except Rejected as exc:
            self._error(conn, command.id, exc.code, exc.message, exc.retry_after_ms)
        except Exception:
            log.exception("error handling %s from connection %d", command.type, conn.id)
            self._error(conn, command.id, ErrorCode.INTERNAL_ERROR, "internal server error")

    def disconnect(self, conn_id: int) -> None:
        conn = self.sessions.close(conn_id)
        if conn is None:
            return
        self.listing.leave(conn.id)
        self.tournaments.leave(conn.id)
        self.analyses.leave(conn.id)
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
            self._out += rematch_lapse(room, seat, holds)

    def next_deadline(self) -> int | None:
        """When `tick` next has work (a flag fall, a grace period's end, a waiting game's
        expiry), if ever."""
        times = (
            self.deadlines.next(self.rooms),
            self.tournaments.next_deadline(self.now()),
            self.listing.next_deadline(),
        )
        return min((time for time in times if time is not None), default=None)

    def tick(self) -> None:
        for game_id in self.deadlines.due(self.now(), self.rooms):
            expiring = self.rooms.get(game_id)
            if expiring is not None:
                self._expire(expiring)
        for game_id, seat in self.tournaments.no_shows(self.now()):
            room = self._room(game_id)
            if seat is None:
                self._commit(room, room.cancel(self.now()))
            else:
                self._commit(room, room.forfeit(seat, "no_show", self.now()))
        self._out += self.tournaments.due(self.now())
        self._out += self.listing.due(self.now())

    def bot_moved(self, turn: BotTurn, move: str, info: BotInfo | None) -> bool:
        """A bot engine chose `move`. False if the rules reject it (the layer asks again);
        True once the turn is settled, including when the game moved on meanwhile."""
        room = self.rooms.get(turn.game_id)
        if self.closing or room is None or not self.bot_turns.current(room, turn):
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
        if self.closing or room is None or not self.bot_turns.current(room, turn):
            return
        log.error("bot in game %s seat %d failed: %s", turn.game_id, turn.seat, why)
        self._commit(room, room.forfeit(turn.seat, "engine_failure", self.now()))

    def analysed(self, game_id: str, analysis: GameAnalysis) -> None:
        """The layer made a game's analysis: stored with the game (the first one only), then
        sent to whoever asked for it and everyone following the game."""
        askers = self.analyses.settle(game_id)
        if self.closing:
            return
        try:
            room = self._room(game_id)
        except Rejected as exc:  # the store cannot read it back now: made again when asked
            log.warning("analysis of game %s not kept: %s", game_id, exc.message)
            return
        if room.analysis is None:
            room.analysis = analysis
            self._out.append(Save(self.store.analysis_snapshot(game_id, analysis)))
        self._analysis_news(room, askers, AnalysisEvent(game_id, "done", room.analysis))

    def analysis_failed(self, game_id: str, why: str) -> None:
        """The engine could not analyse the game: whoever waited hears why (they may ask
        again)."""
        log.warning("analysis of game %s failed: %s", game_id, why)
        askers = self.analyses.settle(game_id)
        room = self.rooms.get(game_id)
        watchers = set() if room is None else room.watchers
        to = tuple(sorted((askers | watchers) & self.conns.keys()))
        if to:
            event = AnalysisEvent(game_id, "failed", message=f"the analysis failed: {why}"[:1000])
            self._out.append(SendMessage(to, event))

    def _analysis_news(self, room: Room, askers: set[int], event: AnalysisEvent) -> None:
        to = tuple(sorted((askers | room.watchers) & self.conns.keys()))
        if to:
            self._out.append(SendMessage(to, event))

    def shutdown(self) -> None:
        """Freeze the clocks and save every game; later disconnects change no seat."""
        self.closing = True
        now = self.now()
        for room in self.rooms.values():
            if room.status != "over":
                room.pause(now)
                self._out.append(Save(self.store.snapshot(room, [], now)))
        self.intake.log_counts()

    # -- commands ------------------------------------------------------------------------------

    def _dispatch(self, conn: Connection, command: Command) -> None:
        if isinstance(command, Hello):
            self._hello(conn, command)
        elif isinstance(command, Ping):
            self._send(conn, Ok(id=command.id, t=command.t, server_t=self.wall()))
        elif conn.role is None:
            raise Rejected(ErrorCode.HELLO_REQUIRED, "send hello first")
        elif isinstance(command, Claim | Rotate):
            self._claim(conn, command)
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
        elif isinstance(command, Ratings):
            board = self.ratings.leaderboard(command.game, command.speed, command.limit or 20)
            self._send(conn, Ok(id=command.id, leaderboard=tuple(board)))
        elif isinstance(command, Player):
            name = canonical_name(command.name)  # as accounts, and so their ratings, are keyed
            ratings, recent = self.ratings.card(name, command.limit or 10)
            card = PlayerCard(name=name, ratings=tuple(ratings), recent=tuple(recent))
            self._send(conn, Ok(id=command.id, player=card))
        elif isinstance(command, TournamentNew | TournamentJoin | TournamentStart | TournamentShow):
            self._tournament(conn, command)
        elif isinstance(command, TournamentList):
            listed = self.tournaments.listed(command.limit or 20)
            self._send(conn, Ok(id=command.id, tournaments=tuple(listed)))
        elif isinstance(command, Analyse):
            self._analyse(conn, command)
        elif conn.role == "spectator":
            raise Rejected(ErrorCode.NOT_YOUR_SEAT, "spectators cannot take seats or move")
        elif isinstance(command, Join):
            self._join(conn, command)
        elif isinstance(command, Resume):
            self._resume(conn, command)
        elif isinstance(command, Move):
            room = self._room(command.game_id)
            seat = held_seat(conn, room, command.token)
            events = room.play(seat, command.ply, command.move, self.now(), command.info)
            self._commit(room, events, reply=(conn, Ok(id=command.id)))
        elif isinstance(command, Resign | Abort):
            room = self._room(command.game_id)
            seat = held_seat(conn, room, command.token)
            end = room.resign if isinstance(command, Resign) else room.abort
            events = end(seat, self.now())
            self._commit(room, events, reply=(conn, Ok(id=command.id)))
        elif isinstance(command, Takeback | TakebackAnswer):
            self._takeback(conn, command)
        elif isinstance(command, Draw | DrawAnswer):
            room = self._room(command.game_id)
            seat = held_seat(conn, room, command.token)
            if isinstance(command, Draw):  # a server bot plays on: it declines at once
                declined = room.seats[1 - seat].is_bot
                events = room.offer_draw(seat, command.ply, self.now(), declined=declined)
            else:
                events = room.answer_draw(seat, command.ply, command.accept, self.now())
            self._commit(room, events, reply=(conn, Ok(id=command.id)))
        elif isinstance(command, Rematch | RematchAnswer):
            self._rematch(conn, command)

    def _hello(self, conn: Connection, hello: Hello) -> None:
        """A guest is welcome under any name no account holds (nor one a person could take for
        it); an account's name only with its key, which the layer checks (`CheckKey`)."""
        if conn.role is not None or conn.checking:
            raise Rejected(ErrorCode.BAD_MESSAGE, SECOND_HELLO)
        account = self._account(canonical_name(hello.name))
        if account is None:
            self._welcome(conn, hello, None)
            return
        if hello.key is None:
            message = (
                f"{quote(hello.name)} is the name of {quote(account.name)}'s account "
                "(or looks like it): hello with its key, or choose another name"
            )
            raise Rejected(ErrorCode.NAME_CLAIMED, message)
        self._check_attempts(conn, account.canonical)
        conn.checking = True
        self._out.append(CheckKey(conn.id, hello, account))

    def _account(self, canonical: str) -> StoredAccount | None:
        """The account of a canonical name, as stored now; `storage_error` if the store cannot
        tell (nobody is let in under a name whose account cannot be read)."""
        try:
            return self.store.account(canonical)
        except StoreError as exc:
            log.warning("cannot read account %r: %s", canonical, exc)
            raise Rejected(
                ErrorCode.STORAGE_ERROR, "accounts cannot be read now; try again"
            ) from None

    def key_checked(self, check: CheckKey, matches: bool) -> None:
        """The layer checked a `hello`'s key: welcome the account, or count a wrong key."""
        conn = self.conns.get(check.conn)
        if conn is None or conn.closing or self.closing:
            return
        conn.checking = False
        if matches:
            self._welcome(conn, check.hello, check.account)
            return
        now = self.now()
        try:
            self.wrong_keys.failed(check.account.canonical, now)
            self.wrong_keys_from.failed(conn.ip, now)
        except StoreError as exc:
            log.error("wrong key not counted: %s", exc)
        log.info("connection %d (%s): wrong key for %r", conn.id, conn.ip, check.account.name)
        message = f"this is not the key of {quote(check.account.name)}'s account"
        self._error(conn, check.hello.id, ErrorCode.BAD_KEY, message)

    def _check_attempts(self, conn: Connection, canonical: str) -> None:
        """Refuse another key for an account that saw too many wrong ones lately, or from an
        address that sent them."""
        now = self.now()
        try:
            wait = max(
                self.wrong_keys.wait_ms(canonical, now), self.wrong_keys_from.wait_ms(conn.ip, now)
            )
        except StoreError as exc:  # nobody tries a key that cannot be counted
            log.warning("cannot read the wrong keys of %r: %s", canonical, exc)
            message = "keys cannot be checked now; try again"
            raise Rejected(ErrorCode.STORAGE_ERROR, message) from None
        if wait > 0:
            message = f"too many wrong keys lately: try again in {-(-wait // 1000)} s"
            raise Rejected(ErrorCode.TOO_MANY_ATTEMPTS, message, wait)

    def _welcome(self, conn: Connection, hello: Hello, account: StoredAccount | None) -> None:
        """The `hello` is accepted: a guest, or the account whose key it proved."""
        name = hello.name if account is None else account.name
        conn.name, conn.role = name, hello.role
        if account is not None:
            conn.account, conn.bot_account = account.canonical, account.bot
        kind = "a guest" if account is None else "the account"
        log.info("connection %d (%s) is %s %r, %s", conn.id, conn.ip, hello.role, name, kind)
        engines = self.limits.engine_bots or None
        ok = Ok(
            id=hello.id,
            proto=PROTOCOL_VERSION,
            session=conn.session,
            engines=engines,
            account=account is not None,
            name=name if account is not None else None,
        )
        self._send(conn, ok)

    def _claim(self, conn: Connection, command: Claim | Rotate) -> None:
        """Claim a name nobody holds, or rotate the key of the connection's own account: the
        layer makes the key (`MakeKey`) and `key_made` answers."""
        now = self.now()
        wait = self.keys_made.wait_ms(conn.ip, now)
        if wait > 0:
            message = f"too many keys made from here lately: try again in {-(-wait // 1000)} s"
            raise Rejected(ErrorCode.TOO_MANY_ATTEMPTS, message, wait)
        if isinstance(command, Rotate):
            if conn.account is None:
                message = "only the key of an account this connection proved in hello rotates"
                raise Rejected(ErrorCode.NOT_AN_ACCOUNT, message)
            account = self._account(conn.account)
            if account is None:  # gone from the store: nothing in ubao removes one
                raise Rejected(ErrorCode.NOT_AN_ACCOUNT, "this account is no longer stored")
            new = False
        else:
            canonical = canonical_name(command.name)
            taken = self._account(canonical)
            if taken is not None:
                message = f"{quote(command.name)} is taken (or looks like {quote(taken.name)})"
                raise Rejected(ErrorCode.NAME_CLAIMED, message)
            account = StoredAccount(command.name, canonical, "", command.bot, self.wall())
            new = True
        self.keys_made.failed(conn.ip, now)  # counted as made, whatever comes of it
        self._out.append(MakeKey(conn.id, command.id, account, new))

    def key_made(self, make: MakeKey, key: str | None) -> None:
        """The layer made and stored the key (None: another claimed the name first)."""
        conn = self.conns.get(make.conn)
        if conn is None or conn.closing or self.closing:
            return
        name = make.account.name
        if key is None:
            message = f"{quote(name)} was claimed meanwhile"
            self._error(conn, make.command_id, ErrorCode.NAME_CLAIMED, message)
            return
        log.info("connection %d (%s) %s account %r", conn.id, conn.ip,
                 "claimed" if make.new else "rotated the key of", name)  # fmt: skip
        self._send(conn, Ok(id=make.command_id, key=key, account=True, name=name))

    def key_failed(self, conn_id: int, command_id: int, why: str) -> None:
        """The layer could not store an account or its key: nothing changed."""
        conn = self.conns.get(conn_id)
        if conn is not None and not conn.closing:
            conn.checking = False
            self._error(conn, command_id, ErrorCode.STORAGE_ERROR, why)

    def _list(self, conn: Connection, command: ListGames) -> None:
        """A page of the lobby: this node's games but those read back by id, and in a
        cluster the other nodes' too; subscribe or not."""
        self.listing.subscribe(conn.id, conn.ip, command.subscribe)
        read = self.games.archive.read  # old games read back by id: not in the lobby
        lines: list[LobbyLine] = [
            room for game_id, room in self.rooms.items() if game_id not in read
        ]
        lines += self.routing.lines(self.rooms, read)
        self._send(conn, self.listing.page(command, lines))

    def _create(self, conn: Connection, create: Create) -> None:
        if create.rated and any(spec.kind == "bot" for spec in create.seats):
            message = "a rated game is between two accounts: no server bot plays rated"
            raise Rejected(ErrorCode.RATED_NEEDS_ACCOUNTS, message)
        room = self.games.new(conn, create, self.wall, whose="this")
        events = room.start_if_full(self.now())
        self._persist(room, events)
        self.games.open(room)
        self._attend(room)  # the longest wait starts
        if log.isEnabledFor(logging.DEBUG):  # per-game lines are debug: nothing per game at info
            game = room.game.describe()
            log.debug("game %s created by connection %d: %s", room.game_id, conn.id, game)
        ok = Ok(id=create.id, game_id=room.game_id)
        self._publish(room, events, reply=(conn, ok), listed=True)

    def _join(self, conn: Connection, join: Join) -> None:
        room = self._room(join.game_id)
        seat = self.tournaments.seat_for(room.game_id, conn.account)
        if seat is not None:
            join = Join(id=join.id, game_id=join.game_id, seat=seat)
        if room.rated:
            check_rated_joiner(room, conn)
        ok, events = seat_joiner(room, conn, join, self.now())
        self._persist(room, events)
        self._attend(room)
        self._publish(room, events, reply=(conn, ok), joiners=((conn, None),))

    def _resume(self, conn: Connection, resume: Resume) -> None:
        room = self._room(resume.game_id)
        seat = room.seat_of(resume.token)
        if seat is None:
            raise Rejected(ErrorCode.NOT_YOUR_SEAT, f"this token holds no seat of {room.game_id}")
        check_account(conn, room, seat)
        shown = room.seats[seat].info()
        previous, events = room.attach(seat, conn.id, self.now(), is_bot=conn.is_bot)
        if events or room.status != "over":
            # A finished game's return changes nothing stored: writing its row would date it
            # as just finished, and a restart would list it among the recent results.
            self._persist(room, events)
        if previous is not None and previous != conn.id:
            self._out += take_over(self.conns, previous, room, seat)
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

    def _analyse(self, conn: Connection, command: Analyse) -> None:
        """A finished game's analysis: the one stored, or queued (server/analyses.py)."""
        room = self._room(command.game_id)
        if room.analysis is not None:
            self._send(conn, Ok(id=command.id, analysis=room.analysis))
            return
        if room.status != "over":
            message = f"game {room.game_id} is not over: only a finished game is analysed"
            raise Rejected(ErrorCode.NOT_OVER, message)
        ahead, job = self.analyses.ask(room, conn.id, conn.ip)
        self._send(conn, Ok(id=command.id, queued=ahead))
        if job is not None:
            log.info("game %s queued for analysis (%d ahead)", room.game_id, ahead)
            self._out.append(job)

    def _takeback(self, conn: Connection, command: Takeback | TakebackAnswer) -> None:
        """Ask for a takeback (a server bot opponent grants it at once) or answer one."""
        room = self._room(command.game_id)
        seat = held_seat(conn, room, command.token)
        ply = room.ply
        if isinstance(command, Takeback):
            granted = room.seats[1 - seat].is_bot
            events = room.ask_takeback(seat, command.ply, self.now(), granted=granted)
        else:
            events = room.answer_takeback(seat, command.ply, command.accept, self.now())
        self._persist(room, events)
        if room.ply < ply:
            # A bot turn asked before the takeback is for a position gone by: ask anew.
            self.bot_turns.ask_again(room.game_id)
        self._publish(room, events, reply=(conn, Ok(id=command.id)))

    def _rematch(self, conn: Connection, command: Rematch | RematchAnswer) -> None:
        """Offer a rematch of a finished game, or answer the opponent's offer (`rematch_step`
        decides which)."""
        room = self._room(command.game_id)
        kept = self.rooms.get(room.game_id) is room
        check_kept(room, kept, command.token, self.limits.keep_finished)
        seat = held_seat(conn, room, command.token)
        step = rematch_step(room, seat, command)
        if isinstance(step, PlayRematch):
            self._play_rematch(conn, command.id, room, step.offerer)
            return
        news = offer_news(room, step)
        self._send(conn, Ok(id=command.id))
        self._tell(room, news)

    def _play_rematch(self, conn: Connection, command_id: int, room: Room, offerer: int) -> None:
        """Create the rematch (the offerer's game, for its shares); seat both players with new
        tokens, tell everyone in the old game, and send each player the new game's snapshot."""
        players = rematch_players(room, self.conns)
        maker = players[1 - offerer]  # whose shares the new game takes: not always `conn`'s
        whose = "this" if maker is conn else "the rematch offerer's"
        create = rematch_create(room, command_id)
        new = self.games.new(maker, create, self.wall, seated=len(players), whose=whose)
        events, tokens = seat_players(room, new, players, self.now())
        self._persist(new, events)
        self.games.open(new)
        room.rematch_offer, room.rematch_id = None, new.game_id
        log.info("game %s rematched as game %s", room.game_id, new.game_id)
        self._send(conn, Ok(id=command_id))
        self._out += rematch_news(room, offerer, new, players, tokens)
        self._publish(new, events, joiners=[(p, None) for p in players.values()], listed=True)

    def _tournament(
        self,
        conn: Connection,
        command: TournamentNew | TournamentJoin | TournamentStart | TournamentShow,
    ) -> None:
        """Make, enter, start or show a tournament (server/tournaments.py)."""
        parts = self.tournaments
        ok = Ok(id=command.id)
        if not isinstance(command, TournamentNew):
            self._out += parts.adopt(command.tournament_id, self.now())  # if not held here
        if isinstance(command, TournamentNew):
            self.games.check(Create(id=0, game=command.game, options=command.options, seats=OPEN))
            tid, out = parts.new(command, conn.name or "")
            ok = Ok(id=command.id, tournament_id=tid)
        elif isinstance(command, TournamentJoin):
            out = parts.enter(command.tournament_id, self._entrant(conn, command))
        elif isinstance(command, TournamentStart):
            out = parts.start(command.tournament_id, conn.name or "", self.now())
        else:
            view = parts.view(parts.get(command.tournament_id))
            if command.subscribe:
                parts.subscribers[command.tournament_id].add(conn.id)
            out, ok = [], Ok(id=command.id, tournament=view)
        self._out += out
        self._send(conn, ok)

    def _entrant(self, conn: Connection, join: TournamentJoin) -> Entrant:
        """Who enters: a server bot at the settings asked for, or the connection's account."""
        bot = join.bot
        if bot is not None:
            if bot.kind != "bot" or bot.depth is None or bot.engine is not None:
                message = "a server bot entrant is a bot seat with a depth (ubao's own engine)"
                raise Rejected(ErrorCode.BAD_MESSAGE, message)
            s = self.tournaments.get(join.tournament_id).settings
            self.games.check(Create(id=0, game=s.game, options=dict(s.options), seats=(bot, bot)))
            name = f"{bot.algorithm or 'bot'}-d{bot.depth}" + (f"-{bot.eval}" if bot.eval else "")
            return Entrant(name, depth=bot.depth, algorithm=bot.algorithm, eval=bot.eval)
        if conn.account is None or conn.name is None:
            message = "only an account enters a tournament (hello with its key), or a server bot"
            raise Rejected(ErrorCode.NOT_AN_ACCOUNT, message)
        game = self.tournaments.get(join.tournament_id).settings.game
        rating = self.ratings.standing(pool_of(game, None), conn.account).rating.rating
        return Entrant(conn.name, account=conn.account, rating=rating)

    def _tournament_game(self, game_id: str) -> Room | None:
        """A tournament's game: in memory, else as stored."""
        room = self.rooms.get(game_id)
        return room if room is not None else self.games.load(game_id)

    def _start_tournament_game(self, create: Create) -> Room:
        """A tournament's game, made as `create` makes one (no connection's share): stored,
        listed, its bots asked."""
        room = self.games.new(None, create, self.wall, whose="the tournament's")
        events = room.start_if_full(self.now())
        self._persist(room, events)
        self.games.open(room)
        self._attend(room)
        self._publish(room, events, listed=True)
        return room

    def _rate(self, room: Room, result: Result) -> RatedGame | None:
        """A rated game's end: both accounts' new ratings (None if a seat is no account's)."""
        first, second = (seat.account for seat in room.seats)
        if first is None or second is None:
            return None
        pool = pool_of(room.game_name, room.clock_spec)
        try:
            return self.ratings.rate(room.game_id, pool, self.wall(), (first, second), result)
        except StoreError as exc:  # no rating to start from: better unrated than rated wrong
            log.error("game %s ends unrated: %s", room.game_id, exc)
            return None

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
            self._out += self.listing.changed(room, self.now(), new=listed)
            self._out += self.routing.announce(room)
        self._follow_up(room)

    def _follow_up(self, room: Room) -> None:
        """Ask a bot for its move, or retire a finished game."""
        if room.status == "over":
            if self.games.retain(room):
                log.debug("game %s over: %s", room.game_id, room.result)
                self._out += self.bot_turns.done(room)
                self._out += self.tournaments.game_over(room.game_id, self.now())
            return
        turn = self.bot_turns.next(room, self.now())
        if turn is not None:
            self._out.append(turn)

    # -- the game a command is for -------------------------------------------------------------

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
            room = self.games.read_back(game_id)
        self._expire(room)
        return room

    def _expire(self, room: Room) -> None:
        deadline = room.deadline()
        if deadline is None or deadline > self.now():
            return  # nothing for time to decide yet (most commands)
        events = room.expire(self.now())
        if events:
            self._commit(room, events)

    def _attend(self, room: Room) -> None:
        limits = self.limits
        self.deadlines.attend(room, self.now(), limits.waiting_expiry_ms, limits.longest_wait_ms)

    # -- what goes out -------------------------------------------------------------------

    def _subscribe(self, conn: Connection, room: Room, since_v: int | None) -> None:
        self._out += subscribe(conn, room, since_v, self.now())

    def _tell(
        self, room: Room, message: ServerMessage, exclude: frozenset[int] = frozenset()
    ) -> None:
        self._out += tell(room, message, exclude)

    def _send(self, conn: Connection, message: ServerMessage) -> None:
        self._out.append(SendMessage((conn.id,), message))

    def _error(
        self,
        conn: Connection,
        id: int | None,
        code: ErrorCode,
        message: str,
        retry_after_ms: int | None = None,
    ) -> None:
        self._out.append(self.intake.error(conn, id, code, message, retry_after_ms=retry_after_ms))
