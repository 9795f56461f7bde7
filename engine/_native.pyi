"""The native core (engine/native/*.c): the rules of the mancala family, Othello and Bao,
perft, and their negamax search (engine/search/ runs it).

Positions and moves are the Python engine's own (engine/mancala/game.py, engine/othello/game.py,
engine/bao/rules.py);
`engine/backend.py` wraps each core as a `Game`.
"""

from collections.abc import Sequence

from typing_extensions import Buffer

from ubao.engine.bao.rules import BaoMove
from ubao.engine.othello.game import Position as OthelloPosition

class Mancala:
    """The rules of one two-row mancala variant (docs/mancala.md)."""

    def __init__(
        self,
        pits: int,
        capture_sower: bool,
        empty_capture: bool,
        end_mover: bool,
        remaining_mover: bool,
        choose_direction: bool,
        early_end: bool = False,
    ) -> None: ...
    def legal_moves(self, position: Sequence[int], /) -> list[int]: ...
    def play(self, position: Sequence[int], move: int, /) -> tuple[int, ...] | None: ...
    def child(self, position: Sequence[int], move: int, /) -> tuple[int, ...]: ...
    def children(self, position: Sequence[int], /) -> list[tuple[int, tuple[int, ...]]]: ...
    def is_over(self, position: Sequence[int], /) -> bool: ...
    def final_score(self, position: Sequence[int], /) -> tuple[int, int] | None: ...
    def perft(self, position: Sequence[int], depth: int, /) -> int: ...

class Bao:
    """The rules of Bao la Kiswahili under one set of options (docs/bao.md); the flags are
    engine/bao/game.py's FLAGS, validated there."""

    def __init__(
        self,
        move_type: type[BaoMove],
        max_plies: int,
        namua_takasa_nyumba_stop: str,
        namua_singleton: str,
        tax_any_owned: bool,
        sixteen_rule: bool,
        ownership_lost_first_mtaji_capture: str,
        mtaji_takasa_stop_at_nyumba: bool,
        mtaji_capture_nyumba_choice: bool,
        takasia: str,
        takasia_singleton_exception: bool,
        takasia_nyumba_first_lap_exception: bool,
        takasia_attacker_must_capture: bool,
        never_ending: str,
        front_empty_check: str,
    ) -> None: ...
    def children(self, position: Sequence[int], /) -> list[tuple[BaoMove, tuple[int, ...]]]: ...
    def search_moves(self, position: Sequence[int], /) -> list[BaoMove]: ...
    def play(self, position: Sequence[int], move: BaoMove, /) -> tuple[int, ...] | None: ...
    def is_over(self, position: Sequence[int], /) -> bool: ...
    def outcome(
        self, position: Sequence[int], /
    ) -> tuple[int | None, tuple[int, int], str] | None: ...
    def perft(self, position: Sequence[int], depth: int, /) -> int: ...

class Search:
    """engine/search/'s `algorithm` (minimax, alphabeta or negamax) over one game's native
    rules with any of its evaluations (by the Python game's names; ValueError for another),
    node for node, with its own transposition table, used `table_depth` or more plies above the
    horizon (`SearchHints.table_depth`), negamax's moves sorted by evaluation `sort_depth` or
    more (`SearchHints.sort_depth`; 0: never); each iteration runs without the GIL, the
    strength mode's negamax on `set_threads` threads sharing the table (ABDADA: the first
    thread's to finish, every thread's counts; the odd helpers in reverse order near the root
    with `reversed_helpers`, `SearchHints.reversed_helpers`). Moves are the game's own: ints,
    Bao's `BaoMove`.
    `iterate`'s `nodes` limits the search (every thread's nodes since `begin`; 0: no limit):
    the main thread stops at its share, which the helpers' about match."""

    def __init__(
        self,
        rules: Mancala | Othello | Bao,
        hash_mb: float,
        exact: bool,
        evaluation: str,
        algorithm: str,
        table_depth: int,
        sort_depth: int,
        reversed_helpers: bool,
    ) -> None: ...
    def begin(self) -> None: ...
    def iterate(
        self,
        position: Sequence[int],
        depth: int,
        root_move: int | BaoMove | None,
        seconds: float,
        nodes: int = 0,
        root_moves: Sequence[int | BaoMove] | None = None,
        /,
    ) -> float | None: ...
    def counts(self) -> tuple[int, int, int, int, int, int]: ...
    def root(self) -> tuple[int | BaoMove | None, float]: ...
    def pv(self, position: Sequence[int], depth: int, /) -> list[int | BaoMove]: ...
    def entries(self) -> int: ...
    def clear(self) -> None: ...
    def stop(self) -> None: ...
    def set_probcut(
        self,
        stages: Sequence[int] | None,
        checks: Sequence[Sequence[tuple[int, float, float, float] | None]] | None,
        /,
    ) -> None: ...
    def set_threads(self, threads: int, /) -> int: ...

