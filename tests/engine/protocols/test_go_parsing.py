"""The engine's side of `go`: its words parsed into typed limits, bad ones refused."""

from __future__ import annotations

import pytest

from ubao.engine.protocols.limits import Limits
from ubao.engine.protocols.session import search_plies
from ubao.engine.protocols.ubao import EngineProtocolError, parse_go


def test_go_parses_every_limit_and_refuses_bad_ones() -> None:
    assert parse_go(["depth", "5", "movetime", "100"]) == Limits(depth=5, time_ms=100)
    assert parse_go(["wtime", "1000", "btime", "2000", "winc", "10", "binc", "20"]) == Limits(
        clocks=(1000, 2000), increments=(10, 20)
    )
    assert parse_go(["infinite"]).infinite
    assert parse_go([]) == Limits(infinite=True)
    for words in (["depth"], ["depth", "-1"], ["winc", "-5"], ["nodes", "0"], ["searchmoves"]):
        with pytest.raises(EngineProtocolError):
            parse_go(words)


@pytest.mark.timeout(120)
def test_negative_clocks_parse_as_zero_and_other_negatives_stay_refused() -> None:
    assert parse_go(["wtime", "-5", "btime", "100"]).clocks == (0, 100)
    for words in (["winc", "-1"], ["binc", "-1"], ["movetime", "-1"], ["movestogo", "-1"]):
        with pytest.raises(EngineProtocolError, match=words[0]):
            parse_go(words)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("value", ["٥", "1_0", "５", "+5", "5.0"])
def test_go_limits_are_ascii_integers(value: str) -> None:
    with pytest.raises(EngineProtocolError, match="must be an integer"):
        parse_go(["depth", value])
    assert parse_go(["wtime", "-20", "btime", "100"]).clocks == (0, 100)


def test_go_parses_the_uci_limits() -> None:
    assert parse_go([]) == Limits(infinite=True)
    assert parse_go(["nodes", "500"]) == Limits(nodes=500)
    assert search_plies(parse_go(["mate", "3", "depth", "4"])) == 4
    assert search_plies(parse_go(["mate", "3"])) == 5
    go = parse_go(["ponder", "wtime", "100", "btime", "200", "movestogo", "5"])
    assert (go.ponder, go.infinite, go.moves_to_go, go.clocks) == (True, False, 5, (100, 200))
    go = parse_go(["searchmoves", "1", "2", "depth", "3", "searchmoves", "4", "1"])
    assert (go.searchmoves, go.depth, go.infinite) == (("1", "2", "4"), 3, False)
    assert parse_go(["searchmoves", "1"]).infinite  # no limit: until stop
    for words in (["nodes", "0"], ["mate", "0"], ["searchmoves"], ["searchmoves", "depth", "2"]):
        with pytest.raises(EngineProtocolError):
            parse_go(words)
