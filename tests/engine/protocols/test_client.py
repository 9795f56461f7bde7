"""The engine client over a scripted engine: handshake, options, a refused position, the info
stream, the move, `stop` at the budget, an engine that dies and one that ignores `stop`."""

from __future__ import annotations

import asyncio

import pytest

from ubao.engine.protocols import EnginePosition, Limits
from ubao.engine.protocols.client import EngineClient, EngineFailure
from ubao.engine.protocols.results import Info, PlayResult
from ubao.engine.protocols.transports import ScriptedTransport
from ubao.engine.protocols.ubao import UbaoDialect

KALAH = EnginePosition("kalah", {}, "startpos", ("3",), 0)
POSITION = "position kalah {} startpos moves 3"


async def started(transport: ScriptedTransport) -> EngineClient:
    transport.expect("uci", ["id name scripted", "option name Hash type spin", "uciok"])
    return await EngineClient.start(transport, UbaoDialect(), timeout_s=5)


async def test_the_handshake_options_and_a_search_with_its_reports() -> None:
    transport = ScriptedTransport()
    client = await started(transport)
    transport.expect("setoption name Hash value 16")
    transport.expect("isready", ["readyok"])
    await client.configure({"Hash": "16"})
    transport.expect("ucinewgame")
    transport.expect("isready", ["readyok"])
    await client.new_game()
    transport.expect(POSITION)
    transport.expect("isready", ["readyok"])
    transport.expect(
        "go depth 2",
        [
            "info string thinking",
            "info depth 1 score 3 nodes 7 time 0 pv 1",
            "info depth 2 score mate 1 nodes 20 time 1 pv 4 2",
            "bestmove 4 ponder 2",
        ],
    )
    seen: list[Info] = []
    result = await client.play(KALAH, Limits(depth=2), on_info=seen.append)
    last = Info(depth=2, mate=1, nodes=20, time_ms=1, pv=("4", "2"))
    assert result == PlayResult("4", last, "2")
    assert [info.depth for info in seen] == [None, 1, 2] and seen[0].string == "thinking"
    transport.expect("quit", exit=True)
    await client.quit(1)
    assert transport.closed
    transport.assert_done()


async def test_a_refused_option_or_position_fails_after_the_engine_is_in_step_again() -> None:
    transport = ScriptedTransport()
    client = await started(transport)
    transport.expect("setoption name Hash value lots")
    transport.expect("isready", ["error Hash must be an integer", "readyok"])
    with pytest.raises(EngineFailure, match="Hash must be an integer"):
        await client.configure({"Hash": "lots"})
    transport.expect(POSITION, ["error move 1 (3): that pit is empty"])
    transport.expect("isready", ["readyok"])
    with pytest.raises(EngineFailure, match="that pit is empty"):
        await client.play(KALAH, Limits(depth=2))
    transport.expect(POSITION)  # no `go` was sent: the next search starts cleanly
    transport.expect("isready", ["readyok"])
    transport.expect("go depth 1", ["bestmove none"])
    assert await client.play(KALAH, Limits(depth=1)) == PlayResult(None, None)
    transport.assert_done()


async def test_an_error_during_the_search_is_only_logged_and_its_move_still_comes() -> None:
    transport = ScriptedTransport()
    client = await started(transport)
    transport.expect(POSITION)
    transport.expect("isready", ["readyok"])
    transport.expect("go depth 1", ["error the search failed: boom", "bestmove 5"])
    assert await client.play(KALAH, Limits(depth=1)) == PlayResult("5", None)


async def test_the_search_is_stopped_at_its_budget_and_its_move_taken() -> None:
    transport = ScriptedTransport()
    client = await started(transport)
    transport.expect(POSITION)
    transport.expect("isready", ["readyok"])
    transport.expect("go infinite", ["info depth 4 score 0 pv 6"])
    transport.expect("stop", ["bestmove 6"])
    loop = asyncio.get_running_loop()
    began = loop.time()
    result = await client.play(KALAH, Limits(infinite=True), budget_s=0.2)
    assert result.move == "6" and result.info is not None and result.info.depth == 4
    assert loop.time() - began >= 0.2
    transport.assert_done()


async def test_an_engine_that_ignores_stop_fails_with_its_last_report() -> None:
    transport = ScriptedTransport()
    client = await started(transport)
    transport.expect(POSITION)
    transport.expect("isready", ["readyok"])
    transport.expect("go depth 30", ["info depth 3 score 2 pv 1 5"])
    transport.expect("stop")
    with pytest.raises(EngineFailure, match="even after stop") as failure:
        await client.play(KALAH, Limits(depth=30), budget_s=0.05, stop_grace_s=0.05)
    assert failure.value.info is not None and failure.value.info.pv == ("1", "5")


async def test_an_engine_that_dies_mid_search_fails_with_its_last_report() -> None:
    transport = ScriptedTransport()
    client = await started(transport)
    transport.expect(POSITION)
    transport.expect("isready", ["readyok"])
    transport.expect("go depth 5", ["info depth 1 score 2 pv 2"], exit=True)
    with pytest.raises(EngineFailure, match="exited") as failure:
        await client.play(KALAH, Limits(depth=5))
    assert failure.value.info is not None and failure.value.info.pv == ("2",)


async def test_an_engine_that_never_answers_the_handshake_is_killed() -> None:
    transport = ScriptedTransport()
    transport.expect("uci", ["id name mute"])
    with pytest.raises(EngineFailure, match="no answer to the handshake"):
        await EngineClient.start(transport, UbaoDialect(), timeout_s=0.05)
    assert transport.killed
