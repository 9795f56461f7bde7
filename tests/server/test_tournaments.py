"""Tournaments on a real server (docs/tournaments-server.md): a round-robin of server bots
runs to its end with standings that equal what its stored games give, and its subscribers hear
each round; a bot client enters and plays its games; an entrant who never comes forfeits after
the grace; a tournament goes on after SIGTERM and after kill -9 of the server."""

from __future__ import annotations

import asyncio
import random
import signal
import time
from pathlib import Path

import pytest

from tests.support.server import TIMEOUT, Client, running_server, small_limits
from tests.support.wire import server_process
from ubao.client.bot import EngineSettings
from ubao.client.tournament_bot import play_tournament
from ubao.protocol import (
    Claim,
    ErrorCode,
    Join,
    Over,
    Player,
    SeatSpec,
    TournamentEvent,
    TournamentJoin,
    TournamentNew,
    TournamentShow,
    TournamentStart,
    TournamentView,
)
from ubao.server.bots import BotSettings
from ubao.server.stores.sqlite import Store
from ubao.server.tournament import MARKS, standings
from ubao.server.tournaments import decimal, replayed

KALAH = {"pits": 3, "seeds": 3}


async def new_tournament(client: Client, *depths: int, **settings: object) -> str:
    new = TournamentNew(id=0, name="test", game="kalah", options=KALAH, **settings)  # type: ignore[arg-type]
    tid = (await client.ok(new)).tournament_id
    assert tid is not None
    for depth in depths:
        await client.ok(TournamentJoin(id=0, tournament_id=tid, bot=SeatSpec("bot", depth)))
    return tid


async def view_of(client: Client, tid: str) -> TournamentView:
    view = (await client.ok(TournamentShow(id=0, tournament_id=tid))).tournament
    assert view is not None
    return view


async def finished(client: Client, tid: str, seconds: float = 120) -> TournamentView:
    """Ask until the tournament is over (a bound, not a timing assumption)."""
    deadline = time.monotonic() + seconds
    while True:
        view = (await client.ok(TournamentShow(id=0, tournament_id=tid))).tournament
        assert view is not None
        if view.status == "finished" or time.monotonic() > deadline:
            return view
        await asyncio.sleep(0.2)


def from_the_store(db: Path, view: TournamentView, partial: bool = False) -> None:
    """The view's standings are what the stored tournament's stored games give, and every
    game of the tournament is an ordinary finished game in the store (`partial`: the store
    may have moved on since the view, a server killed after it; the standings it gives are
    those of its own games, and every pairing the view had is stored with the same game)."""
    store = Store(db)
    try:
        (body,) = [body for tid, body in store.tournaments() if tid == view.tournament_id]
        t, results = replayed(view.tournament_id, body, store.load)
    finally:
        store.close()
    if partial:
        made = [(p.round, p.white, p.black, p.game_id) for p in view.pairings if p.game_id]
        kept = {(p.round, p.white, p.black, p.game_id) for p in t.pairings}
        assert set(made) <= kept
        for p in view.pairings:  # what the view said was over is over, as it said, in the store
            if p.game_id and p.result not in (None, "*"):
                share = results[p.game_id]
                assert share is not None and p.result.startswith(MARKS[share])
        return
    games = [p.game_id for p in t.pairings if p.black is not None]
    assert None not in games and all(results[g] is not None for g in games if g)
    table = standings(t, results)
    expected = [(r.entrant, decimal(r.points), decimal(r.sonneborn_berger)) for r in table]
    assert [(s.entrant, s.points, s.sonneborn_berger) for s in view.standings] == expected
    assert len(t.pairings) == len(view.pairings)


async def test_a_round_robin_of_server_bots_runs_to_its_end_as_its_stored_games_say(
    tmp_path: Path,
) -> None:
    db = tmp_path / "games.sqlite3"
    async with (
        running_server(db=db, bots=BotSettings()) as server,
        Client.connected(server.port, "organiser") as organiser,
        Client.connected(server.port, "fan", role="spectator") as fan,
    ):
        tid = await new_tournament(organiser, 1, 2, 3, 4, double=True, concurrency=3)
        await fan.ok(TournamentShow(id=0, tournament_id=tid, subscribe=True))
        await organiser.ok(TournamentStart(id=0, tournament_id=tid))
        view = await finished(organiser, tid)
        assert view.status == "finished" and view.round == view.rounds == 6
        assert len(view.pairings) == 12 and all(p.result != "*" for p in view.pairings)
        assert sum(float(s.points) for s in view.standings) == 12
        assert all(s.games == 6 for s in view.standings)
        assert [row[i] for i, row in enumerate(view.crosstable)] == ["", "", "", ""]
        assert all(
            len(cell) == 2
            for i, row in enumerate(view.crosstable)
            for j, cell in enumerate(row)
            if i != j
        )
        heard = [m for m in await drain(fan) if isinstance(m, TournamentEvent)]
        assert {p.round for m in heard for p in m.paired} == {1, 2, 3, 4, 5, 6}
        assert heard[-1].tournament.status == "finished"
        refused = await organiser.error(
            TournamentJoin(id=0, tournament_id=tid, bot=SeatSpec("bot", 1))
        )
        assert refused.code == ErrorCode.TOURNAMENT_CLOSED
    from_the_store(db, view)


