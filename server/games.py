"""The games this node holds in memory: which ones, where each comes from (created, restored
after a restart, taken over in a cluster, read back by id) and where it goes (kept among the
finished, forgotten, dropped). The core asks here for a game by id and for a new one.

A game not over counts against the limits and its creator's share (`Shares`); a finished one
stays while the `Archive` keeps it. A game forgotten or dropped is gone for the connections
that followed it too (`Sessions.leave`)."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Container, Iterable
from typing import Any

from ubao.engine.game import GameError
from ubao.engine.searchable import Searchable
from ubao.protocol import Create, ErrorCode, Result, quote
from ubao.server.archive import Archive, RulesCache, rebuild
from ubao.server.clock import Now
from ubao.server.lifecycle import Rejected
from ubao.server.limits import Limits
from ubao.server.ratings import RatedGame
from ubao.server.room import Room
from ubao.server.sessions import Connection, Sessions
from ubao.server.shares import Shares, check_seat_specs
from ubao.server.stores.protocol import GameStore, StoredGame, StoreError

log = logging.getLogger("ubao.server")


class Games:
    """Every game in memory, by id: those not over, and the finished ones the archive keeps."""

    def __init__(
        self,
        store: GameStore,
        limits: Limits,
        sessions: Sessions,
        make_game: Callable[[str, dict[str, Any]], Searchable[Any, Any]],
        now: Now,
        rater: Callable[[Room, Result], RatedGame | None],
    ) -> None:
        self.store = store
        self.rater = rater
        self.limits = limits
        self.sessions = sessions
        self.now = now
        self.rules = RulesCache(make_game)
        self.rooms: dict[str, Room] = {}
        self.shares = Shares(limits)
        self.archive = Archive(limits)

    # -- where a game comes from ---------------------------------------------------------------

    def new(
        self, conn: Connection | None, create: Create, wall: Now, *, seated: int = 0, whose: str
    ) -> Room:
        """A new game created by `conn` (dated by `wall` once admitted), checked against the
        limits and its shares, not yet stored or listed; `seated` players sit down in it at once
        (it will not wait for them). A refusal names the shares as `whose` (`this`
        connection's, or a rematch offerer's)."""
        game = self.check(create)
        if conn is not None:
            self.shares.admit(conn.id, conn.ip, create, seated, whose)
        else:  # a tournament's game: no connection's share, but the server's capacity
            self.shares.check_capacity(create)
        room = Room(
            new_game_id(self.rooms),
            create.game,
            create.options,
            game,
            create.seats,
            create.clock,
            self.limits.bounds,
            created=wall(),
        )
        if conn is not None:
            room.creator, room.creator_ip = conn.id, conn.ip
        room.pace_ms = create.pace_ms or 0
        room.rated = create.rated
        room.first_move_ms = self.limits.grace_ms
        room.move_limit_ms = self.limits.move_limit_ms
        return room

    def check(self, create: Create) -> Searchable[Any, Any]:
        """The rules of the game `create` asks for, its seats checked against them and the
        limits; Rejected (`bad_options`) if there is no such game or a seat cannot be had."""
        # The codec checks only that the game's name is well formed; the engine's registry says
        # whether there is such a game (OptionsError: bad_options), before any limit is asked.
        try:
            game = self.rules.get(create.game, create.options)
        except GameError as exc:
            raise Rejected(ErrorCode.BAD_OPTIONS, str(exc)) from None
        check_seat_specs(create, game, self.limits)
        return game

    def reopen(self) -> list[Room]:
        """After a restart: keep the most recently finished games, and open every unfinished
        one again (returned)."""
        for stored in self.store.finished(self.limits.keep_finished):
            room = self.rebuild(stored)
            if room is not None:
                self.retain(room)
        reopened = []
        for stored in self.store.unfinished():
            room = self.rebuild(stored)
            if room is not None:
                self.open(room)
                reopened.append(room)
        return reopened

    def load(self, game_id: str) -> Room | None:
        """The game as the store holds it, whatever its status, not yet held; None if there is
        no such game."""
        stored = self.store.load(game_id)
        return self.rebuild(stored) if stored is not None else None

    def read_back(self, game_id: str) -> Room:
        """A finished game no longer in memory, read back from the store and kept apart from
        the recent ones; Rejected if there is no such finished game, or the store cannot say."""
        try:
            stored = self.store.load(game_id)
        except StoreError as exc:  # its last changes are not kept yet: the disk fails
            log.error("%s", exc)
            message = "the server cannot read this game now; try again"
            raise Rejected(ErrorCode.STORAGE_ERROR, message) from None
        room = self.rebuild(stored) if stored and stored.status == "over" else None
        if room is None:
            raise Rejected(ErrorCode.UNKNOWN_GAME, f"there is no game {quote(game_id)}")
        self.keep_read(room)
        return room

    def rebuild(self, stored: StoredGame) -> Room | None:
        return rebuild(stored, self.rules, self.limits, self.now())

    # -- what it is held as --------------------------------------------------------------------

    def open(self, room: Room) -> None:
        """A game not over joins the server's games (and its creator's share); its end is
        rated by `rater` if it is rated."""
        room.rater = self.rater
        self.rooms[room.game_id] = room
        self.shares.open(room)

    def retain(self, room: Room) -> bool:
        """Keep a finished game in memory, as one of the `keep_finished` most recent; False if
        it is kept already."""
        if self.archive.holds(room.game_id):
            return False
        self.shares.close_out(room)
        self.rooms[room.game_id] = room
        self._forget(self.archive.keep_recent(room, self.rooms))
        return True

    def keep_read(self, room: Room) -> None:
        """Keep a finished game read back by id, apart from the recent ones."""
        self.rooms[room.game_id] = room
        self._forget(self.archive.keep_read(room, self.rooms))

    # -- where it goes -------------------------------------------------------------------------

    def drop(self, game_id: str) -> Room | None:
        """Forget a game this node no longer owns, at once; its followers are the caller's to
        tell. None if it held no such game."""
        room = self.rooms.pop(game_id, None)
        if room is not None:
            self.shares.close_out(room)
            self.archive.discard(game_id)
        return room

    def _forget(self, game_ids: Iterable[str]) -> None:
        for game_id in game_ids:
            room = self.rooms.pop(game_id, None)
            if room is not None:
                self.sessions.leave(game_id, room.watchers)


def new_game_id(taken: Container[str]) -> str:
    """8 URL-safe characters (48 random bits) that do not start with `-` or `_`: a command line
    would read `-x...` as an option (`ubao watch ID`)."""
    while True:
        game_id = secrets.token_urlsafe(6)
        if game_id[0].isalnum() and game_id not in taken:
            return game_id
