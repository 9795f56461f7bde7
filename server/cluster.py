"""A server node in a cluster over Redis (docs/cluster.md): ownership, routing, the lobby.

Every live game is owned by one node, through a lease in Redis that the owner renews every
`RENEW_MS` and that expires `LEASE_MS` after its last renewal. Every write of a game is fenced
by its lease (server/stores/redis.py), so a node that lost a lease cannot change the game any
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

Pub/sub forgets what it could not deliver, so a node treats as lost every message that reached
no subscriber (or that Redis refused) and repairs what depended on it: a client whose command
was lost is closed with 1012 (it comes back and resumes), a proxy whose frames were lost is
dropped. A node whose inbox was cut (Redis restarted) listens anew and then resets: it closes
its clients that have proxies on other nodes and its lobby subscribers with 1012, drops the
proxies it holds, and says so on a third channel, where the others do the same for their side.
For `TRUST_MS` after that, a missing heartbeat or an expired lease proves nothing (Redis may
have come back without them): the node declares no node stopped and claims no game.

The inbox messages are msgpack lists: ["open", origin, conn, ip, name, role, account],
["frame", origin, conn, data], ["gone", origin, conn] from a client's node to a game's owner, and
["send", frame, conns], ["close", conn, code, reason] back (also the owner's answer to a frame
for a proxy it does not know). The reset channel carries [node]. An "open"'s account is "human"
or "bot" when the client proved its name's key to its own node (nodes trust each other's word,
as they trust each other's frames), else None.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
import secrets
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Protocol

import msgpack
import redis
import redis.asyncio
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from ubao.protocol import PROTOCOL_VERSION, GameSummary, Hello, Lobby, decode_server_message, encode
from ubao.server.core import Core
from ubao.server.outputs import SERVICE_RESTART, Forward
from ubao.server.routing import OwnerDown
from ubao.server.stores.protocol import StoreError
from ubao.server.stores.redis import (
    CLAIM,
    LIVE,
    PREFIX,
    RELEASE,
    RENEW,
    TOURNAMENT_GAMES,
    TOURNAMENTS_LIVE,
    RedisStore,
    game_key,
    lease_key,
    new_tenure,
    node_key,
    texts,
    tournament_key,
)

log = logging.getLogger("ubao.server.cluster")

LOBBY_CHANNEL = PREFIX + "lobby-changes"
RESET_CHANNEL = PREFIX + "resets"


def inbox(node: str) -> str:
    """A node's pub/sub channel."""
    return f"{PREFIX}inbox:{node}"


