"""How often the engine keeps the exact value: Kalah (6,4) positions from real games, solved.

`generate` plays seeded self-play games (a few random opening plies, then a depth-6 search
with an occasional random move, so the games differ), keeps positions late enough for the
solver (at most --max-seeds seeds left in the pits) and scores every legal move of each
exactly: the final margin it leads to under perfect play, from the mover's point of view.

`measure` lets the engine choose a move in each position, at fixed depths and at a time per
move, and counts the value-preserving choices: moves whose exact value is the position's best.
Positions where every move has the same value are reported apart (any move keeps it there).

    python benchmarks/kalah_accuracy.py measure benchmarks/data/kalah64_late.json \
        --depths 8,12 --time-ms 1000
    python benchmarks/kalah_accuracy.py generate -o /tmp/kalah64_new.json

The committed benchmarks/data/kalah64_late.json is the reference set that docs/benchmarks.md
measures. `generate` does not rebuild it: its games follow the engine's own search, so any
change to the search's node order makes other games and so another set. Use it for a new set
(is a result peculiar to the reference one?), never to overwrite the reference.

Only `Searcher(game)`, `.search(position, depth, time_ms)` and `.move` are used, so the same
script measures an older engine (run it with that engine first on PYTHONPATH).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

from ubao.engine.games import make_game
from ubao.engine.search import Searcher
from ubao.engine.solve import Solver

GAME = make_game("kalah", {"pits": 6, "seeds": 4})


def seeds_in_play(position: Any) -> int:
    return int(sum(position[:6]) + sum(position[7:13]))


def move_values(position: Any, solver: Solver[Any, Any]) -> dict[str, int]:
    """Every legal move's exact final margin from the mover's point of view."""
    mover = GAME.to_move(position)
    values = {}
    for move in GAME.legal_moves(position):
        value = solver.solve(GAME.play(position, move)).value
        values[GAME.format_move(position, move)] = value if mover == 0 else -value
    return values


def generate(count: int, seed: int, max_seeds: int, per_game: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    found: list[dict[str, Any]] = []
    while len(found) < count:
        position = GAME.start()
        for _ in range(rng.randint(2, 8)):
            position = GAME.play(position, rng.choice(GAME.legal_moves(position)))
        players = (Searcher(GAME), Searcher(GAME))
        taken = 0
        while GAME.legal_moves(position) and taken < per_game and len(found) < count:
            moves = GAME.legal_moves(position)
            if seeds_in_play(position) <= max_seeds and len(moves) > 1 and rng.random() < 0.3:
                solver: Solver[Any, Any] = Solver(GAME)
                found.append(
                    {
                        "position": GAME.format_position(position),
                        "values": move_values(position, solver),
                    }
                )
                taken += 1
                print(f"{len(found)}/{count}", found[-1], file=sys.stderr)
            if rng.random() < 0.1:
                move = rng.choice(moves)
            else:
                move = players[GAME.to_move(position)].search(position, 6).move
            position = GAME.play(position, move)
    return found


def measure(
    cases: list[dict[str, Any]], depth: int | None, time_ms: float | None
) -> dict[str, Any]:
    """Value-preserving choices over all positions and over those where a move can lose."""
    kept = decisive = kept_decisive = 0
    for case in cases:
        position = GAME.parse_position(case["position"])
        values: dict[str, int] = case["values"]
        best = max(values.values())
        move = Searcher(GAME).search(position, depth, time_ms).move
        keeps = values[GAME.format_move(position, move)] == best
        kept += keeps
        if len(set(values.values())) > 1:
            decisive += 1
            kept_decisive += keeps
    return {
        "limit": f"depth {depth}" if depth is not None else f"{time_ms:g} ms",
        "positions": len(cases),
        "value_preserving": round(100 * kept / len(cases), 1),
        "decisive_positions": decisive,
        "value_preserving_decisive": round(100 * kept_decisive / max(decisive, 1), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser(
        "generate",
        help="make a NEW set (it follows the engine's own search, so it does not rebuild the "
        "committed reference benchmarks/data/kalah64_late.json)",
    )
    make.add_argument(
        "-o", "--output", required=True, help="where to write it (not the reference set)"
    )
    make.add_argument("--positions", type=int, default=100)
    make.add_argument("--seed", type=int, default=1)
    make.add_argument("--max-seeds", type=int, default=28)
    make.add_argument("--per-game", type=int, default=3)
    run = commands.add_parser(
        "measure", help="measure a set: the reference is benchmarks/data/kalah64_late.json"
    )
    run.add_argument("cases")
    run.add_argument("--depths", default="8,12")
    run.add_argument("--time-ms", type=float, default=1000)
    args = parser.parse_args()
    if args.command == "generate":
        cases = generate(args.positions, args.seed, args.max_seeds, args.per_game)
        with open(args.output, "w") as file:
            json.dump(cases, file, indent=0)
        return
    with open(args.cases) as file:
        cases = json.load(file)
    limits: list[tuple[int | None, float | None]] = [
        (int(depth), None) for depth in args.depths.split(",") if depth
    ]
    if args.time_ms:
        limits.append((None, args.time_ms))
    for depth, time_ms in limits:
        print(json.dumps(measure(cases, depth, time_ms)), flush=True)


if __name__ == "__main__":
    main()
