"""Games in Redis, for a cluster of server nodes (docs/cluster.md): a `GameStore` whose every
write is fenced by the game's lease, and the leases themselves.

Each game is a hash (its state as of its last change, and its lobby line), a list of its moves
and a list of its events (the frames as sent, without legal moves). `snapshot` only prepares
a change and `save` queues it; `flush` (the server's event loop calls it once per turn) commits
every change since the last commit in one pipeline, one Lua script per
change, each atomic: it applies the change only if this node holds the game's lease (or nobody
does and the game is this node's, or new) and the game's log is not longer than this node's
version of it, and renews the lease. A change whose lease another
node holds is not applied: its game is `lost`, and the node drops it. With Redis's append-only
file and `appendfsync always`, Redis answers a pipeline only once it is on disk, so nobody hears
of a change before it is durable, exactly as with SQLite's group commit.

Scripts are idempotent per event (an event is appended only if the log is still shorter than
its version), so a pipeline that failed half way is simply sent again.

A node's hold on a game is a tenure: from its creation or claim to its loss, with a value of
its own (node/random) kept in the lease and in the game's hash. Writes check both, so a node
that stalled past its lease can never write the game again, even once its lease is free.

Keys (all under `ubao:`): `game:ID` (hash), `moves:ID`, `events:ID` (lists), `lease:ID` (the
owner node's id, with a time to live), `node:NODE` (a node's heartbeat, with a time to live),
`live` (the ids of games not over), `lobby` (listed games by creation time), `done` (finished
games in the order they finished) and `done:seq`.

Tournaments (server/tournaments.py) are kept and owned as games are: `tournament:TID` (a hash:
`tenure`, `body`, `status`) under a lease `lease:TID` with tenures of its own, written by a
fenced script; `tournaments` (every id, oldest first), `tournaments:live` (those not finished)
and `tournament-games` (each tournament game's tournament, written with the pairing that names
it). A commit that carries a tournament's record runs as one MULTI transaction: the games a
step makes and the record that names them are kept together or not at all. Wrong keys are
counted in `wrong:KIND:SUBJECT` (sorted sets of wall-clock times), by every node alike.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import msgpack
import redis

from ubao.protocol import (
    AnalysisEvent,
    ClockSpec,
    DrawOffer,
    Event,
    GameAnalysis,
    GameSummary,
    Lobby,
    Moved,
    Over,
    SeatEvent,
    SeatSpec,
    TakebackRequest,
    decode_server_message,
    encode,
    to_wire,
)
from ubao.server.accounts import StoredAccount
from ubao.server.glicko2 import Rating
from ubao.server.ratings import RatedGame, Standing
from ubao.server.room import Room
from ubao.server.stores.protocol import StoredGame, StoreError, stored_analysis

log = logging.getLogger("ubao.server")

RedisChange = tuple[str, list[str], list[Any]]
"""What one save of a game sends: (game id, the commit script's keys, its args)."""


class TournamentChange(NamedTuple):
    """What one save of a tournament's record sends (its fenced script's keys and args)."""

    tid: str
    keys: list[str]
    args: list[Any]


class AnalysisChange(NamedTuple):
    """A game's analysis: set once (`SETNX`), no tenure fences it."""

    game_id: str
    key: str
    body: bytes


AnyRedisChange = RedisChange | TournamentChange | AnalysisChange

PREFIX = "ubao:"
LIVE = PREFIX + "live"
LOBBY = PREFIX + "lobby"
DONE = PREFIX + "done"
DONE_SEQ = PREFIX + "done:seq"
RATED = PREFIX + "rated"
"""Every rated game's record, by game id: its ratings were changed, once."""
RATED_LOG = PREFIX + "rated:log"
"""The rated games' ids in the order their ratings were changed."""
TOURNAMENTS = PREFIX + "tournaments"
"""Every tournament's id, oldest first."""
TOURNAMENTS_LIVE = PREFIX + "tournaments:live"
"""The tournaments not finished: each owned by a node, through a lease as a game is."""
TOURNAMENT_GAMES = PREFIX + "tournament-games"
"""Each tournament game's tournament (game id to tournament id)."""
OVER = ("finished", "cancelled")
"""A tournament's statuses after which nothing changes it."""


def tournament_key(tid: str) -> str:
    return f"{PREFIX}tournament:{tid}"


def wrong_key(kind: str, subject: str) -> str:
    """The times of a subject's recent wrong keys (kind: `name` or `address`)."""
    return f"{PREFIX}wrong:{kind}:{subject}"


def ratings_key(pool: str) -> str:
    """A pool's standings, by account."""
    return f"{PREFIX}ratings:{pool}"


def board_key(pool: str) -> str:
    """A pool's accounts by rating (a sorted set)."""
    return f"{PREFIX}board:{pool}"


def pools_key(player: str) -> str:
    return f"{PREFIX}pools:{player}"


def recent_key(player: str) -> str:
    """An account's rated games, the latest first."""
    return f"{PREFIX}recent:{player}"


def _packed_standing(standing: Standing) -> bytes:
    rating = standing.rating
    row = [rating.rating, rating.rd, rating.volatility]
    packed: bytes = msgpack.packb(
        [*row, standing.games, standing.wins, standing.draws, standing.losses]
    )
    return packed


def _standing(packed: Any) -> Standing:
    rating, rd, volatility, games, wins, draws, losses = msgpack.unpackb(packed)
    return Standing(Rating(rating, rd, volatility), games, wins, draws, losses)


def _packed_game(game: RatedGame) -> bytes:
    before, after = ([_packed_standing(s) for s in pair] for pair in (game.before, game.after))
    record = [game.pool, game.finished, *game.players, game.score, before, after]
    packed: bytes = msgpack.packb(record, use_bin_type=True)
    return packed


def _rated_game(game_id: str, packed: Any) -> RatedGame:
    pool, finished, first, second, score, before, after = msgpack.unpackb(packed)
    return RatedGame(
        game_id,
        pool,
        finished,
        (first, second),
        score,
        (_standing(before[0]), _standing(before[1])),
        (_standing(after[0]), _standing(after[1])),
    )


def game_key(game_id: str) -> str:
    return f"{PREFIX}game:{game_id}"


def moves_key(game_id: str) -> str:
    return f"{PREFIX}moves:{game_id}"


def events_key(game_id: str) -> str:
    return f"{PREFIX}events:{game_id}"


def analysis_key(game_id: str) -> str:
    """A finished game's analysis: the `analysis` event that carried it, set once."""
    return f"{PREFIX}analysis:{game_id}"


def lease_key(game_id: str) -> str:
    return f"{PREFIX}lease:{game_id}"


def node_key(node: str) -> str:
    return f"{PREFIX}node:{node}"


def account_key(canonical: str) -> str:
    """The hash of one account (name, key_hash, bot, created), by its canonical name."""
    return f"{PREFIX}account:{canonical}"


_CREATE_ACCOUNT = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'name', ARGV[1], 'key_hash', ARGV[2],
           'bot', ARGV[3], 'created', ARGV[4])
