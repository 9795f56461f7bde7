"""The interactive lobby's screen: drawn at the sizes a terminal has, and live against a real
server (pipe input, no terminal): games appear, move, gain spectators and end while it shows,
and a key returns the game chosen."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input

from tests.support.client import FAST, WAIT_S, game_server, screen, until, url_of
from tests.support.screen import SIZES, SizedOutput, draw
from ubao.client.connection import request_once
from ubao.client.lobby_machine import ERROR, Play, Say, Start, Watch
from ubao.client.lobby_screen import LobbyScreen
from ubao.client.tokens import TokenStore
from ubao.protocol import (
    Claim,
    Create,
    GameSummary,
    PairingLine,
    PoolRating,
    Result,
    SeatInfo,
    SeatSpec,
    StandingLine,
    TournamentJoin,
    TournamentNew,
    TournamentStart,
    TournamentSummary,
    TournamentView,
)

pytestmark = pytest.mark.timeout(120)

LONG = "a-very-long-player-name-that-goes-on"
DOWN, RIGHT, ENTER = "\x1b[B", "\x1b[C", "\r"
OPEN_GAME = Create(id=0, game="kalah", options={}, seats=(SeatSpec.open(), SeatSpec.open()))


def summary(number: int, **fields: object) -> GameSummary:
    base = GameSummary(
        game_id=f"game{number:04}",
        game="kalah",
        options={"pits": 4, "seeds": 3},
        status="over",
        ply=40 + number,
        seats=(
            SeatInfo("open", LONG, False),
            SeatInfo("bot", "ubao-engine (depth 6)", True, depth=6),
        ),
        created=number,
        result=Result(0, "normal", (30, 18)),
        spectators=number % 4,
    )
    return dataclasses.replace(base, **fields)  # type: ignore[arg-type]


def drawn_lobby(columns: int, rows: int, games: list[GameSummary]) -> LobbyScreen:
    lobby = LobbyScreen("ws://127.0.0.1:1/", "tess", output=SizedOutput(columns, rows))
    lobby.connection = "connected"
    lobby.model.replace(games)
    return lobby


@pytest.mark.parametrize(("columns", "rows"), SIZES)
def test_the_lobby_fits_the_terminal_with_every_column_in_sight(columns: int, rows: int) -> None:
    games = [summary(n) for n in range(30)]
    seats = (SeatInfo("open", "bob", True), SeatInfo("open", None, False))
    games.append(summary(99, status="waiting", ply=0, result=None, spectators=0, seats=seats))
    lobby = drawn_lobby(columns, rows, games)
    lines = draw(lobby.application, columns, rows)
    assert lines[0].startswith("ubao lobby: tess  1 open, 0 live, 30 finished  [all]")
    assert lines[1].split() == ["GAME", "PLAYERS", "STATUS", "PLY", "WATCHING"]
    assert lines[2].startswith("> kalah  bob (guest) vs (open)") and lines[2].endswith(" 0")
    assert "waiting" in lines[2]
    assert lines[3].startswith("  kalah  a-very") and "vs bot d6" in lines[3]
    assert lines[3].endswith(f"{40 + 29}         1")  # the ply and the spectators, newest first
    assert "South won" in lines[3]
    if columns >= 80:
        assert "South won 30-18" in lines[3]
    keys = "Enter: play  n: new game  l: ratings  t: tournaments  Tab: filter  q: quit"
    narrow = "Enter: play  n: new game  l: ratings  q: quit"
    assert lines[-1] == (keys if columns >= 80 else narrow)
    assert lines[-3] == 'game game0099  kalah  {"pits":4,"seeds":3}'
    assert all(len(line) <= columns for line in lines)


@pytest.mark.parametrize(("columns", "rows"), SIZES)
def test_the_selected_game_stays_in_sight_in_a_long_list(columns: int, rows: int) -> None:
    lobby = drawn_lobby(columns, rows, [summary(n) for n in range(60)])
    for key in ("end", "up"):
        lobby.carry_out(lobby.model.press(key) or [])
        lines = draw(lobby.application, columns, rows)
        selected = [line for line in lines if line.startswith("> ")]
        assert len(selected) == 1 and lobby.model.selected is not None
        assert lines[-3].startswith(f"game {lobby.model.selected}")
        number = int(lobby.model.selected.removeprefix("game"))
        assert selected[0].endswith(f"{40 + number}         {number % 4}")
    assert lines[-1].startswith("Enter: watch")


@pytest.mark.parametrize(("columns", "rows"), SIZES)
def test_the_new_game_form_is_drawn_in_place_of_the_list(columns: int, rows: int) -> None:
    lobby = drawn_lobby(columns, rows, [summary(1)])
    lobby.carry_out(lobby.model.press("n") or [])
    lobby.carry_out(lobby.model.press("down") or [])
    lobby.carry_out(lobby.model.press("right") or [])
    text = "\n".join(draw(lobby.application, columns, rows))
    assert "  game: < kalah >" in text and "> opponent: < server bot, depth 1 >" in text
    assert "  rated: < no (casual) >" in text
    assert "up/down: field  left/right: change  Enter: create  Esc: back" in text


@pytest.mark.parametrize(("columns", "rows"), SIZES)
def test_the_leaderboard_is_drawn_in_place_of_the_list(columns: int, rows: int) -> None:
    lobby = drawn_lobby(columns, rows, [summary(1, game="othello")])
    lobby.carry_out([e for e in lobby.model.press("l") or [] if isinstance(e, Say)])
    assert "asking the server" in "\n".join(draw(lobby.application, columns, rows))
    best = [
        PoolRating(f"player{n}", "othello/blitz", 1900 - 10 * n, 60, 30, 20, 1, 9)
        for n in range(40)
    ]
    lobby.model.show_leaderboard(
        "othello", (*best, PoolRating("new", "othello/blitz", 1500, 350, 1, 1, 0, 0, True))
    )
    lines = draw(lobby.application, columns, rows)
    assert lines[0].startswith("ubao lobby: tess") and lines[1] == "Leaderboard: othello"
    assert lines[2].split() == ["pool", "player", "rating", "RD", "games", "W/D/L"]
    assert lines[3].split() == ["othello/blitz", "player0", "1900", "60", "30", "20/1/9"]
    assert lines[-1] == "left/right: another game  Esc: back  ^Q: quit"
    assert lines[-4].startswith("--")  # as many as fit above the rule


@pytest.mark.parametrize(("columns", "rows"), SIZES)
def test_the_tournaments_and_one_tournaments_standings_are_drawn_in_place_of_the_list(
    columns: int, rows: int
) -> None:
    lobby = drawn_lobby(columns, rows, [summary(1)])
    lobby.carry_out([e for e in lobby.model.press("t") or [] if isinstance(e, Say)])
    assert "asking the server" in "\n".join(draw(lobby.application, columns, rows))
    cups = [
        TournamentSummary(f"t{n}", f"cup {n}", "kalah", "round_robin", "running", 4, 1, 3)
        for n in range(30)
    ]
    lobby.model.show_tournaments(tuple(cups))
    lobby.carry_out(lobby.model.press("down") or [])
    lines = draw(lobby.application, columns, rows)
    assert lines[1] == "Tournaments"
    assert lines[2].split()[:4] == ["id", "name", "game", "format"]
    assert lines[4].startswith("> t1") and lines[4].split()[2:8] == [
        "cup", "1", "kalah", "round-robin", "running", "1/3"
    ]  # fmt: skip
    assert lines[-1] == "Enter: standings  r: refresh  Esc: back  ^Q: quit"
    follow = lobby.model.press("enter") or []
    lobby.carry_out([e for e in follow if isinstance(e, Say)])
    names = tuple(f"{LONG}{n}" for n in range(12))
    view = TournamentView(
        "t1", "cup 1", "kalah", "round_robin", "running", "standard", False, 1, 11, names,
        ("account",) * 12,
        tuple(StandingLine(n + 1, n, "0", 0, 0, 0, 0, 0, "0", "0", 1500) for n in range(12)),
        (PairingLine(1, 0, 1, "g1", "*"),),
        tuple(tuple("" for _ in names) for _ in names),
    )  # fmt: skip
    lobby.model.show_tournament(view)
    lines = draw(lobby.application, columns, rows)
    assert lines[1].startswith("cup 1 (t1): round-robin of kalah, running, round 1 of 11")
    assert lines[3].split()[:3] == ["#", "entrant", "kind"]
    assert lines[4].split()[:3] == ["1", f"{LONG}0", "account"]
    assert lines[-1] == "w: watch its game  j: join  Esc: back  ^Q: quit"
    assert lines[-4].startswith("--")  # as many as fit above the rule
    assert all(len(line) <= columns for line in lines)


@contextlib.asynccontextmanager
async def showing(
    url: str, tmp_path: Path, name: str = "tess", key: str | None = None
) -> AsyncIterator[tuple[LobbyScreen, PipeInput]]:
    """A running lobby on pipe input, asking for the page five times a second."""
    with create_pipe_input() as keys:
        lobby = LobbyScreen(
            url,
            name,
            tokens=TokenStore(tmp_path / "tokens.json"),
            key=key,
            backoff=FAST,
            refresh_seconds=0.2,
            input=keys,
            output=SizedOutput(80, 24),
        )
        yield lobby, keys


async def created(url: str, create: Create) -> str:
    ok = await request_once(url, "maker", "spectator", create)
    assert ok.game_id is not None
    return ok.game_id


async def test_the_lobby_follows_games_as_they_start_move_gain_spectators_and_end(
    tmp_path: Path,
) -> None:
    async with game_server() as server, showing(url_of(server), tmp_path) as (lobby, keys):
        url = url_of(server)
        task = asyncio.create_task(lobby.run())
        await until(lambda: lobby.model.loaded, "the first page")
        assert lobby.model.rows() == []
        bots = Create(
            id=0,
            game="kalah",
            options={"pits": 3, "seeds": 2},
            seats=(SeatSpec.bot(1), SeatSpec.bot(1)),
            pace_ms=400,
        )
        game_id = await created(url, bots)
        await until(lambda: game_id in lobby.model.games, "the new game listed")
        await until(lambda: lobby.model.games[game_id].ply > 0, "its moves counted")
        async with screen(url, "watcher", tmp_path / "w.json", game_id=game_id, watch=True):
            await until(lambda: lobby.model.games[game_id].spectators == 1, "a spectator")
            await until(lambda: lobby.model.games[game_id].status == "over", "its end")
        finished = [line for line in draw(lobby.application, 80, 24) if "bot d1 vs bot d1" in line]
        assert len(finished) == 1 and (" won " in finished[0] or " draw " in finished[0])
        open_id = await created(url, OPEN_GAME)
        await until(lambda: lobby.model.rows()[0].game_id == open_id, "the open game first")
        keys.send_text(DOWN + ENTER)  # the finished game: watched, move by move
        assert await asyncio.wait_for(task, WAIT_S) == Watch(game_id)


async def test_enter_on_an_open_game_takes_its_seat_and_n_creates_one(tmp_path: Path) -> None:
    async with game_server() as server:
        url = url_of(server)
        open_id = await created(url, OPEN_GAME)
        async with showing(url, tmp_path) as (lobby, keys):
            task = asyncio.create_task(lobby.run())
            await until(lambda: lobby.model.selected == open_id, "the open game selected")
            keys.send_text(ENTER)
            assert await asyncio.wait_for(task, WAIT_S) == Play(open_id)
        async with showing(url, tmp_path) as (lobby, keys):
            task = asyncio.create_task(lobby.run())
            await until(lambda: lobby.model.loaded, "the first page")
            keys.send_text("n" + DOWN + RIGHT + ENTER)  # a server bot at depth 1
            chosen = await asyncio.wait_for(task, WAIT_S)
            assert isinstance(chosen, Start)
            assert chosen.create.seats == (SeatSpec.open(), SeatSpec.bot(1))


async def test_l_shows_the_leaderboard_of_the_chosen_games_kind(tmp_path: Path) -> None:
    async with game_server() as server:
        url = url_of(server)
        await created(url, OPEN_GAME)
        async with showing(url, tmp_path) as (lobby, keys):
            task = asyncio.create_task(lobby.run())
            await until(lambda: lobby.model.selected is not None, "the game listed")
            keys.send_text("l")
            await until(lambda: lobby.model.leaderboard == (), "the server's answer")
            assert lobby.model.board_game == "kalah"
            text = "\n".join(draw(lobby.application, 80, 24))
            assert "nobody has a rated kalah game yet" in text
            keys.send_text(RIGHT)
            await until(lambda: lobby.model.leaderboard == (), "the next game's")
            assert lobby.model.board_game != "kalah"
            keys.send_text("\x1b")  # Esc: back to the list
            await until(lambda: lobby.model.mode.value == "browsing", "the list")
            keys.send_text("q")
            assert await asyncio.wait_for(task, WAIT_S) is None


async def test_a_server_that_cannot_be_reached_is_said_and_q_still_leaves(tmp_path: Path) -> None:
    async with showing("ws://127.0.0.1:1/", tmp_path) as (lobby, keys):
        task = asyncio.create_task(lobby.run())
        await until(lambda: lobby.connection == "closed", "giving up")
        assert "cannot reach" in lobby.message[1]
        keys.send_text("q")
        assert await asyncio.wait_for(task, WAIT_S) is None


async def test_a_round_robins_standings_appear_and_update_in_the_lobby(tmp_path: Path) -> None:
    async with game_server() as server:
        url = url_of(server)
        settings = {"game": "kalah", "options": {"pits": 3, "seeds": 2}, "pace_ms": 100}
        new = TournamentNew(id=0, name="bots", double=True, **settings)  # type: ignore[arg-type]
        tid = (await request_once(url, "maker", "human", new)).tournament_id
        assert tid is not None
        for depth in (1, 2):
            join = TournamentJoin(id=0, tournament_id=tid, bot=SeatSpec.bot(depth))
            await request_once(url, "maker", "human", join)
        async with showing(url, tmp_path) as (lobby, keys):
            task = asyncio.create_task(lobby.run())
            await until(lambda: lobby.model.loaded, "the first page")
            keys.send_text("t")
            await until(lambda: lobby.model.tournaments is not None, "the tournaments")
            assert [t.tournament_id for t in lobby.model.tournaments or ()] == [tid]
            assert "bots" in "\n".join(draw(lobby.application, 80, 24))
            keys.send_text(ENTER)
            await until(lambda: lobby.model.standings is not None, "its standings")
            assert lobby.model.standings is not None
            assert lobby.model.standings.status == "open"

            seen: list[TournamentView] = []
            shown = lobby.session.on_tournament

            def heard(view: TournamentView) -> None:
                seen.append(view)
                shown(view)

            lobby.session.on_tournament = heard
            await request_once(url, "maker", "human", TournamentStart(id=0, tournament_id=tid))
            await until(
                lambda: (
                    lobby.model.standings is not None and lobby.model.standings.status == "finished"
                ),
                "the end of the tournament",
            )
            played = [sum(line.games for line in view.standings) // 2 for view in seen]
            assert played[0] == 0 and played[-1] == 2 and 1 in played  # each game as it ended
            text = "\n".join(draw(lobby.application, 80, 24))
            assert f"bots ({tid}): round-robin of kalah, finished" in text
            keys.send_text("w")  # its latest game
            latest = lobby.model.standings.pairings[-1].game_id
            assert await asyncio.wait_for(task, WAIT_S) == Watch(str(latest))


async def test_j_enters_an_open_tournament_under_an_account_and_says_why_not_to_a_guest(
    tmp_path: Path,
) -> None:
    async with game_server() as server:
        url = url_of(server)
        new = TournamentNew(id=0, name="open cup", game="kalah", options={})
        assert (await request_once(url, "maker", "human", new)).tournament_id is not None
        key = (await request_once(url, "ada", "human", Claim(id=0, name="ada"))).key
        for name, account in (("tess", None), ("ada", key)):
            async with showing(url, tmp_path, name, account) as (lobby, keys):
                task = asyncio.create_task(lobby.run())
                await until(lambda: lobby.model.loaded, "the first page")
                keys.send_text("t")
                await until(lambda: bool(lobby.model.tournaments), "the tournaments")
                keys.send_text(ENTER)
                await until(lambda: lobby.model.standings is not None, "its standings")
                keys.send_text("j")
                if account is None:
                    await until(lambda: "account" in lobby.message[1], "the server's refusal")
                    assert lobby.message[0] == ERROR
                else:
                    await until(lambda: "ada entered" in lobby.message[1], "the entry")

                    def entrants() -> tuple[str, ...]:
                        view = lobby.model.standings
                        return view.entrants if view is not None else ()

                    await until(lambda: entrants() == ("ada",), "ada in the standings")
                keys.send_text("q")  # back to the tournaments
                keys.send_text("q")  # back to the games
                keys.send_text("q")
                assert await asyncio.wait_for(task, WAIT_S) is None


@pytest.mark.parametrize(("columns", "rows"), SIZES)
def test_the_takeover_question_shows_whole_with_its_answers(columns: int, rows: int) -> None:
    seats = (SeatInfo("open", "tess", True), SeatInfo("open", None, False))
    game = summary(7, status="waiting", ply=0, result=None, seats=seats)
    lobby = drawn_lobby(columns, rows, [game])
    lobby.model.held = {game.game_id: 0}
    lobby.carry_out(lobby.model.press("enter") or [])
    text = " ".join(" ".join(draw(lobby.application, columns, rows)).split())
    assert f"you (tess) hold seat 0 of game {game.game_id}" in text, text
    assert "take the seat over here (that terminal loses it)? [y/N]" in text, text
    assert "y: take the seat over" in text, text
    lobby.carry_out(lobby.model.press("n") or [])
    assert "your seat stays where it is" in " ".join(draw(lobby.application, columns, rows))
