"""What QA found in the terminal client (round 8): tokens lost by clients writing at once, a
rematch offer shown after it lapsed, large boards at 60 columns, side lines that wrapped, the
untimed first move's deadline, a declined takeback overwritten, `export -o` blaming the server,
text left on the input line at the end, `--clock` wording, Bao's question, arrows at an L/R
question, the Bao feedback line ahead of the move shown, panel text cut, the spectators' help,
`--server` without a scheme, the replay's result, and a waiting game's expiry."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input

from tests.client.test_cli import unused_url
from tests.support.client import game_server, kalah_create, screen, until, url_of
from tests.support.screen import SizedOutput, played, sized
from ubao.client.__main__ import build_parser, main, report_end
from ubao.client.app import GameApp
from ubao.client.connection import request_once
from ubao.client.record import parse_record
from ubao.client.state import GameState
from ubao.protocol import (
    SeatSpec,
)

# -- 1. tokens written at the same moment --------------------------------------------------------


# -- 2. a rematch offer that lapsed with a restart ---------------------------------------------


# -- 6. a takeback request declined by a move ----------------------------------------------------


# -- 8. the input line at the end of the game ----------------------------------------------------


# -- 12. the feedback line follows the move being shown ------------------------------------------


async def test_the_feedback_line_names_the_move_being_shown_not_a_later_one() -> None:
    snapshot, moves = played("bao")
    with create_pipe_input() as keys:
        app = GameApp(
            GameState("AbCd1234"), input=keys, output=SizedOutput(80, 24), step_seconds=0.25
        )
        app.set_connection("connected", True)
        task = asyncio.create_task(app.run())
        try:
            await until(lambda: app.application.is_running, "the screen")
            app.on_event(snapshot)
            app.on_event(moves[0])
            app.on_event(moves[1])  # arrives while the first is shown
            frame = app.animation.frame
            assert frame is not None and frame.ply == 0
            assert app.message[1] == f"{app.side_name(moves[0].seat)} played {moves[0].move}"
            await until(
                lambda: app.animation.frame is None or app.animation.frame.ply == 1,
                "the second move shown",
            )
            assert app.message[1] == f"{app.side_name(moves[1].seat)} played {moves[1].move}"
        finally:
            app.quit()
            await asyncio.wait_for(task, 30)


# -- 10. and 11. Bao's question after Tab, and the arrows at an L/R question --------------------


# -- 14. the spectators' help --------------------------------------------------------------------


@pytest.mark.parametrize("name", ["kalah", "ethiopian", "bao", "othello"])
def test_the_help_speaks_to_a_spectator_as_one(name: str) -> None:
    snapshot, _ = played(name)
    watcher, seated = sized(80, 24, seat=None), sized(80, 24, seat=0)
    for app in (watcher, seated):
        app.on_event(snapshot)
    lines = [line for _, line in watcher._help_lines()]
    watched = " ".join(lines[lines.index("") :])  # after the rules, which speak to a player
    for words in ("Your row", "yours on the right", "your front row", "your left", "you may"):
        assert words not in watched, (words, watched)
    assert "Your row" in " ".join(line for _, line in seated._help_lines()) or name in (
        "bao",
        "othello",
    )
    if name != "othello":
        assert "South" in watched


# -- 3. and 4. large boards at 60 columns, side lines that never wrap ----------------------------


# -- 13. the panel's text reads whole, or is cut with an ellipsis ------------------------------


# -- 5. the untimed first move's deadline, and why a game was aborted ----------------------------


# -- 7., 9. and 15. the command line -------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["export", "g1", "-o", "/nonexistent/x.txt"],
            "cannot write /nonexistent/x.txt: no folder",
        ),
        (["export", "g1", "-o", "/tmp"], "cannot write /tmp: it is a directory"),
        (["play", "--new", "kalah", "--clock", "10+-1"], "the increment must be 0 or more"),
        (["play", "--new", "kalah", "--clock", "0+5"], "the initial time must be positive"),
        (["games", "--server", "http://127.0.0.1:9700/"], "write ws://HOST:PORT/"),
    ],
)
def test_a_bad_command_line_is_blamed_on_itself_not_on_the_server(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        main([*argv, "--server", unused_url()] if argv[0] == "export" else argv)
    error = capsys.readouterr().err
    assert exit.value.code == 2, error
    assert message in error and "cannot reach" not in error, error


def test_a_server_given_as_host_and_port_is_a_websocket_url() -> None:
    args = build_parser().parse_args(["games", "--server", "127.0.0.1:9700,ws://b:1/"])
    assert args.server == "ws://127.0.0.1:9700,ws://b:1/"


async def test_export_to_a_file_with_a_host_and_port_server(tmp_path: Path) -> None:
    async with game_server() as server:
        create = kalah_create(SeatSpec.bot(1), SeatSpec.bot(1))
        game_id = await request_once(url_of(server), "carol", "spectator", create)
        out = tmp_path / "game.txt"
        given = f"127.0.0.1:{server.port}"
        args = build_parser().parse_args(["export", game_id.game_id or "", "--server", given])
        args.output = str(out)
        assert await args.handler(args) == 0
    assert parse_record(out.read_text()).tags["GameId"] == game_id.game_id


# -- 16. the replay says how the game ended ------------------------------------------------------


# -- 17. leaving a game that waits for its opponent ----------------------------------------------


async def test_leaving_a_waiting_game_says_it_expires(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with game_server() as server:
        async with screen(url_of(server), "alice", tmp_path / "a.json", create=kalah_create()) as a:
            await until(lambda: a.live.state.started, "the waiting game")
            await a.quit()
        assert report_end(a.live) == 0
    said = capsys.readouterr().out
    assert f"left game {a.live.game_id}, which waits for an opponent" in said, said
    assert "within 60 s" in said and "expires" in said and "--join=" in said, said
