"""NBoard's lines both ways, and `NBoardDialect` driving a scripted engine through the client:
the handshake and options answered by `pong`, a search's hint lines and `===` (the protocol's
slashes and Edax's spaces), `ping` as the stop, and a position GGF cannot carry."""

from __future__ import annotations

import pytest

from ubao.engine.protocols import DIALECTS, EnginePosition, Limits
from ubao.engine.protocols.client import EngineClient, EngineFailure
from ubao.engine.protocols.ggf import GgfMove, parse_ggf
from ubao.engine.protocols.nboard import (
    Analysis,
    BestMove,
    Go,
    Hello,
    Hint,
    HintLine,
    MyName,
    NBoardDialect,
    NBoardError,
    NodeStats,
    Ping,
    PlayMove,
    Pong,
    SetContempt,
    SetDepth,
    SetGame,
    Status,
    format_command,
    format_reply,
    parse_command,
    parse_pv,
    parse_reply,
)
from ubao.engine.protocols.results import Info, PlayResult
from ubao.engine.protocols.transports import ScriptedTransport

START = "(;GM[Othello]PC[ubao]PB[black]PW[white]RE[?]TY[8]BO[8 " + (
    "---------------------------O*------*O--------------------------- *];)"
)
AFTER_F5 = START.replace(";)", "B[F5];)")


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("nboard 2", Hello(2)),
        ("set depth 6", SetDepth(6)),
        ("set contempt -150", SetContempt(-150)),
        ("move F5/1.50/2.25", PlayMove(GgfMove("f5", 1.5, 2.25))),
        ("move PA", PlayMove(GgfMove("pass"))),
        ("hint 3", Hint(3)),
        ("go", Go()),
        ("ping 12", Ping(12)),
        (f"set game {START}", SetGame(parse_ggf(START))),
    ],
)
def test_commands_read_and_written_back(line: str, command: object) -> None:
    assert parse_command(line) == command
    assert format_command(command) == line  # type: ignore[arg-type]


def test_lines_that_are_no_command_are_ignored_and_bad_arguments_refused() -> None:
    assert parse_command("") is None
    assert parse_command("new 8") is None  # NBoard: ignore what you do not understand
    assert parse_command("set whatever 1") is None
    assert parse_command("go now") is None
    with pytest.raises(NBoardError, match="set depth N"):
        parse_command("set depth deep")
    with pytest.raises(NBoardError, match="at least 1"):
        parse_command("hint 0")
    with pytest.raises(NBoardError, match="set game"):
        parse_command("set game (;GM[Othello];)")


@pytest.mark.parametrize(
    ("line", "reply"),
    [
        ("pong 3", Pong(3)),
        ("=== F5/-1.00/0.50", BestMove(GgfMove("f5", -1.0, 0.5))),
        ("search F5D6C3 1.50 0 12", HintLine(("f5", "d6", "c3"), 1.5, "12")),
        (
            "book F5 0.00 1234 20 from the book",
            HintLine(("f5",), 0.0, "20", 1234, True, "from the book"),
        ),
        ("nodestats 35805 0.10", NodeStats(35805, 0.1)),
        ("status ubao is thinking", Status("ubao is thinking")),
        ("set myname ubao6", MyName("ubao6")),
        ("analysis 12 -4.00", Analysis(12, -4.0)),
    ],
)
def test_replies_read_and_written_back(line: str, reply: object) -> None:
    assert parse_reply(line) == reply
    assert format_reply(reply) == line  # type: ignore[arg-type]


def test_replies_as_engines_really_write_them() -> None:
    assert parse_reply("=== d6 -1.00 0.0") == BestMove(GgfMove("d6", -1.0, 0.0))  # Edax
    assert parse_reply("=== F5") == BestMove(GgfMove("f5"))
    assert parse_reply("search b5D6     0 0 4") == HintLine(("b5", "d6"), 0.0, "4")
    assert parse_reply("search F5-D6-C3 (1.0,3.0) 0 20@73%") == HintLine(
        ("f5", "d6", "c3"), 1.0, "20@73%"
    )
    assert parse_pv("PAa10") == ("pass", "a10")
    assert parse_reply("  1   +00  0:00.000  14  d3") is None  # a banner
    with pytest.raises(NBoardError):
        parse_reply("search F5?? 1 0 4")


async def started(transport: ScriptedTransport) -> EngineClient:
    transport.expect("nboard 2")
    transport.expect("ping 1", ["set myname scripted", "pong 1"])
    return await EngineClient.start(transport, NBoardDialect(), timeout_s=5)


