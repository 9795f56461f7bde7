"""`ubao-engine worker`: an engine worker of a cluster (docs/cluster.md, "Engine workers").

Server nodes queue their bot seats' turns as jobs on a Redis stream; workers on any machine take
them through one consumer group, think and answer. A job is the engine line protocol itself
(docs/engine-protocol.md): the lines a local engine is told before a search (`position`,
`setoption`), the `go` line, and the node's time budget. The worker reads them with the
engine-protocol library (`read_search`) and searches with its `EngineClient` over a
`SessionTransport`: the stdio engine's `EngineSession` in this process, no pipes and no second
process, and since the search runs in a thread of its own (the native core's without the GIL),
the event loop keeps the job's claim fresh while it thinks. The answer is the engine's last
`info` line and its `bestmove`.

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
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ubao.engine.protocols.client import EngineClient, EngineFailure
from ubao.engine.protocols.review_process import review_in_process
from ubao.engine.protocols.session import read_search
from ubao.engine.protocols.transports import SessionTransport
from ubao.engine.protocols.ubao import EngineProtocolError, UbaoDialect, format_info
from ubao.protocol.jobs import JOB_STREAM, LOW_JOB_STREAM, WORKER_GROUP

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
START_TIMEOUT_S = 30.0
"""For the engine in this process to answer its handshake and options."""

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
    stream: str = JOB_STREAM

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


@dataclass(frozen=True, slots=True)
class ReviewJob:
    """A finished game to review (a job of kind `review`, on `LOW_JOB_STREAM`): the review
    job's JSON (engine/tools/review_job.py), answered with the review's."""

    entry: str
    id: str
    reply: str
    game_id: str
    review: dict[str, Any]
    stream: str = LOW_JOB_STREAM

    @classmethod
    def parse(cls, entry: str, fields: Mapping[str, str]) -> ReviewJob:
        try:
            review = json.loads(fields["review"])
            job = cls(entry, fields["job"], fields["reply"], fields["game"], review)
        except (KeyError, ValueError) as exc:
            raise JobError(f"stream entry {entry}: not a review job ({exc!r})") from None
        if not isinstance(job.review, dict):
            raise JobError(f"stream entry {entry}: its review is not a map")
        return job


class Failed(Exception):
    """The search gave no `bestmove`; `info` is the engine's last `info` line, if any."""

    def __init__(self, why: str, info: str | None = None) -> None:
        super().__init__(why)
        self.info = info


class Stuck(Failed):
    """The search ignores `stop`: this process can think no more (its supervisor restarts it)."""


class Thinker:
    """The stdio engine in this process, driven by the library's client, one job at a time."""

    def __init__(self, client: EngineClient, transport: SessionTransport, backend: str | None):
        self.client = client
        self.transport = transport
        self.backend = backend
        self.game_id: str | None = None
        """The game it last searched for: another one starts with a new game."""

    @classmethod
    async def start(cls, hash_mb: int, backend: str | None) -> Thinker:
        transport = SessionTransport(backend)
        client = await EngineClient.start(transport, UbaoDialect(), START_TIMEOUT_S, "engine")
        await client.configure({"Hash": str(hash_mb)})
        return cls(client, transport, backend)

    async def think(self, job: Job) -> tuple[str | None, str]:
        """The last `info` line and the `bestmove` line of the job's search, which is told to
        `stop` at the job's budget; Failed if none came, as for a driver of the stdio engine."""
        try:
            position, limits, options = read_search(job.setup, job.go, self.backend)
        except EngineProtocolError as exc:
            raise Failed(f"engine refused the job's lines: {exc}") from None
        client = self.client
        try:
            if job.game_id != self.game_id:
                await client.new_game()
                self.game_id = job.game_id
            await client.configure(options)
            result = await client.play(
                position, limits, budget_s=job.budget_s, stop_grace_s=job.grace_s
            )
        except EngineFailure as exc:
            self.game_id = None  # the next job starts afresh
            info = None if exc.info is None else format_info(exc.info)
            if self.transport.session.searching:
                raise Stuck("the search does not stop", info) from None
            raise Failed(str(exc), info) from None
        except asyncio.CancelledError:  # withdrawn, or the worker stops: end the search first
            await self._end_search(job.grace_s)
            raise
        info = None if result.info is None else format_info(result.info)
        return info, f"bestmove {result.move or 'none'}"

    async def _end_search(self, grace_s: float) -> None:
        """Stop the running search, if any; Stuck if it does not end within `grace_s`."""
        session = self.transport.session
        if not session.searching:
            return
        await self.transport.send("stop")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace_s
        while session.searching:
            if loop.time() > deadline:
                raise Stuck("the search does not stop")
            await asyncio.sleep(0.02)


