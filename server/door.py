"""The front door, before any WebSocket handshake: how many connections are open in total and
from each address (an IPv6 client's whole /64 being one address), counted from the moment they
are accepted, and which to refuse at once. Also how often a repeated accept error is logged.
Pure bookkeeping: the edge (server/edge.py) accepts, closes and logs."""

from __future__ import annotations

import ipaddress
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

IPV6_GROUP = 64
"""An IPv6 client's share is its /64: a home or a server is given a whole /64 and may pick
any address in it, so a limit per exact IPv6 address would not limit it."""

DESCRIPTORS_KEPT = 64
"""File descriptors the door leaves for everything else (the database, its journal, engine
processes' pipes, the KGP port) when it derives its total from the descriptor limit..."""

DESCRIPTORS_SHARE = 0.9
"""...and at most this share of the limit goes to connections."""


def address_group(ip: str) -> str:
    """The address that limits count by: an IPv4 address as it is (an IPv4-mapped IPv6 one as
    IPv4), an IPv6 address as its /64 (`2001:db8:1:2::/64`); anything else (a Unix socket,
    `unknown`, a group already) unchanged."""
    try:
        address = ipaddress.ip_address(ip.split("%", 1)[0])
    except ValueError:
        return ip
    if address.version == 4:
        return str(address)
    if address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(ipaddress.IPv6Network((address, IPV6_GROUP), strict=False))


def connections_for(descriptors: int) -> int:
    """The connections a process with `descriptors` file descriptors may hold open at once."""
    return max(1, min(descriptors - DESCRIPTORS_KEPT, int(descriptors * DESCRIPTORS_SHARE)))


@dataclass(frozen=True, slots=True)
class Networks:
    """The proxies the operator trusts to say who their clients are (`--proxy`)."""

    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()

    @classmethod
    def parse(cls, texts: Iterable[str]) -> Networks:
        """Addresses or networks (`10.0.0.5`, `172.16.0.0/12`, `fd00::/8`); ValueError says
        which one is not."""
        return cls(tuple(ipaddress.ip_network(text.strip(), strict=False) for text in texts))

    def __contains__(self, ip: object) -> bool:
        if not self.networks or not isinstance(ip, str):
            return False
        try:
            address = ipaddress.ip_address(ip.split("%", 1)[0])
        except ValueError:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self.networks)


class Door:
    """Open connections, in total and by address group, from accept to close."""

    def __init__(self, total: int, per_address: int) -> None:
        self.total = total
        self.per_address = per_address
        self.open = 0
        self.by_address: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()
        """Connections refused at the door, by why (`/metrics`)."""

    def arrive(self) -> str | None:
        """A connection was accepted, its client not yet known: counted, or why it is refused
        (and not counted)."""
        if self.open >= self.total:
            self.refused["server_full"] += 1
            return "the server has too many connections"
        self.open += 1
        return None

    def place(self, group: str) -> str | None:
        """The connection counted by `arrive` is from `group`: counted there too, or why it is
        refused (then `leave(None)` uncounts it)."""
        if self.by_address[group] >= self.per_address:
            self.refused["address_full"] += 1
            return "too many connections from this address"
        self.by_address[group] += 1
        return None

    def leave(self, group: str | None) -> None:
        """A counted connection closed (`group`: where it was placed, if it was)."""
        self.open -= 1
        if group is not None:
            self.by_address[group] -= 1
            if self.by_address[group] <= 0:
                del self.by_address[group]


class Throttle:
    """At most one log line per `every_ms` for an error that repeats (asyncio's accept loop
    reports each failed accept: thousands a second when descriptors run out), with a count of
    those left unsaid."""

    def __init__(self, every_ms: int) -> None:
        self.every_ms = every_ms
        self._last: int | None = None
        self.unsaid = 0

    def say(self, now: int) -> int | None:
        """Whether to log now: None to stay silent (counted), or how many were left unsaid
        since the last line."""
        if self._last is not None and now - self._last < self.every_ms:
            self.unsaid += 1
            return None
        self._last, unsaid, self.unsaid = now, self.unsaid, 0
        return unsaid
