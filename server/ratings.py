"""Ratings as lichess keeps them: Glicko-2 (server/glicko2.py) in pools of one game and one
speed, each rated game a rating period of its own, the deviation bounded, a rating provisional
while its deviation is high (docs/ratings.md). Pure: the store keeps what a rated game changed
in the same commit as the game's result (`RatedGame`), and the core reads standings back
through `RatingBook`, which remembers what this node rated since (the store may not have it yet).

Each rating is a function of the rated results in the order they were stored: `replay` gives
it, and the tests check the store against it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple, Protocol

from ubao.protocol import SPEED_NAMES, ClockSpec, PoolRating, RatedResult, RatingChange, Result
from ubao.server.glicko2 import Outcome, Rating, update

TAU = 0.75
"""The system constant (the paper's τ): how fast a volatility may change. lichess's value;
Glickman suggests 0.3 to 1.2."""
DEFAULT = Rating(1500.0, 500.0, 0.09)
"""A player's rating before their first rated game in a pool (lichess's)."""
MIN_RD = 45.0
MAX_RD = 500.0
"""lichess's bounds on the deviation: never so sure that a rating stops moving, never less
sure than a newcomer."""
MAX_VOLATILITY = 0.1
PROVISIONAL_RD = 110.0
"""A rating whose deviation is above this is provisional, shown with a `?` (lichess's)."""

MOVES_ESTIMATE = 40
"""lichess's estimate of a game's moves per player, to turn a clock into a duration."""
SPEEDS: tuple[tuple[str, int], ...] = (
    ("bullet", 180),
    ("blitz", 480),
    ("rapid", 1500),
)
"""A clocked game's speed by its estimated duration in seconds (initial + 40 × increment):
under 180 bullet, under 480 blitz, under 1500 rapid, else classical (lichess's bounds)."""
CLASSICAL = "classical"
UNTIMED = "untimed"

UNRATED_REASONS = frozenset({"aborted", "cancelled", "expired"})
"""Games that end so were never played: rated or not, they change no rating."""


def speed_of(clock: ClockSpec | None) -> str:
    """The speed of a time control; a game without a clock is `untimed`."""
    if clock is None:
        return UNTIMED
    seconds = (clock.initial_ms + MOVES_ESTIMATE * clock.increment_ms) / 1000
    return next((name for name, under in SPEEDS if seconds < under), CLASSICAL)


def pool_of(game: str, clock: ClockSpec | None) -> str:
    """The pool a game is rated in: the game's name and its speed. A game's variants (Kalah's
    pits and seeds) share it."""
    return f"{game}/{speed_of(clock)}"


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's rating in one pool and record there."""

    rating: Rating = DEFAULT
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def provisional(self) -> bool:
        return self.rating.rd > PROVISIONAL_RD

    def after(self, opponent: Rating, score: float) -> Standing:
        """This standing after one game against `opponent` (as rated before it)."""
        new = update(self.rating, [Outcome(opponent, score)], TAU)
        bounded = Rating(
            new.rating, min(MAX_RD, max(MIN_RD, new.rd)), min(MAX_VOLATILITY, new.volatility)
        )
        return replace(
            self,
            rating=bounded,
            games=self.games + 1,
            wins=self.wins + (score == 1),
            draws=self.draws + (score == 0.5),
            losses=self.losses + (score == 0),
        )

    def shown(self, player: str, pool: str) -> PoolRating:
        return PoolRating(
            player=player,
            pool=pool,
            rating=round(self.rating.rating),
            rd=round(self.rating.rd),
            games=self.games,
            wins=self.wins,
            draws=self.draws,
            losses=self.losses,
            provisional=self.provisional,
        )


class RatedGame(NamedTuple):
    """What a rated game's end changes: the store writes it with the game's result, once per
    game id."""

    game_id: str
    pool: str
    finished: int
    """Wall-clock milliseconds since the epoch."""
    players: tuple[str, str]
    """The accounts of seat 0 and seat 1."""
    score: float
    """Seat 0's: 1, 0.5 or 0."""
    before: tuple[Standing, Standing]
    after: tuple[Standing, Standing]

    def changes(self) -> tuple[RatingChange, RatingChange]:
        """What `over` tells of it."""
        first, second = (
            RatingChange(
                player=self.players[seat],
                pool=self.pool,
                before=round(self.before[seat].rating.rating),
                after=round(self.after[seat].rating.rating),
                rd=round(self.after[seat].rating.rd),
                provisional=self.after[seat].provisional,
            )
            for seat in (0, 1)
        )
        return first, second

    def seen_by(self, seat: int) -> RatedResult:
        """The game from one seat's side."""
        score = self.score if seat == 0 else 1 - self.score
        return RatedResult(
            game_id=self.game_id,
            pool=self.pool,
            finished=self.finished,
            opponent=self.players[1 - seat],
            outcome="win" if score == 1 else "draw" if score == 0.5 else "loss",
            before=round(self.before[seat].rating.rating),
            after=round(self.after[seat].rating.rating),
        )


def rated_game(
    game_id: str,
    pool: str,
    finished: int,
    players: tuple[str, str],
    standings: tuple[Standing, Standing],
    result: Result,
) -> RatedGame:
    """Both players' standings after the game: each game is a rating period of its own, both
    players rated against the other as rated before it (lichess)."""
    score = 0.5 if result.winner is None else 1.0 if result.winner == 0 else 0.0
    first, second = standings
    after = (first.after(second.rating, score), second.after(first.rating, 1 - score))
    return RatedGame(game_id, pool, finished, players, score, standings, after)


def replay(games: Iterable[RatedGame]) -> dict[tuple[str, str], Standing]:
    """Every (pool, player)'s standing after `games`, in their order, from the start: what the
    store's ratings must be."""
    standings: dict[tuple[str, str], Standing] = {}
    for game in games:
        keys = [(game.pool, player) for player in game.players]
        before = (standings.get(keys[0], Standing()), standings.get(keys[1], Standing()))
        winner = None if game.score == 0.5 else 0 if game.score == 1 else 1
        after = rated_game(
            game.game_id, game.pool, game.finished, game.players, before, Result(winner, "", None)
        ).after
        standings[keys[0]], standings[keys[1]] = after
    return standings


class RatingStore(Protocol):
    """What `RatingBook` reads of a store (server/stores/protocol.py's `GameStore` has it all)."""

    def standing(self, pool: str, player: str) -> Standing | None:
        """The player's standing in the pool as stored, or None if they have none."""

    def leaderboard(self, pools: Sequence[str], limit: int) -> list[tuple[str, str, Standing]]:
        """(pool, player, standing) of the best `limit` in each of `pools`, best first."""

    def standings(self, player: str) -> list[tuple[str, Standing]]:
        """(pool, standing) of every pool the player is rated in."""

    def rated_games(self, player: str | None, limit: int) -> list[RatedGame]:
        """The player's latest `limit` rated games, the latest first (None: everybody's, the
        whole log in the order it was stored, for a replay)."""


class RatingBook:
    """The ratings as the core reads them: the store's, and over them what this node rated
    since it started (kept in the store's next commits, which the core does not wait for)."""

    def __init__(self, store: RatingStore) -> None:
        self.store = store
        self.rated: dict[tuple[str, str], Standing] = {}
        """What this node rated, by (pool, player): newer than the store until committed."""

    def standing(self, pool: str, player: str) -> Standing:
        """The player's latest standing: this node's, unless the store has more games (in a
        cluster, another node rated the player since)."""
        stored = self.store.standing(pool, player) or Standing()
        known = self.rated.get((pool, player))
        return known if known is not None and known.games >= stored.games else stored

    def rate(
        self,
        game_id: str,
        pool: str,
        finished: int,
        players: tuple[str, str],
        result: Result,
    ) -> RatedGame | None:
        """The rated game's changes (None if its end was no game: aborted, cancelled),
        remembered for the next game of either player."""
        if result.reason in UNRATED_REASONS:
            return None
        standings = (self.standing(pool, players[0]), self.standing(pool, players[1]))
        game = rated_game(game_id, pool, finished, players, standings, result)
        for player, after in zip(players, game.after, strict=True):
            self.rated[(pool, player)] = after
        return game

    def leaderboard(self, game: str, speed: str | None, limit: int) -> list[PoolRating]:
        """The best `limit` of each pool of `game` (of one `speed`, if given), best first."""
        pools = [f"{game}/{speed}"] if speed else [f"{game}/{name}" for name in SPEED_NAMES]
        rows = {
            (pool, player): standing
            for pool, player, standing in self.store.leaderboard(pools, limit)
        }
        for key, known in self.rated.items():
            stored = rows.get(key)
            if key[0] in pools and (stored is None or known.games >= stored.games):
                rows[key] = known
        ordered = sorted(rows.items(), key=lambda row: (-row[1].rating.rating, row[0][1]))
        shown: list[PoolRating] = []
        for pool in pools:
            shown += [s.shown(player, pool) for (p, player), s in ordered if p == pool][:limit]
        return shown

    def card(self, player: str, limit: int) -> tuple[list[PoolRating], list[RatedResult]]:
        """The player's rating in each pool, and their latest `limit` rated games."""
        pools = dict(self.store.standings(player))
        for (pool, name), known in self.rated.items():
            if name == player and (pool not in pools or known.games >= pools[pool].games):
                pools[pool] = known
        ratings = [pools[pool].shown(player, pool) for pool in sorted(pools)]
        recent = [
            game.seen_by(game.players.index(player))
            for game in self.store.rated_games(player, limit)
        ]
        return ratings, recent
