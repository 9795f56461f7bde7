"""The page's own parts that hold no page, run in a real browser: its msgpack codec
(server/web/msgpack.js) against the Python msgpack that the server uses (the same bytes out,
the same values back, every size of every type the protocol sends: fix, 8-, 16- and 32-bit
lengths, 64-bit integers, floats), and a long game's boards asked for in parts (record.js)."""

from __future__ import annotations

import json
from typing import Any

import msgpack
import pytest

from tests.support.browser import Chromium, needs_chromium
from tests.support.client import game_server
from ubao.engine.games import make_game

pytestmark = [needs_chromium, pytest.mark.asyncio(loop_scope="module"), pytest.mark.timeout(120)]

VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    127,
    128,
    255,
    256,
    65535,
    65536,
    2**32 - 1,
    2**32,
    2**53 - 1,
    -1,
    -32,
    -33,
    -128,
    -129,
    -(2**31),
    -(2**40),
    0.5,
    -1.25e300,
    "",
    "a" * 31,
    "b" * 32,
    "é" * 200,
    "c" * 70000,
    "Σ ☃ 𝄞",
    [],
    list(range(15)),
    list(range(16)),
    list(range(70000)),
    {},
    {f"k{i}": i for i in range(15)},
    {f"k{i}": i for i in range(16)},
    {"type": "moved", "legal": ["1", "2"], "clocks": {"remaining_ms": [1, 2], "running": None}},
]


DECODE = """import('/static/msgpack.js').then(({ decode }) => %s.map((bytes) => {
    try { return decode(new Uint8Array(bytes)); } catch { return 'refused'; }
}))"""
"""Each list of bytes decoded by the page's codec, or 'refused'."""


async def test_the_pages_codec_agrees_with_the_servers(browser: Chromium) -> None:
    async with game_server() as server:
        page = await browser.page()
        await page.goto(f"http://127.0.0.1:{server.port}/")
        script = """(async () => {
            const { encode, decode } = await import('/static/msgpack.js');
            const values = %s;
            return values.map((value) => [Array.from(encode(value)), decode(encode(value))]);
        })()"""
        answers = await page.evaluate(script % json.dumps(VALUES))
        for value, (encoded, decoded) in zip(VALUES, answers, strict=True):
            assert bytes(encoded) == msgpack.packb(value), repr(value)[:40]
            assert decoded == value
        python = [list(msgpack.packb(value, use_single_float=True)) for value in (0.5, 1.5)]
        floats = await page.evaluate(DECODE % json.dumps(python))
        assert floats == [0.5, 1.5]  # 32-bit floats decode too
        refused = await page.evaluate(DECODE % "[[0xc1], [0xd4, 0, 0], [0x01, 0x02]]")
        assert refused == ["refused"] * 3  # unknown type, an extension type, trailing bytes
        assert page.errors == []


async def test_a_long_game_is_asked_about_in_parts(browser: Chromium) -> None:
    """A long game is replayed 200 moves a question (a question is a URL, which the server
    reads up to 8 KiB), each part from where the last ended: the boards are the whole game's."""
    game = make_game("othello", {"size": 16})
    position = game.start()
    moves: list[str] = []
    while not game.is_over(position):
        move = game.legal_moves(position)[len(moves) % len(game.legal_moves(position))]
        moves.append(game.format_move(position, move))
        position = game.play(position, move)
    assert len(moves) > 200
    async with game_server() as server:
        page = await browser.page()
        await page.goto(f"http://127.0.0.1:{server.port}/")
        boards = await page.evaluate(
            "import('/static/record.js').then(({ boardsOf }) => "
            f"boardsOf('othello', {{size: 16}}, {json.dumps(moves)}))"
            ".then((boards) => boards.map((board) => board.position))"
        )
        assert len(boards) == len(moves) + 1
        assert boards[-1] == game.format_position(position)
        assert page.errors == []
