"""Game review: every move of a finished game set beside the engine's best, as lichess's
computer analysis does, and exact where the game is within reach of proof.

For each ply the position before the move is valued, and so is the move played; what the move
gave up (its loss, in the game's units: seeds, discs, Bao points) marks it an inaccuracy, a
mistake or a blunder past its family's thresholds (`THRESHOLDS`), and each player's losses make
an accuracy figure (`move_accuracy`). A position is proved (`exact`) by the solver
(engine/solve.py), from the game's end back: a mancala board the endgame database holds, the
last `exact_within` plies of the game (Othello: `exact_within` empty squares or fewer), a
finished game, the first plies of Kalah (6,4) from a table solved once
(engine/mancala/kalah_openings.py), and on the native mancala solver whatever it proves within
its pool of `solve_ms` a ply. Elsewhere the search (engine/search) values it within `time_ms`:
the position first, then the played move alone to the same depth, so that both values come
from one horizon and the loss is never an artefact of comparing two; then, on the native
mancala solver, a pool of `confirm_ms` a ply settles its mistakes and blunders by proof, and a
class it cannot prove is not shown. docs/review.md has the thresholds, the accuracy formula
and the JSON shape.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from math import ceil, inf, isfinite
from typing import Any, Literal, cast, get_args

from ubao.engine.endgame import Endgame, native_rules, open_endgame
from ubao.engine.game import GameError, Outcome
from ubao.engine.games import GAMES, make_game
from ubao.engine.mancala import kalah_openings
from ubao.engine.mancala.game import Mancala
from ubao.engine.othello.game import Othello
from ubao.engine.search import Searcher, SearchResult, forced_result
from ubao.engine.searchable import Searchable, format_line
from ubao.engine.solve import UNBOUNDED, Solution, Solver

Mark = Literal["", "inaccuracy", "mistake", "blunder"]
MARKS: tuple[Mark, ...] = get_args(Mark)
GLYPHS: dict[Mark, str] = {"": "", "inaccuracy": "?!", "mistake": "?", "blunder": "??"}
"""Each mark's annotation glyph in a record (engine/record.py), as PGN writes them."""

UNITS = {"mancala": "seeds", "othello": "discs", "bao": "points"}
"""What a value counts, by board family: the final margin of a mancala game or of Othello;
Bao's material (seeds) with a won game worth `BAO_WIN` points."""

THRESHOLDS: dict[str, tuple[float, float, float]] = {
    "mancala": (2.0, 4.0, 8.0),
    "othello": (4.0, 8.0, 16.0),
    "bao": (3.0, 6.0, 12.0),
}
"""The loss (in `UNITS`) at which a move becomes an inaccuracy, a mistake, a blunder."""

EVALUATION_SCALE = {"mancala": 1.0, "othello": 10.0, "bao": 1.0}
"""Evaluation points per unit: the mancala evaluations and Bao's count seeds; Othello's weigh
squares (a corner 100, mobility 5 a move), about ten to a disc."""

BAO_WIN = 64.0
"""A won Bao game, in points: all the seeds there are (the winner may hold fewer)."""

EXACT_WITHIN = {"mancala": 12, "othello": 12, "bao": 0}
"""The default `exact_within` by family: plies from the game's end (Othello: empty squares)
within which the solver proves a position whatever it costs. In mancala only a game that ended
by the rules is proved so, and not its first plies as many (a resigned game's last plies, or a
quick game's first, are positions from its middle or its start); the native solver's pool
(`solve_ms`) proves far more. Bao's games may repeat, which the solver cannot value: by default
it proves none."""

NATIVE_OTHELLO_EXACT_WITHIN = 20
"""Othello's default on the native core's 8x8 endgame solver, which proves a position of 20
empty squares in a second or two (the Python solver takes minutes at 12)."""

DEFAULT_TIME_MS = 1000
"""The default search time per position: a 60-ply Kalah game in about a minute."""

MIN_NODES = 10_000
"""The least node budget of the played move's search (when the position's own was tiny)."""

