"""`ubao games` as QA used it (issue 12/13 follow-ups): filters, a page at a time with a line
that says more games follow and how to see them, `--all`; rows cut to the terminal's width
rather than wrapped; games called off (aborted, ...) shown as such, not as draws; a bot
client's seat said once."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import shlex
from collections.abc import AsyncIterator

import pytest

from tests.support.client import FAST, game_server, url_of
from ubao.client.__main__ import build_parser, main
from ubao.client.commands import lobby_pages, lobby_query, more_games
from ubao.client.connection import ServerSession
from ubao.client.lobby import lobby_table, status
from ubao.client.terminal_text import columns
from ubao.protocol import (
    Create,
    GameSummary,
    Join,
    ListGames,
    Ok,
    Resign,
    Result,
    SeatInfo,
    SeatSpec,
)
from ubao.server.limits import Share

pytestmark = pytest.mark.timeout(120)

ROOMY = Share(games=64, waiting=64, bot_seats=8)
"""Enough games for one test client to fill several pages."""
OPEN = (SeatSpec.open(), SeatSpec.open())
LONG = "a-player-with-a-rather-long-name-indeed"


@contextlib.asynccontextmanager
async def sessions(url: str, *names: str) -> AsyncIterator[list[ServerSession]]:
    """Connected player sessions, closed after the block."""
    opened = [
        ServerSession(url, name, "human", on_event=lambda e: None, backoff=FAST) for name in names
    ]
    tasks = [asyncio.create_task(session.run()) for session in opened]
    try:
        await asyncio.wait_for(asyncio.gather(*(s.connected.wait() for s in opened)), 30)
        yield opened
    finally:
        for session in opened:
            await session.close()
        await asyncio.gather(*tasks, return_exceptions=True)


async def create(session: ServerSession) -> str:
    ok = await session.request(Create(id=0, game="kalah", options={}, seats=OPEN))
    assert ok.game_id is not None
    return ok.game_id


async def ubao_games(argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The lines `ubao games ARGV` prints (its handler, run in this event loop)."""
    args = build_parser().parse_args(["games", *argv])
    assert await args.handler(args) == 0
    return capsys.readouterr().out.splitlines()


def listed(lines: list[str]) -> list[str]:
    """The game ids of a listing: the first word of each row under the header, up to the
    line that says more follow."""
    rows = [line for line in lines[1:] if " shown, more follow" not in line]
    return [row.split()[0] for row in rows if not row.startswith("the next ")]


