"""The analyses of finished games, run at low priority (the core queues them as `AnalysisJob`s,
server/analyses.py): games always go first.

A job starts only while no bot turn waits for an engine, and at most `engines` run at once; of
the jobs waiting, the next is the oldest of the address that has the fewest running, so one
address's analyses cannot hold the others' back. On one node a job is a process of its own at the
lowest CPU priority (engine/protocols/review_process.py): a bot's engine or the server itself
that wants a core gets it, and the analysis takes what is left.
In a cluster it is a job for the engine workers (`WorkerPool.review`). Either way the review
comes back as `review_to_json` wrote it, is turned into the wire's `GameAnalysis` and handed
to the core (`Core.analysed`), or the failure is (`Core.analysis_failed`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from ubao.engine.protocols.review_process import review_in_process
from ubao.engine.protocols.wire import game_analysis
from ubao.engine.review import review_from_json
from ubao.protocol import GameAnalysis
from ubao.server.outputs import AnalysisJob

log = logging.getLogger("ubao.server.analyses")

IDLE_POLL_S = 0.25
"""While bot turns wait for engines, how often a waiting analysis looks again."""

Review = Callable[[AnalysisJob], Awaitable[dict[str, Any]]]
"""Runs one job: the review's JSON, or an exception saying why not."""


def job_of(job: AnalysisJob) -> dict[str, Any]:
    """What the review job reads (engine/tools/review_job.py)."""
    return {
        "game": job.game,
        "options": job.options,
        "moves": list(job.moves),
        "time_ms": job.time_ms,
    }


def review_locally(group_nice: int) -> Review:
    """Review games in processes of this machine's at the lowest priority, their scheduling
    group at `group_nice`."""

    async def review(job: AnalysisJob) -> dict[str, Any]:
        return await review_in_process(job_of(job), group_nice)

    return review


class AnalysisRuns:
    """The queue of analysis jobs and the ones running."""

    def __init__(
        self,
        review: Review,
        busy: Callable[[], bool],
        done: Callable[[str, GameAnalysis], None],
        failed: Callable[[str, str], None],
        engines: int = 1,
    ) -> None:
        self.review = review
        self.busy = busy
        """Whether a bot turn waits for an engine now: then no analysis starts."""
        self.done = done
        self.failed = failed
        self.engines = engines
        """Analyses running at once at most."""
        self.waiting: list[AnalysisJob] = []
        self.running: dict[str, tuple[AnalysisJob, asyncio.Task[None]]] = {}
        """The jobs running, by game id."""
        self._pump: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()

    def add(self, job: AnalysisJob) -> None:
        self.waiting.append(job)
        self._changed.set()
        if self._pump is None:
            self._pump = asyncio.create_task(self._start_jobs())

    async def close(self) -> None:
        """Stop: the jobs running end (their processes killed), the waiting ones are dropped."""
        tasks = [task for _, task in self.running.values()]
        if self._pump is not None:
            tasks.append(self._pump)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.waiting.clear()

    def next_job(self) -> AnalysisJob | None:
        """The oldest job of the address with the fewest jobs running, if one may start now."""
        if not self.waiting or len(self.running) >= self.engines or self.busy():
            return None
        running = [job.share for job, _ in self.running.values()]
        return min(self.waiting, key=lambda job: running.count(job.share))

    async def _start_jobs(self) -> None:
        """Start jobs as they may; look again at each change, and every IDLE_POLL_S while
        bot turns hold the engines."""
        while True:
            job = self.next_job()
            if job is None:
                self._changed.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(IDLE_POLL_S if self.waiting else None):
                        await self._changed.wait()
                continue
            self.waiting.remove(job)
            self.running[job.game_id] = (job, asyncio.create_task(self._run(job)))

    async def _run(self, job: AnalysisJob) -> None:
        log.info("analysing game %s (%d moves)", job.game_id, len(job.moves))
        try:
            data = await self.review(job)
            analysis = game_analysis(review_from_json(data), job.time_ms)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the review's failure, or what it sent cannot be read
            self.failed(job.game_id, str(exc) or type(exc).__name__)
        else:
            log.info("game %s analysed", job.game_id)
            self.done(job.game_id, analysis)
        finally:
            del self.running[job.game_id]
            self._changed.set()
