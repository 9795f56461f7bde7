"""KGP agents as tournament entrants (docs/kgp.md, "Tournaments"): `ubao-engine kgp
--tournament ID`, connecting with its account's key as `auth:token`, is entered (or finds itself
entered) and plays every game it is paired in over KGP, and hears `goodbye` at the end."""

from __future__ import annotations

import asyncio
import time

from tests.server.test_accounts import claim
from tests.support.server import TIMEOUT, Client, running_server
from ubao.engine.protocols.kgp import kgp_options
from ubao.engine.tools.kgp_agent import AgentSettings, run_agent
from ubao.protocol import (
    SeatSpec,
    Snapshot,
    TournamentJoin,
    TournamentNew,
    TournamentShow,
    TournamentStart,
    TournamentView,
    Watch,
)
from ubao.server.bots import BotSettings
from ubao.server.kgp_settings import KgpSettings


async def view_of(client: Client, tid: str) -> TournamentView:
    view = (await client.ok(TournamentShow(id=0, tournament_id=tid))).tournament
    assert view is not None
    return view


async def test_kgp_agents_enter_a_tournament_and_play_their_games_over_kgp() -> None:
    kgp = KgpSettings(port=0, wait_ms=200, move_ms=5_000, bot_depth=1)
    async with running_server(kgp=kgp, bots=BotSettings()) as server:
        assert server.kgp.port is not None
        keys = {name: await claim(server.port, name, bot=True) for name in ("kgp-a", "kgp-b")}
        async with Client.connected(server.port, "organiser") as organiser:
            new = TournamentNew(
                id=0, name="kgp", game="kalah", options=kgp_options(4, 3), double=True
            )
            tid = (await organiser.ok(new)).tournament_id
            assert tid is not None
            await organiser.ok(TournamentJoin(id=0, tournament_id=tid, bot=SeatSpec("bot", 1)))
            # One agent's owner enters it beforehand, as any account is entered...
            async with Client.connected(server.port, "kgp-b", key=keys["kgp-b"]) as owner:
                await owner.ok(TournamentJoin(id=0, tournament_id=tid))
            agents = [
                asyncio.create_task(
                    run_agent(
                        ("127.0.0.1", server.kgp.port),
                        AgentSettings(depth=2, info={"name": name}, token=key, tournament=tid),
                    )
                )
                for name, key in keys.items()
            ]
            # ...the other enters itself on connecting, with its token as its account's key.
            deadline = time.monotonic() + TIMEOUT
            while "kgp-a" not in (await view_of(organiser, tid)).entrants:
                assert time.monotonic() < deadline, "the agent never entered"
                await asyncio.sleep(0.05)
            await organiser.ok(TournamentStart(id=0, tournament_id=tid))
            answered = await asyncio.wait_for(asyncio.gather(*agents), TIMEOUT * 6)
            assert all(answered)  # each answered states, then heard goodbye at the end
            view = await view_of(organiser, tid)
            games = [p for p in view.pairings if p.black is not None]  # not the byes
            assert view.status == "finished" and len(games) == 6
            assert view.kinds[1:] == ("account", "account")
            assert all(s.games == 4 for s in view.standings)
            for p in games:
                assert p.game_id is not None
                room = server.core.rooms.get(p.game_id)
                assert room is not None and room.result is not None
                assert room.result.reason not in ("no_show", "abandoned", "timeout")
            agent_game = next(
                p.game_id for p in view.pairings if p.game_id and 0 not in (p.white, p.black)
            )
            await organiser.ok(Watch(id=0, game_id=agent_game))
            snapshot = await organiser.event_of(Snapshot)
            assert all(seat.account and seat.client == "bot" for seat in snapshot.seats)
