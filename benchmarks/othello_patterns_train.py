"""Fits Othello's `patterns` evaluation (engine/othello/patterns.py) to self-play positions.

    .venv/bin/pip install numpy   # for the fit only: the engine never imports it
    .venv/bin/python benchmarks/othello_train.py generate --games 3000 --seed 37 --out DATA
    .venv/bin/python benchmarks/othello_patterns_train.py DATA [DATA ...] --out first.bin
    UBAO_PATTERN_WEIGHTS=first.bin .venv/bin/python benchmarks/othello_train.py label DATA \
        --depth 6 --out LABELLED
    .venv/bin/python benchmarks/othello_patterns_train.py LABELLED [LABELLED ...]

The positions are those of benchmarks/othello_train.py `generate` (ubao's own games, every
position from 16 empties on labelled by the native exact solver, the earlier ones by the exact
result of their game's 16-empty position); where `label` added a search's value to a line, the
fit takes that (`--blend`: its share, the game's label the rest). Nothing comes from another
program. Entries that a symmetry or a swap of the colours relates share one parameter
(`ties`). A position's value blends its two nearest stages (`patterns.blend_of`), so its row
takes both stages' parameters, each by its share. Every stage is fitted at once by
ridge-regularised least squares, solved by conjugate gradients on the normal equations: some
300,000 unknowns over millions of rows of 94 non-zeros (int32 columns and float32 values, the
products a million rows at a time), which numpy's vector operations do in minutes where a
Python loop would take hours.
A tenth of the positions (blocks of lines, so mostly whole games) is held out to report the
error, beside the error of the weights the engine reads now; `--check` files (labelled apart)
are reported too. Writes engine/othello/pattern_weights.bin and its digest in
engine/othello/pattern_weights.py, or with `--out FILE` a candidate, FILE and its digest in
FILE.sha256, which an engine reads when UBAO_PATTERN_WEIGHTS names it; after a change of
KINDS run `python -m ubao.engine.tools.native_constants` (the instances' squares) and rebuild
the core.
"""

from __future__ import annotations

import argparse
import sys
from array import array
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ubao.engine.othello import patterns
from ubao.engine.othello.game import Othello

PACKAGE = Path(patterns.__file__).parent
HELD_OUT_BLOCK = 2000
"""Lines per block when holding out every tenth block."""
RIDGE = 30.0
ROUNDS = 150

CHUNK = 1 << 20
"""Rows per step of the conjugate gradients' products, which bounds their temporary arrays."""

Ints = NDArray[np.int64]
Floats = NDArray[np.float64]
Columns = NDArray[np.int32]
Values = NDArray[np.float32]


Boards = tuple[NDArray[np.uint64], NDArray[np.uint64], Ints]


def load(paths: list[Path], blend: float) -> tuple[Boards, Floats]:
    """Black's discs, White's and the player to move of every evaluated position, and its
    label: Black's final margin as `generate` labelled it, or where `label` added a search's
    value, `blend` times that plus the rest times the game's label."""
    boards, labels = [], []
    for path in paths:
        with path.open() as lines:
            columns = len(lines.readline().split())
        boards.append(np.loadtxt(path, dtype=np.uint64, usecols=(0, 1, 2), ndmin=2))
        numbers = np.loadtxt(path, usecols=range(3, columns), ndmin=2)
        labels.append(blend * numbers[:, -1] + (1 - blend) * numbers[:, 0])
    board = np.concatenate(boards)
    label = np.concatenate(labels)
    kept = _count(board[:, 0] | board[:, 1]) <= patterns.LAST_DISCS
    black, white, player = board[kept, 0], board[kept, 1], board[kept, 2].astype(np.int64)
    return (black, white, player), label[kept]


def _count(bits: NDArray[np.uint64]) -> Ints:
    return np.bitwise_count(bits).astype(np.int64)