async def drain(client: Client) -> list[object]:
    """Whatever the client heard so far, events included."""
    got: list[object] = list(client.tournament_events)
    client.tournament_events.clear()
    while True:
        try:
            got.append(await asyncio.wait_for(client.recv(), 0.5))
        except TimeoutError:
            return got


async def test_a_bot_client_enters_under_its_account_and_plays_its_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    db = tmp_path / "games.sqlite3"
    async with running_server(db=db, bots=BotSettings()) as server:
        async with Client.connected(server.port, "claimer") as claimer:
            key = (await claimer.ok(Claim(id=0, name="robo", bot=True))).key
        assert key is not None
        async with Client.connected(server.port, "organiser") as organiser:
            tid = await new_tournament(organiser, 1, 2, scoring="kgp")
            guest = await organiser.error(TournamentJoin(id=0, tournament_id=tid))
            assert guest.code == ErrorCode.NOT_AN_ACCOUNT  # a guest cannot enter as itself
            url = f"ws://127.0.0.1:{server.port}/"
            playing = asyncio.create_task(
                play_tournament(url, "robo", EngineSettings(2), tid, key=key)
            )
            while len((await view_of(organiser, tid)).entrants) < 3:
                await asyncio.sleep(0.05)
            await organiser.ok(TournamentStart(id=0, tournament_id=tid))
            last = await asyncio.wait_for(playing, TIMEOUT * 3)
            assert last.status == "finished"
            view = await finished(organiser, tid)
    robo = view.entrants.index("robo")
    assert view.kinds[robo] == "account"
    line = next(s for s in view.standings if s.entrant == robo)
    assert line.games == 2 and line.byes == 0
    from_the_store(db, view)


