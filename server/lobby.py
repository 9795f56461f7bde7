"""The lobby: its subscribers (so many per address), what they are told of games' changes
(coalesced per game within a short window), and its pages, in a fixed order a cursor can resume
from."""

from __future__ import annotations

import heapq
import re
from collections import Counter
from collections.abc import Iterable

from ubao.protocol import (
    DEFAULT_PAGE,
    ErrorCode,
    GameSummary,
    ListGames,
    Lobby,
    LobbyFilter,
    Ok,
    Status,
    quote,
)
from ubao.protocol.messages import MAX_GAME_ID
from ubao.server.lifecycle import Rejected
from ubao.server.outputs import SendMessage
from ubao.server.room import Room

LOBBY_STATUS: dict[LobbyFilter, Status] = {"open": "waiting", "live": "playing", "finished": "over"}
LOBBY_RANK: dict[Status, int] = {"waiting": 0, "playing": 1, "over": 2}
"""A lobby without a filter lists open games first (what a client looking for a game wants),
then live ones, then finished ones; each newest first."""

LobbyLine = Room | GameSummary
"""A game as the lobby lists it: one of this node's rooms, or another node's summary."""


class LobbyListing:
    """Who hears of lobby changes, what they hear and when, and the page a `games` command
    asks for.

    A game's line goes out at most once per `window_ms`: a change within the window of the
    last one waits for its end, and only the game's latest line goes then. A new game waits a
    window before its first line, so a game created and withdrawn within it (a client that
    churns create and cancel within its budget) is never told at all. Every subscriber hears
    the same lines, so the window is kept per game, for all of them at once."""

    def __init__(self, window_ms: int, per_address: int) -> None:
        self.subscribers: set[int] = set()
        """Connections subscribed to lobby changes."""
        self.window_ms = window_ms
        self.per_address = per_address
        self._addresses: dict[int, str] = {}
        """Each subscriber's address, and how many each address has (`per_address` at most)."""
        self._by_address: Counter[str] = Counter()
        self._sent_at: dict[str, int] = {}
        """When each game's line last went out, within the last window."""
        self._held: dict[str, tuple[LobbyLine, bool, int]] = {}
        """Lines that wait for their window's end: the latest line, whether the game is new
        (never told), when it goes out."""

    def subscribe(self, conn_id: int, address: str, subscribe: bool | None) -> None:
        """Subscribe or unsubscribe; `quota_exceeded` beyond the address's subscriptions."""
        if subscribe is None or (subscribe and conn_id in self._addresses):
            return
        if not subscribe:
            self.leave(conn_id)
            return
        if self._by_address[address] >= self.per_address:
            message = (
                f"this address already has {self.per_address} lobby subscriptions; "
                "unsubscribe one first"
            )
            raise Rejected(ErrorCode.QUOTA_EXCEEDED, message)
        self.subscribers.add(conn_id)
        self._addresses[conn_id] = address
        self._by_address[address] += 1

    def leave(self, conn_id: int) -> None:
        """The connection unsubscribed or closed."""
        self.subscribers.discard(conn_id)
        address = self._addresses.pop(conn_id, None)
        if address is not None:
            self._by_address[address] -= 1
            if self._by_address[address] <= 0:
                del self._by_address[address]

    def changed(self, line: LobbyLine, now: int, new: bool) -> list[SendMessage]:
        """A game's line changed (`new`: it is listed for the first time): its line now, or
        held until its window ends."""
        game_id = line.game_id
        held = self._held.get(game_id)
        if held is not None:
            self._held[game_id] = (line, held[1], held[2])
            return []
        if not self.subscribers:
            return []
        if self.window_ms <= 0:
            return [self._tell(line)]
        last = self._sent_at.get(game_id)
        if not new and (last is None or now - last >= self.window_ms):
            self._sent_at[game_id] = now
            return [self._tell(line)]
        due = now + self.window_ms if new or last is None else last + self.window_ms
        self._held[game_id] = (line, new, due)
        return []

    def next_deadline(self) -> int | None:
        """When a held line is next due, if any."""
        return min((due for _, _, due in self._held.values()), default=None)

    def due(self, now: int) -> list[SendMessage]:
        """The held lines whose window has ended; nothing of a new game already withdrawn."""
        ready = [game_id for game_id, (_, _, due) in self._held.items() if due <= now]
        sends = []
        for game_id in ready:
            line, new, _ = self._held.pop(game_id)
            if (new and line.status == "over") or not self.subscribers:
                continue
            self._sent_at[game_id] = now
            sends.append(self._tell(line))
        horizon = now - self.window_ms
        for game_id in [g for g, at in self._sent_at.items() if at <= horizon]:
            del self._sent_at[game_id]
        return sends

    def _tell(self, line: LobbyLine) -> SendMessage:
        summary = line.summary() if isinstance(line, Room) else line
        return SendMessage(tuple(self.subscribers), Lobby(game=summary))

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
