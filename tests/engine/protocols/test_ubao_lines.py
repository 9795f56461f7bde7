"""ubao's stdio dialect on the driver's side: the lines it writes and how it reads the answers."""

from __future__ import annotations

from ubao.engine.protocols import DIALECTS, EnginePosition, Limits
from ubao.engine.protocols.dialect import Ready, Refused, Send
from ubao.engine.protocols.results import Info, PlayResult
from ubao.engine.protocols.ubao import (
    UbaoDialect,
    format_go,
    format_info,
    format_position,
    parse_bestmove,
    parse_info,
)

KALAH = EnginePosition("kalah", {}, "startpos", (), 0)


def test_position_is_one_line_with_space_free_options() -> None:
    assert format_position(KALAH) == "position kalah {} startpos"
    position = EnginePosition("kalah", {"pits": 3, "name": "a b"}, "startpos", ("1", "3"), 1)
    assert format_position(position) == (
        'position kalah {"pits":3,"name":"a\\u0020b"} startpos moves 1 3'
    )


def test_go_carries_every_limit() -> None:
    assert format_go(Limits(depth=4, time_ms=10_000)) == "go depth 4 movetime 10000"
    limits = Limits(depth=4, time_ms=250, clocks=(9000, 8000), increments=(100, 100))
    assert format_go(limits) == "go depth 4 movetime 250 wtime 9000 btime 8000 winc 100 binc 100"
    limits = Limits(nodes=5, mate=2, moves_to_go=3, ponder=True, searchmoves=("1", "2"))
    assert format_go(limits) == "go nodes 5 mate 2 movestogo 3 ponder searchmoves 1 2"
    assert format_go(Limits(infinite=True)) == "go infinite"


def test_info_lines_become_reports() -> None:
    info = parse_info("info depth 5 score -12 nodes 4000 nps 80000 time 50 pv 3 1 2")
    assert info == Info(depth=5, score=-12, nodes=4000, nps=80000, time_ms=50, pv=("3", "1", "2"))
    assert parse_info("info depth 7 score mate -4 nodes 9 time 1") == Info(
        depth=7, mate=-4, nodes=9, time_ms=1
    )
    uci = "info depth 9 seldepth 12 multipv 2 score cp 31 lowerbound nodes 8 hashfull 3 pv e3"
    assert parse_info(uci) == Info(depth=9, multipv=2, score=31, nodes=8, pv=("e3",))
    assert parse_info("info string hello  world") == Info(string="hello  world")
    for junk in ["info depth x", "info depth", "info bogus 3", "bestmove 1", ""]:
        assert parse_info(junk) is None


def test_reports_are_written_as_they_are_read() -> None:
    for line in [
        "info depth 5 score -12 nodes 4000 nps 80000 time 50 pv 3 1 2",
        "info depth 7 score mate 3 nodes 9 time 1",
        "info string a remark",
    ]:
        info = parse_info(line)
        assert info is not None and format_info(info) == line
    assert format_info(Info(depth=2, multipv=3, score=1), multipv=True) == (
        "info depth 2 multipv 3 score 1"
    )


def test_bestmove_lines() -> None:
    assert parse_bestmove("bestmove 3L") == PlayResult("3L", None)
    assert parse_bestmove("bestmove none") == PlayResult(None, None)
    assert parse_bestmove("bestmove d3 ponder c5") == PlayResult("d3", None, "c5")
    assert parse_bestmove("info depth 1") is None


def test_a_search_checks_its_position_before_it_goes() -> None:
    dialect = DIALECTS["ubao"]()
    assert dialect.start() == ["uci"] and dialect.receive("uciok") == [Ready()]
    assert dialect.search(KALAH, Limits(depth=3)) == ["position kalah {} startpos", "isready"]
    assert dialect.receive("readyok") == [Send(("go depth 3",))]
    report = dialect.receive("info depth 3 score 1 pv 2")
    assert dialect.receive("bestmove 2") == [PlayResult("2", report[0])]  # type: ignore[arg-type]
    dialect.search(KALAH, Limits(depth=3))
    assert dialect.receive("error move 1 (7): no such pit") == [Refused("move 1 (7): no such pit")]
    assert dialect.receive("readyok") == [Ready()]  # no `go` for a refused position


def test_the_evaluation_is_set_around_every_position() -> None:
    dialect = UbaoDialect()
    assert dialect.configure({"Hash": "16", "Eval": "mobility"}) == [
        "setoption name Hash value 16",
        "isready",
    ]
    assert dialect.configure({"Eval": "<empty>"}) == []  # nothing to say until the position
    assert dialect.search(KALAH, Limits(depth=1)) == [
        "setoption name Eval value <empty>",
        "position kalah {} startpos",
        "setoption name Eval value <empty>",
        "isready",
    ]
    dialect.configure({"eval": "mobility"})
    assert dialect.search(KALAH, Limits(depth=1))[2] == "setoption name Eval value mobility"
