"""Engine bots: engines of the operator's (`--engine-bot NAME=DIALECT:COMMAND`) that bot seats
ask for by name, offered in `hello`, refused when unknown, played from the same pool."""

from __future__ import annotations

import asyncio
import shlex
import sys
from pathlib import Path

import pytest

from tests.support.server import (
    TIMEOUT,
    Client,
    Harness,
    Referee,
    fake_engine,
    small_limits,
    turn,
)
from tests.support.wire import server_exit
from ubao.protocol import Create, ErrorCode, Moved, Over, SeatSpec, Snapshot, Watch
from ubao.server.__main__ import parse_args
from ubao.server.app import GameServer, ServerConfig
from ubao.server.bots import Bots, BotSettings, EngineBot, seat_options

TWIN = EngineBot("twin", "ubao", fake_engine())


def test_an_engine_bot_is_a_name_a_protocol_and_a_command() -> None:
    bot = EngineBot.parse("edax-4.4=ubao:/opt/edax/ubao-edax --level 'a b'")
    assert bot == EngineBot("edax-4.4", "ubao", ("/opt/edax/ubao-edax", "--level", "a b"))
    for text, words in [
        ("edax", "NAME=DIALECT:COMMAND"),
        ("edax=ubao", "NAME=DIALECT:COMMAND"),
        ("Edax=ubao:edax", "engine bot name"),
        ("ed:ax=ubao:edax", "engine bot name"),
        ("edax=chess:edax", "unknown protocol 'chess'"),
        ("edax=ubao: ", "no command"),
    ]:
        with pytest.raises(ValueError, match=words):
            EngineBot.parse(text)


def test_the_flag_repeats_and_its_variable_holds_one_a_line() -> None:
    flags = ["--engine-bot", "a=ubao:engine-a", "--engine-bot", "b=ubao:engine-b -x"]
    bots = parse_args(flags, {}).server.bots.engine_bots
    assert [(bot.name, bot.command) for bot in bots] == [
        ("a", ("engine-a",)),
        ("b", ("engine-b", "-x")),
    ]
    environ = {"UBAO_ENGINE_BOT": "a=ubao:engine-a\n\nc=ubao:engine-c\n"}
    assert [bot.name for bot in parse_args([], environ).server.bots.engine_bots] == ["a", "c"]
    assert parse_args(["--engine-bot", "d=ubao:d"], environ).server.bots.engine_bots == (
        EngineBot("d", "ubao", ("d",)),
    )


def test_hello_offers_the_engine_bots_and_a_seat_asking_for_another_is_refused() -> None:
    h = Harness(small_limits(engine_bots=("twin", "edax")))
    ada = h.connect()
    assert ada.hello().engines == ("twin", "edax")
    assert Harness().connect().hello().engines is None  # a server without engine bots
    game_id = ada.create(SeatSpec.open(), SeatSpec.bot(3, engine="twin"))
    (snapshot,) = [m for m in ada.send(Watch(id=0, game_id=game_id)) if isinstance(m, Snapshot)]
    seat = snapshot.seats[1]
    assert (seat.name, seat.engine, seat.depth) == ("twin (depth 3)", "twin", 3)
    assert not [t for t in h.bot_turns if t.game_id == game_id]  # South, the person, is first
    create = Create(
        id=0, game="kalah", options={}, seats=(SeatSpec.open(), SeatSpec.bot(3, engine="zebra"))
    )
    error = ada.error(create)
    assert error.code == ErrorCode.BAD_OPTIONS
    assert "no engine bot 'zebra' (on offer: twin, edax)" in error.message


def test_an_engine_bot_takes_none_of_ubaos_engines_options() -> None:
    assert SeatSpec.bot(3, engine="twin", eval="mobility").why_invalid() is not None
    assert SeatSpec("open", engine="twin").why_invalid() is not None
    assert seat_options(SeatSpec.bot(3, engine="twin")) == {}


async def test_a_seat_of_an_engine_bot_is_played_by_that_engine() -> None:
    # ubao's engine here would crash at every `go`: the move comes from the engine bot.
    settings = BotSettings(
        command=fake_engine("crash"), engine_bots=(TWIN,), stop_grace_s=0.2, quit_timeout_s=0.2
    )
    bots = Bots(settings)
    referee = Referee()
    try:
        assert await bots.play(turn(spec=SeatSpec.bot(2, engine="twin")), referee) is None
        ((move, info),) = referee.offered
        assert move == "1" and info is not None and info.mate == 3
        (engine,) = bots.engines
        assert engine.bot == "twin" and engine.label.endswith("(twin)")
        why = await bots.play(turn("h"), Referee())  # ubao's own engine: a new process
        assert why is not None and "exited" in why
    finally:
        await bots.close()


async def test_a_server_plays_an_engine_bot_end_to_end() -> None:
    config = ServerConfig(port=0, bots=BotSettings(engine_bots=(TWIN,)))
    server = GameServer(config)
    await server.check_engine_bots()
    await server.start()
    try:
        async with Client.connected(server.port, "ada") as client:
            bot = SeatSpec.bot(1, engine="twin")
            create = Create(id=0, game="kalah", options={"pits": 3, "seeds": 2}, seats=(bot, bot))
            ok = await client.ok(create)
            assert ok.game_id is not None
            await client.ok(Watch(id=0, game_id=ok.game_id))
            moved = await asyncio.wait_for(client.event_of(Moved), TIMEOUT)
            assert moved.info is not None and moved.info.mate == 3  # the fake engine's report
    finally:
        await server.stop()


def test_an_engine_bot_that_does_not_work_exits_with_2_naming_it(tmp_path: Path) -> None:
    fake = shlex.join(fake_engine())  # a quick --engine, so that the engine bot is what fails
    flags = ["--engine", fake, "--engine-bot", "mute=ubao:cat", "--engine-start-timeout", "2"]
    result = server_exit(*flags, tmp_path=tmp_path)
    assert result.returncode == 2, result.stderr
    last = result.stderr.splitlines()[-1]
    assert last.startswith("ubao-server: --engine-bot mute (cat): no answer to the handshake")
    assert "Traceback" not in result.stderr


def test_engine_bots_need_a_single_server(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="a cluster node runs none"):
        GameServer(
            ServerConfig(redis="redis://127.0.0.1:1/0", bots=BotSettings(engine_bots=(TWIN,)))
        )
    assert sys.executable  # the cluster's client need not be installed for this refusal


@pytest.mark.parametrize("dialect", ["nboard", "gtp"])
async def test_an_othello_engine_over_nboard_or_gtp_plays_a_whole_game(dialect: str) -> None:
    """`ubao-engine nboard` (or `gtp`) as an engine bot of another protocol than ubao's own,
    against ubao's engine: every move the other engine sent is one the rules took, to the end."""
    other = EngineBot("other", dialect, (sys.executable, "-m", "ubao.engine", dialect))
    config = ServerConfig(port=0, bots=BotSettings(engine_bots=(other,)))
    server = GameServer(config)
    await server.check_engine_bots()
    await server.start()
    try:
        async with Client.connected(server.port, "ada") as client:
            seats = (SeatSpec.bot(2, engine="other"), SeatSpec.bot(2))
            create = Create(id=0, game="othello", options={"size": 6}, seats=seats)
            ok = await client.ok(create)
            assert ok.game_id is not None
            await client.ok(Watch(id=0, game_id=ok.game_id))
            over = await asyncio.wait_for(client.event_of(Over), 120)
            assert over.result.reason not in ("engine_failure", "timeout")
            assert over.result.score is not None and sum(over.result.score) > 4
    finally:
        await server.stop()
