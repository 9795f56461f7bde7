"""Bot seats: the search of a turn (pure) and the engine pool, against a scripted fake
engine that can crash, hang or cheat, and against the real engine."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support.server import (
    FAILING_ENGINE,
    SMALL_KALAH,
    TIMEOUT,
    Client,
    Referee,
    fake_engine,
    turn,
)
from tests.support.wire import server_exit
from ubao.engine.protocols import EnginePosition, Info, Limits
from ubao.engine.protocols.wire import bot_info
from ubao.protocol import MATE_SCORE, BotInfo, Clocks, Create, Moved, SeatSpec, Watch
from ubao.server.app import GameServer, ServerConfig
from ubao.server.bots import (
    ENGINE_COMMAND,
    Bots,
    BotSettings,
    seat_limits,
    seat_options,
    seat_search,
)

# -- the search of a turn ----------------------------------------------------------------------


def test_a_turn_searches_to_the_seats_depth_time_and_clocks() -> None:
    search = seat_search(turn(), 10_000)
    assert search.position == EnginePosition("kalah", SMALL_KALAH, "startpos", ("1",), 1)
    assert search.limits == Limits(depth=2, time_ms=10_000)
    assert search.options == {"Algorithm": "negamax", "Eval": "mobility"}
    clocks = Clocks(remaining_ms=(9000, 8000), running=0, increment_ms=100)
    assert seat_limits(SeatSpec.bot(4, time_ms=250), clocks, 10_000) == Limits(
        depth=4, time_ms=250, clocks=(9000, 8000), increments=(100, 100)
    )


def test_every_turn_sets_every_option_of_the_seat() -> None:
    # A pooled engine may have searched for another seat: defaults are set back explicitly.
    assert seat_options(SeatSpec.bot(2)) == {"Algorithm": "negamax", "Eval": "<empty>"}
    spec = SeatSpec.bot(2, eval="mobility", algorithm="alphabeta")
    assert seat_options(spec) == {"Algorithm": "alphabeta", "Eval": "mobility"}


def test_a_report_becomes_the_wires_bot_info() -> None:
    info = Info(depth=5, score=-12, nodes=4000, nps=80000, time_ms=50, pv=("3", "1", "2"))
    assert bot_info(info) == BotInfo(depth=5, score=-12, nodes=4000, time_ms=50, pv=("3", "1", "2"))
    mate = bot_info(Info(depth=7, mate=3, nodes=9, time_ms=1, pv=("2",)))
    assert mate is not None and (mate.score, mate.mate) == (MATE_SCORE - 3, 3)
    mated = bot_info(Info(depth=7, mate=-4, nodes=9, time_ms=1))
    assert mated is not None and (mated.score, mated.mate, mated.pv) == (-(MATE_SCORE - 4), -4, ())
    assert bot_info(Info(string="hello")) is None and bot_info(Info(score=3)) is None
    assert bot_info(None) is None


# -- the driver --------------------------------------------------------------------------------


def settings(command: tuple[str, ...], **changes: float) -> BotSettings:
    values: dict[str, Any] = {"start_timeout_s": 30.0, "move_timeout_s": 30.0}
    values |= {"stop_grace_s": 0.2, "quit_timeout_s": 0.2} | changes
    return BotSettings(command=command, attempts=3, **values)


async def play(bots: Bots, referee: Referee, game_id: str = "g") -> str | None:
    try:
        return await bots.play(turn(game_id), referee)
    finally:
        await bots.close()


async def test_a_good_engine_moves_and_reports_its_search() -> None:
    referee = Referee()
    assert await play(Bots(settings(fake_engine())), referee) is None
    ((move, info),) = referee.offered
    assert move == "1" and info is not None and info.mate == 3 and info.pv == ("1",)


async def test_one_engine_plays_turn_after_turn_of_many_games_and_is_closed_at_the_end() -> None:
    bots = Bots(settings(fake_engine(), engines=1))
    assert await bots.play(turn(), Referee()) is None
    (engine,) = bots.engines
    assert await bots.play(turn(moves=("1", "1")), Referee(("1", "1"))) is None
    await bots.release("g")  # the game is over; its engine stays for the next one
    assert await bots.play(turn("h"), Referee()) is None
    assert bots.engines == {engine} and engine.transport.process.returncode is None
    await bots.close()
    assert engine.transport.process.returncode is not None and not bots.engines


async def test_the_pool_bounds_the_engines_and_every_turn_gets_its_move() -> None:
    bots = Bots(settings(fake_engine(), engines=2))
    running: list[int] = []

    def referee(move: str, info: BotInfo | None) -> bool:
        running.append(len(bots.engines))
        return Referee()(move, info)

    try:
        games = [f"g{i}" for i in range(6)]
        results = await asyncio.gather(*(bots.play(turn(g), referee) for g in games))
    finally:
        await bots.close()
    assert results == [None] * 6
    assert len(running) == 6 and max(running) <= 2


async def test_a_real_engine_takes_the_servers_table_size_and_each_seats_options() -> None:
    # The real engine refuses an option or position it does not know (an error before readyok):
    # every line the pool sends must be one it accepts.
    bots = Bots(settings(ENGINE_COMMAND, hash_mb=1, engines=1))
    try:
        assert await bots.play(turn(), Referee()) is None
        plain = turn("h", spec=SeatSpec.bot(3, algorithm="alphabeta"))
        assert await bots.play(plain, Referee()) is None
        assert len(bots.engines) == 1
    finally:
        await bots.close()


async def test_an_engine_goes_from_a_seat_of_one_game_to_another_games_seat() -> None:
    # Othello has no `store_seeds`: an engine still set to it would refuse the next position.
    bots = Bots(settings(ENGINE_COMMAND, hash_mb=1, engines=1))
    othello = turn("h", game="othello", options={"size": 4}, moves=(), spec=SeatSpec.bot(2))
    try:
        assert await bots.play(turn(spec=SeatSpec.bot(2, eval="store_seeds")), Referee()) is None
        (engine,) = bots.engines
        assert await bots.play(othello, lambda move, info: True) is None
        assert bots.engines == {engine}  # never refused, so never replaced
    finally:
        await bots.close()


async def test_a_paced_bot_waits_before_its_move_is_played() -> None:
    bots = Bots(settings(fake_engine()))
    loop = asyncio.get_running_loop()
    start = loop.time()
    try:
        assert await bots.play(turn(pace_ms=400), Referee()) is None
    finally:
        await bots.close()
    assert loop.time() - start >= 0.4


async def test_a_crashed_engine_is_restarted_and_the_game_goes_on(tmp_path: Path) -> None:
    referee = Referee()
    bots = Bots(settings(fake_engine("crash", tmp_path / "once")))
    assert await play(bots, referee) is None
    assert [move for move, _ in referee.offered] == ["1"]


async def test_an_error_after_go_is_logged_and_the_bestmove_that_follows_is_played(
    caplog: pytest.LogCaptureFixture,
) -> None:
    referee = Referee()
    bots = Bots(settings(fake_engine("search-error")))
    assert await bots.play(turn(), referee) is None
    (engine,) = bots.engines
    assert engine.transport.process.returncode is None  # kept for the next turn, not killed
    await bots.close()
    assert [move for move, _ in referee.offered] == ["1"]
    assert "the search failed" in caplog.text


async def test_a_real_engine_whose_search_fails_still_plays_its_fallback_move(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bots = Bots(settings(FAILING_ENGINE))
    referee = Referee()
    assert await bots.play(turn(), referee) is None
    (engine,) = bots.engines
    ((move, info),) = referee.offered
    assert info is not None and info.depth == 1 and move == info.pv[0]  # its best move so far
    assert "RuntimeError('out of luck')" in caplog.text
    # The same engine process plays the next turn too.
    assert await bots.play(turn(moves=("1", move)), Referee(("1", move))) is None
    assert bots.engines == {engine} and engine.transport.process.returncode is None
    await bots.close()


async def test_an_engine_that_refuses_the_position_is_restarted_before_it_searches(
    tmp_path: Path,
) -> None:
    referee = Referee()
    bots = Bots(settings(fake_engine("refuse-position", tmp_path / "once")))
    assert await play(bots, referee) is None
    assert [move for move, _ in referee.offered] == ["1"]  # never the refused engine's 9Z


async def test_an_engine_that_refuses_go_is_restarted_at_the_deadline(tmp_path: Path) -> None:
    referee = Referee()
    bots = Bots(settings(fake_engine("refuse", tmp_path / "once"), move_timeout_s=1.5))
    assert await play(bots, referee) is None
    assert [move for move, _ in referee.offered] == ["1"]


async def test_a_hung_engine_is_killed_and_restarted(tmp_path: Path) -> None:
    referee = Referee()
    # The timeout is generous so that the restarted engine answers within it on a busy machine.
    bots = Bots(settings(fake_engine("hang", tmp_path / "once"), move_timeout_s=1.5))
    assert await play(bots, referee) is None
    assert [move for move, _ in referee.offered] == ["1"]


async def test_a_hung_engine_still_plays_the_best_move_it_reported() -> None:
    referee = Referee()
    bots = Bots(settings(fake_engine("hang-info"), move_timeout_s=1.5))
    assert await play(bots, referee) is None
    ((move, info),) = referee.offered
    assert move == "1" and info is not None and info.score == 7


async def test_an_engine_that_keeps_failing_gives_up_with_the_reason() -> None:
    referee = Referee()
    why = await play(Bots(settings(fake_engine("illegal"))), referee)
    assert why is not None and "'9Z' is not legal" in why
    assert [move for move, _ in referee.offered] == ["9Z"] * 3


@pytest.mark.parametrize(
    ("command", "start_timeout_s", "words"),
    [
        (fake_engine("silent"), 0.5, "no answer to the handshake"),
        (("/nonexistent/engine",), 30.0, "cannot start"),
        (fake_engine("crash"), 30.0, "engine exited"),
    ],
)
async def test_an_engine_that_cannot_play_at_all(
    command: tuple[str, ...], start_timeout_s: float, words: str
) -> None:
    why = await play(Bots(settings(command, start_timeout_s=start_timeout_s)), Referee())
    assert why is not None and words in why


async def test_release_stops_a_thinking_bot_and_its_engine() -> None:
    bots = Bots(settings(fake_engine("hang"), move_timeout_s=60))

    async def think() -> None:
        await bots.play(turn(), Referee())

    task = asyncio.create_task(think())
    bots.spawn("g", task)
    while not bots.engines:
        await asyncio.sleep(0.01)
    (engine,) = bots.engines
    await bots.release("g")
    with pytest.raises(asyncio.CancelledError):
        await task
    assert engine.transport.process.returncode is not None and not bots.engines
    await bots.close()


@pytest.mark.parametrize(
    ("engine", "flags", "why"),
    [
        ("/nonexistent/engine", (), "cannot start /nonexistent/engine"),
        ("false", (), ""),
        ("cat", ("--engine-start-timeout", "0.5"), "no answer to the handshake within 0.5 s"),
    ],
)
def test_an_engine_that_does_not_work_exits_with_2_at_the_start(
    engine: str, flags: tuple[str, ...], why: str, tmp_path: Path
) -> None:
    if not engine.startswith("/"):
        found = shutil.which(engine)
        if found is None:
            pytest.skip(f"no {engine} here")
        engine = found
    result = server_exit("--engine", engine, *flags, tmp_path=tmp_path)
    assert result.returncode == 2, result.stderr
    last = result.stderr.splitlines()[-1]
    assert last.startswith(f"ubao-server: --engine {engine} does not work: "), result.stderr
    assert why in last and "Traceback" not in result.stderr
    assert "listening on" not in result.stderr


async def test_the_engine_checked_at_the_start_plays_the_first_bot_turn() -> None:
    config = ServerConfig(port=0, bots=BotSettings(command=fake_engine()))
    server = GameServer(config)
    await server.check_engine()
    assert len(server.bots.engines) == 1
    checked = set(server.bots.engines)
    await server.start()
    try:
        async with Client.connected(server.port, "ada") as client:
            bot = SeatSpec.bot(1)
            ok = await client.ok(
                Create(id=0, game="kalah", options={"pits": 3, "seeds": 2}, seats=(bot, bot))
            )
            assert ok.game_id is not None
            await client.ok(Watch(id=0, game_id=ok.game_id))
            await asyncio.wait_for(client.event_of(Moved), TIMEOUT)
            assert set(server.bots.engines) == checked  # no second engine was started
    finally:
        await server.stop()
