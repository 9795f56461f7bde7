"""`ubao-engine worker`: an engine worker of a cluster (docs/cluster.md, "Engine workers").

Server nodes queue their bot seats' turns as jobs on a Redis stream; workers on any machine take
them through one consumer group, think and answer. A job is the engine line protocol itself
(docs/engine-protocol.md): the lines a local engine is told before a search (`position`,
`setoption`), the `go` line, and the node's time budget. The worker feeds them to the stdio
engine's `EngineSession` in this process: no pipes and no second process, and since the search runs
in a thread of its own (the native core's without the GIL), the event loop keeps the job's
claim fresh while it thinks. The answer is the engine's last `info` line and its `bestmove`.

A worker touches its claim on a job every second; a job nobody touched for 5 s belongs to a
dead worker, and the next worker that looks for work takes it over. A job the node withdrew (its
answer came, the game ended, the node gave up) is deleted from the stream: its worker notices at
its next touch and stops thinking. The redis package is imported only when a worker starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import signal
import socket
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ubao.engine.protocols.session import EngineSession
from ubao.engine.protocols.ubao import EngineProtocolError, parse_go
from ubao.protocol.jobs import JOB_STREAM, WORKER_GROUP

if TYPE_CHECKING:
    from redis.asyncio import Redis

log = logging.getLogger("ubao.engine.worker")

TOUCH_S = 1.0
"""How often a worker touches its claim on the job it thinks about."""
RECLAIM_AFTER_MS = 5000
"""A job untouched this long belongs to a dead worker: another one takes it over."""
POLL_MS = 1000
"""How long a worker waits for a new job before it looks for a dead worker's again."""
REPLY_TTL_S = 60
"""A node's reply list outlives its last reply by this long, so a dead node's is not kept."""
RETRY_S = 1.0
"""After Redis failed, the wait before the worker tries again."""

TOUCH = """
if #redis.call('XRANGE', KEYS[1], ARGV[3], ARGV[3]) == 0 then
  redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
  return 0
end
local pending = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)
if #pending == 0 or pending[1][2] ~= ARGV[2] then
  return 0
end
redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'JUSTID')
return 1
"""
"""Touch a claim, atomically: 1 if the job is still this worker's, 0 if it was withdrawn (then
it leaves the worker's pending list) or another worker took it over meanwhile."""


class JobError(ValueError):
    """A stream entry that is not a job this worker understands."""


@dataclass(frozen=True, slots=True)
class Job:
    """One bot turn to think about, as a node wrote it (docs/cluster.md has the fields)."""

    entry: str
    """The stream entry's id."""
    id: str
    """The node's name for it, repeated in every reply."""
    reply: str
    """The list the replies go to."""
    game_id: str
    setup: tuple[str, ...]
    go: str
    budget_s: float
    """When the search is told to `stop`, from when the worker took the job."""
    grace_s: float
    """After `stop`, how long the search has to answer."""

    @classmethod
    def parse(cls, entry: str, fields: Mapping[str, str]) -> Job:
        try:
            job = cls(
                entry=entry,
                id=fields["job"],
                reply=fields["reply"],
                game_id=fields["game"],
                setup=tuple(fields["setup"].split("\n")),
                go=fields["go"],
                budget_s=int(fields["budget_ms"]) / 1000,
                grace_s=int(fields["grace_ms"]) / 1000,
            )
        except (KeyError, ValueError) as exc:
            raise JobError(f"stream entry {entry}: not a job ({exc!r})") from None
        if not job.go.startswith("go"):
            raise JobError(f"stream entry {entry}: {job.go!r} is not a go line")
        return job


class Failed(Exception):
    """The search gave no `bestmove`; `info` is the engine's last `info` line, if any."""

    def __init__(self, why: str, info: str | None = None) -> None:
        super().__init__(why)
        self.info = info


class Stuck(Failed):
    """The search ignores `stop`: this process can think no more (its supervisor restarts it)."""


