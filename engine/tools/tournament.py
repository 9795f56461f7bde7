"""`ubao-engine tournament`: N engines play a round-robin or a gauntlet, the job cutechess-cli
does for chess engines; `ubao-engine match` is its two-engine case.

Every engine, the built-in search as much as an external program, is driven through the protocol
library's `EngineClient` (the built-in one over `SessionTransport`, in this process). A game asks
the engine to move under its limits (a depth, a time per move, a clock with an increment),
counts its clock, and ends by the rules, at the ply limit (a draw), or with a loss: on time, or
for an engine that died, hung, refused the position or answered an illegal move. Games run
`concurrency` at a time; each engine is reused game after game (a new game each time), with at
most `concurrency` copies of one engine.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ubao.engine.game import Game, GameError
from ubao.engine.protocols import DIALECTS, EnginePosition, Limits
from ubao.engine.protocols.client import EngineClient, EngineFailure
from ubao.engine.protocols.transports import (
    EngineGone,
    SessionTransport,
    SubprocessTransport,
    Transport,
)
from ubao.engine.record import Record
from ubao.engine.tools.entrants import Entrant
from ubao.engine.tools.schedule import Opening, ScheduledGame, schedule
from ubao.engine.tools.standings import GameResult
from ubao.engine.tools.tournament_files import (
    claim,
    finished_games,
    record_of,
    save_game,
    save_tables,
)

HANDSHAKE_SECONDS = 30.0
"""How long an engine may take to answer the handshake (UCI engines answer at once)."""
QUIT_SECONDS = 10.0
"""How long an engine may take to quit before it is killed."""
MOVE_MARGIN_SECONDS = 5.0
"""How long past its time per move an engine may take (start-up, a loaded machine) before it is
told to `stop`; a move it gives then still counts."""
STOP_GRACE_SECONDS = 2.0
"""How long it then has to answer `stop` with its move; an engine silent after that has failed."""
CLOCK_MARGIN_MS = 50
"""How far past its clock an engine may answer before it loses on time (the pipe's delay)."""


@dataclass(frozen=True, slots=True)
class Plan:
    """What a tournament plays: everything that decides its games, nothing about how fast."""

    game: Game[Any, Any]
    entrants: tuple[Entrant, ...]
    format: str
    rounds: int
    games: int
    """Games of each pairing per round."""
    openings: tuple[Opening, ...]
    max_plies: int | None = 1000
    """Plies the engines play after the opening before the game is a draw."""
    recover: bool = False
    """Play on after an engine fails (it loses that game and is restarted), or stop there."""
    clock_margin_ms: int = CLOCK_MARGIN_MS

    @property
    def names(self) -> list[str]:
        return [entrant.name for entrant in self.entrants]

    def opening(self, scheduled: ScheduledGame) -> Opening:
        """The game's opening: a pairing that needs more than there are starts again."""
        return self.openings[scheduled.opening % len(self.openings)]

    def schedule(self) -> list[ScheduledGame]:
        return schedule(len(self.entrants), self.format, self.rounds, self.games)

    def settings(self) -> dict[str, Any]:
        """What the output folder keeps: a re-run must ask for the same. Not `recover`: a game
        an engine fails in is lost either way, so a tournament stopped by a failure may go on
        with `--recover`."""
        return {
            "game": self.game.name,
            "options": dict(self.game.options),
            "entrants": [entrant.to_json() for entrant in self.entrants],
            "format": self.format,
            "rounds": self.rounds,
            "games": self.games,
            "openings": [list(opening) for opening in self.openings],
            "max_plies": self.max_plies,
            "clock_margin_ms": self.clock_margin_ms,
        }


class TournamentStopped(RuntimeError):
    """An engine failed and the plan does not recover: the tournament ends (its games so far are
    kept)."""


@dataclass(frozen=True, slots=True)
class Played:
    """A game as it ended: its result, its moves, and what failed if an engine did."""

    result: GameResult
    moves: tuple[str, ...]
    failure: str | None = None
    """What failed, when an engine did."""
    failed_side: int | None = None
    """The side whose engine failed: it is not asked again."""


class Engines:
    """The idle engines of one entrant, reused game after game; a failed one is killed."""

    def __init__(self, entrant: Entrant, backend: str | None) -> None:
        self.entrant = entrant
        self.backend = backend
        self.idle: list[EngineClient] = []
        self.busy: set[EngineClient] = set()

    async def take(self) -> EngineClient:
        client = self.idle.pop() if self.idle else await self._start()
        self.busy.add(client)
        return client

    def give_back(self, client: EngineClient) -> None:
        self.busy.discard(client)
        self.idle.append(client)

    async def discard(self, client: EngineClient) -> None:
        self.busy.discard(client)
        await client.kill()

    async def close(self) -> None:
        """Ask every engine to quit; one that does not is killed."""
        clients = [*self.idle, *self.busy]
        self.idle, self.busy = [], set()
        await asyncio.gather(*(client.quit(QUIT_SECONDS) for client in clients))

    async def _start(self) -> EngineClient:
        entrant = self.entrant
        transport: Transport
        if entrant.external:
            transport = await SubprocessTransport.start(list(entrant.command))
            dialect = DIALECTS[entrant.protocol]()
            options = dict(entrant.options)
        else:
            transport = SessionTransport(self.backend)
            dialect = DIALECTS["ubao"]()
            options = builtin_options(entrant)
        client = await EngineClient.start(transport, dialect, HANDSHAKE_SECONDS)
        if options:
            await client.configure(options)
        return client


def builtin_options(entrant: Entrant) -> dict[str, str]:
    """The built-in search's settings as options of ubao's stdio protocol."""
    spec = entrant.spec
    return {
        "Algorithm": spec.algorithm,
        "Eval": spec.evaluation or "<empty>",
        "Hash": str(spec.hash_mb),
        "Exact": "true" if spec.exact else "false",
        "ProbCut": "true" if spec.selective else "false",
        "Threads": str(spec.threads),
        "Book": "true" if spec.book else "false",
    }


class Forfeit(Exception):
    """The engine to move loses the game: `reason` as a record says it; `failed` when the engine
    failed (it is then not asked again), not when it merely lost on time."""

    def __init__(self, reason: str, message: str, failed: bool) -> None:
        super().__init__(message)
        self.reason = reason
        self.failed = failed


async def play_game(
    plan: Plan, scheduled: ScheduledGame, clients: Sequence[EngineClient]
) -> Played:
    """One game from its opening to the end: `clients` play side 0 and side 1."""
    rules = plan.game
    opening = plan.opening(scheduled)
    position = rules.start()
    for text in opening:
        position = rules.play_text(position, text)
    moves = list(opening)
    entrants = [plan.entrants[i] for i in scheduled.seats]
    clocks = [None if e.clock is None else float(e.clock.base_ms) for e in entrants]
    for side, client in enumerate(clients):
        try:
            await client.new_game()
        except EngineFailure as failure:
            message = _failure(entrants[side], failure)
            return _played(scheduled, 1 - side, "engine_failure", None, moves, message, side)
    while (outcome := rules.outcome(position)) is None:
        if plan.max_plies is not None and len(moves) - len(opening) >= plan.max_plies:
            return _played(scheduled, None, "ply_limit", None, moves)
        side = rules.to_move(position)
        try:
            text = await _move(plan, rules, position, moves, side, entrants, clocks, clients[side])
            move = rules.parse_move(position, text)
        except GameError as error:
            illegal = f"the engine {entrants[side].name!r} answered {text!r}: {error}"
            return _played(scheduled, 1 - side, "engine_failure", None, moves, illegal, side)
        except Forfeit as forfeit:
            if not forfeit.failed:
                return _played(scheduled, 1 - side, forfeit.reason, None, moves)
            return _played(scheduled, 1 - side, forfeit.reason, None, moves, str(forfeit), side)
        moves.append(rules.format_move(position, move))
        position = rules.play(position, move)
    return _played(scheduled, outcome.winner, outcome.reason, outcome.score, moves)


async def _move(
    plan: Plan,
    rules: Game[Any, Any],
    position: Any,
    moves: Sequence[str],
    side: int,
    entrants: Sequence[Entrant],
    clocks: list[float | None],
    client: EngineClient,
) -> str:
    """The engine's move text under its limits, its clock counted; Forfeit when it loses."""
    entrant = entrants[side]
    spec = entrant.spec
    left = clocks[side]
    limits = move_limits(entrants, clocks, side)
    if left is not None:
        budget_s: float | None = max(left + plan.clock_margin_ms, 0) / 1000
    elif spec.time_ms is not None:
        budget_s = spec.time_ms / 1000 + MOVE_MARGIN_SECONDS
    else:
        budget_s = None  # a depth alone: as long as it searches
    # The start written out, as `match` always sent it: an engine need not know `startpos`.
    start = rules.format_position(rules.start())
    asked = EnginePosition(rules.name, dict(rules.options), start, tuple(moves), side)
    started = time.monotonic()
    try:
        answer = await client.play(
            asked, limits, budget_s=budget_s, stop_grace_s=STOP_GRACE_SECONDS
        )
    except EngineFailure as failure:
        stopped = budget_s is not None and time.monotonic() - started >= budget_s
        if not stopped:
            raise Forfeit("engine_failure", _failure(entrant, failure), True) from None
        assert budget_s is not None
        message = (
            f"the engine {entrant.name!r} did not answer within {budget_s:g} s of its search "
            f"({describe(limits)}), nor within {STOP_GRACE_SECONDS:g} s of stop"
        )
        raise Forfeit("timeout" if left is not None else "engine_failure", message, True) from None
    if left is not None:
        spent = (time.monotonic() - started) * 1000
        if spent > left + plan.clock_margin_ms:
            raise Forfeit(
                "timeout",
                f"the engine {entrant.name!r} lost on time ({spent:.0f} ms, {left:.0f} ms left)",
                False,
            )
        assert entrant.clock is not None
        clocks[side] = left - spent + entrant.clock.increment_ms
    if answer.move is None:
        raise Forfeit("engine_failure", f"the engine {entrant.name!r} answered no move", True)
    return answer.move


def move_limits(entrants: Sequence[Entrant], clocks: Sequence[float | None], side: int) -> Limits:
    """What `side`'s engine is asked to search under: its depth, its time per move, and the
    clocks only for an engine on a clock (one given the other side's alone would read its own
    as empty and move at once)."""
    spec = entrants[side].spec
    increments = [
        0 if entrant.clock is None else entrant.clock.increment_ms for entrant in entrants
    ]
    return Limits(
        depth=spec.depth,
        time_ms=None if spec.time_ms is None else max(1, round(spec.time_ms)),
        clocks=(None, None) if clocks[side] is None else (_ms(clocks[0]), _ms(clocks[1])),
        increments=(increments[0], increments[1]),
    )


def describe(limits: Limits) -> str:
    """A search's limits in words: `depth 6`, `250 ms a move`, `clocks 9.5 s and 10 s +0.1 s`."""
    parts = []
    if limits.depth is not None:
        parts.append(f"depth {limits.depth}")
    if limits.time_ms is not None:
        parts.append(f"{limits.time_ms} ms a move")
    if limits.clocks != (None, None):
        clocks = " and ".join("-" if ms is None else f"{ms / 1000:g} s" for ms in limits.clocks)
        parts.append(f"clocks {clocks}")
    return ", ".join(parts)


def _ms(clock: float | None) -> int | None:
    return None if clock is None else max(0, round(clock))


def _failure(entrant: Entrant, failure: EngineFailure) -> str:
    return f"the engine {entrant.name!r}: {failure}"


def _played(
    scheduled: ScheduledGame,
    winner: int | None,
    reason: str,
    score: tuple[int, int] | None,
    moves: Sequence[str],
    failure: str | None = None,
    failed_side: int | None = None,
) -> Played:
    result = GameResult(scheduled.number, scheduled.seats, winner, reason, score, len(moves))
    return Played(result, tuple(moves), failure, failed_side)


OnGame = Callable[[GameResult, Sequence[GameResult]], None]
"""Told of each game played: its result and every result so far."""


async def run_tournament(
    plan: Plan,
    folder: Path | None = None,
    concurrency: int = 1,
    backend: str | None = None,
    on_game: OnGame | None = None,
) -> list[GameResult]:
    """Play the plan's games not yet in `folder` (all of them without one), `concurrency` at a
    time, and return every game's result in the schedule's order. TournamentStopped when an
    engine fails and the plan does not recover: the games finished are kept."""
    planned = plan.schedule()
    done: dict[int, GameResult] = {}
    if folder is not None:
        claim(folder, plan.settings())
        done = finished_games(folder, plan.game.name, planned, plan.entrants)
    waiting = [scheduled for scheduled in planned if scheduled.number not in done]
    engines = [Engines(entrant, backend) for entrant in plan.entrants]

    async def worker() -> None:
        while waiting:
            scheduled = waiting.pop(0)
            played = await _play_scheduled(plan, scheduled, engines)
            done[scheduled.number] = played.result
            if folder is not None:
                save_game(folder, _record(plan, scheduled, played), scheduled.number)
                save_tables(folder, plan.names, _ordered(done), len(planned))
            if on_game is not None:
                on_game(played.result, _ordered(done))
            if played.failure is not None and not plan.recover:
                raise TournamentStopped(played.failure)

    try:
        async with asyncio.TaskGroup() as group:
            for _ in range(min(concurrency, len(waiting))):
                group.create_task(worker())
    except BaseExceptionGroup as group:  # the first to fail stops the others: its error
        raise group.exceptions[0] from None
    finally:
        await asyncio.gather(*(entrant.close() for entrant in engines))
    if folder is not None:
        save_tables(folder, plan.names, _ordered(done), len(planned))
    return _ordered(done)


async def _play_scheduled(
    plan: Plan, scheduled: ScheduledGame, engines: Sequence[Engines]
) -> Played:
    """Take the two engines, play, give them back (a failed one is killed instead). An engine
    that cannot be started loses the game as one that fails in it does."""
    clients: list[EngineClient] = []
    for side, entrant in enumerate(scheduled.seats):
        try:
            clients.append(await engines[entrant].take())
        except (EngineFailure, EngineGone) as error:
            for taken, client in zip(scheduled.seats, clients, strict=False):
                engines[taken].give_back(client)
            name = plan.entrants[entrant].name
            failure = f"the engine {name!r} did not start: {error}"
            return _played(scheduled, 1 - side, "engine_failure", None, [], failure)
    played = await play_game(plan, scheduled, clients)
    for side, (entrant, client) in enumerate(zip(scheduled.seats, clients, strict=True)):
        if side == played.failed_side:
            await engines[entrant].discard(client)
        else:
            engines[entrant].give_back(client)
    return played


def _ordered(done: Mapping[int, GameResult]) -> list[GameResult]:
    return [done[number] for number in sorted(done)]


def _record(plan: Plan, scheduled: ScheduledGame, played: Played) -> Record:
    return record_of(
        plan.game.name,
        plan.game.options,
        scheduled,
        plan.entrants,
        played.moves,
        played.result,
        len(plan.opening(scheduled)),
        played.failure,
    )


def check_entrants(entrants: Iterable[Entrant]) -> None:
    """Refuse two entrants of one name (the records and tables tell them apart by it) and a
    dialect the library does not speak."""
    seen: set[str] = set()
    for entrant in entrants:
        if entrant.name in seen:
            raise ValueError(f"two engines are named {entrant.name!r}: give each a name=")
        if entrant.protocol not in DIALECTS:
            raise ValueError(
                f"proto={entrant.protocol}: the dialects are {', '.join(sorted(DIALECTS))}"
            )
        seen.add(entrant.name)
