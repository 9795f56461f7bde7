"""`ubao-engine kgp` (engine/tools/kgp_agent.py): the agent's protocol, pure, line by line as
the spec's freeplay example goes; and ubao's engine playing whole games on ubao's endpoint."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace

from tests.support.server import TIMEOUT, running_server
from ubao.engine.protocols import Limits
from ubao.engine.protocols.kgp import Board
from ubao.engine.tools.kgp_agent import (
    AgentSettings,
    Halt,
    KgpAgent,
    Leave,
    Say,
    Search,
    parse_server,
    run_agent,
)
from ubao.server.app import GameServer
from ubao.server.kgp_settings import KgpSettings


def said(actions: Sequence[object]) -> list[str]:
    return [action.line for action in actions if isinstance(action, Say)]


def test_the_handshake_sends_the_infos_the_token_and_the_mode() -> None:
    agent = KgpAgent(AgentSettings(depth=4, info={"name": 'ubao "x"'}, token="tok"))
    assert said(agent.on_line("2 kgp 1 0 1")) == [
        '1 set info:name "ubao \\"x\\""',
        '3 set auth:token "tok"',
        "5 mode freeplay",
    ]
    assert said(agent.on_line("4 kgp 2 0 0"))[0].startswith("7@4 error")


def test_states_are_searched_improved_moves_sent_then_yield() -> None:
    agent = KgpAgent(AgentSettings(depth=5))
    agent.on_line("2 kgp 1 0 1")
    (search,) = agent.on_line("4 state <3,0,0,3,3,3,3,3,3>")
    assert search == Search(4, Board(0, 0, (3, 3, 3), (3, 3, 3)), Limits(depth=5))
    assert said(agent.improved(4, 3)) == ["3@4 move 3"]
    assert agent.improved(4, 3) == []  # no news
    assert said(agent.improved(4, 1)) == ["5@4 move 1"]
    assert said(agent.finished(4, 2)) == ["7@4 move 2", "9@4 yield"]
    assert agent.finished(4, 2) == []


def test_a_move_the_server_refused_is_sent_again_with_the_answer() -> None:
    """go-kgp registers a state after sending it: a move that comes back at once can be
    refused ("No state associated with id")."""
    agent = KgpAgent(AgentSettings(depth=5))
    agent.on_line("4 state <3,0,0,3,3,3,3,3,3>")
    assert said(agent.improved(4, 3)) == ["1@4 move 3"]
    agent.on_line('6@1 error "No state associated with id"')
    assert said(agent.finished(4, 3)) == ["3@4 move 3", "5@4 yield"]


def test_a_stop_halts_the_search_and_nothing_more_is_sent() -> None:
    agent = KgpAgent(AgentSettings())
    agent.on_line("set time:mode relative")
    agent.on_line("set time:clock 5")
    (search,) = agent.on_line("8 state <3,0,0,3,3,3,3,3,3>")
    assert isinstance(search, Search) and search.limits == Limits(time_ms=4000)
    assert agent.on_line("10@8 stop") == [Halt(8)]
    assert agent.finished(8, 1) == [] and agent.improved(8, 2) == []
    assert agent.on_line("12@99 stop") == []
    assert said(agent.on_line("14 ping")) == ["1@14 pong"]
    assert agent.on_line("goodbye") == [Leave()]


def test_a_new_game_past_the_asked_number_leaves() -> None:
    agent = KgpAgent(AgentSettings(games=1))
    assert agent.on_line('set game:id "a"') == []
    assert isinstance(agent.on_line('set game:id "b"')[-1], Leave)


def test_without_game_ids_a_new_game_is_seen_on_its_board() -> None:
    """go-kgp sets no `game:id`: the stores never shrink and the seeds stay within a game."""
    agent = KgpAgent(AgentSettings(games=2))
    assert isinstance(agent.on_line("2 state <3,0,0,3,3,3,3,3,3>")[-1], Search)
    assert isinstance(agent.on_line("4 state <3,5,2,0,1,3,4,2,1>")[-1], Search)  # same game
    assert isinstance(agent.on_line("6 state <3,0,1,3,3,3,3,3,2>")[-1], Search)  # game 2
    assert agent.on_line("8 state <3,0,0,3,3,3,3,3,3>")[-1] == Leave()  # game 3


def test_server_addresses() -> None:
    assert parse_server("example.org:1234") == ("example.org", 1234)
    assert parse_server("example.org") == ("example.org", 2671)
    assert parse_server("[::1]:2671") == ("::1", 2671)
    assert parse_server("wss://example.org/kgp") == "wss://example.org/kgp"


def normal_games(server: GameServer, name: str) -> set[str]:
    """The finished games of `name` the rules ended (not a resignation: each agent leaves with
    `goodbye` as its next game starts, which resigns that game)."""
    return {
        room.game_id
        for room in server.core.rooms.values()
        if room.result is not None
        and room.result.reason == "normal"
        and any(seat.name == name for seat in room.seats)
    }


async def test_the_engine_plays_whole_games_on_ubaos_endpoint() -> None:
    """Over TCP and over WebSocket against server bots, then the two against each other."""
    kgp = KgpSettings(port=0, wait_ms=200, move_ms=5_000, bot_depth=2)
    async with running_server(kgp=kgp) as server:
        assert server.kgp.port is not None
        tcp = ("127.0.0.1", server.kgp.port)
        ws = f"ws://127.0.0.1:{server.port}/kgp"
        by_depth = AgentSettings(depth=3, info={"name": "ubao tcp"}, games=1)
        by_time = AgentSettings(time_ms=30, info={"name": "ubao ws"}, games=1)
        async with asyncio.timeout(TIMEOUT * 4):
            assert await run_agent(tcp, by_depth)
            assert await run_agent(ws, by_time)
            assert len(normal_games(server, "ubao tcp")) == 1
            assert len(normal_games(server, "ubao ws")) == 1
            server.kgp.settings = replace(kgp, wait_ms=20_000)  # the two meet
            await asyncio.gather(run_agent(tcp, by_depth), run_agent(ws, by_time))
        met = normal_games(server, "ubao tcp") & normal_games(server, "ubao ws")
        assert len(normal_games(server, "ubao tcp")) == 2 and met
