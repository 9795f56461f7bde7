"""The backend switch: a game's rules in Python (the reference) or in the native C core.

`make_game(name, options, backend=...)` picks the backend: `"python"`, `"native"` or `"auto"`,
which is native when the C extension `ubao.engine._native` is built and the game has native
rules, else Python. Without an explicit choice the `UBAO_BACKEND` environment variable decides,
and `"auto"` when it is unset.

A native game is a subclass of the Python one that hands its rules (`legal_moves`, `play`,
`is_over`, `outcome`) and search hooks (`child`, `children`; Bao's `search_moves` too, whose
order needs every child) to the C core; notation stays the Python class's, and so do the
evaluations the Python search calls. `search_core` gives the native search, which has every
algorithm and every evaluation of each game in C (engine/search/ runs it instead of its own).
Positions and moves are the Python engine's own values, so notation, evaluations, the search,
the server and the clients run unchanged on either backend, and the two can be compared
position by position. Error messages stay the Python rules': the core answers None for an
illegal move, and the Python `play` explains why. A position value the core cannot read
(malformed, or beyond its bounds, `MAX_COUNT` seeds in a hole) raises `PositionError`, a
`GameError`, as the Python rules do for a malformed one: the core raises it itself
(engine/native/module.c).
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from ubao.engine.bao.game import FLAGS as BAO_FLAGS
from ubao.engine.bao.game import Bao
from ubao.engine.bao.rules import BaoMove
from ubao.engine.bao.rules import Position as BaoPosition
from ubao.engine.game import Game, OptionsError, Outcome
from ubao.engine.mancala.game import Egyptian, Ethiopian, Kalah, Mancala
from ubao.engine.mancala.game import Move as MancalaMove
from ubao.engine.mancala.game import Position as MancalaPosition
from ubao.engine.othello import patterns
from ubao.engine.othello.game import Move as OthelloMove
from ubao.engine.othello.game import Othello
from ubao.engine.othello.game import Position as OthelloPosition
from ubao.engine.searchable import Searchable, SearchHints

if TYPE_CHECKING:
    from ubao.engine._native import Search

try:
    from ubao.engine._native import Bao as BaoCore
    from ubao.engine._native import Mancala as MancalaCore
    from ubao.engine._native import Othello as OthelloCore
    from ubao.engine._native import OthelloEndgame as OthelloEndgameCore
    from ubao.engine._native import Search as SearchCore
    from ubao.engine._native import load_othello_patterns

    NATIVE_BUILT = True
except ImportError:  # installed without a C compiler: the Python rules run
    NATIVE_BUILT = False

Backend = Literal["python", "native"]
BACKENDS = ("auto", "python", "native")
ENVIRONMENT = "UBAO_BACKEND"
"""The environment variable that chooses the backend when the caller does not."""


class BackendError(OptionsError):
    """A backend that is unknown, not built, or has no rules for the game asked for."""


def chosen(backend: str | None) -> str:
    """The backend asked for: `backend`, else the environment's, else `auto`."""
    choice = (os.environ.get(ENVIRONMENT) or "auto") if backend is None else backend
    if choice not in BACKENDS:
        raise BackendError(f"unknown backend {choice!r}; known: {', '.join(BACKENDS)}")
    return choice


def resolve_backend(backend: str | None = None) -> Backend:
    """The backend `backend` means on this installation (None: the environment's choice)."""
    choice = chosen(backend)
    if choice == "python":
        return "python"
    if NATIVE_BUILT:
        return "native"
    if choice == "auto":
        return "python"
    raise BackendError(
        "the native core is not built (no C compiler at install time?); "
        "use backend 'python' or 'auto'"
    )


def rules_for(
    rules: type[Searchable[Any, Any]], backend: str | None = None
) -> type[Searchable[Any, Any]]:
    """The class implementing `rules` on `backend`: `auto` falls back to Python for a game the
    core does not know (every registered game has native rules), an explicit `native` refuses
    it."""
    if resolve_backend(backend) == "python":
        return rules
    native = NATIVE_RULES.get(rules)
    if native is None and chosen(backend) == "native":
        raise BackendError(f"{rules.name} has no native rules yet; use backend 'python' or 'auto'")
    return native or rules


def backend_of(game: Game[Any, Any]) -> Backend:
    """Which backend runs `game`'s rules."""
    return "native" if isinstance(game, NativeRules) else "python"


class NativeRules(ABC):
    """A game whose rules run in the native core, which also counts perft (engine/perft.py)
    and searches them."""

    _core: MancalaCore | OthelloCore | BaoCore
    search_hints: ClassVar[SearchHints]
    """The game's (`Searchable.search_hints`): the native search reads its `table_depth`,
    `sort_depth` and `reversed_helpers`."""

    @abstractmethod
    def perft(self, position: Any, depth: int) -> int:
        """Move sequences of `depth` plies, counted in C without the GIL."""

    def search_core(self, algorithm: str, evaluation: str, hash_mb: float, exact: bool) -> Search:
        """The native `algorithm` (any of engine/search/'s) with its own table, for
        `evaluation` (any of the game's) in strength or `exact` mode."""
        hints = self.search_hints
        return SearchCore(
            self._core,
            hash_mb,
            exact,
            evaluation,
            algorithm,
            hints.table_depth,
            hints.sort_depth,
            hints.reversed_helpers,
        )


