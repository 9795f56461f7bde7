"""Which games a tournament plays, in what order, from which openings (pure).

Every pairing plays its games in pairs from one opening, each engine on each side once, so
neither the side nor the opening favours one; every pairing meets the openings in the same
order. A round-robin pairs every engine with every other; a gauntlet pairs the first engine
with each of the others. Openings are moves from the start in the game's notation: drawn at
random from a seed (a few plies, as `ubao-engine match` always did) or read from a file.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ubao.engine.game import Game, GameError

FORMATS = ("round-robin", "gauntlet")


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game to play."""

    number: int
    """From 1, in the order the schedule plays them."""
    round: int
    """From 1."""
    seats: tuple[int, int]
    """The entrants on side 0 and side 1."""
    opening: int
    """Which opening (an index into the tournament's openings)."""


def pairings(entrants: int, format: str) -> list[tuple[int, int]]:
    """The pairs of entrants that meet: every pair in a round-robin, the first engine against
    each other one in a gauntlet."""
    if format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}")
    if entrants < 2:
        raise ValueError("a tournament needs at least two engines")
    if format == "gauntlet":
        return [(0, other) for other in range(1, entrants)]
    return [(a, b) for a in range(entrants) for b in range(a + 1, entrants)]


def schedule(entrants: int, format: str, rounds: int, games: int) -> list[ScheduledGame]:
    """Round by round, pairing by pairing, `games` games of each pairing per round. A pairing's
    k-th game (counted over all rounds) uses opening k // 2, its first engine on side 0 when k
    is even: a pair of games shares an opening with the sides swapped."""
    planned: list[ScheduledGame] = []
    for round_number in range(rounds):
        for first, second in pairings(entrants, format):
            for game in range(games):
                k = round_number * games + game
                seats = (first, second) if k % 2 == 0 else (second, first)
                planned.append(ScheduledGame(len(planned) + 1, round_number + 1, seats, k // 2))
    return planned


def openings_needed(rounds: int, games: int) -> int:
    """How many distinct openings one pairing's games use."""
    return (rounds * games + 1) // 2


OPENING_ATTEMPTS = 100
"""Random openings drawn for one pair of games before the match gives up: each one that ends
the game is drawn again."""


class OpeningError(ValueError):
    """No opening to play: random plies that always end the game, or a bad openings file."""


Opening = tuple[str, ...]
"""Moves from the start position, in the game's notation."""


def random_opening(game: Game[Any, Any], rng: random.Random, plies: int) -> Opening:
    """`plies` random moves from the start. An opening that ends the game would leave the
    engines nothing to play (its result the dice's), so it is drawn again from the same
    generator (the tournament stays reproducible), at most OPENING_ATTEMPTS times."""
    for _ in range(OPENING_ATTEMPTS):
        position = game.start()
        moves: list[str] = []
        for _ in range(plies):
            legal = game.legal_moves(position)
            if not legal:
                break
            move = rng.choice(legal)
            moves.append(game.format_move(position, move))
            position = game.play(position, move)
        if game.outcome(position) is None:
            return tuple(moves)
    raise OpeningError(
        f"--random-plies {plies}: {OPENING_ATTEMPTS} random openings of {game.describe()} all "
        "ended the game; ask for fewer plies"
    )


def random_openings(game: Game[Any, Any], seed: int, plies: int, count: int) -> list[Opening]:
    """`count` random openings, drawn in turn from one generator seeded with `seed`."""
    rng = random.Random(seed)
    return [random_opening(game, rng, plies) for _ in range(count)]


def read_openings(game: Game[Any, Any], lines: Iterable[str]) -> list[Opening]:
    """The openings of a file: one a line, moves from the start in the game's notation
    separated by spaces; blank lines and lines starting with `#` are skipped. A move that does
    not play, or an opening that ends the game, is refused naming its line."""
    openings: list[Opening] = []
    for number, line in enumerate(lines, 1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        position = game.start()
        for ply, text in enumerate(words, 1):
            try:
                position = game.play_text(position, text)
            except GameError as error:
                raise OpeningError(
                    f"openings line {number}, move {ply} ({text}): {error}"
                ) from None
        if game.outcome(position) is not None:
            raise OpeningError(f"openings line {number}: the opening ends the game")
        openings.append(tuple(words))
    if not openings:
        raise OpeningError("the openings file holds no opening")
    return openings
