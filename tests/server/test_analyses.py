"""The analysis of a finished game (`analyse`, docs/protocol.md; docs/server.md, "Analyses"):
queued within each address's share of the server's queue, made once by the engine, stored with
the game, sent to whoever asked and everyone following the game, and read back after a
restart without being made again."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path
from typing import Any

from tests.support.redis_server import RedisServer
from tests.support.server import (
    SHARED_NICE,
    SMALL_KALAH,
    Client,
    Harness,
    Peer,
    over_at_once,
    running_server,
    small_limits,
)
from tests.support.wire import autoplay, create, join, nodes, server_process
from ubao.engine.games import make_game
from ubao.engine.review import review_game, review_to_json
from ubao.protocol import (
    ANALYSIS_FORMAT,
    Analyse,
    AnalysisEvent,
    ErrorCode,
    Event,
    GameAnalysis,
    Moved,
    Over,
    PlyAnalysis,
    SideAnalysis,
    Snapshot,
    Watch,
)
from ubao.server.analysis_runs import IDLE_POLL_S, AnalysisRuns
from ubao.server.limits import Limits
from ubao.server.outputs import AnalysisJob

MARKS = {"", "inaccuracy", "mistake", "blunder"}
SHARED_ANALYSES = ("--analysis-time", "0.05", "--analysis-nice", str(SHARED_NICE))


def made(moves: tuple[str, ...]) -> GameAnalysis:
    """An analysis as the layer hands it to the core (its values are the engine's business)."""
    plies = tuple(
        PlyAnalysis(i, i % 2, move, move, (move,), 0.0, 0.0, 0.0, "", 1, 1, 1)
        for i, move in enumerate(moves)
    )
    side = SideAnalysis(100.0, 0.0, 0, 0, 0)
    return GameAnalysis(ANALYSIS_FORMAT, "seeds", 20, plies, (side, side))


def analyse(peer: Peer, game_id: str) -> None:
    peer.ok(Analyse(id=peer.next_id(), game_id=game_id))


# -- the core: shares, one job per game, the news -----------------------------------------------


def test_a_game_is_queued_once_and_its_analysis_reaches_askers_and_followers() -> None:
    h = Harness(small_limits(analysis_time_ms=20))
    game_id, alice, _, bob, _ = over_at_once(h)
    carol = h.player("carol", "spectator")
    assert carol.ok(Analyse(id=carol.next_id(), game_id=game_id)).queued == 0
    dave = h.connect("10.0.0.9")
    dave.hello("dave", "spectator")
    assert dave.ok(Analyse(id=dave.next_id(), game_id=game_id)).queued == 0
    (job,) = h.analysis_jobs  # the second request joined the first
    assert (job.game_id, job.moves, job.time_ms, job.share) == (game_id, ("1",), 20, "10.0.0.1")

    h.core.analysed(game_id, made(job.moves))
    got = h.pump()
    for peer in (alice, bob, carol, dave):  # the players follow the game; the askers asked
        (event,) = [m for m in got[peer.conn] if isinstance(m, AnalysisEvent)]
        assert event.state == "done" and event.analysis == made(job.moves)
    again = carol.ok(Analyse(id=carol.next_id(), game_id=game_id))
    assert again.analysis == made(job.moves) and again.queued is None
    assert len(h.analysis_jobs) == 1  # never made again


def test_each_address_holds_a_share_of_the_queue_and_the_server_a_bound() -> None:
    h = Harness(small_limits(analyses_per_address=1, max_analyses=2))
    first, alice, _, _, _ = over_at_once(h)
    second, _, _, _, _ = over_at_once(h)
    third, _, _, _, _ = over_at_once(h)
    analyse(alice, first)
    refused = alice.error(Analyse(id=alice.next_id(), game_id=second))
    assert refused.code == ErrorCode.QUOTA_EXCEEDED
    other = h.connect("10.0.0.2")
    other.hello("zed", "spectator")
    assert other.ok(Analyse(id=other.next_id(), game_id=second)).queued == 1
    third_address = h.connect("10.0.0.3")
    third_address.hello("yan", "spectator")
    busy = third_address.error(Analyse(id=third_address.next_id(), game_id=third))
    assert busy.code == ErrorCode.SERVER_BUSY
    h.core.analysis_failed(first, "the engine died")
    (event,) = [m for m in h.pump()[alice.conn] if isinstance(m, AnalysisEvent)]
    assert event.state == "failed" and "the engine died" in (event.message or "")
    assert alice.ok(Analyse(id=alice.next_id(), game_id=third)).queued == 1  # her share is back


def test_only_a_finished_game_is_analysed() -> None:
    h = Harness()
    alice, bob = h.player("alice"), h.player("bob")
    game_id = alice.create()
    assert alice.error(Analyse(id=alice.next_id(), game_id=game_id)).code == ErrorCode.NOT_OVER
    bob.join(game_id, 1)
    missing = alice.error(Analyse(id=alice.next_id(), game_id="nothere"))
    assert missing.code == ErrorCode.UNKNOWN_GAME
    assert h.analysis_jobs == []


def test_a_watcher_who_catches_up_gets_the_analysis_after_the_events() -> None:
    h = Harness()
    game_id, alice, _, _, _ = over_at_once(h)
    analyse(alice, game_id)
    h.core.analysed(game_id, made(("1",)))
    h.pump()
    watcher = h.player("wat", "spectator")
    got = watcher.send(Watch(id=watcher.next_id(), game_id=game_id, since_v=1))
    assert isinstance(got[-1], AnalysisEvent) and got[-1].analysis == made(("1",))
    fresh = h.player("fresh", "spectator")
    (snapshot,) = [m for m in fresh.send(Watch(id=1, game_id=game_id)) if isinstance(m, Snapshot)]
    assert snapshot.analysis == made(("1",))


# -- over the wire, with the engine ------------------------------------------------------------


async def finished(port: int) -> tuple[str, tuple[str, ...]]:
    """A small Kalah game played to its end by two clients; its id and moves."""
    async with Client.connected(port, "south") as south, Client.connected(port, "north") as north:
        game_id = await create(south)
        south_token, north_token = await join(south, game_id, 0), await join(north, game_id, 1)
        seen: list[Event] = []
        await asyncio.gather(
            autoplay(south, game_id, south_token, seen), autoplay(north, game_id, north_token, [])
        )
    return game_id, tuple(event.move for event in seen if isinstance(event, Moved))


def checked(analysis: GameAnalysis | None, moves: tuple[str, ...]) -> GameAnalysis:
    """An analysis of these moves, as the engine made it for this game."""
    assert analysis is not None and analysis.format == ANALYSIS_FORMAT
    assert tuple(p.move for p in analysis.plies) == moves
    game = make_game("kalah", SMALL_KALAH)
    position = game.start()
    for ply, move in zip(analysis.plies, moves, strict=True):
        assert ply.mark in MARKS and ply.loss >= 0 and ply.seat == game.to_move(position)
        game.play_text(position, ply.best)  # the engine's best move is legal there
        position = game.play_text(position, move)
    # The last move's value is the game's final margin (seat 0's view), whatever the search.
    outcome = game.outcome(position)
    assert outcome is not None
    assert analysis.plies[-1].after == outcome.score[0] - outcome.score[1]
    return analysis


async def test_anyone_asks_and_the_analysis_is_made_once_over_the_wire() -> None:
    limits = Limits(analysis_time_ms=50)
    async with running_server(limits=limits) as server:
        game_id, moves = await finished(server.port)
        async with (
            Client.connected(server.port, "asker", "spectator") as asker,
            Client.connected(server.port, "watcher", "spectator") as watcher,
        ):
            await watcher.ok(Watch(id=0, game_id=game_id))
            assert isinstance(await watcher.event(), Snapshot)
            assert (await asker.ok(Analyse(id=0, game_id=game_id))).queued == 0
            done = await asker.analysis()
            assert done.state == "done", done
            analysis = checked(done.analysis, moves)
            heard = await watcher.analysis()
            assert heard.analysis == analysis
            assert (await asker.ok(Analyse(id=0, game_id=game_id))).analysis == analysis


async def test_the_analysis_is_stored_with_the_game_across_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "ubao.sqlite3"
    async with server_process(db, *SHARED_ANALYSES) as (process, port):
        game_id, moves = await finished(port)
        async with Client.connected(port, "asker", "spectator") as asker:
            await asker.ok(Analyse(id=0, game_id=game_id))
            analysis = checked((await asker.analysis()).analysis, moves)
        process.send_signal(signal.SIGTERM)
        await process.wait()
    async with (
        server_process(db) as (_, port),
        Client.connected(port, "later", "spectator") as later,
    ):
        ok = await later.ok(Analyse(id=0, game_id=game_id))
        assert ok.analysis == analysis and ok.queued is None  # read back, not made again
        await later.ok(Watch(id=0, game_id=game_id))
        snapshot = await later.event()
        assert isinstance(snapshot, Snapshot) and snapshot.analysis == analysis
        assert not isinstance(snapshot, Over)


async def test_an_analysis_starts_only_while_no_bot_turn_waits_for_an_engine() -> None:
    """The layer's scheduler (server/analysis_runs.py): bot turns first, one at a time."""
    busy, started = [True], asyncio.Event()
    done: list[tuple[str, GameAnalysis]] = []

    async def review(job: AnalysisJob) -> dict[str, Any]:
        started.set()
        return review_to_json(review_game(job.game, job.options, job.moves))

    runs = AnalysisRuns(review, lambda: busy[0], lambda g, a: done.append((g, a)), print)
    runs.add(AnalysisJob("g", "kalah", {"pits": 1, "seeds": 1}, ("1",), 20, "10.0.0.1"))
    await asyncio.sleep(IDLE_POLL_S * 3)
    assert not started.is_set() and runs.waiting  # a bot turn waits: the analysis too
    busy[0] = False
    async with asyncio.timeout(10):
        while not done:
            await asyncio.sleep(0.01)
    await runs.close()
    ((game_id, analysis),) = done
    assert game_id == "g" and [ply.move for ply in analysis.plies] == ["1"]


async def test_analyses_run_at_most_engines_at_once_the_least_served_address_next() -> None:
    """Bounded concurrency: at most `engines` run (one by default), and of the jobs waiting the
    next is the oldest of the address with the fewest running."""
    release: dict[str, asyncio.Event] = {}
    running: list[str] = []
    done: list[str] = []

    async def review(job: AnalysisJob) -> dict[str, Any]:
        running.append(job.game_id)
        release[job.game_id] = asyncio.Event()
        await release[job.game_id].wait()
        running.remove(job.game_id)
        return review_to_json(review_game(job.game, job.options, job.moves))

    def job(game_id: str, address: str) -> AnalysisJob:
        return AnalysisJob(game_id, "kalah", {"pits": 1, "seeds": 1}, ("1",), 20, address)

    async def settled() -> None:
        for _ in range(20):
            await asyncio.sleep(0)

    one = AnalysisRuns(review, lambda: False, lambda g, a: done.append(g), print)
    for game_id in ("a", "b"):
        one.add(job(game_id, "10.0.0.1"))
    await settled()
    assert running == ["a"]  # one at a time by default
    release["a"].set()
    await settled()
    assert running == ["b"] and done == ["a"]
    release["b"].set()
    await settled()
    await one.close()

    two = AnalysisRuns(review, lambda: False, lambda g, a: done.append(g), print, engines=2)
    for game_id, address in (("c", "10.0.0.1"), ("d", "10.0.0.1"), ("e", "10.0.0.2")):
        two.add(job(game_id, address))
    await settled()
    assert running == ["c", "e"]  # not d: its address has one running, e's none
    release["c"].set()
    await settled()
    assert running == ["e", "d"]
    await two.close()


async def test_a_cluster_analyses_on_its_workers_and_keeps_it_in_redis(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    command = [sys.executable, "-m", "ubao.engine", "worker", "--redis", redis_server.url]
    command += ["--review-nice", str(SHARED_NICE)]
    with (tmp_path / "worker.log").open("wb") as log:
        worker = await asyncio.create_subprocess_exec(*command, "--hash", "1", stderr=log)
        try:
            async with nodes(redis_server, 2, *SHARED_ANALYSES) as (a, b):
                game_id, moves = await finished(a.port)
                async with Client.connected(b.port, "fan", "spectator") as fan:
                    await fan.ok(Analyse(id=0, game_id=game_id))
                    analysis = checked((await fan.analysis()).analysis, moves)
                async with Client.connected(a.port, "later", "spectator") as later:
                    assert (await later.ok(Analyse(id=0, game_id=game_id))).analysis == analysis
        finally:
            worker.kill()
            await worker.wait()
