"""Bao against an independent engine: ubao's rules move by move against nkkmd's JavaScript one.

nkkmd/bao-la-kiswahili-game (github.com/nkkmd/bao-la-kiswahili-game, `public/engine.js`) is
an open-source Bao la Kiswahili engine written without reference to ubao. This script plays
`--games` seeded random games with ubao's Bao and, at every position of them, asks nkkmd's
engine for its legal moves and for the position after each of them, then compares: the legal
move sets, and for every move both engines allow, the resulting board, stocks, nyumba
ownership, side to move, and the winner with the seeds left in hand when the move ends the game.
Each position is sent to nkkmd as it stands in ubao's game, so a difference never carries over
into the positions after it.

ubao plays the CORE profile with the flags that are nkkmd's readings (docs/bao.md §14):
`tax_any_owned: true` (nkkmd taxes any owned nyumba that is the only occupied front hole),
`ownership_lost_first_mtaji_capture: "mover"` (nkkmd ends the capturer's ownership only),
`takasia: "none"` (nkkmd has no takasia) and `never_ending: "loss"` (nkkmd stops a move after
512 relays and the mover loses), with `max_plies: 0` (nkkmd has no draw convention).

nkkmd's engine runs in one long-lived `node` process, `benchmarks/bao_vs_nkkmd.js`, which only
`require`s the engine.js it is given and speaks JSON lines on stdin and stdout. nkkmd's code is
not part of ubao: fetch it yourself.

    git clone https://github.com/nkkmd/bao-la-kiswahili-game /tmp/nkkmd
    nice -n 19 python benchmarks/bao_vs_nkkmd.py --nkkmd /tmp/nkkmd/public/engine.js

Every disagreement is printed (the position in the JSON form of docs/bao.md, the move, both
results) under its cause; the known causes are the documented differences between the two rule
readings. The exit status is 1 when a disagreement has no known cause.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any

from ubao.engine.backend import NATIVE_BUILT
from ubao.engine.bao.game import Bao
from ubao.engine.bao.rules import (
    NAMUA_TAKASA,
    NYUMBA,
    OWNED,
    STOCK,
    TO_MOVE,
    BaoMove,
    Position,
    kind_of,
)
from ubao.engine.games import make_game

OPTIONS: dict[str, Any] = {
    "tax_any_owned": True,
    "ownership_lost_first_mtaji_capture": "mover",
    "takasia": "none",
    "never_ending": "loss",
    "max_plies": 0,
}
"""ubao's CORE profile with nkkmd's readings of the §14 flags."""
MAX_PLIES = 2000
"""A random game still running here is cut (random games end within about 200 plies)."""
DRIVER = Path(__file__).with_name("bao_vs_nkkmd.js")
FRONT, BACK = 0, 1
"""nkkmd's rows: pits[player][row][index], index 0..7 from the owner's left."""
SIDES = "SN"


# -- the two boards -----------------------------------------------------------------------
# ubao: one ring of 16 per player, 0..7 = A1..A8, 8..15 = B8..B1, +1 clockwise. nkkmd: per
# player a front and a back row, each indexed 0..7 from the owner's left, so front index i is
# ring index i and back index i (B(i+1)) is ring index 15 - i; its direction "right" runs
# A1 -> A8 -> B8 -> B1, which is ubao's +1, and a namua capture's `side` names the kichwa.


def nkkmd_state(position: Position) -> dict[str, Any]:
    """ubao's position as nkkmd's state (a game in progress)."""
    rings = [position[0:16], position[16:32]]
    stocks = [position[STOCK], position[STOCK + 1]]
    return {
        "pits": [[list(ring[0:8]), [ring[15 - i] for i in range(8)]] for ring in rings],
        "reserve": stocks,
        "houseOwned": [bool(position[OWNED]), bool(position[OWNED + 1])],
        "player": position[TO_MOVE],
        "phase": "namua" if any(stocks) else "mtaji",
        "winner": None,
        "reason": "",
        "turn": 1,
        "pending": [0, 0],
    }


def nkkmd_move(data: dict[str, Any]) -> BaoMove:
    """nkkmd's move as ubao's: the ring index, the way the first seed runs (for a namua capture
    the kichwa, left = +1), and the safari (`houseChoice: "use"`)."""
    hole = data["index"] if data["row"] == FRONT else 15 - data["index"]
    if data["type"] == "capture" and data["phase"] == "namua":
        direction = 1 if data["side"] == "left" else -1
    else:
        direction = 1 if data["direction"] == "right" else -1
    return BaoMove(hole, direction, data.get("houseChoice") == "use")


def nkkmd_result(state: dict[str, Any]) -> dict[str, Any]:
    """nkkmd's state in the JSON form of docs/bao.md (what the comparison looks at)."""
    south, north = state["pits"]
    result: dict[str, Any] = {
        "board": [
            north[BACK][::-1],
            north[FRONT][::-1],
            south[FRONT],
            south[BACK],
        ],
        "stock": state["reserve"],
        "owned": state["houseOwned"],
    }
    winner = state["winner"]
    if winner is None:
        result["to_move"] = SIDES[state["player"]]
    else:
        result["winner"] = SIDES[winner]
        if state["pending"][winner]:
            result["captured_in_hand"] = state["pending"][winner]
        if state["reason"] == "relay-limit":
            result["never_ending"] = True
    return result


