"""Server-hosted bot seats in a cluster: each bot turn is a job for the engine workers
(`ubao-engine worker`, engine/tools/worker.py) on a Redis stream, instead of a local engine.

A job carries the very lines a local engine is told (docs/engine-protocol.md), the `go` line and
the time budget, written by the engine-protocol library (`search_lines`), which also reads the
answer's lines; the worker that takes it says so (`taken`), thinks and answers with the engine's
last `info` line and its `bestmove`, on this node's reply list, which one task reads for every
waiting turn. The node keeps the deadlines and attempts of the local pool (`BotSeats.play`): a
job nobody takes within `start_timeout_s`, or whose answer does not come within the budget, the
stop grace and the time another worker needs to take over from a dead one (`HANDOFF_S`), is a
failed attempt, and it is withdrawn (deleted from the stream), as is every job once its turn has
an answer or its game ended. A worker that dies mid-search is replaced without a failed attempt:
the one taking its job over says `taken` again, which starts the deadline afresh. A late or
duplicate answer finds nobody waiting and is dropped. docs/cluster.md ("Engine workers") has the
job and reply formats.

A job is no engine `Transport` of the library: it is one request and one answer, not a
conversation. The node cannot tell a running job to `stop` (the worker stops its search at the
job's budget itself), nothing answers a handshake or a sync, and its deadlines start afresh
when a worker takes the job (or takes it over): an engine client's deadlines would not fit.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import secrets
from typing import TYPE_CHECKING, Any

from ubao.engine.protocols.client import EngineFailure
from ubao.engine.protocols.results import Info
from ubao.engine.protocols.review_process import review_budget_s
from ubao.engine.protocols.ubao import parse_bestmove, parse_info, search_lines
from ubao.engine.protocols.wire import bot_info
from ubao.protocol.jobs import JOB_STREAM, LOW_JOB_STREAM, WORKER_GROUP
from ubao.server.analysis_runs import job_of
from ubao.server.bots import Answer, BotSeats, BotSettings, Engine, SeatSearch
from ubao.server.outputs import AnalysisJob, BotTurn

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from redis.asyncio import Redis

log = logging.getLogger("ubao.server.workers")

HANDOFF_S = 8.0
"""Time for another worker to take over the job of one that died: workers take over a job
untouched for 5 s, and look for one at least every second."""
REVIEW_START_S = 600.0
"""How long an analysis waits for a worker to take it (workers take one only when no bot turn
waits) before it fails: its asker may ask again."""
READ_TIMEOUT_S = 1.0
"""How long one read of the reply list blocks (the reader checks for its end in between)."""
READER_RETRY_S = 1.0
"""After Redis failed, the wait before the reply reader tries again."""


class WorkerPool(BotSeats):
    """Bot seats answered by engine workers over Redis; the same interface as `Bots`."""

    def __init__(self, redis_url: str, settings: BotSettings) -> None:
        from redis.asyncio import Redis

        super().__init__(settings)
        self.engines: frozenset[Engine] = frozenset()
        """No engine runs on a node: workers think elsewhere."""
        self.redis: Redis = Redis.from_url(
            redis_url, decode_responses=True, socket_connect_timeout=10
        )
        self.node = secrets.token_hex(6)
        self.replies = f"ubao:replies:{self.node}"
        """This node's reply list: every worker answering one of its jobs writes there."""
        self._numbers = itertools.count(1)
        self._waiting: dict[str, asyncio.Queue[dict[str, Any]]] = {}
        """The replies of every job in flight, by job id."""
        self._reader: asyncio.Task[None] | None = None
        self._closing = False
        """Ends the reader: a flag it checks every READ_TIMEOUT_S, since redis-py may swallow a
        cancellation in the middle of a blocking command."""
        self._joined = False

    async def close(self) -> None:
        await super().close()
        self._closing = True
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        await self.redis.aclose()

    async def _search(self, turn: BotTurn, search: SeatSearch, budget_s: float) -> Answer:
        """Queue the job and wait for its answer; it is withdrawn whatever happens."""
        from redis.exceptions import RedisError

        setup, go = search_lines(search.position, search.limits, search.options)
        fields = {
            "game": turn.game_id,
            "setup": "\n".join(setup),
            "go": go,
            "budget_ms": str(round(budget_s * 1000)),
            "grace_ms": str(round(self.settings.stop_grace_s * 1000)),
        }
        try:
            async with self._posted(JOB_STREAM, fields) as replies:
                return await self._answer(replies, budget_s)
        except RedisError as exc:
            raise EngineFailure(f"redis: {exc}") from None

    async def review(self, job: AnalysisJob) -> dict[str, Any]:
        """A finished game's analysis as a job of kind `review` on `LOW_JOB_STREAM`, which
        workers take only when no bot turn waits: its review's JSON, or RuntimeError. It waits
        `REVIEW_START_S` at most for a worker to take it (a busy cluster delays analyses), then
        as long as the review may take; withdrawn whatever happens."""
        from redis.exceptions import RedisError

        fields = {"kind": "review", "game": job.game_id, "review": json.dumps(job_of(job))}
        try:
            async with self._posted(LOW_JOB_STREAM, fields) as replies:
                budget_s = REVIEW_START_S
                while True:
                    async with asyncio.timeout(budget_s):
                        reply = await replies.get()
                    event = reply.get("event")
                    if event == "taken":
                        budget_s = review_budget_s(len(job.moves), job.time_ms) + HANDOFF_S
                    elif event == "reviewed":
                        data: dict[str, Any] = json.loads(reply["review"])
                        return data
                    elif event == "failed":
                        worker, why = reply.get("worker", "?"), reply.get("why")
                        raise RuntimeError(f"worker {worker}: {why}")
        except TimeoutError:
            raise RuntimeError("no engine worker reviewed the game in time") from None
        except RedisError as exc:
            raise RuntimeError(f"redis: {exc}") from None

    @contextlib.asynccontextmanager
    async def _posted(
        self, stream: str, fields: dict[str, str]
    ) -> AsyncIterator[asyncio.Queue[dict[str, Any]]]:
        """A job posted on `stream` (`fields`, its number and our reply stream): the queue of
        its replies while the caller waits, and the job withdrawn however the wait ends."""
        from redis.exceptions import RedisError

        job = f"{self.node}-{next(self._numbers)}"
        replies: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._waiting[job] = replies
        if self._reader is None:
            self._reader = asyncio.create_task(self._read_replies())
        entry: bytes | str | None = None
        try:
            await self._join()
            message: dict[Any, Any] = {**fields, "job": job, "reply": self.replies}
            entry = await self.redis.xadd(stream, message)
            yield replies
        finally:
            del self._waiting[job]
            if entry is not None:
                with contextlib.suppress(RedisError):
                    await self.redis.xdel(stream, entry)

    async def _rejected(self, answer: Answer) -> None:
        """Nothing to retire: the next attempt is a new job, for whichever worker takes it."""

    async def _answer(self, replies: asyncio.Queue[dict[str, Any]], budget_s: float) -> Answer:
        settings = self.settings
        loop = asyncio.get_running_loop()
        deadline = loop.time() + settings.start_timeout_s
        taken = False
        while True:
            try:
                async with asyncio.timeout(deadline - loop.time()):
                    reply = await replies.get()
            except TimeoutError:
                if not taken:
                    raise EngineFailure(
                        f"no worker took the job within {settings.start_timeout_s:g} s"
                    ) from None
                raise EngineFailure("no answer from the worker in time") from None
            event = reply.get("event")
            info = reply.get("info")
            if event == "taken":
                taken = True
                deadline = loop.time() + budget_s + settings.stop_grace_s + HANDOFF_S
            elif event == "bestmove":
                line = reply.get("bestmove")
                result = parse_bestmove(line) if isinstance(line, str) else None
                move = None if result is None else result.move
                return Answer(move, bot_info(reported(info)))
            elif event == "failed":
                why = f"worker {reply.get('worker', '?')}: {reply.get('why')}"
                raise EngineFailure(why, reported(info))

    async def _join(self) -> None:
        """Create the workers' group unless it exists, from the stream's start: a job queued
        before any worker ever ran is still a job."""
        from redis.exceptions import ResponseError

        if self._joined:
            return
        for stream in (JOB_STREAM, LOW_JOB_STREAM):
            try:
                await self.redis.xgroup_create(stream, WORKER_GROUP, id="0", mkstream=True)
            except ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise
        self._joined = True

    async def _read_replies(self) -> None:
        """Hand every reply on this node's list to the turn waiting for it, if any."""
        from redis.exceptions import RedisError

        while not self._closing:
            try:
                popped = await self.redis.blpop([self.replies], timeout=READ_TIMEOUT_S)
            except RedisError as exc:
                log.warning("reading worker replies: %s; trying again in %g s", exc, READER_RETRY_S)
                await asyncio.sleep(READER_RETRY_S)
                continue
            if popped is None:
                continue
            try:
                reply = json.loads(popped[1])
                waiting = self._waiting.get(reply["job"])
            except (ValueError, TypeError, KeyError):
                log.warning("not a worker reply: %r", popped[1])
                continue
            if waiting is not None:  # else a late or duplicate answer
                waiting.put_nowait(reply)


def reported(line: object) -> Info | None:
    """The report of a reply's `info` line, if it has one."""
    return parse_info(line) if isinstance(line, str) else None
