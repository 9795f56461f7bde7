"""The tournaments a node runs, as a part of the core: made, entered, started, shown; their
games made through the same path as `create`'s; every change saved through the one durability
path; their subscribers told. The decisions are server/tournament.py's (pure); this part reads
its games' results (from memory, else the store) and carries the steps out.

A tournament's record is kept by the store (`TournamentStore`): SQLite on one node, Redis in a
cluster, where a tournament is owned by a node through a lease as a game is and taken over,
with its games, when that node dies (docs/tournaments-server.md, "In a cluster"). A node holds
only the tournaments it owns (and finished ones it read back); a result of a game this node
does not hold is read from the store again every `RECHECK_MS`.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any, Protocol, runtime_checkable

from ubao.protocol import (
    Create,
    ErrorCode,
    Over,
    PairingLine,
    SeatSpec,
    StandingLine,
    TournamentEvent,
    TournamentNew,
    TournamentSummary,
    TournamentView,
    quote,
)
from ubao.server.lifecycle import Rejected
from ubao.server.outputs import Output, Save, SendMessage
from ubao.server.room import Room
from ubao.server.stores.protocol import StoredGame
from ubao.server.tournament import (
    MARKS,
    Entrant,
    Outcome,
    Pairing,
    RoundPaired,
    Settings,
    StartGame,
    Tournament,
    crosstable,
    next_steps,
    standings,
)

log = logging.getLogger("ubao.server")

RECHECK_MS = 1_000
"""How often a tournament looks again at what it waits for elsewhere: a game that the server's
capacity did not let it start, a game another node holds."""


@runtime_checkable
class TournamentStore(Protocol):
    """Where tournaments are kept: a save of one is a `Save` output like a game's, so that it
    is durable in the same commit as the game it starts."""

    def tournament_snapshot(self, tid: str, status: str, body: str, games: Sequence[str]) -> Any:
        """The tournament's record as it is now (`body`: JSON; `games`: the ids of its games,
        which a cluster's store indexes), for `DurableStore.save`."""

    def tournaments(self) -> list[tuple[str, str]]:
        """Every stored tournament's id and body, oldest first."""

    def tournament(self, tid: str) -> str | None:
        """One stored tournament's body, None if there is none."""


def to_json(t: Tournament, maker: str) -> str:
    return json.dumps(
        {
            "maker": maker,
            "settings": asdict(t.settings),
            "entrants": [asdict(e) for e in t.entrants],
            "pairings": [[p.round, p.white, p.black, p.game_id] for p in t.pairings],
            "status": t.status,
            "started_ms": t.started_ms,
        }
    )


def from_json(tid: str, body: str) -> tuple[Tournament, str]:
    data = json.loads(body)
    t = Tournament(
        tid,
        Settings(**data["settings"]),
        [Entrant(**e) for e in data["entrants"]],
        [Pairing(*p) for p in data["pairings"]],
        data["status"],
        data["started_ms"],
    )
    return t, data["maker"]


def share_of(room: Room) -> Outcome | None:
    """Seat 0's share of a finished game (an aborted one counts as a draw), None if not over."""
    if room.status != "over" or room.result is None:
        return None
    winner = room.result.winner
    return 0.5 if winner is None else 1.0 - winner


def replayed(
    tid: str, body: str, stored: Callable[[str], StoredGame | None]
) -> tuple[Tournament, dict[str, Outcome | None]]:
    """A stored tournament and its games' results as the store holds them (`stored` reads a
    game): what its standings must equal, whatever the server showed (tests, benchmarks)."""
    t, _ = from_json(tid, body)
    results: dict[str, Outcome | None] = {}
    for p in t.pairings:
        game = stored(p.game_id) if p.game_id is not None else None
        if game is None or p.game_id is None:
            continue
        over = game.events[-1] if game.status == "over" and game.events else None
        winner = over.result.winner if isinstance(over, Over) else None
        results[p.game_id] = None if over is None else 0.5 if winner is None else 1.0 - winner
    return t, results


def seat_spec(entrant: Entrant) -> SeatSpec:
    """A server bot's seat, or an open one that waits for the account (a bot client's says so)."""
    if not entrant.is_server_bot:
        return SeatSpec.open()
    return SeatSpec("bot", entrant.depth, algorithm=entrant.algorithm, eval=entrant.eval)