return 1
"""
"""A new account, unless its canonical name is taken: one step, whichever node claims first."""


_COMMIT = """
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return 0 end
local tenure = redis.call('HGET', KEYS[2], 'tenure')
if tenure ~= ARGV[1] and (tenure or redis.call('EXISTS', KEYS[2]) == 1) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('HSET', KEYS[2], 'tenure', ARGV[1], 'head', ARGV[3], 'summary', ARGV[4])
local n = tonumber(ARGV[9])
for i = 0, n - 1 do
  local at = 10 + 4 * i
  if redis.call('LLEN', KEYS[4]) < tonumber(ARGV[at]) then
    local keep = tonumber(ARGV[at + 1])
    if keep == 0 then
      redis.call('DEL', KEYS[3])
    elseif keep > 0 then
      redis.call('LTRIM', KEYS[3], 0, keep - 1)
    end
    if ARGV[at + 2] ~= '' then redis.call('RPUSH', KEYS[3], ARGV[at + 2]) end
    redis.call('RPUSH', KEYS[4], ARGV[at + 3])
  end
end
local id = ARGV[6]
local rated = 10 + 4 * n
if ARGV[rated] ~= '' and redis.call('HSETNX', KEYS[9], id, ARGV[rated]) == 1 then
  redis.call('RPUSH', KEYS[10], id)
  for i = 0, 1 do
    local player = ARGV[rated + 1 + 3 * i]
    redis.call('HSET', KEYS[11], player, ARGV[rated + 2 + 3 * i])
    redis.call('ZADD', KEYS[12], ARGV[rated + 3 + 3 * i], player)
    redis.call('SADD', KEYS[13 + i], ARGV[rated + 7])
    redis.call('LPUSH', KEYS[15 + i], id)
  end
