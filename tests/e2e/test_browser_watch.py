"""Watching and replaying in a real browser: a server-bot game followed from the lobby to its
end with every move announced and the engine's report seen, then stepped back through, and its
record exported as `ubao replay` reads it."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from tests.support.browser import GAME_OVER, Chromium, choose, moves_shown, needs_chromium
from tests.support.client import game_server
from tests.support.server import Client
from tests.support.wire import create
from ubao.engine.record import parse_record
from ubao.protocol import SeatSpec, Snapshot, TournamentJoin, TournamentNew, TournamentStart, Watch

HEAR = """window.heard = [];
new MutationObserver(() => heard.push(document.getElementById('status').textContent))
  .observe(document.getElementById('status'), {childList: true, subtree: true});"""
"""Keeps every announcement of the page's live status region in `window.heard`."""

pytestmark = [needs_chromium, pytest.mark.asyncio(loop_scope="module"), pytest.mark.timeout(180)]


async def test_a_bot_game_watched_from_the_lobby_to_its_end(
    tmp_path: Path, browser: Chromium
) -> None:
    async with (
        game_server() as server,
        Client.connected(server.port, "carol") as carol,
    ):
        page = await browser.page(375, 812, dark=True)
        await page.goto(f"http://127.0.0.1:{server.port}/")
        await page.wait_for("heading", "^Games$")
        await page.evaluate(HEAR)  # the status region stays from page to page
        bots = (SeatSpec.bot(1), SeatSpec.bot(2))
        game_id = await create(carol, *bots, options={"pits": 3, "seeds": 2}, pace_ms=500)
        await page.press("link", r"^Watch: Kalah 3×2: ubao-engine \(depth 1\) vs")
        await choose(page, "Animation speed", "fast")
        await page.wait_for("button", r"^South pit 1, \d+ seeds?")  # nobody's row: both named
        await page.wait_for("StaticText", r"\(ubao-engine \(depth \d\)\): depth \d, score")
        assert await page.find_all("textbox", "^Move$") == []  # a spectator has no move to type
        text = await page.wait_status(GAME_OVER, timeout=60)
        async with Client.connected(server.port, "dave", role="spectator") as dave:
            await dave.ok(Watch(id=0, game_id=game_id))
            snapshot = await dave.event()
        assert isinstance(snapshot, Snapshot) and snapshot.result is not None
        assert snapshot.result.score is not None
        winner = snapshot.result.winner or 0  # the winner's score first, as the terminal says it
        score = snapshot.result.score
        assert f"{score[winner]}-{score[1 - winner]}" in text
        played = len(snapshot.history)
        assert await moves_shown(page) == played
        heard = await page.evaluate("window.heard")
        announced = [
            m[1] for text in heard if (m := re.match(r"(?:South|North) played (\S+)\.", text))
        ]
        # Every move after the page's snapshot (normally the first, the bots waiting 500 ms),
        # announced live, in order, none missed; the moves list holds the whole game.
        assert announced == list(snapshot.history[played - len(announced) :])
        assert len(announced) >= played // 2

        await page.press("button", "^Previous move$")
        await page.wait_status(f"After move {played - 1} of {played}")
        await page.press("button", r"^1\. ")
        await page.wait_status(f"After move 1 of {played}")
        first = snapshot.history[0]
        assert await page.find_all("button", f"^South pit {first}, 0 seeds, last move$")
        await page.press("button", "^Latest position$")
        await page.wait_status("The latest position")

        downloads = tmp_path / "downloads"
        downloads.mkdir()
        await browser.call(
            "Browser.setDownloadBehavior",
            behavior="allow",
            downloadPath=str(downloads),
            browserContextId=page.context,
        )
        await page.press("link", "^Export record$")
        for _ in range(100):
            files = list(downloads.glob("*.txt"))
            if files:
                break
            await asyncio.sleep(0.05)
        record = parse_record(files[0].read_text())
        assert record.game == "kalah" and list(record.moves) == list(snapshot.history)
        assert re.fullmatch(r"ubao-engine \(depth 1\)", record.tags["South"])
        assert page.errors == []


async def test_a_tournament_followed_to_its_end_and_a_players_page(browser: Chromium) -> None:
    async with game_server() as server, Client.connected(server.port, "tess") as tess:
        new = TournamentNew(id=0, name="depths", game="kalah", options={"pits": 3, "seeds": 2})
        tid = (await tess.ok(new)).tournament_id
        assert tid is not None
        for depth in (1, 2):
            await tess.ok(TournamentJoin(id=0, tournament_id=tid, bot=SeatSpec.bot(depth)))
        page = await browser.page(375, 812)
        await page.goto(f"http://127.0.0.1:{server.port}/")
        await page.press("link", r"^depths: Kalah round robin, open, 2 entrants$")
        await page.wait_for("table", "^Standings: open")
        await tess.ok(TournamentStart(id=0, tournament_id=tid))
        await page.wait_for("table", "^Standings: finished, round 1 of 1$")  # followed live
        assert await page.find_all("rowheader", r"^bot-d2 \(bot depth 2\)$")
        await page.press("link", r"^Watch Round 1: .* vs .* \((1-0|0-1|½-½)\)$")
        await page.wait_status(GAME_OVER)
        await page.goto(f"http://127.0.0.1:{server.port}/player/tess")
        await page.wait_for("heading", "^Player tess$")
        await page.wait_for("StaticText", "^No rated games yet.$")
        assert page.errors == []
