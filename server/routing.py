"""Where a game is served: on one node every game is its own (`LocalRouting`); in a cluster
(docs/cluster.md) a command for a game another node owns goes there, the lobby lists every
node's games, and a live game nobody owns any more is adopted from the store
(`ClusterRouting`); tournaments likewise. The core asks its routing, never whether it is in a
cluster."""

from __future__ import annotations

from collections.abc import Container, Mapping
from typing import Protocol

from ubao.protocol import GameSummary
from ubao.server.outputs import SERVICE_RESTART, Close, Forward, Listed, Output
from ubao.server.room import Room
from ubao.server.sessions import Connection


class OwnerDown(Exception):
    """The node that owns a game has stopped and no other has taken the game over yet."""


class Peers(Protocol):
    """The other nodes of a cluster, as the core sees them (server/cluster.py). Reads go to the
    shared store, so they answer at once."""

    def owner(self, game_id: str) -> str | None:
        """The other node that owns the live game `game_id`, or None if this node is to serve
        it: it owns it (having just claimed it, if nobody did), or the game is not live
        (over, or unknown). OwnerDown if its owner stopped and its lease has not expired."""

    def games(self) -> list[GameSummary]:
        """The lobby lines of every node's games (live, and the recently finished ones)."""

    def tournament_owner(self, tid: str) -> str | None:
        """As `owner`, for a tournament (owned through a lease as a game is)."""


class Routing(Protocol):
    adopts_live: bool
    """Whether a game this node does not hold may be a live one in the store that it is to
    serve now (a cluster's), rather than only a finished one to read back."""

    def route(
        self, conn: Connection, game_id: str, data: bytes | str, tournament: bool = False
    ) -> Output | None:
        """For a command about `game_id`, a game (or a `tournament`) this node does not hold:
        what to do instead of handling it here (forward it, or close the client so it comes
        back), or None."""

    def lines(self, rooms: Mapping[str, Room], read: Container[str]) -> list[GameSummary]:
        """The lobby lines of other nodes' games (none of `rooms`, unless `read` back only)."""

    def announce(self, room: Room) -> list[Output]:
        """What tells other nodes that `room`'s lobby line changed."""


class LocalRouting:
    """One node: every game is this node's."""

    adopts_live = False

    def route(
        self, conn: Connection, game_id: str, data: bytes | str, tournament: bool = False
    ) -> Output | None:
        return None

    def lines(self, rooms: Mapping[str, Room], read: Container[str]) -> list[GameSummary]:
        return []

    def announce(self, room: Room) -> list[Output]:
        return []


class ClusterRouting:
    """One node of a cluster: `peers` tells who owns what."""

    adopts_live = True

    def __init__(self, peers: Peers) -> None:
        self.peers = peers

    def route(
        self, conn: Connection, game_id: str, data: bytes | str, tournament: bool = False
    ) -> Output | None:
        """Send a command for another node's game (or tournament) there; a proxy's command is
        never sent on (its node is not the owner any more, so its client has to come back)."""
        node = conn.remote.get(game_id)
        if node is None:
            owner = self.peers.tournament_owner if tournament else self.peers.owner
            try:
                node = owner(game_id)
            except OwnerDown:
                node = ""
            if node is None:
                return None
        if node == "" or conn.proxy:
            conn.closing = True
            return Close(conn.id, SERVICE_RESTART, "service restart")
        conn.remote[game_id] = node
        return Forward(conn.id, node, data)

    def lines(self, rooms: Mapping[str, Room], read: Container[str]) -> list[GameSummary]:
        return [
            game for game in self.peers.games() if game.game_id not in rooms or game.game_id in read
        ]

    def announce(self, room: Room) -> list[Output]:
        return [Listed(room.summary())]
