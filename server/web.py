"""The browser front on the server's own port: the page's routes, its static files and the
rules' answers it asks for (docs/browser.md).

The WebSocket server hands every plain HTTP request (one that asks no upgrade) here through
its `process_request` hook; WebSocket upgrades go on to the game protocol unchanged. The
static files ship inside the package (`server/web/`), read once at start; each answer carries
a strict Content-Security-Policy (nothing but this origin: no inline script or style, no
third-party origin) and an entity tag, so that a browser revalidates instead of refetching.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from email.utils import formatdate
from functools import lru_cache
from http import HTTPStatus
from importlib import resources
from urllib.parse import parse_qs, urlsplit

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from ubao.server.web_boards import BoardQueryError, replay

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
PAGE_ROUTES = re.compile(r"/(?:(?:game|tournament)/[A-Za-z0-9_-]{1,64}|player/[^/]{1,200})?")
"""The page's addresses: the lobby, a game, a tournament, a player; all serve the one page."""
REPLAY_PATH = "/api/replay"
REPLAY_CACHE = 4096
"""The replay answers kept: a move of a game with spectators is asked once per spectator."""


@dataclass(frozen=True, slots=True)
class Asset:
    """One static file as served: its bytes, type and entity tag."""

    body: bytes
    content_type: str
    etag: str


def load_assets() -> dict[str, Asset]:
    """The files of `server/web/`, by the path they are served at (`/static/NAME`)."""
    assets = {}
    for item in resources.files("ubao.server").joinpath("web").iterdir():
        suffix = "." + item.name.rpartition(".")[2]
        if item.is_file() and suffix in CONTENT_TYPES:
            body = item.read_bytes()
            tag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
            assets[f"/static/{item.name}"] = Asset(body, CONTENT_TYPES[suffix], tag)
    return assets


def wants_websocket(request: Request) -> bool:
    return "websocket" in request.headers.get("Upgrade", "").lower()


class WebFront:
    """Answers the browser's plain HTTP requests; None leaves a request to the WebSocket."""

    def __init__(self) -> None:
        self.assets = load_assets()

    def respond(self, request: Request) -> Response | None:
        if wants_websocket(request):
            return None
        url = urlsplit(request.path)
        if PAGE_ROUTES.fullmatch(url.path):
            return self._asset(request, self.assets["/static/index.html"])
        if url.path in self.assets:
            return self._asset(request, self.assets[url.path])
        if url.path == REPLAY_PATH:
            return self._replay(url.query)
        return self._plain(HTTPStatus.NOT_FOUND, "not found\n")

    def _asset(self, request: Request, asset: Asset) -> Response:
        headers = {"ETag": asset.etag, "Cache-Control": "no-cache"}
        if request.headers.get("If-None-Match") == asset.etag:
            return _response(HTTPStatus.NOT_MODIFIED, b"", None, headers)
        return _response(HTTPStatus.OK, asset.body, asset.content_type, headers)

    def _replay(self, query: str) -> Response:
        status, body = replay_answer(query)
        if status is not HTTPStatus.OK:
            return self._plain(status, body.decode())
        headers = {"Cache-Control": "public, max-age=86400"}
        return _response(HTTPStatus.OK, body, "application/json", headers)

    @staticmethod
    def _plain(status: HTTPStatus, text: str) -> Response:
        return _response(status, text.encode(), "text/plain; charset=utf-8", {})


@lru_cache(maxsize=REPLAY_CACHE)
def replay_answer(query: str) -> tuple[HTTPStatus, bytes]:
    """`?game=NAME&options=JSON&start=POSITION&moves=M1 M2 …`: the rules' answer as JSON
    (web_boards.replay). The same question always gets the same answer, so every spectator
    of a game asking of its latest move costs the rules one answer."""
    fields = {key: values[-1] for key, values in parse_qs(query).items()}
    try:
        options = json.loads(fields.get("options") or "{}")
        if not isinstance(options, dict):
            raise BoardQueryError("options must be a JSON object")
        moves = fields.get("moves", "").split()
        answer = replay(fields.get("game", ""), options, fields.get("start"), moves)
    except (BoardQueryError, json.JSONDecodeError) as error:
        return HTTPStatus.BAD_REQUEST, f"{error}\n".encode()
    return HTTPStatus.OK, json.dumps(answer, separators=(",", ":")).encode()


def _response(
    status: HTTPStatus, body: bytes, content_type: str | None, extra: dict[str, str]
) -> Response:
    headers = Headers(
        {
            "Date": formatdate(usegmt=True),
            "Connection": "close",
            "Content-Length": str(len(body)),
            "Content-Security-Policy": CSP,
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
            **extra,
        }
    )
    if content_type is not None:
        headers["Content-Type"] = content_type
    return Response(status.value, status.phrase, headers, body)
