"""The games a KGP agent plays, pure: which one it joins (a waiting game that asks for a bot
client, or the tournament's game it is paired in), the game it sits in (`Seat`), the `state`
it works on (`Request`) and the time each state gets."""

from __future__ import annotations

from dataclasses import dataclass

from ubao.engine.game import GameError
from ubao.engine.games import make_game
from ubao.engine.mancala.game import Mancala
from ubao.engine.protocols.kgp import plays_kgp_rules
from ubao.protocol import (
    Clocks,
    GameSummary,
    Moved,
    Over,
    SeatEvent,
    Snapshot,
    TournamentView,
)

MIN_MOVE_MS = 50
"""The least time a `state` lasts, whatever the clock says."""
CLOCK_MARGIN_MS = 300
"""Kept back from a seat's clock when its `state` is timed: the move must still reach the core."""


@dataclass(slots=True)
class Request:
    """The `state` the agent is working on."""

    id: int
    ply: int
    legal: tuple[int, ...]
    sent_at: int
    ends_at: int
    move: int | None = None


@dataclass(slots=True)
class Seat:
    """The game the agent sits in."""

    game_id: str
    seat: int
    token: str
    game: Mancala | None = None
    position: tuple[int, ...] | None = None
    ply: int = 0
    to_move: int = 0
    status: str = "waiting"
    clocks: Clocks | None = None
    opponent: str = ""
    asked_ply: int = -1
    """The ply of the last `state` sent: one per ply."""
    announced: bool = False
    """Whether `game:id` and the others were set for it."""

    def update(self, message: Snapshot | Moved | SeatEvent | Over) -> None:
        """What the core's `message` of this game says of it."""
        if isinstance(message, Snapshot):
            self.game = make_game(message.game, message.options)  # type: ignore[assignment]
            self.status = message.status
            self.ply = message.ply
            self.clocks = message.clocks
            self.opponent = message.seats[1 - self.seat].name or ""
            self._at(message.position, message.to_move)
        elif isinstance(message, Moved):
            self.ply = message.ply + 1
            self.clocks = message.clocks
            self._at(message.position, message.to_move)
        elif isinstance(message, SeatEvent):
            if message.seat != self.seat and message.name is not None:
                self.opponent = message.name
            if message.status is not None:
                self.status = message.status
            if message.clocks is not None:
                self.clocks = message.clocks
        else:
            self.status = "over"

    def _at(self, position_text: str, to_move: int) -> None:
        assert self.game is not None
        self.position = self.game.parse_position(position_text)
        self.to_move = to_move


def state_time(seat: Seat, move_ms: int) -> tuple[tuple[tuple[str, str | int], ...], int]:
    """The `time:*` options that say the time of the seat's next `state` (the mode as a quoted
    string: the course's Java client reads no bare word there), and that time (ms)."""
    clocks = seat.clocks
    if clocks is None:
        return (("time:mode", "relative"), ("time:clock", max(1, move_ms // 1000))), move_ms
    mine, theirs = clocks.remaining_ms[seat.seat], clocks.remaining_ms[1 - seat.seat]
    options = (
        ("time:mode", "absolute"),
        ("time:clock", mine // 1000),
        ("time:opclock", theirs // 1000),
    )
    return options, max(MIN_MOVE_MS, min(move_ms, mine - CLOCK_MARGIN_MS))


def open_bot_seat(summary: GameSummary) -> int | None:
    """The open seat of a waiting game on KGP's rules that asks for a bot client, if any."""
    if summary.game != "kalah" or summary.status != "waiting":
        return None
    try:
        game = make_game("kalah", summary.options)
    except GameError:  # options a newer server allows: not for KGP
        return None
    if not plays_kgp_rules(game.options):
        return None
    for number, seat in enumerate(summary.seats):
        if seat.kind == "open" and seat.name is None and seat.wants_bot:
            return number
    return None


def paired_game(view: TournamentView, me: int, joined: set[str]) -> tuple[str, int] | None:
    """The tournament's game entrant `me` is paired in that has started, is not over and was
    not `joined` yet, and the seat it takes there."""
    for pairing in view.pairings:
        if pairing.game_id is None or pairing.result != "*" or pairing.game_id in joined:
            continue
        if me in (pairing.white, pairing.black):
            return pairing.game_id, 0 if pairing.white == me else 1
    return None