ENDGAME_SEEDS = 16
"""The mancala endgame database a review uses where the native core builds it (as
`ubao-engine solve` does): every board with up to this many seeds is exact."""


SETTLE_ROUNDS = (3.0, 12.0, inf)
"""The solver's time for one question of the check (does this ply lose that threshold?), in
`time_ms` units, round by round: every open question gets the first before any the second."""

POOL_PLIES = 60
"""The check's pool is `confirm_ms` for this many plies at least: a short game's first
positions are as hard to prove as a long one's."""


@dataclass(frozen=True, slots=True)
class PlyReview:
    """One move reviewed; values in the game's units, `before` and `after` from seat 0's view."""

    ply: int
    """0-based index into the game's moves."""
    mover: int
    move: str
    best: str
    line: tuple[str, ...]
    """The best line, starting with `best`."""
    before: float
    """The position's value before the move (its best move's)."""
    after: float
    """The value of the move played."""
    loss: float
    """What the move gave up, the mover's view, never negative."""
    mark: Mark
    exact: bool
    """Both values are proved (the solver's, or a finished game's)."""
    depth: int
    """The depth the search reached, or the length of the proved line when exact."""
    nodes: int
    time_ms: int
    forced: bool = False
    """The mover had a single legal move: it counts in no accuracy."""


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    accuracy: float
    """0..100: the mean of `move_accuracy` over the player's moves that had a choice."""
    counts: dict[Mark, int]
    """Moves of each mark ("" = not marked)."""
    average_loss: float
    """Over the moves that had a choice, in the game's units."""


@dataclass(frozen=True, slots=True)
class ReviewBudget:
    """The effort per ply: search time, nodes, and where the solver proves instead."""

    time_ms: int = DEFAULT_TIME_MS
    """Search time per position searched (twice at most per ply: the position, the move)."""
    exact_within: int | None = None
    """Plies from the end (Othello: empties) within which positions are proved; None: the
    family's default (`EXACT_WITHIN`)."""
    nodes: int | None = None
    """A node limit per search, besides the time."""
    solve_ms: int | None = None
    """The native mancala solver's time a ply to prove the positions beyond `exact_within`,
    pooled over the game (the late positions' leftovers go to the early ones); None: half of
    `time_ms`; 0: no such attempt."""
    confirm_ms: int | None = None
    """The native mancala solver's time a ply, pooled over the game with what the proofs left
    of `solve_ms`'s, to settle the searched plies' mistakes and blunders by null-window probes
    (`_Reviewer.settle`): a class not proved is lowered. None: a quarter of `time_ms`; 0: no
    check, the search's marks stand."""


@dataclass(frozen=True, slots=True)
class Review:
    game: str
    options: dict[str, Any]
    plies: tuple[PlyReview, ...]
    players: tuple[PlayerSummary, PlayerSummary]
    budget: dict[str, int]
    """What was used: time_ms, exact_within, solve_ms and confirm_ms (resolved; solve_ms and
    confirm_ms 0 where no solver stops on time), nodes (if any), endgame_seeds."""
    units: str
    thresholds: tuple[float, float, float] = field(default=(0.0, 0.0, 0.0))
    """The game's `thresholds`, as they marked the moves."""


def openings_digest(values: Mapping[str, int]) -> str:
    """The SHA-256 of an opening table's values (engine/mancala/kalah_openings.py), in key
    order: what benchmarks/kalah_openings.py solved, to tell a hand edit."""
    return hashlib.sha256(repr(sorted(values.items())).encode()).hexdigest()


def family(game: str) -> str:
    """The board family of a registered game (ValueError for an unknown one)."""
    info = GAMES.get(game)
    if info is None:
        raise ValueError(f"unknown game {game!r}; known games: {', '.join(GAMES)}")
    return info.board


def thresholds(game: str) -> tuple[float, float, float]:
    """The losses at which a move of `game` is an inaccuracy, a mistake, a blunder."""
    return THRESHOLDS[family(game)]


