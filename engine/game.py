"""The rules interface every game implements.

Server, clients and the protocol's users only ever talk to a `Game`, the rules; none of them
special-cases a game. The search, the solver and perft talk to a `Searchable`
(engine/searchable.py): these rules plus the hooks that walk the game's tree fast, which every
family implements too. A `Game` object holds the rules and options of one variant (board size,
rule flags) and is itself stateless: positions are immutable values passed in and returned, so
they can be shared, hashed into transposition tables and sent across threads without copying.

Players are numbered 0 (South / Black, moves first) and 1 (North / White).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

P = TypeVar("P", bound=Hashable)
"""A position: an immutable, hashable value (a tuple or a frozen dataclass)."""

M = TypeVar("M", bound=Hashable)
"""A move: an immutable, hashable value, meaningful only together with the position it is for."""


class GameError(ValueError):
    """Base class of every error a game raises for bad user input."""


class OptionsError(GameError):
    """Game options that are unknown, of the wrong type or out of range."""


MAX_SHOWN = 40
"""Most characters of a given value that an error message quotes: options come from clients
over the network, and a refusal must not carry a whole one back (the protocol's `quote` keeps
the same bound)."""


def shown(value: Any) -> str:
    """`value` as an error message names it: its `repr`, cut to MAX_SHOWN characters."""
    text = repr(value)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


def listed(values: Sequence[Any], most: int = 4) -> str:
    """Values an error message names (unknown options, say), each `shown`, at most `most`."""
    text = ", ".join(map(shown, values[:most]))
    return text if len(values) <= most else f"{text} and {len(values) - most} more"


class NotationError(GameError):
    """A move or position text that cannot be parsed; the message says what is wrong."""


class IllegalMoveError(GameError):
    """A well-formed move that the rules do not allow in this position."""


class PositionError(GameError):
    """A position value given through the API (not parsed from notation) that the rules cannot
    take: malformed, or beyond the native core's bounds (`MAX_COUNT`)."""


def notation_text(value: Any, what: str) -> str:
    """`value`, which a notation parser reads: anything but a string (None, a number) is bad
    notation, refused as such rather than with the TypeError of a string method."""
    if not isinstance(value, str):
        raise NotationError(f"{what} in notation is a string, not {shown(value)}")
    return value


MAX_COUNT = 1_000_000
"""The most seeds a pit, store, stock or hand may hold: the native core's bound
(engine/native/mancala.h, bao.h), which keeps its sums far from overflow. The notation parsers
refuse more on both backends, so a position accepted on one runs on the other."""


def bounded_count(digits: str, most: int = MAX_COUNT) -> int | None:
    """The ASCII decimal `digits` as an integer, or None when it exceeds `most`: an overlong
    string is never converted (int() refuses one of over 4300 digits with a bare ValueError)."""
    significant = digits.lstrip("0") or "0"
    if len(significant) > len(str(most)) or int(significant) > most:
        return None
    return int(significant)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished game."""

    winner: int | None
    """0, 1, or None for a draw."""
    score: tuple[int, int]
    """Each player's points at the end (stores, discs, seeds), player 0 first."""
    reason: str = "normal"
    """Why the game ended: "normal", "no_moves", "ply_limit", "repetition", ..."""

    def to_dict(self) -> dict[str, Any]:
        return {"winner": self.winner, "score": list(self.score), "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Step:
    """One hole touched by a move, in order, for clients that animate a sowing."""

    hole: str
    """The hole's label in the game's notation (e.g. "S3", "N*" for North's store, "B5", "d3")."""
    action: str
    """What happened there: "sow", "lift", "capture", "store", "place", "flip"; "sweep": at
    the end of a mancala game, the seeds left in a pit taken up for a store (the "store" step
    after the sweep says which), whoever moved last."""


class Game(ABC, Generic[P, M]):
    """The rules of one game variant with fixed options.

    Subclasses set `name` and implement the abstract methods; `is_over` and the JSON forms
    have generic implementations that a game overrides when it can do better. The search's
    hooks are not here but in `Searchable`, which extends it.
    """

    name: ClassVar[str]
    """The game's name on the command line and the wire ("kalah", "bao", "othello", ...)."""

    options: Mapping[str, Any]
    """The complete, validated options of this variant (defaults filled in)."""

    @abstractmethod
    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        """Validate `options` (OptionsError says what is wrong) and fill in the defaults."""

    def __reduce__(self) -> tuple[type[Game[P, M]], tuple[dict[str, Any]]]:
        """Pickled and deep-copied as its class (the game and its backend) and options, which
        rebuild it: the same rules. Its attributes are tables derived from those, caches, and
        on the native backend the C core, which neither pickle nor deepcopy can copy."""
        return type(self), (dict(self.options),)

    @abstractmethod
    def start(self) -> P:
        """The start position."""

    @abstractmethod
    def to_move(self, position: P) -> int:
        """The player to move (0 or 1)."""

    @abstractmethod
    def legal_moves(self, position: P) -> list[M]:
        """All legal moves, in a fixed order; empty exactly when the game is over."""

    @abstractmethod
    def play(self, position: P, move: M) -> P:
        """The position after `move`; raises IllegalMoveError if it is not legal."""

    @abstractmethod
    def outcome(self, position: P) -> Outcome | None:
        """The result if the game is over, else None."""

    def is_over(self, position: P) -> bool:
        return self.outcome(position) is not None

    @abstractmethod
    def format_move(self, position: P, move: M) -> str:
        """The move in the game's notation, which may depend on the position (a Bao namua
        capture's letter names its kichwa); IllegalMoveError, as `play` raises it, for a move
        that is not legal there. A game whose notation does not need the position may name
        any well-formed move instead (Othello: any square of its board, or pass)."""

    @abstractmethod
    def parse_move(self, position: P, text: str) -> M:
        """The move that `text` names; NotationError if malformed, IllegalMoveError if illegal."""

    @abstractmethod
    def format_position(self, position: P) -> str:
        """One line that `parse_position` turns back into the same position."""

    @abstractmethod
    def parse_position(self, text: str) -> P:
        """The position that `text` describes; NotationError says what is wrong."""

    @classmethod
    def options_in_position(cls, text: str) -> dict[str, Any]:
        """The options a position's text implies (its board size), so that a position alone
        names its variant; {} when it implies none or is not readable (parsing says why)."""
        return {}

    @classmethod
    def options_in_position_json(cls, data: Any) -> dict[str, Any]:
        """`options_in_position` for the JSON form, so that `--position-json` fills in the same
        options as `--position`: by default the JSON form is the notation string itself."""
        return cls.options_in_position(data) if isinstance(data, str) else {}

    def position_json(self, position: P) -> Any:
        """The position as JSON-ready data (for `--json` output)."""
        return self.format_position(position)

    def parse_position_json(self, data: Any) -> P:
        """The inverse of `position_json`."""
        if not isinstance(data, str):
            raise NotationError(f"{self.name}: a position in JSON must be a string")
        return self.parse_position(data)

    def key(self, position: P) -> Hashable:
        """A hashable key identifying the position up to what repeats (Bao's ply counter):
        the server counts repetitions by it, and the solver keys its table on it."""
        return position

    @abstractmethod
    def sowing_path(self, position: P, move: M) -> list[Step]:
        """Every hole the move touches, in order (seeds sown, captured, discs flipped)."""

    def play_text(self, position: P, text: str) -> P:
        """Parse and play one move given in notation."""
        return self.play(position, self.parse_move(position, text))

    def describe(self) -> str:
        """The variant with its options, e.g. `kalah(6,4)`."""
        return self.name