async def test_an_entrant_who_never_comes_forfeits_after_the_grace(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    limits = small_limits(grace_ms=300)
    async with running_server(db=db, bots=BotSettings(), limits=limits) as server:
        async with Client.connected(server.port, "claimer") as claimer:
            key = (await claimer.ok(Claim(id=0, name="absent"))).key
        async with Client.connected(server.port, "absent", key=key) as absent:
            tid = await new_tournament(absent, 2)
            await absent.ok(TournamentJoin(id=0, tournament_id=tid))
            await absent.ok(TournamentStart(id=0, tournament_id=tid))
            view = await finished(absent, tid)
    assert view.status == "finished"
    (game,) = view.pairings
    assert game.result in ("1-0", "0-1")
    bot = next(s for s in view.standings if view.kinds[s.entrant] != "account")
    assert bot.points == "1" and bot.rank == 1
    store = Store(db)
    try:
        stored = store.load(game.game_id or "")
        assert stored is not None
        over = stored.events[-1]
        assert isinstance(over, Over) and over.result.reason == "no_show"
    finally:
        store.close()


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
async def test_a_tournament_goes_on_after_the_server_is_stopped(
    tmp_path: Path, how: signal.Signals
) -> None:
    db = tmp_path / "games.sqlite3"
    async with server_process(db) as (process, port):
        async with Client.connected(port, "organiser") as organiser:
            tid = await new_tournament(
                organiser, 1, 2, 3, 4, double=True, concurrency=2, pace_ms=40
            )
            await organiser.ok(TournamentStart(id=0, tournament_id=tid))
            while True:  # some games over, some being played
                view = (await organiser.ok(TournamentShow(id=0, tournament_id=tid))).tournament
                assert view is not None
                if sum(p.result not in (None, "*") for p in view.pairings) >= 3:
                    break
                await asyncio.sleep(0.05)
        process.send_signal(how)
        await asyncio.wait_for(process.wait(), TIMEOUT)
    async with server_process(db) as (_, port), Client.connected(port, "organiser") as organiser:
        view = await finished(organiser, tid)
        assert view.status == "finished" and len(view.pairings) == 12
        assert sum(float(s.points) for s in view.standings) == 12
    from_the_store(db, view)


KILLS = 5
"""Kills in the suite; `benchmarks/tournaments.py --kills 20` runs it 20 times."""


async def test_a_tournament_killed_again_and_again_mid_round_keeps_its_standings_true(
    tmp_path: Path,
) -> None:
    db = tmp_path / "games.sqlite3"
    rng = random.Random(33)
    tid = ""
    for _ in range(KILLS):
        async with server_process(db) as (process, port):
            async with Client.connected(port, "organiser") as organiser:
                if not tid:
                    tid = await new_tournament(organiser, 1, 2, 3, 4, 5, double=True, pace_ms=20)
                    await organiser.ok(TournamentStart(id=0, tournament_id=tid))
                await asyncio.sleep(rng.uniform(0.2, 1.0))
                view = await view_of(organiser, tid)
            process.send_signal(signal.SIGKILL)
            await asyncio.wait_for(process.wait(), TIMEOUT)
        from_the_store(db, view, partial=True)
    async with server_process(db) as (_, port), Client.connected(port, "organiser") as organiser:
        view = await finished(organiser, tid)
    assert view.status == "finished" and len(view.pairings) == 5 * 4 * 2 // 2 + 10
    from_the_store(db, view)


async def test_a_tournament_game_keeps_its_seat_for_its_entrant_and_refuses_the_others(
    tmp_path: Path,
) -> None:
    async with running_server(db=tmp_path / "games.sqlite3", bots=BotSettings()) as server:
        async with Client.connected(server.port, "claimer") as claimer:
            keys = {name: (await claimer.ok(Claim(id=0, name=name))).key for name in ("al", "bo")}
        async with (
            Client.connected(server.port, "al", key=keys["al"]) as al,
            Client.connected(server.port, "bo", key=keys["bo"]) as bo,
            Client.connected(server.port, "guest") as guest,
        ):
            unknown = await al.error(TournamentShow(id=0, tournament_id="nope"))
            assert unknown.code == ErrorCode.UNKNOWN_TOURNAMENT
            bad = TournamentNew(id=0, name="x", game="kalah", options={"pits": 99})
            assert (await al.error(bad)).code == ErrorCode.BAD_OPTIONS
            tid = await new_tournament(al, 3)
            too_deep = TournamentJoin(id=0, tournament_id=tid, bot=SeatSpec("bot", 64))
            assert (await al.error(too_deep)).code == ErrorCode.BAD_OPTIONS
            await al.ok(TournamentJoin(id=0, tournament_id=tid))
            again = await al.error(TournamentJoin(id=0, tournament_id=tid))
            assert again.code == ErrorCode.ALREADY_ENTERED
            not_maker = await bo.error(TournamentStart(id=0, tournament_id=tid))
            assert not_maker.code == ErrorCode.NOT_YOUR_GAME
            await al.ok(TournamentStart(id=0, tournament_id=tid))
            (pairing,) = (await view_of(al, tid)).pairings
            assert pairing.game_id is not None and pairing.result == "*"
            al_seat = 0 if pairing.white == 1 else 1  # al entered second: entrant 1
            for other in (bo, guest):
                refused = await other.error(Join(id=0, game_id=pairing.game_id))
                assert refused.code == ErrorCode.NOT_YOUR_SEAT
            seated = await al.ok(Join(id=0, game_id=pairing.game_id, seat=1 - al_seat))
            assert seated.seat == al_seat  # the seat kept for al, whatever seat al asked for


async def test_a_rated_tournament_rates_its_games_between_accounts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    async with running_server(db=tmp_path / "games.sqlite3", bots=BotSettings()) as server:
        async with Client.connected(server.port, "claimer") as claimer:
            keys = {n: (await claimer.ok(Claim(id=0, name=n, bot=True))).key for n in ("ra", "rb")}
        async with Client.connected(server.port, "organiser") as organiser:
            tid = await new_tournament(organiser, 2, rated=True)  # a server bot: never rated
            url = f"ws://127.0.0.1:{server.port}/"
            playing = [
                asyncio.create_task(play_tournament(url, name, EngineSettings(d), tid, key=key))
                for d, (name, key) in enumerate(keys.items(), 1)
                if key is not None
            ]
            while len((await view_of(organiser, tid)).entrants) < 3:
                await asyncio.sleep(0.05)
            await organiser.ok(TournamentStart(id=0, tournament_id=tid))
            await asyncio.wait_for(asyncio.gather(*playing), TIMEOUT * 3)
            cards = [(await organiser.ok(Player(id=0, name=name))).player for name in keys]
    games = [card.ratings[0].games if card and card.ratings else 0 for card in cards]
    assert games == [1, 1]  # their game against each other, not those against the server bot
