"""A game's review as a job of the server's: the game, its options, its moves, the time per
move and where to prove values (`exact_within`, optional) in, the review out (`review_to_json`),
both JSON. `ubao-server` and a cluster's engine worker run it in a process of its own at the lowest
priority (`python -m ubao.engine.tools.review_job`, the job on stdin, the review on stdout:
engine/protocols/review_process.py). docs/server.md ("Analyses") says how the server
schedules it."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

from ubao.engine.review import ReviewBudget, review_game, review_to_json


def run_review_job(job: Mapping[str, Any]) -> dict[str, Any]:
    """Review the job's game (blocking: the search); ValueError when the job is malformed or a
    move is illegal."""
    try:
        game, options, moves = str(job["game"]), dict(job["options"]), list(job["moves"])
        time_ms = int(job["time_ms"])
        reach = job.get("exact_within")
        exact_within = None if reach is None else int(reach)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"not a review job: {exc!r}") from None
    if not all(isinstance(move, str) for move in moves) or time_ms < 1:
        raise ValueError("not a review job: moves must be text and time_ms at least 1")
    budget = ReviewBudget(time_ms=time_ms, exact_within=exact_within)
    review = review_game(game, options, moves, budget)
    return review_to_json(review)


def main() -> None:
    """Read one job from stdin, write its review to stdout; a bad job exits with status 2 and
    says why on stderr."""
    try:
        review = run_review_job(json.load(sys.stdin))
    except ValueError as exc:
        print(f"review job: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    json.dump(review, sys.stdout, separators=(",", ":"))


if __name__ == "__main__":
    main()
