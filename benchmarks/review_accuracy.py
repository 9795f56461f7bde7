"""How right the game review's marks are: Kalah games reviewed, then every ply solved exactly.

Plays seeded games of uneven strength (a few random opening plies, then each move a search of
a random depth from 1 to 6, or one time in five a random move, so that there are mistakes to
find), reviews each with `review_game` at the budget asked (default: the review's own), and
solves every position of the game with the solver (engine/solve.py, the endgame database where
the native core builds it) for the exact loss of each move. It prints, against perfect play:

- precision: of the moves the review marks a mistake (or a blunder), how many lose at least
  the mistake (blunder) threshold exactly; issue 34 asks for all of them;
- recall: of the moves that lose at least the mistake (blunder) threshold exactly, how many the
  review marks at least so; issue 34 asks for 95 % at the default budget;
- the time the review took per game (the solver's time beside it is not the review's), and the
  share of a core it had (the budgets are wall-clock time: a busy machine proves less);
  `--time-only` times the reviews alone (issue 34: a 60-ply Kalah game in under a minute).

    python benchmarks/review_accuracy.py --games 6
    python benchmarks/review_accuracy.py --games 20 --pits 4 --seeds 3 --time-ms 100
    python benchmarks/review_accuracy.py --solve-ms 0 --cache /tmp/kalah64_losses.json
    python benchmarks/review_accuracy.py --time-only --random-share 0.05 --games 3

`--cache FILE` keeps the exact losses of the games solved (JSON, by options and moves), so
that another budget is measured on the same games without solving them again.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from ubao.engine.endgame import native_rules, open_endgame
from ubao.engine.games import make_game
from ubao.engine.mancala.game import Mancala
from ubao.engine.review import DEFAULT_TIME_MS, ReviewBudget, review_game, thresholds
from ubao.engine.search import Searcher
from ubao.engine.solve import Solver


def play_game(game: Mancala, rng: random.Random, random_share: float = 0.2) -> list[str]:
    """One game of uneven play, in notation."""
    searcher: Searcher[Any, Any] = Searcher(game)
    position = game.start()
    moves = []
    opening = rng.randint(2, 8)
    while not game.is_over(position):
        legal = game.legal_moves(position)
        if len(moves) < opening or rng.random() < random_share:
            move = rng.choice(legal)
        else:
            move = searcher.search(position, rng.randint(1, 6)).move
        moves.append(game.format_move(position, move))
        position = game.play(position, move)
    return moves


def exact_losses(game: Mancala, moves: list[str], solver: Solver[Any, Any]) -> list[float]:
    """Each move's exact loss: the position's value minus the move's, the mover's view."""
    positions = [game.start()]
    for text in moves:
        positions.append(game.play(positions[-1], game.parse_move(positions[-1], text)))
    values = []
    for position in positions:
        outcome = game.outcome(position)
        values.append(
            outcome.score[0] - outcome.score[1] if outcome else solver.solve(position).value
        )
    losses = []
    for ply, position in enumerate(positions[:-1]):
        sign = -1 if game.to_move(position) else 1
        losses.append(float(sign * (values[ply] - values[ply + 1])))
    return losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pits", type=int, default=6)
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--time-ms", type=int, default=DEFAULT_TIME_MS)
    parser.add_argument("--exact-within", type=int, default=None)
    parser.add_argument("--solve-ms", type=int, default=None)
    parser.add_argument("--confirm-ms", type=int, default=None)
    parser.add_argument("--cache", type=Path, help="exact losses kept here between runs")
    parser.add_argument(
        "--random-share", type=float, default=0.2, help="the share of random moves (0.2)"
    )
    parser.add_argument(
        "--time-only", action="store_true", help="time the reviews, solve nothing (no figures)"
    )
    args = parser.parse_args()
    options = {"pits": args.pits, "seeds": args.seeds}
    game = make_game("kalah", options)
    assert isinstance(game, Mancala)
    endgame = (
        open_endgame(game, min(16, 2 * game.pits * game.seeds)) if native_rules(game) else None
    )
    solver: Solver[Any, Any] = Solver(game, endgame=endgame)
    _, mistake, blunder = thresholds("kalah")
    budget = ReviewBudget(
        args.time_ms, args.exact_within, solve_ms=args.solve_ms, confirm_ms=args.confirm_ms
    )
    rng = random.Random(args.seed)
    cache: dict[str, list[float]] = (
        json.loads(args.cache.read_text()) if args.cache is not None and args.cache.exists() else {}
    )
    marked = {"mistake": [0, 0], "blunder": [0, 0]}
    """mark -> [moves marked at least so, of which losing at least the threshold exactly]"""
    lost = {"mistake": [0, 0], "blunder": [0, 0]}
    """threshold -> [moves losing at least it exactly, of which marked at least so]"""
    plies = exact_plies = 0
    review_seconds = review_cpu = 0.0
    """The reviews' time, and the processor's time they had (less on a busy machine)."""
    wrong: list[str] = []
    for number in range(1, args.games + 1):
        moves = play_game(game, rng, args.random_share)
        start, cpu_start = time.perf_counter(), time.process_time()
        review = review_game("kalah", options, moves, budget)
        seconds = time.perf_counter() - start
        review_seconds += seconds
        review_cpu += time.process_time() - cpu_start
        if args.time_only:
            plies += len(moves)
            print(
                f"game {number}: {len(moves)} plies, reviewed in {seconds:.1f} s "
                f"({sum(p.exact for p in review.plies)} exact)",
                flush=True,
            )
            continue
        solve_start = time.perf_counter()
        key = f"{args.pits},{args.seeds}: {' '.join(moves)}"
        if key not in cache:
            cache[key] = exact_losses(game, moves, solver)
            if args.cache is not None:
                args.cache.write_text(json.dumps(cache))
        losses = cache[key]
        for ply, loss in zip(review.plies, losses, strict=True):
            plies += 1
            exact_plies += ply.exact
            for mark, threshold in (("mistake", mistake), ("blunder", blunder)):
                at_least = ply.mark == "blunder" or (mark == "mistake" and ply.mark == "mistake")
                if at_least:
                    marked[mark][0] += 1
                    marked[mark][1] += loss >= threshold
                    if loss < threshold:
                        how = "exact" if ply.exact else f"depth {ply.depth}"
                        wrong.append(
                            f"game {number} ply {ply.ply + 1}: marked {ply.mark} "
                            f"(loss {ply.loss:g}, {how}), exact loss {loss:g} < {threshold:g}"
                        )
                if loss >= threshold:
                    lost[mark][0] += 1
                    lost[mark][1] += at_least
                    if not at_least:
                        how = "exact" if ply.exact else f"depth {ply.depth}"
                        wrong.append(
                            f"game {number} ply {ply.ply + 1}: marked {ply.mark or 'good'} "
                            f"(loss {ply.loss:g}, {how}), exact loss {loss:g} >= {threshold:g}"
                        )
        print(
            f"game {number}: {len(moves)} plies, reviewed in {seconds:.1f} s "
            f"({sum(p.exact for p in review.plies)} exact), solved in "
            f"{time.perf_counter() - solve_start:.1f} s",
            file=sys.stderr,
            flush=True,
        )
    share = f"{100 * review_cpu / review_seconds:.0f} % of a core"
    if args.time_only:
        print(
            f"review time: {review_seconds / args.games:.1f} s a game ({share}), "
            f"{plies / args.games:.0f} plies"
        )
        return
    print(
        f"kalah({args.pits},{args.seeds}), {args.games} games, {plies} plies "
        f"({exact_plies} proved by the review), {args.time_ms} ms a position, "
        f"exact within {review.budget['exact_within']} plies, "
        f"solver {review.budget['solve_ms']} ms, "
        f"confirmation {review.budget['confirm_ms']} ms"
    )
    for mark in ("mistake", "blunder"):
        count, right = marked[mark]
        losing, caught = lost[mark]
        print(
            f"{mark}s: precision {right}/{count}"
            + (f" = {100 * right / count:.1f} %" if count else "")
            + f", recall {caught}/{losing}"
            + (f" = {100 * caught / losing:.1f} %" if losing else "")
        )
    print(
        f"review time: {review_seconds / args.games:.1f} s a game ({share}), "
        f"{plies / args.games:.0f} plies"
    )
    for line in wrong:
        print("  " + line)


if __name__ == "__main__":
    main()
