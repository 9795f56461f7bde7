"""The browser front over plain HTTP (server/web.py): the page's routes, its static files with
their types, validators and Content-Security-Policy, unknown paths refused, and the rules'
replay answer the page draws from (server/web_boards.py); the WebSocket beside it unchanged."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.error
import urllib.request
from urllib.parse import urlencode

import pytest

from tests.support.client import game_server
from tests.support.server import TIMEOUT, Client
from ubao.protocol import Ping
from ubao.server.web import CSP
from ubao.server.web_boards import BoardQueryError, replay

Answer = tuple[int, dict[str, str], bytes]


async def get(port: int, path: str, headers: dict[str, str] | None = None) -> Answer:
    """A plain HTTP GET, in a thread (the server runs on this event loop)."""

    def fetch() -> Answer:
        request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as reply:
                return reply.status, dict(reply.headers.items()), reply.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers.items()), error.read()

    return await asyncio.to_thread(fetch)


async def test_every_route_serves_the_page_with_a_strict_policy() -> None:
    async with game_server() as server:
        for path in ("/", "/game/q3R8xZ1a", "/tournament/t9f8e7d6c", "/player/alice%20b"):
            status, headers, body = await get(server.port, path)
            assert status == 200, path
            assert headers["Content-Type"] == "text/html; charset=utf-8"
            assert headers["Content-Security-Policy"] == CSP
            assert headers["X-Content-Type-Options"] == "nosniff"
            assert b'<script type="module" src="/static/main.js">' in body
            assert b"<script>" not in body and b"style=" not in body  # nothing inline
        assert "script-src 'self'" in CSP and "default-src 'none'" in CSP


async def test_static_files_have_their_types_and_validators() -> None:
    async with game_server() as server:
        status, headers, _ = await get(server.port, "/static/main.js")
        assert (status, headers["Content-Type"]) == (200, "text/javascript; charset=utf-8")
        assert headers["Cache-Control"] == "no-cache" and headers["ETag"]
        again = await get(server.port, "/static/main.js", {"If-None-Match": headers["ETag"]})
        assert again[0] == 304 and again[2] == b""
        for name, kind in (("style.css", "text/css"), ("icon.svg", "image/svg+xml")):
            status, headers, _ = await get(server.port, f"/static/{name}")
            assert status == 200 and headers["Content-Type"].startswith(kind)


async def test_the_page_loads_nothing_from_elsewhere() -> None:
    async with game_server() as server:
        sources = []
        for name in (
            "index.html",
            "main.js",
            "game.js",
            "game_view.js",
            "game_news.js",
            "pages.js",
            "board.js",
            "style.css",
        ):
            _, _, body = await get(server.port, f"/static/{name}")
            sources.append(body.decode())
        text = "\n".join(sources)
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", text)
        assert "innerHTML" not in text  # what other users wrote is shown as text


@pytest.mark.parametrize(
    "path", ["/nothing", "/game/", "/game/a/b", "/static/missing.js", "/static/../app.py"]
)
async def test_unknown_paths_are_not_found(path: str) -> None:
    async with game_server() as server:
        status, headers, _ = await get(server.port, path)
        assert status == 404
        assert headers["Content-Security-Policy"] == CSP


async def test_the_websocket_still_answers_on_the_same_port() -> None:
    async with game_server() as server, Client.connected(server.port) as client:
        ok = await client.ok(Ping(id=0, t=7))  # said hello first, as the page does
        assert ok.t == 7


async def test_the_replay_answer_gives_each_moves_path_and_board() -> None:
    async with game_server() as server:
        query = urlencode({"game": "kalah", "options": '{"pits": 3, "seeds": 2}', "moves": "1 2"})
        status, headers, body = await get(server.port, f"/api/replay?{query}")
        assert status == 200 and headers["Content-Type"] == "application/json"
        answer = json.loads(body)
        assert answer["start"]["position"] == "kalah(3,2) S 2,2,2/2,2,2 0,0"
        first = answer["moves"][0]
        assert first["steps"] == [["S1", "lift"], ["S2", "sow"], ["S3", "sow"]]
        assert first["board"]["json"]["pits"] == [[0, 3, 3], [2, 2, 2]]
        refused = await get(server.port, "/api/replay?game=kalah&moves=9")
        assert refused[0] == 400


def test_replay_starts_anywhere_and_says_when_it_is_over() -> None:
    answer = replay("kalah", {}, "kalah(2,1) S 0,1/1,0 0,0", ["2"])
    assert answer["start"]["legal"] == ["2"]
    over = answer["moves"][0]["board"]
    assert over["to_move"] is None and over["legal"] == []
    assert over["outcome"] == {"winner": None, "score": [1, 1], "reason": "normal"}


def test_replay_shows_bao_and_othello_steps() -> None:
    bao = replay("bao", {}, None, ["A6L"])
    assert bao["moves"][0]["steps"][0] == ["A6", "place"]
    othello = replay("othello", {"size": 4}, None, ["b1"])
    assert [action for _, action in othello["moves"][0]["steps"]] == ["place", "flip"]


@pytest.mark.parametrize(
    ("game", "options", "moves"),
    [("chess", {}, []), ("kalah", {"pits": 0}, []), ("kalah", {}, ["7"]), ("bao", {}, ["Z9"])],
)
def test_replay_refuses_what_the_rules_refuse(
    game: str, options: dict[str, int], moves: list[str]
) -> None:
    with pytest.raises(BoardQueryError):
        replay(game, options, None, moves)