end
redis.call('ZADD', KEYS[6], 'NX', ARGV[7], id)
if ARGV[5] ~= 'over' then
  redis.call('SADD', KEYS[5], id)
elseif not redis.call('ZSCORE', KEYS[7], id) then
  redis.call('SREM', KEYS[5], id)
  redis.call('ZADD', KEYS[7], redis.call('INCR', KEYS[8]), id)
  local keep = tonumber(ARGV[8])
  for _, old in ipairs(redis.call('ZRANGE', KEYS[7], -keep - 1, -keep - 1)) do
    redis.call('ZREM', KEYS[6], old)
  end
end
return 1
"""
"""One change of one game, fenced by its tenure (KEYS: lease, game, moves, events, live,
lobby, done, done:seq; ARGV: tenure, lease ms, head, summary, status, game id, created,
finished games listed, event count, then per event: v, moves kept (-1: all), move, body; then
the rated game's record, or '' if the change rates nothing, and with it: per seat the account,
its standing and its rating, then the pool; KEYS then go on: rated, rated:log, ratings:POOL,
board:POOL, pools:PLAYER of each seat, recent:PLAYER of each seat). The rated game's changes
are applied once per game id (`rated` holds it) and in the same script as its result, so
neither is ever kept without the other.
Refused if another tenure holds the lease, or had the game since this one (even if its lease
is free again), or if a game with this id exists that was never this tenure's. A finished game
leaves the lobby once `keep_finished` games finished after it."""

_SAVE_TOURNAMENT = """
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return 0 end
local tenure = redis.call('HGET', KEYS[2], 'tenure')
local exists = redis.call('EXISTS', KEYS[2]) == 1
if tenure ~= ARGV[1] and (tenure or exists) then return 0 end
if not exists then redis.call('RPUSH', KEYS[4], ARGV[5]) end
redis.call('HSET', KEYS[2], 'tenure', ARGV[1], 'body', ARGV[3], 'status', ARGV[4])
if ARGV[6] == '1' then
  redis.call('SREM', KEYS[3], ARGV[5])
  redis.call('DEL', KEYS[1])
else
  redis.call('SADD', KEYS[3], ARGV[5])
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
for i = 7, #ARGV do redis.call('HSET', KEYS[5], ARGV[i], ARGV[5]) end
return 1
"""
"""A tournament's record, fenced by its tenure exactly as a game's change is (KEYS: lease,
tournament, tournaments:live, tournaments, tournament-games; ARGV: tenure, lease ms, body,
status, id, '1' if it is over (its lease is let go), then the ids of its games)."""

CLAIM = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  redis.call('HSET', KEYS[2], 'tenure', ARGV[1])
  return 1
end
return 0
"""
"""Take a game whose lease is free (KEYS: lease, game; ARGV: new tenure, lease ms)."""

_LOCATE = """
local owner = redis.call('GET', KEYS[1])
if owner == ARGV[1] then return {'mine'} end
if owner then
  local node = string.match(owner, '^(.*)/')
  if redis.call('EXISTS', ARGV[3] .. node) == 1 then return {'at', node} end
  return {'down', node}
end
if redis.call('SISMEMBER', KEYS[3], ARGV[4]) == 1 then
  if ARGV[5] ~= '1' then
    local tenure = redis.call('HGET', KEYS[2], 'tenure')
    return {'down', tenure and string.match(tenure, '^(.*)/') or ''}
  end
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  redis.call('HSET', KEYS[2], 'tenure', ARGV[1])
  return {'claimed'}
end
return {'none'}
"""
"""Who serves a game (KEYS: lease, game, live; ARGV: this node's tenure of it, or a new one,
lease ms, node key prefix, game id, '1' if a live game nobody holds may be claimed): this node
(`mine`, or `claimed` just now: a live game nobody owned), another running node (`at`), a
stopped node whose lease still runs, or whose expired lease may not be claimed yet (`down`),
or nobody, as the game is not live (`none`)."""