class Othello:
    """The rules of Othello on one board size (docs/othello.md)."""

    def __init__(self, size: int, position_type: type[tuple[int, int, int]]) -> None: ...
    def legal_moves(self, position: tuple[int, int, int], /) -> list[int]: ...
    def play(self, position: tuple[int, int, int], move: int, /) -> OthelloPosition | None: ...
    def child(self, position: tuple[int, int, int], move: int, /) -> OthelloPosition: ...
    def children(self, position: tuple[int, int, int], /) -> list[tuple[int, OthelloPosition]]: ...
    def is_over(self, position: tuple[int, int, int], /) -> bool: ...
    def final_score(self, position: tuple[int, int, int], /) -> tuple[int, int] | None: ...
    def perft(self, position: tuple[int, int, int], depth: int, /) -> int: ...

class OthelloEndgame:
    """The exact 8x8 Othello endgame solver (engine/native/othello_endgame.c) with its own
    table of proved bounds; each search runs without the GIL."""

    def __init__(self, rules: Othello, hash_mb: float) -> None: ...
    def search(
        self, position: tuple[int, int, int], alpha: int, beta: int, seconds: float = 0.0, /
    ) -> int | None: ...
    def table_move(self, position: tuple[int, int, int], /) -> int | None: ...
    def nodes(self) -> int: ...
    def stop(self) -> None: ...
    def clear(self) -> None: ...

# -- the solver (engine/native/solve.c, endgame.c) -------------------------------------------

class Solver:
    """engine/solve.py's null-window probes over one mancala variant's native rules (sowing one
    way), with its own bounded table and an optional endgame database (engine/endgame.py's
    values); each probe runs without the GIL, on `threads` threads sharing the table."""

    def __init__(
        self,
        rules: Mancala,
        hash_mb: float,
        endgame: Buffer | None = None,
        endgame_seeds: int = 0,
        threads: int = 1,
    ) -> None: ...
    @property
    def threads(self) -> int:
        """How many threads search each probe (1 where this build has no threads)."""
    def test(self, position: Sequence[int], beta: int, seconds: float | None = None, /) -> int: ...
    def best_move(self, position: Sequence[int], /) -> int | None: ...
    def counts(self) -> tuple[int, int]: ...
    @staticmethod
    def build_endgame(rules: Mancala, seeds: int, values: Buffer, /) -> None: ...

def load_othello_patterns(weights: Buffer, /) -> None:
    """Keeps the `patterns` evaluation's weights (native int16s); the first stay."""

def othello_board8_path() -> str:
    """The path of the 8x8 board operations that runs: 'portable', 'avx2', 'avx512'."""

def othello_board8_paths() -> list[str]:
    """The paths this CPU (and build) runs, the slowest first."""

def set_othello_board8_path(name: str, /) -> str:
    """Runs the 8x8 board operations by the path named; returns its name."""

def othello_board8_placements(own: int, opp: int, /) -> int:
    """The squares where the mover (own) may place a disc."""

def othello_board8_flips(own: int, opp: int, square: int, /) -> int:
    """The opponent discs a disc of the mover's on an empty square turns."""
