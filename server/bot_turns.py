"""The turns of server-hosted bots: each asked of the layer once (a `BotTurn`), recognised as
still current when its move comes back, and the game's engines let go when it is over or gone
(`BotsDone`). Pure: it returns the outputs; the core queues them."""

from __future__ import annotations

from ubao.server.outputs import BotsDone, BotTurn
from ubao.server.room import Room


class BotTurns:
    """The ply each game's pending bot turn was asked for, so that each is asked once."""

    def __init__(self) -> None:
        self._asked: dict[str, int] = {}

    def next(self, room: Room, now: int) -> BotTurn | None:
        """The bot turn to ask for, if a server bot is to move and was not asked yet."""
        if not room.bot_to_move() or self._asked.get(room.game_id) == room.ply:
            return None
        self._asked[room.game_id] = room.ply
        seat = room.to_move
        return BotTurn(
            game_id=room.game_id,
            seat=seat,
            ply=room.ply,
            game=room.game_name,
            options=room.options,
            moves=tuple(room.history),
            spec=room.seats[seat].spec,
            clocks=room.clocks(now),
            pace_ms=room.pace_ms,
        )

    def current(self, room: Room, turn: BotTurn) -> bool:
        """Whether `turn` is still the game's: its bot is to move in the position it was
        asked about."""
        return (
            room.bot_to_move() and tuple(room.history) == turn.moves and room.to_move == turn.seat
        )

    def ask_again(self, game_id: str) -> None:
        """The turn asked for is of a position gone by (a takeback): the next is asked anew."""
        self._asked.pop(game_id, None)

    def done(self, room: Room) -> list[BotsDone]:
        """The game is over or gone: no more turns, and its engines (if any) can go."""
        self._asked.pop(room.game_id, None)
        return [BotsDone(room.game_id)] if any(seat.is_bot for seat in room.seats) else []
