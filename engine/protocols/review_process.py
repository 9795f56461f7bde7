"""A finished game's review in a process of its own at the lowest CPU priority: how the server
(server/analysis_runs.py) and the cluster's engine worker (engine/tools/worker.py) run one, so
that a review never holds a core, a thread or an engine that a game's move needs.

The process is `python -m ubao.engine.tools.review_job` (the job on stdin as JSON, the review on
stdout), with this interpreter. Once started it is put in Linux's idle scheduling class
(`SCHED_IDLE`, which runs only on a core nothing else wants and yields it at once), else at
nice 19, and its disk reads and writes in the idle I/O class where Linux has it (the endgame
database it may build competes with no game's writes). It runs in a session of its own, whose
scheduling group (Linux's autogroup, one per session) is at nice 19 unless told otherwise: in
the server's group its CPU time would count against the server's share of a machine that other
sessions load, and the server's moves would wait for it (the load benchmark measured that,
docs/benchmarks.md). It is killed when it outlives its budget or its caller gives up
(cancelled); its own session also keeps a terminal's Ctrl-C, meant for the server, from it."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import os
import sys
from collections.abc import Mapping
from typing import Any

REVIEW_COMMAND = (sys.executable, "-m", "ubao.engine.tools.review_job")
"""The review of one game, run with this interpreter."""
IOPRIO_SET = {"x86_64": 251, "aarch64": 30}
"""Linux's `ioprio_set` system call, by machine (Python has no wrapper)."""
IOPRIO_IDLE = 3 << 13
"""`IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0)`: disk time only when no other process wants it."""


def lowest_priority(pid: int, group_nice: int = 19) -> None:
    """Put process `pid` in the idle CPU scheduling class (else nice 19) and the idle I/O class,
    and its session's autogroup at `group_nice` (it leads one of its own: `start_new_session`).
    Done from the parent once the process is started, not in it before it runs
    (`preexec_fn`), which is not safe in a process with threads."""
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, pid, 19)
    with contextlib.suppress(OSError), open(f"/proc/{pid}/autogroup", "w") as group:
        group.write(str(group_nice))
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0))
    number = IOPRIO_SET.get(os.uname().machine) if sys.platform == "linux" else None
    if number is not None:
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).syscall(number, 1, pid, IOPRIO_IDLE)  # IOPRIO_WHO_PROCESS


def review_budget_s(moves: int, time_ms: int) -> float:
    """How long a review may take before it is killed: three times the time of its moves (a
    ply searches its position and the played move, and the solver's checks take their share),
    and a minute (the interpreter, the endgame database)."""
    return 60 + 3 * moves * time_ms / 1000


async def review_in_process(job: Mapping[str, Any], group_nice: int = 19) -> dict[str, Any]:
    """Review the job's game (engine/tools/review_job.py) in a process of its own at the lowest
    priority, its scheduling group at `group_nice` (19: the lowest; lower gives the review a
    share of a machine that other sessions saturate, at the cost of the games' latency): its
    review's JSON, or RuntimeError saying why not."""
    process = await asyncio.create_subprocess_exec(
        *REVIEW_COMMAND,
        start_new_session=True,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    lowest_priority(process.pid, group_nice)
    budget_s = review_budget_s(len(job["moves"]), int(job["time_ms"]))
    try:
        async with asyncio.timeout(budget_s):
            out, err = await process.communicate(json.dumps(dict(job)).encode())
    except TimeoutError:
        raise RuntimeError(f"the review took more than {budget_s:g} s") from None
    finally:
        if process.returncode is None:  # out of time, or the caller gives up
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
    if process.returncode != 0:
        why = err.decode(errors="replace").strip().splitlines()
        raise RuntimeError(why[-1] if why else f"the review exited with {process.returncode}")
    data: dict[str, Any] = json.loads(out)
    return data
