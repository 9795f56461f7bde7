"""A game's review in a process of its own (engine/protocols/review_process.py), as the server
and the engine worker run one: at the lowest CPU and I/O priority, its review or its failure
back, and its process ended when its caller gives up."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ubao.engine.protocols import review_process
from ubao.engine.protocols.review_process import lowest_priority, review_in_process
from ubao.engine.review import review_from_json

LINUX = pytest.mark.skipif(sys.platform != "linux", reason="Linux's scheduling classes")


@LINUX
def test_a_review_process_runs_at_the_lowest_cpu_and_io_priority() -> None:
    process = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        lowest_priority(process.pid)
        assert os.sched_getscheduler(process.pid) == os.SCHED_IDLE
        assert os.getpriority(os.PRIO_PROCESS, process.pid) == 19
        group = Path(f"/proc/{process.pid}/autogroup")  # where the kernel has autogroups
        assert not group.exists() or group.read_text().split()[-2:] == ["nice", "19"]
        io_class = subprocess.run(
            ["ionice", "-p", str(process.pid)], capture_output=True, text=True, check=False
        )
        assert io_class.returncode != 0 or io_class.stdout.strip() == "idle"
    finally:
        process.kill()
        process.wait()


async def test_the_review_comes_back_and_a_bad_job_says_why() -> None:
    """At a session's usual share (group nice 0): at 19 a machine that other work saturates
    would keep these reviews waiting, as it should."""
    job = {"game": "kalah", "options": {"pits": 1, "seeds": 1}, "moves": ["1"], "time_ms": 20}
    review = review_from_json(await review_in_process(job, 0))
    assert [ply.move for ply in review.plies] == ["1"]
    with pytest.raises(RuntimeError, match="ply 1"):
        await review_in_process({**job, "moves": ["7"]}, 0)


@LINUX
async def test_a_review_given_up_ends_its_process(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[int] = []

    def heard(pid: int, group_nice: int) -> None:
        started.append(pid)
        lowest_priority(pid, group_nice)

    monkeypatch.setattr(review_process, "lowest_priority", heard)
    moves = ["1", "1", "2", "1"]  # Kalah (6,4), searched for a minute a move
    job = {"game": "kalah", "options": {}, "moves": moves, "time_ms": 60_000, "exact_within": 0}
    task = asyncio.create_task(review_in_process(job))
    while not started:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    deadline = time.monotonic() + 5
    while os.path.exists(f"/proc/{started[0]}"):  # reaped: gone from /proc
        assert time.monotonic() < deadline, "the review's process outlived its caller"
        await asyncio.sleep(0.01)
