"""A room's lifecycle in one table (as h11's `_state.py` keeps HTTP's): which action each status
allows and where it leads, and what a client hears when it asks for one its game's status does
not allow. Pure data and one function; `Room` moves only through `advance`.

    waiting --start--> playing --finish/resign--> over
       |                                           ^
       +-----------cancel/resign/finish------------+

Inside a status, each of the room's other states has one owner (server/room.py unless said):
- waiting: `expires_at` runs while nobody attends the game (the core's `_attend`).
- playing: `first_move_due` while a player's untimed first move is awaited (a game with a
  clock); a takeback asked (`pending_takeback`, read from the log) until it is answered, a move
  is made or the game ends.
- any status but over: a seat in `grace` (`grace_until`) while its player is away, and
  `returning` (no clock of theirs runs) after a restore until the player is back.
- over: a rematch offered (`rematch_offer`) until it is answered, withdrawn or declined, and
  rematched (`rematch_id`) after that: server/rematch.py decides those steps.
"""

from __future__ import annotations

from typing import Literal

from ubao.protocol import ErrorCode, Status

Action = Literal["join", "start", "play", "takeback", "resign", "cancel", "finish", "rematch"]
"""What happens to a room: a player sits down, the game starts (no seat is free), a move, a
takeback asked or answered, a resignation, the creator's cancel, an end of any kind (the rules,
a clock, a grace period, an expiry, a forfeit), a rematch offered or answered."""

TRANSITIONS: dict[tuple[Status, Action], Status] = {
    ("waiting", "join"): "waiting",
    ("waiting", "start"): "playing",
    ("waiting", "resign"): "over",  # aborted: the game never started
    ("waiting", "cancel"): "over",
    ("waiting", "finish"): "over",
    ("playing", "join"): "playing",  # a seat given up during the game, taken again
    ("playing", "play"): "playing",
    ("playing", "takeback"): "playing",
    ("playing", "resign"): "over",
    ("playing", "finish"): "over",
    ("over", "rematch"): "over",
}

_IS_OVER = (ErrorCode.GAME_OVER, "game {game_id} is over")
_NOT_STARTED = (ErrorCode.NOT_STARTED, "game {game_id} waits for a player")
REFUSALS: dict[tuple[Status, Action], tuple[ErrorCode, str]] = {
    ("over", "join"): _IS_OVER,
    ("over", "play"): _IS_OVER,
    ("over", "takeback"): _IS_OVER,
    ("over", "resign"): _IS_OVER,
    ("over", "cancel"): _IS_OVER,
    ("waiting", "play"): _NOT_STARTED,
    ("waiting", "takeback"): _NOT_STARTED,
    ("playing", "cancel"): (
        ErrorCode.ALREADY_STARTED,
        "game {game_id} has started; only a waiting game can be cancelled",
    ),
    ("waiting", "rematch"): (ErrorCode.NOT_OVER, "game {game_id} is not over yet"),
    ("playing", "rematch"): (ErrorCode.NOT_OVER, "game {game_id} is not over yet"),
}
"""The client's actions a status refuses, with the error it hears."""


class Rejected(Exception):
    """A command that is not allowed (by its game's status, or any other rule of the server);
    the reply is an `error` with this code, and nothing changed."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class IllegalTransition(Exception):
    """An action no row allows nor refuses (the server's own, like `start` in a game over): a
    bug in the server, never a client's doing."""


def advance(status: Status, action: Action, game_id: str) -> Status:
    """The status `action` leads to from `status`; Rejected (what the client hears) if the
    status refuses it, IllegalTransition if the table has no row for it."""
    after = TRANSITIONS.get((status, action))
    if after is not None:
        return after
    refusal = REFUSALS.get((status, action))
    if refusal is None:
        raise IllegalTransition(f"game {game_id}: no {action} when {status}")
    code, message = refusal
    raise Rejected(code, message.format(game_id=game_id))