class NativeMancala(NativeRules, Mancala):
    """The two-row family's rules in C; the variant's defaults come from the Python class."""

    _core: MancalaCore

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._core = MancalaCore(
            pits=self.pits,
            capture_sower=self.capture_sower,
            empty_capture=self.empty_capture,
            end_mover=self.end_check == "mover",
            remaining_mover=self.remaining == "mover",
            choose_direction=self.choose_direction,
            early_end=self.early_end,
        )

    def legal_moves(self, position: MancalaPosition) -> list[MancalaMove]:
        return self._core.legal_moves(position)

    def play(self, position: MancalaPosition, move: MancalaMove) -> MancalaPosition:
        after = self._core.play(position, move) if type(move) is int else None
        return super().play(position, move) if after is None else after

    def child(self, position: MancalaPosition, move: MancalaMove) -> MancalaPosition:
        return self._core.child(position, move)

    def children(self, position: MancalaPosition) -> list[tuple[MancalaMove, MancalaPosition]]:
        return self._core.children(position)

    def is_over(self, position: Sequence[int]) -> bool:
        return self._core.is_over(position)

    def outcome(self, position: MancalaPosition) -> Outcome | None:
        return _outcome(self._core.final_score(position))

    def perft(self, position: MancalaPosition, depth: int) -> int:
        return self._core.perft(position, depth)


class NativeKalah(NativeMancala, Kalah):
    """Kalah (m,n) on the native core."""


class NativeEgyptian(NativeMancala, Egyptian):
    """Egyptian mancala on the native core."""


class NativeEthiopian(NativeMancala, Ethiopian):
    """Ethiopian mancala on the native core."""


class NativeOthello(NativeRules, Othello):
    """Othello on the native core: one 64-bit word per colour up to 8x8, four above."""

    _core: OthelloCore

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._core = OthelloCore(size=self.size, position_type=OthelloPosition)
        if "patterns" in self.evaluations:
            load_othello_patterns(patterns.weights())

    def legal_moves(self, position: OthelloPosition) -> list[OthelloMove]:
        return self._core.legal_moves(position)

    def play(self, position: OthelloPosition, move: OthelloMove) -> OthelloPosition:
        after = self._core.play(position, move)
        return super().play(position, move) if after is None else after

    def child(self, position: OthelloPosition, move: OthelloMove) -> OthelloPosition:
        return self._core.child(position, move)

    def children(self, position: OthelloPosition) -> list[tuple[OthelloMove, OthelloPosition]]:
        return self._core.children(position)

    def is_over(self, position: OthelloPosition) -> bool:
        return self._core.is_over(position)

    def outcome(self, position: OthelloPosition) -> Outcome | None:
        return _outcome(self._core.final_score(position))

    def perft(self, position: OthelloPosition, depth: int) -> int:
        return self._core.perft(position, depth)

    def endgame_core(self, hash_mb: float) -> OthelloEndgameCore:
        """The exact endgame solver of 8x8 boards (ValueError on another size), with its own
        table of `hash_mb` MB (engine/othello_endgame.py drives it)."""
        return OthelloEndgameCore(self._core, hash_mb)


class NativeBao(NativeRules, Bao):
    """Bao la Kiswahili on the native core, every profile and flag; notation, sowing paths and
    evaluations stay the Python class's. No children cache: the core simulates faster than a
    Python dict look-up costs to keep."""

    _core: BaoCore

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._core = BaoCore(
            move_type=BaoMove,
            max_plies=self.max_plies,
            **{name: self.options[name] for name in BAO_FLAGS},
        )

    def _expanded(self, position: BaoPosition) -> list[tuple[BaoMove, BaoPosition]]:
        """Every legal move with its child, from the core: what `children`, `legal_moves` and
        the Python `child` and `play` read."""
        return self._core.children(position)

    def search_moves(self, position: BaoPosition) -> list[BaoMove]:
        return self._core.search_moves(position)

    def child(self, position: BaoPosition, move: BaoMove) -> BaoPosition:
        after = self._core.play(position, move)
        return super().child(position, move) if after is None else after

    def play(self, position: BaoPosition, move: BaoMove) -> BaoPosition:
        after = self._core.play(position, move)
        return super().play(position, move) if after is None else after

    def is_over(self, position: BaoPosition) -> bool:
        return self._core.is_over(position)

    def outcome(self, position: BaoPosition) -> Outcome | None:
        result = self._core.outcome(position)
        return None if result is None else Outcome(*result)

    def perft(self, position: BaoPosition, depth: int) -> int:
        return self._core.perft(position, depth)


def _outcome(score: tuple[int, int] | None) -> Outcome | None:
    """The outcome of a finished game from each player's final points (None: not finished)."""
    if score is None:
        return None
    first, second = score
    return Outcome(None if first == second else 0 if first > second else 1, score)


NATIVE_RULES: dict[type[Searchable[Any, Any]], type[Searchable[Any, Any]]] = {
    Kalah: NativeKalah,
    Egyptian: NativeEgyptian,
    Ethiopian: NativeEthiopian,
    Othello: NativeOthello,
    Bao: NativeBao,
}
"""The games the native core implements: each Python class and its native subclass."""
