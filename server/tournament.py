"""A tournament on the server, pure: its lifecycle in one table, its pairings (round-robin,
Swiss, arena), and its standings, tiebreaks, crosstable and performance ratings, all derived
from the results of its games as the store holds them (docs/tournaments-server.md).

Nothing here counts points as games end: `standings` reads every pairing's result each time,
so the standings cannot drift from the stored games. The state that is kept is the entrants
and the pairings made (each with the id of its game); what to do next is `next_steps`,
returned as data (games to start, a round announced, the end) for server/tournaments.py to
carry out.

    open --start--> running --finish--> finished
      |                                    ^
      +--------------cancel----------------+ (cancelled)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ubao.protocol import ErrorCode
from ubao.server.lifecycle import Rejected

Format = Literal["round_robin", "swiss", "arena"]
Scoring = Literal["standard", "kgp"]
"""standard: 1 a win, ½ a draw; kgp: 2 a win, 1 a draw (go-kgp's); the arena always scores 2
and 1, doubled during a streak."""
TournamentStatus = Literal["open", "running", "finished", "cancelled"]
TournamentAction = Literal["enter", "start", "pair", "finish", "cancel"]

TRANSITIONS: dict[tuple[TournamentStatus, TournamentAction], TournamentStatus] = {
    ("open", "enter"): "open",
    ("open", "start"): "running",
    ("open", "cancel"): "cancelled",
    ("running", "pair"): "running",
    ("running", "finish"): "finished",
    ("running", "cancel"): "cancelled",
}
"""Every status change of a tournament; anything else is refused (`advance`)."""

REFUSALS: dict[TournamentAction, str] = {
    "enter": "tournament {tid} is no longer open for entries",
    "start": "tournament {tid} has already started or ended",
    "pair": "tournament {tid} is not running",
    "finish": "tournament {tid} is not running",
    "cancel": "tournament {tid} has already ended",
}

Outcome = float
"""Seat 0's share of a game: 1, 0.5 or 0."""

DEFAULT_RATING = 1500.0
"""An entrant without a rating counts as this for performance ratings (Glicko-2's start)."""


def advance(tid: str, status: TournamentStatus, action: TournamentAction) -> TournamentStatus:
    """The status after `action`, or Rejected if `status` does not allow it."""
    after = TRANSITIONS.get((status, action))
    if after is None:
        raise Rejected(ErrorCode.TOURNAMENT_CLOSED, REFUSALS[action].format(tid=tid))
    return after


@dataclass(frozen=True, slots=True)
class Entrant:
    """Who plays: an account (a person or a bot client), or a server bot (`bot`: its settings
    as a seat spec holds them, `depth`, `algorithm`, `eval`)."""

    name: str
    account: str | None = None
    """The canonical name of the account, for an entrant that plays over the wire."""
    depth: int | None = None
    """A server bot: its search depth (None: not a server bot)."""
    algorithm: str | None = None
    eval: str | None = None
    rating: float = DEFAULT_RATING
    """Its rating when the tournament started, for performance ratings and Swiss seeding."""

    @property
    def is_server_bot(self) -> bool:
        return self.depth is not None


@dataclass(frozen=True, slots=True)
class Pairing:
    """One game of the tournament: `white` has seat 0, `black` seat 1 (None: `white` has a
    bye); `game_id` once its game is made."""

    round: int
    white: int
    black: int | None
    game_id: str | None = None


@dataclass(frozen=True, slots=True)
class Settings:
    """What the tournament is, as `tournament_new` asks for it."""

    name: str
    game: str
    options: Mapping[str, object]
    format: Format = "round_robin"
    double: bool = False
    """Round-robin: every pair twice, colours swapped."""
    rounds: int = 0
    """Swiss: how many rounds (0: enough for a winner, ⌈log2 n⌉ + 1)."""
    minutes: int = 0
    """Arena: how long it pairs entrants."""
    scoring: Scoring = "standard"
    rated: bool = False
    concurrency: int = 4
    """At most this many of its games at once."""
    pace_ms: int = 0


@dataclass(slots=True)
class Tournament:
    """The kept state: settings, entrants, pairings made, status and times."""

    tid: str
    settings: Settings
    entrants: list[Entrant] = field(default_factory=list)
    pairings: list[Pairing] = field(default_factory=list)
    status: TournamentStatus = "open"
    started_ms: int = 0
    """The wall clock at `start` (the arena's end is `minutes` later)."""

    def enter(self, entrant: Entrant) -> None:
        self.status = advance(self.tid, self.status, "enter")
        if any(e.name.casefold() == entrant.name.casefold() for e in self.entrants):
            message = f"{entrant.name!r} has already entered tournament {self.tid}"
            raise Rejected(ErrorCode.ALREADY_ENTERED, message)
        self.entrants.append(entrant)

    def start(self, wall_ms: int) -> None:
        if len(self.entrants) < 2:
            raise Rejected(ErrorCode.TOURNAMENT_CLOSED, f"tournament {self.tid} needs 2 entrants")
        self.status = advance(self.tid, self.status, "start")
        self.started_ms = wall_ms

    def cancel(self) -> None:
        self.status = advance(self.tid, self.status, "cancel")

    @property
    def rounds(self) -> int:
        """How many rounds it has (an arena: as many as it makes)."""
        n = len(self.entrants)
        if n < 2:
            return 0  # not pairable yet
        match self.settings.format:
            case "round_robin":
                return (n - 1 + n % 2) * (2 if self.settings.double else 1)
            case "swiss":
                return self.settings.rounds or min(n - 1, (n - 1).bit_length() + 1)
            case _:
                return max((p.round for p in self.pairings), default=0)


# -- what to do next ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StartGame:
    """Make the game of pairing number `index` (its `game_id` is then stored)."""

    index: int


@dataclass(frozen=True, slots=True)
class RoundPaired:
    """A round's pairings were made (announced to subscribers)."""

    round: int


@dataclass(frozen=True, slots=True)
class Finished:
    """Every game is played (or the arena's time is up and its games are over)."""


Step = StartGame | RoundPaired | Finished


def next_steps(t: Tournament, results: Mapping[str, Outcome | None], wall_ms: int) -> list[Step]:
    """What a running tournament does now, given its games' results (None: not over yet):
    pair the next round once the last is over (an arena: pair whoever is free), start pairings
    not yet started within the concurrency limit, finish when nothing is left. Pairings are
    added to `t.pairings` (the caller saves `t`)."""
    if t.status != "running":
        return []
    steps: list[Step] = []
    playing = [p for p in t.pairings if p.game_id is not None and results.get(p.game_id) is None]
    playing = [p for p in playing if p.black is not None]
    unstarted = [i for i, p in enumerate(t.pairings) if p.game_id is None and p.black is not None]
    if t.settings.format == "arena":
        if wall_ms < t.started_ms + t.settings.minutes * 60_000:
            busy = {e for p in playing for e in (p.white, p.black)}
            busy |= {e for i in unstarted for e in (t.pairings[i].white, t.pairings[i].black)}
            made = arena_pairs(t, results, busy)
            if made:
                number = t.rounds + 1
                first = len(t.pairings)
                t.pairings += [Pairing(number, w, b) for w, b in made]
                unstarted += range(first, len(t.pairings))
                t.status = advance(t.tid, t.status, "pair")
                steps.append(RoundPaired(number))
        elif not playing:
            t.pairings = [p for p in t.pairings if p.game_id is not None]
            t.status = advance(t.tid, t.status, "finish")
            return [Finished()]
    elif not playing and not unstarted:
        done = max((p.round for p in t.pairings), default=0)
        if done >= t.rounds:
            t.status = advance(t.tid, t.status, "finish")
            return [Finished()]
        made_round = (
            round_robin_round(len(t.entrants), done + 1, t.settings.double)
            if t.settings.format == "round_robin"
            else swiss_round(t, results, done + 1)
        )
        first = len(t.pairings)
        t.pairings += made_round
        unstarted = [i for i in range(first, len(t.pairings)) if t.pairings[i].black is not None]
        t.status = advance(t.tid, t.status, "pair")
        steps.append(RoundPaired(done + 1))
    room = max(0, t.settings.concurrency - len(playing))
    steps += [StartGame(i) for i in unstarted[:room]]
    return steps


# -- pairings -------------------------------------------------------------------------------------


def round_robin_round(n: int, number: int, double: bool) -> list[Pairing]:
    """Round `number` (from 1) of a round-robin of `n` entrants, by the circle method (Berger
    tables): every pair meets once in n - 1 rounds (n rounds with a bye when n is odd), each
    entrant's colours alternating as far as they can; a double round-robin plays it again with
    the colours swapped."""
    size = n + n % 2  # an odd field gets a phantom entrant: meeting it is a bye
    cycle = size - 1
    swapped = double and number > cycle
    r = (number - 1) % cycle
    ring = [size - 1] + [(r + k) % cycle for k in range(cycle)]
    pairs = []
    for k in range(size // 2):
        a, b = ring[k], ring[size - 1 - k]
        if k == 0 and r % 2 == 1:
            a, b = b, a  # the fixed entrant alternates colours round by round
        if swapped:
            a, b = b, a
        pairs.append((a, b))
    made = []
    for a, b in pairs:
        if a == n or b == n:  # the phantom: the other has a bye
            made.append(Pairing(number, b if a == n else a, None))
        else:
            made.append(Pairing(number, a, b))
    return made


def swiss_round(t: Tournament, results: Mapping[str, Outcome | None], number: int) -> list[Pairing]:
    """Round `number` of a Swiss (Dutch-style): entrants ranked by score then seed; with an odd
    field the lowest-ranked who has had no bye gets one; then each score group's top half meets
    its bottom half, entrants that met before are never paired again (backtracking, drawing
    from the next group when a group cannot pair), and the one who had black more often gets
    white."""
    table = standings(t, results)
    points = {row.entrant: row.points for row in table}
    ranked = sorted(range(len(t.entrants)), key=lambda e: (-points[e], -t.entrants[e].rating, e))
    met = {frozenset((p.white, black)) for p in t.pairings if (black := p.black) is not None}
    byes = {p.white for p in t.pairings if p.black is None}
    made: list[Pairing] = []
    if len(ranked) % 2:
        bye = next((e for e in reversed(ranked) if e not in byes), ranked[-1])
        ranked.remove(bye)
        made.append(Pairing(number, bye, None))
    pairs = _pair_groups(ranked, points, met)
    if pairs is None:  # everybody has met everybody it could: allow a repeat rather than stop
        pairs = _pair_groups(ranked, points, set())
    assert pairs is not None  # an even list always pairs when nothing is forbidden
    balance = _colour_balance(t)
    for a, b in pairs:
        white, black = (a, b) if balance[a] <= balance[b] else (b, a)
        made.append(Pairing(number, white, black))
    return made


def _pair_groups(
    ranked: list[int], points: Mapping[int, float], met: set[frozenset[int]]
) -> list[tuple[int, int]] | None:
    """Pairs for `ranked` (even, best first) with no pair in `met`, or None: the first entrant
    takes the opponent the Dutch system prefers (the one half its score group below it), then
    the others of its group, then the groups below, and the rest is paired recursively."""
    if not ranked:
        return []
    first, rest = ranked[0], ranked[1:]
    group = [e for e in ranked if points[e] == points[first]]
    half = len(group) // 2
    dutch = group[half] if half and group[half] in rest else None
    order = ([dutch] if dutch is not None else []) + [e for e in rest if e != dutch]
    for other in order:
        if frozenset((first, other)) in met:
            continue
        tail = _pair_groups([e for e in rest if e != other], points, met)
        if tail is not None:
            return [(first, other), *tail]
    return None


def _colour_balance(t: Tournament) -> list[int]:
    """Per entrant: games with white less games with black."""
    balance = [0] * len(t.entrants)
    for p in t.pairings:
        if p.black is not None:
            balance[p.white] += 1
            balance[p.black] -= 1
    return balance


def arena_pairs(
    t: Tournament, results: Mapping[str, Outcome | None], busy: set[int | None]
) -> list[tuple[int, int]]:
    """Pairs of free entrants for an arena: ranked by points, each with the nearest free one
    below it that was not its last opponent, white to whoever had fewer whites. Two whose only
    choice is each other again wait while others play (someone else comes free); with nobody
    playing they meet again rather than wait for ever."""
    table = standings(t, results)
    order = [row.entrant for row in table if row.entrant not in busy]
    last: dict[int, int] = {}
    for p in t.pairings:
        if p.black is not None:
            last[p.white], last[p.black] = p.black, p.white
    balance = _colour_balance(t)
    made = []
    playing = any(e is not None for e in busy)
    while len(order) >= 2:
        first = order.pop(0)
        other = next((e for e in order if last.get(first) != e and last.get(e) != first), None)
        if other is None and playing:
            continue  # waits for another to come free
        other = order[0] if other is None else other
        order.remove(other)
        white, black = (first, other) if balance[first] <= balance[other] else (other, first)
        made.append((white, black))
    return made


# -- standings ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Row:
    """One entrant's line of the standings."""

    entrant: int
    points: float
    games: int
    wins: int
    draws: int
    losses: int
    byes: int
    sonneborn_berger: float
    buchholz: float
    performance: int
    """Average rating of the opponents met, plus 400 × (wins − losses) / games."""


def game_points(settings: Settings, share: float, streak: bool = False) -> float:
    """Points for a game's `share` (1, ½, 0), by the tournament's scoring."""
    if settings.format == "arena":
        return share * 4 * (2 if streak else 1) / 2
    return share * (2 if settings.scoring == "kgp" else 1)


def scores(t: Tournament, results: Mapping[str, Outcome | None]) -> list[list[tuple[int, float]]]:
    """Per entrant, its finished games in the order they were paired: (opponent or -1 for a
    bye, its share)."""
    played: list[list[tuple[int, float]]] = [[] for _ in t.entrants]
    for p in t.pairings:
        if p.black is None:
            if t.settings.format == "swiss":  # a round-robin's byes are everybody's: no points
                played[p.white].append((-1, 1.0))
            continue
        share = results.get(p.game_id) if p.game_id is not None else None
        if share is None:
            continue
        played[p.white].append((p.black, share))
        played[p.black].append((p.white, 1.0 - share))
    return played


def points_of(t: Tournament, games: Sequence[tuple[int, float]]) -> float:
    """An entrant's points; in an arena a win after two wins in a row starts a streak in which
    every game scores double, until a game that is not a win."""
    total = 0.0
    wins_in_row = 0
    for _, share in games:
        streak = t.settings.format == "arena" and wins_in_row >= 2
        total += game_points(t.settings, share, streak)
        wins_in_row = wins_in_row + 1 if share == 1.0 else 0
    return total


def standings(t: Tournament, results: Mapping[str, Outcome | None]) -> list[Row]:
    """The standings, best first: points, then the format's tiebreak (Sonneborn-Berger for a
    round-robin, Buchholz for a Swiss and an arena), then the other, then wins, then the order
    of entry."""
    played = scores(t, results)
    points = [points_of(t, games) for games in played]
    rows = []
    for e, games in enumerate(played):
        real = [(o, s) for o, s in games if o >= 0]
        wins = sum(1 for _, s in real if s == 1.0)
        losses = sum(1 for _, s in real if s == 0.0)
        sb = sum(points[o] * s for o, s in real)
        buchholz = sum(points[o] for o, _ in real)
        mean = sum(t.entrants[o].rating for o, _ in real) / len(real) if real else 0.0
        performance = round(mean + 400 * (wins - losses) / len(real)) if real else 0
        rows.append(
            Row(
                e,
                points[e],
                len(real),
                wins,
                len(real) - wins - losses,
                losses,
                len(games) - len(real),
                sb,
                buchholz,
                performance,
            )
        )
    by_sb = t.settings.format == "round_robin"

    def rank(row: Row) -> tuple[float, ...]:
        first, second = (
            (row.sonneborn_berger, row.buchholz) if by_sb else (row.buchholz, row.sonneborn_berger)
        )
        return (-row.points, -first, -second, -row.wins, row.entrant)

    return sorted(rows, key=rank)


MARKS = {1.0: "1", 0.5: "½", 0.0: "0"}


def crosstable(t: Tournament, results: Mapping[str, Outcome | None]) -> list[list[str]]:
    """Row `i`, column `j`: `i`'s results against `j`, in order (`1`, `½`, `0`, `*` for a game
    being played), each game one character."""
    cells = [["" for _ in t.entrants] for _ in t.entrants]
    for p in t.pairings:
        if p.black is None or p.game_id is None:
            continue
        share = results.get(p.game_id)
        for me, other, mine in ((p.white, p.black, share), (p.black, p.white, None)):
            if share is None:
                cells[me][other] += "*"
            else:
                cells[me][other] += MARKS[share if mine is not None else 1.0 - share]
    return cells
