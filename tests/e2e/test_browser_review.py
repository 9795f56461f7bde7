"""A finished game's computer analysis in a real browser (headless Chromium), and a game's draw
offers and abort: a Kalah game played to its end against a server bot, its analysis asked for
on the page, then read as a screen reader reads it (each move's class in its name, the graph's
text, each side's figures, the mistake keys) and checked against the server's own analysis;
the page screenshot, its layout and axe-core checked; the record exported with the marks; a
draw offered to a bot, which declines at once, then the game aborted before the first move;
and a player's offers declined and accepted. Everything is found by its accessible name."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.support.browser import (
    Chromium,
    Page,
    axe_source,
    create_game,
    needs_chromium,
    play_to_end,
)
from tests.support.client import game_server
from tests.support.server import Client
from tests.support.wire import create, join
from ubao.client import analysis_text
from ubao.engine.record import parse_record
from ubao.engine.review import GLYPHS
from ubao.protocol import (
    ANALYSIS_FORMAT,
    Analyse,
    AnalysisMark,
    Draw,
    DrawAnswer,
    DrawOffer,
    GameAnalysis,
    PlyAnalysis,
    SideAnalysis,
    to_wire,
)

pytestmark = [needs_chromium, pytest.mark.asyncio(loop_scope="module"), pytest.mark.timeout(120)]

SERIOUS = ("mistake", "blunder")


async def test_a_finished_game_is_analysed_on_its_page(tmp_path: Path, browser: Chromium) -> None:
    async with game_server(analysis_time_ms=20) as server:
        page = await browser.page()
        await create_game(
            page, server.port, "Kalah", Pits_per_side="3", Seeds_per_pit="3", Bot_depth="1"
        )
        await play_to_end(page)
        game_id = str(await page.evaluate("location.pathname")).rsplit("/", 1)[1]
        await page.press("button", "^Request computer analysis$")
        await page.wait_status("^The computer analysis is here: accuracy South \\d+%, North \\d+%")
        async with Client.connected(server.port, "checker") as checker:
            reply = await checker.ok(Analyse(id=0, game_id=game_id))  # stored: at once
        analysis = reply.analysis
        assert isinstance(analysis, GameAnalysis)

        for ply in analysis.plies:  # each move's class is in its name, its glyph in its text
            suffix = f", {ply.mark}" if ply.mark else ""
            name = f"^{ply.ply + 1}\\. (South|North) {re.escape(ply.move)}{suffix}$"
            assert await page.find_all("button", name), name
        marks = [ply.mark for ply in analysis.plies]
        assert any(marks), "the game has no marked move: the test shows nothing"
        assert await page.find_all("image", "^Evaluation graph from South's side: ")
        graph_marks = await page.evaluate("document.querySelectorAll('.eval-mark').length")
        assert graph_marks == sum(1 for mark in marks if mark)
        for seat, side in enumerate(analysis.sides):
            label = ("South", "North")[seat]
            accuracy = f"accuracy {round(side.accuracy)}%"
            assert await page.find_all("StaticText", f"^{label}: {accuracy}, ")

        await page.press("button", "^First position$")
        serious = [index + 1 for index, mark in enumerate(marks) if mark in SERIOUS]
        if serious:  # `m` and the button go to the position after the next one
            await page.key("m")
            await page.wait_status(f"^After move {serious[0]} of {len(marks)}\\. After ")
            await page.press("button", "^Previous mistake$")
            await page.wait_status("^No earlier mistake or blunder")
        else:
            await page.press("button", "^Next mistake$")
            await page.wait_status("^No later mistake or blunder")
        best = analysis.plies[0].best
        await page.press("button", "^First position$")
        await page.wait_for("StaticText", f"^Start: [+-]\\d+(\\.\\d)? seeds( =)?; best {best}\\.$")

        await shoot(page, tmp_path)
        await page.goto(await page.evaluate("location.href"))  # the snapshot carries it
        await page.wait_for("image", "^Evaluation graph")
        exported = await export(browser, page, tmp_path / "downloads")
        record = parse_record(exported)
        assert list(record.marks) == [GLYPHS[mark] for mark in marks]
        assert page.errors == []


async def test_the_pages_analysis_figures_are_the_terminals(browser: Chromium) -> None:
    """analysis.js against client/analysis_text.py: the same glyphs, the same graph heights,
    the same mistake jumps from every step both ways, the same value texts."""
    marks: list[AnalysisMark] = ["", "mistake", "inaccuracy", "", "blunder", "", "", "mistake", ""]
    plies = tuple(
        PlyAnalysis(i, i % 2, "1", "2", ("2",), i - 4.5, 2.0 * i - 9, 0.5, mark, 1, 1, 1, i > 6)
        for i, mark in enumerate(marks)
    )
    side = SideAnalysis(90.0, 0.5, 1, 1, 1)
    analysis = GameAnalysis(ANALYSIS_FORMAT, "discs", 20, plies, (side, side))
    values = [-30.0, -2.5, 0.0, 4.0, 64.0]
    async with game_server() as server:
        page = await browser.page()
        await page.goto(f"http://127.0.0.1:{server.port}/")
        script = """import('/static/analysis.js').then((a) => {
            const analysis = %s, steps = [...Array(analysis.plies.length + 1).keys()];
            return {
                glyphs: a.marksOf(analysis),
                jumps: steps.map((shown) =>
                    [1, -1].map((step) => a.nextSerious(analysis, shown, step))),
                shares: %s.map((value) => a.share(value, analysis.units)),
                texts: analysis.plies.map((ply) =>
                    a.valueText(ply.after, analysis.units, ply.exact)),
            };
        })"""
        page_says = await page.evaluate(script % (json.dumps(to_wire(analysis)), values))
    glyphs = analysis_text.marks_of(analysis)
    assert page_says["glyphs"] == list(glyphs)
    assert page_says["jumps"] == [
        [analysis_text.next_serious(glyphs, shown, step) for step in (1, -1)]
        for shown in range(len(marks) + 1)
    ]
    for value, share in zip(values, page_says["shares"], strict=True):
        assert share == pytest.approx(analysis_text.share(value, "discs"))
    assert page_says["texts"] == [
        analysis_text.value_text(ply.after, "discs", ply.exact) for ply in plies
    ]
    assert page.errors == []


async def test_a_draw_offered_to_a_bot_is_declined_and_a_game_aborted(browser: Chromium) -> None:
    async with game_server() as server:
        page = await browser.page()
        await create_game(page, server.port, "Kalah", Bot_depth="1")
        await page.wait_status("^Your turn")
        await page.press("button", "^Offer draw$")  # a server bot plays on: declined at once
        await page.wait_status("^South's draw offer declined\\. Your turn")
        await page.wait_for("button", "^Offer draw$")  # and it may be offered again
        await page.press("button", "^Abort$")  # before the first move
        await page.wait_status("^Game over: Game aborted")
        assert not await page.find_all("button", "^Abort$|^Offer draw$")
        assert page.errors == []


async def test_a_players_draw_offer_is_answered_on_the_page(browser: Chromium) -> None:
    """A person's offer waits for an answer: declined, then offered again and accepted."""
    async with game_server() as server, Client.connected(server.port, "carol") as carol:
        game_id = await create(carol)
        token = await join(carol, game_id, 0)
        page = await browser.page()
        await page.goto(f"http://127.0.0.1:{server.port}/game/{game_id}")
        await page.press("button", "^Take the free seat$")
        await page.wait_status("^South \\(carol \\(guest\\)\\) to move")
        await carol.ok(Draw(id=0, game_id=game_id, token=token, ply=0))
        await page.wait_status("^South offers a draw\\.$")
        assert not await page.find_all("button", "^Offer draw$")
        await page.press("button", "^Decline draw$")
        await page.wait_status("^South's draw offer declined\\.")
        await page.press("button", "^Offer draw$")  # the page's own offer: carol declines it
        await until_offered(carol, by=1)
        await carol.ok(DrawAnswer(id=0, game_id=game_id, token=token, ply=0, accept=False))
        await page.wait_status("^North's draw offer declined\\.")
        await carol.ok(Draw(id=0, game_id=game_id, token=token, ply=0))
        await page.press("button", "^Accept draw$")
        await page.wait_status("^Game over: Draw by agreement")
        assert page.errors == []


