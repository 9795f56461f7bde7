"""GTP's lines both ways (commands, multi-line responses, ids, GTP's input cleaning, Edax's
space after `=`), and `GTPDialect` driving a scripted engine through the client: the game
replayed before `genmove`, passes, time, a refused command and a position GTP cannot set up."""

from __future__ import annotations

import pytest

from ubao.engine.protocols import DIALECTS, EnginePosition, Limits
from ubao.engine.protocols.client import EngineClient, EngineFailure
from ubao.engine.protocols.gtp import (
    GTPCommand,
    GTPDialect,
    GTPError,
    GTPResponse,
    format_command,
    format_response,
    parse_colour,
    parse_command,
    parse_response,
    preprocess,
    time_commands,
)
from ubao.engine.protocols.results import PlayResult
from ubao.engine.protocols.transports import ScriptedTransport


def test_commands_read_with_and_without_ids_after_gtps_cleaning() -> None:
    assert parse_command("1 play b d3") == GTPCommand("play", ("b", "d3"), 1)
    assert parse_command("genmove\tw  # think") == GTPCommand("genmove", ("w",))
    assert parse_command("  # only a comment") is None
    assert parse_command("") is None
    assert preprocess("na\x01me\r") == "name"
    assert format_command(GTPCommand("play", ("w", "pass"), 7)) == "7 play w pass"
    with pytest.raises(GTPError):
        parse_command("12")


def test_responses_written_and_read_back_with_their_ids() -> None:
    assert format_response(GTPResponse(True, "d3", 4)) == ["=4 d3", ""]
    assert format_response(GTPResponse(False, "illegal move")) == ["? illegal move", ""]
    board = GTPResponse(True, "\n  a b\n1 - -", 9)
    assert format_response(board) == ["=9", "  a b", "1 - -", ""]
    assert parse_response(["=9", "  a b", "1 - -"]) == GTPResponse(True, "a b\n1 - -", 9)
    assert parse_response(["=4 d3"]) == GTPResponse(True, "d3", 4)
    assert parse_response(["? unknown command"]) == GTPResponse(False, "unknown command")
    # Edax writes a space between `=` and the id
    assert parse_response(["= 4 d3"], expected_id=4) == GTPResponse(True, "d3", 4)
    assert parse_response(["= 2 "], expected_id=2) == GTPResponse(True, "", 2)
    with pytest.raises(GTPError):
        parse_response(["d3"])


def test_colours_in_every_spelling() -> None:
    assert [parse_colour(word) for word in ("b", "Black", "W", "white")] == [0, 0, 1, 1]
    with pytest.raises(GTPError):
        parse_colour("red")


def test_time_as_gtp_says_it() -> None:
    assert time_commands(Limits(depth=5), 0) == []
    assert time_commands(Limits(time_ms=3000), 1) == [
        ("time_settings", ("0", "3", "1")),
        ("time_left", ("w", "3", "1")),
    ]
    assert time_commands(Limits(clocks=(60_000, 45_500)), 0) == [
        ("time_settings", ("60", "0", "0")),
        ("time_left", ("b", "60", "0")),
        ("time_left", ("w", "45", "0")),
    ]


async def started(transport: ScriptedTransport) -> EngineClient:
    transport.expect("1 protocol_version", ["= 1 2", ""])  # Edax's spacing
    transport.expect("2 name", ["=2 scripted", ""])
    return await EngineClient.start(transport, GTPDialect(), timeout_s=5)


async def test_a_search_replays_the_game_passes_included_before_genmove() -> None:
    transport = ScriptedTransport()
    client = await started(transport)
    transport.expect("3 komi 0", ["=3", ""])
    await client.configure({"komi": "0"})
    transport.expect("4 boardsize 4", ["=4", ""])
    transport.expect("5 clear_board", ["=5", ""])
    for number, line in enumerate(["b b1", "w c1", "b d3", "w a1", "b pass"], 6):
        transport.expect(f"{number} play {line}", [f"={number}", ""])
    transport.expect("11 genmove w", ["thinking...", "=11 D4", ""])
    position = EnginePosition(
        "othello", {"size": 4}, "startpos", ("b1", "c1", "d3", "a1", "pass"), 1
    )
    assert await client.play(position, Limits()) == PlayResult("d4", None)
    transport.expect("12 quit", ["=12", ""], exit=True)
    await client.quit(1)
    transport.assert_done()


async def test_a_refused_command_fails_the_search_once_the_engine_is_in_step() -> None:
    transport = ScriptedTransport()
    client = await started(transport)
    transport.expect("3 boardsize 10", ["?3 unacceptable size", ""])
    transport.expect("4 clear_board", ["=4", ""])
    transport.expect("5 genmove b", ["=5 d3", ""])
    with pytest.raises(EngineFailure, match="refused"):
        await client.play(EnginePosition("othello", {"size": 10}, "startpos", (), 0), Limits())
    transport.expect("6 protocol_version", ["=6 2", ""])  # no position GTP cannot set up
    start = "-" * 27 + "OX" + "-" * 6 + "XX" + "-" * 27 + " O"
    with pytest.raises(EngineFailure, match="refused"):
        await client.play(EnginePosition("othello", {}, start, (), 1), Limits())
    transport.assert_done()


async def test_the_start_written_out_is_the_start() -> None:
    transport = ScriptedTransport()
    client = await started(transport)
    transport.expect("3 boardsize 6", ["=3", ""])
    transport.expect("4 clear_board", ["=4", ""])
    transport.expect("5 play b c2", ["=5", ""])
    transport.expect("6 genmove w", ["=6 b2", ""])
    start = "-" * 14 + "OX" + "-" * 4 + "XO" + "-" * 14 + " X"
    position = EnginePosition("othello", {}, start, ("c2",), 1)
    assert await client.play(position, Limits()) == PlayResult("b2", None)
    transport.assert_done()


async def test_an_answer_that_cannot_be_read_fails_at_once() -> None:
    transport = ScriptedTransport()
    client = await started(transport)
    transport.expect("3 boardsize 8", ["=3", ""])
    transport.expect("4 clear_board", ["=4", ""])
    transport.expect("5 genmove b", ["=five d3", ""])
    with pytest.raises(EngineFailure, match="refused"):
        await client.play(EnginePosition("othello", {}, "startpos", (), 0), Limits())


def test_the_dialect_is_registered() -> None:
    assert isinstance(DIALECTS["gtp"](), GTPDialect)