LEASE_MS = 3_000
"""A lease not renewed for this long expires: the game's takeover can begin. A heartbeat too."""
RENEW_MS = 1_000
"""How often a node renews its leases and its heartbeat, and checks the nodes it talks to."""
SCAN_MS = 500
"""How often a node looks for live games nobody owns."""
TRUST_MS = LEASE_MS
"""After its inbox comes back, how long a node waits before it takes a missing heartbeat or an
expired lease for a stopped node: long enough for every running node to renew both."""
RELISTEN_MS = 100
"""How often a node whose inbox was cut tries to listen again."""
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
            raise ValueError(
                f"--node-id: a node's name is 1 to 64 letters, digits, '.', '_', '-': {node!r}"
            )
        self.url = url
        self.node = node
        try:
            self.sync = redis.Redis.from_url(url)
        except ValueError as exc:  # not a redis:// URL, or a malformed one
            raise ValueError(f"--redis: {exc}") from None
        """For what the core waits for (commits, lookups), like a database."""
        self.aio = redis.asyncio.Redis.from_url(url)
        """For the background work: heartbeats, leases, scans."""
        self._listener = redis.asyncio.Redis.from_url(url, retry=Retry(NoBackoff(), 0))
        """For the inbox, without retries: a cut must surface (redis-py would otherwise
        subscribe again behind the node's back, and what was published meanwhile is lost)."""
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
        self._out: list[tuple[str, list[Any]]] = []
        """Messages to publish (channel, message), in order, at the next commit."""
        self._tasks: list[asyncio.Task[None]] = []
        self._running = False
        """Ends the background loops: a flag each checks at least every second, since redis-py
        may swallow a cancellation that comes in the middle of a command (then a stopping node
        would wait for its loops for ever)."""
        self._pubsub: redis.asyncio.client.PubSub | None = None
        """The inbox's subscription; None while it is cut."""
        self._relisten = False
        """A publish failed: listen anew, and reset (`_reset`)."""
        self._trusted_at = 0.0
        """From this time on (time.monotonic) heartbeats and leases tell which nodes run."""
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
        self._pubsub = await self._subscribe()
        self._running = True
        self._tasks = [
            asyncio.create_task(self._listen()),
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
        await self._unsubscribe()
        await self._listener.aclose()
        await self.aio.aclose()
        self.store.close()
        log.info("node %s left the cluster", self.node)

    # -- Peers: what the core asks -------------------------------------------------------------

    def owner(self, game_id: str) -> str | None:
        try:
            # A live tournament's game is claimed only by its tournament's owner, which takes
            # its games over with it: a client comes back once it has (OwnerDown).
            tid = self.store.tournament_owning(game_id)
            claim = self._trusting() and (tid is None or tid in self.core.tournaments.held)
            kind, node = self.store.locate(game_id, claim=claim)
        except StoreError as exc:
            log.error("%s", exc)
            raise OwnerDown(game_id) from None
        if kind == "claimed":
            self.held.add(game_id)
            self.takeovers += 1
        if kind == "down":
            raise OwnerDown(game_id)
        return node if kind == "at" else None

    def tournament_owner(self, tid: str) -> str | None:
        try:
            kind, node = self.store.locate(tid, claim=self._trusting(), tournament=True)
        except StoreError as exc:
            log.error("%s", exc)
            raise OwnerDown(tid) from None
        if kind == "claimed":
            self.held.add(tid)
            self.takeovers += 1
        if kind == "down":
            raise OwnerDown(tid)
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
            account = None if conn.account is None else "bot" if conn.bot_account else "human"
            opened = ["open", self.node, conn.id, conn.ip, conn.name, conn.role, account]
            self._publish(channel, opened)
        self._publish(channel, ["frame", self.node, conn.id, forward.data])

    def listed(self, game: GameSummary) -> None:
        self._publish(LOBBY_CHANNEL, [self.node, encode(Lobby(game=game))])

    def disconnected(self, conn: int) -> None:
        """One of this node's clients left: so do its proxies."""
        for node in self.away.pop(conn, ()):
            self._publish(inbox(node), ["gone", self.node, conn])

    def send_out(self) -> None:
        """Publish what waits, in order, in one round trip, and repair what depended on the
        messages that reached nobody."""
        if not self._out:
            return
        out, self._out = self._out, []
        pipe = self.sync.pipeline(transaction=False)
        for channel, message in out:
            pipe.publish(channel, msgpack.packb(message, use_bin_type=True))
        try:
            heard: list[int] = pipe.execute()
        except redis.RedisError as exc:
            log.error("cannot reach the other nodes (%d messages lost): %s", len(out), exc)
            heard = [0] * len(out)
            self._relisten = True  # what others sent this node may be lost too
        for (channel, message), listeners in zip(out, heard, strict=True):
            if listeners == 0:
                self._lost(channel, message)

    def _lost(self, channel: str, message: list[Any]) -> None:
        """A message reached no node: close the client whose command it carried (it comes
        back and resumes), drop the proxies whose frames it carried. Nothing else: a node not
        listening resets once it listens again, and a stopped one took its side with it."""
        kind = message[0]
        if channel in (LOBBY_CHANNEL, RESET_CHANNEL) or kind in ("gone", "close"):
            return
        if kind in ("open", "frame"):
            self.host.close(message[2], SERVICE_RESTART, "service restart")
        elif kind == "send":
            origin = channel.removeprefix(inbox(""))
            for conn in message[2]:
                self._drop_proxy(origin, conn)

    def _publish(self, channel: str, message: list[Any]) -> None:
        self._out.append((channel, message))

    def _drop_proxy(self, origin: str, conn: int) -> None:
        """Forget the proxy of node `origin`'s connection `conn`, if there is one: its client
        left, as far as this node knows (its seats wait the grace period)."""
        proxy = self.proxies.pop((origin, conn), None)
        if proxy is not None:
            del self.proxied[proxy]
            self.core.disconnect(proxy)

    # -- losing and taking over games ----------------------------------------------------------

    def lose(self, game_ids: Iterable[str]) -> None:
        """Another node owns these games now: forget them, and close whoever followed them
        here, so that they come back to the new owner."""
        for game_id in game_ids:
            self.held.discard(game_id)
            self.store.tenures.pop(game_id, None)
            core = self.core
            followers = (
                core.drop_tournament(game_id)
                if game_id in core.tournaments.held
                else core.drop(game_id)
            )
            for conn in sorted(followers):
                if not self.close(conn, SERVICE_RESTART, "service restart"):
                    self.host.close(conn, SERVICE_RESTART, "service restart")
        self.host.flush()

    async def _renew_all(self) -> None:
        """Keep this node's heartbeat and leases alive, give up those of games it forgot, and
        close what went through nodes that stopped."""
        await self.aio.set(node_key(self.node), "1", px=LEASE_MS)
        tenures = self.store.tenures
        games = [game_id for game_id in self.core.rooms if game_id in tenures]
        tournaments = [tid for tid in self.core.tournaments.live() if tid in tenures]
        released = self.held - set(games) - set(tournaments)
        self.held = set(games) | set(tournaments)
        await self._give_up(released)
        keys = [key for g in games for key in (lease_key(g), game_key(g))]
        keys += [key for t in tournaments for key in (lease_key(t), tournament_key(t))]
        games += tournaments
        if games:
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
        if not nodes or not self._trusting():
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
                self._drop_proxy(origin, conn)
        self.host.flush()

    async def _scan(self) -> None:
        """Take over the live tournaments and games whose lease expired (their node stopped):
        a tournament's games go to the node that took the tournament."""
        if not self._trusting():
            return
        live_tournaments = texts(await self.aio.smembers(TOURNAMENTS_LIVE))
        held = self.core.tournaments.held
        orphans = await self._orphans([t for t in live_tournaments if t not in held])
        for orphan in await self._share(orphans):
            await self._take(orphan, tournament_key(orphan), self.core.adopt_tournament)
        live = texts(await self.aio.smembers(LIVE))
        orphans = await self._orphans([g for g in live if g not in self.core.rooms])
        if not orphans:
            return
        mine, anyones = [], []
        tids = await self.aio.hmget(TOURNAMENT_GAMES, orphans)
        for game_id, found in zip(orphans, tids, strict=True):
            of = None if found is None else texts([found])[0]
            if of is None or of not in live_tournaments:
                anyones.append(game_id)
            elif of in held:
                mine.append(game_id)
        for game_id in mine + await self._share(anyones):
            await self._take(game_id, game_key(game_id), self.core.adopt)

    async def _orphans(self, candidates: list[str]) -> list[str]:
        """Those of `candidates` whose lease expired."""
        if not candidates:
            return []
        leases = await self.aio.mget([lease_key(one) for one in candidates])
        return [one for one, lease in zip(candidates, leases, strict=True) if lease is None]

    async def _share(self, orphans: list[str]) -> list[str]:
        """This node's fair share of `orphans`: the live nodes spread a dead node's games
        between them, and what one leaves is taken at the next scan, by it or another."""
        if not orphans:
            return []
        random.shuffle(orphans)  # nodes scanning together take different ones first
        nodes = [key async for key in self.aio.scan_iter(match=node_key("*"), count=100)]
        return orphans[: -(-len(orphans) // max(len(nodes), 1))]

    async def _take(self, one: str, record: str, adopt: Callable[[str], bool]) -> None:
        """Claim an orphan's lease and take it up (a game or a tournament)."""
        tenure = new_tenure(self.node)
        if not await self._claim(keys=[lease_key(one), record], args=[tenure, LEASE_MS]):
            return
        if one in self.core.rooms or one in self.core.tournaments.held:
            return  # a client's command claimed it meanwhile
        self.store.tenures[one] = tenure
        self.held.add(one)
        try:
            adopted = adopt(one)
        except StoreError as exc:
            log.error("%s", exc)
            adopted = False
        if adopted:
            self.takeovers += 1
        else:
            self.held.discard(one)
            await self._give_up([one])
        self.host.flush()

    async def _every(self, period_ms: int, work: Callable[[], Awaitable[None]]) -> None:
        """Run `work` every `period_ms`, whatever goes wrong in one round (Redis restarting)."""
        while self._running:
            try:
                await work()
            except (redis.ConnectionError, redis.TimeoutError) as exc:
                # Redis restarting, or a pooled connection it closed: the next round retries.
                log.warning("cluster: %s (retrying in %d ms)", exc, period_ms)
            except (redis.RedisError, StoreError) as exc:
                log.error("cluster: %s", exc)
            except Exception:
                log.exception("cluster: background work failed")
            await asyncio.sleep(period_ms / 1000)

    # -- the inbox -----------------------------------------------------------------------------

    def _trusting(self) -> bool:
        """Whether a missing heartbeat or an expired lease means a stopped node (not Redis
        that came back without them, or an inbox that is cut)."""
        return time.monotonic() >= self._trusted_at

    async def _subscribe(self) -> redis.asyncio.client.PubSub:
        """Listen to this node's inbox, the lobby and the resets; returns once Redis confirmed
        it (from then on, whatever is published there reaches this node)."""
        channels = (inbox(self.node), LOBBY_CHANNEL, RESET_CHANNEL)
        pubsub = self._listener.pubsub()
        try:
            await pubsub.subscribe(*channels)
            confirmed = 0
            for _ in range(5 * len(channels)):  # one per channel, at once unless Redis is stuck
                if confirmed == len(channels):
                    break
                message = await pubsub.get_message(timeout=1.0)
                confirmed += message is not None and message["type"] == "subscribe"
            if confirmed < len(channels):
                raise redis.ConnectionError("Redis did not confirm the subscription")
        except BaseException:
            await pubsub.aclose()  # type: ignore[no-untyped-call]
            raise
        return pubsub

    async def _unsubscribe(self) -> None:
        """Stop listening (the inbox was cut, or the node stops)."""
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            with contextlib.suppress(redis.RedisError, OSError):
                await pubsub.aclose()  # type: ignore[no-untyped-call]

    async def _listen(self) -> None:
        """Handle what other nodes send this one, in order; when the inbox is cut, listen anew
        and reset, as messages may have been lost both ways."""
        while self._running:
            pubsub = self._pubsub
            if pubsub is None:
                try:
                    self._pubsub = await self._subscribe()
                except (redis.RedisError, OSError):
                    await asyncio.sleep(RELISTEN_MS / 1000)
                    continue
                self._trusted_at = time.monotonic() + TRUST_MS / 1000
                self._reset()
                continue
            try:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            except (redis.RedisError, OSError) as exc:
                log.error("cluster inbox cut: %s", exc)
                message, self._relisten = None, True
            if self._relisten:
                self._relisten = False
                self._trusted_at = float("inf")
                await self._unsubscribe()
                continue
            if message is None:
                continue
            try:
                self._receive(message["channel"], msgpack.unpackb(message["data"]))
            except Exception:
                log.exception("cluster: bad inbox message")
            self.host.flush()

    def _reset(self) -> None:
        """This node's inbox was cut: what others sent it may be lost, and what it sent them.
        Close its clients that have proxies elsewhere, and its lobby subscribers (they come
        back, resume and list again), drop the proxies it holds (their seats wait for their
        clients as for any dropped connection), and tell the others to do the same."""
        log.warning("node %s listens again: closing what went through other nodes", self.node)
        for conn in sorted(self.away.keys() | self.core.lobby):
            self.host.close(conn, SERVICE_RESTART, "service restart")
        for origin, conn in list(self.proxies):
            self._drop_proxy(origin, conn)
        self._publish(RESET_CHANNEL, [self.node])
        self.host.flush()

    def _reset_by(self, node: str) -> None:
        """Node `node` reset: close this node's clients that had proxies there (those are
        gone) and drop the proxies of its clients (it closed them)."""
        log.warning("node %s reset: closing what went through it", node)
        for conn, nodes in list(self.away.items()):
            if node in nodes:
                self.host.close(conn, SERVICE_RESTART, "service restart")
        for origin, conn in list(self.proxies):
            if origin == node:
                self._drop_proxy(origin, conn)

    def _receive(self, channel: bytes, body: list[Any]) -> None:
        core = self.core
        if channel == RESET_CHANNEL.encode():
            if body[0] != self.node:
                self._reset_by(body[0])
            return
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
            _, origin, conn, ip, name, role, *account = body  # no account from an older node
            hello = Hello(id=0, proto=PROTOCOL_VERSION, name=name, role=role)
            proxy = core.connect(ip, hello, account[0] if account else None)
            self.proxies[(origin, conn)] = proxy
            self.proxied[proxy] = (origin, conn)
        elif kind == "frame":
            _, origin, conn, data = body
            found = self.proxies.get((origin, conn))
            if found is not None:
                core.receive(found, data)
            else:  # its "open" was lost, or this node reset: the client comes back
                self._publish(inbox(origin), ["close", conn, SERVICE_RESTART, "service restart"])
        elif kind == "gone":
            _, origin, conn = body
            self._drop_proxy(origin, conn)