def ties() -> tuple[Ints, Floats, int]:
    """Per entry of a stage (each kind's table, then the mobility and tempo weights): the free
    parameter it takes, and the sign it takes it with; and the parameters per stage. Entries that a
    symmetry of their kind's squares or a swap of the colours turns into each other share one
    parameter (negated across the swap; zero where the swap gives the same entry back), so the
    shipped tables change no value under a symmetry of the board and negate it when the colours
    swap, exactly, and the fit has a quarter of the unknowns to fill."""
    parameter = np.empty(patterns.STAGE_SIZE, dtype=np.int64)
    sign = np.empty(patterns.STAGE_SIZE)
    offset = used = 0
    for _, squares in patterns.KINDS:
        n = len(squares)
        orders = [
            [squares.index(image) for image in (move(r, c) for r, c in squares)]
            for move in patterns.SYMMETRIES
            if {move(r, c) for r, c in squares} == set(squares)
        ]
        entries = np.arange(3**n)
        digits = entries[:, None] // 3 ** np.arange(n - 1, -1, -1) % 3
        swapped = np.where(digits == 0, 0, 3 - digits)
        weight = 3 ** np.arange(n - 1, -1, -1)
        plain = np.min([digits[:, order] @ weight for order in orders], axis=0)
        negated = np.min([swapped[:, order] @ weight for order in orders], axis=0)
        representative = np.minimum(plain, negated)
        kind_sign = np.where(plain == negated, 0.0, np.where(plain < negated, 1.0, -1.0))
        _, compact = np.unique(representative, return_inverse=True)
        parameter[offset : offset + 3**n] = used + compact
        sign[offset : offset + 3**n] = kind_sign
        offset += 3**n
        used += int(compact.max()) + 1
    scalars = [patterns.MOBILITY, patterns.TEMPO, patterns.PARITY]
    parameter[scalars] = used + np.arange(len(scalars))
    sign[scalars] = 1.0
    return parameter, sign, used + len(scalars)


BLENDS = np.array([patterns.blend_of(discs) for discs in range(patterns.SIZE**2 + 1)])
"""Per disc count, `patterns.blend_of`: the earlier stage, the later one, the later's share."""
STAGE_OF = np.array([patterns.stage_of(discs) for discs in range(patterns.SIZE**2 + 1)])
"""Per disc count, the stage whose discs it is in (the errors are reported by it)."""


def features(boards: Boards) -> tuple[Ints, Ints, Floats]:
    """Per position, its discs, each instance's entry in a stage, and its mobility lead, tempo
    (1: Black to move, -1: White) and parity (`patterns.last_mover`), the weighed features."""
    black, white, player = boards
    discs = _count(black | white)
    entries = np.empty((len(black), len(patterns.INSTANCES)), dtype=np.int64)
    one = np.uint64(1)
    for k, (offset, squares) in enumerate(patterns.INSTANCES):
        index = np.zeros(len(black), dtype=np.int64)
        for square in squares:
            at = np.uint64(square)
            digit = (black >> at) & one | ((white >> at) & one) << one
            index = 3 * index + digit.astype(np.int64)
        entries[:, k] = offset + index
    game = Othello({})
    mobility = np.array(
        [
            game._placements(b, w).bit_count() - game._placements(w, b).bit_count()
            for b, w in zip(black.tolist(), white.tolist(), strict=True)
        ],
        dtype=np.float64,
    )
    tempo = np.where(player == 0, 1.0, -1.0)
    parity = np.where(discs % 2 == 1, tempo, -tempo)
    return discs, entries, np.stack([mobility, tempo, parity], axis=1)


def design(
    discs: Ints, entries: Ints, weighed: Floats, tied: tuple[Ints, Floats, int]
) -> tuple[Columns, Values]:
    """The rows of the least squares problem: each row's parameter columns and their values,
    the earlier stage's by its share and the later's by its own."""
    parameter, sign, per_stage = tied
    earlier, later, share = BLENDS[discs].T
    scalars = parameter[[patterns.MOBILITY, patterns.TEMPO, patterns.PARITY]]
    within = np.concatenate([parameter[entries], np.broadcast_to(scalars, weighed.shape)], axis=1)
    weights = np.concatenate([sign[entries], weighed], axis=1).astype(np.float32)
    later_share = (share / patterns.BLEND).astype(np.float32)[:, None]
    columns = np.concatenate(
        [earlier[:, None] * per_stage + within, later[:, None] * per_stage + within], axis=1
    ).astype(np.int32)
    values = np.concatenate([weights * (1 - later_share), weights * later_share], axis=1)
    return columns, values