def classify(loss: float, limits: tuple[float, float, float]) -> Mark:
    """The mark of a move that lost `loss`: the worst class whose threshold it reaches."""
    inaccuracy, mistake, blunder = limits
    if loss >= blunder:
        return "blunder"
    if loss >= mistake:
        return "mistake"
    if loss >= inaccuracy:
        return "inaccuracy"
    return ""


def move_accuracy(loss: float, limits: tuple[float, float, float]) -> float:
    """100 for a best move, halved by every mistake threshold's worth of loss:
    100 * 2^(-loss / mistake). A loss of one inaccuracy threshold scores 71 in mancala."""
    return float(100.0 * 2.0 ** (-loss / limits[1]))


def summarise(plies: Sequence[PlyReview], limits: tuple[float, float, float]) -> PlayerSummary:
    """One player's accuracy, marks and average loss over his reviewed moves."""
    counts: dict[Mark, int] = dict.fromkeys(MARKS, 0)
    for ply in plies:
        counts[ply.mark] += 1
    chosen = [ply.loss for ply in plies if not ply.forced]
    if not chosen:
        return PlayerSummary(100.0, counts, 0.0)
    accuracy = sum(move_accuracy(loss, limits) for loss in chosen) / len(chosen)
    return PlayerSummary(accuracy, counts, sum(chosen) / len(chosen))


@dataclass(frozen=True, slots=True)
class _Valued:
    """A ply's values before it becomes a `PlyReview`: moves, not yet notation."""

    line: tuple[Any, ...]
    before: float
    after: float
    exact: bool
    depth: int
    nodes: int


