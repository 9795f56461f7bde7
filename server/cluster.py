"""A server node in a cluster over Redis (docs/cluster.md): ownership, routing, the lobby.

Every live game is owned by one node, through a lease in Redis that the owner renews every
`RENEW_MS` and that expires `LEASE_MS` after its last renewal. Every write of a game is fenced
by its lease (server/redis_store.py), so a node that lost a lease cannot change the game any
more: it drops it and closes the connections that followed it, which come back to the new owner.
Each node also keeps a heartbeat key alive, so that others know it runs, and looks every
`SCAN_MS` for live games whose lease expired: it claims them and rebuilds them from the store,
as a restart does (clocks, bot turns and grace periods go on from there).

Any node accepts any client. A command for another node's game goes to that node's inbox (a
Redis pub/sub channel per node), where a proxy connection in its core stands for the client;
whatever the owner's core sends a proxy comes back through the origin's inbox, encoded once and
sent once per origin node with the connection ids there. A node that stops takes its proxies
with it: their clients are closed with 1012 and come back (to any node), resuming where they
were. Lobby changes go to every node over one more channel, and `games` reads every node's
lobby lines from Redis.

The inbox messages are msgpack lists: ["open", origin, conn, ip, name, role], ["frame", origin,
conn, data], ["gone", origin, conn] from a client's node to a game's owner, and ["send", frame,
conns], ["close", conn, code, reason] back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
import secrets
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Protocol

import msgpack
import redis
import redis.asyncio

from ubao.protocol import PROTOCOL_VERSION, GameSummary, Hello, Lobby, decode_server_message, encode
from ubao.server.core import SERVICE_RESTART, Core, Forward, OwnerDown
from ubao.server.redis_store import (
    CLAIM,
    LIVE,
    PREFIX,
    RELEASE,
    RENEW,
    RedisStore,
    game_key,
    lease_key,
    new_tenure,
    node_key,
    texts,
)
from ubao.server.storage import StoreError

log = logging.getLogger("ubao.server.cluster")

LOBBY_CHANNEL = PREFIX + "lobby-changes"


def inbox(node: str) -> str:
    """A node's pub/sub channel."""
    return f"{PREFIX}inbox:{node}"


LEASE_MS = 3_000
"""A lease not renewed for this long expires: the game's takeover can begin. A heartbeat too."""
RENEW_MS = 1_000
"""How often a node renews its leases and its heartbeat, and checks the nodes it talks to."""
SCAN_MS = 500
"""How often a node looks for live games nobody owns."""
NODE_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")


def node_name() -> str:
    """A random name for a node that was given none."""
    return f"node-{secrets.token_hex(4)}"


class Host(Protocol):
    """What the cluster needs of the asyncio server: its clients' sockets."""

    def deliver(self, conns: Sequence[int], frame: bytes) -> None:
        """Send `frame` to each of this node's connections `conns` (after what is queued)."""

    def close(self, conn: int, code: int, reason: str) -> None:
        """Close one of this node's client connections, after what is queued for it."""

    def flush(self) -> None:
        """Take the core's outputs (after the cluster fed it)."""