def fit(
    columns: Columns, values: Values, label: Floats, size: int, ridge: float, rounds: int
) -> Floats:
    """The parameters (in discs) minimising squared error plus `ridge` times their squares, by
    conjugate gradients on the normal equations."""

    def normal(w: Floats) -> Floats:
        return backward(predict(w, columns, values)) + ridge * w

    def backward(r: Floats) -> Floats:
        total = np.zeros(size)
        for start in range(0, len(columns), CHUNK):
            rows = slice(start, start + CHUNK)
            weights = (values[rows] * r[rows, None]).ravel()
            total += np.bincount(columns[rows].ravel(), weights=weights, minlength=size)
        return total

    w = np.zeros(size)
    residual = backward(label)
    direction = residual.copy()
    norm = residual @ residual
    for _ in range(rounds):
        product = normal(direction)
        alpha = norm / (direction @ product)
        w += alpha * direction
        residual -= alpha * product
        new_norm = residual @ residual
        direction = residual + new_norm / norm * direction
        norm = new_norm
    return w


def report(name: str, value: Floats, label: Floats, discs: Ints) -> None:
    """Root mean square error, over all and per stage (of the positions in its discs)."""
    error = value - label
    stage = STAGE_OF[discs]
    shown = " ".join(
        f"{s}:{np.sqrt(np.mean(error[stage == s] ** 2)):.2f}"
        for s in range(patterns.STAGES)
        if np.any(stage == s)
    )
    print(f"{name}: rms {np.sqrt(np.mean(error**2)):.2f} discs; by stage {shown}")


def parameters_now(tied: tuple[Ints, Floats, int]) -> Floats:
    """The weights the engine reads now (`patterns.weights`) as the fit's parameters, in discs:
    each parameter from the entries that take it (which the ties keep equal)."""
    parameter, sign, per_stage = tied
    table = np.asarray(patterns.weights(), dtype=np.float64).reshape(patterns.STAGES, -1)
    w = np.zeros(patterns.STAGES * per_stage)
    taken = sign != 0
    for stage in range(patterns.STAGES):
        values = table[stage, taken] * sign[taken] / patterns.SCALE
        w[stage * per_stage + parameter[taken]] = values
    return w


def table(w: Floats, tied: tuple[Ints, Floats, int]) -> array[int]:
    """The shipped table: every stage's entries from the parameters, in 1/SCALE of a disc."""
    parameter, sign, per_stage = tied
    stages = [sign * w[s * per_stage + parameter] for s in range(patterns.STAGES)]
    scaled = np.clip(np.rint(np.concatenate(stages) * patterns.SCALE), -32767, 32767)
    return array("h", scaled.astype(np.int64).tolist())


def predict(w: Floats, columns: Columns, values: Values) -> Floats:
    """The fitted parameters' value of each row."""
    value = np.empty(len(columns))
    for i in range(0, len(columns), CHUNK):
        value[i : i + CHUNK] = (w[columns[i : i + CHUNK]] * values[i : i + CHUNK]).sum(axis=1)
    return value