class _Reviewer:
    """The search, the solver and the proved values of one game's positions."""

    def __init__(
        self, game: Searchable[Any, Any], board: str, budget: ReviewBudget, positions: list[Any]
    ) -> None:
        self.game = game
        self.board = board
        self.budget = budget
        self.positions = positions
        """The game's positions: the start, then after each move."""
        self.searcher: Searcher[Any, Any] = Searcher(game)
        self.endgame = _endgame(game)
        self.solver = _solver(game, self.endgame)
        default = EXACT_WITHIN[board]
        if self.solver is not None and self.solver.othello is not None:
            default = NATIVE_OTHELLO_EXACT_WITHIN
        elif board == "mancala" and not self._ends_by_the_rules():
            default = 0
        self.exact_within = default if budget.exact_within is None else budget.exact_within
        default_plies = board == "mancala" and budget.exact_within is None
        self.opening = self.exact_within if default_plies else 0
        """The first plies the default's proof by plies leaves to the pool: a game over by the
        rules within `exact_within` plies of its start has its opening within reach of its end,
        and an opening of Kalah (6,4) takes minutes to prove."""
        self.solve_ms = budget.time_ms * 3 // 10 if budget.solve_ms is None else budget.solve_ms
        self.confirm_ms = (
            budget.time_ms * 2 // 5 if budget.confirm_ms is None else budget.confirm_ms
        )
        self.solutions: dict[int, Solution[Any]] = {}
        """The positions proved, by ply."""
        self.bounds: dict[int, tuple[int, int]] = {}
        """What an unfinished solve proved of a position: bounds on its mover's value."""
        self.seconds: dict[int, float] = {}
        """The time the solver spent on each position, proved or not."""
        self.left = 0.0
        """Seconds of the proofs' pool they left: the check (`settle`) gets them too."""
        self.opened = set[int]()
        """The plies whose positions the opening table values (`open_book`)."""

    def open_book(self, name: str, notation: Sequence[str]) -> None:
        """Takes the exact values of the game's first positions from the opening table
        (engine/mancala/kalah_openings.py, Kalah (6,4) with its default rules), which no
        review's budget would prove; `notation` is the game's moves as `format_move` writes."""
        if name != "kalah" or dict(self.game.options) != kalah_openings.OPTIONS:
            return
        for ply in range(min(kalah_openings.DEPTH, len(self.positions) - 1) + 1):
            value = kalah_openings.VALUES.get(" ".join(notation[:ply]))
            if value is not None:
                self.bounds[ply] = (value, value)
                self.opened.add(ply)

    def _ends_by_the_rules(self) -> bool:
        """The game ended by the rules: only then do its last plies hold few seeds. A resigned
        game's last plies are positions from its middle, or its start, which the solver would
        take minutes to prove."""
        return self.game.outcome(self.positions[-1]) is not None

    def prove(self) -> None:
        """Prove what can be, from the game's end back to its start, so that each proof finds
        the later ones in the solver's table: the positions within reach whatever it costs,
        the others on the native mancala solver (whose probes stop on time) within a pool of
        `solve_ms` a ply, which the cheap late positions leave to the hard early ones."""
        if self.solver is None:
            return
        bounded = self.solver.native is not None and self.solve_ms > 0
        pool = 0.0
        """Seconds the solver may still spend: `solve_ms` for every ply so far, less its time."""
        for ply in reversed(range(len(self.positions) - 1)):
            position = self.positions[ply]
            pool += self.solve_ms / 1000
            if ply in self.opened:
                continue
            if self.provable(position, ply):
                seconds = None
            elif bounded and pool > 0:
                seconds = pool
            else:
                continue
            start = time.perf_counter()
            try:
                self.solutions[ply] = self.solver.solve(position, self._heard(ply), seconds=seconds)
            except TimeoutError:
                pass
            except ValueError:  # positions repeat in this game: the solver cannot value it
                return
            finally:
                self.seconds[ply] = time.perf_counter() - start
                pool -= self.seconds[ply]
        self.left = max(pool, 0.0) if bounded else 0.0

    def provable(self, position: Any, ply: int) -> bool:
        """Within reach of proof: the endgame database's, or near the end of the game."""
        if self.endgame is not None and self.game.board_key(position)[2] <= self.endgame.seeds:
            return True
        if isinstance(self.game, Othello):
            occupied: int = position.black | position.white
            return self.game.size**2 - occupied.bit_count() <= self.exact_within
        plies_left = len(self.positions) - 1 - ply
        return plies_left <= self.exact_within and ply >= self.opening

    def value(self, ply: int, move: Any) -> _Valued:
        """Proved when the position and the one the move leads to are, else searched."""
        position, child = self.positions[ply], self.positions[ply + 1]
        solution = self.solutions.get(ply)
        outcome = self.game.outcome(child)
        after: float | None = None
        if outcome is not None:
            after = self._outcome_units(outcome)
        elif ply + 1 in self.solutions:
            after = self._solution_units(self.solutions[ply + 1])
        if solution is not None and after is not None:
            before = self._solution_units(solution)
            return _Valued(solution.pv, before, after, True, len(solution.pv), solution.expanded)
        return self.searched(position, move)

    @property
    def checks(self) -> bool:
        """Whether the searched marks are checked: the native mancala solver, a pool."""
        solver = self.solver
        return self.board == "mancala" and solver is not None and solver.native is not None

    def settle(self, valued: list[_Valued]) -> list[_Valued]:
        """The searched plies' mistakes and blunders checked by the native mancala solver
        within one pool for the game (`confirm_ms` a ply of `POOL_PLIES` at least, and what
        the proofs left), then each searched loss kept within what is proved of it: a mark the
        pool cannot prove is lowered to the class proved.

        Null-window probes (`loses`) settle whether a ply loses a threshold; each proved bound
        is kept for its position, so that it serves both plies it belongs to. The work goes in
        rounds of growing time per question (`SETTLE_ROUNDS`), so that no hard question takes
        the pool before the others had their turn: the classes the search claims first, the
        blunders' (a blunder proved is a mistake proved), those farthest from its loss first
        (the probes far from a value are the cheap ones), then the later plies."""
        if not self.checks or self.confirm_ms <= 0:
            return [self.kept(ply, one, lower=False) for ply, one in enumerate(valued)]
        plies = max(len(valued), POOL_PLIES)
        pool_end = time.perf_counter() + self.left + self.confirm_ms * plies / 1000
        limits = THRESHOLDS[self.board][1:]
        questions = [
            (loss < threshold, -threshold, -abs(loss - threshold), -ply, ply, threshold)
            for ply, one in enumerate(valued)
            if not one.exact
            for loss in (self._loss(ply, one),)
            for threshold in limits
        ]
        questions.sort()
        for cap in SETTLE_ROUNDS:
            for *_, ply, threshold in questions:
                now = time.perf_counter()
                if now >= pool_end:
                    break
                if self._open(ply, threshold):
                    deadline = min(pool_end, now + cap * self.budget.time_ms / 1000)
                    self.loses(ply, valued[ply], threshold, deadline)
                    self.seconds[ply] = self.seconds.get(ply, 0.0) + time.perf_counter() - now
        return [self.kept(ply, one, lower=True) for ply, one in enumerate(valued)]

    def _loss(self, ply: int, valued: _Valued) -> float:
        """A valued ply's loss, its mover's view."""
        sign = -1.0 if self.game.to_move(self.positions[ply]) else 1.0
        return sign * (valued.before - valued.after)

    def _loss_bounds(self, ply: int) -> tuple[float, float]:
        """What is proved of the loss of the move at `ply` (in mancala, where values are
        margins): at least 0, at most unbounded where nothing is."""
        mover = self.game.to_move(self.positions[ply])
        here, there = self._seat_bounds(ply, mover), self._seat_bounds(ply + 1, mover)
        if self.board != "mancala" or here is None or there is None:
            return 0.0, inf
        return max(0.0, here[0] - there[1]), max(0.0, here[1] - there[0])

    def _open(self, ply: int, threshold: float) -> bool:
        """Whether it is not yet proved whether the move at `ply` loses `threshold`."""
        low, high = self._loss_bounds(ply)
        return low < threshold <= high

    def kept(self, ply: int, valued: _Valued, *, lower: bool) -> _Valued:
        """A searched ply's loss kept within what is proved of it and, when `lower`, below
        every threshold of a mistake or a blunder not proved; its values the proved ones
        where the position or the move is proved (in mancala, where bounds are margins)."""
        if valued.exact or self.board != "mancala":
            return valued
        low, high = self._loss_bounds(ply)
        loss = min(max(self._loss(ply, valued), low), high)
        if lower:
            for threshold in reversed(THRESHOLDS[self.board][1:]):
                if low < threshold <= loss:
                    loss = threshold - 1
        mover = self.game.to_move(self.positions[ply])
        sign = -1.0 if mover else 1.0
        here, there = self._seat_bounds(ply, mover), self._seat_bounds(ply + 1, mover)
        proved_here = here is not None and here[0] == here[1]
        proved_there = there is not None and there[0] == there[1]
        if here is not None and proved_here:
            before = sign * here[0] + 0.0
            after = before - sign * loss + 0.0
        elif there is not None and proved_there:
            after = sign * there[0] + 0.0
            before = after + sign * loss + 0.0
        else:
            before, after = valued.before, valued.before - sign * loss + 0.0
        return replace(valued, before=before, after=after, exact=proved_here and proved_there)

    def _seat_bounds(self, ply: int, seat: int) -> tuple[int, int] | None:
        """What is proved of the value of the game's position `ply`, from `seat`'s view."""
        position = self.positions[ply]
        outcome = self.game.outcome(position)
        if outcome is not None:
            value = (outcome.score[0] - outcome.score[1]) * (-1 if seat else 1)
            return value, value
        mover = self.game.to_move(position)
        if ply in self.solutions:
            value = self.solutions[ply].value * (-1 if mover else 1)
            low, high = value, value
        elif ply in self.bounds:
            low, high = self.bounds[ply]
        else:
            return None
        return (low, high) if seat == mover else (-high, -low)

    def _heard(self, ply: int) -> Callable[[int, int, int], None]:
        """Keeps what each probe of the solve of position `ply` proved."""

        def heard(low: int, high: int, expanded: int) -> None:
            self.bounds[ply] = (low, high)

        return heard

    def _at_least(self, ply: int, seat: int, value: int, deadline: float) -> bool:
        """Whether position `ply` is worth at least `value` to `seat`: one null-window probe
        (TimeoutError at `deadline`), its answer kept in `bounds`."""
        solver = self.solver
        assert solver is not None
        movers: bool = seat == self.game.to_move(self.positions[ply])
        asked = value if movers else 1 - value  # the mover's: at most -value, or not
        left = max(deadline - time.perf_counter(), 0.0)
        holds = solver.at_least(self.positions[ply], asked, left)
        low, high = self.bounds.get(ply, (-UNBOUNDED, UNBOUNDED))
        self.bounds[ply] = (max(low, asked), high) if holds else (low, min(high, asked - 1))
        return holds == movers

    def loses(self, ply: int, searched: _Valued, threshold: float, deadline: float) -> bool | None:
        """Whether the move played at `ply` loses `threshold` or more, by null-window probes
        until the position is proved worth some `a` (its mover's view) and the move at most
        `a - threshold` (True), or the opposite is proved (False); None once `deadline`
        passes. `a` starts halfway between the searched values' margin and the threshold."""
        position = self.positions[ply]
        mover = self.game.to_move(position)
        sign = -1.0 if mover else 1.0
        estimate = ceil(sign * searched.after + (self._loss(ply, searched) + threshold) / 2)
        need = int(threshold)
        try:
            while True:
                low, high = self._seat_bounds(ply, mover) or (-UNBOUNDED, UNBOUNDED)
                child_low, child_high = self._seat_bounds(ply + 1, mover) or (
                    -UNBOUNDED,
                    UNBOUNDED,
                )
                if low - child_high >= need:
                    return True
                if high - child_low < need:
                    return False
                target = min(high, max(child_low + need, low, estimate))
                if low < target:
                    self._at_least(ply, mover, target, deadline)
                else:  # the move's value at most target - threshold: not a seed more
                    self._at_least(ply + 1, mover, target - need + 1, deadline)
        except TimeoutError:
            return None

    def searched(self, position: Any, move: Any) -> _Valued:
        """The ply from the search: the position deepened within the budget, then the played
        move alone from the same root to the same depth (the table warm from the first, and
        at most as many nodes): the loss compares two values of one depth, never an odd
        horizon with an even one. Should the move's search stop shallower, its value is set
        beside the position's at that depth."""
        scores: dict[int, float] = {}

        def iteration(result: SearchResult[Any]) -> None:
            scores[result.stats.depth] = result.score

        budget = self.budget
        best = self.searcher.search(
            position, None, budget.time_ms, nodes=budget.nodes, on_iteration=iteration
        )
        if best.stats.depth == 0:  # not one iteration in the budget: one without it
            best = self.searcher.search(position, 1, on_iteration=iteration)
        depth, nodes = best.stats.depth, best.stats.generated
        loss = 0.0
        if best.move != move:
            played = self.searcher.search(
                position, depth, nodes=max(nodes, MIN_NODES), root_moves=[move]
            )
            if played.stats.depth == 0:
                played = self.searcher.search(position, 1, root_moves=[move])
            depth, nodes = played.stats.depth, nodes + played.stats.generated
            at_depth = scores.get(depth, best.score)
            loss = max(0.0, self._score_units(at_depth) - self._score_units(played.score))
        sign = -1.0 if self.game.to_move(position) else 1.0
        before = sign * self._score_units(best.score) + 0.0
        return _Valued(best.pv, before, before - sign * loss + 0.0, False, depth, nodes)

    def _units(self, winner: int | None, margin: int) -> float:
        """A proved result in units, seat 0's view: the margin, or Bao's win."""
        if self.board == "bao":
            return 0.0 if winner is None else BAO_WIN if winner == 0 else -BAO_WIN
        return float(margin)

    def _solution_units(self, solution: Solution[Any]) -> float:
        return self._units(solution.winner, solution.value)

    def _outcome_units(self, outcome: Outcome) -> float:
        return self._units(outcome.winner, outcome.score[0] - outcome.score[1])

    def _score_units(self, score: float) -> float:
        """A search score (the mover's view) in units: a forced result's margin (a bound the
        search proved), else the evaluation scaled, within a won Bao game's worth."""
        forced = forced_result(score)
        if forced is not None:
            return self._units(0 if score > 0 else 1, forced[1])
        value = score / EVALUATION_SCALE[self.board]
        return max(-BAO_WIN, min(BAO_WIN, value)) if self.board == "bao" else value


