"""What a client knows about one game, updated only from the server's events.

Pure: no sockets, no UI. The terminal app draws from a `GameState`, the bot decides from it,
and tests feed it events directly. Versions (`v`) make it safe to apply what a reconnect
replays: an event already seen is ignored, and an event after a gap is refused so that the
caller can ask for what it missed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ubao.client.board import BoardView, view_of
from ubao.engine.game import Game, GameError, Step
from ubao.engine.games import make_game
from ubao.engine.searchable import Searchable
from ubao.protocol import (
    BotInfo,
    Clocks,
    ClockSpec,
    DrawOffer,
    Event,
    GameAnalysis,
    Moved,
    Over,
    RatingChange,
    Result,
    SeatEvent,
    SeatInfo,
    Snapshot,
    TakebackRequest,
)

GUEST = " (guest)"
"""After the name of a player who proved no account's key: anyone may play under it."""


def shown_name(seat: SeatInfo) -> str | None:
    """A seat's player as screens show it: a guest's name marked as a guest's (a server bot's
    and an account's as they are); None for a free seat."""
    if seat.name is None or seat.kind == "bot" or seat.account:
        return seat.name
    return seat.name + GUEST


FIRST_MOVE_SLACK_S = 1.0
"""How early, by our estimate of the server's count, an abort may still be its first-move
timeout: our estimate of when the count runs out is off by a round trip at most."""


class Applied(Enum):
    """What `GameState.apply` did with an event."""

    APPLIED = "applied"
    DUPLICATE = "duplicate"
    """Seen before (a replay after a reconnect): ignored."""
    GAP = "gap"
    """Events are missing before this one: ignored; resume from `state.v` to get them."""
    OTHER_GAME = "other_game"
    """About another game: ignored. After a rematch the connection still sits in the finished
    game, whose presence news (a `seat` event when the opponent leaves) keeps coming."""


@dataclass(frozen=True, slots=True)
class LastMove:
    """The last move played, with what its animation needs."""

    seat: int
    ply: int
    """The move's ply (0-based)."""
    before: BoardView
    """The board before the move, where the animation starts."""
    steps: tuple[Step, ...]
    """The holes the move touched, in order (`Game.sowing_path`)."""


