"""`ubao bot`: the bot client plays whole games with the local engine over the network."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import logging
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.client import (
    FAST,
    Person,
    Proxy,
    game_server,
    kalah_create,
    replays_to_the_end,
    until,
    url_of,
)
from ubao.client.bot import BotGame, EngineSettings, search_limits, search_report_line
from ubao.client.connection import fetch_snapshot
from ubao.client.serving import SeatPicker, SeatToTake, bot_seat, serve, settings_for
from ubao.client.state import GameState, describe_result
from ubao.client.tokens import TokenStore
from ubao.engine.games import make_game
from ubao.engine.protocols import Limits, time_budget
from ubao.engine.protocols.session import search_report
from ubao.engine.protocols.wire import bot_info
from ubao.engine.search import search
from ubao.protocol import (
    MATE_SCORE,
    Clocks,
    Event,
    GameSummary,
    Moved,
    SeatInfo,
    SeatSpec,
)

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize(
    "module", ["ubao.client.bot", "ubao.client.serving", "ubao.client.__main__"]
)
def test_the_bot_client_does_not_load_the_screen_library(module: str) -> None:
    """`ubao bot` runs headless: importing it (or the command line) leaves prompt_toolkit out."""
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if 'prompt_toolkit' in m))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "[]"


async def test_the_bot_plays_a_complete_game_against_a_server_bot(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="ubao.bot")
    async with game_server() as server:
        url = url_of(server)
        bot = BotGame(
            url,
            "robo",
            EngineSettings(depth=3),
            create=kalah_create(SeatSpec.open(), SeatSpec.bot(1)),
            seat=0,
            tokens=TokenStore(tmp_path / "t.json"),
            backoff=FAST,
        )
        result = await asyncio.wait_for(bot.run(), 60)
        assert result is not None and bot.error is None
        assert bot.game_id is not None
        snapshot = await fetch_snapshot(url, "check", bot.game_id)
        assert snapshot.status == "over" and replays_to_the_end(snapshot)
        assert snapshot.seats[0].name == "robo (depth 3)"
        ours = [m for m, seat in zip(bot.state.history, bot.state.movers, strict=True) if seat == 0]
        logged = [r.getMessage() for r in caplog.records if " ply " in r.getMessage()]
        assert len(logged) == len(ours)
        assert all("depth" in line and "score" in line and "pv" in line for line in logged)
        assert TokenStore(tmp_path / "t.json").get(url, bot.game_id, "robo (depth 3)") is None
        assert "new game: connecting" in caplog.text and "game None" not in caplog.text
        ends = [r.getMessage() for r in caplog.records if " over: " in r.getMessage()]
        assert snapshot.result is not None
        names = [seat.name for seat in snapshot.seats]
        line = describe_result(snapshot.result, names, ("South", "North"))
        assert ends == [f"game {bot.game_id} over: {line}"]
        assert re.fullmatch(r"game \S+ over: (South|North), .* (wins|Draw) .*, \d+-\d+", ends[0])
        # Its search reports reached the server and came back in the `moved` events.
        report = bot.state.info.get(0)
        assert report is not None and report.depth >= 1 and report.pv


async def test_the_bot_searches_on_the_threads_it_was_given(tmp_path: Path) -> None:
    async with game_server() as server:
        bot = BotGame(
            url_of(server),
            "robo",
            EngineSettings(depth=3, threads=2),
            create=kalah_create(SeatSpec.open(), SeatSpec.bot(1)),
            seat=0,
            tokens=TokenStore(tmp_path / "t.json"),
            backoff=FAST,
        )
        result = await asyncio.wait_for(bot.run(), 60)
        assert result is not None and bot.error is None and bot.transport is not None
        searcher = bot.transport.session.searcher
        assert searcher is not None and searcher.threads_asked == 2
        native = searcher.native is not None
        assert searcher.threads == (2 if native else 1)
        assert (searcher.threads_note is None) == native


async def test_the_bot_resumes_after_a_dropped_connection_and_finishes_the_game(
    tmp_path: Path,
) -> None:
    async with game_server() as server:
        proxy = Proxy(server.port)
        await proxy.start()
        try:
            bot = BotGame(
                proxy.url,
                "robo",
                EngineSettings(depth=2),
                create=kalah_create(SeatSpec.open(), SeatSpec.bot(1)),
                seat=0,
                tokens=TokenStore(tmp_path / "t.json"),
                backoff=FAST,
            )
            run = asyncio.create_task(bot.run())
            await until(lambda: bot.state.ply >= 2 or bot.state.over, "a few plies")
            proxy.cut()
            await until(lambda: not bot.session.connected.is_set(), "the drop")
            proxy.restore()
            result = await asyncio.wait_for(run, 60)
            assert result is not None and bot.session.reconnects >= 1
            assert bot.game_id is not None
            assert replays_to_the_end(await fetch_snapshot(url_of(server), "x", bot.game_id))
        finally:
            await proxy.close()


async def test_serving_bot_joins_only_seats_that_ask_for_a_bot_and_plays_them(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="ubao.bot")
    async with game_server() as server:
        url = url_of(server)

        def host(name: str, *seats: SeatSpec) -> BotGame:
            return BotGame(
                url,
                name,
                EngineSettings(depth=1),
                create=kalah_create(*seats),
                seat=0,
                tokens=TokenStore(tmp_path / f"{name}.json"),
                backoff=FAST,
            )

        # A person waits for a person: listed first, so a bot that took any open seat would
        # take this one.
        person = host("person", SeatSpec.open(), SeatSpec.open())
        person_task = asyncio.create_task(person.run())
        await until(lambda: person.held is not None, "the person's seat")
        wanting = host("host", SeatSpec.open(), SeatSpec.external_bot(1))
        host_task = asyncio.create_task(wanting.run())
        await until(lambda: wanting.held is not None, "the host's seat")
        server_task = asyncio.create_task(
            serve(
                url,
                "server-bot",
                EngineSettings(depth=2),
                max_games=2,
                poll_seconds=0.05,
                tokens=TokenStore(tmp_path / "serve.json"),
                backoff=FAST,
            )
        )
        try:
            result = await asyncio.wait_for(host_task, 60)
        finally:
            server_task.cancel()
            person_task.cancel()
            await asyncio.gather(server_task, person_task, return_exceptions=True)
        assert result is not None
        assert wanting.state.names() == ["host (depth 1)", "server-bot (depth 1)"]
        assert person.state.names() == ["person (depth 1)", None]
        assert person.state.status == "waiting"
        said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("serving")]
        assert said == [
            f"serving {url} as server-bot (depth 2, up to 2 games at a time): waiting for seats "
            "that ask for a bot client (ubao play --new GAME --vs-external-bot)"
        ]


async def test_an_evaluation_the_game_lacks_ends_the_bot_with_the_reason(tmp_path: Path) -> None:
    async with game_server() as server:
        bot = BotGame(
            url_of(server),
            "robo",
            EngineSettings(depth=2, eval="magic"),
            create=kalah_create(SeatSpec.open(), SeatSpec.bot(1)),
            seat=0,
            tokens=TokenStore(tmp_path / "t.json"),
            backoff=FAST,
        )
        await asyncio.wait_for(bot.run(), 60)
        assert bot.error is not None and "no evaluation 'magic'" in bot.error


def summary(status: str, *seats: SeatInfo) -> GameSummary:
    return GameSummary("g", "kalah", {}, status, 0, seats)  # type: ignore[arg-type]


def test_a_serving_bot_takes_only_free_seats_that_ask_for_a_bot() -> None:
    person = SeatInfo("open", "ann", True)
    bot = SeatInfo("bot", "ubao-engine (depth 3)", True, depth=3)
    free = SeatInfo("open", None, False)
    wanted = SeatInfo("open", None, False, wants_bot=True)
    taken = SeatInfo("open", "robo", True, wants_bot=True)
    assert bot_seat(summary("waiting", person, free)) is None  # a person waits for a person
    assert bot_seat(summary("waiting", free, bot)) is None
    assert bot_seat(summary("waiting", person, wanted)) == 1
    assert bot_seat(summary("waiting", wanted, bot)) == 0
    assert bot_seat(summary("waiting", taken, wanted)) == 1
    assert bot_seat(summary("waiting", wanted, wanted)) == 0
    assert bot_seat(summary("playing", taken, person)) is None


def test_a_serving_bot_takes_no_seat_of_a_game_without_its_evaluation() -> None:
    """Issue 36, 1: a serving bot given an evaluation of one game only (Bao's `front_row`)
    took every game's seat and abandoned it at its first move; it takes only the games it
    can play."""
    settings = EngineSettings(depth=2, eval="front_row")
    wanted = SeatInfo("open", None, False, wants_bot=True)
    kalah = summary("waiting", SeatInfo("open", "ann", True), wanted)
    bao = dataclasses.replace(kalah, game_id="b", game="bao")
    seats = SeatPicker(settings, 2, {})
    seats.heard([kalah, bao], listed=True)
    assert seats.take(busy=0, joined=()) == [SeatToTake("b", 1, settings, bao)]
    assert not settings.plays("kalah") and settings.plays("bao") and EngineSettings(1).plays("x")


async def test_a_serving_bot_says_it_serves_only_once_the_server_answered(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Issue 36, 10: `serving URL` was logged before any connection, even to no server."""
    caplog.set_level(logging.INFO, logger="ubao.bot")
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        url = f"ws://127.0.0.1:{unused.getsockname()[1]}/"
        serving = asyncio.create_task(serve(url, "robo", EngineSettings(depth=1), backoff=FAST))
        await until(lambda: "reconnecting" in caplog.text, "a retry")
        serving.cancel()
        await asyncio.gather(serving, return_exceptions=True)
    said = [record.getMessage() for record in caplog.records]
    assert f"connecting to {url} as robo" in said
    assert not [line for line in said if line.startswith("serving")], said


def test_a_serving_bot_searches_as_deep_as_a_seat_wishes_but_no_deeper_than_its_own_depth() -> None:
    settings = EngineSettings(depth=5, time_ms=100)
    free = SeatInfo("open", None, False)

    def wishing(depth: int | None) -> GameSummary:
        return summary("waiting", free, SeatInfo("open", None, False, wants_bot=True, depth=depth))

    assert settings_for(wishing(None), 1, settings) == settings
    assert settings_for(wishing(3), 1, settings) == EngineSettings(depth=3, time_ms=100)
    assert settings_for(wishing(9), 1, settings) == settings


def test_a_serving_bot_resumes_its_seats_first_then_joins_within_its_limit() -> None:
    settings = EngineSettings(depth=5, time_ms=100)
    wanted = SeatInfo("open", None, False, wants_bot=True)
    person = SeatInfo("open", "ann", True)
    seats = SeatPicker(settings, 2, {"old": (1, settings)})
    open_games = [dataclasses.replace(summary("waiting", person, wanted), game_id=g) for g in "abc"]
    seats.heard([summary("waiting", person, person), *open_games], listed=True)
    assert seats.take(busy=0, joined=()) == [
        SeatToTake("old", 1, settings),
        SeatToTake("a", 1, settings, open_games[0]),
    ]
    assert seats.take(busy=2, joined={"old", "a"}) == []  # full: the others are kept
    assert list(seats.waiting) == ["b", "c"]
    seats.heard([open_games[2]])
    assert seats.take(busy=1, joined={"old", "b"}) == [SeatToTake("c", 1, settings, open_games[2])]
    assert seats.waiting == {}


def test_the_search_report_has_the_shape_of_a_server_bots() -> None:
    game = make_game("kalah", {"pits": 4, "seeds": 3})
    position = game.start()
    result = search(game, position, depth=4)
    info = bot_info(search_report(game, position, result))
    assert info is not None and (info.depth, info.nodes, info.mate) == (
        4,
        result.stats.generated,
        None,
    )
    assert info.score == round(result.score) and len(info.pv) == len(result.pv)
    assert info.pv[0] == game.format_move(position, result.move)
    assert search_report_line(info).startswith(f"depth 4 score {info.score:+d} nodes ")
    # A small game solved to its end: a forced result is scored as the server's bots score it.
    tiny = make_game("kalah", {"pits": 2, "seeds": 1})
    solved = search(tiny, tiny.start(), depth=20)
    report = bot_info(search_report(tiny, tiny.start(), solved))
    assert report is not None and report.mate is not None
    assert abs(report.score) == MATE_SCORE - abs(report.mate)
    assert ("win in" in search_report_line(report)) == (report.mate >= 0)


def test_the_search_limits_carry_time_ms_and_the_clocks_to_the_one_time_manager() -> None:
    state = GameState("g")
    settings = EngineSettings(depth=5, time_ms=1000)
    assert search_limits(state, settings, now=0.0) == Limits(depth=5, time_ms=1000)
    assert time_budget(search_limits(state, EngineSettings(depth=5), now=0.0), 0).hard_ms is None
    state.clocks, state.clocks_at = Clocks((10_000, 8000), running=0, increment_ms=200), 0.0
    limits = search_limits(state, settings, now=0.0)
    assert limits == Limits(5, 1000, clocks=(10_000, 8000), increments=(200, 200))
    assert time_budget(limits, 0) == time_budget(
        Limits(time_ms=1000, clocks=(10_000, 8000), increments=(200, 200)), 0
    )
    short = search_limits(state, EngineSettings(depth=5, time_ms=50), now=0.0)
    assert time_budget(short, 1).hard_ms == 50


async def test_a_serving_bot_grants_a_takeback_and_accepts_a_rematch_in_the_swapped_seat(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A takeback asked of the bot is granted at once, the position goes back, and the bot
    answers the move played instead; after the end it accepts the rematch offered, moves
    first in it as South and plays on."""
    caplog.set_level(logging.INFO, logger="ubao.bot")
    async with game_server() as server:
        url = url_of(server)
        serving = asyncio.create_task(
            serve(
                url,
                "robo",
                EngineSettings(depth=1),
                poll_seconds=0.05,
                tokens=TokenStore(tmp_path / "serve.json"),
                backoff=FAST,
            )
        )
        create = kalah_create(SeatSpec.open(), SeatSpec.external_bot())
        ann = Person(url, "ann", TokenStore(tmp_path / "ann.json"), create=create, seat=0)
        try:
            async with ann.connected():
                await until(ann.my_turn, "the bot's arrival and ann's turn")
                start = ann.state.position
                await ann.play("1")  # pit 1's 3 seeds into pits 2..4: no extra turn
                assert ann.state.history[0] == "1" and ann.state.movers[1] == 1
                await ann.takeback(ann.state.ply)
                await until(lambda: ann.state.ply == 0, "the takeback")
                assert ann.state.history == [] and ann.state.position == start
                assert ann.state.takeback is None and ann.my_turn()
                await ann.play("3")  # another first move: the bot searches anew
                assert ann.state.history[0] == "3" and ann.state.movers[1] == 1
                assert "granting the takeback" in caplog.text

                await ann.resign()
                await until(lambda: ann.state.over, "the end")
                old = ann.game_id
                await ann.rematch()
                await until(lambda: ann.game_id != old and ann.state.started, "the rematch")
                assert ann.held is not None and ann.held.seat == 1
                assert ann.state.names() == ["robo (depth 1)", "ann"]
                await until(ann.my_turn, "the bot's first move as South")
                assert ann.state.history and set(ann.state.movers) == {0}
                first = len(ann.state.history)
                for _ in range(40):  # ann's moves, until the bot answers one (extra turns)
                    if ann.state.over or 0 in ann.state.movers[first:]:
                        break
                    await ann.play(ann.state.legal[0])
                assert 0 in ann.state.movers[first:] or ann.state.over
        finally:
            serving.cancel()
            await asyncio.gather(serving, return_exceptions=True)
        assert [offer.state for offer in ann.offers] == ["offered", "accepted"]
        assert f"game {old}: accepting the rematch offer" in caplog.text


async def test_a_bot_that_would_not_play_again_declines_and_leaves(tmp_path: Path) -> None:
    """`rematch` says no (a serving bot with no free game slot): the offer is declined at once
    and the bot leaves; one that is offered nothing leaves when its wait is over."""
    async with game_server() as server:
        url = url_of(server)

        async def game_ends(wanted: bool, wait: float, offer: bool) -> None:
            create = kalah_create(SeatSpec.open(), SeatSpec.external_bot())
            ann = Person(url, "ann", TokenStore(tmp_path / "ann.json"), create=create, seat=0)
            async with ann.connected():
                await until(lambda: ann.state.started, "ann's game")
                bot = BotGame(
                    url,
                    "robo",
                    EngineSettings(depth=1),
                    game_id=ann.game_id,
                    seat=1,
                    tokens=TokenStore(tmp_path / "robo.json"),
                    backoff=FAST,
                    rematch=lambda: wanted,
                    rematch_wait=wait,
                )
                run = asyncio.create_task(bot.run())
                await until(ann.my_turn, "the game under way")
                await ann.resign()
                await until(lambda: bot.state.over and not bot.playing, "the bot sees the end")
                if offer:
                    await ann.rematch()
                    await until(lambda: [o.state for o in ann.offers] == ["offered", "declined"])
                await asyncio.wait_for(run, 30)
                assert bot.error is None

        await game_ends(wanted=False, wait=60.0, offer=True)
        await game_ends(wanted=True, wait=0.1, offer=False)


async def test_a_finished_game_frees_the_serving_slot_and_a_rematch_needs_a_free_one(
    tmp_path: Path,
) -> None:
    """With one game at a time, the bot takes a new game while it still waits in a finished
    one; a rematch offered there is then declined, as the bot's one slot is in use."""
    async with game_server() as server:
        url = url_of(server)
        serving = asyncio.create_task(
            serve(
                url,
                "robo",
                EngineSettings(depth=1),
                max_games=1,
                poll_seconds=0.05,
                tokens=TokenStore(tmp_path / "serve.json"),
                backoff=FAST,
            )
        )
        create = kalah_create(SeatSpec.open(), SeatSpec.external_bot())
        ann = Person(url, "ann", TokenStore(tmp_path / "ann.json"), create=create, seat=0)
        bob = Person(url, "bob", TokenStore(tmp_path / "bob.json"), create=create, seat=0)
        try:
            async with ann.connected():
                await until(ann.my_turn, "ann's game under way")
                await ann.resign()
                await until(lambda: ann.state.over, "the end of ann's game")
                first = ann.game_id
                async with bob.connected():
                    await until(bob.my_turn, "the bot in bob's game, while ann's is over")
                    await ann.rematch()
                    await until(lambda: [o.state for o in ann.offers] == ["offered", "declined"])
                    assert ann.game_id == first and ann.state.over  # no rematch was made
        finally:
            serving.cancel()
            await asyncio.gather(serving, return_exceptions=True)


async def test_the_bot_keeps_to_the_games_own_pace(tmp_path: Path) -> None:
    """A game created with `pace_ms` paces its server bots; a bot client in it keeps to that
    pace too (its own --pace is 0), so that people can follow the game."""
    pace_ms = 300
    arrivals: list[tuple[float, int]] = []

    class Timed(BotGame):
        def on_event(self, event: Event) -> None:
            if isinstance(event, Moved):
                arrivals.append((time.monotonic(), event.seat))
            super().on_event(event)

    async with game_server() as server:
        create = dataclasses.replace(
            kalah_create(SeatSpec.open(), SeatSpec.bot(1)), pace_ms=pace_ms
        )
        bot = Timed(
            url_of(server),
            "robo",
            EngineSettings(depth=2),
            create=create,
            seat=0,
            tokens=TokenStore(tmp_path / "t.json"),
            backoff=FAST,
        )
        result = await asyncio.wait_for(bot.run(), 60)
    assert result is not None and bot.error is None and bot.game_pace == pace_ms / 1000
    gaps = [
        later - earlier for (earlier, _), (later, seat) in itertools.pairwise(arrivals) if seat == 0
    ]
    assert gaps and min(gaps) >= 0.9 * pace_ms / 1000


@pytest.mark.timeout(300)
async def test_the_bot_log_numbers_plies_as_the_screens_move_list(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="ubao.bot")
    async with game_server() as server:
        bot = BotGame(
            url_of(server),
            "robo",
            EngineSettings(depth=2),
            create=kalah_create(SeatSpec.open(), SeatSpec.bot(1)),
            seat=0,
            tokens=TokenStore(tmp_path / "t.json"),
            backoff=FAST,
        )
        assert await asyncio.wait_for(bot.run(), 60) is not None
    history, movers = bot.state.history, bot.state.movers
    logged = [
        re.fullmatch(r"game \S+ ply (\d+): (\S+) \(.*", record.getMessage())
        for record in caplog.records
        if " ply " in record.getMessage()
    ]
    assert logged and all(match is not None for match in logged)
    for match in logged:
        assert match is not None
        number = int(match[1])  # "6. S 3" on the screen is "ply 6: 3" in the log
        assert (history[number - 1], movers[number - 1]) == (match[2], 0)