class Thinker:
    """The stdio engine's `EngineSession`, in this process, for one job at a time."""

    def __init__(self, hash_mb: int, backend: str | None) -> None:
        loop = asyncio.get_running_loop()
        self._lines: asyncio.Queue[str] = asyncio.Queue()

        def write(line: str) -> None:  # from the search thread too
            loop.call_soon_threadsafe(self._lines.put_nowait, line)

        self.session = EngineSession(write, backend)
        self.session.handle(f"setoption name Hash value {hash_mb}")
        self.game_id: str | None = None
        """The game it last searched for: another one starts with `ucinewgame`."""

    async def think(self, job: Job) -> tuple[str | None, str]:
        """The last `info` line and the `bestmove` line of the job's search, which is told to
        `stop` at the job's budget; Failed if none came, as for a driver of the stdio engine."""
        while not self._lines.empty():  # what a search that failed to answer in time wrote late
            self._lines.get_nowait()
        if job.game_id != self.game_id:
            self.session.handle("ucinewgame")
            self.game_id = job.game_id
        for line in job.setup:
            self.session.handle(line)
        self.session.handle("isready")
        # Every reply to the setup comes before `readyok`: an `error` refuses a line of it.
        refused = None
        while (line := await self._lines.get()) != "readyok":
            if line.startswith("error") and refused is None:
                refused = line
        if refused is not None:
            self.game_id = None  # the next job starts afresh
            raise Failed(f"engine refused a command: {refused!r}")
        try:
            parse_go(job.go.split()[1:])
        except EngineProtocolError as exc:
            raise Failed(f"engine refused {job.go!r}: {exc}") from None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + job.budget_s
        self.session.handle(job.go)
        stopped = False
        info: str | None = None
        try:
            while True:
                left = deadline - loop.time()
                if left <= 0:
                    if stopped:
                        raise self._no_answer(info)
                    self._stop()
                    stopped = True
                    deadline = loop.time() + job.grace_s
                    continue
                try:
                    async with asyncio.timeout(left):
                        line = await self._lines.get()
                except TimeoutError:
                    continue
                if line.startswith("info "):
                    info = line
                elif line.startswith("bestmove"):
                    return info, line
                elif line.startswith("error"):
                    log.warning("job %s: engine says %r; waiting for its bestmove", job.id, line)
        except asyncio.CancelledError:  # withdrawn, or the worker stops: end the search first
            await self._end_search(job.grace_s)
            raise

    async def _end_search(self, grace_s: float) -> None:
        """Stop the running search, if any; Stuck if it does not end within `grace_s`."""
        if not self.session.searching:
            return
        self._stop()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace_s
        while self.session.searching:
            if loop.time() > deadline:
                raise self._no_answer(None)
            await asyncio.sleep(0.02)

    def _stop(self) -> None:
        """`stop` waits for the search thread: it runs in a thread of its own, so that the event
        loop does not, and a daemon one, so that a search that never ends cannot hold the exit."""
        threading.Thread(target=self.session.handle, args=("stop",), daemon=True).start()

    def _no_answer(self, info: str | None) -> Failed:
        if self.session.searching:
            return Stuck("the search does not stop", info)
        return Failed("no bestmove even after stop", info)


