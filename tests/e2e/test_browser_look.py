"""How the page looks in a real browser: the lobby and a board of each family at 1280x800 and
375x812, light and dark, screenshot (kept in `UBAO_SCREENSHOTS` when set, for a person to look
at) and checked: nothing scrolls sideways, the board fits, no controls overlap; and axe-core
(npm's `axe-core`, where `AXE_CORE` or `.ci/run` put it) finds no serious violation."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from tests.support.browser import (
    Chromium,
    Page,
    axe_source,
    create_game,
    needs_chromium,
)
from tests.support.client import game_server
from tests.support.server import Client
from tests.support.wire import create
from ubao.protocol import SeatSpec, Watch

pytestmark = [needs_chromium, pytest.mark.asyncio(loop_scope="module"), pytest.mark.timeout(180)]

VIEWS = [(1280, 800, False), (1280, 800, True), (375, 812, False), (375, 812, True)]
PHONE = [(375, 812, False)]
BOARDS = [
    ("Kalah", {"Bot_depth": "1"}, VIEWS),
    ("Bao", {"Bot_depth": "1"}, VIEWS),
    ("Othello 8×8", {"Bot_depth": "1"}, VIEWS),
    ("Othello 8×8", {"Board_size": "16×16", "Bot_depth": "1"}, PHONE),  # the largest, narrowest
]


async def look(
    page: Page, name: str, folder: Path, views: list[tuple[int, int, bool]] = VIEWS
) -> list[str]:
    """Screenshots of the page in `views`; what looks wrong in any of them."""
    problems = []
    for width, height, dark in views:
        await page.size(width, height, dark)
        await asyncio.sleep(0.1)  # a frame to lay out again
        shot = folder / f"{name}-{width}x{height}-{'dark' if dark else 'light'}.png"
        await page.screenshot(shot)
        problems += [f"{shot.name}: {problem}" for problem in await page.layout_problems()]
    await page.size(1280, 800)
    kept = os.environ.get("UBAO_SCREENSHOTS")
    if kept:
        Path(kept).mkdir(parents=True, exist_ok=True)
        for shot in folder.glob(f"{name}-*.png"):
            shutil.copy(shot, kept)
    return problems


async def test_the_lobby_and_every_board_fit_and_read_well(
    tmp_path: Path, browser: Chromium
) -> None:
    axe = axe_source()
    async with (
        game_server() as server,
        Client.connected(server.port, "carol") as carol,
    ):
        bots = (SeatSpec.bot(1), SeatSpec.bot(1))
        watched = await create(carol, *bots, options={"pits": 3, "seeds": 2}, pace_ms=60_000)
        await carol.ok(Watch(id=0, game_id=watched))
        page = await browser.page()
        await page.goto(f"http://127.0.0.1:{server.port}/")
        await page.wait_for("link", r"^Watch: Kalah 3×2: .*, 1 watching\)$")  # carol's count
        problems = await look(page, "lobby", tmp_path)
        violations = await page.axe(axe) if axe else []
        for number, (game, choices, views) in enumerate(BOARDS):
            await create_game(page, server.port, game, **choices)
            await page.wait_status("Your turn")
            name = f"board{number}-{game.split()[0].lower()}"
            problems += await look(page, name, tmp_path, views)
            if axe:
                violations += await page.axe(axe)
        assert problems == []
        assert violations == []
        assert page.errors == []
    if not axe:
        pytest.skip("looked, but without axe-core (npm install axe-core; AXE_CORE=its axe.min.js)")
