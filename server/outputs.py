"""What the core asks the I/O layer to do (effects as data): save, send, close, think, forward,
analyse.

The layer drains them with `Core.outputs()`: it hands every `Save` to the store at once, and
carries the rest out in order once the saves made before them are durable (server/app.py).
So an accepted move is durable before anybody hears of it, whichever store keeps it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ubao.protocol import Clocks, GameSummary, Hello, SeatSpec, ServerMessage
from ubao.server.accounts import StoredAccount
from ubao.server.stores.protocol import StoreChange

POLICY_VIOLATION = 1008
"""The WebSocket close code for a connection over its limits (RFC 6455)."""
SERVICE_RESTART = 1012
"""The WebSocket close code that tells a client to reconnect and resume (RFC 6455): the node
serving its game is gone or no longer owns it."""


@dataclass(frozen=True, slots=True)
class Save:
    """A change of a game to keep (`GameStore.snapshot`): nothing the core sends after it goes
    out before the store says it is durable."""

    change: StoreChange


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


@dataclass(frozen=True, slots=True)
class CheckKey:
    """A `hello` names an account: the layer checks its key against the account's hash (slow,
    on a worker thread) and calls `Core.key_checked`."""

    conn: int
    hello: Hello
    account: StoredAccount


@dataclass(frozen=True, slots=True)
class MakeKey:
    """`claim` or `rotate`: the layer makes a key and its hash (on a worker thread), stores the
    new account (`new`: if nobody claimed its name meanwhile) or the account's new hash, and
    calls `Core.key_made` with the key, or None if the name was taken."""

    conn: int
    command_id: int
    account: StoredAccount
    """The account to store, its `key_hash` still to be made."""
    new: bool


@dataclass(frozen=True, slots=True)
class AnalysisJob:
    """A finished game to analyse (an output): the layer runs it at low priority and calls
    `Core.analysed` or `Core.analysis_failed`."""

    game_id: str
    game: str
    options: dict[str, Any]
    moves: tuple[str, ...]
    time_ms: int
    """The engine's budget per move."""
    share: str
    """The address that asked for it: the analyses of one address run in turn."""


Output = (
    Save
    | SendMessage
    | Close
    | BotTurn
    | BotsDone
    | Forward
    | Listed
    | CheckKey
    | MakeKey
    | AnalysisJob
)
