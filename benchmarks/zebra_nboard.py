"""Gunnar Andersson's Zebra behind the NBoard protocol, so that `ubao-engine match` can play it.

Zebra's console program speaks no engine protocol: it plays a game at its own prompt. This
adapter answers NBoard's `go` by running Zebra once on the position (`-g` a position file,
`-evalone`: one move and exit, `-b 0`: no opening book, `-r 0`: no randomness) with a clock
for Zebra's own time manager, and replies with the first move of the principal variation Zebra
prints. Its trained pattern weights (`coeffs2.bin`) must be in Zebra's folder, where it is run.

`--seconds` is the wall time a middle-game move takes on average, as `time=MS` is ubao's: the
same number for both is a match at equal time per move. Zebra's iterations run past what its
time manager aims at, and each move starts Zebra and loads its weights (about 0.1 s), so the
adapter aims lower, at first at 0.65 of `--seconds` (what made 1 s moves on the shared 2-core
machine), then steered by the time its middle-game moves (more than 30 empties) really took.
Each move's wall time is appended to `--log`, so that the time Zebra took can be set beside
ubao's:

    ubao-engine match othello --engine1 time=1000 \
        --engine2 ".venv/bin/python benchmarks/zebra_nboard.py --zebra ZEBRA/zebra --seconds 1" \
        --protocol2 nboard --games 40 --random-plies 6 --seed 37

Zebra's clock is whole seconds, of which it keeps 10 in reserve; a move is given
`(clock - 10) / (moves left + 1) * 0.7` seconds (timer.c), and may run over by up to 1.6/0.7 of
that when an iteration is under way. The clock sent solves that for the aim. Once its
midgame search reaches within 7 plies of the end (game.c), Zebra solves instead, and lets that
solve run to a share of the whole clock (end.c: from 0.2 at 32 empties to 0.5 at 22), not of
the move's: from that clock a move at 24–30 empties took 2–3.5 s where the midgame's took about
1. From 30 empties on, where a search of about a second starts to solve, the clock is cut so
that the solve's share is the move's time, `--seconds` (to the nearest whole second of clock),
as ubao's `time=MS` is a deadline: a solve that does not finish in it is abandoned for the
midgame search's move, as ubao's is; an increment then keeps the midgame search's aim (Zebra's
time manager counts it for every move left; its solves do not). Until 2026-12-02 the cut let
the solve run as long as a midgame move may, 1.6/0.7 of the aim, which made 1.3–1.6 s a move on
average at 24–27 empties.
The log's lines are each move's wall seconds and its empty squares.

`--depth D` searches D plies a move instead, with no clock and no endgame solving (`-l D 0 0`):
against ubao at the same depth (`--engine1 depth=D,book=off`) a match compares the two
evaluations, the searches aside.
"""

from __future__ import annotations

import argparse
import math
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ubao.engine.games import make_game
from ubao.engine.protocols.ggf import GgfGame, GgfMove
from ubao.engine.protocols.nboard import (
    BestMove,
    EngineReply,
    Go,
    Hello,
    MyName,
    Ping,
    PlayMove,
    Pong,
    Quit,
    SetGame,
    format_reply,
    parse_command,
)

ZEBRA_RESERVE_SECONDS = 10
ZEBRA_SEARCH_SHARE = 0.7
ZEBRA_SOLVE_EMPTIES = 30
"""From here on a search of about a second reaches Zebra's solving depth (empties - 7)."""
FIRST_AIM_SHARE = 0.65
"""The aim's first share of `--seconds`: an aim of 0.65 s made middle-game moves of 0.9–1.1 s
(1 s on average) on the shared 2-core machine."""
PACE_MOVES = 10
"""How many of the last middle-game moves the aim is steered by, each weighing 1/10 less than
the one after it (FIRST_AIM_SHARE counts as that many before the first)."""
STATUS_LINE = re.compile(r"^-->\s+\S+\s+([+-]?[\d.]+)")
"""Zebra's status line after each iteration: `-->  20  +38 ...`; its second field the score."""
PV_LINE = re.compile(r"^PV:\s+([a-h][1-8])")


