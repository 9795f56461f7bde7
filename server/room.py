"""One game on the server: rules, seats, clock, versions and the event log. Pure: no I/O.

A room only changes through its methods, each of which returns the events it made (already
numbered and appended to the log): what changed, which the core saves and fans out. Commands
that are not allowed raise `Rejected` before anything changes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ubao.engine.game import Game, GameError
from ubao.protocol import (
    BotInfo,
    Clocks,
    ClockSpec,
    DrawOffer,
    DrawState,
    ErrorCode,
    Event,
    GameAnalysis,
    GameSummary,
    Moved,
    Over,
    Result,
    SeatEvent,
    SeatInfo,
    SeatSpec,
    Snapshot,
    Status,
    TakebackRequest,
    TakebackState,
    canonical_name,
    encode,
    quote,
)
from ubao.server.clock import GameClock

if TYPE_CHECKING:
    from ubao.server.ratings import RatedGame
from ubao.server.lifecycle import (
    TAKEBACK,
    TAKEBACK_REFUSALS,
    Action,
    Rejected,
    TakebackAction,
    advance,
    answer,
    offer_of,
)


def hash_token(token: str) -> str:
    """Seat tokens are kept (and stored) only as hashes, so a leaked database seats nobody."""
    return hashlib.sha256(token.encode()).hexdigest()


def server_bot_name(spec: SeatSpec) -> str:
    """A server bot's name: its engine (ubao's own, or the operator's engine bot) and depth."""
    return f"{spec.engine or 'ubao-engine'} (depth {spec.depth})"


@dataclass(frozen=True, slots=True)
class Bounds:
    """Server-side rules that make every game finish, bots or not."""

    max_plies: int = 1000
    """A game still going at this ply is drawn (`ply_limit`)."""
    repetitions: int = 3
    """A position seen this often is drawn (`repetition`)."""


@dataclass(slots=True)
class SeatState:
    spec: SeatSpec
    name: str | None = None
    token_hash: str | None = None
    holder: int | None = None
    """The connection that plays this seat now, if any."""
    grace_until: int | None = None
    """While the player is away: when the seat stops being held for them."""
    client: str | None = None
    """`bot` when a bot client (`hello` role) joined or resumed it. Kept with the game by the
    seat events, which carry it: a restored room reads it from the seat's last one
    (`restore_events`), so a finished game keeps its bot client's mark across restarts."""
    account: str | None = None
    """The canonical name of the account whose key its player proved (None: a guest's seat,
    or nobody's). Only a connection that proved the same account resumes it. Kept with the
    game by the seat events, which carry it as `account` (a flag: an account's seat has the
    account's own name), as `client` is."""
    returning: bool = False
    """Restored (a restart, a takeover in a cluster) and its player not back since: no clock
    of theirs starts until they are (`Room.attach`); the grace period decides if they never
    come. Not stored: every restore gives each player's seat this state again."""

    @property
    def is_bot(self) -> bool:
        return self.spec.kind == "bot"

    @property
    def free(self) -> bool:
        return not self.is_bot and self.token_hash is None

    @property
    def connected(self) -> bool:
        return self.is_bot or self.holder is not None

    def info(self) -> SeatInfo:
        spec = self.spec
        return SeatInfo(
            kind=spec.kind,
            name=self.name,
            connected=self.connected,
            wants_bot=spec.wants_bot,
            depth=spec.depth,
            time_ms=spec.time_ms,
            eval=spec.eval,
            algorithm=spec.algorithm,
            client=self.client,
            engine=spec.engine,
            account=self.account is not None,
        )


