"""Ratings in `ubao`: a rated game between two accounts' screens ends with each seat's rating
change in both game-over boxes; `ubao ratings` and `ubao player` print the leaderboard and an
account's card, as text and as JSON; the words and tables themselves."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import pytest

from tests.client.test_accounts import ubao
from tests.support.client import game_server, kalah_create, screen, until, url_of
from ubao.client.bot import BotGame, EngineSettings
from ubao.client.connection import request_once
from ubao.client.lobby import lobby_table
from ubao.client.standings import leaderboard_table, rating_change
from ubao.client.tokens import TokenStore
from ubao.protocol import Claim, GameSummary, Player, PoolRating, RatingChange, SeatInfo
from ubao.server.ratings import Standing, rated_game

pytestmark = pytest.mark.timeout(120)


async def claim(url: str, name: str) -> str:
    ok = await request_once(url, "claimer", "human", Claim(id=0, name=name))
    assert ok.key is not None
    return ok.key


async def test_a_rated_game_shows_both_changes_and_the_commands_read_them(tmp_path: Path) -> None:
    async with game_server() as server:
        url = url_of(server)
        keys = {name: await claim(url, name) for name in ("alice", "bob")}
        create = dataclasses.replace(kalah_create(options={"pits": 3, "seeds": 2}), rated=True)
        tokens = tmp_path / "tokens.json"
        async with screen(url, "alice", tokens, create=create, key=keys["alice"]) as alice:
            await until(lambda: alice.live.state.started, "alice's game")
            game_id = alice.live.game_id
            async with screen(url, "bob", tokens, game_id=game_id, key=keys["bob"]) as bob:
                await until(lambda: alice.live.state.legal, "alice's turn")
                bob.type("\x12y")  # Ctrl-R, y: resign
                await until(lambda: alice.live.state.ratings is not None, "alice's ratings")
                await until(lambda: bob.live.state.ratings is not None, "bob's ratings")
                for seen in (alice, bob):
                    end = "".join(text for _, text, *_ in seen.live.app._end_text())
                    assert "South, alice: 1500 → " in end and "North, bob: 1500 → " in end
                    assert "? (+" in end and "? (-" in end  # provisional, up and down

        status, out = await ubao(tmp_path, "ratings", "kalah", "--server", url)
        assert status == 0, out
        rows = out.splitlines()
        assert rows[0].split() == ["pool", "player", "rating", "RD", "games", "W/D/L"]
        assert rows[1].split()[:2] == ["kalah/untimed", "alice"] and "1/0/0" in rows[1]
        assert rows[2].split()[:2] == ["kalah/untimed", "bob"] and "0/0/1" in rows[2]
        status, out = await ubao(tmp_path, "ratings", "kalah", "--json", "--server", url)
        board = json.loads(out)
        assert [(r["player"], r["provisional"]) for r in board] == [("alice", True), ("bob", True)]
        status, out = await ubao(tmp_path, "player", "BOB", "--json", "--server", url)
        card = json.loads(out)
        assert card["name"] == "bob" and card["recent"][0]["game_id"] == game_id
        assert card["recent"][0]["outcome"] == "loss" and card["recent"][0]["opponent"] == "alice"
        status, out = await ubao(tmp_path, "player", "carol", "--server", url)
        assert (status, out.strip()) == (0, "carol has played no rated game")


def test_a_change_reads_before_arrow_after_and_the_difference() -> None:
    up = RatingChange("alice", "kalah/blitz", 1500, 1512, 80, False)
    down = RatingChange("bob", "kalah/blitz", 1500, 1259, 384, True)
    assert rating_change(up) == "1500 → 1512 (+12)"
    assert rating_change(down) == "1500 → 1259? (-241)"


def test_the_leaderboard_marks_provisional_ratings_and_aligns_its_numbers() -> None:
    rows = [
        PoolRating("alice", "kalah/blitz", 1712, 98, 14, 10, 1, 3),
        PoolRating("bob", "kalah/blitz", 988, 231, 2, 0, 0, 2, True),
    ]
    lines = leaderboard_table(rows).splitlines()
    assert lines[1].split() == ["kalah/blitz", "alice", "1712", "98", "14", "10/1/3"]
    assert lines[2].split() == ["kalah/blitz", "bob", "988?", "231", "2", "0/0/2"]
    assert len({len(line) for line in lines}) == 1  # right-aligned to one width


async def test_two_bot_accounts_play_a_rated_game_to_its_end_and_are_rated_for_it(
    tmp_path: Path,
) -> None:
    async with game_server() as server:
        url = url_of(server)
        keys = {}
        for name in ("robo", "droid"):
            ok = await request_once(url, "claimer", "bot", Claim(id=0, name=name, bot=True))
            assert ok.key is not None
            keys[name] = ok.key
        create = dataclasses.replace(kalah_create(options={"pits": 4, "seeds": 3}), rated=True)
        tokens = TokenStore(tmp_path / "t.json")
        robo = BotGame(
            url,
            "robo",
            EngineSettings(depth=3),
            create=create,
            seat=0,
            tokens=tokens,
            key=keys["robo"],
        )
        playing = asyncio.create_task(robo.run())
        await until(lambda: robo.game_id is not None, "robo's game")
        assert robo.game_id is not None
        droid = BotGame(
            url,
            "droid",
            EngineSettings(depth=1),
            game_id=robo.game_id,
            tokens=tokens,
            key=keys["droid"],
        )
        result, _ = await asyncio.wait_for(asyncio.gather(playing, droid.run()), 60)
        assert result is not None and result.reason not in ("aborted", "resign")
        assert robo.state.ratings is not None and robo.state.ratings == droid.state.ratings
        expected = rated_game(
            robo.game_id,
            "kalah/untimed",
            0,
            ("robo", "droid"),
            (Standing(), Standing()),
            result,
        ).changes()
        assert robo.state.ratings == expected
        card = (await request_once(url, "x", "spectator", Player(id=0, name="robo"))).player
        assert card is not None and card.ratings[0].rating == expected[0].after


def test_the_lobby_says_which_games_are_rated() -> None:
    seats = (SeatInfo("open", "alice", True, account=True), SeatInfo("open", None, False))
    rated = GameSummary("AbCd1234", "kalah", {}, "waiting", 0, seats, rated=True)
    casual = dataclasses.replace(rated, game_id="EfGh5678", rated=False)
    rows = lobby_table([rated, casual]).splitlines()
    assert rows[1].split()[:3] == ["AbCd1234", "kalah", "rated"]
    assert rows[2].split()[:3] == ["EfGh5678", "kalah", "-"]