RENEW = """
local lost = {}
for i = 1, #KEYS, 2 do
  local owner = redis.call('GET', KEYS[i])
  local mine = ARGV[(i + 1) / 2 + 1]
  if owner == mine then
    redis.call('PEXPIRE', KEYS[i], ARGV[1])
  elseif not owner and redis.call('HGET', KEYS[i + 1], 'tenure') == mine then
    redis.call('SET', KEYS[i], mine, 'PX', ARGV[1])
  else
    table.insert(lost, (i + 1) / 2)
  end
end
return lost
"""
"""Renew leases (KEYS: lease and game of each; ARGV: lease ms, then the tenure of each). A
lease that expired is taken again if no other tenure had the game since. Returns the 1-based
positions of the games that another tenure has now."""

RELEASE = """
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i] then redis.call('DEL', key) end
end
return 0
"""
"""Give up leases (KEYS) held by the tenures (ARGV, one each)."""


def new_tenure(node: str) -> str:
    """A node's hold on one game, from one claim (or its creation) to its loss: the lease's
    value, and the game's `tenure` field."""
    return f"{node}/{secrets.token_hex(6)}"


class RedisStore:
    """The games of a cluster in Redis (a `GameStore`), as node `node` writes them."""

    def __init__(self, client: redis.Redis, node: str, lease_ms: int, keep_finished: int) -> None:
        self.client = client
        self.node = node
        self.lease_ms = lease_ms
        self.keep_finished = keep_finished
        self.path = f"Redis (node {node})"
        self._commit = client.register_script(_COMMIT)
        self._locate = client.register_script(_LOCATE)
        self._create_account = client.register_script(_CREATE_ACCOUNT)
        self._save_tournament = client.register_script(_SAVE_TOURNAMENT)
        self._batch: list[AnyRedisChange] = []
        """The saves since the last commit."""
        self._saved = 0
        """How many changes were saved since `start`."""
        self._durable: Callable[[int], None] | None = None
        self._retry_s = 0.0
        self._retry: asyncio.TimerHandle | None = None
        """The next commit after one Redis refused: until then, nothing is tried."""
        self.tenures: dict[str, str] = {}
        """This node's tenure of each game it created or claimed."""
        self.lost: set[str] = set()
        """Games whose last commit found another tenure's: the node drops them."""

    @property
    def saved(self) -> int:
        return self._saved

    def start(self, durable: Callable[[int], None], retry_s: float) -> None:
        self._durable, self._retry_s = durable, retry_s

    def flush(self) -> None:
        """Commit what was saved (on the event loop: a round trip), unless Redis refused the
        last commit: the retry takes this too."""
        if self._retry is None:
            self._commit_all()

    def _commit_all(self) -> None:
        """Commit; if Redis refuses, tell nobody and try again after `retry_s`, with what comes
        meanwhile."""
        self._retry = None
        try:
            self.commit()
        except StoreError as exc:
            log.error("%s; trying again, and telling nobody until then", exc)
            loop = asyncio.get_running_loop()
            self._retry = loop.call_later(self._retry_s, self._commit_all)
            return
        if self._durable is not None:
            self._durable(self._saved)

    def close(self) -> None:
        if self._retry is not None:  # Redis refused: what it did not keep is lost
            self._retry.cancel()
        self.client.close()

    def tenure(self, game_id: str) -> str:
        """This node's tenure of the game: the one it has, or a new one (a game it creates)."""
        tenure = self.tenures.get(game_id)
        if tenure is None:
            tenure = self.tenures[game_id] = new_tenure(self.node)
        return tenure

    def save(self, change: AnyRedisChange) -> None:
        """Queue a change for the next commit (nothing can fail yet)."""
        self._batch.append(change)
        self._saved += 1

    def snapshot(self, room: Room, events: Sequence[Event], now: int) -> RedisChange:
        """The room's state and `events` as the commit script takes them."""
        game_id = room.game_id
        left = (room.clock.left(0, now), room.clock.left(1, now)) if room.clock else None
        head = {
            "game": room.game_name,
            "options": room.options,
            "clock": to_wire(room.clock_spec),
            "status": room.status,
            "created": room.created,
            "pace_ms": room.pace_ms,
            "clocks": [max(0, t) for t in left] if left else None,
            "seats": [[to_wire(s.spec), s.name, s.token_hash] for s in room.seats],
            "rated": room.rated,
        }
        args: list[Any] = [
            self.tenure(game_id),
            self.lease_ms,
            msgpack.packb(head, use_bin_type=True),
            encode(Lobby(game=room.summary())),
            room.status,
            game_id,
            room.created,
            self.keep_finished,
            len(events),
        ]
        for event in events:
            keep = -1  # the moves kept: a takeback drops those from its ply on
            if isinstance(event, TakebackRequest) and event.state == "accepted":
                keep = event.ply
            move = b""
            if isinstance(event, Moved):
                move = msgpack.packb([event.seat, event.move], use_bin_type=True)
            args += [event.v, keep, move, room.body(event)]
        rated = room.rated_game if any(isinstance(e, Over) for e in events) else None
        args.append(b"" if rated is None else _packed_game(rated))
        keys = [
            lease_key(game_id),
            game_key(game_id),
            moves_key(game_id),
            events_key(game_id),
            LIVE,
            LOBBY,
            DONE,
            DONE_SEQ,
        ]
        if rated is not None:
            for player, standing in zip(rated.players, rated.after, strict=True):
                args += [player, _packed_standing(standing), standing.rating.rating]
            args.append(rated.pool)
            keys += [RATED, RATED_LOG, ratings_key(rated.pool), board_key(rated.pool)]
            keys += [pools_key(player) for player in rated.players]
            keys += [recent_key(player) for player in rated.players]
        return game_id, keys, args

    def analysis_snapshot(self, game_id: str, analysis: GameAnalysis) -> AnalysisChange:
        """Set once (`SETNX`): an analysis is a fact of a finished game, whichever node made it."""
        body = encode(AnalysisEvent(game_id, "done", analysis))
        return AnalysisChange(game_id, analysis_key(game_id), body)

    def commit(self) -> None:
        """Apply every change since the last commit, in one round trip; StoreError if Redis
        cannot be reached (the batch is kept, and sent again by the next commit). Changes to
        games another node had since are not applied: their ids go to `lost`."""
        if not self._batch:
            return
        tournaments = any(isinstance(change, TournamentChange) for change in self._batch)
        pipe = self.client.pipeline(transaction=tournaments)
        for change in self._batch:
            if isinstance(change, AnalysisChange):
                pipe.setnx(change.key, change.body)
            elif isinstance(change, TournamentChange):
                self._save_tournament(keys=change.keys, args=change.args, client=pipe)
            else:
                self._commit(keys=change[1], args=change[2], client=pipe)
        try:
            applied = pipe.execute()
        except redis.RedisError as exc:
            raise StoreError(f"cannot commit {len(self._batch)} change(s): {exc}") from exc
        for change, done in zip(self._batch, applied, strict=True):
            if not done and not isinstance(change, AnalysisChange):
                self.lost.add(change[0])
                self.tenures.pop(change[0], None)
        self._batch.clear()

    def locate(
        self, game_id: str, claim: bool = True, tournament: bool = False
    ) -> tuple[str, str | None]:
        """Who serves the game (a `tournament`, if so): ("mine" | "claimed" | "none", None) or
        ("at" | "down", node); without `claim`, a live one whose lease expired is "down" rather
        than "claimed" (its node may not have renewed the lease yet). StoreError if Redis
        cannot be reached."""
        tenure = self.tenures.get(game_id) or new_tenure(self.node)
        record, live = (tournament_key, TOURNAMENTS_LIVE) if tournament else (game_key, LIVE)
        try:
            found = self._locate(
                keys=[lease_key(game_id), record(game_id), live],
                args=[tenure, self.lease_ms, node_key(""), game_id, "1" if claim else "0"],
            )
        except redis.RedisError as exc:
            raise StoreError(f"cannot find game {game_id}'s node: {exc}") from exc
        kind, *node = texts(found)
        if kind == "claimed":
            self.tenures[game_id] = tenure
        return kind, node[0] if node else None

    def unfinished(self) -> list[StoredGame]:
        """Every game not over (a cluster's nodes take them over one by one instead)."""
        ids = sorted(texts(self.client.smembers(LIVE)))
        return [game for game in map(self.load, ids) if game is not None]

    def finished(self, limit: int) -> list[StoredGame]:
        """The `limit` most recently finished games, the most recent last."""
        if limit <= 0:
            return []
        ids = texts(self.client.zrange(DONE, -limit, -1))
        return [game for game in map(self.load, ids) if game is not None]

    def load(self, game_id: str) -> StoredGame | None:
        pipe = self.client.pipeline(transaction=False)
        pipe.hget(game_key(game_id), "head")
        pipe.lrange(moves_key(game_id), 0, -1)
        pipe.lrange(events_key(game_id), 0, -1)
        pipe.get(analysis_key(game_id))
        try:
            head, moves, events, analysis = pipe.execute()
        except redis.RedisError as exc:
            raise StoreError(f"cannot load game {game_id}: {exc}") from exc
        if head is None:
            return None
        state = msgpack.unpackb(head)
        played = [msgpack.unpackb(move) for move in moves]
        clocks = state["clocks"]
        return StoredGame(
            game_id=game_id,
            game=state["game"],
            options=state["options"],
            clock=ClockSpec(**state["clock"]) if state["clock"] else None,
            status=state["status"],
            created=state["created"],
            pace_ms=state["pace_ms"],
            clocks=(clocks[0], clocks[1]) if clocks else None,
            seats=tuple((SeatSpec(**spec), name, token) for spec, name, token in state["seats"]),
            movers=tuple(seat for seat, _ in played),
            moves=tuple(move for _, move in played),
            events=tuple(_event(body) for body in events),
            rated=state.get("rated", False),
            analysis=None if analysis is None else stored_analysis(analysis),
        )

    # -- ratings (server/ratings.py's `RatingStore`) ---------------------------------------------

    def standing(self, pool: str, player: str) -> Standing | None:
        try:
            packed = self.client.hget(ratings_key(pool), player)
        except redis.RedisError as exc:
            raise StoreError(f"cannot read {player}'s rating: {exc}") from exc
        return None if packed is None else _standing(packed)

    def leaderboard(self, pools: Sequence[str], limit: int) -> list[tuple[str, str, Standing]]:
        board: list[tuple[str, str, Standing]] = []
        try:
            for pool in pools:
                players = texts(self.client.zrevrange(board_key(pool), 0, limit - 1))
                rows = self.client.hmget(ratings_key(pool), players) if players else []
                board += [
                    (pool, player, _standing(row))
                    for player, row in zip(players, rows, strict=True)
                    if row is not None
                ]
        except redis.RedisError as exc:
            raise StoreError(f"cannot read the leaderboard: {exc}") from exc
        return board

    def standings(self, player: str) -> list[tuple[str, Standing]]:
        try:
            pools = sorted(texts(self.client.smembers(pools_key(player))))
        except redis.RedisError as exc:
            raise StoreError(f"cannot read {player}'s ratings: {exc}") from exc
        found = [(pool, self.standing(pool, player)) for pool in pools]
        return [(pool, standing) for pool, standing in found if standing is not None]

    def rated_games(self, player: str | None, limit: int) -> list[RatedGame]:
        try:
            if player is None:
                ids = texts(self.client.lrange(RATED_LOG, 0, -1))
            else:
                ids = texts(self.client.lrange(recent_key(player), 0, limit - 1))
            records = self.client.hmget(RATED, ids) if ids else []
        except redis.RedisError as exc:
            raise StoreError(f"cannot read the rated games: {exc}") from exc
        return [
            _rated_game(game_id, record)
            for game_id, record in zip(ids, records, strict=True)
            if record is not None
        ]

    def account(self, canonical: str) -> StoredAccount | None:
        try:
            fields = self.client.hgetall(account_key(canonical))
        except redis.RedisError as exc:
            raise StoreError(f"cannot read the account: {exc}") from exc
        if not fields:
            return None
        got = dict(zip(texts(fields), texts(fields.values()), strict=True))
        bot, created = got["bot"] == "1", int(got["created"])
        return StoredAccount(got["name"], canonical, got["key_hash"], bot, created)

    def create_account(self, account: StoredAccount) -> bool:
        row = (account.name, account.key_hash, int(account.bot), account.created)
        try:
            return bool(self._create_account(keys=[account_key(account.canonical)], args=row))
        except redis.RedisError as exc:
            raise StoreError(f"cannot store the account: {exc}") from exc

    def set_key(self, canonical: str, key_hash: str) -> None:
        try:
            self.client.hset(account_key(canonical), "key_hash", key_hash)
        except redis.RedisError as exc:
            raise StoreError(f"cannot store the key: {exc}") from exc

    # -- tournaments (server/tournaments.py's `TournamentStore`) ----------------------------------

    def tournament_snapshot(
        self, tid: str, status: str, body: str, games: Sequence[str] = ()
    ) -> TournamentChange:
        """The record as it is now and the ids of its games, fenced by this node's tenure."""
        keys = [
            lease_key(tid),
            tournament_key(tid),
            TOURNAMENTS_LIVE,
            TOURNAMENTS,
            TOURNAMENT_GAMES,
        ]
        over = "1" if status in OVER else "0"
        args = [self.tenure(tid), self.lease_ms, body, status, tid, over, *games]
        return TournamentChange(tid, keys, args)

    def tournaments(self) -> list[tuple[str, str]]:
        try:
            ids = texts(self.client.lrange(TOURNAMENTS, 0, -1))
            pipe = self.client.pipeline(transaction=False)
            for tid in ids:
                pipe.hget(tournament_key(tid), "body")
            bodies = pipe.execute()
        except redis.RedisError as exc:
            raise StoreError(f"cannot read the tournaments: {exc}") from exc
        return [(t, b.decode()) for t, b in zip(ids, bodies, strict=True) if b is not None]

    def tournament(self, tid: str) -> str | None:
        try:
            body = self.client.hget(tournament_key(tid), "body")
        except redis.RedisError as exc:
            raise StoreError(f"cannot read tournament {tid}: {exc}") from exc
        return None if body is None else texts([body])[0]

    def tournament_owning(self, game_id: str) -> str | None:
        """The tournament of a game, if it is one not over (whose owner takes its games)."""
        found = self.client.hget(TOURNAMENT_GAMES, game_id)
        if found is None:
            return None
        (tid,) = texts([found])
        return tid if self.client.sismember(TOURNAMENTS_LIVE, tid) else None

    # -- wrong keys, counted for every node (server/accounts.py's `Attempts`, shared) ----------

    def attempts(self, kind: str, most: int, window_ms: int) -> SharedAttempts:
        return SharedAttempts(self.client, kind, most, window_ms)

    def lobby(self) -> list[GameSummary]:
        """Every listed game's lobby line: the live games and the recently finished ones."""
        pipe = self.client.pipeline(transaction=False)
        for game_id in texts(self.client.zrange(LOBBY, 0, -1)):
            pipe.hget(game_key(game_id), "summary")
        lines = []
        for body in pipe.execute():
            if body is not None:
                line = decode_server_message(body)
                assert isinstance(line, Lobby)
                lines.append(line.game)
        return lines