@dataclass
class GameState:
    """One game as the server last described it."""

    game_id: str
    v: int = 0
    """The version of the last event applied; 0 before the first snapshot."""
    game: Searchable[Any, Any] | None = None
    game_name: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    status: str = "waiting"
    position: Any = None
    ply: int = 0
    to_move: int = 0
    history: list[str] = field(default_factory=list)
    movers: list[int] = field(default_factory=list)
    """The seat that played each move of `history` (extra turns make them irregular)."""
    positions: list[Any] = field(default_factory=list)
    """The position before each move of `history`, then the current one: to look back."""
    legal: tuple[str, ...] = ()
    """The moves the server offers this client (only when it holds the seat to move)."""
    seats: list[SeatInfo] = field(default_factory=list)
    clock: ClockSpec | None = None
    """The time control, when the server says (`snapshot.clock`)."""
    clocks: Clocks | None = None
    clocks_at: float = 0.0
    """Monotonic time at which `clocks` were made, as far as the client can tell: when they
    arrived, less half the round trip; the running clock counts down from there."""
    paused_at: float | None = None
    """While the connection is down: when it went down. The clocks shown stop there, since
    the client no longer knows what the server's do (they may have stopped with it)."""
    rtt_ms: float | None = None
    """The round trip to the server (from the session's pings), once measured."""
    result: Result | None = None
    ratings: tuple[RatingChange, RatingChange] | None = None
    """A rated game's rating changes, once over (`over`'s)."""
    last: LastMove | None = None
    info: dict[int, BotInfo] = field(default_factory=dict)
    """The latest engine report per seat (bot moves only)."""
    away_until: dict[int, float] = field(default_factory=dict)
    """Seats whose player dropped: the monotonic time until which the server holds the seat."""
    takeback: int | None = None
    """The seat whose takeback request waits for the other's answer (a move ends it)."""
    draw: int | None = None
    """The seat whose draw offer waits for the other's answer (a move ends it)."""
    first_move_due: float | None = None
    """With a clock, while the player to move has not made their untimed first move: the
    monotonic time the server aborts the game if it has not come (the clocks'
    `first_move_ms`, as the server last said)."""
    aborted_why: str | None = None
    """For a game aborted after it started, why, as far as the client can tell ("South did not
    play the first move in time"): the result's reason alone does not say."""
    analysis: GameAnalysis | None = None
    """Once over: the server's analysis of the game, if it made one (a snapshot's, or an
    `analysis` event's)."""
    rematch: int | None = None
    """Once over: the seat whose rematch offer waits for an answer, as the server last said
    (a snapshot's `rematch`, then `rematch_offer` events). Offers lapse with a connection or a
    restart, unannounced: forgotten on every reconnection (`forget_offers`), the server sends
    again an offer that still waits."""

    @property
    def view(self) -> BoardView:
        assert self.game is not None, "no snapshot yet"
        return view_of(self.game, self.position)

    @property
    def started(self) -> bool:
        return self.game is not None

    @property
    def over(self) -> bool:
        return self.status == "over"

    def can_rematch(self, seat: int) -> bool:
        """Whether `seat` may offer a rematch now, as the server sees it: the game is over and
        the opponent is there to answer (a bot, a connected player, or one whose own offer
        waits); as on lichess, the rematch button goes once the opponent has left, and an
        abandoned or aborted game often has nobody left."""
        if not self.over or len(self.seats) != 2:
            return False
        other = self.seats[1 - seat]
        there = other.kind == "bot" or other.connected or self.rematch == 1 - seat
        return other.name is not None and there

    def names(self) -> list[str | None]:
        return [seat.name for seat in self.seats]

    def last_hole(self) -> str | None:
        """The hole the last move started from (or the square it placed), to mark it."""
        return self.hole_of(len(self.history) - 1) if self.history else None

    def view_at(self, ply: int) -> BoardView:
        """The board as it stood after `ply` moves (0: the start)."""
        assert self.game is not None, "no snapshot yet"
        return view_of(self.game, self.positions[ply])

    def hole_of(self, ply: int) -> str | None:
        """The hole the move of `ply` (0-based) started from."""
        return self.view.move_hole(self.history[ply], self.movers[ply])

    def remaining_ms(self, seat: int, now: float) -> int | None:
        """The seat's clock at monotonic time `now`: the running one ticks down locally."""
        if self.clocks is None:
            return None
        remaining = self.clocks.remaining_ms[seat]
        if self.paused_at is not None:
            now = min(now, self.paused_at)
        if self.clocks.running == seat and not self.over:
            remaining -= int((now - self.clocks_at) * 1000)
        return max(remaining, 0)

    def pause_clocks(self, now: float) -> None:
        """The connection is down: the clocks shown stop at `now` until it is back."""
        if self.paused_at is None:
            self.paused_at = now

    def resume_clocks(self) -> None:
        """The connection is back: the running clock counts down from the server's last
        word again (the events replayed after the resume bring newer ones)."""
        self.paused_at = None

    def low_on_time(self, seat: int, now: float) -> bool:
        """The seat's clock is in its last tenth (at least 5 s, at most 30 s): time to warn."""
        remaining = self.remaining_ms(seat, now)
        if remaining is None or self.clock is None or self.over:
            return False
        return remaining <= min(max(self.clock.initial_ms // 10, 5_000), 30_000)

    def forget_offers(self) -> None:
        """A new connection: a rematch offer seen on the last one may have lapsed (its player
        left, the server restarted); the server says again what still waits."""
        self.rematch = None

    def apply(self, event: Event, now: float) -> Applied:
        """Apply one event received at monotonic time `now`. Versions count per game, so an
        event of another game is never taken for this one's next (a rematch's old game)."""
        if event.game_id != self.game_id:
            return Applied.OTHER_GAME
        if isinstance(event, Snapshot):
            if event.v < self.v:
                return Applied.DUPLICATE
            self._snapshot(event, now)
            return Applied.APPLIED
        if isinstance(event, SeatEvent) and self.over and event.v == self.v:
            self._seat(event, now)  # presence after the end: a seat event at the `over`'s version
            return Applied.APPLIED
        if event.v <= self.v:
            return Applied.DUPLICATE
        if event.v != self.v + 1 or self.game is None:
            return Applied.GAP
        self.v = event.v
        if isinstance(event, Moved):
            self._moved(event, now)
        elif isinstance(event, Over):
            self._over(event.result, now)
            self.ratings = event.ratings
        elif isinstance(event, SeatEvent):
            self._seat(event, now)
        elif isinstance(event, TakebackRequest):
            self._takeback(event, now)
            self.draw = None  # a takeback request closes a draw offer (docs/protocol.md)
        elif isinstance(event, DrawOffer):
            self.draw = event.seat if event.state == "offered" else None
        return Applied.APPLIED

    def next_change(self, now: float) -> float | None:
        """Seconds until a time the screen shows changes: the running clock's next second (its
        next tenth under ten seconds), a countdown's next whole second (shown rounded); None
        when no time runs, so that an idle screen is not drawn again."""
        if self.over:
            return None
        waits = []
        if self.clocks is not None and self.clocks.running is not None and self.paused_at is None:
            left = self.remaining_ms(self.clocks.running, now)
            if left is not None and left > 0:
                step = 100 if left <= 10_000 else 1000
                waits.append(((left - 1) % step + 1) / 1000)
        for due in (self.first_move_due, *self.away_until.values()):
            if due is not None and due > now:
                waits.append((due - now - 0.5) % 1.0 or 1.0)
        return min(waits, default=None)

    def first_move_left(self, now: float) -> float | None:
        """Seconds left for the untimed first move of the player to move, if one is awaited."""
        if self.first_move_due is None or self.over:
            return None
        return max(self.first_move_due - now, 0.0)

    def _set_clocks(self, clocks: Clocks | None, now: float) -> None:
        if clocks is not None:
            # The event was on its way for about half a round trip: the running clock ran on.
            transit = (self.rtt_ms or 0.0) / 2000
            self.clocks, self.clocks_at = clocks, now - transit
            first = clocks.first_move_ms
            self.first_move_due = None if first is None else now - transit + first / 1000

    def _snapshot(self, event: Snapshot, now: float) -> None:
        game = make_game(event.game, event.options)
        self.v = event.v
        self.game, self.game_name, self.options = game, event.game, dict(event.options)
        self.status = event.status
        self.position = game.parse_position(event.position)
        self.ply, self.to_move = event.ply, event.to_move
        self.history = list(event.history)
        self.movers, self.positions = _replay(game, event.history)
        self.positions[-1] = self.position
        self.legal = event.legal or ()
        self.seats = list(event.seats)
        self.clock, self.clocks = event.clock, None
        self._set_clocks(event.clocks, now)
        self.result = event.result
        self.aborted_why = None  # a snapshot shows the end, not how the game stood before it
        self.last = None
        self.away_until.clear()
        self.takeback = event.takeback
        self.draw = event.draw
        self.rematch = event.rematch
        self.analysis = event.analysis

    def _moved(self, event: Moved, now: float) -> None:
        assert self.game is not None
        game = self.game
        before = self.view
        try:
            steps = tuple(
                game.sowing_path(self.position, game.parse_move(self.position, event.move))
            )
        except GameError:
            # Our copy of the rules disagrees with the server's; the server is the judge, so
            # show its position without an animation rather than refuse it.
            steps = ()
        self.position = game.parse_position(event.position)
        self.ply, self.to_move = event.ply + 1, event.to_move
        self.history.append(event.move)
        self.movers.append(event.seat)
        self.positions.append(self.position)
        self.legal = event.legal or ()
        self._set_clocks(event.clocks, now)
        if event.info is not None:
            self.info[event.seat] = event.info
        self.last = LastMove(event.seat, event.ply, before, steps)
        self.takeback = self.draw = None
        if self.status == "waiting":
            self.status = "playing"

    def _over(self, result: Result, now: float) -> None:
        if self.clocks is not None:
            # `over` carries no clocks: freeze them as they stood when it arrived.
            frozen = (self.remaining_ms(0, now) or 0, self.remaining_ms(1, now) or 0)
            self.clocks, self.clocks_at = Clocks(frozen, None, self.clocks.increment_ms), now
        if result.reason == "aborted":
            self.aborted_why = self._why_aborted(now)
        self.status, self.result, self.legal = "over", result, ()
        self.takeback = self.draw = None
        self.away_until.clear()  # nobody's seat is held for a game that is over

    def _why_aborted(self, now: float) -> str | None:
        """Why a game that had started was aborted, from how it stood (docs/protocol.md,
        Result reasons): a player who had not moved left, or, with a clock, the player to
        move did not make their first move within the server's grace (its count run out: a
        player's own `abort` comes before, and says nothing more)."""
        if self.status != "playing" or self.game is None:
            return None  # resigned before the start: nothing more to say
        sides = self.view.side_labels
        gone = [
            seat for seat in (0, 1) if seat not in self.movers and not self.seats[seat].connected
        ]
        if gone:
            return f"{sides[gone[0]]} left before their first move"
        due = self.first_move_due
        if due is not None and now >= due - FIRST_MOVE_SLACK_S and self.to_move not in self.movers:
            return f"{sides[self.to_move]} did not play the first move in time"
        return None

    def _seat(self, event: SeatEvent, now: float) -> None:
        # The seat's kind and bot settings stay: only who sits there (and with what client)
        # and presence change.
        self.seats[event.seat] = dataclasses.replace(
            self.seats[event.seat],
            name=event.name,
            connected=event.connected,
            client=event.client,
            account=event.account,
        )
        if event.status is not None:
            self.status = event.status
        if event.connected or event.grace_ms is None or self.over:
            self.away_until.pop(event.seat, None)
        else:
            self.away_until[event.seat] = now + event.grace_ms / 1000
        if event.legal is not None:
            self.legal = event.legal
        self._set_clocks(event.clocks, now)

    def _takeback(self, event: TakebackRequest, now: float) -> None:
        """A request asked or declined; or accepted: back to the position before the asker's
        last move, as the server says."""
        self.takeback = event.seat if event.state == "asked" else None
        self._set_clocks(event.clocks, now)
        if event.state != "accepted" or event.position is None or event.to_move is None:
            return
        assert self.game is not None
        for seat in set(self.movers[event.ply :]):
            self.info.pop(seat, None)  # the engine's report was about a move now gone
        self.position = self.game.parse_position(event.position)
        self.ply, self.to_move = event.ply, event.to_move
        del self.history[event.ply :], self.movers[event.ply :], self.positions[event.ply + 1 :]
        self.positions[-1] = self.position
        self.legal = event.legal or ()
        self.last = None


def _replay(game: Game[Any, Any], history: Sequence[str]) -> tuple[list[int], list[Any]]:
    """Who played each move, and every position, by replaying the history from the start."""
    position = game.start()
    movers, positions = [], [position]
    for move in history:
        movers.append(game.to_move(position))
        position = game.play_text(position, move)
        positions.append(position)
    return movers, positions


REASONS = {
    "normal": "at the end of play",
    "no_moves": "as the other side cannot move",
    "resign": "by resignation",
    "timeout": "on time",
    "abandoned": "by abandonment",
    "ply_limit": "by adjudication at the ply limit",
    "repetition": "by adjudication after a repetition",
    "engine_failure": "after an engine failure",
    "agreement": "by agreement",
}
"""How each `Result.reason` reads after "wins" or "Draw"."""


CALLED_OFF = {
    "aborted": "Game aborted",
    "cancelled": "Game cancelled by its creator",
    "expired": "Game expired: nobody came to play it",
}
"""The reasons of games called off rather than decided (nobody won, docs/protocol.md), with
how each reads: neither a win nor a draw, as lichess's aborted games."""


def called_off(result: Result | None) -> bool:
    """The game was called off (a player left before their first move, its creator withdrew
    it, nobody came): nobody won, and it is no draw either."""
    return result is not None and result.winner is None and result.reason in CALLED_OFF


def describe_result(
    result: Result,
    names: Sequence[str | None],
    side_names: Sequence[str],
    why: str | None = None,
) -> str:
    """The result in one sentence: who won, why, and the score, the winner's first; or that
    the game was called off (and `why`, when known: "South did not play the first move")."""
    if called_off(result):
        return CALLED_OFF[result.reason] + (f": {why}" if why else "")
    reason = REASONS.get(result.reason, f"({result.reason.replace('_', ' ')})")
    if result.winner is None:
        text = f"Draw {reason}"
    else:
        winner = names[result.winner] if result.winner < len(names) else None
        text = f"{side_names[result.winner]}, {winner or 'open seat'}, wins {reason}"
    if result.score is not None:
        first = result.winner or 0
        text += f", {result.score[first]}-{result.score[1 - first]}"
    return text