async def test_games_come_a_page_at_a_time_and_the_last_line_says_how_to_see_more(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seven games and `--limit 3`: three rows, then the commands for all of them and for the
    next page; following that command, and then `--all`, every game is listed exactly once."""
    monkeypatch.delenv("COLUMNS", raising=False)
    async with game_server(per_connection=ROOMY, per_address=ROOMY) as server:
        url = url_of(server)
        async with sessions(url, "alice") as (alice,):
            made = [await create(alice) for _ in range(7)]
            first = await ubao_games(["--server", url, "--limit", "3"], capsys)
            assert len(listed(first)) == 3, first
            more, following = first[-2:]
            assert more.startswith("3 games shown, more follow; all of them: ubao games "), first
            assert more.endswith(" --all")
            assert following.startswith("the next 3: ubao games "), first
            command = shlex.split(following.split(": ", 1)[1])
            assert command[:2] == ["ubao", "games"] and f"--server={url}" in command
            second = await ubao_games(command[2:], capsys)
            assert len(listed(second)) == 3 and not set(listed(first)) & set(listed(second))
            everything = await ubao_games(["--server", url, "--all"], capsys)
            assert sorted(listed(everything)) == sorted(made)
            assert not any("more follow" in line for line in everything)
            assert await ubao_games(["--server", url, "--filter", "finished"], capsys) == [
                "no games of that kind on the server"
            ]


async def test_filters_a_players_games_and_says_a_game_called_off_is_no_draw(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game resigned before it started is aborted: `over: aborted`, under `--filter
    finished`; `--player` keeps the games with a seat of that name."""
    monkeypatch.delenv("COLUMNS", raising=False)
    async with game_server() as server:
        url = url_of(server)
        async with sessions(url, "alice", "bob") as (alice, bob):
            aborted = await create(alice)
            seated = await alice.request(Join(id=0, game_id=aborted, seat=0))
            assert seated.token is not None
            await alice.request(Resign(id=0, game_id=aborted, token=seated.token))
            bobs = await create(bob)
            await bob.request(Join(id=0, game_id=bobs, seat=0))
            finished = await ubao_games(["--server", url, "--filter", "finished"], capsys)
            assert listed(finished) == [aborted]
            assert " over: aborted " in finished[1] and "draw" not in finished[1], finished
            bobs_games = await ubao_games(["--server", url, "--player", "bob"], capsys)
            assert listed(bobs_games) == [bobs]
            open_games = await ubao_games(["--server", url, "--filter", "open"], capsys)
            assert listed(open_games) == [bobs]


def summary(game_id: str, *names: str | None) -> GameSummary:
    seats = tuple(SeatInfo("open", name, True) for name in names)
    return GameSummary(game_id, "kalah", {"pits": 4, "seeds": 3}, "playing", 12, seats)


def over(game: GameSummary, result: Result) -> GameSummary:
    return dataclasses.replace(game, status="over", result=result)


@pytest.mark.parametrize("width", [80, 60])
def test_rows_are_cut_to_the_terminal_never_wrapped_and_ids_stay_whole(width: int) -> None:
    """Long names, options and a wide-character name: every row fits; the id, the ply and the
    start of each cell stay, what is cut ends with an ellipsis."""
    games = [
        summary("AbCd1234", LONG, "ubao-engine (depth 12)"),
        summary("Zz_9-xYw", "名前がとても長いプレーヤー", None),
        summary("q3R8xZ1a", "bo", "cy"),
    ]
    rows = lobby_table(games, width).splitlines()
    assert all(columns(row) <= width for row in rows), "\n".join(rows)
    assert [row.split()[0] for row in rows] == ["ID", "AbCd1234", "Zz_9-xYw", "q3R8xZ1a"]
    assert [row.split()[-1] for row in rows] == ["PLY", "12", "12", "12"]
    assert "…" in rows[1] and rows[1].split()[3] == "playing" and " a-player" in rows[1]
    assert " vs ubao-" in rows[1]  # both players stay in sight, each name cut
    assert lobby_table(games).splitlines()[1].count(LONG) == 1  # a pipe gets whole cells


def test_ubao_games_fits_columns_it_is_given(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`$COLUMNS` (as a terminal's width) holds for the table: 50 columns, however long the
    names."""
    games = tuple(summary(f"g{n}", LONG, LONG) for n in range(3))

    async def answer(*args: object) -> Ok:
        return Ok(id=2, games=games)

    monkeypatch.setenv("COLUMNS", "50")
    monkeypatch.setattr("ubao.client.commands.request_once", answer)
    with pytest.raises(SystemExit) as exit:
        main(["games"])
    assert exit.value.code == 0
    rows = capsys.readouterr().out.splitlines()
    assert len(rows) == 4 and all(columns(row) <= 50 for row in rows), rows


def test_games_called_off_read_as_such_and_a_bot_clients_seat_says_so_once() -> None:
    for reason in ("aborted", "cancelled", "expired"):
        ended = over(summary("g", "ann", None), Result(None, reason, None))
        assert status(ended) == f"over: {reason}"
    draw = over(summary("g", "ann", "bo"), Result(None, "repetition", (24, 24)))
    assert status(draw) == "over: draw 24-24"
    bot = SeatInfo("open", "root (depth 3)", True, client="bot")
    game = dataclasses.replace(summary("g", "ann"), seats=(SeatInfo("open", "ann", True), bot))
    table = lobby_table([game])
    assert "ann (guest) vs BOT root (depth 3) (guest)  12" in table, table
    assert table.count("BOT") == 1 and table.count("depth") == 1, table


def test_limit_and_all_are_one_or_the_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["games", "--limit", "5", "--all"])
    assert exit.value.code == 2 and "not allowed with argument" in capsys.readouterr().err


async def test_one_request_a_page_bounded_by_the_protocol(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--limit 250` asks pages of at most 100 (the protocol's most) until it has 250."""
    asked: list[ListGames] = []

    async def pages(
        url: str, name: str, role: str, command: ListGames, key: str | None = None
    ) -> Ok:
        asked.append(command)
        assert command.limit is not None
        start = int(command.cursor or 0)
        games = tuple(summary(f"g{n}", "ann", None) for n in range(start, start + command.limit))
        return Ok(id=2, games=games, cursor=str(start + command.limit))

    monkeypatch.setattr("ubao.client.commands.request_once", pages)
    args = build_parser().parse_args(["games", "--limit", "250", "--filter", "live"])
    games, cursor = await lobby_pages(args, lobby_query(args), args.limit)
    assert [command.limit for command in asked] == [100, 100, 50]
    assert {command.filter for command in asked} == {"live"}
    assert len(games) == 250 and cursor == "250"


def test_the_commands_under_a_listing_are_shell_words() -> None:
    """Whatever the cursor or a name holds, the commands given can be pasted."""
    args = build_parser().parse_args(["games", "--player", "al ice", "--limit", "7"])
    text = more_games(args, 7, "0:-17'00:x y")
    all_line, next_line = text.splitlines()
    assert shlex.split(all_line.split(": ", 1)[1]) == [
        "ubao",
        "games",
        "--player=al ice",
        "--all",
    ]
    assert shlex.split(next_line.split(": ", 1)[1])[-2:] == ["--limit=7", "--cursor=0:-17'00:x y"]
