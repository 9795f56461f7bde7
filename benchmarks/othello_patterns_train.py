"""Fits Othello's `patterns` evaluation (engine/othello/patterns.py) to labelled self-play positions.

    .venv/bin/pip install numpy   # for the fit only: the engine never imports it
    .venv/bin/python benchmarks/othello_train.py generate --games 3000 --seed 37 --out DATA
    .venv/bin/python benchmarks/othello_patterns_train.py DATA [DATA ...]

The positions are those of benchmarks/othello_train.py `generate` (ubao's own games, every
position from 16 empties on labelled by the native exact solver, the earlier ones by the exact
result of their game's 16-empty position); nothing comes from another program. Each position
counts twice, as played and with the colours swapped (the label negated), so every table learns
both colours. Every stage is fitted at once by ridge-regularised least squares, solved by
conjugate gradients on the normal equations: some 1.1 million unknowns over a million rows of
47 non-zeros, which numpy's vector operations do in a minute or two where a Python loop would
take hours. A tenth of the positions (blocks of lines, so mostly whole games) is held out to
report the error. Writes engine/othello/pattern_weights.bin and its digest in
engine/othello/pattern_weights.py; then run `python -m ubao.engine.tools.native_constants` (the
instances' squares, should KINDS change) and rebuild the core.
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

Ints = NDArray[np.int64]
Floats = NDArray[np.float64]


def load(paths: list[Path]) -> tuple[NDArray[np.uint64], NDArray[np.uint64], Floats]:
    """Black's discs, White's and Black's final margin of every evaluated position."""
    rows = [np.loadtxt(path, dtype=np.uint64, usecols=(0, 1)) for path in paths]
    labels = [np.loadtxt(path, dtype=np.int64, usecols=3) for path in paths]
    boards = np.concatenate(rows)
    label = np.concatenate(labels).astype(np.float64)
    black, white = boards[:, 0], boards[:, 1]
    discs = _count(black | white)
    kept = discs <= patterns.LAST_DISCS
    return black[kept], white[kept], label[kept]


def _count(bits: NDArray[np.uint64]) -> Ints:
    return np.bitwise_count(bits).astype(np.int64)


def features(black: NDArray[np.uint64], white: NDArray[np.uint64]) -> tuple[Ints, Floats]:
    """Per position, each instance's column in the whole weight vector, and the mobility lead."""
    stage_base = (
        np.array([patterns.stage_of(int(d)) for d in range(65)])[_count(black | white)]
        * patterns.STAGE_SIZE
    )
    columns = np.empty((len(black), len(patterns.INSTANCES) + 1), dtype=np.int64)
    for k, (offset, squares) in enumerate(patterns.INSTANCES):
        index = np.zeros(len(black), dtype=np.int64)
        for square in squares:
            one = np.uint64(1)
            digit = (black >> np.uint64(square)) & one | ((white >> np.uint64(square)) & one) << one
            index = 3 * index + digit.astype(np.int64)
        columns[:, k] = stage_base + offset + index
    columns[:, -1] = stage_base + patterns.MOBILITY
    game = Othello({})
    mobility = np.array(
        [
            game._placements(b, w).bit_count() - game._placements(w, b).bit_count()
            for b, w in zip(black.tolist(), white.tolist(), strict=True)
        ],
        dtype=np.float64,
    )
    return columns, mobility


def fit(columns: Ints, mobility: Floats, label: Floats, ridge: float, rounds: int) -> Floats:
    """The weights (in discs) minimising squared error plus `ridge` times their squares."""
    size = patterns.STAGES * patterns.STAGE_SIZE
    values = np.ones(columns.shape, dtype=np.float64)
    values[:, -1] = mobility
    flat = columns.ravel()

    def forward(w: Floats) -> Floats:
        result: Floats = (w[columns] * values).sum(axis=1)
        return result

    def backward(r: Floats) -> Floats:
        return np.bincount(flat, weights=(values * r[:, None]).ravel(), minlength=size)

    def normal(w: Floats) -> Floats:
        return backward(forward(w)) + ridge * w

    w = np.zeros(size)
    residual = backward(label) - normal(w)
    direction = residual.copy()
    norm = residual @ residual
    for step in range(rounds):
        product = normal(direction)
        alpha = norm / (direction @ product)
        w += alpha * direction
        residual -= alpha * product
        new_norm = residual @ residual
        direction = residual + new_norm / norm * direction
        norm = new_norm
        if step % 25 == 24:
            print(f"  round {step + 1}: residual {np.sqrt(norm):.1f}", file=sys.stderr)
    return w


def report(name: str, w: Floats, columns: Ints, mobility: Floats, label: Floats) -> None:
    """Root mean square error per stage."""
    values = np.ones(columns.shape)
    values[:, -1] = mobility
    error = (w[columns] * values).sum(axis=1) - label
    stage = columns[:, -1] // patterns.STAGE_SIZE
    shown = " ".join(
        f"{s}:{np.sqrt(np.mean(error[stage == s] ** 2)):.2f}"
        for s in range(patterns.STAGES)
        if np.any(stage == s)
    )
    print(f"{name}: rms {np.sqrt(np.mean(error**2)):.2f} discs; by stage {shown}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path, nargs="+", help="othello_train.py generate output")
    parser.add_argument("--ridge", type=float, default=3.0, help="the penalty per weight")
    parser.add_argument("--rounds", type=int, default=300, help="conjugate gradient steps")
    args = parser.parse_args(argv)
    black, white, label = load(args.data)
    held = (np.arange(len(black)) // HELD_OUT_BLOCK) % 10 == 9
    black, white = np.concatenate([black, white]), np.concatenate([white, black])
    label = np.concatenate([label, -label])
    held = np.concatenate([held, held])
    columns, mobility = features(black, white)
    sample = np.random.default_rng(0).choice(len(black), 200)
    for i in sample:  # the vector indices are the evaluation's own
        expected = patterns.indices(int(black[i]), int(white[i]))
        stage = int(columns[i, -1]) - patterns.MOBILITY
        assert [int(c) - stage for c in columns[i, :-1]] == expected
    train = ~held
    print(f"{int(train.sum())} rows to fit, {int(held.sum())} held out", file=sys.stderr)
    w = fit(columns[train], mobility[train], label[train], args.ridge, args.rounds)
    report("fitted", w, columns[train], mobility[train], label[train])
    report("held out", w, columns[held], mobility[held], label[held])
    scaled = np.clip(np.rint(w * patterns.SCALE), -32767, 32767).astype(np.int64)
    data = patterns.encode(array("h", scaled.tolist()))
    (PACKAGE / patterns.WEIGHTS_FILE).write_bytes(data)
    (PACKAGE / "pattern_weights.py").write_text(
        '"""Generated by benchmarks/othello_patterns_train.py: do not edit. The SHA-256 of\n'
        'pattern_weights.bin as fitted, which engine/othello/patterns.py checks on loading."""\n'
        f'\nDIGEST = "{patterns.digest(data)}"\n'
    )
    mobility_weights = ", ".join(
        f"{w[s * patterns.STAGE_SIZE + patterns.MOBILITY]:.2f}" for s in range(patterns.STAGES)
    )
    print(f"wrote {len(data)} bytes; mobility weight by stage: {mobility_weights}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
