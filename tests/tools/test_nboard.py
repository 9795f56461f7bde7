"""`ubao-engine nboard`: the NBoard protocol document's example session, hints and a game's
analysis, `ping` answered only after the job it stops, bad input; and the round trip, the
library's NBoardDialect driving `ubao-engine nboard` as a subprocess through a whole game."""

from __future__ import annotations

import re
import sys
import threading
import time

from ubao.engine.games import make_game
from ubao.engine.protocols import DIALECTS, EnginePosition, Limits
from ubao.engine.protocols.client import EngineClient
from ubao.engine.protocols.ggf import parse_ggf
from ubao.engine.protocols.nboard import BestMove, HintLine, parse_reply
from ubao.engine.protocols.transports import SubprocessTransport
from ubao.engine.tools.nboard import NBoardEngine

EXAMPLE_GAME = (
    "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]"
    "TY[8]BO[8 ---------------------------O*------*O--------------------------- *]"
    "B[F5]W[F6]B[D3]W[C5]B[E6]W[F7]B[E7]W[F4];)"
)
"""The game of the NBoard protocol document's example session."""


class Session:
    """An engine whose replies are collected, fed one command at a time."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.lock = threading.Lock()
        self.engine = NBoardEngine(self.write)

    def write(self, line: str) -> None:
        with self.lock:
            self.lines.append(line)

    def send(self, *commands: str) -> list[str]:
        start = len(self.lines)
        for command in commands:
            assert self.engine.handle(command)
        return self.lines[start:]


def legal_after(record: str, moves: tuple[str, ...] = ()) -> list[str]:
    othello = make_game("othello", {"size": 8})
    position = othello.start()
    for item in [*parse_ggf(record).moves]:
        position = othello.play(position, othello.parse_move(position, item.move))
    for move in moves:
        position = othello.play(position, othello.parse_move(position, move))
    return [othello.format_move(position, move) for move in othello.legal_moves(position)]


def test_the_protocol_documents_example_session() -> None:
    """nboard 2, set game, set depth 6, ping 1, go: the name, pong 1, then the move with
    thinking output around it, as the document shows Edax answering."""
    session = Session()
    replies = session.send("nboard 2", f"set game {EXAMPLE_GAME}", "set depth 6", "ping 1", "go")
    session.engine.wait()
    replies = session.lines
    assert replies[:3] == ["set myname ubao6", "pong 1", "status ubao is thinking"]
    assert all(re.fullmatch(r"nodestats \d+ \d+\.\d\d", line) for line in replies[3:-2])
    assert len(replies) > 5 and replies[-1] == "status"
    best = parse_reply(replies[-2])
    assert isinstance(best, BestMove)
    assert re.fullmatch(r"=== [A-H][1-8]/-?\d+\.\d\d/\d+\.\d\d", replies[-2])
    assert best.move.move in legal_after(EXAMPLE_GAME)


def test_moves_hints_and_an_analysis_of_the_game() -> None:
    session = Session()
    session.send("nboard 2", "set depth 2", f"set game {EXAMPLE_GAME}", "move d6", "hint 3")
    session.engine.wait()
    hints = [reply for line in session.lines if isinstance(reply := parse_reply(line), HintLine)]
    legal = legal_after(EXAMPLE_GAME, ("d6",))
    assert len(hints) == 3 and len({hint.pv[0] for hint in hints}) == 3
    assert all(hint.pv[0] in legal and hint.depth == "2" for hint in hints)
    evaluations = [hint.evaluation for hint in hints]
    assert evaluations == sorted(evaluations, reverse=True)  # the best first
    session.lines.clear()
    session.send("analyze")
    session.engine.wait()
    numbers = [int(line.split()[1]) for line in session.lines if line.startswith("analysis ")]
    assert numbers == list(range(9, -1, -1))  # from the last position back to the start


def test_go_plays_the_opening_book_where_hint_and_analyze_search() -> None:
    start = "(;GM[Othello]PC[NBoard]TY[8]BO[8 " + "-" * 27 + "O*------*O" + "-" * 27 + " *];)"
    session = Session()
    session.send("nboard 2", "set depth 2", f"set game {start}", "go")
    session.engine.wait()
    best = [reply for line in session.lines if isinstance(reply := parse_reply(line), BestMove)]
    assert [reply.move.seconds for reply in best] == [0.0]  # from the book, no search
    session.lines.clear()
    session.send("hint 1")
    session.engine.wait()
    hints = [reply for line in session.lines if isinstance(reply := parse_reply(line), HintLine)]
    assert [hint.depth for hint in hints] == ["2"]
    session.lines.clear()
    session.send("analyze")
    session.engine.wait()
    assert any(line.startswith("analysis 0 ") for line in session.lines)
    heard = session.engine._heard_lines  # the engine's lines of its last search: the start
    assert any(line.startswith("info depth 2 ") for line in heard), heard
    assert session.engine._session.book  # back on for the next go


def test_ping_stops_the_job_and_is_answered_after_its_last_line() -> None:
    session = Session()
    session.send("nboard 2", "set depth 30", f"set game {EXAMPLE_GAME}", "hint 10")
    time.sleep(0.3)
    began = time.monotonic()
    session.send("ping 7")
    assert time.monotonic() - began < 10  # a depth-30 hint of ten moves would take far longer
    assert session.lines[-2:] == ["status", "pong 7"]


def test_a_move_or_record_the_rules_refuse_changes_nothing_and_says_why() -> None:
    session = Session()
    assert session.send("go") == ["status error: no game yet; set game first"]
    session.send(f"set game {EXAMPLE_GAME}")
    (reply,) = session.send("move a1")
    assert reply.startswith("status error: move a1:")
    (reply,) = session.send("set game (;GM[Othello]BO[8 --- *];)")
    assert reply.startswith("status error: set game:")
    assert session.send("move d6", "frobnicate", "ping 2") == ["pong 2"]
    assert session.engine.game is not None and session.engine.game.moves[-1].move == "d6"
    assert session.send("learn") == ["learned"]
    assert not session.engine.handle("quit")


async def test_the_library_drives_ubao_engine_nboard_through_a_whole_game() -> None:
    """Both sides of NBoard: the dialect drives the front end as a subprocess, 6x6, passes
    played for it as GUIs do, each move checked by the rules."""
    argv = [sys.executable, "-m", "ubao.engine", "nboard", "--depth", "1"]
    client = await EngineClient.start(
        await SubprocessTransport.start(argv), DIALECTS["nboard"](), 30
    )
    await client.configure({"depth": "2"})
    othello = make_game("othello", {"size": 6})
    position, moves = othello.start(), list[str]()
    while not othello.is_over(position):
        legal = [othello.format_move(position, move) for move in othello.legal_moves(position)]
        if legal == ["pass"]:
            move = "pass"
        else:
            player = othello.to_move(position)
            here = EnginePosition("othello", {"size": 6}, "startpos", tuple(moves), player)
            result = await client.play(here, Limits(), budget_s=30)
            assert result.move in legal and result.info is not None
            move = result.move
        moves.append(move)
        position = othello.play(position, othello.parse_move(position, move))
    await client.quit(5)
    assert len([move for move in moves if move != "pass"]) >= 20
