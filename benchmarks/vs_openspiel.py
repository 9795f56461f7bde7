"""Kalah (6,4) against a peer: ubao's engine vs OpenSpiel's C++ MCTS (issue 14).

OpenSpiel's `mancala` is Kalah (6,4) under the "standard" commercial rules, ubao's `kalah` with
`empty_capture: false` (docs/mancala.md §3). Before any game the script plays seeded random
games through both rule sets, ubao's Python and native rules each, and compares them move by
move: side to move, board, legal moves, and at the end each side's seeds and the winner
(OpenSpiel leaves the seeds of the last row in the pits and counts them for their owner; ubao
moves them to the owner's store). A result means nothing unless the rules agree.

Then ubao plays `--games` games against `pyspiel.MCTSBot` (random-rollout evaluator, one
rollout per leaf, uct_c = 2 and the MCTS-Solver on, as OpenSpiel's mcts_example;
`--simulations` per move, seeded per game), sides alternating, from the start position (or,
with `--random-plies`, from one seeded random opening per pair of games, as `ubao-engine match`
does), and prints each game with its moves, then W/D/L and mean margin per side and in all. ubao
is `ubao-engine stdio` (docs/engine-protocol.md) in a subprocess of its own, one for the whole
match (`ucinewgame` between games), `go movetime` per move, default settings: negamax, strength
mode, 16 MB table, one thread; or any engine speaking that protocol (`--engine`). Every move is
also checked against OpenSpiel's own state as the game goes.

    pip install open_spiel    # not a project dependency: a scratch venv that also has ubao
    nice -n 19 python benchmarks/vs_openspiel.py --games 20 --movetime 1000 --seed 1

`--games 0` runs the rules check alone.
"""

from __future__ import annotations

import argparse
import importlib
import shlex
import sys
import time
from dataclasses import dataclass
from random import Random
from types import ModuleType
from typing import Any

from ubao.engine.backend import resolve_backend
from ubao.engine.game import Game
from ubao.engine.games import make_game
from ubao.engine.search import SearchStats
from ubao.engine.tools.match import ExternalPlayer, MatchReport, opening
from ubao.engine.tools.players import GameRecord, Player, play_game

PITS = 6
OPTIONS = {"pits": PITS, "seeds": 4, "empty_capture": False}
"""ubao's name for OpenSpiel's `mancala`: the standard rules, no capture of an empty pit."""
UCT_C = 2.0
"""OpenSpiel's default exploration constant (mcts_example's --uct_c)."""
MAX_MEMORY_MB = 1000
"""mcts_example's --max_memory_mb: the tree is pruned past it."""
MAX_PLIES = 1000
"""OpenSpiel's `mancala` ends in a draw after 1000 moves; no real game comes near."""


def import_pyspiel() -> ModuleType:
    """OpenSpiel's Python module, or exit 2 saying how to get it (it is no dependency)."""
    try:
        return importlib.import_module("pyspiel")
    except ImportError:
        print("OpenSpiel is needed: pip install open_spiel", file=sys.stderr)
        raise SystemExit(2) from None


# -- the two boards -----------------------------------------------------------------------
# ubao: South's pits 0..5, South's store 6, North's pits 7..12, North's store 13, the side to
# move 14. OpenSpiel: North's store 0, South's pits 1..6, South's store 7, North's pits 8..13;
# both sow upward, so hole h of ubao is hole h + 1 of OpenSpiel.


def board_of(position: tuple[int, ...]) -> list[int]:
    """ubao's position as OpenSpiel's board of 14 holes."""
    return [position[2 * PITS + 1], *position[: 2 * PITS + 1]]


def action_of(player: int, move: int) -> int:
    """ubao's move (pit 1..6 from the mover's left) as OpenSpiel's action (the hole sown)."""
    return move + player * (PITS + 1)


def move_of(player: int, action: int) -> int:
    return action - player * (PITS + 1)


def spiel_board(state: Any) -> list[int]:
    """OpenSpiel's board: the first 14 numbers of its observation (then player, move number)."""
    return [round(value) for value in state.observation_tensor(0)[: 2 * PITS + 2]]


def spiel_winner(state: Any) -> int | None:
    returns = state.returns()
    return None if returns[0] == returns[1] else (0 if returns[0] > returns[1] else 1)


# -- the rules check ----------------------------------------------------------------------


class RulesDiffer(Exception):
    """ubao and OpenSpiel disagree; the message shows where."""


@dataclass
class RuleCounts:
    """What the random games went through: each rule must have been exercised."""

    games: int = 0
    positions: int = 0
    extra_turns: int = 0
    captures: int = 0
    empty_opposite: int = 0
    """Last seed in an empty pit of one's own facing an empty pit: no capture here."""
    ends: int = 0
    ends_with_seeds_left: int = 0

    def describe(self) -> str:
        return (
            f"{self.games} games, {self.positions} positions, {self.extra_turns} extra turns, "
            f"{self.captures} captures, {self.empty_opposite} landings in an empty pit facing "
            f"an empty pit, {self.ends} ends ({self.ends_with_seeds_left} with seeds left)"
        )


