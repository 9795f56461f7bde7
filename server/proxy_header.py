"""The PROXY protocol's binary header (version 2, as HAProxy writes it with `send-proxy-v2`):
a proxy that connects to the server on a client's behalf says first who the client is. Pure:
bytes in, the client's address out; the edge (server/edge.py) reads it only from the proxies
the operator named (`--proxy`), since anyone else could claim any address."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"
"""The twelve bytes every version 2 header starts with."""

FIXED = 16
"""The signature, the version and command, the family, the length of what follows."""

LONGEST = 1024
"""The most a header may take here, its extensions (TLVs) included: HAProxy sends 16 to 52
bytes unless told to add extensions; a longer one is refused rather than buffered."""

LOCAL, PROXY = 0x20, 0x21
"""Version 2 with the command LOCAL (the proxy's own connection, its health checks) or PROXY."""

INET_STREAM, INET6_STREAM = 0x11, 0x21


class ProxyHeaderError(ValueError):
    """What came is not a version 2 header: the connection is cut."""


@dataclass(frozen=True, slots=True)
class ProxyHeader:
    length: int
    """Bytes the header took: what follows is the client's own stream."""
    client: tuple[str, int] | None
    """The client's address and port; None: the proxy speaks for itself (LOCAL, or an
    address family other than TCP over IPv4 or IPv6), the socket's peer is the one."""


def read_proxy_header(data: bytes) -> ProxyHeader | None:
    """The header at the start of `data`; None while more bytes are needed."""
    head = data[: len(SIGNATURE)]
    if not SIGNATURE.startswith(head):
        raise ProxyHeaderError("no PROXY protocol v2 header from a configured proxy")
    if len(data) < FIXED:
        return None
    command, family = data[12], data[13]
    length = FIXED + int.from_bytes(data[14:16], "big")
    if command not in (LOCAL, PROXY):
        raise ProxyHeaderError(f"PROXY protocol: version and command {command:#04x}")
    if length > LONGEST:
        raise ProxyHeaderError(f"PROXY protocol: a header of {length} bytes")
    if len(data) < length:
        return None
    body = data[FIXED:length]
    if command == LOCAL:
        return ProxyHeader(length, None)
    if family == INET_STREAM and len(body) >= 12:
        return ProxyHeader(length, (str(ipaddress.IPv4Address(body[0:4])), _port(body, 8)))
    if family == INET6_STREAM and len(body) >= 36:
        return ProxyHeader(length, (str(ipaddress.IPv6Address(body[0:16])), _port(body, 32)))
    if family in (INET_STREAM, INET6_STREAM):
        raise ProxyHeaderError(f"PROXY protocol: {len(body)} bytes of addresses")
    return ProxyHeader(length, None)


def _port(body: bytes, at: int) -> int:
    return int.from_bytes(body[at : at + 2], "big")


def proxy_header(client: tuple[str, int], server: tuple[str, int]) -> bytes:
    """The header a proxy sends for `client` connecting to `server` (the tests' proxy)."""
    source, target = ipaddress.ip_address(client[0]), ipaddress.ip_address(server[0])
    family = INET6_STREAM if source.version == 6 else INET_STREAM
    if target.version != source.version:
        target = ipaddress.ip_address("::" if source.version == 6 else "0.0.0.0")
    body = source.packed + target.packed + client[1].to_bytes(2, "big")
    body += server[1].to_bytes(2, "big")
    return SIGNATURE + bytes((PROXY, family)) + len(body).to_bytes(2, "big") + body