class SharedAttempts:
    """`Attempts` kept in Redis, so that every node counts a name's and an address's wrong
    keys together: a sorted set of failure times per subject, trimmed to the window. Nodes'
    monotonic clocks differ, so these times are the wall clock's (the `now` given is unused).
    StoreError if Redis cannot be reached."""

    def __init__(self, client: redis.Redis, kind: str, most: int, window_ms: int) -> None:
        self.client, self.kind, self.most, self.window_ms = client, kind, most, window_ms

    def wait_ms(self, subject: str, now: int) -> int:
        key, wall = wrong_key(self.kind, subject), int(time.time() * 1000)
        pipe = self.client.pipeline(transaction=True)
        pipe.zremrangebyscore(key, "-inf", wall - self.window_ms)
        pipe.zcard(key)
        pipe.zrange(key, 0, 0, withscores=True)
        try:
            _, count, oldest = pipe.execute()
        except redis.RedisError as exc:
            raise StoreError(f"cannot read the wrong keys: {exc}") from exc
        if count < self.most or not oldest:
            return 0
        return max(0, int(oldest[0][1]) + self.window_ms - wall)

    def failed(self, subject: str, now: int) -> None:
        key, wall = wrong_key(self.kind, subject), int(time.time() * 1000)
        pipe = self.client.pipeline(transaction=True)
        pipe.zadd(key, {f"{wall}/{secrets.token_hex(4)}": wall})
        pipe.pexpire(key, self.window_ms)
        try:
            pipe.execute()
        except redis.RedisError as exc:
            raise StoreError(f"cannot count a wrong key: {exc}") from exc


def texts(values: Any) -> list[str]:
    """What Redis answered (bytes) as text."""
    return [value.decode() for value in values]


def _event(body: bytes) -> Event:
    event = decode_server_message(body)
    if not isinstance(event, Moved | Over | SeatEvent | TakebackRequest | DrawOffer):
        raise RuntimeError(f"stored event is a {event.type}")
    return event
