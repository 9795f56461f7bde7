"""Playing in a real browser (headless Chromium) on the page ubao-server serves: against a server
bot in every family (Bao's direction question answered), two pages against each other, a page
against a terminal player, and a page reloaded mid-game that gets its seat back. Everything is
found by its accessible name, as a screen reader user finds it; no page logs an error."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from tests.support.browser import (
    GAME_OVER,
    YOUR_TURN,
    Chromium,
    choose,
    claim_name,
    create_game,
    moves_shown,
    needs_chromium,
    play_one,
    play_to_end,
)
from tests.support.client import Proxy, game_server, kalah_create, screen, until, url_of

pytestmark = [needs_chromium, pytest.mark.asyncio(loop_scope="module"), pytest.mark.timeout(180)]


async def test_a_kalah_game_against_a_server_bot_played_to_its_end(browser: Chromium) -> None:
    async with game_server() as server:
        page = await browser.page()
        await create_game(
            page,
            server.port,
            "Kalah",
            Pits_per_side="3",
            Seeds_per_pit="2",
            Bot_depth="1",
        )
        await page.wait_for("button", r"^pit 1, 2 seeds, legal move$")
        assert await page.find_all("button", r"^North pit 1, 2 seeds$")
        assert await page.find_all("button", r"^your store, 0 seeds$")
        text = await play_to_end(page)
        assert re.search(r"Game over: ((South|North) wins|Draw) at the end of play, \d+-\d+", text)
        first = await page.evaluate("location.pathname")
        await page.press("button", "^Rematch$")  # the bot accepts at once: its new game opens
        await page.wait_for("StaticText", r"^North: guest\d+ \(guest\) — you")  # swapped
        assert await page.evaluate("location.pathname") != first
        assert page.errors == []


async def test_the_board_is_played_from_the_keyboard(browser: Chromium) -> None:
    """A pit focused, the arrows walk the board as the player sees it, Enter plays."""
    async with game_server() as server:
        page = await browser.page()
        await create_game(page, server.port, "Kalah", Bot_depth="1", Clock="3+2")
        await page.wait_status(YOUR_TURN)
        assert len(await page.find_all("StaticText", "^3:00$")) == 2  # both clocks
        await page.focus("button", r"^pit 1, 4 seeds, legal move$")
        for key, name in [
            ("ArrowRight", "pit 2, 4 seeds, legal move"),
            ("ArrowRight", "pit 3, 4 seeds, legal move"),
            ("ArrowUp", "North pit 4, 4 seeds"),  # North's row reads from North's left
            ("ArrowDown", "pit 3, 4 seeds, legal move"),
        ]:
            await page.key(key)
            assert await page.evaluate("document.activeElement.ariaLabel") == name
        await page.key("Enter")
        await page.wait_for("button", r"^1\. South 3$")
        await page.wait_status(YOUR_TURN)  # 4 seeds from pit 3 end in the store: again
        await page.press("button", "^Take back$")  # the bot grants it at once
        await page.wait_status(r"^Move taken back\. Your turn")
        assert await moves_shown(page) == 0
        assert page.errors == []


async def test_bao_against_a_bot_asks_the_direction_and_othello_ends(browser: Chromium) -> None:
    async with game_server() as server:
        page = await browser.page()
        await create_game(page, server.port, "Bao", Bot_depth="1")
        await page.press("button", r"^A6, 2 seeds, nyumba|^A6, 2 seeds, legal move")
        await page.wait_status("Which way")
        assert await page.find_all("button", "^Sow to the left$")
        await page.press("button", "^Sow to the right$")
        await page.wait_for("button", r"^1\. South A6R$")
        await page.wait_status(YOUR_TURN)
        await play_one(page)
        await page.press("button", "^Resign$")
        await page.wait_status(r"Game over: North wins by resignation")

        await create_game(page, server.port, "Othello 8×8", Board_size="4×4", Bot_depth="1")
        await page.wait_for("button", r"^b1, empty, legal move$")
        assert await page.find_all("button", r"^b2, white$")
        text = await play_to_end(page)
        assert re.search(r"Game over: .*\d+-\d+", text)
        assert page.errors == []


async def test_two_pages_of_two_accounts_play_a_rated_game(browser: Chromium) -> None:
    async with game_server() as server:
        alice, bob = await browser.page(), await browser.page(375, 812)
        await claim_name(alice, server.port, "alice")
        await claim_name(bob, server.port, "bob")
        await create_game(
            alice,
            server.port,
            "Kalah",
            tick="^Rated",
            Pits_per_side="3",
            Seeds_per_pit="2",
            Opponent="anyone",
        )
        await alice.wait_status("Waiting for a player")
        await bob.goto(f"http://127.0.0.1:{server.port}/")
        await bob.press("link", r"^Join: Kalah 3×2: alice vs \(free seat\)")
        await bob.wait_for("heading", "Kalah 3×2")
        await bob.wait_for("link", "^bob$")  # an account's name leads to its page
        await choose(bob, "Animation speed", "off")
        heights = """['S1', 'N1'].map((label) =>
            document.querySelector(`[data-hole="${label}"]`).getBoundingClientRect().top)"""
        south, north = await bob.evaluate(heights)
        assert north > south  # North sees the board turned: its own row at the bottom
        south, north = await alice.evaluate(heights)
        assert south > north
        await alice.wait_status(YOUR_TURN)
        for _ in range(1000):  # a bound, not a timing: a game of Kalah (3,2) is far shorter
            for page in (alice, bob):
                if re.search(YOUR_TURN, await page.status()) and await page.find_all(
                    "button", "legal move"
                ):
                    await play_one(page)
            texts = [await alice.status(), await bob.status()]
            if all(re.search(GAME_OVER, text) for text in texts):
                break
            await asyncio.sleep(0.02)
        assert texts[0] == texts[1]
        assert re.search(r"alice 1500 → \d+, bob 1500 → \d+\.$", texts[0])  # rated
        assert await moves_shown(alice) == await moves_shown(bob)
        await bob.press("link", "^alice$")
        await bob.wait_for("heading", "^Player alice$")
        await bob.wait_for("StaticText", r"^kalah/untimed: \d+\? \(1 games")
        assert alice.errors == [] and bob.errors == []


async def test_a_page_plays_a_terminal_player(tmp_path: Path, browser: Chromium) -> None:
    async with game_server() as server:
        create = kalah_create(options={"pits": 3, "seeds": 2})
        async with screen(url_of(server), "tina", tmp_path / "t.json", create=create) as tina:
            await until(lambda: tina.live.game_id is not None, "tina's game")
            page = await browser.page()
            await page.goto(f"http://127.0.0.1:{server.port}/")
            await page.press("link", r"^Join: Kalah 3×2: tina \(guest\)")
            await choose(page, "Animation speed", "off")
            while not tina.live.state.over:
                if tina.live.state.legal and not tina.live.state.over:
                    ply = tina.live.state.ply
                    tina.type(f"{tina.live.state.legal[0]}\r")
                    await until(lambda: tina.live.state.ply > ply, "tina's move")  # noqa: B023
                elif re.search(YOUR_TURN, await page.status()) and await page.find_all(
                    "button", "legal move"
                ):
                    await play_one(page)
                else:
                    await asyncio.sleep(0.05)
            await page.wait_status(GAME_OVER)
            assert await moves_shown(page) == tina.live.state.ply
        assert page.errors == []


async def test_a_page_keeps_its_seat_and_typed_move_through_a_drop_and_a_reload(
    browser: Chromium,
) -> None:
    async with game_server() as server:
        proxy = Proxy(server.port)
        await proxy.start()
        try:
            page = await browser.page()
            await create_game(page, proxy.port, "Kalah", Bot_depth="1")
            await page.wait_status(YOUR_TURN)
            name, _ = await page.wait_for("button", r"^pit \d, 4 seeds, legal move$")
            proxy.cut()  # the network drops: the page tries again and again
            await page.wait_for("StaticText", "^Connection lost")
            await page.focus("textbox", "^Move$")
            await page.type(name.split(",")[0].removeprefix("pit "))
            await page.key("Enter")
            await page.wait_status("Not connected: the move is sent when the connection is back")
            proxy.restore()
            await page.wait_for("button", r"^1\. South \d$")  # sent once the seat was back
            assert await page.evaluate("document.getElementById('move-input').value") == ""
            await page.goto(await page.evaluate("location.href"))  # the reload
            await page.wait_status(YOUR_TURN)  # the reloaded page resumed its seat
            assert await moves_shown(page) >= 2
            assert await page.find_all("button", "^Resign$")
            await page.focus("textbox", "^Move$")
            await page.type("9")  # no such pit: refused, and the typed move stays to be fixed
            await page.key("Enter")
            await page.wait_status("Refused: ")
            assert await page.evaluate("document.getElementById('move-input').value") == "9"
        finally:
            await proxy.close()
        assert page.errors == []
