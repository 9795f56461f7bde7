"""A room's lifecycle in tables (as h11's `_state.py` keeps HTTP's): which action each status
allows and where it leads, and what a client hears when it asks for one its game's status does
not allow; and the same for the two offers a player makes the other, a takeback request while
the game is played and a rematch offer once it is over. Pure data and two functions; `Room`
moves only through `advance`, and an offer only through `answer`.

    waiting --start--> playing --finish/resign--> over
       |                                           ^
       +-----------cancel/resign/finish------------+

Inside a status, each of the room's other states has one owner (server/room.py unless said):
- waiting: `expires_at` runs while nobody attends the game (`Deadlines.attend`).
- playing: `first_move_due` while a player's untimed first move is awaited (a game with a
  clock); a takeback asked (`pending_takeback`, read from the log) until it is answered, a move
  is made or the game ends: `TAKEBACK`.
- any status but over: a seat in `grace` (`grace_until`) while its player is away, and
  `returning` (no clock of theirs runs) after a restore until the player is back.
- over: a rematch offered (`rematch_offer`) until it is answered, withdrawn or declined
  (`REMATCH`), and rematched (`rematch_id`) after that: server/rematch.py takes those steps.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TypeVar

from ubao.protocol import ErrorCode, RematchState, Status, TakebackState

Action = Literal[
    "join", "start", "play", "takeback", "draw", "resign", "abort", "cancel", "finish", "rematch"
]
"""What happens to a room: a player sits down, the game starts (no seat is free), a move, a
takeback asked or answered, a draw offered or declined, a resignation, an abort before a
seat's first move, the creator's cancel, an end of any kind (the rules, a clock, a grace
period, an expiry, a forfeit, a draw agreed), a rematch offered or answered."""

STATUS_TRANSITIONS: dict[tuple[Status, Action], Status] = {
    ("waiting", "join"): "waiting",
    ("waiting", "start"): "playing",
    ("waiting", "resign"): "over",  # aborted: the game never started
    ("waiting", "abort"): "over",
    ("waiting", "cancel"): "over",
    ("waiting", "finish"): "over",
    ("playing", "join"): "playing",  # a seat given up during the game, taken again
    ("playing", "play"): "playing",
    ("playing", "takeback"): "playing",
    ("playing", "draw"): "playing",  # accepted, it ends the game: "finish"
    ("playing", "resign"): "over",
    ("playing", "abort"): "over",  # before the seat's first move (Room.abort checks it)
    ("playing", "finish"): "over",
    ("over", "rematch"): "over",
}

_IS_OVER = (ErrorCode.GAME_OVER, "game {game_id} is over")
_NOT_STARTED = (ErrorCode.NOT_STARTED, "game {game_id} waits for a player")
REFUSALS: dict[tuple[Status, Action], tuple[ErrorCode, str]] = {
    ("over", "join"): _IS_OVER,
    ("over", "play"): _IS_OVER,
    ("over", "takeback"): _IS_OVER,
    ("over", "draw"): _IS_OVER,
    ("over", "resign"): _IS_OVER,
    ("over", "abort"): _IS_OVER,
    ("over", "cancel"): _IS_OVER,
    ("waiting", "play"): _NOT_STARTED,
    ("waiting", "takeback"): _NOT_STARTED,
    ("waiting", "draw"): _NOT_STARTED,
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

    def __init__(self, code: ErrorCode, message: str, retry_after_ms: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after_ms = retry_after_ms
        """With `too_many_attempts`: how long until another try may be made."""


class IllegalTransition(Exception):
    """An action no row allows nor refuses (the server's own, like `start` in a game over): a
    bug in the server, never a client's doing."""


def advance(status: Status, action: Action, game_id: str) -> Status:
    """The status `action` leads to from `status`; Rejected (what the client hears) if the
    status refuses it, IllegalTransition if the table has no row for it."""
    after = STATUS_TRANSITIONS.get((status, action))
    if after is not None:
        return after
    refusal = REFUSALS.get((status, action))
    if refusal is None:
        raise IllegalTransition(f"game {game_id}: no {action} when {status}")
    code, message = refusal
    raise Rejected(code, message.format(game_id=game_id))


Offer = Literal["none", "mine", "theirs"]
"""A takeback request or a rematch offer as the player who acts sees it: none waits, their own
waits for the opponent's answer, or the opponent's waits for theirs."""

TakebackAction = Literal["ask", "accept", "decline", "move"]
"""A player asks to take back their last move, accepts or declines the opponent's request, or
moves."""

TAKEBACK: dict[tuple[Offer, TakebackAction], TakebackState] = {
    ("none", "ask"): "asked",  # a server bot opponent accepts at once: ("theirs", "accept")
    ("theirs", "accept"): "accepted",
    ("theirs", "decline"): "declined",
    ("theirs", "move"): "declined",  # moving instead of answering declines it, aloud
}
"""What the others hear of a takeback action: the request's new state (the event logged). An
action with no row changes nothing: the asker's own move withdraws the request (the move says
so), and any other event after `asked` closes it (`Room.pending_takeback`)."""

_TAKEBACK_PENDING = (
    ErrorCode.TAKEBACK_PENDING,
    "a takeback request in game {game_id} waits for its answer",
)
_NO_TAKEBACK = (
    ErrorCode.NO_TAKEBACK_REQUEST,
    "no takeback request of the opponent's waits in game {game_id}",
)
TAKEBACK_REFUSALS: dict[tuple[Offer, TakebackAction], tuple[ErrorCode, str]] = {
    ("mine", "ask"): _TAKEBACK_PENDING,
    ("theirs", "ask"): _TAKEBACK_PENDING,
    ("none", "accept"): _NO_TAKEBACK,
    ("none", "decline"): _NO_TAKEBACK,
    ("mine", "accept"): _NO_TAKEBACK,
    ("mine", "decline"): _NO_TAKEBACK,
}

RematchAction = Literal["offer", "accept", "decline", "leave"]
"""A player offers a rematch, accepts or declines the opponent's offer, or leaves the game."""

REMATCH: dict[tuple[Offer, RematchAction], RematchState] = {
    ("none", "offer"): "offered",  # a server bot opponent accepts at once: ("theirs", "accept")
    ("theirs", "offer"): "accepted",  # offers that cross
    ("theirs", "accept"): "accepted",
    ("theirs", "decline"): "declined",
    # As on lichess, an offer lapses when its player leaves, and when the player it waits for
    # leaves (they will not answer it).
    ("mine", "leave"): "withdrawn",
    ("theirs", "leave"): "declined",
}
"""What everyone in the game hears of a rematch action: the offer's new state. `offered` leaves
the offer waiting; every other state ends it (`accepted` creates the rematch)."""

_NO_REMATCH = (
    ErrorCode.NO_REMATCH_OFFER,
    "no rematch offer of the opponent's waits in game {game_id}",
)
REMATCH_REFUSALS: dict[tuple[Offer, RematchAction], tuple[ErrorCode, str]] = {
    ("mine", "offer"): (
        ErrorCode.REMATCH_PENDING,
        "your rematch offer in game {game_id} waits for its answer",
    ),
    ("none", "accept"): _NO_REMATCH,
    ("none", "decline"): _NO_REMATCH,
    ("mine", "accept"): _NO_REMATCH,
    ("mine", "decline"): _NO_REMATCH,
}

State = TypeVar("State", bound=str)
Act = TypeVar("Act", bound=str)


def offer_of(seat: int, offerer: int | None) -> Offer:
    """The offer waiting from `offerer` (None: none) as `seat` sees it."""
    return "none" if offerer is None else "mine" if offerer == seat else "theirs"


def answer(
    table: Mapping[tuple[Offer, Act], State],
    refusals: Mapping[tuple[Offer, Act], tuple[ErrorCode, str]],
    offer: Offer,
    action: Act,
    game_id: str,
) -> State | None:
    """The offer's new state after `action` (`table`), None if the action leaves it as it is,
    or Rejected (what the client hears) if `refusals` refuses it."""
    after = table.get((offer, action))
    if after is not None:
        return after
    refusal = refusals.get((offer, action))
    if refusal is not None:
        code, message = refusal
        raise Rejected(code, message.format(game_id=game_id))
    return None