class Cluster:
    """This node's part of the cluster: it is the core's `Peers`."""

    def __init__(self, url: str, node: str, keep_finished: int) -> None:
        if not NODE_NAME.fullmatch(node):
            raise ValueError(f"a node's name is 1 to 64 letters, digits, '.', '_', '-': {node!r}")
        self.url = url
        self.node = node
        self.sync = redis.Redis.from_url(url)
        """For what the core waits for (commits, lookups), like a database."""
        self.aio = redis.asyncio.Redis.from_url(url)
        """For the background work: heartbeats, leases, scans, the inbox."""
        self.store = RedisStore(self.sync, node, LEASE_MS, keep_finished)
        self._renew = self.aio.register_script(RENEW)
        self._release = self.aio.register_script(RELEASE)
        self._claim = self.aio.register_script(CLAIM)
        self._core: Core | None = None
        self._host: Host | None = None
        self.proxies: dict[tuple[str, int], int] = {}
        """The proxy connection in this core for each (node, connection) of another node."""
        self.proxied: dict[int, tuple[str, int]] = {}
        """The other way round."""
        self.away: dict[int, set[str]] = {}
        """The nodes where each of this node's connections has a proxy."""
        self.held: set[str] = set()
        """The games whose leases this node renews."""
        self._out: list[tuple[str, bytes]] = []
        """Messages to publish (channel, body), in order, at the next commit."""
        self._tasks: list[asyncio.Task[None]] = []
        self._running = False
        """Ends the background loops: a flag each checks at least every second, since redis-py
        may swallow a cancellation that comes in the middle of a command (then a stopping node
        would wait for its loops for ever)."""
        self._pubsub: redis.asyncio.client.PubSub | None = None
        self.takeovers = 0
        """Games this node took over from a stopped one."""

    @property
    def core(self) -> Core:
        assert self._core is not None, "attach the core first"
        return self._core

    @property
    def host(self) -> Host:
        assert self._host is not None, "attach the server first"
        return self._host

    def attach(self, core: Core, host: Host) -> None:
        self._core, self._host = core, host

    @property
    def pending(self) -> bool:
        """Messages wait to be published."""
        return bool(self._out)

    # -- starting and stopping ----------------------------------------------------------------

    async def start(self) -> None:
        """Say this node runs, listen to its inbox and the lobby, and start the background
        work; Redis unreachable raises redis.RedisError."""
        await self.aio.set(node_key(self.node), "1", px=LEASE_MS)
        self._pubsub = self.aio.pubsub()
        await self._pubsub.subscribe(inbox(self.node), LOBBY_CHANNEL)
        self._running = True
        self._tasks = [
            asyncio.create_task(self._listen(self._pubsub)),
            asyncio.create_task(self._every(RENEW_MS, self._renew_all)),
            asyncio.create_task(self._every(SCAN_MS, self._scan)),
        ]
        log.info("node %s joined the cluster at %s", self.node, self.url)

    async def stop(self) -> None:
        """Leave: tell other nodes' clients to come back elsewhere, give up every lease (the
        games are saved: other nodes take them over at once), stop the heartbeat."""
        self._running = False
        for task in self._tasks:
            task.cancel()
        await asyncio.wait(self._tasks, timeout=2 * RENEW_MS / 1000)
        for origin, conn in list(self.proxies):
            self._publish(inbox(origin), ["close", conn, SERVICE_RESTART, "service restart"])
        with contextlib.suppress(redis.RedisError):
            self.send_out()
            await self._give_up(self.held)
            await self.aio.delete(node_key(self.node))
        if self._pubsub is not None:
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]
        await self.aio.aclose()
        self.store.close()
        log.info("node %s left the cluster", self.node)

    # -- Peers: what the core asks -------------------------------------------------------------

    def owner(self, game_id: str) -> str | None:
        try:
            kind, node = self.store.locate(game_id)
        except StoreError as exc:
            log.error("%s", exc)
            raise OwnerDown(game_id) from None
        if kind == "claimed":
            self.held.add(game_id)
            self.takeovers += 1
        if kind == "down":
            raise OwnerDown(game_id)
        return node if kind == "at" else None

    def games(self) -> list[GameSummary]:
        try:
            return self.store.lobby()
        except redis.RedisError as exc:
            log.error("cannot read the cluster's lobby: %s", exc)
            return []

    # -- the core's outputs, after the commit that made them durable ---------------------------

    def committed(self) -> None:
        """After a commit: drop the games another node owns now (their writes were refused)."""
        lost, self.store.lost = self.store.lost, set()
        self.lose(lost)

    def relay(self, to: Sequence[int], frame: bytes) -> list[int]:
        """Send `frame` on to the proxies among `to`, one message per origin node; returns the
        connections of this node's own clients."""
        if not self.proxied:
            return list(to)
        local: list[int] = []
        remote: dict[str, list[int]] = defaultdict(list)
        for conn in to:
            origin = self.proxied.get(conn)
            if origin is None:
                local.append(conn)
            else:
                remote[origin[0]].append(origin[1])
        for node, conns in remote.items():
            self._publish(inbox(node), ["send", frame, conns])
        return local

    def close(self, conn: int, code: int, reason: str) -> bool:
        """Close a proxy (its client, on its own node, is closed with the same code); False
        if `conn` is no proxy."""
        origin = self.proxied.pop(conn, None)
        if origin is None:
            return False
        del self.proxies[origin]
        self._publish(inbox(origin[0]), ["close", origin[1], code, reason])
        self.core.disconnect(conn)
        return True

    def forward(self, forward: Forward) -> None:
        """A client's frame for another node's game: open its proxy there first."""
        conn = self.core.conns.get(forward.conn)
        if conn is None:
            return
        nodes = self.away.setdefault(conn.id, set())
        channel = inbox(forward.node)
        if forward.node not in nodes:
            nodes.add(forward.node)
            self._publish(channel, ["open", self.node, conn.id, conn.ip, conn.name, conn.role])
        self._publish(channel, ["frame", self.node, conn.id, forward.data])

    def listed(self, game: GameSummary) -> None:
        self._publish(LOBBY_CHANNEL, [self.node, encode(Lobby(game=game))])

    def disconnected(self, conn: int) -> None:
        """One of this node's clients left: so do its proxies."""
        for node in self.away.pop(conn, ()):
            self._publish(inbox(node), ["gone", self.node, conn])

    def send_out(self) -> None:
        """Publish what waits, in order, in one round trip."""
        if not self._out:
            return
        out, self._out = self._out, []
        pipe = self.sync.pipeline(transaction=False)
        for channel, body in out:
            pipe.publish(channel, body)
        try:
            pipe.execute()
        except redis.RedisError as exc:
            log.error("cannot reach the other nodes (%d messages lost): %s", len(out), exc)

    def _publish(self, channel: str, message: list[Any]) -> None:
        self._out.append((channel, msgpack.packb(message, use_bin_type=True)))

    # -- losing and taking over games ----------------------------------------------------------

    def lose(self, game_ids: Iterable[str]) -> None:
        """Another node owns these games now: forget them, and close whoever followed them
        here, so that they come back to the new owner."""
        for game_id in game_ids:
            self.held.discard(game_id)
            self.store.tenures.pop(game_id, None)
            for conn in sorted(self.core.drop(game_id)):
                if not self.close(conn, SERVICE_RESTART, "service restart"):
                    self.host.close(conn, SERVICE_RESTART, "service restart")
        self.host.flush()

    async def _renew_all(self) -> None:
        """Keep this node's heartbeat and leases alive, give up those of games it forgot, and
        close what went through nodes that stopped."""
        await self.aio.set(node_key(self.node), "1", px=LEASE_MS)
        tenures = self.store.tenures
        games = [game_id for game_id in self.core.rooms if game_id in tenures]
        released = self.held - set(games)
        self.held = set(games)
        await self._give_up(released)
        if games:
            keys = [key for g in games for key in (lease_key(g), game_key(g))]
            args: list[str | int] = [LEASE_MS, *(tenures[g] for g in games)]
            lost = await self._renew(keys=keys, args=args)
            self.lose(games[i - 1] for i in lost)
        await self._check_nodes()

    async def _give_up(self, game_ids: Iterable[str]) -> None:
        """Release the leases of games this node no longer keeps in memory."""
        tenures = [(g, self.store.tenures.pop(g, None)) for g in game_ids]
        held = [(g, tenure) for g, tenure in tenures if tenure is not None]
        if held:
            keys = [lease_key(g) for g, _ in held]
            await self._release(keys=keys, args=[tenure for _, tenure in held])

    async def _check_nodes(self) -> None:
        """Close the clients whose games' node stopped (they come back and resume), and the
        proxies of clients whose node stopped (their seats wait for them to come back)."""
        nodes = {node for nodes in self.away.values() for node in nodes}
        nodes |= {origin for origin, _ in self.proxies}
        if not nodes:
            return
        ordered = sorted(nodes)
        alive = await self.aio.mget([node_key(node) for node in ordered])
        down = {node for node, beat in zip(ordered, alive, strict=True) if beat is None}
        if not down:
            return
        log.warning("node(s) %s stopped", ", ".join(sorted(down)))
        for conn, nodes in list(self.away.items()):
            if nodes & down:
                self.host.close(conn, SERVICE_RESTART, "service restart")
        for origin, conn in list(self.proxies):
            if origin in down:
                pid = self.proxies.pop((origin, conn))
                del self.proxied[pid]
                self.core.disconnect(pid)
        self.host.flush()

    async def _scan(self) -> None:
        """Take over the live games whose lease expired (their node stopped)."""
        live = texts(await self.aio.smembers(LIVE))
        candidates = [game_id for game_id in live if game_id not in self.core.rooms]
        if not candidates:
            return
        leases = await self.aio.mget([lease_key(game_id) for game_id in candidates])
        orphans = [g for g, lease in zip(candidates, leases, strict=True) if lease is None]
        if not orphans:
            return
        random.shuffle(orphans)  # nodes scanning together take different games first
        # A fair share each: the live nodes spread a dead node's games between them, and what
        # one leaves is taken at the next scan, by it or another.
        nodes = [key async for key in self.aio.scan_iter(match=node_key("*"), count=100)]
        share = -(-len(orphans) // max(len(nodes), 1))
        for game_id in orphans[:share]:
            tenure = new_tenure(self.node)
            keys = [lease_key(game_id), game_key(game_id)]
            if not await self._claim(keys=keys, args=[tenure, LEASE_MS]):
                continue
            if game_id in self.core.rooms:  # a client's command claimed it meanwhile
                continue
            self.store.tenures[game_id] = tenure
            self.held.add(game_id)
            try:
                adopted = self.core.adopt(game_id)
            except StoreError as exc:
                log.error("%s", exc)
                adopted = False
            if adopted:
                self.takeovers += 1
            else:
                self.held.discard(game_id)
                await self._give_up([game_id])
            self.host.flush()

    async def _every(self, period_ms: int, work: Callable[[], Awaitable[None]]) -> None:
        """Run `work` every `period_ms`, whatever goes wrong in one round (Redis restarting)."""
        while self._running:
            try:
                await work()
            except (redis.RedisError, StoreError) as exc:
                log.error("cluster: %s", exc)
            except Exception:
                log.exception("cluster: background work failed")
            await asyncio.sleep(period_ms / 1000)

    # -- the inbox -----------------------------------------------------------------------------

    async def _listen(self, pubsub: redis.asyncio.client.PubSub) -> None:
        """Handle what other nodes send this one, in order."""
        while self._running:
            try:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            except redis.RedisError as exc:
                log.error("cluster inbox: %s", exc)
                await asyncio.sleep(RENEW_MS / 1000)
                continue
            if message is None:
                continue
            try:
                self._receive(message["channel"], msgpack.unpackb(message["data"]))
            except Exception:
                log.exception("cluster: bad inbox message")
            self.host.flush()

    def _receive(self, channel: bytes, body: list[Any]) -> None:
        core = self.core
        if channel == LOBBY_CHANNEL.encode():
            node, line = body
            if node != self.node:
                summary = decode_server_message(line)
                assert isinstance(summary, Lobby)
                core.listed(summary.game)
            return
        kind = body[0]
        if kind == "send":
            self.host.deliver(body[2], body[1])
        elif kind == "close":
            _, conn, code, reason = body
            self.host.close(conn, code, reason)
        elif kind == "open":
            _, origin, conn, ip, name, role = body
            hello = Hello(id=0, proto=PROTOCOL_VERSION, name=name, role=role)
            proxy = core.connect(ip, hello)
            self.proxies[(origin, conn)] = proxy
            self.proxied[proxy] = (origin, conn)
        elif kind == "frame":
            _, origin, conn, data = body
            found = self.proxies.get((origin, conn))
            if found is not None:
                core.receive(found, data)
        elif kind == "gone":
            _, origin, conn = body
            gone = self.proxies.pop((origin, conn), None)
            if gone is not None:
                del self.proxied[gone]
                core.disconnect(gone)
