"""The front door, pure: connections counted per address group and in total from accept, the
PROXY protocol v2 header read, repeated accept errors logged once in a while."""

from __future__ import annotations

import pytest

from tests.support.server import Harness, small_limits
from ubao.server.door import Door, Networks, Throttle, address_group, connections_for
from ubao.server.outputs import POLICY_VIOLATION
from ubao.server.proxy_header import (
    SIGNATURE,
    ProxyHeader,
    ProxyHeaderError,
    proxy_header,
    read_proxy_header,
)


def test_an_ipv6_client_counts_as_its_slash_64() -> None:
    assert address_group("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"
    assert address_group("2001:db8:1:2:ffff:1:2:3") == "2001:db8:1:2::/64"
    assert address_group("2001:db8:1:3::1") == "2001:db8:1:3::/64"
    assert address_group("fe80::1%eth0") == "fe80::/64"


def test_an_ipv4_address_counts_as_itself_mapped_or_not() -> None:
    assert address_group("192.0.2.7") == "192.0.2.7"
    assert address_group("::ffff:192.0.2.7") == "192.0.2.7"
    assert address_group("unknown") == "unknown"
    assert address_group("2001:db8::/64") == "2001:db8::/64"  # a group stays itself


def test_the_door_refuses_beyond_an_address_share_and_the_total() -> None:
    door = Door(total=3, per_address=2)
    for _ in range(2):
        assert door.arrive() is None and door.place("192.0.2.1") is None
    assert door.arrive() is None
    assert door.place("192.0.2.1") == "too many connections from this address"
    door.leave(None)  # the refused one closes
    assert door.arrive() is None and door.place("192.0.2.2") is None
    assert door.arrive() == "the server has too many connections"
    door.leave("192.0.2.1")
    assert door.arrive() is None and door.place("192.0.2.1") is None
    assert door.open == 3 and door.by_address == {"192.0.2.1": 2, "192.0.2.2": 1}
    assert door.refused == {"address_full": 1, "server_full": 1}


def test_the_total_leaves_descriptors_for_the_rest() -> None:
    assert connections_for(1024) == 921
    assert connections_for(65536) == 58982
    assert connections_for(100) == 36
    assert connections_for(10) == 1


def test_trusted_proxies_are_addresses_or_networks() -> None:
    proxies = Networks.parse(["10.0.0.5", "172.16.0.0/12", "fd00::/8"])
    assert "10.0.0.5" in proxies and "::ffff:10.0.0.5" in proxies
    assert "172.20.1.1" in proxies and "fd12::1" in proxies
    assert "10.0.0.6" not in proxies and "unknown" not in proxies
    assert "10.0.0.5" not in Networks()
    with pytest.raises(ValueError):
        Networks.parse(["haproxy"])


def test_a_repeated_error_is_said_once_per_period_with_the_count_left_out() -> None:
    throttle = Throttle(every_ms=10_000)
    assert throttle.say(0) == 0
    assert [throttle.say(t) for t in range(1, 2049)] == [None] * 2048
    assert throttle.say(10_000) == 2048
    assert throttle.say(10_001) is None and throttle.say(25_000) == 1


def test_a_proxy_header_names_the_client_v4_and_v6() -> None:
    header = proxy_header(("198.51.100.7", 50123), ("10.0.0.2", 8765))
    assert len(header) == 28
    assert read_proxy_header(header + b"GET / HTTP/1.1") == ProxyHeader(28, ("198.51.100.7", 50123))
    header6 = proxy_header(("2001:db8::7", 443), ("2001:db8::1", 8765))
    assert read_proxy_header(header6) == ProxyHeader(52, ("2001:db8::7", 443))


def test_a_header_in_pieces_waits_for_the_rest() -> None:
    header = proxy_header(("198.51.100.7", 50123), ("10.0.0.2", 8765))
    for cut in range(len(header)):
        assert read_proxy_header(header[:cut]) is None


def test_local_and_unknown_families_leave_the_peer_as_the_client() -> None:
    local = SIGNATURE + bytes((0x20, 0x00)) + (0).to_bytes(2, "big")
    assert read_proxy_header(local) == ProxyHeader(16, None)
    unix = SIGNATURE + bytes((0x21, 0x31)) + (216).to_bytes(2, "big") + bytes(216)
    assert read_proxy_header(unix) == ProxyHeader(232, None)


@pytest.mark.parametrize(
    "data",
    [
        b"GET / HTTP/1.1\r\n",
        b"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\n",  # version 1 is not read
        SIGNATURE + bytes((0x22, 0x11)) + (12).to_bytes(2, "big") + bytes(12),
        SIGNATURE + bytes((0x21, 0x11)) + (4).to_bytes(2, "big") + bytes(4),
        SIGNATURE + bytes((0x21, 0x11)) + (60_000).to_bytes(2, "big"),
    ],
)
def test_anything_else_from_a_proxy_is_refused(data: bytes) -> None:
    with pytest.raises(ProxyHeaderError):
        read_proxy_header(data)


def test_the_core_counts_an_ipv6_slash_64_as_one_address() -> None:
    h = Harness(small_limits(connections_per_ip=2))
    assert h.connect("2001:db8:7:7::1").closed is None
    assert h.connect("2001:db8:7:7:1:2:3:4").closed is None
    third = h.connect("2001:db8:7:7:ffff::9")
    assert third.closed == (POLICY_VIOLATION, "too many connections from this address")
    assert h.connect("2001:db8:7:8::1").closed is None