def _solver(game: Searchable[Any, Any], endgame: Endgame | None) -> Solver[Any, Any] | None:
    """The solver of `game`, or None where it cannot be solved (mancala's early_end)."""
    try:
        return Solver(game, endgame=endgame)
    except ValueError:
        return None


def _endgame(game: Searchable[Any, Any]) -> Endgame | None:
    """The mancala endgame database where the native core builds it (cached on disk)."""
    if not isinstance(game, Mancala) or game.early_end or native_rules(game) is None:
        return None
    return open_endgame(game, min(ENDGAME_SEEDS, 2 * game.pits * game.seeds))


def review_game(
    game: str,
    options: Mapping[str, Any],
    moves: Sequence[str],
    budget: ReviewBudget = ReviewBudget(),
    *,
    on_ply: Callable[[PlyReview], None] | None = None,
    backend: str | None = None,
) -> Review:
    """Review the game `moves` played from the start of `game` with `options` (blocking: the
    search and the solver run here). `on_ply` hears each ply when it is done; ValueError
    names an illegal move's ply, or bad options or budget."""
    board = family(game)
    if budget.time_ms < 1 or (budget.nodes is not None and budget.nodes < 1):
        raise ValueError("the budget needs time_ms of 1 or more and nodes, if given, too")
    if any(ms is not None and ms < 0 for ms in (budget.solve_ms, budget.confirm_ms)):
        raise ValueError("the budget's solve_ms and confirm_ms must be 0 or more")
    rules = make_game(game, options, backend)
    positions = [rules.start()]
    played = []
    notation: list[str] = []
    for ply, text in enumerate(moves):
        try:
            move = rules.parse_move(positions[-1], text)
        except GameError as error:
            raise ValueError(f"ply {ply + 1} ({text!r}): {error}") from None
        played.append(move)
        notation.append(rules.format_move(positions[-1], move))
        positions.append(rules.play(positions[-1], move))
    reviewer = _Reviewer(rules, board, budget, positions)
    reviewer.open_book(game, notation)
    reviewer.prove()
    limits = THRESHOLDS[board]
    searched = []
    for ply, move in enumerate(played):
        start = time.perf_counter()
        searched.append(reviewer.value(ply, move))
        reviewer.seconds[ply] = reviewer.seconds.get(ply, 0.0) + time.perf_counter() - start
    plies = []
    for ply, valued in enumerate(reviewer.settle(searched)):
        position = positions[ply]
        mover = rules.to_move(position)
        loss = max(0.0, (valued.before - valued.after) * (-1 if mover else 1))
        line = tuple(format_line(rules, position, valued.line))
        reviewed = PlyReview(
            ply=ply,
            mover=mover,
            move=notation[ply],
            best=line[0] if line else "",
            line=line,
            before=valued.before,
            after=valued.after,
            loss=loss,
            mark=classify(loss, limits),
            exact=valued.exact,
            depth=valued.depth,
            nodes=valued.nodes,
            time_ms=round(reviewer.seconds[ply] * 1000),
            forced=len(rules.legal_moves(position)) == 1,
        )
        plies.append(reviewed)
        if on_ply is not None:
            on_ply(reviewed)
    asked = {"time_ms": budget.time_ms, "exact_within": reviewer.exact_within}
    if budget.nodes is not None:
        asked["nodes"] = budget.nodes
    native = reviewer.solver is not None and reviewer.solver.native is not None
    asked["solve_ms"] = reviewer.solve_ms if native else 0
    asked["confirm_ms"] = reviewer.confirm_ms if native else 0
    asked["endgame_seeds"] = 0 if reviewer.endgame is None else reviewer.endgame.seeds
    players = cast(
        tuple[PlayerSummary, PlayerSummary],
        tuple(summarise([p for p in plies if p.mover == seat], limits) for seat in (0, 1)),
    )
    return Review(
        game=game,
        options=dict(rules.options),
        plies=tuple(plies),
        players=players,
        budget=asked,
        units=UNITS[board],
        thresholds=limits,
    )


