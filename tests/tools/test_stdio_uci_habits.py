"""`ubao-engine stdio`'s UCI habits (docs/engine-protocol.md): `MultiPV`'s best root lines and
the `d` display command."""

from __future__ import annotations

import time

import pytest

from tests.support.engine import BACKENDS
from tests.support.stdio import Recorder, bestmove
from ubao.engine.games import make_game
from ubao.engine.protocols.ubao import parse_info

SMALL = 'position kalah {"pits":4,"seeds":3} startpos'


def lines_of(replies: list[str]) -> dict[int, tuple[int, int, str]]:
    """Each line's last report: (depth, score, first move) by its number."""
    found = {}
    for reply in replies:
        info = parse_info(reply)
        if info is not None and info.depth is not None and info.pv:
            assert info.score is not None or info.mate is not None
            score = info.score if info.score is not None else 10_000 * (info.mate or 0)
            found[info.multipv] = (info.depth, score, info.pv[0])
    return found


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
def test_multipv_reports_the_best_lines_each_the_best_of_the_moves_left(backend: str) -> None:
    recorder = Recorder()
    recorder.send(f"setoption name Backend value {backend}", "setoption name Exact value true")
    replies = recorder.send("setoption name MultiPV value 3", SMALL, "go depth 5")
    lines = lines_of(replies)
    assert sorted(lines) == [1, 2, 3]
    assert {depth for depth, _, _ in lines.values()} == {5}
    assert len({move for _, _, move in lines.values()}) == 3
    assert bestmove(replies) == lines[1][2]
    assert lines[1][1] >= lines[2][1] >= lines[3][1]
    # Each line is what a search of its move alone finds, and no move left out beats it.
    recorder.send("setoption name MultiPV value 1")
    for _, score, move in lines.values():
        alone = lines_of(recorder.send(f"go depth 5 searchmoves {move}"))
        assert alone[1][1] == score
    left_out = [
        str(pit) for pit in range(1, 5) if str(pit) not in {m for _, _, m in lines.values()}
    ]
    (other,) = left_out
    assert lines_of(recorder.send(f"go depth 5 searchmoves {other}"))[1][1] <= lines[3][1]


@pytest.mark.timeout(120)
def test_multipv_asks_no_more_lines_than_there_are_moves_and_keeps_to_searchmoves() -> None:
    recorder = Recorder()
    replies = recorder.send("setoption name MultiPV value 10", SMALL, "go depth 4")
    assert sorted(lines_of(replies)) == [1, 2, 3, 4]
    lines = lines_of(recorder.send("go depth 4 searchmoves 1 3"))
    assert sorted(lines) == [1, 2] and {move for _, _, move in lines.values()} == {"1", "3"}
    lines = lines_of(recorder.send("go movetime 200"))  # a timed search shares its time
    assert 1 in lines


@pytest.mark.timeout(120)
def test_multipv_one_reports_as_before_and_bad_values_are_refused() -> None:
    recorder = Recorder()
    replies = recorder.send(SMALL, "go depth 3")
    assert all("multipv" not in reply for reply in replies)
    for value in ("0", "257", "x"):
        (reply,) = recorder.send(f"setoption name multipv value {value}")
        assert reply == "error MultiPV must be an integer from 1 to 256"
    assert recorder.session.multipv == 1


def test_d_shows_the_board_the_position_the_side_to_move_and_the_legal_moves() -> None:
    recorder = Recorder()
    assert recorder.send("d") == ["error d: no position yet; send position first"]
    shown = recorder.send(f"{SMALL} moves 2", "d")
    game = make_game("kalah", {"pits": 4, "seeds": 3})
    position = game.play_text(game.start(), "2")
    assert shown[:4] == [
        "    4 3 2 1   North",
        "[0] 3 3 3 3",
        "    3 0 4 4 [1]",
        "    1 2 3 4   South",
    ]
    assert f"Position: {game.format_position(position)}" in shown
    assert "Side to move: South (player 0)" in shown  # the last seed in the store: again
    legal = " ".join(game.format_move(position, move) for move in game.legal_moves(position))
    assert shown[-1] == f"Legal moves: {legal}"


@pytest.mark.parametrize(
    ("position", "expected"),
    [
        ("position othello {} startpos moves d3", ["Side to move: White (player 1)"]),
        ("position bao {} startpos", ["North, stock 22", "South, stock 22"]),
        (
            'position kalah {"pits":2,"seeds":1} kalah(2,1) N 0,0/0,0 3,1',
            ["Game over: South wins, 3-1"],
        ),
    ],
)
def test_d_shows_every_game_family(position: str, expected: list[str]) -> None:
    shown = Recorder().send(position, "d")
    assert set(expected) <= set(shown)
    assert any(line.startswith("Position: ") for line in shown)


@pytest.mark.timeout(120)
def test_d_is_answered_while_a_search_runs() -> None:
    recorder = Recorder()
    recorder.session.handle('position kalah {"pits":6,"seeds":6} startpos')
    recorder.session.handle("go infinite")
    recorder.session.handle("d")
    assert any(line.startswith("Legal moves: 1 2 3 4 5 6") for line in recorder.lines)
    assert recorder.send("stop")[-1].startswith("bestmove ")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("go", ["go infinite", "go ponder"])
def test_a_search_stopped_during_its_first_line_reports_that_line_only(go: str) -> None:
    recorder = Recorder()
    recorder.session.handle("setoption name MultiPV value 3")
    recorder.session.handle('position kalah {"pits":6,"seeds":6} startpos')
    recorder.session.handle(go)
    time.sleep(0.3)
    replies = recorder.send("stop")
    assert set(lines_of(recorder.lines)) == {1}
    assert replies[-1].startswith("bestmove ")


@pytest.mark.timeout(120)
def test_after_ponderhit_the_lines_are_the_searchs_not_the_pondering() -> None:
    recorder = Recorder()
    recorder.session.handle("setoption name MultiPV value 2")
    recorder.session.handle('position kalah {"pits":6,"seeds":6} startpos')
    recorder.session.handle("go ponder depth 2")
    time.sleep(0.3)
    recorder.send("ponderhit")
    second = [parse_info(line) for line in recorder.lines if " multipv 2 " in line]
    assert [info.depth for info in second if info is not None] == [2]
