"""`ubao-engine gtp`: a GTP session (ids, errors, the board, passes, undo, the score, time),
and the round trip, the library's GTPDialect driving `ubao-engine gtp` as a subprocess."""

from __future__ import annotations

import sys

import pytest

from tests.support.engine import fails
from ubao.engine.games import make_game
from ubao.engine.protocols import DIALECTS, EnginePosition, Limits
from ubao.engine.protocols.client import EngineClient
from ubao.engine.protocols.transports import SubprocessTransport
from ubao.engine.tools.gtp import Clock, GTPEngine


class Session:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.engine = GTPEngine(self.lines.append, depth=2)

    def send(self, command: str) -> list[str]:
        start = len(self.lines)
        self.engine.handle(command)
        return self.lines[start:]


def test_the_administrative_commands() -> None:
    session = Session()
    assert session.send("1 protocol_version") == ["=1 2", ""]
    assert session.send("name") == ["= ubao", ""]
    assert session.send("2 known_command genmove") == ["=2 true", ""]
    assert session.send("known_command kgs-chat") == ["= false", ""]
    commands = session.send("list_commands")
    assert commands[0] == "= protocol_version" and "genmove" in commands and commands[-1] == ""
    assert session.send("3 frobnicate") == ["?3 unknown command", ""]
    assert session.send("") == [] and session.send("# comment") == []
    assert session.send("4 set_game Othello") == ["=4", ""]
    assert session.send("set_game Go") == ["? unsupported game", ""]


def test_a_game_played_and_generated_on_the_board_with_errors_refused() -> None:
    session = Session()
    assert session.send("boardsize 5") == ["? unacceptable size", ""]
    assert session.send("boardsize 6") == ["=", ""]
    assert session.send("1 play b c2") == ["=1", ""]
    (reply, end) = session.send("2 genmove w")
    othello = make_game("othello", {"size": 6})
    after_c2 = othello.play(othello.start(), othello.parse_move(othello.start(), "c2"))
    legal = [othello.format_move(after_c2, move) for move in othello.legal_moves(after_c2)]
    assert reply.removeprefix("=2 ") in legal and end == ""
    assert session.send("genmove w")[0].startswith("? it is black's turn")
    assert session.send("play b a1")[0].startswith("? illegal move: ")
    assert session.send("play x c2") == ["? 'x' is not a colour: b, w, black or white", ""]
    assert session.send("undo") == ["=", ""]
    assert session.engine.moves == ["c2"]
    board = session.send("showboard")
    assert board[0] == "=" and board[1].split() == list("abcdef") and board[-2] == "white to move"
    assert session.send("clear_board") == ["=", ""] and session.send("undo")[0] == "? cannot undo"
    assert session.send("final_score") == ["= 0", ""]


def test_a_forced_pass_is_played_for_the_side_that_must_pass() -> None:
    session = Session()
    session.send("boardsize 4")
    for move in ("b b1", "w c1", "b d3", "w a1"):
        assert session.send(f"play {move}") == ["=", ""]
    # Black has no move: White's turn comes through Black's pass, written or not
    reply = session.send("genmove w")[0]
    assert reply != "= pass" and session.engine.moves[4] == "pass"
    score = session.send("final_score")[0]
    assert score.startswith(("= B+", "= W+", "= 0"))


def test_time_reaches_the_search_as_limits() -> None:
    clock = Clock()
    assert clock.limits(0, 4) == Limits(depth=4)
    assert Clock(main_s=300).limits(1, 4) == Limits(depth=4, clocks=(300_000, 300_000))
    assert Clock(period_s=10, stones=5).limits(0, 4) == Limits(depth=4, time_ms=2000)
    clock.left = {0: (61.5, 0), 1: (30.0, 0)}
    assert clock.limits(0, 4) == Limits(depth=4, clocks=(61_500, 30_000))
    clock.left[1] = (12.0, 3)
    assert clock.limits(1, 4) == Limits(depth=4, time_ms=4000)
    session = Session()
    assert session.send("time_settings 300 10 5") == ["=", ""]
    assert session.send("time_left b 250.5 0") == ["=", ""]
    assert session.engine.clock.left == {0: (250.5, 0)}
    assert session.send("time_left b soon 0")[0].startswith("? syntax error")


async def test_the_library_drives_ubao_engine_gtp_through_a_whole_game() -> None:
    argv = [sys.executable, "-m", "ubao.engine", "gtp", "--depth", "1"]
    client = await EngineClient.start(await SubprocessTransport.start(argv), DIALECTS["gtp"](), 30)
    othello = make_game("othello", {"size": 6})
    position, moves = othello.start(), list[str]()
    while not othello.is_over(position):
        player = othello.to_move(position)
        here = EnginePosition("othello", {"size": 6}, "startpos", tuple(moves), player)
        result = await client.play(here, Limits(time_ms=1000), budget_s=30)
        legal = [othello.format_move(position, move) for move in othello.legal_moves(position)]
        assert result.move in legal  # passes included: GTP's genmove answers `pass`
        moves.append(result.move)
        position = othello.play(position, othello.parse_move(position, result.move))
    await client.quit(5)
    assert othello.outcome(position) is not None


def test_the_commands_refuse_a_depth_out_of_range(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("gtp", "nboard"):
        assert fails([command, "--depth", "0"], capsys).endswith("--depth must be from 1 to 200")