def review_to_json(review: Review) -> dict[str, Any]:
    """The review as plain data (JSON, msgpack): docs/review.md describes the shape."""
    return {
        "game": review.game,
        "options": dict(review.options),
        "units": review.units,
        "thresholds": list(review.thresholds),
        "budget": dict(review.budget),
        "players": [
            {
                "accuracy": player.accuracy,
                "counts": {mark or "good": player.counts.get(mark, 0) for mark in MARKS},
                "average_loss": player.average_loss,
            }
            for player in review.players
        ],
        "plies": [
            {
                "ply": ply.ply,
                "mover": ply.mover,
                "move": ply.move,
                "best": ply.best,
                "line": list(ply.line),
                "before": ply.before,
                "after": ply.after,
                "loss": ply.loss,
                "mark": ply.mark,
                "glyph": GLYPHS[ply.mark],
                "exact": ply.exact,
                "depth": ply.depth,
                "nodes": ply.nodes,
                "time_ms": ply.time_ms,
                "forced": ply.forced,
            }
            for ply in review.plies
        ],
    }


def review_from_json(data: Mapping[str, Any]) -> Review:
    """`review_to_json` read back; ValueError says what is malformed."""
    try:
        players = data["players"]
        if not isinstance(players, list) or len(players) != 2:
            raise ValueError("players must be a list of two")
        limits = [_number(x) for x in data["thresholds"]]
        if len(limits) != 3:
            raise ValueError("thresholds must be three numbers")
        return Review(
            game=_text(data["game"]),
            options=dict(_mapping(data["options"])),
            plies=tuple(_ply_from_json(ply) for ply in data["plies"]),
            players=(_player_from_json(players[0]), _player_from_json(players[1])),
            budget={_text(k): _count(v) for k, v in _mapping(data["budget"]).items()},
            units=_text(data["units"]),
            thresholds=(limits[0], limits[1], limits[2]),
        )
    except (KeyError, TypeError) as error:
        raise ValueError(f"not a review: {error!r}") from None


