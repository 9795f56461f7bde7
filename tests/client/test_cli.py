"""The `ubao` command line: help, argument checks, the lobby table, export and replay."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from tests.support.client import game_server, kalah_create, screen, until, url_of
from ubao.client import view
from ubao.client.__main__ import build_parser, main, with_command
from ubao.client.commands import (
    command_lobby,
    opponent_seats,
    parse_clock,
    report_end,
    return_command,
    watch_creation,
)
from ubao.client.connection import fetch_snapshot, request_once
from ubao.client.export import UNKNOWN_DATE, record_of, replay_of
from ubao.client.lobby import lobby_table
from ubao.client.panels import player_keys
from ubao.client.replay import ReplayApp
from ubao.client.tokens import join_command
from ubao.engine.games import GAMES, make_game
from ubao.engine.record import format_record, parse_record
from ubao.protocol import ClockSpec, GameSummary, Result, SeatInfo, SeatSpec, Snapshot

pytestmark = pytest.mark.timeout(120)

COMMANDS = ["lobby", "games", "play", "watch", "bot", "export", "replay"]


@pytest.mark.parametrize("command", [[], *[[c] for c in COMMANDS]])
def test_every_command_has_help(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main([*command, "--help"])
    assert exit.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: ubao {' '.join(command)}".rstrip())


def test_clocks_are_given_in_seconds_with_an_increment() -> None:
    assert parse_clock("300+5") == ClockSpec(300_000, 5_000)
    assert parse_clock("90") == ClockSpec(90_000, 0)
    assert parse_clock("0.5+0.1") == ClockSpec(500, 100)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "--new", "kalah", "--clock", "five"], "write INITIAL+INC in seconds"),
        (["play", "--new", "kalah", "--options", "[1]"], "--options must be a JSON object"),
        (["play", "--new", "kalah", "--options", '{"pits": 99}'], "option 'pits' must be"),
        (["play", "--new", "chess"], "unknown game 'chess'"),
        (["watch", "--new", "kalah", "--bot", "2"], "needs two bots"),
        (["watch", "--new", "kalah", "--vs-external-bot"], "needs two bots"),
        (["watch"], "give a GAME_ID to watch"),
        (["watch", "--new", "kalah", "--bot", "1", "--bot", "1", "--pace", "99"], "0 to 60"),
        (["bot", "--depth", "2", "--new", "kalah", "--eval", "magic"], "no evaluation 'magic'"),
        (["bot", "--depth", "2", "--serve", "--eval", "magic"], "no game has the evaluation"),
        (["bot", "--depth", "2", "--join", "g1", "--eval", "magic"], "no game has the evaluation"),
        (["replay", "/nonexistent/record.txt"], "cannot read /nonexistent/record.txt"),
    ],
)
def test_bad_arguments_say_what_is_wrong(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        main(argv)
    assert exit.value.code == 2
    assert message in capsys.readouterr().err


def test_new_games_can_leave_a_seat_for_a_bot_client_with_or_without_a_wished_depth() -> None:
    parse = build_parser().parse_args
    plain, wanted, deep = SeatSpec.open(), SeatSpec.external_bot(), SeatSpec.external_bot(6)
    assert opponent_seats(parse(["play", "--new", "kalah"])) == (plain, plain)
    assert opponent_seats(parse(["play", "--new", "kalah", "--vs-external-bot"])) == (
        plain,
        wanted,
    )
    args = parse(["play", "--new", "kalah", "--vs-external-bot", "6", "--seat", "1"])
    assert opponent_seats(args) == (deep, plain)
    args = parse(["bot", "--depth", "3", "--new", "kalah", "--vs-external-bot"])
    assert opponent_seats(args) == (plain, wanted)
    args = parse(["watch", "--new", "kalah", "--vs-external-bot", "6", "--bot", "2"])
    assert args.seats == [deep, SeatSpec.bot(2)]
    args = parse(["watch", "--new", "kalah", "--bot", "2", "--vs-external-bot"])
    assert args.seats == [SeatSpec.bot(2), wanted]


def test_watch_new_asks_for_a_pace_of_about_a_second_between_bot_moves() -> None:
    parse = build_parser().parse_args
    args = parse(["watch", "--new", "kalah", "--bot", "1", "--bot", "2"])
    assert watch_creation(args).pace_ms == 1000
    args = parse(["watch", "--new", "kalah", "--bot", "1", "--bot", "2", "--pace", "0.25"])
    assert watch_creation(args).pace_ms == 250


def test_a_server_bot_and_a_bot_client_cannot_both_take_the_other_seat(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["play", "--new", "kalah", "--vs-bot", "2", "--vs-external-bot"])
    assert exit.value.code == 2
    assert "not allowed with argument --vs-bot" in capsys.readouterr().err


def unused_url() -> str:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        return f"ws://127.0.0.1:{unused.getsockname()[1]}/"


def test_an_unreachable_server_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["games", "--server", unused_url()])
    assert exit.value.code == 1
    assert "cannot reach" in capsys.readouterr().err


async def test_the_game_screen_gives_up_on_a_server_it_never_reached(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = unused_url()
    async with screen(url, "alice", tmp_path / "t.json", create=kalah_create()) as alice:
        await asyncio.wait_for(alice.task, 30)  # no key pressed: it ends by itself
    assert report_end(alice.live) == 1
    assert f"ubao play: cannot reach {url}" in capsys.readouterr().err


async def test_leaving_before_the_game_was_reached_is_a_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with screen(unused_url(), "alice", tmp_path / "t.json", game_id="g1") as alice:
        await alice.quit()
    assert report_end(alice.live) == 1
    assert "left before the game was reached" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv", [["play", "--join", "g1"], ["watch", "g1"], [], ["lobby"], ["--name", "tess"]]
)
def test_the_screens_need_a_terminal(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main([*argv, "--server", unused_url()])  # pytest's stdin is no terminal
    assert exit.value.code == 2
    assert "needs a terminal" in capsys.readouterr().err


def test_replaying_a_binary_file_says_it_is_no_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    binary = tmp_path / "game.bin"
    binary.write_bytes(bytes(range(256)))
    with pytest.raises(SystemExit) as exit:
        main(["replay", str(binary)])
    assert exit.value.code == 2
    assert "is not a game record" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "--new", "kalah", "--vs-bot", "abc"], "'abc' is not a whole number, 1 or more"),
        (["play", "--new", "kalah", "--pace", "x"], "'x' is not a number"),
        (["play", "--new", "kalah", "--vs-bot", "99"], "at most 64 plies (the protocol's limit"),
        (["watch", "--new", "kalah", "--bot", "1", "--bot", "65"], "at most 64 plies"),
        (["play", "--name", "", "--new", "kalah"], "'' is not a name: give 1 to 64 characters"),
        (["games", "--name", "ann "], "'ann ' is not a name"),
        (["--vs-bot", "3", "replay", "x.txt"], "unrecognized arguments: --vs-bot 3"),
        (["plya"], "invalid choice: 'plya'"),
    ],
)
def test_a_command_line_mistake_is_one_line_in_the_users_words(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 36, 7 and 8: up to 22 lines of usage came before the error, a bad number was an
    "invalid _positive value", and an empty name or a depth past the protocol's went to the
    server, which refused them in protocol words."""
    with pytest.raises(SystemExit) as exit:
        main(argv)
    assert exit.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert message in line and "_positive" not in line and line.endswith("--help)"), line


