"""Every message of wire protocol v1 as a typed value, defined once for server and clients.

Field names are the wire's field names. Sequences are tuples so that messages are plain,
comparable values; `options` maps stay dicts. A field whose default is None is optional on the
wire: `encode` leaves it out while it is None and `decode` fills in None when it is absent. A
flag whose default is False is likewise sent only when true, so that older peers see nothing new.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

PROTOCOL_VERSION = 1
"""The version this package speaks; `hello` carries it as `proto`."""

GAME_NAMES = ("kalah", "egyptian", "ethiopian", "bao", "othello")
"""The games a `create` may name (the server may not have every one installed)."""

Role = Literal["human", "bot", "spectator"]
Status = Literal["waiting", "playing", "over"]
SeatKind = Literal["open", "bot"]

MATE_SCORE = 1_000_000
"""A forced result is scored ±(MATE_SCORE - plies) in `BotInfo.score` (with `mate` set to the
plies), so that scores still order: a faster win scores higher."""

MAX_PV = 128
"""Most moves of a principal variation a client may send with its `move`."""


def mate_score(plies: int) -> int:
    """The `BotInfo.score` of a forced result `plies` away (negative plies: a forced loss)."""
    return MATE_SCORE - plies if plies > 0 else -(MATE_SCORE + plies)


# -- values nested in messages -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClockSpec:
    """A Fischer time control: every seat starts with `initial_ms`, gains `increment_ms` a move."""

    initial_ms: int
    increment_ms: int = 0


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """Who sits in a seat of a new game: an open seat (which may ask for an external bot), or a
    bot hosted by the server."""

    kind: SeatKind
    depth: int | None = None
    """Search depth in plies: required for bot seats; for an open seat that wants a bot, the
    depth wished for (optional)."""
    time_ms: int | None = None
    """Thinking time per move (bot seats only)."""
    eval: str | None = None
    """Name of the game's static evaluation (bot seats only; default: the game's first)."""
    algorithm: str | None = None
    """`minimax`, `alphabeta` or `negamax` (bot seats only; default: the engine's)."""
    wants_bot: bool = False
    """Extension, open seats only: an external bot client is wanted here (`ubao bot --serve`
    joins only such seats), so that bots do not take the seats people wait for."""

    @classmethod
    def open(cls) -> SeatSpec:
        return cls("open")

    @classmethod
    def external_bot(cls, depth: int | None = None) -> SeatSpec:
        """An open seat for an external bot client, optionally wishing for a search depth."""
        return cls("open", depth, wants_bot=True)

    @classmethod
    def bot(
        cls,
        depth: int,
        *,
        time_ms: int | None = None,
        eval: str | None = None,
        algorithm: str | None = None,
    ) -> SeatSpec:
        return cls("bot", depth, time_ms, eval, algorithm)


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A seat as others see it: its kind, the name of whoever sits there, and presence; and,
    as extensions, what its seat spec says of bots, so that nobody parses names for it."""

    kind: SeatKind
    name: str | None
    """None while an open seat has not been joined."""
    connected: bool
    wants_bot: bool = False
    """Extension: an open seat that asks for an external bot client."""
    depth: int | None = None
    """Extension: a server bot's search depth, or the depth an open seat wishes for its bot."""
    time_ms: int | None = None
    """Extension: a server bot's thinking time per move, when set."""
    eval: str | None = None
    """Extension: a server bot's evaluation, when set (else the game's first)."""
    algorithm: str | None = None
    """Extension: a server bot's search algorithm, when set."""


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One line of the lobby (`games`)."""

    game_id: str
    game: str
    options: dict[str, Any]
    status: Status
    ply: int
    seats: tuple[SeatInfo, ...]
    clock: ClockSpec | None = None
    """Extension: the game's time control, if it has one."""
    created: int | None = None
    """Extension: when the game was created, in milliseconds since the epoch (UTC)."""


@dataclass(frozen=True, slots=True)
class Clocks:
    """Both clocks at the moment the event was made."""

    remaining_ms: tuple[int, int]
    """Time left for seat 0 and seat 1."""
    running: int | None
    """The seat whose clock runs, or None when no clock runs (not started or over)."""
    increment_ms: int = 0


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended."""

    winner: int | None
    """0, 1, or None for a draw or an aborted game."""
    reason: str
    """`normal`, `no_moves`, ... from the rules, or `resign`, `timeout`, `abandoned`, `aborted`,
    `ply_limit`, `repetition`, `engine_failure` from the server."""
    score: tuple[int, int] | None
    """Each seat's points when the rules ended the game; None when the server ended it."""


@dataclass(frozen=True, slots=True)
class BotInfo:
    """What a bot reported about the search that chose its move: a server-hosted bot's engine,
    or a bot client in its `move`."""

    depth: int
    score: int
    """From the mover's point of view; a forced result is ±(1_000_000 - plies), see `mate`."""
    nodes: int
    time_ms: int
    pv: tuple[str, ...]
    mate: int | None = None
    """Extension: plies to a forced win (negative: to a forced loss), when the engine found one."""


# -- client -> server commands -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    type: ClassVar[str] = "hello"
    id: int
    proto: int
    name: str
    role: Role


@dataclass(frozen=True, slots=True)
class ListGames:
    type: ClassVar[str] = "games"
    id: int


@dataclass(frozen=True, slots=True)
class Create:
    type: ClassVar[str] = "create"
    id: int
    game: str
    options: dict[str, Any]
    seats: tuple[SeatSpec, SeatSpec]
    clock: ClockSpec | None = None


@dataclass(frozen=True, slots=True)
class Join:
    type: ClassVar[str] = "join"
    id: int
    game_id: str
    seat: int | None = None
    """0, 1, or None for any open seat."""


@dataclass(frozen=True, slots=True)
class Resume:
    type: ClassVar[str] = "resume"
    id: int
    game_id: str
    token: str
    since_v: int
    """The last version this client saw (0 if none: it then gets a snapshot)."""


@dataclass(frozen=True, slots=True)
class Watch:
    type: ClassVar[str] = "watch"
    id: int
    game_id: str
    since_v: int | None = None
    """With a version this client saw, it gets the events after it instead of a snapshot."""


@dataclass(frozen=True, slots=True)
class Move:
    type: ClassVar[str] = "move"
    id: int
    game_id: str
    token: str
    ply: int
    """The ply this move is for (0-based): a resend for a ply already played changes nothing."""
    move: str
    info: BotInfo | None = None
    """Extension: a bot client's report of the search that chose the move; the server passes
    it on in the `moved` event."""


@dataclass(frozen=True, slots=True)
class Resign:
    type: ClassVar[str] = "resign"
    id: int
    game_id: str
    token: str


@dataclass(frozen=True, slots=True)
class Ping:
    type: ClassVar[str] = "ping"
    id: int
    t: int
    """The client's clock in milliseconds, echoed back."""


# -- server -> client replies ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ok:
    """The success reply to the command with the same `id`; which fields it carries depends on
    the command (`hello`: proto, session; `games`: games; `create`: game_id; `join`: game_id,
    seat, token; `ping`: t, server_t)."""

    type: ClassVar[str] = "ok"
    id: int
    proto: int | None = None
    session: str | None = None
    games: tuple[GameSummary, ...] | None = None
    game_id: str | None = None
    seat: int | None = None
    token: str | None = None
    t: int | None = None
    server_t: int | None = None


@dataclass(frozen=True, slots=True)
class Error:
    """The failure reply: nothing changed on the server."""

    type: ClassVar[str] = "error"
    id: int | None
    """The command's id, or None when the frame could not be read as a command."""
    code: str
    """An `ErrorCode` value (a str, so that codes of newer servers still decode)."""
    message: str


# -- server -> client game events (each carries the game's version v) ---------------------------


@dataclass(frozen=True, slots=True)
class Snapshot:
    type: ClassVar[str] = "snapshot"
    game_id: str
    v: int
    game: str
    options: dict[str, Any]
    status: Status
    position: str
    to_move: int
    ply: int
    history: tuple[str, ...]
    seats: tuple[SeatInfo, ...]
    legal: tuple[str, ...] | None = None
    """Only in the copy sent to the seat to move."""
    clocks: Clocks | None = None
    result: Result | None = None
    clock: ClockSpec | None = None
    """Extension: the game's time control."""
    created: int | None = None
    """Extension: when the game was created, in milliseconds since the epoch (UTC)."""


@dataclass(frozen=True, slots=True)
class Moved:
    type: ClassVar[str] = "moved"
    game_id: str
    v: int
    ply: int
    """The ply of the move just played; the game is now at ply + 1."""
    seat: int
    move: str
    position: str
    to_move: int
    legal: tuple[str, ...] | None = None
    """Only in the copy sent to the seat to move, and only while the game goes on."""
    clocks: Clocks | None = None
    info: BotInfo | None = None
    """For moves of server-hosted bots, and of bot clients that sent their search report."""


@dataclass(frozen=True, slots=True)
class Over:
    type: ClassVar[str] = "over"
    game_id: str
    v: int
    result: Result


@dataclass(frozen=True, slots=True)
class SeatEvent:
    """Someone joined a seat, left it, came back, or the seat was freed (`name` None)."""

    type: ClassVar[str] = "seat"
    game_id: str
    v: int
    seat: int
    name: str | None
    connected: bool
    grace_ms: int | None = None
    """Extension: when a player dropped, how long the seat is held for them."""
    status: Status | None = None
    """Extension: the game's status after this event (`playing` once the last seat is taken)."""
    legal: tuple[str, ...] | None = None
    """Extension: when this event starts the game, the legal moves, to the seat to move only."""
    clocks: Clocks | None = None
    """Extension: the clocks after this event, if the game has any."""


Command = Hello | ListGames | Create | Join | Resume | Watch | Move | Resign | Ping
"""What a client sends."""
Reply = Ok | Error
Event = Snapshot | Moved | Over | SeatEvent
ServerMessage = Reply | Event
"""What a server sends."""
Message = Command | ServerMessage

COMMAND_TYPES: tuple[type[Command], ...] = (
    Hello,
    ListGames,
    Create,
    Join,
    Resume,
    Watch,
    Move,
    Resign,
    Ping,
)
SERVER_MESSAGE_TYPES: tuple[type[ServerMessage], ...] = (
    Ok,
    Error,
    Snapshot,
    Moved,
    Over,
    SeatEvent,
)