class Room:
    """The authoritative state of one game."""

    def __init__(
        self,
        game_id: str,
        game_name: str,
        options: dict[str, Any],
        game: Game[Any, Any],
        seats: Sequence[SeatSpec],
        clock: ClockSpec | None,
        bounds: Bounds,
        created: int,
    ) -> None:
        self.game_id = game_id
        self.game_name = game_name
        self.options = options
        """The options as the creator gave them (the engine fills in defaults itself)."""
        self.game = game
        self.seats = [
            SeatState(spec, server_bot_name(spec) if spec.kind == "bot" else None) for spec in seats
        ]
        self.clock_spec = clock
        self.bounds = bounds
        self.created = created
        """Wall-clock milliseconds since the epoch when the game was created."""
        self.position: Any = game.start()
        self.history: list[str] = []
        self.movers: list[int] = []
        """The seat that played each ply (Kalah's extra turns make it more than ply parity)."""
        self.seen: Counter[Hashable] = Counter([game.key(self.position)])
        self.status: Status = "waiting"
        self.result: Result | None = None
        self.v = 0
        self.events: list[Event] = []
        self.legal_v: int | None = None
        """The event after which the current legal moves were first sent: replays attach them
        there, exactly as the live broadcast did."""
        self.clock = GameClock.new(clock.initial_ms, clock.increment_ms) if clock else None
        self.first_move_ms: int | None = None
        """With a clock: how long a player may take over their first move, which no clock
        times (as on lichess), before the game is aborted; the server's grace period (None:
        no limit)."""
        self.move_limit_ms: int | None = None
        """In a game without a clock, the longest a player may take over a move (None: no
        limit): past it, the game ends as `timeout` against them, or `aborted` if they have
        not moved yet, as a game with a clock does (`expire`)."""
        self.move_due: int | None = None
        """In a game without a clock, when the move awaited is due."""
        self.first_move_due: int | None = None
        """While a game with a clock waits for the first move of the player to move: when it
        is aborted if that move has not come."""
        self.watchers: set[int] = set()
        """Connections that receive this game's events (players and spectators)."""
        self.pace_ms = 0
        """The least time between two moves of server-hosted bots (`create`'s `pace_ms`)."""
        self.creator: int | None = None
        """The connection that created the game, while it is open: it may `cancel` it."""
        self.creator_ip: str | None = None
        """The address it was created from, counted against that address's share (not kept
        across restarts)."""
        self.expires_at: int | None = None
        """While the game waits: when it is withdrawn (`expired`), soon if neither its creator
        nor a player is connected, at `waiting_until` at the latest."""
        self.waiting_until: int | None = None
        """The latest a waiting game may wait, from when this server took it up (not stored:
        a restart starts the wait again)."""
        self.rematch_offer: int | None = None
        """Once over: the seat whose rematch offer waits for an answer (not stored: an offer
        lapses when its player or the player it waits for leaves, and with the server)."""
        self.rematch_id: str | None = None
        """The game that the accepted rematch created (not stored either)."""
        self.rated = False
        """A rated game (`create`'s `rated`): its end changes both accounts' ratings."""
        self.rater: Callable[[Room, Result], RatedGame | None] | None = None
        """What rates a rated game as it ends (the core's `RatingBook`); None: nothing does."""
        self.rated_game: RatedGame | None = None
        """Once a rated game is over: what its end changed, saved with its `over`."""
        self.analysis: GameAnalysis | None = None
        """Once over: its analysis, if one was made (server/analyses.py); stored with it."""
        self._legal: tuple[str, ...] | None = None
        self._bodies: dict[int, tuple[Event, bytes]] = {}
        """The events of the change being made, encoded by the store (`body`) and taken by
        the broadcast (`take_body`): each event is encoded once for both."""

    # -- queries -------------------------------------------------------------------------------

    @property
    def ply(self) -> int:
        return len(self.history)

    @property
    def to_move(self) -> int:
        return self.game.to_move(self.position)

    def legal(self) -> tuple[str, ...]:
        if self._legal is None:
            position = self.position
            moves = self.game.legal_moves(position)
            self._legal = tuple(self.game.format_move(position, move) for move in moves)
        return self._legal

    def seat_of(self, token: str) -> int | None:
        digest = hash_token(token)
        for index, seat in enumerate(self.seats):
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                return index
        return None

    def bot_to_move(self) -> bool:
        return self.status == "playing" and self.seats[self.to_move].is_bot

    def clocks(self, now: int) -> Clocks | None:
        return self.clock.wire(now, self.first_move_due) if self.clock else None

    def deadline(self) -> int | None:
        """The next moment `expire` has something to do: a flag fall, a first move's time
        running out, a grace period's end, or the end of a waiting game nobody attends."""
        times = [seat.grace_until for seat in self.seats if seat.grace_until is not None]
        if self.status == "waiting" and self.expires_at is not None:
            times.append(self.expires_at)
        if self.status == "playing" and self.move_due is not None:
            times.append(self.move_due)
        if self.status == "playing" and self.clock is not None:
            flag = self.clock.deadline()
            if flag is not None:
                times.append(flag)
            if self.first_move_due is not None:
                times.append(self.first_move_due)
        return min(times, default=None)

    def snapshot(self, now: int, with_legal: bool) -> Snapshot:
        return Snapshot(
            game_id=self.game_id,
            v=self.v,
            game=self.game_name,
            options=self.options,
            status=self.status,
            position=self.game.format_position(self.position),
            to_move=self.to_move,
            ply=self.ply,
            history=tuple(self.history),
            seats=tuple(seat.info() for seat in self.seats),
            legal=self.legal() if with_legal and self.status == "playing" else None,
            clocks=self.clocks(now),
            result=self.result,
            clock=self.clock_spec,
            created=self.created,
            takeback=self.pending_takeback(),
            draw=self.pending_draw(),
            pace_ms=self.pace_ms or None,
            rematch=self.rematch_offer,
            rated=self.rated,
            analysis=self.analysis,
        )

    def summary(self) -> GameSummary:
        return GameSummary(
            game_id=self.game_id,
            game=self.game_name,
            options=self.options,
            status=self.status,
            ply=self.ply,
            seats=tuple(seat.info() for seat in self.seats),
            clock=self.clock_spec,
            created=self.created,
            result=self.result,
            pace_ms=self.pace_ms or None,
            spectators=self.spectators,
            rated=self.rated,
        )

    @property
    def spectators(self) -> int:
        """The connections that follow the game without holding one of its seats."""
        return len(self.watchers - {seat.holder for seat in self.seats})

    def presence(self, seat: int) -> SeatEvent:
        """A `seat` event that says who sits in `seat` of a finished game and whether they are
        connected, at the game's version: a player leaving the game or coming back after its
        end changes nothing of the game, so it is no new version, not in the log, not stored
        and not replayed, and `over` stays the game's last event (docs/protocol.md)."""
        return self._seat_event(seat, self.v)

    def pending_takeback(self) -> int | None:
        """The seat whose takeback request waits for an answer: the last event other than
        presence is its `asked` (an answer, a move or the end closes it), so the request is
        read from the log and survives restarts with it."""
        for event in reversed(self.events):
            if not isinstance(event, SeatEvent):
                if isinstance(event, TakebackRequest) and event.state == "asked":
                    return event.seat
                return None
        return None

    def pending_draw(self) -> int | None:
        """The seat whose draw offer waits for an answer: as a takeback request, the last
        event other than presence is its `offered` (an answer, a move, a takeback request or
        the end closes it), read from the log."""
        for event in reversed(self.events):
            if not isinstance(event, SeatEvent):
                if isinstance(event, DrawOffer) and event.state == "offered":
                    return event.seat
                return None
        return None

    def with_legal(self, event: Event) -> Event:
        """The copy of `event` for the seat to move: with the legal moves if they belong there."""
        if self.status == "playing" and event.v == self.legal_v:
            assert isinstance(event, Moved | SeatEvent | TakebackRequest)
            return dataclasses.replace(event, legal=self.legal())
        return event

    def body(self, event: Event) -> bytes:
        """`event` as the store keeps it and as it is broadcast: its frame without `legal`."""
        kept = self._bodies.get(event.v)
        if kept is not None and kept[0] is event:
            return kept[1]
        body = encode(event)
        self._bodies[event.v] = (event, body)
        return body

    def take_body(self, event: Event) -> bytes | None:
        """The frame `body` made of `event`, if it did, for the broadcast; no longer kept."""
        kept = self._bodies.pop(event.v, None)
        return kept[1] if kept is not None and kept[0] is event else None

    def events_since(self, v: int) -> list[Event] | None:
        """The events after version `v`, or None if `v` is not one this game has had."""
        if not 1 <= v <= self.v:
            return None
        return self.events[v:]

    # -- changes -------------------------------------------------------------------------------

    def start_if_full(self, now: int) -> list[Event]:
        """Start the game once no seat is free; a game of two bots starts at creation."""
        if not self._begin(now):
            return []
        ended = self._judge()
        return [self._finish(ended, now)] if ended else []

    def join(
        self,
        seat: int | None,
        name: str,
        token_hash: str,
        conn: int,
        now: int,
        *,
        is_bot: bool = False,
        account: str | None = None,
    ) -> tuple[int, list[Event]]:
        """Seat a player; with `seat` None, the first free seat that suits them: one that wants
        a bot for a bot client, another for a person, else any."""
        self._allow("join")
        if seat is None:
            free = [index for index, s in enumerate(self.seats) if s.free]
            if not free:
                raise Rejected(ErrorCode.SEAT_TAKEN, f"every seat of game {self.game_id} is taken")
            seat = min(free, key=lambda index: self.seats[index].spec.wants_bot != is_bot)
        elif not self.seats[seat].free:
            raise Rejected(ErrorCode.SEAT_TAKEN, f"seat {seat} of game {self.game_id} is taken")
        taken = self.seats[seat]
        taken.name, taken.token_hash, taken.holder, taken.grace_until = name, token_hash, conn, None
        taken.client, taken.returning = "bot" if is_bot else None, False
        taken.account = account
        started = self._begin(now)
        event = self._append_seat_event(seat, now)
        if not started:
            return seat, [event]
        ended = self._judge()
        if ended:
            return seat, [event, self._finish(ended, now)]
        self.legal_v = event.v
        return seat, [event]

    def attach(
        self, seat: int, conn: int, now: int, *, is_bot: bool = False
    ) -> tuple[int | None, list[Event]]:
        """Give the seat to connection `conn` (a bot client's if `is_bot`); returns the
        connection it is taken from. A return is a seat event; so is a takeover that changes
        what the seat shows (a bot client taking a person's seat): a snapshot at one version
        never differs from another at the same version. Not in a finished game, whose log ends
        with `over`: the core tells the others with `presence`."""
        held = self.seats[seat]
        shown = held.info()
        previous, held.holder, held.grace_until = held.holder, conn, None
        held.client = "bot" if is_bot else None
        held.returning = False
        self.resume_clock(now)  # the seat event carries the clock that runs now
        if self.status == "over" or (previous is not None and held.info() == shown):
            return previous, []
        return previous, [self._append_seat_event(seat, now)]

    def drop(self, seat: int, now: int, grace_ms: int) -> list[Event]:
        """The seat's connection went away: hold the seat for `grace_ms`, and say so (in a
        game over, nothing is held and nothing logged: see `presence`)."""
        self.release(seat, now, grace_ms)
        if self.status == "over":
            return []
        return [self._append_seat_event(seat, now, grace_ms)]

    def release(self, seat: int, now: int, grace_ms: int) -> None:
        """The part of `drop` that is never stored: nobody holds the seat, held until a time."""
        held = self.seats[seat]
        held.holder = None
        if self.status != "over":
            held.grace_until = now + grace_ms

    def play(
        self, seat: int, ply: int, text: str, now: int, info: BotInfo | None = None
    ) -> list[Event]:
        """Play `text` for `seat` at `ply`; `info` is a bot's search report."""
        self._check_playing(ply, "play")
        if seat != self.to_move:
            raise Rejected(ErrorCode.NOT_YOUR_TURN, f"seat {self.to_move} is to move, not {seat}")
        self._check_ply(ply)
        before = self.position
        try:
            move = self.game.parse_move(before, text)
            after = self.game.play(before, move)
        except GameError as exc:
            raise Rejected(
                ErrorCode.ILLEGAL_MOVE, f"{quote(text)} cannot be played: {exc}"
            ) from None
        # Moving instead of answering the opponent's takeback request declines it, aloud (the
        # asker learns); the asker's own move withdraws it, and the move says so already.
        asker = self.pending_takeback()
        events: list[Event] = []
        declined = self._takeback_answer(seat, asker, "move")
        if asker is not None and declined is not None:
            events.append(self._takeback_event(asker, declined, now))
        # The same for a draw offer: the opponent's move declines it, aloud.
        offerer = self.pending_draw()
        if offerer is not None and offerer != seat:
            events.append(self._draw_event(offerer, "declined"))
        notation = self.game.format_move(before, move)
        self.position, self._legal = after, None
        self.history.append(notation)
        self.movers.append(seat)
        self.seen[self.game.key(after)] += 1
        ended = self._judge()
        if self.clock is None:
            self._untimed_turn(now)
        else:
            if ended:
                self.clock.stop(now)
            else:
                if self.clock.running is not None:  # not an untimed first move
                    self.clock.press(seat, now, self.to_move)
                self._start_turn(now)
        moved = self._append(
            Moved(
                game_id=self.game_id,
                v=self.v + 1,
                ply=ply,
                seat=seat,
                move=notation,
                position=self.game.format_position(after),
                to_move=self.to_move,
                clocks=self.clocks(now),
                info=info,
            )
        )
        events.append(moved)
        if ended:
            events.append(self._finish(ended, now))
        else:
            self.legal_v = moved.v
        return events

    def ask_takeback(self, seat: int, ply: int, now: int, *, granted: bool) -> list[Event]:
        """`seat` asks to take back its last move; `granted` (the opponent is a server bot)
        accepts at once, else the opponent is asked."""
        self._check_playing(ply, "takeback")
        self._check_ply(ply)
        state = self._takeback_answer(seat, self.pending_takeback(), "ask")
        if seat not in self.movers:
            message = f"seat {seat} has no move to take back in game {self.game_id}"
            raise Rejected(ErrorCode.NOTHING_TO_TAKE_BACK, message)
        if granted:  # the server bot answers at once
            state = self._takeback_answer(1 - seat, seat, "accept")
        if state == "accepted":
            return [self._take_back(seat, now)]
        assert state is not None
        return [self._takeback_event(seat, state, now)]

    def answer_takeback(self, seat: int, ply: int, accept: bool, now: int) -> list[Event]:
        """The opponent of the asker accepts (the game goes back) or declines."""
        self._check_playing(ply, "takeback")
        self._check_ply(ply)
        asker = self.pending_takeback()
        state = self._takeback_answer(seat, asker, "accept" if accept else "decline")
        assert asker is not None and state is not None
        if state == "accepted":
            return [self._take_back(asker, now)]
        return [self._takeback_event(asker, state, now)]

    def offer_draw(self, seat: int, ply: int, now: int, *, declined: bool) -> list[Event]:
        """`seat` offers a draw, or accepts the opponent's pending offer (the game ends
        drawn, reason `agreement`); `declined` (the opponent is a server bot, which plays
        on) declines it at once."""
        self._check_playing(ply, "draw")
        self._check_ply(ply)
        offerer = self.pending_draw()
        if offerer == seat:
            raise Rejected(ErrorCode.DRAW_PENDING, "your draw offer waits for its answer")
        if offerer is not None:
            return [self._finish(Result(None, "agreement", None), now)]
        events = [self._draw_event(seat, "offered")]
        if declined:
            events.append(self._draw_event(seat, "declined"))
        return events

    def answer_draw(self, seat: int, ply: int, accept: bool, now: int) -> list[Event]:
        """The opponent of the offerer accepts (the game ends drawn) or declines."""
        self._check_playing(ply, "draw")
        self._check_ply(ply)
        offerer = self.pending_draw()
        if offerer is None or offerer == seat:
            message = f"no draw offer of the opponent's waits in game {self.game_id}"
            raise Rejected(ErrorCode.NO_DRAW_OFFER, message)
        if accept:
            return [self._finish(Result(None, "agreement", None), now)]
        return [self._draw_event(offerer, "declined")]

    def _draw_event(self, offerer: int, state: DrawState) -> Event:
        return self._append(
            DrawOffer(game_id=self.game_id, v=self.v + 1, seat=offerer, state=state)
        )

    def resign(self, seat: int, now: int) -> list[Event]:
        self._allow("resign")
        if self.status == "waiting":
            return [self._finish(Result(None, "aborted", None), now)]
        return [self._finish(Result(1 - seat, "resign", None), now)]

    def abort(self, seat: int, now: int) -> list[Event]:
        """Call the game off before `seat` has made a move, as lichess's abort: nobody wins
        (`aborted`, unrated). Once it has moved, only resigning ends the game."""
        self._allow("abort")
        if seat in self.movers:
            raise Rejected(
                ErrorCode.ALREADY_MOVED,
                f"seat {seat} has moved in game {self.game_id}: it can resign, not abort",
            )
        return [self._finish(Result(None, "aborted", None), now)]

    def cancel(self, now: int) -> list[Event]:
        """The creator withdraws a game that has not started."""
        self._allow("cancel")
        return [self._finish(Result(None, "cancelled", None), now)]

    def forfeit(self, seat: int, reason: str, now: int) -> list[Event]:
        """End the game against `seat` for a reason of the server's (a bot engine that failed)."""
        if self.status == "over":
            return []
        return [self._finish(Result(1 - seat, reason, None), now)]

    def expire(self, now: int) -> list[Event]:
        """Whatever time has decided by `now`: a flag fall, a first move that did not come in
        time, a seat no longer held, a waiting game nobody attends."""
        events: list[Event] = []
        if self.status == "playing" and self.clock is not None:
            flagged = self.clock.flagged(now)
            if flagged is not None:
                events.append(self._finish(Result(1 - flagged, "timeout", None), now))
            elif self.first_move_due is not None and self.first_move_due <= now:
                # As on lichess: a player who does not make their first move aborts the game.
                events.append(self._finish(Result(None, "aborted", None), now))
        elif self.status == "playing" and self.move_due is not None and self.move_due <= now:
            late = self.to_move
            # As a clock would: the late player loses, or aborts a game they never moved in.
            result = Result(1 - late, "timeout", None) if late in self.movers else None
            events.append(self._finish(result or Result(None, "aborted", None), now))
        gone = [
            index
            for index, seat in enumerate(self.seats)
            if seat.grace_until is not None and seat.grace_until <= now and seat.holder is None
        ]
        if gone and self.status == "playing":
            loser = self._abandoner(gone)
            # A player who leaves before making a move aborts the game rather than loses it.
            if loser in self.movers:
                result = Result(1 - loser, "abandoned", None)
            else:
                result = Result(None, "aborted", None)
            events.append(self._finish(result, now))
        expiring = (
            self.status == "waiting" and self.expires_at is not None and self.expires_at <= now
        )
        for index in gone:
            seat = self.seats[index]
            seat.grace_until = None
            if self.status == "waiting":
                # The seat is given up: its token no longer holds it. In a game that goes on
                # waiting it is free again; one that expires now keeps the name of who waited
                # there, for the lobby's result and the records.
                seat.token_hash = None
                seat.returning = False
                if not expiring:
                    seat.name = seat.client = seat.account = None
                    events.append(self._append_seat_event(index, now))
        if expiring:
            events.append(self._finish(Result(None, "expired", None), now))
        return events

    def pause(self, now: int) -> None:
        """Stop the running clock (the server is going down); `resume_clock` restarts it."""
        if self.clock is not None and self.clock.running is not None:
            self.clock.stop(now)

    def resume_clock(self, now: int) -> None:
        """Restart a stopped clock (a restored game) once the player to move is there: a server
        bot at once, a person or bot client when they resume their seat (`attach`). Until then
        no clock runs: the time the server was down and the player's way back are not theirs
        to pay, nor is the time before they are back if their turn comes later (`_start_turn`
        waits for a `returning` seat). If they do not come back, their seat's grace period
        decides (`expire`). A player to make their first move, which no clock times, gets its
        full time again."""
        clock = self.clock
        if clock is None and self.status == "playing":
            self._untimed_turn(now)  # the time the server was down is nobody's
        if clock is None or clock.running is not None or self.status != "playing":
            return
        if self.to_move in self.movers or self.first_move_due is None:
            self._start_turn(now)

    # -- restoring from the store --------------------------------------------------------------

    def replay(self, movers: Sequence[int], moves: Sequence[str]) -> None:
        """Replay stored moves through the rules (no events: those come from the store)."""
        for seat, text in zip(movers, moves, strict=True):
            move = self.game.parse_move(self.position, text)
            self.position = self.game.play(self.position, move)
            self.history.append(text)
            self.movers.append(seat)
            self.seen[self.game.key(self.position)] += 1
        self._legal = None

    def _replay_from_start(self, movers: Sequence[int], moves: Sequence[str]) -> None:
        """The game as if only `moves` had been played: positions seen are counted anew."""
        self.position, self.history, self.movers = self.game.start(), [], []
        self.seen = Counter([self.game.key(self.position)])
        self.replay(movers, moves)

    def restore_events(self, events: Sequence[Event]) -> None:
        """Take the stored log back, with what it tells that the seats' rows do not: where the
        legal moves were last sent, and each seat's client as its last seat event showed it."""
        self.events = list(events)
        self.v = len(self.events)
        self.legal_v = None
        for event in self.events:
            if isinstance(event, SeatEvent):
                held = self.seats[event.seat]
                held.client = event.client
                name = event.name if event.account else None
                held.account = None if name is None else canonical_name(name)
            if (
                isinstance(event, Moved)
                or (isinstance(event, TakebackRequest) and event.state == "accepted")
                or (
                    isinstance(event, SeatEvent)
                    and event.status == "playing"
                    and self.legal_v is None
                )
            ):
                self.legal_v = event.v

    # -- internals -----------------------------------------------------------------------------

    def _append(self, event: Event) -> Event:
        assert event.v == self.v + 1
        self.v = event.v
        self.events.append(event)
        return event

    def _seat_event(
        self, seat: int, v: int, grace_ms: int | None = None, clocks: Clocks | None = None
    ) -> SeatEvent:
        """The `seat` event of `seat` as it stands, at version `v`."""
        held = self.seats[seat]
        return SeatEvent(
            game_id=self.game_id,
            v=v,
            seat=seat,
            name=held.name,
            connected=held.connected,
            grace_ms=grace_ms,
            status=self.status,
            clocks=clocks,
            client=held.client,
            account=held.account is not None,
        )

    def _append_seat_event(self, seat: int, now: int, grace_ms: int | None = None) -> Event:
        return self._append(self._seat_event(seat, self.v + 1, grace_ms, self.clocks(now)))

    def _allow(self, action: Action) -> None:
        """Refuse `action` unless the game's status allows it (server/lifecycle.py)."""
        advance(self.status, action, self.game_id)

    def _check_playing(self, ply: int, action: Action) -> None:
        """Refuse a command for `ply` unless the game is being played and has not passed it."""
        if ply < self.ply:
            raise Rejected(
                ErrorCode.STALE_PLY, f"ply {ply} was already played; the game is at ply {self.ply}"
            )
        self._allow(action)

    def _takeback_answer(
        self, seat: int, asker: int | None, action: TakebackAction
    ) -> TakebackState | None:
        """The request's state after `seat`'s `action` (server/lifecycle.py, `TAKEBACK`)."""
        offer = offer_of(seat, asker)
        return answer(TAKEBACK, TAKEBACK_REFUSALS, offer, action, self.game_id)

    def _check_ply(self, ply: int) -> None:
        if ply > self.ply:
            raise Rejected(ErrorCode.BAD_PLY, f"the game is at ply {self.ply}, not {ply}")

    def _take_back(self, asker: int, now: int) -> Event:
        """Go back to the position before `asker`'s last move, replaying the moves before it
        from the start through the rules (so repetitions count as if the rest never happened).
        Clocks keep the time spent (no refund, no increment); the asker's runs now, unless the
        move taken back was its first (first moves are untimed)."""
        keep = max(index for index, seat in enumerate(self.movers) if seat == asker)
        self._replay_from_start(self.movers[:keep], self.history[:keep])
        if self.clock is not None:
            self.clock.stop(now)
            self._start_turn(now)
        else:
            self._untimed_turn(now)
        event = self._takeback_event(asker, "accepted", now)
        self.legal_v = event.v
        return event

    def _takeback_event(self, asker: int, state: TakebackState, now: int) -> Event:
        accepted = state == "accepted"
        return self._append(
            TakebackRequest(
                game_id=self.game_id,
                v=self.v + 1,
                seat=asker,
                state=state,
                ply=self.ply,
                position=self.game.format_position(self.position) if accepted else None,
                to_move=self.to_move if accepted else None,
                clocks=self.clocks(now),
            )
        )

    def _begin(self, now: int) -> bool:
        if self.status != "waiting" or any(seat.free for seat in self.seats):
            return False
        self.status = advance(self.status, "start", self.game_id)
        if self.clock is not None:
            self._start_turn(now)
        else:
            self._untimed_turn(now)
        return True

    def _untimed_turn(self, now: int) -> None:
        """A game without a clock: the move awaited is due within `move_limit_ms`."""
        limit = self.move_limit_ms
        self.move_due = None if limit is None else now + limit

    def _start_turn(self, now: int) -> None:
        """Start the clock of the seat to move, unless its move is its first: as on lichess,
        each player's first move is untimed (neither loses time while the other sits down or
        looks at the board), and a first move that does not come within `first_move_ms`
        aborts the game instead (`expire`). Nor does it start for a player not back since the
        game was restored (`SeatState.returning`): it starts when they resume (`resume_clock`), and
        their grace period ends the game if they never do."""
        assert self.clock is not None
        if self.to_move in self.movers:
            self.first_move_due = None
            if self.seats[self.to_move].returning:
                self.clock.stop(now)
            elif self.clock.running is None:
                self.clock.start(self.to_move, now)
        else:
            self.clock.stop(now)
            limit = self.first_move_ms
            self.first_move_due = None if limit is None else now + limit

    def _abandoner(self, gone: Sequence[int]) -> int:
        """Of the seats whose grace ran out (`gone`, more than one when nobody came back after
        a restart), the one that loses the game: the player to move, whom the game waits for,
        else the one whose grace ran out first (the lower seat among equals)."""
        if self.to_move in gone:
            return self.to_move
        return min(gone, key=lambda index: (self.seats[index].grace_until, index))

    def _judge(self) -> Result | None:
        """The result if the position ends the game, by the rules or by the server's bounds."""
        outcome = self.game.outcome(self.position)
        if outcome is not None:
            return Result(outcome.winner, outcome.reason, outcome.score)
        if self.seen[self.game.key(self.position)] >= self.bounds.repetitions:
            return Result(None, "repetition", None)
        if self.ply >= self.bounds.max_plies:
            return Result(None, "ply_limit", None)
        return None

    def _finish(self, result: Result, now: int) -> Event:
        self.status = advance(self.status, "finish", self.game_id)
        self.result = result
        self.legal_v = None
        self.first_move_due = self.move_due = None
        for seat in self.seats:
            seat.grace_until = None
        if self.clock is not None:
            self.clock.stop(now)
        if self.rated and self.rater is not None:
            self.rated_game = self.rater(self, result)
        ratings = self.rated_game.changes() if self.rated_game is not None else None
        return self._append(
            Over(game_id=self.game_id, v=self.v + 1, result=result, ratings=ratings)
        )
