"""The KGP endpoint (docs/kgp.md): agents written from the spec (tests/support/kgp.py) play
complete games over TCP and WebSocket, against a server bot and against each other, as ordinary
ubao seats; bad input gets `error` and changes nothing; a token brings an agent back to its
seat; verify mode checks solutions by ubao's rules; eval mode is refused."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from tests.support.kgp import SpecBoard, tcp_agent, ws_agent
from tests.support.server import TIMEOUT, Client, running_server
from ubao.engine.protocols.kgp import MAX_LINE
from ubao.protocol import ClockSpec, Create, Join, ListGames, Move, Moved, SeatSpec, Watch
from ubao.server.app import GameServer
from ubao.server.kgp_settings import KgpSettings
from ubao.server.limits import Limits
from ubao.server.room import Room

KGP_OPTIONS = {"empty_capture": False, "early_end": True}
"""ubao's Kalah (6,4) on KGP's rules: the other options' defaults are KGP's."""


@asynccontextmanager
async def kgp_server(
    limits: Limits | None = None, **settings: int
) -> AsyncIterator[tuple[GameServer, int]]:
    kgp = KgpSettings(**{"port": 0, "wait_ms": 300, "move_ms": 3_000, **settings})
    async with running_server(kgp=kgp, limits=limits or Limits()) as server:
        assert server.kgp.port is not None
        yield server, server.kgp.port


def games_of(server: GameServer, name: str) -> list[Room]:
    return [
        room for room in server.core.rooms.values() if any(seat.name == name for seat in room.seats)
    ]


async def test_an_agent_plays_a_server_bot_to_the_end_over_tcp() -> None:
    async with kgp_server() as (server, port), tcp_agent(port) as agent:
        await agent.hello("spec agent", token="t-1")
        await agent.play_games(1)
        finished = [room for room in games_of(server, "spec agent") if room.status == "over"]
        assert finished and finished[0].result is not None
        assert finished[0].result.reason not in ("abandoned", "timeout", "aborted")
        room = finished[0]
        assert room.game.options["empty_capture"] is False  # KGP's rules
        assert room.game.options["early_end"] is True
        assert {seat.name for seat in room.seats} == {"spec agent", "ubao-engine (depth 6)"}
        # every state was the mover's view of the game as it stood, ordinary ubao moves
        assert not agent.errors, agent.errors
        async with Client.connected(server.port, "looker") as looker:
            listed = await looker.ok(ListGames(id=1, filter="finished"))
            assert listed.games and room.game_id in {game.game_id for game in listed.games}


async def test_an_agent_takes_a_persons_game_that_asks_for_a_bot_on_kgp_rules() -> None:
    async with (
        kgp_server(wait_ms=20_000) as (server, port),
        Client.connected(server.port, "person") as person,
        tcp_agent(port) as agent,
    ):
        other = await person.ok(
            Create(0, "kalah", {}, (SeatSpec.open(), SeatSpec.external_bot()))  # other rules
        )
        created = await person.ok(
            Create(0, "kalah", KGP_OPTIONS, (SeatSpec.open(), SeatSpec.external_bot()))
        )
        assert created.game_id is not None and other.game_id is not None
        await person.ok(Join(0, created.game_id, 0))
        agent.answer = False
        await agent.hello("guest agent")
        assert (await agent.until("set")).args == ["game:id", f'"{created.game_id}"']
        room = server.core.rooms[created.game_id]
        assert [seat.name for seat in room.seats] == ["person", "guest agent"]
        assert room.status == "playing"
        assert server.core.rooms[other.game_id].status == "waiting"  # not KGP's rules


async def test_a_clock_is_told_and_a_comment_reaches_the_watchers() -> None:
    async with (
        kgp_server(wait_ms=20_000) as (server, port),
        Client.connected(server.port, "person") as person,
        Client.connected(server.port, "watcher") as watcher,
        tcp_agent(port) as agent,
    ):
        seats = (SeatSpec.open(), SeatSpec.external_bot())
        clock = ClockSpec(initial_ms=90_000, increment_ms=0)
        created = await person.ok(Create(0, "kalah", KGP_OPTIONS, seats, clock))
        assert created.game_id is not None
        joined = await person.ok(Join(0, created.game_id, 0))
        assert joined.token is not None
        agent.answer = False
        await agent.hello("commentator")
        while not agent.game_ids:  # seated
            await agent.line()
        await person.ok(Move(0, created.game_id, joined.token, 0, "1"))  # ends in pit 5
        state = await agent.until("state")
        told = {line.args[0]: line.args[1] for line in agent.heard if line.name == "set"}
        assert told["time:mode"] == '"absolute"'
        assert told["time:clock"] == "90" and told["time:opclock"] == "90"
        await watcher.ok(Watch(0, created.game_id))
        agent.say('set info:comment "depth 3, \\"sure\\""')
        agent.play(state)
        moved = await watcher.event_of(Moved)
        assert moved.seat == 1 and moved.info is not None
        assert moved.info.comment == 'depth 3, "sure"'


async def test_an_agent_faster_than_the_message_budget_is_paced_not_cut_off() -> None:
    """Each state's answer is one ubao `move`: an agent and a bot that answer at once would
    pass the core's budget (which closes a connection that floods), so the gateway waits."""
    async with (
        kgp_server(Limits(burst=4, per_second=10.0)) as (server, port),
        tcp_agent(port) as agent,
    ):
        await agent.hello("sprinter")
        await agent.play_games(1)
        assert not agent.errors
        (room,) = [room for room in games_of(server, "sprinter") if room.status == "over"]
        assert room.result is not None and room.result.reason == "normal"


