"""The lobby: its subscribers and its pages, in a fixed order a cursor can resume from."""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable

from ubao.protocol import (
    DEFAULT_PAGE,
    ErrorCode,
    GameSummary,
    ListGames,
    LobbyFilter,
    Ok,
    Status,
    quote,
)
from ubao.protocol.messages import MAX_GAME_ID
from ubao.server.lifecycle import Rejected
from ubao.server.room import Room

LOBBY_STATUS: dict[LobbyFilter, Status] = {"open": "waiting", "live": "playing", "finished": "over"}
LOBBY_RANK: dict[Status, int] = {"waiting": 0, "playing": 1, "over": 2}
"""A lobby without a filter lists open games first (what a client looking for a game wants),
then live ones, then finished ones; each newest first."""

LobbyLine = Room | GameSummary
"""A game as the lobby lists it: one of this node's rooms, or another node's summary."""


class LobbyListing:
    """Who hears of lobby changes, and the page a `games` command asks for."""

    def __init__(self) -> None:
        self.subscribers: set[int] = set()
        """Connections subscribed to lobby changes."""

    def subscribe(self, conn_id: int, subscribe: bool | None) -> None:
        if subscribe is not None:
            (self.subscribers.add if subscribe else self.subscribers.discard)(conn_id)

    def page(self, command: ListGames, lines: Iterable[LobbyLine]) -> Ok:
        """A page of `lines`, in `LOBBY_RANK` order, newest first, after the command's cursor."""
        after = cursor_key(command.cursor) if command.cursor else None
        status = LOBBY_STATUS[command.filter] if command.filter else None
        keyed = (
            (lobby_key(line), line)
            for line in lines
            if (status is None or line.status == status)
            and (command.player is None or any(s.name == command.player for s in line.seats))
        )
        later = (item for item in keyed if after is None or item[0] > after)
        limit = command.limit or DEFAULT_PAGE
        page = heapq.nsmallest(limit + 1, later, key=lambda item: item[0])
        cursor = _cursor(page[limit - 1][0]) if len(page) > limit else None
        summaries = tuple(
            line.summary() if isinstance(line, Room) else line for _, line in page[:limit]
        )
        return Ok(id=command.id, games=summaries, cursor=cursor)


def lobby_key(line: LobbyLine) -> tuple[int, int, str]:
    """Where a game stands in the lobby: by `LOBBY_RANK`, then newest first."""
    return LOBBY_RANK[line.status], -(line.created or 0), line.game_id


_CURSOR = re.compile(rf"([0-2]):(0|-?[1-9][0-9]*):([A-Za-z0-9_-]{{1,{MAX_GAME_ID}}})")
"""What `_cursor` writes: a `LOBBY_RANK`, a negated creation time and a game id (`new_game_id`
writes URL-safe characters), in ASCII."""


def _cursor(key: tuple[int, int, str]) -> str:
    return f"{key[0]}:{key[1]}:{key[2]}"


def cursor_key(cursor: str) -> tuple[int, int, str]:
    """The lobby key a `cursor` of ours stands for; anything `_cursor` does not write (spaces,
    signs or digits other than ASCII's, which `int` would take, more fields) is a bad message."""
    found = _CURSOR.fullmatch(cursor)
    if found is None:
        raise Rejected(
            ErrorCode.BAD_MESSAGE, f"games: {quote(cursor)} is not a cursor of this server"
        )
    rank, created, game_id = found.groups()
    return int(rank), int(created), game_id
