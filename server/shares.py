"""The games not over, whose count the limits and each client's shares bound: a new game is
admitted here or refused (`quota_exceeded`, `server_busy`, `bad_options`)."""

from __future__ import annotations

from typing import Any

from ubao.engine.search import ALGORITHMS
from ubao.engine.searchable import Searchable
from ubao.protocol import Create, ErrorCode, quote
from ubao.server.lifecycle import Rejected
from ubao.server.limits import Limits, Share
from ubao.server.room import Room


class Shares:
    """The games not over, all of them and by the address that created them."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.live: dict[str, Room] = {}
        """The games not over, which the limits count."""
        self._by_address: dict[str, dict[str, Room]] = {}
        """The games not over by the address they were created from (their shares)."""

    def open(self, room: Room) -> None:
        """A game not over counts from now on (against its creator's share too)."""
        self.live[room.game_id] = room
        if room.creator_ip is not None:
            self._by_address.setdefault(room.creator_ip, {})[room.game_id] = room

    def close_out(self, room: Room) -> None:
        """The game is over or gone: the limits no longer count it."""
        self.live.pop(room.game_id, None)
        address = room.creator_ip
        if address is not None and address in self._by_address:
            ours = self._by_address[address]
            ours.pop(room.game_id, None)
            if not ours:
                del self._by_address[address]

    def admit(self, conn_id: int, ip: str, create: Create, seated: int, whose: str) -> None:
        """Refuse a new game that connection `conn_id` from `ip` may not create now; `seated`
        players sit down in it at once. A refusal names the shares as `whose`."""
        limits = self.limits
        bots = sum(spec.kind == "bot" for spec in create.seats)
        waits = bots + seated < len(create.seats)
        ours = list(self._by_address.get(ip, {}).values())
        if bots or not limits.per_connection.within(len(ours)):
            mine = [room for room in ours if room.creator == conn_id]
            _check_share(limits.per_connection, f"{whose} connection", mine, bots, waits)
        _check_share(limits.per_address, f"{whose} address", ours, bots, waits)
        self.check_capacity(create, holds_some=bool(ours))

    def check_capacity(self, create: Create, holds_some: bool = False) -> None:
        """Refuse a new game the server has no room for (`--max-games`, `--max-bot-seats`),
        whoever makes it: a client, or a tournament, which counts against no share. The last
        slots (`--reserved-games`) are kept for makers that hold no game (`holds_some` false)."""
        limits = self.limits
        bots = sum(spec.kind == "bot" for spec in create.seats)
        if len(self.live) >= limits.max_games:
            raise Rejected(ErrorCode.SERVER_BUSY, "too many games are going on; try again later")
        reserved = min(limits.reserved_games, limits.max_games // 10)
        if holds_some and len(self.live) >= limits.max_games - reserved:
            message = (
                "the last game slots are kept for addresses that hold none; finish one of "
                "yours first, or try again later"
            )
            raise Rejected(ErrorCode.SERVER_BUSY, message)
        if bots:
            running = sum(seat.is_bot for room in self.live.values() for seat in room.seats)
            if running + bots > limits.max_bot_seats:
                message = "too many bot seats are busy; try again later"
                raise Rejected(ErrorCode.SERVER_BUSY, message)


def check_seat_specs(create: Create, game: Searchable[Any, Any], limits: Limits) -> None:
    """Refuse seats that ask for what the game or this server's bots do not have."""
    for index, spec in enumerate(create.seats):
        if spec.eval is not None and spec.eval not in game.evaluations:
            known = ", ".join(game.evaluations)
            message = f"seat {index}: {create.game} has no evaluation {quote(spec.eval)} ({known})"
            raise Rejected(ErrorCode.BAD_OPTIONS, message)
        if spec.algorithm is not None and spec.algorithm not in ALGORITHMS:
            known = ", ".join(ALGORITHMS)
            message = f"seat {index}: unknown algorithm {quote(spec.algorithm)} ({known})"
            raise Rejected(ErrorCode.BAD_OPTIONS, message)
        if spec.engine is not None and spec.engine not in limits.engine_bots:
            offered = ", ".join(limits.engine_bots) or "none"
            name = quote(spec.engine)
            message = f"seat {index}: this server has no engine bot {name} (on offer: {offered})"
            raise Rejected(ErrorCode.BAD_OPTIONS, message)
        if spec.kind == "bot" and (spec.depth or 0) > limits.max_bot_depth:
            deepest = limits.max_bot_depth
            message = f"seat {index}: this server's bots search at most {deepest} plies deep"
            raise Rejected(ErrorCode.BAD_OPTIONS, message)
        if (spec.time_ms or 0) > limits.max_bot_time_ms:
            longest = limits.max_bot_time_ms
            message = f"seat {index}: this server's bots think at most {longest} ms a move"
            raise Rejected(ErrorCode.BAD_OPTIONS, message)


def _check_share(share: Share, whose: str, rooms: list[Room], bots: int, waits: bool) -> None:
    """Refuse a new game that would take `whose` over its share (`rooms`: its games not over)."""
    if not bots and share.within(len(rooms)):
        return  # fewer games than either count allows: none needs counting
    held = sum(seat.is_bot for room in rooms for seat in room.seats) if bots else 0
    if len(rooms) >= share.games:
        why = f"{len(rooms)} games not over"
    elif waits and sum(room.status == "waiting" for room in rooms) >= share.waiting:
        why = f"{share.waiting} games waiting for players"
    elif bots and held + bots > share.bot_seats:
        why = f"{held} of its {share.bot_seats} server bot seats taken"
    else:
        return
    message = f"{whose} already has {why}; finish or cancel one first"
    raise Rejected(ErrorCode.QUOTA_EXCEEDED, message)