def ubao_result(game: Bao, position: Position) -> dict[str, Any]:
    """ubao's position in its JSON form, without the ply counter nkkmd does not keep."""
    result: dict[str, Any] = game.position_json(position)
    result.pop("ply", None)
    return result


# -- nkkmd's engine in node ---------------------------------------------------------------


class NkkmdError(Exception):
    """nkkmd's engine or its driver failed (not a rules difference)."""


class Nkkmd:
    """nkkmd's engine in a `node` subprocess, one JSON request and answer per line."""

    def __init__(self, node: str, engine: Path) -> None:
        self.process = subprocess.Popen(
            [node, str(DRIVER), str(engine)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(json.dumps(request) + "\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            raise NkkmdError(f"node exited (status {self.process.wait()})")
        answer: dict[str, Any] = json.loads(line)
        if "failure" in answer:
            raise NkkmdError(answer["failure"])
        return answer

    def initial(self) -> dict[str, Any]:
        """nkkmd's start position."""
        state: dict[str, Any] = self.ask({"initial": True})["state"]
        return state

    def moves(self, position: Position) -> list[dict[str, Any]]:
        """nkkmd's legal moves at `position`, each with its result state or its error."""
        moves: list[dict[str, Any]] = self.ask({"state": nkkmd_state(position)})["moves"]
        return moves

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)


# -- the comparison -----------------------------------------------------------------------


@dataclass
class Disagreement:
    """One position where the engines differ: a legal move set, or one move's result."""

    cause: str
    position: dict[str, Any]
    move: str
    """The move's text, or "legal moves" for a difference of legal move sets."""
    ours: Any
    theirs: Any


@dataclass
class Tally:
    """What the random games went through."""

    games: int = 0
    cut: int = 0
    positions: int = 0
    move_sets_agreeing: int = 0
    results: int = 0
    results_agreeing: int = 0
    positions_disagreeing: int = 0
    disagreements: list[Disagreement] = field(default_factory=list)


Classifier = Callable[[Bao, Position, BaoMove, dict[str, Any], dict[str, Any]], str | None]


def differing(ours: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    """The fields of two results that differ."""
    return sorted(key for key in ours.keys() | theirs.keys() if ours.get(key) != theirs.get(key))


def endless_cause(
    game: Bao, position: Position, move: BaoMove, ours: dict[str, Any], theirs: dict[str, Any]
) -> str | None:
    """A move that never ends. ubao (`never_ending: loss`) detects the cycle exactly and keeps
    the board of that moment; nkkmd stops after 512 relays. The mover loses in both."""
    endless = ours.get("never_ending") or theirs.get("never_ending")
    if endless and ours.get("winner") == theirs.get("winner"):
        return "a never-ending move: the mover loses in both, the boards at the stop differ (§13)"
    return None


def dormant_lift_cause(
    game: Bao, position: Position, move: BaoMove, ours: dict[str, Any], theirs: dict[str, Any]
) -> str | None:
    """nkkmd's bug: a namua takasa that starts from the owned (dormant) nyumba lifts all its
    seeds but keeps ownership; [R10.2a] ends it."""
    player = position[TO_MOVE]
    if not (
        position[OWNED + player]
        and move.hole == NYUMBA
        and kind_of(position, move, game.rules) == NAMUA_TAKASA
        and differing(ours, theirs) == ["owned"]
        and theirs["owned"][player]
        and ours["owned"][1 - player] == theirs["owned"][1 - player]
    ):
        return None
    return "nkkmd bug: a namua takasa lifting the owned nyumba keeps it owned ([R10.2a])"


CAUSES: tuple[Classifier, ...] = (endless_cause, dormant_lift_cause)
"""The known, documented causes of a disagreement, tried in order."""


def cause_of(
    game: Bao, position: Position, move: BaoMove, ours: dict[str, Any], theirs: dict[str, Any]
) -> str:
    """The known cause of a result difference, or "unexplained" with the fields that differ."""
    for classify in CAUSES:
        cause = classify(game, position, move, ours, theirs)
        if cause is not None:
            return cause
    return f"unexplained: {', '.join(differing(ours, theirs))} differ"


def compare(game: Bao, nkkmd: Nkkmd, position: Position, tally: Tally) -> None:
    """One position through both engines: legal moves, then every common move's result."""
    tally.positions += 1
    before = len(tally.disagreements)
    children = dict(game.children(position))
    answers = {nkkmd_move(answer["move"]): answer for answer in nkkmd.moves(position)}
    where = ubao_result(game, position)
    if set(children) == set(answers):
        tally.move_sets_agreeing += 1
    else:
        only_ours = sorted(game.format_move(position, m) for m in set(children) - set(answers))
        only_theirs = sorted(game.format_move(position, m) for m in set(answers) - set(children))
        tally.disagreements.append(
            Disagreement(
                "unexplained: legal moves differ", where, "legal moves", only_ours, only_theirs
            )
        )
    for move, child in children.items():
        answer = answers.get(move)
        if answer is None:
            continue
        tally.results += 1
        ours = ubao_result(game, child)
        if "error" in answer:
            theirs: Any = f"error: {answer['error']}"
            cause = "unexplained: nkkmd refused the move"
        else:
            theirs = nkkmd_result(answer["state"])
            if ours == theirs:
                tally.results_agreeing += 1
                continue
            cause = cause_of(game, position, move, ours, theirs)
        text = game.format_move(position, move)
        tally.disagreements.append(Disagreement(cause, where, text, ours, theirs))
    tally.positions_disagreeing += len(tally.disagreements) > before


def run(game: Bao, nkkmd: Nkkmd, games: int, seed: int) -> Tally:
    """`games` seeded random games of `game`, every position compared with nkkmd's engine; a
    game still running after MAX_PLIES plies is cut."""
    rng = Random(seed)
    tally = Tally()
    for _ in range(games):
        position = game.start()
        for _ in range(MAX_PLIES):
            if game.outcome(position) is not None:
                break
            compare(game, nkkmd, position, tally)
            position = game.play(position, rng.choice(game.legal_moves(position)))
        else:
            tally.cut += game.outcome(position) is None
        tally.games += 1
    return tally


def report(backend: str, tally: Tally) -> bool:
    """Print the figures and every disagreement grouped by cause; whether all are explained."""
    print(
        f"{backend} rules: {tally.games} games ({tally.cut} cut at {MAX_PLIES} plies), "
        f"{tally.positions} positions, legal move sets agreeing at {tally.move_sets_agreeing}; "
        f"{tally.results} move results compared, {tally.results_agreeing} agreeing; "
        f"{len(tally.disagreements)} disagreements at {tally.positions_disagreeing} positions"
    )
    groups: dict[str, list[Disagreement]] = {}
    for disagreement in tally.disagreements:
        groups.setdefault(disagreement.cause, []).append(disagreement)
    for cause, found in groups.items():
        print(f"  {len(found)} x {cause}")
        for item in found:
            print(f"    position: {json.dumps(item.position)}")
            print(f"    move:     {item.move}")
            print(f"    ubao:     {json.dumps(item.ours)}")
            print(f"    nkkmd:    {json.dumps(item.theirs)}")
    return not any(cause.startswith("unexplained") for cause in groups)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200, help="seeded random games")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random games")
    parser.add_argument("--nkkmd", type=Path, required=True, help="nkkmd's public/engine.js")
    parser.add_argument("--node", default="node", help="the node.js executable")
    parser.add_argument(
        "--backend",
        choices=("python", "native", "both"),
        default="both" if NATIVE_BUILT else "python",
        help="ubao's rules in Python or in the native core (default: every one built)",
    )
    args = parser.parse_args()
    if not args.nkkmd.is_file():
        parser.error(f"{args.nkkmd} is not a file (nkkmd's public/engine.js)")
    if shutil.which(args.node) is None:
        parser.error(f"{args.node!r} not found: node.js runs nkkmd's engine")
    backends = ("python", "native") if args.backend == "both" else (args.backend,)

    nkkmd = Nkkmd(args.node, args.nkkmd)
    explained = True
    try:
        for backend in backends:
            game = make_game("bao", OPTIONS, backend)
            assert isinstance(game, Bao)
            start = ubao_result(game, game.start())
            theirs = nkkmd_result(nkkmd.initial())
            if start != theirs:
                print(f"start positions differ: ubao {start}, nkkmd {theirs}", file=sys.stderr)
                raise SystemExit(1)
            explained &= report(backend, run(game, nkkmd, args.games, args.seed))
    except NkkmdError as error:
        print(f"nkkmd's engine failed: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    finally:
        nkkmd.close()
    if not explained:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