def read_now(discs: Ints, entries: Ints, weighed: Floats) -> Floats:
    """The value the weights the engine reads now (`patterns.weights`: the shipped file, or the
    candidate `patterns.ENVIRONMENT` names) give each position, blended and rounded as the
    engine does (`patterns.blended`), to compare with the fit's."""
    table = np.asarray(patterns.weights(), dtype=np.int64).reshape(patterns.STAGES, -1)
    earlier, later, share = (column[:, None] for column in BLENDS[discs].T)

    def blended(index: Ints) -> Ints:
        total = table[earlier, index] * (patterns.BLEND - share) + table[later, index] * share
        return np.sign(total) * ((np.abs(total) + patterns.BLEND // 2) // patterns.BLEND)

    scalars = np.array([patterns.MOBILITY, patterns.TEMPO, patterns.PARITY])
    tables = blended(entries).sum(axis=1)
    weighed_sum = (weighed * blended(np.broadcast_to(scalars, weighed.shape))).sum(axis=1)
    return np.asarray((tables + weighed_sum) / patterns.SCALE)


def write(data: bytes, out: Path | None) -> None:
    """The weights file and its digest: the package's (what ships), or `out` and its digest in
    the file beside it that `patterns.ENVIRONMENT` reads (a candidate)."""
    if out is not None:
        out.write_bytes(data)
        Path(f"{out}{patterns.DIGEST_SUFFIX}").write_text(patterns.digest(data) + "\n")
        return
    (PACKAGE / patterns.WEIGHTS_FILE).write_bytes(data)
    (PACKAGE / "pattern_weights.py").write_text(
        '"""Generated by benchmarks/othello_patterns_train.py: do not edit. The SHA-256 of\n'
        "pattern_weights.bin as fitted, which engine/othello/patterns.py checks on loading."
        '"""\n'
        f'\nDIGEST = "{patterns.digest(data)}"\n'
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path, nargs="+", help="othello_train.py generate output")
    parser.add_argument("--ridge", type=float, default=RIDGE, help="the penalty per parameter")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="conjugate gradient steps")
    parser.add_argument(
        "--blend",
        type=float,
        default=1.0,
        help="the search's label's share where `label` added one (the game's the rest)",
    )
    parser.add_argument(
        "--check", type=Path, nargs="*", default=[], help="positions labelled apart to measure on"
    )
    parser.add_argument(
        "--from-now",
        action="store_true",
        help="fit the change to the weights read now (the ridge pulls toward them, not zero)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="write the weights here (and its digest beside it), not the package",
    )
    args = parser.parse_args(argv)
    boards, label = load(args.data, args.blend)
    black, white, _ = boards
    held = (np.arange(len(black)) // HELD_OUT_BLOCK) % 10 == 9
    discs, entries, weighed = features(boards)
    for i in np.random.default_rng(0).choice(len(black), 200):  # the evaluation's own entries
        assert entries[i].tolist() == patterns.indices(int(black[i]), int(white[i]))
    tied = ties()
    columns, values = design(discs, entries, weighed, tied)
    train = ~held
    print(f"{int(train.sum())} positions to fit, {int(held.sum())} held out", file=sys.stderr)
    size = patterns.STAGES * tied[2]
    start = parameters_now(tied) if args.from_now else np.zeros(size)
    rest = label[train] - predict(start, columns[train], values[train])
    w = start + fit(columns[train], values[train], rest, size, args.ridge, args.rounds)
    report("fitted", predict(w, columns[train], values[train]), label[train], discs[train])
    report("held out", predict(w, columns[held], values[held]), label[held], discs[held])
    try:
        patterns.weights()
        compared = True
    except ValueError as refused:  # the layout changed: there is nothing to compare with
        print(f"no weights to compare with: {refused}", file=sys.stderr)
        compared = False
    if compared:
        now = read_now(discs[held], entries[held], weighed[held])
        report("weights read now, held out", now, label[held], discs[held])
    if args.check:
        boards, label = load(args.check, 1.0)
        discs, entries, weighed = features(boards)
        columns, values = design(discs, entries, weighed, tied)
        report("check", predict(w, columns, values), label, discs)
        if compared:
            report("weights read now, check", read_now(discs, entries, weighed), label, discs)
    data = patterns.encode(table(w, tied))
    write(data, args.out)
    mobility, tempo, parity = (
        ", ".join(f"{w[(s + 1) * tied[2] - k]:.2f}" for s in range(patterns.STAGES))
        for k in (3, 2, 1)
    )
    print(f"wrote {len(data)} bytes, {size} parameters; by stage, mobility weight: {mobility}")
    print(f"tempo weight: {tempo}")
    print(f"parity weight: {parity}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
