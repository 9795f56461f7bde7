"""Hostile strings are shown harmlessly: names with terminal escape sequences, control characters
and bidi overrides, from an old database, another server or a record file, come out escaped
(`\\x1b`, `\\u202e`) from `ubao games`, `ubao export`, `ubao replay`, the boards of the screens
and the connection's status lines (issue 13, row 7)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from websockets.asyncio.server import ServerConnection, serve

import ubao.client.__main__ as cli
import ubao.client.commands as commands
from tests.support.client import FAST, until
from ubao.client.board import view_of
from ubao.client.connection import ServerSession
from ubao.client.export import replay_of
from ubao.client.render import render_board
from ubao.client.replay import ReplayApp
from ubao.engine.games import make_game
from ubao.engine.record import parse_record
from ubao.protocol import GameSummary, Ok, Result, SeatInfo, Snapshot, encode

pytestmark = pytest.mark.timeout(60)

HOSTILE = "\x1b]0;owned\x07\x1b[2J\u202eevil\n"
"""Retitles the terminal, clears the screen, reverses what follows, breaks the line."""
ESCAPED = "\\x1b]0;owned\\x07\\x1b[2J\\u202eevil\\n"

SEATS = (SeatInfo("open", HOSTILE, True), SeatInfo("open", "bob", False))
"""Dataclasses are not checked (the decoder is): what an old database could still hold."""


def harmless(text: str) -> bool:
    """Every line printable: no control character, escape sequence or bidi override."""
    return all(line.isprintable() for line in text.splitlines())


def shown(fragments: Iterable[tuple[Any, ...]]) -> str:
    return "".join(fragment[1] for fragment in fragments)


def hostile_snapshot() -> Snapshot:
    return Snapshot(
        game_id="g1",
        v=9,
        game="kalah",
        options={"pits": 3, "seeds": 1},
        status="over",
        position="",
        to_move=0,
        ply=2,
        history=("1", "2"),
        seats=SEATS,
        result=Result(winner=1, reason=HOSTILE, score=None),
    )


def run_cli(monkeypatch: pytest.MonkeyPatch, name: str, reply: object, argv: list[str]) -> int:
    """`ubao ARGV`, its one-shot request to the server (`name`) answered by `reply`."""

    async def answer(*args: object) -> object:
        return reply

    monkeypatch.setattr(commands, name, answer)
    return cli.run(argv)


def test_ubao_games_shows_hostile_names_escaped(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = GameSummary("g1", "kalah", {"k\u202e": HOSTILE}, "playing", 3, SEATS)
    status = run_cli(monkeypatch, "request_once", Ok(id=2, games=(summary,)), ["games"])
    out = capsys.readouterr().out
    assert status == 0 and harmless(out)
    assert ESCAPED in out and "\\u202e" in out


def test_ubao_export_writes_hostile_tags_escaped(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status = run_cli(monkeypatch, "fetch_snapshot", hostile_snapshot(), ["export", "g1"])
    out = capsys.readouterr().out
    assert status == 0 and harmless(out)
    record = parse_record(out)
    assert record.tags["South"] == ESCAPED and record.tags["Reason"] == ESCAPED
    assert record.moves == ("1", "2")


def hostile_record(move: str = "2") -> str:
    south = HOSTILE.replace("\n", "")  # a tag value is one line of the file
    return f'[Game "kalah"]\n[Options "{{}}"]\n[South "{south}"]\n[Result "*"]\n\n1. 3 {move} *\n'


def test_the_replay_screen_shows_a_hostile_records_names_escaped() -> None:
    record = parse_record(hostile_record())
    assert harmless("".join(record.tags.values()))
    with create_pipe_input() as keys:
        app = ReplayApp(record, replay_of(record), input=keys, output=DummyOutput())
        for ply in (0, 2):
            app.go(ply)
            text = shown(app._board_text()) + shown(app._tags_text())
            assert harmless(text) and "\\x1b]0;owned" in text


def test_ubao_replay_names_a_hostile_move_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.txt"
    path.write_text(hostile_record(move="\x1b[2J\u202e"), encoding="utf-8")
    assert cli.run(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert harmless(err) and "\\x1b[2J\\u202e" in err


def test_the_game_screens_board_shows_hostile_names_escaped() -> None:
    game = make_game("kalah")
    text = shown(render_board(view_of(game, game.start()), 0, names=[HOSTILE, "\u202e"]))
    assert harmless(text) and ESCAPED in text


Handler = Callable[[ServerConnection], Awaitable[None]]


@asynccontextmanager
async def fake_server(handler: Handler) -> AsyncIterator[str]:
    """Another server: it says what it likes."""
    async with serve(handler, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        yield f"ws://127.0.0.1:{port}/"


async def test_a_hostile_close_reason_reaches_status_lines_escaped() -> None:
    """What the screen's status line and the bot's log lines say of a dropped connection."""

    async def close_hostile(ws: ServerConnection) -> None:
        await ws.recv()
        await ws.send(encode(Ok(id=1, proto=1, session="s")))
        await ws.close(1011, HOSTILE)

    said: list[str] = []
    async with fake_server(close_hostile) as url:
        session = ServerSession(
            url, "me", "human", on_event=lambda event: None, on_state=said.append, backoff=FAST
        )
        task = asyncio.create_task(session.run())
        try:
            await until(lambda: any("owned" in text for text in said), "the drop")
        finally:
            await session.close()
            await asyncio.gather(task, return_exceptions=True)
    assert harmless("\n".join(said)) and any(ESCAPED in text for text in said)


async def test_ubao_games_refuses_a_lobby_the_protocol_forbids_in_one_line() -> None:
    """The client's decoder rejects unprintable text: one line on stderr, not a traceback."""

    async def hostile_lobby(ws: ServerConnection) -> None:
        await ws.recv()
        await ws.send(encode(Ok(id=1, proto=1, session="s")))
        await ws.recv()
        summary = GameSummary("g1", "kalah", {}, "playing", 3, SEATS)
        await ws.send(encode(Ok(id=2, games=(summary,))))
        await ws.wait_closed()

    async with fake_server(hostile_lobby) as url:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "ubao.client",
            "games",
            "--server",
            url,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), 30)
    lines = err.decode().splitlines()
    assert process.returncode == 1 and out == b""
    assert len(lines) == 1 and harmless(lines[0])
    assert "the server sent what the protocol forbids" in lines[0]