async def test_two_agents_are_paired_over_tcp_and_websocket() -> None:
    async with (
        kgp_server(wait_ms=20_000) as (server, port),
        tcp_agent(port) as south,
        ws_agent(server.port) as north,
    ):
        await south.hello("tcp agent")
        await north.hello("ws agent")
        await asyncio.gather(south.play_games(1), north.play_games(1))
        (game,) = {south.game_ids[0]} & {north.game_ids[0]}
        room = server.core.rooms[game]
        assert room.status == "over" and room.result is not None
        assert room.result.reason not in ("abandoned", "timeout", "aborted")
        assert {seat.name for seat in room.seats} == {"tcp agent", "ws agent"}
        assert not south.errors and not north.errors


async def test_each_state_is_the_movers_view_and_moves_are_the_rules() -> None:
    async with kgp_server() as (server, port), tcp_agent(port) as agent:
        agent.answer = False
        await agent.hello("checker")
        state = await agent.until("state")
        room = server.core.rooms[agent.game_ids[-1]]
        board = SpecBoard.parse(state.args[0])
        mine = room.seats.index(next(s for s in room.seats if s.name == "checker"))
        assert room.to_move == mine
        pits = room.game.options["pits"]
        position = room.position
        own = list(position[mine * (pits + 1) : mine * (pits + 1) + pits])
        assert board.south == own and board.south_store == position[mine * (pits + 1) + pits]
        pit = max(i for i, n in enumerate(board.south) if n) + 1
        before = room.ply
        agent.say(f"move {pit}", state.id)
        agent.say("yield", state.id)
        async with asyncio.timeout(TIMEOUT):
            while room.ply == before:
                await asyncio.sleep(0.01)
        assert room.history[before] == str(pit)