class Tournaments:
    """The tournaments in memory, their makers and subscribers."""

    def __init__(
        self,
        store: TournamentStore | None,
        load: Callable[[str], Room | None],
        make_game: Callable[[Create], Room],
        wall: Callable[[], int],
        grace_ms: int,
        here: Callable[[str], bool],
    ) -> None:
        self.store = store
        self.load = load
        """A game by id: in memory, else rebuilt from the store."""
        self.make_game = make_game
        """Make, store and start a game as `create` does (the core's)."""
        self.wall = wall
        self.grace_ms = grace_ms
        """How long a game waits for an entrant before it is forfeited."""
        self.waiting: dict[str, int] = {}
        """Games with an account's seat, and when each stops waiting for its entrants."""
        self.finished: dict[str, Outcome] = {}
        """Results already read of games that are over (they never change)."""
        self.held: dict[str, Tournament] = {}
        self.makers: dict[str, str] = {}
        self.subscribers: dict[str, set[int]] = {}
        self.by_game: dict[str, str] = {}
        """Each tournament game's tournament."""
        self.here = here
        """Whether this node holds a game in memory (else another node may play it)."""
        self.recheck: dict[str, int] = {}
        """Tournaments to step again at a time: waiting for capacity, or for another node."""

    def restore(self, now: int) -> list[Output]:
        """After a restart: every stored tournament back, running ones going on; the entrants
        of their games not over get a grace from now."""
        if self.store is None:
            return []
        out: list[Output] = []
        for tid, body in self.store.tournaments():
            try:
                out += self._take(tid, body, now)
            except (ValueError, KeyError, TypeError) as exc:  # its record is damaged: left alone
                log.error("cannot restore tournament %s: %s", tid, exc)
        return out

    def adopt(self, tid: str, now: int) -> list[Output]:
        """Hold a stored tournament this node is to serve now (in a cluster: it owns its lease
        now, its last owner having stopped, or it is over): as after a restart. Rejected if
        there is no such tournament."""
        self._check_kept()
        assert self.store is not None
        if tid in self.held:
            return []
        body = self.store.tournament(tid)
        if body is None:
            raise Rejected(ErrorCode.UNKNOWN_TOURNAMENT, f"there is no tournament {quote(tid)}")
        log.info("tournament %s taken up", tid)
        return self._take(tid, body, now)

    def _take(self, tid: str, body: str, now: int) -> list[Output]:
        t, maker = from_json(tid, body)
        self._hold(t, maker)
        for p in t.pairings:
            if p.game_id is not None and self._has_account(t, p):
                self.waiting[p.game_id] = now + self.grace_ms
        return self.step(t, now)

    def drop(self, tid: str) -> set[int]:
        """Forget a tournament another node owns now; returns its subscribers here, which the
        layer closes so that they come back to it."""
        t = self.held.pop(tid, None)
        if t is None:
            return set()
        log.warning("tournament %s is owned by another node now: dropped here", tid)
        self.makers.pop(tid, None)
        self.recheck.pop(tid, None)
        for p in t.pairings:
            if p.game_id is not None:
                self.by_game.pop(p.game_id, None)
                self.waiting.pop(p.game_id, None)
        return self.subscribers.pop(tid, set())

    def live(self) -> list[str]:
        """The tournaments held here that are not over (whose leases a cluster node renews)."""
        return [tid for tid, t in self.held.items() if t.status in ("open", "running")]

    def _hold(self, t: Tournament, maker: str) -> None:
        self.held[t.tid], self.makers[t.tid] = t, maker
        self.subscribers.setdefault(t.tid, set())
        for p in t.pairings:
            if p.game_id is not None:
                self.by_game[p.game_id] = t.tid

    def _check_kept(self) -> None:
        if self.store is None:
            message = "this server's store keeps no tournaments"
            raise Rejected(ErrorCode.UNKNOWN_TOURNAMENT, message)

    def get(self, tid: str) -> Tournament:
        self._check_kept()
        t = self.held.get(tid)
        if t is None:
            raise Rejected(ErrorCode.UNKNOWN_TOURNAMENT, f"there is no tournament {quote(tid)}")
        return t

    def new(self, command: TournamentNew, maker: str) -> tuple[str, list[Output]]:
        self._check_kept()
        tid = "t" + secrets.token_hex(4)
        fields = asdict(command)
        del fields["id"]
        t = Tournament(tid, Settings(**fields))
        self._hold(t, maker)
        log.info("tournament %s (%s) made by %r", tid, command.format, maker)
        return tid, [self._save(t)]

    def enter(self, tid: str, entrant: Entrant) -> list[Output]:
        t = self.get(tid)
        t.enter(entrant)
        return [self._save(t), *self._announce(t)]

    def start(self, tid: str, who: str, now: int) -> list[Output]:
        t = self.get(tid)
        if who != self.makers[tid]:
            message = f"only {quote(self.makers[tid])}, who made it, starts tournament {tid}"
            raise Rejected(ErrorCode.NOT_YOUR_GAME, message)
        t.start(self.wall())
        return [self._save(t), *self.step(t, now)]

    def game_over(self, game_id: str, now: int) -> list[Output]:
        """A game ended: its tournament (if any) goes on."""
        self.waiting.pop(game_id, None)
        tid = self.by_game.get(game_id)
        return [] if tid is None else self.step(self.held[tid], now)

    def seat_for(self, game_id: str, account: str | None) -> int | None:
        """The seat of a tournament game that `account` is paired in (None: not a tournament
        game); Rejected if the account is not one of its entrants."""
        tid = self.by_game.get(game_id)
        if tid is None:
            return None
        t = self.held[tid]
        pairing = next(p for p in t.pairings if p.game_id == game_id)
        for seat, entrant in enumerate((pairing.white, pairing.black)):
            if entrant is not None and account and t.entrants[entrant].account == account:
                return seat
        message = f"game {game_id} is a game of tournament {tid}: only its entrants sit in it"
        raise Rejected(ErrorCode.NOT_YOUR_SEAT, message)

    def no_shows(self, now: int) -> list[tuple[str, int | None]]:
        """Games whose grace for their entrants is over with a seat still free: the free seat
        (None: both), to forfeit (both: the game is cancelled, which counts as a draw)."""
        absent: list[tuple[str, int | None]] = []
        for game_id, until in list(self.waiting.items()):
            if until > now:
                continue
            del self.waiting[game_id]
            if not self.here(game_id):
                continue  # another node holds it (its player came back there)
            room = self.load(game_id)
            if room is None or room.status != "waiting":
                continue
            free = [seat for seat, state in enumerate(room.seats) if state.free]
            absent.append((game_id, free[0] if len(free) == 1 else None))
        return absent

    def next_deadline(self, now: int) -> int | None:
        """When `no_shows` or an arena's end next has work (after its end, an arena ends when
        its last game does)."""
        deadlines = [*self.waiting.values(), *self.recheck.values()]
        wall = self.wall()
        for t in self.held.values():
            ends = t.started_ms + t.settings.minutes * 60_000
            if t.status == "running" and t.settings.format == "arena" and wall < ends:
                deadlines.append(now + ends - wall)
        return min(deadlines, default=None)

    def due(self, now: int) -> list[Output]:
        """Time passed: running arenas whose time is up end once their games are over."""
        out: list[Output] = []
        for tid, at in list(self.recheck.items()):
            if at <= now:
                del self.recheck[tid]
                out += self.step(self.held[tid], now)
        wall = self.wall()
        for t in self.held.values():
            ends = t.started_ms + t.settings.minutes * 60_000
            if t.status == "running" and t.settings.format == "arena" and wall >= ends:
                out += self.step(t, now)
        return out

    @staticmethod
    def _has_account(t: Tournament, p: Pairing) -> bool:
        return any(e is not None and not t.entrants[e].is_server_bot for e in (p.white, p.black))

    def step(self, t: Tournament, now: int) -> list[Output]:
        """Carry out what the tournament does next: games made (the tournament saved with
        their ids in the same turn), the change announced."""
        results = self.results(t)
        steps = next_steps(t, results, self.wall())
        if any(share is None and not self.here(g) for g, share in results.items()):
            self.recheck.setdefault(t.tid, now + RECHECK_MS)  # played on another node
        if not steps:
            return []
        out: list[Output] = []
        paired: list[Pairing] = []
        for step in steps:
            if isinstance(step, RoundPaired):
                log.info("tournament %s: round %d paired", t.tid, step.round)
            elif isinstance(step, StartGame):
                pairing = t.pairings[step.index]
                try:
                    room = self._game(t, pairing)
                except Rejected as exc:
                    if exc.code != ErrorCode.SERVER_BUSY:
                        raise
                    self.recheck.setdefault(t.tid, now + RECHECK_MS)  # the server is full
                    log.info("tournament %s waits for capacity: %s", t.tid, exc.message)
                    break
                pairing = Pairing(pairing.round, pairing.white, pairing.black, room.game_id)
                t.pairings[step.index] = pairing
                self.by_game[room.game_id] = t.tid
                if self._has_account(t, pairing):
                    self.waiting[room.game_id] = now + self.grace_ms
                paired.append(pairing)
            else:
                log.info("tournament %s finished", t.tid)
        out.append(self._save(t))
        out += self._announce(t, paired)
        return out

    def _game(self, t: Tournament, pairing: Pairing) -> Room:
        """Its game: made now, server bots seated; accounts' seats wait for them."""
        assert pairing.black is not None
        white, black = t.entrants[pairing.white], t.entrants[pairing.black]
        s = t.settings
        create = Create(
            id=0,
            game=s.game,
            options=dict(s.options),
            seats=(seat_spec(white), seat_spec(black)),
            pace_ms=s.pace_ms or None,
            rated=s.rated and white.account is not None and black.account is not None,
        )
        return self.make_game(create)

    def results(self, t: Tournament) -> dict[str, Outcome | None]:
        """Every started game's share for seat 0, read from the games themselves."""
        results: dict[str, Outcome | None] = {}
        for p in t.pairings:
            if p.game_id is None:
                continue
            share = self.finished.get(p.game_id)
            if share is None:
                room = self.load(p.game_id)
                share = None if room is None else share_of(room)
                if share is not None:
                    self.finished[p.game_id] = share
            results[p.game_id] = share
        return results

    def _save(self, t: Tournament) -> Save:
        assert self.store is not None
        body = to_json(t, self.makers[t.tid])
        games = [p.game_id for p in t.pairings if p.game_id is not None]
        return Save(self.store.tournament_snapshot(t.tid, t.status, body, games))

    def _announce(self, t: Tournament, paired: list[Pairing] | None = None) -> list[Output]:
        subscribers = self.subscribers.get(t.tid)
        if not subscribers:
            return []
        results = self.results(t)
        lines = tuple(pairing_line(p, results) for p in paired or [])
        event = TournamentEvent(tournament=self.view(t, results), paired=lines)
        return [SendMessage(tuple(sorted(subscribers)), event)]

    def view(
        self, t: Tournament, results: dict[str, Outcome | None] | None = None
    ) -> TournamentView:
        results = self.results(t) if results is None else results
        table = standings(t, results)
        s = t.settings
        return TournamentView(
            tournament_id=t.tid,
            name=s.name,
            game=s.game,
            format=s.format,
            status=t.status,
            scoring=s.scoring,
            rated=s.rated,
            round=max((p.round for p in t.pairings), default=0),
            rounds=t.rounds,
            entrants=tuple(e.name for e in t.entrants),
            kinds=tuple(kind_of(e) for e in t.entrants),
            standings=tuple(
                StandingLine(
                    rank=rank,
                    entrant=row.entrant,
                    points=decimal(row.points),
                    games=row.games,
                    wins=row.wins,
                    draws=row.draws,
                    losses=row.losses,
                    byes=row.byes,
                    sonneborn_berger=decimal(row.sonneborn_berger),
                    buchholz=decimal(row.buchholz),
                    performance=row.performance,
                )
                for rank, row in enumerate(table, 1)
            ),
            pairings=tuple(pairing_line(p, results) for p in t.pairings),
            crosstable=tuple(tuple(row) for row in crosstable(t, results)),
            ends_ms=t.started_ms + s.minutes * 60_000
            if s.format == "arena" and t.started_ms
            else None,
        )

    def listed(self, limit: int) -> list[TournamentSummary]:
        """The latest `limit` tournaments made, the latest first: those held here as they are,
        the others (a cluster's other nodes') as stored."""
        stored = self.store.tournaments() if self.store is not None else []
        known = {tid for tid, _ in stored}
        everyone = [self.held.get(tid) or from_json(tid, body)[0] for tid, body in stored]
        everyone += [t for tid, t in self.held.items() if tid not in known]  # not stored yet
        latest = everyone[::-1][:limit]
        summaries = []
        for t in latest:
            table = standings(t, self.results(t)) if t.pairings else []
            leader = t.entrants[table[0].entrant].name if table and table[0].games else None
            summaries.append(
                TournamentSummary(
                    tournament_id=t.tid,
                    name=t.settings.name,
                    game=t.settings.game,
                    format=t.settings.format,
                    status=t.status,
                    entrants=len(t.entrants),
                    round=max((p.round for p in t.pairings), default=0),
                    rounds=t.rounds,
                    leader=leader,
                )
            )
        return summaries

    def leave(self, conn_id: int) -> None:
        for subscribers in self.subscribers.values():
            subscribers.discard(conn_id)


def kind_of(entrant: Entrant) -> str:
    if entrant.depth is None:
        return "account"
    settings = [f"depth {entrant.depth}", entrant.algorithm or "", entrant.eval or ""]
    return "bot " + " ".join(s for s in settings if s)


def decimal(value: float) -> str:
    """`7.5`, `8`, `10.25`: exact for the halves and quarters points and tiebreaks are made of."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def pairing_line(p: Pairing, results: dict[str, Outcome | None]) -> PairingLine:
    share = results.get(p.game_id) if p.game_id is not None else None
    result = None
    if p.game_id is not None:
        result = "*" if share is None else f"{MARKS[share]}-{MARKS[1.0 - share]}"
    return PairingLine(
        round=p.round, white=p.white, black=p.black, game_id=p.game_id, result=result
    )
