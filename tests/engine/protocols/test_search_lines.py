"""A search as the lines a cluster job carries: written by the node, read back by a worker."""

from __future__ import annotations

import pytest

from ubao.engine.protocols import EnginePosition, Limits
from ubao.engine.protocols.session import read_search
from ubao.engine.protocols.ubao import EngineProtocolError, search_lines


def test_a_search_read_back_from_its_lines_is_the_search_written() -> None:
    position = EnginePosition("kalah", {"pits": 4}, "startpos", ("1", "4"), 1)
    limits = Limits(depth=3, time_ms=500, clocks=(900, 800), increments=(5, 5))
    options = {"Algorithm": "alphabeta", "Eval": "mobility"}
    setup, go = search_lines(position, limits, options)
    assert setup == [
        "setoption name Algorithm value alphabeta",
        "setoption name Eval value <empty>",
        'position kalah {"pits":4} startpos moves 1 4',
        "setoption name Eval value mobility",
    ]
    assert go == "go depth 3 movetime 500 wtime 900 btime 800 winc 5 binc 5"
    assert read_search(setup, go) == (position, limits, options)


def test_the_player_to_move_comes_from_the_rules() -> None:
    # In Kalah a last seed in one's own store moves again: 3 from the start ends in the store.
    setup = ['position kalah {"pits":6,"seeds":4} startpos moves 3']
    position, _, _ = read_search(setup, "go depth 1")
    assert position.player == 0


@pytest.mark.parametrize(
    ("setup", "go", "words"),
    [
        (["position kalah {} startpos moves 9"], "go depth 1", "move 1"),
        (["position chess {} startpos"], "go depth 1", "unknown game"),
        (["ucinewgame"], "go depth 1", "does not set up"),
        (["setoption name Hash value 1"], "go depth 1", "no position"),
        (["position kalah {} startpos"], "go depth -1", "depth"),
        (["position kalah {} startpos"], "stop", "not a go line"),
    ],
)
def test_lines_the_engine_would_refuse_are_refused(setup: list[str], go: str, words: str) -> None:
    with pytest.raises(EngineProtocolError, match=words):
        read_search(setup, go)


def test_a_job_from_a_node_of_before_the_library_reads_the_same() -> None:
    # Such nodes set the algorithm after the position; the options read back are the same.
    old = [
        "setoption name Eval value <empty>",
        'position kalah {"pits":4} startpos moves 1 4',
        "setoption name Algorithm value alphabeta",
        "setoption name Eval value mobility",
    ]
    _, _, options = read_search(old, "go depth 3")
    assert options == {"Eval": "mobility", "Algorithm": "alphabeta"}