async def test_bad_input_gets_errors_and_changes_nothing() -> None:
    async with kgp_server() as (server, port), tcp_agent(port) as agent:
        agent.answer = False
        await agent.hello("rascal")
        state = await agent.until("state")
        assert state.id is not None
        room = server.core.rooms[agent.game_ids[-1]]
        ply = room.ply
        board = SpecBoard.parse(state.args[0])
        empty = [i + 1 for i, n in enumerate(board.south) if not n]
        bad = [
            'set info:name "unterminated',
            "x" * (MAX_LINE + 10),
            f"@{state.id} move {len(board.south) + 1}",
            f"@{state.id} move -1",
            f"@{state.id + 1000} move 1",  # no such state
            f"@{state.id} move three",
            "frobnicate",
        ]
        if empty:
            bad.append(f"@{state.id} move {empty[0]}")
        for line in bad:
            agent.send(line)
            answer = await agent.until("error")
            assert answer.ref is None or answer.ref >= 1
        assert len(agent.errors) == len(bad)
        assert room.ply == ply  # nothing changed
        agent.say("ping")
        assert (await agent.until("pong")).name == "pong"  # still served
        for _ in range(3000):  # a flood: past the budget each line is refused
            agent.send("ping")
        flood = await agent.until("error")
        assert "too many" in flood.args[0]
        assert room.ply == ply


async def test_a_stale_state_is_refused_after_it_was_answered() -> None:
    async with kgp_server() as (server, port), tcp_agent(port) as agent:
        agent.answer = False
        await agent.hello("late")
        state = await agent.until("state")
        agent.play(state)
        room = server.core.rooms[agent.game_ids[-1]]
        ply = room.ply
        async with asyncio.timeout(TIMEOUT):
            while room.ply == ply:
                await asyncio.sleep(0.01)
        agent.say("move 1", state.id)
        refusal = await agent.until("error")
        assert "no state waits" in refusal.args[0] and len(agent.errors) == 1


async def test_the_time_runs_out_with_a_stop_and_a_random_legal_move() -> None:
    async with kgp_server(move_ms=300) as (server, port), tcp_agent(port) as agent:
        agent.answer = False
        await agent.hello("sleeper")
        state = await agent.until("state")
        stop = await agent.until("stop")
        assert stop.ref == state.id
        room = server.core.rooms[agent.game_ids[-1]]
        async with asyncio.timeout(TIMEOUT):
            while not room.history or room.seats[room.to_move].name == "sleeper":
                await asyncio.sleep(0.01)
        assert agent.heard[-1].name == "stop"


async def test_a_token_brings_the_agent_back_to_its_seat() -> None:
    async with kgp_server(move_ms=20_000) as (server, port):
        async with tcp_agent(port) as first:
            first.answer = False
            await first.hello("phoenix", token="secret-token")
            await first.until("state")
            game_id = first.game_ids[-1]
        async with tcp_agent(port) as second:
            await second.hello("phoenix", token="secret-token")
            state = await second.until("state")
            assert second.game_ids[-1] == game_id and state.name == "state"
            second.play(state)
            await second.play_games(1)
            room = server.core.rooms[game_id]
            assert room.status == "over" and room.result is not None
            assert room.result.reason not in ("abandoned", "timeout", "aborted")


async def test_verify_mode_checks_solutions_by_the_rules() -> None:
    async with kgp_server() as (_, port), tcp_agent(port) as agent:
        await agent.hello("student", mode="verify")
        for right in (True, False, True):
            problem = await agent.until("problem")
            board = SpecBoard.parse(problem.args[0])
            again = board.sow(int(problem.args[1]) - 1)
            if not right:
                board.south_store += 1
            agent.say(f"solution {board.text()} {int(again)}", problem.id)
            answer = await agent.line()
            assert answer.name == ("ok" if right else "error"), answer


async def test_eval_mode_is_refused_politely() -> None:
    async with kgp_server() as (_, port), tcp_agent(port) as agent:
        await agent.hello("evaluator", mode="eval")
        refusal = await agent.until("error")
        assert "unsupported mode" in refusal.args[0]
        assert (await agent.line()).name == "goodbye"


def test_the_endpoint_is_set_by_flags_and_environment_variables() -> None:
    from ubao.server.__main__ import parse_args

    options = parse_args(["--kgp-port", "2671", "--kgp-wait", "2.5"], {})
    assert options.server.kgp.port == 2671 and options.server.kgp.wait_ms == 2500
    assert parse_args([], {"UBAO_KGP_PORT": "0"}).server.kgp.port == 0