class Worker:
    """Takes bot turns from the stream, one at a time, until told to stop; and beside them one
    review at a time, in a process of its own at the lowest priority, so that a bot turn never
    waits behind a review."""

    def __init__(self, redis: Redis, thinker: Thinker, name: str, review_nice: int = 19) -> None:
        self.redis = redis
        self.thinker = thinker
        self.name = name
        self.review_nice = review_nice
        """The nice of the scheduling group of this worker's reviews (review_process.py)."""
        self._touch = redis.register_script(TOUCH)
        self.stopping = asyncio.Event()
        """Set to stop: a flag the loop checks at least every second, not a cancellation,
        which redis-py may swallow in the middle of a blocking command."""
        self.reviewing: asyncio.Task[None] | None = None
        """The review running beside the bot turns, if any."""

    async def run(self) -> None:
        """Work until `stopping`; Stuck ends it (the search of this process cannot stop)."""
        from redis.exceptions import RedisError

        joined = False
        try:
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
        finally:
            reviewing = self.reviewing
            if reviewing is not None:  # told to stop, it hands its job on within TOUCH_S
                if not self.stopping.is_set():
                    reviewing.cancel()
                await asyncio.gather(reviewing, return_exceptions=True)

    async def leave(self) -> None:
        """Leave the group if no job is pending here (one released is taken over instead)."""
        for stream in (JOB_STREAM, LOW_JOB_STREAM):
            if not await self.redis.xpending_range(stream, WORKER_GROUP, "-", "+", 1, self.name):
                await self.redis.xgroup_delconsumer(stream, WORKER_GROUP, self.name)

    async def _join(self) -> None:
        """Create the group if no node or worker has yet, from the stream's start (a job queued
        before it existed is still a job)."""
        from redis.exceptions import ResponseError

        for stream in (JOB_STREAM, LOW_JOB_STREAM):
            try:
                await self.redis.xgroup_create(stream, WORKER_GROUP, id="0", mkstream=True)
            except ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise

    async def _take(self) -> tuple[str, str, dict[str, str]] | None:
        """A dead worker's job first, else a new one (waiting up to POLL_MS for it); a job of
        `LOW_JOB_STREAM` only when `JOB_STREAM` has none and no review runs here: (stream,
        entry, fields)."""
        streams: list[tuple[str, int | None]] = [(JOB_STREAM, POLL_MS)]
        if self.reviewing is None:
            streams.append((LOW_JOB_STREAM, None))
        for stream, block in streams:
            claimed: Any = await self.redis.xautoclaim(
                stream, WORKER_GROUP, self.name, RECLAIM_AFTER_MS, "0-0", count=1
            )
            for entry, fields in claimed[1]:
                log.info("taking over job %s from a worker that stopped touching it", entry)
                return stream, entry, fields
            read: Any = await self.redis.xreadgroup(
                WORKER_GROUP, self.name, {stream: ">"}, count=1, block=block
            )
            for _, entries in read:
                for entry, fields in entries:
                    return stream, entry, fields
        return None

    async def _work(self, stream: str, entry: str, fields: dict[str, str]) -> None:
        if stream == LOW_JOB_STREAM:
            self.reviewing = asyncio.create_task(self._review(entry, fields))
            return
        try:
            job = Job.parse(entry, fields)
        except JobError as exc:
            log.error("%s; dropped", exc)
            await self._finish(stream, entry)
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
                if not await self._touched(job):
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
            await self._finish(job.stream, job.entry)
            raise
        except Failed as exc:
            log.warning("job %s: %s", job.id, exc)
            reply = {"event": "failed", "why": str(exc), "info": exc.info}
        await self._reply(job, reply)
        await self._finish(job.stream, job.entry)

    async def _review(self, entry: str, fields: dict[str, str]) -> None:
        """Review a finished game in a process of its own at the lowest priority while this
        worker goes on taking bot turns, touching the claim meanwhile; a job withdrawn or left
        for another worker ends its process unanswered. Redis failing leaves the job to
        another worker (its claim goes untouched)."""
        from redis.exceptions import RedisError

        reviewing: asyncio.Task[dict[str, Any]] | None = None
        try:
            try:
                job = ReviewJob.parse(entry, fields)
            except JobError as exc:
                log.error("%s; dropped", exc)
                await self._finish(LOW_JOB_STREAM, entry)
                return
            log.info("review job %s (game %s)", job.id, job.game_id)
            await self._reply(job, {"event": "taken"})
            reviewing = asyncio.create_task(review_in_process(job.review, self.review_nice))
            while not (await self._wait(reviewing)):
                if self.stopping.is_set() or not await self._touched(job):
                    log.info("review job %s: left for another worker, or withdrawn", job.id)
                    if self.stopping.is_set():
                        await self._release(job)
                    return
            reply: dict[str, Any]
            try:
                reply = {"event": "reviewed", "review": json.dumps(reviewing.result())}
            except Exception as exc:  # an illegal move, or a bug of the review: the node hears
                log.warning("review job %s: %s", job.id, exc)
                reply = {"event": "failed", "why": str(exc) or type(exc).__name__}
            await self._reply(job, reply)
            await self._finish(job.stream, job.entry)
        except RedisError as exc:
            log.warning(
                "review job of stream entry %s: redis: %s; left to another worker", entry, exc
            )
        finally:
            self.reviewing = None
            if reviewing is not None:  # its process killed if it still runs
                reviewing.cancel()
                await asyncio.gather(reviewing, return_exceptions=True)

    async def _touched(self, job: Job | ReviewJob) -> bool:
        """Touch the claim on the job: False if it was withdrawn or taken over."""
        return bool(await self._touch(keys=[job.stream], args=[WORKER_GROUP, self.name, job.entry]))

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

    async def _reply(self, job: Job | ReviewJob, message: dict[str, Any]) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.rpush(job.reply, json.dumps({"job": job.id, "worker": self.name, **message}))
            pipe.expire(job.reply, REPLY_TTL_S)
            await pipe.execute()

    async def _finish(self, stream: str, entry: str) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.xack(stream, WORKER_GROUP, entry)
            pipe.xdel(stream, entry)
            await pipe.execute()

    async def _release(self, job: Job | ReviewJob) -> None:
        """Make the job look untouched for long enough: the next worker to look takes it."""
        await self.redis.xclaim(
            job.stream, WORKER_GROUP, self.name, 0, [job.entry], idle=RECLAIM_AFTER_MS, justid=True
        )
        log.info("job %s: released for another worker", job.id)


def worker_name() -> str:
    """Unique in the group: a restarted worker (pid 1 again, in a container) is a new one."""
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"


async def serve(redis_url: str, hash_mb: int, backend: str | None, review_nice: int = 19) -> None:
    """Run a worker until SIGTERM or Ctrl-C; its reviews' scheduling group at `review_nice`."""
    from redis.asyncio import Redis

    redis = Redis.from_url(redis_url, decode_responses=True, socket_connect_timeout=10)
    worker = Worker(redis, await Thinker.start(hash_mb, backend), worker_name(), review_nice)
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