async def until_offered(client: Client, by: int) -> None:
    """Wait for seat `by`'s draw offer to reach `client` (its own earlier offer's event, still
    unread, is not it)."""
    while True:
        event = await client.event()
        if isinstance(event, DrawOffer) and event.state == "offered" and event.seat == by:
            return


async def shoot(page: Page, folder: Path) -> None:
    """The analysed game at a phone's width (light and dark) and a desktop's, kept in
    `UBAO_SCREENSHOTS` when set (for a person to look at); nothing may scroll sideways or
    overlap, and axe-core (when there) finds no serious violation."""
    problems = []
    for width, height, dark in ((375, 812, False), (375, 812, True), (1280, 800, False)):
        await page.size(width, height, dark)
        await page.evaluate("document.querySelector('.analysis').scrollIntoView()")
        await asyncio.sleep(0.1)  # a frame to lay out again
        shot = folder / f"analysis-{width}x{height}-{'dark' if dark else 'light'}.png"
        await page.screenshot(shot)
        problems += await page.layout_problems()
        kept = os.environ.get("UBAO_SCREENSHOTS")
        if kept:
            Path(kept).mkdir(parents=True, exist_ok=True)
            shutil.copy(shot, kept)
    axe = axe_source()
    if axe:
        problems += await page.axe(axe)
    assert problems == []


async def export(browser: Chromium, page: Page, downloads: Path) -> str:
    """The record the page's Export record link saves."""
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
            return files[0].read_text()
        await asyncio.sleep(0.05)
    raise AssertionError("nothing was exported")