def sow(board: list[int], player: int, action: int) -> tuple[int, int]:
    """Where OpenSpiel's sowing of `action` ends, and how often it drops a seed in the mover's
    store (the walk of its GetNextPit: the opponent's store is skipped)."""
    own_store, other_store = (PITS + 1, 0) if player == 0 else (0, PITS + 1)
    hole, into_store = action, 0
    for _ in range(board[action]):
        hole = (hole + 1) % (2 * PITS + 2)
        if hole == other_store:
            hole += 1
        into_store += hole == own_store
    return hole, into_store


def count_move(
    counts: RuleCounts, before: list[int], after: list[int], player: int, action: int
) -> None:
    """Classify one move by OpenSpiel's boards before and after it."""
    last, into_store = sow(before, player, action)
    own_store = PITS + 1 if player == 0 else 0
    own_row = range(1, PITS + 1) if player == 0 else range(PITS + 2, 2 * PITS + 2)
    if last == own_store:
        counts.extra_turns += 1
    elif after[own_store] - before[own_store] > into_store:
        counts.captures += 1
    elif last in own_row and after[last] == 1 and after[2 * PITS + 2 - last] == 0:
        counts.empty_opposite += 1


def compare(game: Game[Any, Any], position: Any, state: Any, counts: RuleCounts) -> None:
    """One position through both rule sets; RulesDiffer at the first difference."""
    where = game.format_position(position)
    outcome = game.outcome(position)
    if state.is_terminal() != (outcome is not None):
        raise RulesDiffer(
            f"{where}: over for {'OpenSpiel' if state.is_terminal() else 'ubao'} only"
        )
    board = spiel_board(state)
    if outcome is None:
        player = game.to_move(position)
        legal = sorted(action_of(player, move) for move in game.legal_moves(position))
        if state.current_player() != player or board != board_of(position):
            raise RulesDiffer(f"{where}: OpenSpiel has {board}, player {state.current_player()}")
        if legal != list(state.legal_actions()):
            raise RulesDiffer(f"{where}: moves {legal} here, {state.legal_actions()} there")
        return
    seeds = (sum(board[1 : PITS + 2]), sum(board[PITS + 2 :]) + board[0])
    if seeds != outcome.score or spiel_winner(state) != outcome.winner:
        raise RulesDiffer(
            f"{where}: final {outcome.score}, winner {outcome.winner} here; OpenSpiel's board "
            f"{board} counts {seeds}, winner {spiel_winner(state)}"
        )
    counts.ends += 1
    counts.ends_with_seeds_left += sum(board[1 : PITS + 1]) + sum(board[PITS + 2 :]) > 0


def check_rules(spiel: ModuleType, game: Game[Any, Any], games: int, seed: int) -> RuleCounts:
    """Seeded random games through ubao's `game` and OpenSpiel's `mancala`, position by
    position; RulesDiffer at the first difference."""
    peer = spiel.load_game("mancala")
    rng = Random(seed)
    counts = RuleCounts()
    for _ in range(games):
        position, state = game.start(), peer.new_initial_state()
        compare(game, position, state, counts)
        while not state.is_terminal():
            player = game.to_move(position)
            move = rng.choice(game.legal_moves(position))
            before = spiel_board(state)
            position = game.play(position, move)
            state.apply_action(action_of(player, move))
            count_move(counts, before, spiel_board(state), player, action_of(player, move))
            counts.positions += 1
            compare(game, position, state, counts)
        counts.games += 1
    return counts


# -- the match ----------------------------------------------------------------------------


class MctsPlayer:
    """OpenSpiel's MCTS for one game, on OpenSpiel's own state, kept in step by `played`."""

    def __init__(self, spiel: ModuleType, simulations: int, seed: int) -> None:
        self.peer = spiel.load_game("mancala")
        evaluator = spiel.RandomRolloutEvaluator(1, seed)
        self.bot = spiel.MCTSBot(
            self.peer, evaluator, UCT_C, simulations, MAX_MEMORY_MB, True, seed, False
        )
        self.state = self.peer.new_initial_state()
        self.name = f"openspiel-mcts:{simulations}"

    def played(self, position: Any, move: Any) -> None:
        """Every move of the game, on OpenSpiel's state too, which must be at `position`."""
        if spiel_board(self.state) != board_of(position):
            raise RulesDiffer(f"OpenSpiel is at {spiel_board(self.state)}, ubao at {position}")
        self.state.apply_action(action_of(position[-1], move))

    def choose(self, position: Any) -> tuple[Any, SearchStats | None]:
        return move_of(position[-1], self.bot.step(self.state)), None


