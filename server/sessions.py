"""Who is connected: each connection's session, role, seats, games and message budget, and how
many connections each address holds. Pure bookkeeping: the core decides what to do with them."""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from ubao.protocol import Hello, Role, canonical_name
from ubao.server.clock import MessageBudget
from ubao.server.door import address_group
from ubao.server.limits import Limits


@dataclass(slots=True)
class Connection:
    id: int
    ip: str
    session: str
    budget: MessageBudget
    name: str = ""
    role: Role | None = None
    """None until `hello`."""
    account: str | None = None
    """The canonical name of the account whose key the `hello` proved (None: a guest)."""
    bot_account: bool = False
    """That account is a bot's: the connection plays as a bot client, whatever its role."""
    checking: bool = False
    """Its `hello`'s key is being checked (on a worker thread): no second `hello` meanwhile."""
    seats: set[tuple[str, int]] = field(default_factory=set)
    """(game_id, seat) of the seats this connection holds."""
    rooms: set[str] = field(default_factory=set)
    """Games whose events this connection receives."""
    closing: bool = False
    proxy: bool = False
    """It plays a client of another node (in a cluster): its frames never go further."""
    remote: dict[str, str] = field(default_factory=dict)
    """The nodes its commands for other nodes' games went to, by game: each game's commands
    keep going to the same node while this connection lasts."""

    @property
    def is_bot(self) -> bool:
        """A bot client: by its `hello` role, or by its account's."""
        return self.role == "bot" or self.bot_account

    def leave(self, game_id: str) -> None:
        """The game is gone from this node: no more of its events, none of its seats."""
        self.rooms.discard(game_id)
        self.seats -= {(game_id, 0), (game_id, 1)}


class Sessions:
    """Every open connection, by id, and the count per address (`connections_per_ip`)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.conns: dict[int, Connection] = {}
        self.per_ip: Counter[str] = Counter()
        self._next_conn = 0

    def open(
        self, ip: str, now: int, hello: Hello | None, account: str | None = None
    ) -> Connection:
        """A new connection from `ip` (counted by its group: an IPv6 address's /64); with
        `hello`, a proxy for another node's client that said it there, and with `account`
        (`human` or `bot`), one that proved its account there."""
        self._next_conn += 1
        limits = self.limits
        conn = Connection(
            id=self._next_conn,
            ip=address_group(ip),
            session=secrets.token_hex(8),
            budget=MessageBudget.new(limits.burst, limits.per_second, now),
        )
        if hello is not None:
            conn.name, conn.role, conn.proxy = hello.name, hello.role, True
            if account is not None:
                conn.account, conn.bot_account = canonical_name(hello.name), account == "bot"
        self.conns[conn.id] = conn
        self.per_ip[conn.ip] += 1
        return conn

    def crowded(self, conn: Connection) -> bool:
        """Whether its address holds more connections than allowed (this one counted)."""
        return self.per_ip[conn.ip] > self.limits.connections_per_ip

    def close(self, conn_id: int) -> Connection | None:
        """Forget a closed connection; None if it was forgotten already."""
        conn = self.conns.pop(conn_id, None)
        if conn is not None:
            self.per_ip[conn.ip] -= 1
            if self.per_ip[conn.ip] <= 0:
                del self.per_ip[conn.ip]
        return conn

    def leave(self, game_id: str, conn_ids: Iterable[int]) -> None:
        """The game is gone from memory: these connections no longer follow it nor hold its
        seats."""
        for conn_id in conn_ids:
            conn = self.conns.get(conn_id)
            if conn is not None:
                conn.leave(game_id)