async def test_the_handshake_options_and_a_search_with_its_reports() -> None:
    transport = ScriptedTransport()
    client = await started(transport)
    assert isinstance(client.dialect, NBoardDialect) and client.dialect.engine_name == "scripted"
    transport.expect("set depth 8")
    transport.expect("set contempt 0")
    transport.expect("ping 2", ["pong 2"])
    await client.configure({"depth": "8", "contempt": "0"})
    await client.new_game()  # every search sends its game: nothing to say
    transport.expect(f"set game {AFTER_F5}")
    transport.expect("set depth 4")
    transport.expect(
        "go",
        [
            "status thinking",
            "search F6 -0.50 0 2",
            "nodestats 900 0.01",
            "search D6F4 -1.00 0 4",
            "=== D6/-1.00/0.02",
            "status",
        ],
    )
    seen: list[Info] = []
    position = EnginePosition("othello", {"size": 8}, "startpos", ("f5",), 1)
    result = await client.play(position, Limits(depth=4), on_info=seen.append)
    assert result == PlayResult("d6", Info(depth=4, score=-1, time_ms=20, pv=("d6", "f4")))
    assert [info.depth for info in seen] == [2, 2, 4]
    transport.expect("quit", exit=True)
    await client.quit(1)
    transport.assert_done()


async def test_edax_style_answers_and_clocks_in_the_record() -> None:
    transport = ScriptedTransport()
    client = await started(transport)
    record = START.replace("TY[8]", "TB[1:00]TW[0:30/0:02]TY[8]")
    transport.expect(f"set game {record}")
    transport.expect("set depth 12")  # a depth before the first `go`: NBoard engines need one
    transport.expect("go", ["status Edax is thinking", "nodestats 2574 0.00", "=== f5 0.00 0.0"])
    position = EnginePosition("othello", {}, "startpos", (), 0)
    limits = Limits(clocks=(60_000, 30_000), increments=(0, 2_000))
    result = await client.play(position, limits)
    assert result.move == "f5" and result.info == Info(score=0, nodes=2574, time_ms=0)


async def test_ping_stops_a_search_at_its_budget() -> None:
    transport = ScriptedTransport()
    client = await started(transport)
    transport.expect(f"set game {START}")
    transport.expect("set depth 12")
    transport.expect("go", ["search D3C3 0.25 0 6"])
    transport.expect("ping 2", ["=== D3/0.25/1.00", "pong 2"])
    position = EnginePosition("othello", {}, "startpos", (), 0)
    result = await client.play(position, Limits(), budget_s=0.05)
    assert result.move == "d3"


async def test_an_engine_that_stops_without_a_move_gives_its_best_line_or_fails() -> None:
    transport = ScriptedTransport()
    client = await started(transport)
    position = EnginePosition("othello", {}, "startpos", (), 0)
    transport.expect(f"set game {START}")
    transport.expect("set depth 12")
    transport.expect("go", ["search E6F4 0.25 0 6"])
    transport.expect("ping 2", ["pong 2"])  # stopped, and no `===`, as NTest may
    result = await client.play(position, Limits(), budget_s=0.05)
    assert result == PlayResult("e6", Info(depth=6, score=0, pv=("e6", "f4")))
    transport.expect(f"set game {START}")
    transport.expect("go")
    transport.expect("ping 3", ["pong 3"])
    with pytest.raises(EngineFailure):
        await client.play(position, Limits(), budget_s=0.05)


async def test_a_position_ggf_cannot_carry_is_refused_without_a_search() -> None:
    transport = ScriptedTransport()
    client = await started(transport)
    transport.expect("ping 2", ["pong 2"])
    with pytest.raises(EngineFailure, match="refused"):
        await client.play(EnginePosition("othello", {"size": 16}, "startpos", (), 0), Limits())
    assert DIALECTS["nboard"]().name == "nboard"
    transport.assert_done()


async def test_a_forced_pass_is_answered_without_asking_the_engine() -> None:
    """As NBoard GUIs do: after b1 c1 d3 a1 on 4x4 Black has no move (test_othello.py)."""
    transport = ScriptedTransport()
    client = await started(transport)
    transport.expect("ping 2", ["pong 2"])
    position = EnginePosition("othello", {"size": 4}, "startpos", ("b1", "c1", "d3", "a1"), 0)
    assert await client.play(position, Limits(depth=3)) == PlayResult("pass", None)
    transport.assert_done()


async def test_an_answer_that_cannot_be_read_fails_the_search_and_chatter_does_not() -> None:
    transport = ScriptedTransport()
    client = await started(transport)
    transport.expect(f"set game {START}")
    transport.expect("set depth 2")
    transport.expect("go", ["search ?? 1 0 2", "Creating cache with 2 buckets", "=== Z"])
    with pytest.raises(EngineFailure, match="==="):
        await client.play(EnginePosition("othello", {}, "startpos", (), 0), Limits(depth=2))