class Timed:
    """A player whose thinking time is added up, to show both sides had the time they should."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.name = player.name
        self.seconds = 0.0
        self.moves = 0

    def choose(self, position: Any) -> tuple[Any, SearchStats | None]:
        started = time.perf_counter()
        choice = self.player.choose(position)
        self.seconds += time.perf_counter() - started
        self.moves += 1
        return choice

    @property
    def per_move(self) -> float:
        return self.seconds / max(self.moves, 1)


def add_game(report: MatchReport, winner: int | None, seat: int, margin: int) -> None:
    """One game to `report`, from the side of the engine in `seat`."""
    report.games += 1
    if winner is None:
        report.draws += 1
    elif winner == seat:
        report.wins += 1
    else:
        report.losses += 1
    report.margins.append(margin)


def play_one(
    game: Game[Any, Any], engine: ExternalPlayer, mcts: MctsPlayer, seat: int, opening: list[Any]
) -> tuple[GameRecord, Timed, Timed]:
    """One game after the `opening` moves, ubao in `seat`; the game from the opening on, and
    ubao's and MCTS's times."""
    ours, theirs = Timed(engine), Timed(mcts)
    position = game.start()
    engine.new_game(position)

    def hear(position: Any, move: Any) -> None:
        engine.played(position, move)
        mcts.played(position, move)

    for move in opening:
        hear(position, move)
        position = game.play(position, move)
    players = (ours, theirs) if seat == 0 else (theirs, ours)
    return play_game(game, players, position, MAX_PLIES, on_move=hear), ours, theirs


def play_match(
    spiel: ModuleType,
    game: Game[Any, Any],
    engine: ExternalPlayer,
    games: int,
    simulations: int,
    seed: int,
    random_plies: int,
) -> tuple[MatchReport, MatchReport, MatchReport]:
    """ubao as South, as North, and in all: W/D/L and margins from ubao's side. With
    `random_plies`, each pair of games starts from one seeded random opening, ubao playing each
    side of it once."""
    name = f"openspiel-mcts:{simulations}"
    sides = (MatchReport("ubao as South", name), MatchReport("ubao as North", name))
    total = MatchReport("ubao", name)
    rng = Random(seed)
    moves: list[Any] = []
    for number in range(games):
        seat = number % 2
        if seat == 0:
            moves = opening(game, rng, random_plies)[1]
        mcts = MctsPlayer(spiel, simulations, seed + number)
        record, ours, theirs = play_one(game, engine, mcts, seat, moves)
        final = record.final
        score = (final[PITS], final[2 * PITS + 1])  # a game cut at MAX_PLIES is a draw
        winner = record.winner
        margin = score[seat] - score[1 - seat] if record.outcome is not None else 0
        add_game(sides[seat], winner, seat, margin)
        add_game(total, winner, seat, margin)
        result = "won" if winner == seat else "lost"
        result = "drew" if winner is None else f"{result} by {abs(margin)}"
        print(
            f"game {number + 1}/{games}: ubao {'South' if seat == 0 else 'North'} "
            f"{score[seat]}-{score[1 - seat]}, {result}, "
            f"{len(record.moves)} plies; s/move ubao {ours.per_move:.2f}, "
            f"MCTS {theirs.per_move:.2f}\n  moves{f' (opening {len(moves)})' if moves else ''}: "
            f"{' '.join(engine.moves)}",
            flush=True,
        )
    return sides[0], sides[1], total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games, sides alternating")
    parser.add_argument("--simulations", type=int, default=100_000, help="MCTS per move")
    parser.add_argument("--movetime", type=int, default=1000, help="ubao's ms per move")
    parser.add_argument("--seed", type=int, default=1, help="MCTS seeds and rules-check games")
    parser.add_argument(
        "--random-plies", type=int, default=0, help="a seeded random opening per pair of games"
    )
    parser.add_argument("--rule-games", type=int, default=1000, help="random games compared")
    own_engine = shlex.join([sys.executable, "-m", "ubao.engine", "stdio"])
    parser.add_argument(
        "--engine",
        default=own_engine,
        help="the command of an engine speaking docs/engine-protocol.md (default: this ubao)",
    )
    args = parser.parse_args()
    spiel = import_pyspiel()

    backends = ("python", "native") if resolve_backend("auto") == "native" else ("python",)
    for backend in backends:
        game = make_game("kalah", OPTIONS, backend)
        try:
            counts = check_rules(spiel, game, args.rule_games, args.seed)
        except RulesDiffer as error:
            print(f"rules differ ({backend} rules): {error}", file=sys.stderr)
            raise SystemExit(1) from None
        if not all((counts.extra_turns, counts.captures, counts.empty_opposite, counts.ends)):
            print(f"the random games missed a rule: {counts.describe()}", file=sys.stderr)
            raise SystemExit(1)
        print(f"rules agree ({backend} rules): {counts.describe()}")
    if args.games <= 0:
        return

    game = make_game("kalah", OPTIONS)
    label = f" (backend {resolve_backend()})" if args.engine == own_engine else ""
    engine = ExternalPlayer(game, args.engine, f"movetime {args.movetime}")
    print(
        f"ubao: {args.engine}{label}, go movetime {args.movetime}; OpenSpiel "
        f"MCTS: {args.simulations} simulations, uct_c {UCT_C:g}, random rollouts, solver on; "
        f"seeds {args.seed}..{args.seed + args.games - 1}; random opening plies "
        f"{args.random_plies}",
        flush=True,
    )
    try:
        reports = play_match(
            spiel, game, engine, args.games, args.simulations, args.seed, args.random_plies
        )
    finally:
        engine.close()
    for report in reports:
        print(report.summary())


if __name__ == "__main__":
    main()
