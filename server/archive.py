"""Finished games kept in memory (the lobby's recent results, games read back by id) and the
rebuilding of any stored game into a room (a restart, a takeover, a read-back)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ubao.engine.game import GameError
from ubao.engine.searchable import Searchable
from ubao.protocol import Event, Moved, Over, TakebackRequest
from ubao.server.limits import Limits
from ubao.server.room import Room
from ubao.server.stores.protocol import StoredGame

log = logging.getLogger("ubao.server")

KEPT_RULES = 64
"""Distinct (game, options) whose rules objects are kept for the next room of the same kind."""


class RulesCache:
    """Rules objects by game and options: a `Game` is stateless (engine/game.py), so every room
    of the same game and options shares one instead of building its tables again."""

    def __init__(self, make_game: Callable[[str, dict[str, Any]], Searchable[Any, Any]]) -> None:
        self.make_game = make_game
        self._rules: dict[tuple[str, str], Searchable[Any, Any]] = {}

    def get(self, name: str, options: dict[str, Any]) -> Searchable[Any, Any]:
        """The rules of `name` with `options` (GameError if there are none such)."""
        key = (name, json.dumps(options, sort_keys=True))
        game = self._rules.get(key)
        if game is None:
            game = self._rules[key] = self.make_game(name, options)
            if len(self._rules) > KEPT_RULES:
                del self._rules[next(iter(self._rules))]
        return game


class Archive:
    """Which finished games stay in memory: the `keep_finished` most recently finished (the
    lobby lists them), and as many older ones read back from the store because a command named
    them (`watch`, `resume`, hence `ubao export`), kept apart and not listed, so that reading
    old games never pushes the recent results out of the lobby."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.recent: dict[str, None] = {}
        """The most recently finished games, in the order they finished."""
        self.read: dict[str, None] = {}
        """Older finished games read back by id, in the order they were read."""

    def holds(self, game_id: str) -> bool:
        return game_id in self.recent or game_id in self.read

    def discard(self, game_id: str) -> None:
        self.recent.pop(game_id, None)
        self.read.pop(game_id, None)

    def keep_recent(self, room: Room, rooms: Mapping[str, Room]) -> list[str]:
        """Keep a finished game as one of the most recent; returns the games to forget."""
        return self._keep(room, self.recent, rooms)

    def keep_read(self, room: Room, rooms: Mapping[str, Room]) -> list[str]:
        """Keep a finished game read back by id; returns the games to forget."""
        return self._keep(room, self.read, rooms)

    def _keep(self, room: Room, kept: dict[str, None], rooms: Mapping[str, Room]) -> list[str]:
        """`room` (in `rooms` already) is the newest of `kept`: the oldest beyond `keep_finished`
        go, but not one whose rematch offer waits for its answer: forgetting the game would
        drop the offer unseen (an offer lapses only when a player leaves, and its game is
        forgotten at the next game kept after that)."""
        kept[room.game_id] = None
        excess = len(kept) - self.limits.keep_finished
        if excess <= 0:
            return []
        forget: list[str] = []
        for game_id in kept:
            if len(forget) == excess:
                break
            if rooms[game_id].rematch_offer is None:
                forget.append(game_id)
        for game_id in forget:
            del kept[game_id]
        return forget


def rebuild(stored: StoredGame, rules: RulesCache, limits: Limits, now: int) -> Room | None:
    """The room of a stored game, or None (logged) if it cannot be rebuilt."""
    try:
        return _rebuilt(stored, rules, limits, now)
    except (GameError, ValueError, KeyError) as exc:
        log.error("cannot restore game %s: %s", stored.game_id, exc)
        return None


def _rebuilt(stored: StoredGame, rules: RulesCache, limits: Limits, now: int) -> Room:
    if stored.status not in ("waiting", "playing", "over"):
        raise ValueError(f"unexpected status {stored.status!r}")
    room = Room(
        stored.game_id,
        stored.game,
        stored.options,
        rules.get(stored.game, stored.options),
        [spec for spec, _, _ in stored.seats],
        stored.clock,
        limits.bounds,
        created=stored.created,
    )
    room.pace_ms = stored.pace_ms
    room.rated = stored.rated
    room.analysis = stored.analysis
    room.first_move_ms = limits.grace_ms
    room.move_limit_ms = limits.move_limit_ms
    over = stored.status == "over"
    for seat, (_, name, token_hash) in zip(room.seats, stored.seats, strict=True):
        seat.name, seat.token_hash = name, token_hash
        if token_hash is not None and not over:
            seat.grace_until = now + limits.grace_ms
            seat.returning = True  # no clock of theirs runs until they are back
    logged = moves_in_log(stored.events)
    if logged != list(zip(stored.movers, stored.moves, strict=True)):
        raise ValueError(
            f"its {len(stored.moves)} stored moves disagree with the {len(logged)} of its event "
            "log; left in the database as it is"
        )
    room.replay(stored.movers, stored.moves)
    room.restore_events(stored.events)
    if over:
        last = room.events[-1] if room.events else None
        if not isinstance(last, Over):
            raise ValueError("a finished game without its over event")
        room.status, room.result = "over", last.result
    else:
        room.status = "playing" if stored.status == "playing" else "waiting"
    if room.clock is not None and stored.clocks is not None:
        room.clock.remaining = list(stored.clocks)
    room.resume_clock(now)
    return room


def moves_in_log(events: Sequence[Event]) -> list[tuple[int, str]]:
    """The moves that stand after `events`, as (seat, move): each `moved` plays its move at its
    ply, an accepted takeback goes back to its ply. A game's moves table must say the same."""
    moves: list[tuple[int, str]] = []
    for event in events:
        if isinstance(event, Moved):
            del moves[event.ply :]
            moves.append((event.seat, event.move))
        elif isinstance(event, TakebackRequest) and event.state == "accepted":
            del moves[event.ply :]
    return moves
