"""Engine workers: bot turns as jobs on Redis, answered by real `ubao-engine worker` processes
against a real redis-server; a worker killed mid-search is replaced, one stopped hands its job
on, a withdrawn job stops its search, and with no worker the seat fails as documented."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis

from tests.support.redis_server import RedisServer
from tests.support.server import SHARED_NICE, Referee, turn
from ubao.engine.game import GameError
from ubao.engine.games import make_game
from ubao.engine.protocols.wire import game_analysis
from ubao.engine.review import review_from_json
from ubao.protocol import BotInfo, SeatSpec
from ubao.protocol.jobs import JOB_STREAM, LOW_JOB_STREAM
from ubao.server.bots import BotSettings
from ubao.server.outputs import AnalysisJob, BotTurn
from ubao.server.workers import WorkerPool

SLOW = turn(options={}, moves=(), spec=SeatSpec.bot(40, time_ms=3000))
"""Kalah's full board, searched for its whole 3 s: time to kill its worker in the middle."""


class WorkerProcess:
    """One `ubao-engine worker` process, its log in a file the test reads."""

    def __init__(self, url: str, log: Path) -> None:
        self.log = log
        command = [sys.executable, "-m", "ubao.engine", "worker", "--redis", url, "--hash", "1"]
        with log.open("w") as out:
            self.process = subprocess.Popen(
                [*command, "--review-nice", str(SHARED_NICE)],
                stdout=subprocess.DEVNULL,
                stderr=out,
            )

    async def wait_for(self, text: str, timeout_s: float = 30) -> None:
        """Until the log says `text`, for at most `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        while text not in self.log.read_text():
            assert time.monotonic() < deadline, f"no {text!r} in:\n{self.log.read_text()}"
            await asyncio.sleep(0.05)

    async def exit_code(self, timeout_s: float = 30) -> int:
        deadline = time.monotonic() + timeout_s
        while (code := self.process.poll()) is None:
            assert time.monotonic() < deadline, "the worker did not exit"
            await asyncio.sleep(0.05)
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


@pytest.fixture
def start_worker(
    redis_server: RedisServer,
    tmp_path: Path,
) -> Iterator[Callable[[], WorkerProcess]]:
    started: list[WorkerProcess] = []

    def start() -> WorkerProcess:
        started.append(WorkerProcess(redis_server.url, tmp_path / f"worker{len(started)}.log"))
        return started[-1]

    yield start
    for worker in started:
        worker.kill()


def pool(url: str, **changes: float) -> WorkerPool:
    values: dict[str, Any] = {"start_timeout_s": 30.0, "stop_grace_s": 2.0} | changes
    return WorkerPool(url, BotSettings(attempts=3, **values))


def legal(bot_turn: BotTurn, offered: list[tuple[str, BotInfo | None]]) -> Callable[..., bool]:
    """Accepts a move exactly when the rules do, as the game would, and records it."""
    game = make_game(bot_turn.game, bot_turn.options)
    position = game.start()
    for text in bot_turn.moves:
        position = game.play_text(position, text)

    def accept(move: str, info: BotInfo | None) -> bool:
        offered.append((move, info))
        try:
            game.parse_move(position, move)
        except GameError:
            return False
        return True

    return accept


async def jobs_left(url: str) -> int:
    """Jobs on the stream: each is withdrawn once its turn is over, whatever happened."""
    redis = Redis.from_url(url)
    try:
        return int(await redis.xlen(JOB_STREAM))
    finally:
        await redis.aclose()


async def test_a_worker_answers_bot_turns_with_its_search(
    redis_server: RedisServer,
    start_worker: Callable[[], WorkerProcess],
) -> None:
    worker = start_worker()
    workers = pool(redis_server.url)
    referee = Referee()
    try:
        assert await workers.play(turn(), referee) is None
        ((move, info),) = referee.offered
        # The game's next bot turn, and another game's, on the same worker.
        moves = ("1", move, "1")
        assert await workers.play(turn(moves=moves), Referee(moves)) is None
        assert await workers.play(turn("h"), Referee()) is None
    finally:
        await workers.close()
    assert not workers.engines  # nothing searched on this node
    assert info is not None and info.depth == 2 and info.pv[0] == move
    await worker.wait_for(f"bestmove {move}")
    assert await jobs_left(redis_server.url) == 0


async def test_a_job_whose_worker_is_killed_mid_search_is_taken_over_by_another(
    redis_server: RedisServer,
    start_worker: Callable[[], WorkerProcess],
) -> None:
    first = start_worker()
    workers = pool(redis_server.url)
    offered: list[tuple[str, BotInfo | None]] = []
    try:
        playing = asyncio.create_task(workers.play(SLOW, legal(SLOW, offered)))
        await first.wait_for("go depth 40 movetime 3000")
        first.process.send_signal(signal.SIGKILL)
        second = start_worker()
        async with asyncio.timeout(60):
            why = await playing
    finally:
        await workers.close()
    assert why is None, why
    await second.wait_for("taking over job")
    ((move, info),) = offered  # one answer, not a failed attempt first
    assert info is not None and info.pv[0] == move
    assert await jobs_left(redis_server.url) == 0


async def test_a_stopped_worker_hands_its_job_on_at_once(
    redis_server: RedisServer,
    start_worker: Callable[[], WorkerProcess],
) -> None:
    first = start_worker()
    workers = pool(redis_server.url)
    offered: list[tuple[str, BotInfo | None]] = []
    try:
        playing = asyncio.create_task(workers.play(SLOW, legal(SLOW, offered)))
        await first.wait_for("go depth 40 movetime 3000")
        second = start_worker()  # idle: the job is the first's
        await second.wait_for("taking jobs from")
        first.process.send_signal(signal.SIGTERM)
        assert await first.exit_code() == 0
        await first.wait_for("released for another worker")
        async with asyncio.timeout(60):
            why = await playing
    finally:
        await workers.close()
    assert why is None, why
    await second.wait_for("taking over job")
    assert len(offered) == 1


async def test_a_withdrawn_job_stops_its_search_and_the_worker_goes_on(
    redis_server: RedisServer,
    start_worker: Callable[[], WorkerProcess],
) -> None:
    worker = start_worker()
    workers = pool(redis_server.url)

    async def think() -> None:
        await workers.play(SLOW, legal(SLOW, []))

    try:
        playing = asyncio.create_task(think())
        workers.spawn(SLOW.game_id, playing)
        await worker.wait_for("go depth 40 movetime 3000")
        await workers.release(SLOW.game_id)  # the game ended
        assert playing.cancelled()
        await worker.wait_for("withdrawn")
        assert await jobs_left(redis_server.url) == 0
        assert await workers.play(turn("h"), Referee()) is None
    finally:
        await workers.close()


async def test_without_a_worker_the_seat_fails_after_its_attempts(
    redis_server: RedisServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    workers = pool(redis_server.url, start_timeout_s=0.3)
    try:
        why = await workers.play(turn(), Referee())
    finally:
        await workers.close()
    assert why == "no worker took the job within 0.3 s"
    assert caplog.text.count("no worker took the job") == 3  # one per attempt
    assert await jobs_left(redis_server.url) == 0


async def test_a_late_or_duplicate_answer_is_dropped(
    redis_server: RedisServer,
    start_worker: Callable[[], WorkerProcess],
) -> None:
    start_worker()
    workers = pool(redis_server.url)
    redis = Redis.from_url(redis_server.url)
    try:
        first = Referee()
        assert await workers.play(turn(), first) is None
        # The first job's answer again (a worker that was thought dead also answered it), with a
        # move that is not legal: the next job must not take it for its own.
        late = {"job": f"{workers.node}-1", "event": "bestmove", "bestmove": "bestmove 9Z"}
        await redis.rpush(workers.replies, json.dumps(late))
        referee = Referee()
        assert await workers.play(turn("h"), referee) is None
    finally:
        await redis.aclose()
        await workers.close()
    assert [move for move, _ in referee.offered] == [move for move, _ in first.offered]


def test_the_worker_command_needs_a_redis_url() -> None:
    env = {key: value for key, value in os.environ.items() if key != "UBAO_REDIS"}
    result = subprocess.run(
        [sys.executable, "-m", "ubao.engine", "worker"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 2
    assert "--redis URL" in result.stderr


async def test_a_worker_reviews_a_finished_game_from_the_low_stream(
    redis_server: RedisServer,
    start_worker: Callable[[], WorkerProcess],
) -> None:
    """An analysis is a job of kind `review` on the low stream: a worker reviews the game and
    answers with the review, withdrawn from the stream after; then it takes bot turns as
    before."""
    worker = start_worker()
    workers = pool(redis_server.url)
    game = make_game("kalah", {"pits": 3, "seeds": 2})
    position, moves = game.start(), []
    while not game.is_over(position):
        move = game.format_move(position, game.legal_moves(position)[0])
        moves.append(move)
        position = game.play_text(position, move)
    job = AnalysisJob("r", "kalah", {"pits": 3, "seeds": 2}, tuple(moves), 20, "10.0.0.1")
    try:
        review = await workers.review(job)
        assert await workers.play(turn(), Referee()) is None
    finally:
        await workers.close()
    analysis = game_analysis(review_from_json(review), 20)
    assert [ply.move for ply in analysis.plies] == moves
    await worker.wait_for("review job")
    redis = Redis.from_url(redis_server.url)
    try:
        assert await redis.xlen(LOW_JOB_STREAM) == 0 and await jobs_left(redis_server.url) == 0
    finally:
        await redis.aclose()


async def test_a_worker_takes_a_bot_turn_before_a_review_that_came_first(
    redis_server: RedisServer,
    start_worker: Callable[[], WorkerProcess],
) -> None:
    """Both queued before any worker runs, the review first: the worker searches the bot
    turn, then reviews (a server under load delays analyses, never games)."""
    workers = pool(redis_server.url)
    job = AnalysisJob("r", "kalah", {"pits": 3, "seeds": 2}, ("1", "1"), 20, "10.0.0.1")
    try:
        review = asyncio.create_task(workers.review(job))
        await asyncio.sleep(0.5)  # the review's job is on the stream first
        play = asyncio.create_task(workers.play(turn(), Referee()))
        await asyncio.sleep(0.5)
        worker = start_worker()
        assert await play is None
        await review
    finally:
        await workers.close()
    log = worker.log.read_text()
    assert log.index("go depth") < log.index("review job"), log


async def test_a_worker_answers_bot_turns_while_it_reviews_a_long_game(
    redis_server: RedisServer,
    start_worker: Callable[[], WorkerProcess],
) -> None:
    """A review runs beside the bot turns, in a process of its own: a bot turn that comes while
    the worker's only review has minutes to go is answered at once (before, the worker took
    no job until the review ended), and the review withdrawn ends its process."""
    worker = start_worker()
    workers = pool(redis_server.url, start_timeout_s=5.0)
    game = make_game("kalah")
    position, moves = game.start(), []
    while not game.is_over(position):
        move = game.format_move(position, game.legal_moves(position)[0])
        moves.append(move)
        position = game.play_text(position, move)
    job = AnalysisJob("r", "kalah", {}, tuple(moves), 60_000, "10.0.0.1")  # a minute a move
    review = asyncio.create_task(workers.review(job))
    try:
        await worker.wait_for("review job")
        referee = Referee()
        assert await workers.play(turn(), referee) is None
        assert len(referee.offered) == 1  # the first attempt's answer
    finally:
        review.cancel()
        await asyncio.gather(review, return_exceptions=True)
        await workers.close()
    await worker.wait_for("withdrawn")
    children = Path(f"/proc/{worker.process.pid}/task/{worker.process.pid}/children")
    deadline = time.monotonic() + 10
    while children.exists() and children.read_text().strip():
        assert time.monotonic() < deadline, "the review's process outlived its job"
        await asyncio.sleep(0.05)