def test_options_before_the_command_go_with_it(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 36, 6: `ubao --server URL games` said "invalid choice: 'URL'"."""
    url = unused_url()
    assert with_command(["--server", url, "games", "--all"]) == ["games", "--all", "--server", url]
    assert with_command(["--name=ann", "watch", "--", "-x"]) == ["watch", "--name=ann", "--", "-x"]
    assert with_command(["--name", "games"]) == ["lobby", "--name", "games"]  # a name
    with pytest.raises(SystemExit) as exit:
        main(["--server", url, "games"])
    assert exit.value.code == 1
    assert "cannot reach" in capsys.readouterr().err


def test_ubao_alone_or_with_only_the_lobbys_options_opens_the_lobby() -> None:
    parser = build_parser()
    for argv in ([], ["--name", "tess"], ["--server", "example.org:9000", "--speed", "0"]):
        args = parser.parse_args(with_command(argv))
        assert args.command == "lobby" and args.handler is command_lobby
    assert parser.parse_args(with_command(["--name", "tess"])).name == "tess"
    for argv in (["--help"], ["--version"], ["games", "--all"], ["play", "--new", "kalah"]):
        assert with_command(argv) == argv  # every other command line means what it meant


def test_version_and_help_list_the_games_evaluations_and_algorithms(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["--version"])
    assert re.fullmatch(r"ubao \S+\n", capsys.readouterr().out)
    for argv in (["--help"], ["bot", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        shown = capsys.readouterr().out
        for name in GAMES:
            evaluations = ", ".join(make_game(name).evaluations)
            assert f"  {name}: {evaluations}" in shown
        assert "minimax, alphabeta, negamax" in shown


@pytest.mark.parametrize("argv", [["--help"], ["bot", "--help"]])
def test_a_reader_gone_away_ends_the_output_quietly(argv: list[str]) -> None:
    """`ubao --help | head -0`: no traceback, no complaint at exit."""
    read, write = os.pipe()
    os.close(read)
    with os.fdopen(write, "w") as closed:
        result = subprocess.run(
            [sys.executable, "-m", "ubao.client", *argv],
            stdout=closed,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr


def test_the_lobby_table_lists_game_options_status_seats_and_ply() -> None:
    games = [
        GameSummary(
            "abc",
            "kalah",
            {"pits": 4},
            "playing",
            7,
            (
                SeatInfo("open", "ann", True),
                SeatInfo("bot", "ubao-engine (depth 3)", True, depth=3),
            ),
        ),
        GameSummary(
            "xyz",
            "othello",
            {},
            "waiting",
            0,
            (SeatInfo("open", "bo", False), SeatInfo("open", None, False)),
        ),
    ]
    games.append(
        GameSummary(
            "old",
            "bao",
            {},
            "over",
            90,
            (SeatInfo("open", "cy", False), SeatInfo("open", "di", False)),
            result=Result(winner=1, reason="rules", score=(14, 50)),
        )
    )
    games.append(
        GameSummary(
            "bot",
            "kalah",
            {},
            "waiting",
            0,
            (SeatInfo("open", "ed", True), SeatInfo("open", None, False, wants_bot=True)),
        )
    )
    rows = lobby_table(games).splitlines()
    assert rows[0].split() == ["ID", "GAME", "OPTIONS", "STATUS", "SEATS", "PLY"]
    assert rows[1].split() == [
        "abc",
        "kalah",
        '{"pits":4}',
        "playing",
        "ann",
        "(guest)",
        "vs",
        "bot",
        "d3",
        "7",
    ]
    assert rows[2].split() == [
        "xyz",
        "othello",
        "-",
        "waiting",
        "bo",
        "(guest)",
        "(away)",
        "vs",
        "(open)",
        "0",
    ]
    assert rows[3].split()[3:7] == ["over:", "di", "won", "50-14"]
    assert rows[4].split()[4:] == ["ed", "(guest)", "vs", "(bot", "wanted)", "0"]


def test_at_80_columns_the_lobby_table_says_who_played_a_bot_game_and_how_it_was_won() -> None:
    """Issue 36, 11: bot games read `ubao-… vs ubao-…` at 80 columns, and a win on time
    gave no reason."""

    def bot(depth: int, engine: str | None = None) -> SeatInfo:
        return SeatInfo("bot", "ubao-engine (depth 6)", True, depth=depth, engine=engine)

    people = (SeatInfo("open", "ann", True, account=True), SeatInfo("open", "bob", True))
    games = [
        GameSummary("G1YpwalB", "kalah", {"pits": 4, "seeds": 3}, "playing", 12, (bot(2), bot(6))),
        GameSummary(
            "Qe_R2zrs", "othello", {"size": 8}, "over", 31, (bot(4, "edax"), bot(6)),
            result=Result(winner=1, reason="normal", score=(20, 44)),
        ),
        GameSummary(
            "x9saQT3k", "kalah", {}, "over", 20, people,
            result=Result(winner=0, reason="timeout", score=None),
        ),
    ]  # fmt: skip
    rows = lobby_table(games, 80).splitlines()
    assert all(len(row) <= 80 for row in rows)
    assert "bot d2 vs bot d6" in rows[1]
    assert "over: bot d6 won 44-20  bot d4" in rows[2] and "vs bot d6" in rows[2]
    assert "bot d4 edax vs bot d6" in lobby_table(games)
    assert "over: ann won on time" in lobby_table(games).splitlines()[3]
    assert "normal" not in lobby_table(games)  # a game played to its end: the score says it


async def test_ubao_games_lists_the_servers_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with game_server() as server:
        url = url_of(server)
        async with screen(url, "alice", tmp_path / "a.json", create=kalah_create()) as alice:
            await until(lambda: alice.live.state.started)
            args = build_parser().parse_args(["games", "--server", url])
            assert await args.handler(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split()[:5] == [
        alice.live.game_id,
        "kalah",
        '{"pits":4,"seeds":3}',
        "waiting",
        "alice",
    ]


def test_a_snapshot_becomes_a_record_with_its_date_players_bot_settings_and_result() -> None:
    snapshot = Snapshot(
        game_id="g1",
        v=9,
        game="kalah",
        options={"seeds": 3, "pits": 4},
        status="over",
        position="kalah(4,3) S 0,0,0,0/0,0,0,0 14,10",
        to_move=0,
        ply=3,
        history=("2", "1", "4"),
        seats=(
            SeatInfo("open", "ann", True),
            SeatInfo("bot", "deep thought", True, depth=5, time_ms=500, algorithm="negamax"),
        ),
        result=Result(0, "normal", (14, 10)),
        clock=ClockSpec(60_000, 1_000),
        created=1_714_607_999_000,  # 2024-05-01 23:59:59 UTC
    )
    record = record_of(snapshot)
    assert record.tags == {
        "Game": "kalah",
        "Options": '{"pits":4,"seeds":3}',
        "GameId": "g1",
        "Date": "2024.05.01",
        "South": "ann",
        "SouthKind": "open",
        "North": "deep thought",
        "NorthKind": "bot",
        "NorthDepth": "5",
        "NorthTimeMs": "500",
        "NorthAlgorithm": "negamax",
        "Clock": "60000+1000",
        "Result": "1-0",
        "Reason": "normal",
        "Score": "14-10",
        "Plies": "3",
    }
    assert format_record(record).endswith("\n1. 2 1 2. 4 1-0\n")
    # A server that does not say when the game was created: PGN's unknown date.
    undated = record_of(dataclasses.replace(snapshot, created=None))
    assert undated.tags["Date"] == UNKNOWN_DATE


async def test_export_writes_a_record_that_replays_in_the_board_view(tmp_path: Path) -> None:
    async with game_server() as server:
        url = url_of(server)
        create = kalah_create(SeatSpec.bot(1), SeatSpec.bot(2))
        async with screen(url, "carol", tmp_path / "c.json", create=create, watch=True) as carol:
            await until(lambda: carol.live.state.over, "the bots' game to end")
        out = tmp_path / "game.txt"
        args = build_parser().parse_args(
            ["export", carol.live.game_id or "", "--server", url, "-o", str(out)]
        )
        assert await args.handler(args) == 0
    record = parse_record(out.read_text())
    assert record.moves == tuple(carol.live.state.history)
    assert record.tags["SouthDepth"] == "1" and record.tags["NorthDepth"] == "2"
    assert re.fullmatch(r"\d{4}\.\d{2}\.\d{2}", record.tags["Date"])
    replay = replay_of(record)
    assert replay.game.format_position(replay.positions[-1]) == replay.game.format_position(
        carol.live.state.position
    )
    with create_pipe_input() as keys:
        app = ReplayApp(record, replay, input=keys, output=DummyOutput())
        task = asyncio.create_task(app.run())
        keys.send_text("\x1b[C\x1b[C")  # right, right
        await until(lambda: app.ply == 2, "two moves forward")
        keys.send_text("\x1b[F")  # end
        await until(lambda: app.ply == len(record.moves), "the end")
        assert f"result {record.result}" in str(app._board_text())
        keys.send_text("\x1b[D")  # left
        await until(lambda: app.ply == len(record.moves) - 1, "one back")
        keys.send_text("\x1b[H")  # home
        await until(lambda: app.ply == 0, "the start")
        keys.send_text("q")
        await asyncio.wait_for(task, 30)


def test_a_record_with_an_illegal_move_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.txt"
    path.write_text('[Game "kalah"]\n[Options "{\\"pits\\":4}"]\n\n1. 2 9 *\n')
    with pytest.raises(SystemExit) as exit:
        main(["replay", str(path)])
    assert exit.value.code == 2
    assert "move 2 (9)" in capsys.readouterr().err


async def test_ctrl_c_ends_a_serving_bot_without_a_traceback() -> None:
    async with game_server() as server:
        process = await asyncio.create_subprocess_exec(
            *(sys.executable, "-m", "ubao.client", "bot", "--server", url_of(server)),
            *("--depth", "1", "--serve"),
            stderr=asyncio.subprocess.PIPE,
            # As in a terminal, even where the tests run as a background job (SIGINT ignored).
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        assert process.stderr is not None
        first = await asyncio.wait_for(process.stderr.readline(), 60)
        assert b"connecting to" in first
        second = await asyncio.wait_for(process.stderr.readline(), 60)
        assert b"serving" in second
        process.send_signal(signal.SIGINT)
        errors = (await asyncio.wait_for(process.stderr.read(), 60)).decode()
        assert await process.wait() == 130, errors
        assert "Traceback" not in errors


@pytest.mark.timeout(300)
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


async def test_a_bot_refuses_to_join_a_game_without_its_evaluation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 36, 1: `--join` checks `--eval` against the game before taking its seat."""
    async with game_server() as server:
        create = kalah_create(SeatSpec.open(), SeatSpec.external_bot())
        game_id = (await request_once(url_of(server), "ann", "human", create)).game_id
        argv = ["bot", "--server", url_of(server), "--depth", "1", "--eval", "front_row"]
        with pytest.raises(SystemExit) as exit:
            await asyncio.to_thread(main, [*argv, "--join", game_id or ""])
        assert exit.value.code == 2
        assert f"game {game_id}: kalah has no evaluation 'front_row'" in capsys.readouterr().err
        snapshot = await fetch_snapshot(url_of(server), "check", game_id or "")
        assert snapshot.seats[1].name is None  # the bot's seat was never taken


@pytest.mark.timeout(300)
def test_a_server_given_as_host_and_port_is_a_websocket_url() -> None:
    args = build_parser().parse_args(["games", "--server", "127.0.0.1:9700,ws://b:1/"])
    assert args.server == "ws://127.0.0.1:9700,ws://b:1/"


@pytest.mark.timeout(300)
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


def test_the_commands_the_screens_give_are_written_one_way_and_parse() -> None:
    """Issue 36, 17: the clients wrote the same command several ways (`--join GAME_ID` in the
    help, `--join=ID` elsewhere; `--serve --depth N` where README writes `--depth N
    --serve`), and a failed screen said `ubao:` where every other failure of the command says
    `ubao play:`."""
    leave = next(line for line in player_keys("pits") if line.startswith("^Q"))
    hints = [
        join_command("AbCd1234"),
        return_command("AbCd1234", "ann", "ws://h:1/"),
        leave.split(": ", 2)[2].removesuffix(")"),
        "ubao bot --depth N --serve",
    ]
    said = Path(view.__file__).read_text(encoding="utf-8")
    assert "start one with ubao bot --depth N --serve" in said and "--serve --depth" not in said
    for hint in hints:
        words = shlex.split(hint.replace("GAME_ID", "g1").replace(" N ", " 3 "))
        assert words[:2] in (["ubao", "play"], ["ubao", "bot"]), hint
        assert "--join" not in words, hint  # always --join=ID
        build_parser().parse_args(with_command(words[1:]))