class Worker:
    """Takes jobs from the stream, one at a time, until told to stop."""

    def __init__(self, redis: Redis, thinker: Thinker, name: str) -> None:
        self.redis = redis
        self.thinker = thinker
        self.name = name
        self._touch = redis.register_script(TOUCH)
        self.stopping = asyncio.Event()
        """Set to stop: a flag the loop checks at least every second, not a cancellation,
        which redis-py may swallow in the middle of a blocking command."""

    async def run(self) -> None:
        """Work until `stopping`; Stuck ends it (the search of this process cannot stop)."""
        from redis.exceptions import RedisError

        joined = False
        while not self.stopping.is_set():
            try:
                if not joined:
                    await self._join()
                    joined = True
                taken = await self._take()
                if taken is not None:
                    await self._work(*taken)
            except RedisError as exc:  # Redis is down or restarting: wait for it
                log.warning("redis: %s; trying again in %g s", exc, RETRY_S)
                await asyncio.sleep(RETRY_S)
                joined = False

    async def leave(self) -> None:
        """Leave the group if no job is pending here (one released is taken over instead)."""
        if not await self.redis.xpending_range(JOB_STREAM, WORKER_GROUP, "-", "+", 1, self.name):
            await self.redis.xgroup_delconsumer(JOB_STREAM, WORKER_GROUP, self.name)

    async def _join(self) -> None:
        """Create the group if no node or worker has yet, from the stream's start (a job queued
        before it existed is still a job)."""
        from redis.exceptions import ResponseError

        try:
            await self.redis.xgroup_create(JOB_STREAM, WORKER_GROUP, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise

    async def _take(self) -> tuple[str, dict[str, str]] | None:
        """A dead worker's job first, else a new one (waiting up to POLL_MS for it)."""
        claimed: Any = await self.redis.xautoclaim(
            JOB_STREAM, WORKER_GROUP, self.name, RECLAIM_AFTER_MS, "0-0", count=1
        )
        for entry, fields in claimed[1]:
            log.info("taking over job %s from a worker that stopped touching it", entry)
            return entry, fields
        read: Any = await self.redis.xreadgroup(
            WORKER_GROUP, self.name, {JOB_STREAM: ">"}, count=1, block=POLL_MS
        )
        for _, entries in read:
            for entry, fields in entries:
                return entry, fields
        return None

    async def _work(self, entry: str, fields: dict[str, str]) -> None:
        try:
            job = Job.parse(entry, fields)
        except JobError as exc:
            log.error("%s; dropped", exc)
            await self._finish(entry)
            return
        log.info("job %s (game %s): %s", job.id, job.game_id, job.go)
        await self._reply(job, {"event": "taken"})
        thinking = asyncio.create_task(self.thinker.think(job))
        stopping = asyncio.create_task(self.stopping.wait())
        try:
            while thinking not in (done := await self._wait(thinking, stopping)):
                if stopping in done:  # the job is left for another worker
                    await self._abandon(thinking)
                    await self._release(job)
                    return
                if not await self._touch(
                    keys=[JOB_STREAM], args=[WORKER_GROUP, self.name, job.entry]
                ):
                    log.info("job %s: withdrawn or taken over; stopping its search", job.id)
                    await self._abandon(thinking)
                    return
        except BaseException:  # Redis failed, or the worker was cancelled
            await self._abandon(thinking)
            with contextlib.suppress(Exception):
                await self._release(job)
            raise
        finally:
            stopping.cancel()
        try:
            info, bestmove = thinking.result()
            reply: dict[str, Any] = {"event": "bestmove", "info": info, "bestmove": bestmove}
            log.info("job %s: %s", job.id, bestmove)
        except Stuck as exc:
            await self._reply(job, {"event": "failed", "why": str(exc), "info": exc.info})
            await self._finish(job.entry)
            raise
        except Failed as exc:
            log.warning("job %s: %s", job.id, exc)
            reply = {"event": "failed", "why": str(exc), "info": exc.info}
        await self._reply(job, reply)
        await self._finish(job.entry)

    @staticmethod
    async def _wait(*tasks: asyncio.Task[Any]) -> set[asyncio.Task[Any]]:
        """The tasks done within a touch's interval."""
        done, _ = await asyncio.wait(tasks, timeout=TOUCH_S, return_when=asyncio.FIRST_COMPLETED)
        return done

    @staticmethod
    async def _abandon(thinking: asyncio.Task[tuple[str | None, str]]) -> None:
        """End the job's search (Stuck propagates: the process can think no more)."""
        thinking.cancel()
        try:
            await thinking
        except (asyncio.CancelledError, Failed) as exc:
            if isinstance(exc, Stuck):
                raise

    async def _reply(self, job: Job, message: dict[str, Any]) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.rpush(job.reply, json.dumps({"job": job.id, "worker": self.name, **message}))
            pipe.expire(job.reply, REPLY_TTL_S)
            await pipe.execute()

    async def _finish(self, entry: str) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.xack(JOB_STREAM, WORKER_GROUP, entry)
            pipe.xdel(JOB_STREAM, entry)
            await pipe.execute()

    async def _release(self, job: Job) -> None:
        """Make the job look untouched for long enough: the next worker to look takes it."""
        await self.redis.xclaim(
            JOB_STREAM, WORKER_GROUP, self.name, 0, [job.entry], idle=RECLAIM_AFTER_MS, justid=True
        )
        log.info("job %s: released for another worker", job.id)


def worker_name() -> str:
    """Unique in the group: a restarted worker (pid 1 again, in a container) is a new one."""
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"


async def serve(redis_url: str, hash_mb: int, backend: str | None) -> None:
    """Run a worker until SIGTERM or Ctrl-C."""
    from redis.asyncio import Redis

    redis = Redis.from_url(redis_url, decode_responses=True, socket_connect_timeout=10)
    worker = Worker(redis, Thinker(hash_mb, backend), worker_name())
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, worker.stopping.set)
    log.info("worker %s: taking jobs from %s", worker.name, redis_url)
    try:
        await worker.run()
    finally:
        log.info("worker %s: stopping", worker.name)
        with contextlib.suppress(Exception):
            await worker.leave()
        await redis.aclose()