def _player_from_json(data: Any) -> PlayerSummary:
    counts = _mapping(_mapping(data)["counts"])
    return PlayerSummary(
        accuracy=_number(data["accuracy"]),
        counts={mark: _count(counts[mark or "good"]) for mark in MARKS},
        average_loss=_number(data["average_loss"]),
    )


def _ply_from_json(data: Any) -> PlyReview:
    data = _mapping(data)
    mark = data["mark"]
    if mark not in MARKS:
        raise ValueError(f"mark {mark!r} is none of {MARKS}")
    return PlyReview(
        ply=_count(data["ply"]),
        mover=_count(data["mover"]),
        move=_text(data["move"]),
        best=_text(data["best"]),
        line=tuple(_text(move) for move in data["line"]),
        before=_number(data["before"]),
        after=_number(data["after"]),
        loss=_number(data["loss"]),
        mark=mark,
        exact=_flag(data["exact"]),
        depth=_count(data["depth"]),
        nodes=_count(data["nodes"]),
        time_ms=_count(data["time_ms"]),
        forced=_flag(data.get("forced", False)),
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"expected an object, not {value!r}")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected text, not {value!r}")
    return value


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, not {value!r}")
    return value


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"expected a whole number of 0 or more, not {value!r}")
    return value


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not isfinite(value):
        raise ValueError(f"expected a finite number, not {value!r}")
    return float(value)