def zebra_clock(aim: float, empties: int, seconds: float) -> tuple[int, int]:
    """Whole seconds of clock and of increment for which Zebra's time manager aims this move
    at `aim` seconds, and near the end lets a solve run about `seconds`, the move's time.

    The aim is the clock past the reserve plus the increment of each move left, shared over
    the moves left (timer.c); a solve's share is of the clock past the reserve alone (end.c).
    So near the end the clock sets the solve's time and the increment the aim, as near it as
    whole seconds come (a little above it: about 0.8 s where 0.65 is asked)."""
    discs = 64 - empties
    moves_left = max((65 - discs) // 2 - 5, 2)
    shares = aim * (moves_left + 1) / ZEBRA_SEARCH_SHARE
    if empties > ZEBRA_SOLVE_EMPTIES:
        return ZEBRA_RESERVE_SECONDS + math.ceil(shares), 0
    solve = max(1, round(seconds / zebra_solve_share(empties)))
    increment = max(0, round((shares - solve) / moves_left))
    return ZEBRA_RESERVE_SECONDS + solve, increment


class Pace:
    """Zebra's aim for a move, steered so that its middle-game moves take `seconds` of wall time
    on average: `seconds` times the ratio of the time aimed at to the time taken, over the last
    PACE_MOVES moves or so."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.aimed = PACE_MOVES * FIRST_AIM_SHARE * seconds
        self.took = PACE_MOVES * seconds

    def aim(self) -> float:
        return self.seconds * self.aimed / self.took

    def record(self, aim: float, took: float, empties: int) -> None:
        """A move searched with `aim` that took `took` seconds; only the middle game counts,
        where the time manager's aim decides how long a move runs."""
        if empties > ZEBRA_SOLVE_EMPTIES:
            keep = 1 - 1 / PACE_MOVES
            self.aimed = keep * self.aimed + aim
            self.took = keep * self.took + took


def zebra_solve_share(empties: int) -> float:
    """The share of its clock (less the reserve) Zebra lets a solve take, to 32 empties (end.c)."""
    return 0.5 - max(0, empties - 22) * 0.03


def zebra_position(game: GgfGame) -> tuple[str, int, list[str]]:
    """The position after the record's moves as Zebra's position file (the board as `X`, `O`,
    `-` from a1, then the side to move's name), its empty squares and its legal moves."""
    othello = make_game("othello", {"size": game.size})
    board = othello.parse_position(game.start)
    for move in game.moves:
        board = othello.play(board, othello.parse_move(board, move.move))
    cells, side = othello.format_position(board).split()
    legal = [othello.format_move(board, move) for move in othello.legal_moves(board)]
    return f"{cells}\n{'Black' if side == 'X' else 'White'}\n", cells.count("-"), legal


def best_move(output: str) -> tuple[str, float | None]:
    """The move Zebra chose (the head of its last principal variation) and its score."""
    moves = [match.group(1) for line in output.splitlines() if (match := PV_LINE.match(line))]
    scores = [
        float(match.group(1)) for line in output.splitlines() if (match := STATUS_LINE.match(line))
    ]
    if not moves:
        raise SystemExit(f"no move in Zebra's output:\n{output}")
    return moves[-1], scores[-1] if scores else None


def zebra_limits(aim: float, seconds: float, depth: int | None, empties: int) -> list[str]:
    """Zebra's options for a move: a clock aimed at `aim` seconds whose solve stops at about
    `seconds`, or `depth` plies and no more."""
    if depth is not None:
        return ["-l", *[str(depth), "0", "0"] * 2]
    clock, increment = (str(whole) for whole in zebra_clock(aim, empties, seconds))
    return ["-l", *["60"] * 6, "-time", clock, increment, clock, increment]


def run_zebra(zebra: Path, text: str, options: list[str]) -> tuple[str, float | None]:
    """Zebra's move in the position file `text`, searched with `options`, and its score."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as file:
        file.write(text)
    output = subprocess.run(
        [str(zebra.resolve()), "-quiet", "-evalone", "-b", "0", "-r", "0", *options,
         "-g", file.name],
        cwd=zebra.resolve().parent, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    Path(file.name).unlink()
    return best_move(output)


def serve(zebra: Path, seconds: float, depth: int | None, hash_bits: int, log: Path | None) -> None:
    """NBoard on stdin and stdout until `quit`."""
    game: GgfGame | None = None
    pace = Pace(seconds)

    def say(reply: EngineReply) -> None:
        print(format_reply(reply), flush=True)

    def play(game: GgfGame) -> tuple[GgfMove, int]:
        """Zebra's move and the position's empty squares."""
        text, empties, legal = zebra_position(game)
        if len(legal) == 1:
            return GgfMove(legal[0], None, 0.0), empties  # played unsearched, unsaid
        aim = pace.aim()
        options = ["-h", str(hash_bits), *zebra_limits(aim, seconds, depth, empties)]
        started = time.perf_counter()
        square, score = run_zebra(zebra, text, options)
        took = time.perf_counter() - started
        if depth is None:
            pace.record(aim, took, empties)
        return GgfMove(square, score, took), empties

    for line in sys.stdin:
        command = parse_command(line)
        match command:
            case Hello():
                say(MyName("Zebra"))
            case SetGame(record):
                game = record
            case PlayMove(move) if game is not None:
                game = GgfGame(game.size, game.start, (*game.moves, move))
            case Go() if game is not None:
                move, empties = play(game)
                if log is not None:
                    with log.open("a") as sink:
                        sink.write(f"{move.seconds:.3f} {empties}\n")
                say(BestMove(move))
            case Ping(number):
                say(Pong(number))
            case Quit():
                return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zebra", type=Path, required=True, help="Zebra's console binary")
    parser.add_argument(
        "--seconds", type=float, default=1.0, help="a middle-game move's wall time on average"
    )
    parser.add_argument("--depth", type=int, help="search this many plies, with no clock")
    parser.add_argument("--hash-bits", type=int, default=20, help="Zebra's table: 2^N entries")
    parser.add_argument(
        "--log", type=Path, help="append each move's wall seconds and empty squares here"
    )
    args = parser.parse_args()
    serve(args.zebra, args.seconds, args.depth, args.hash_bits, args.log)


if __name__ == "__main__":
    main()
