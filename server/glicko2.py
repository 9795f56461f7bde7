"""Glicko-2, as Glickman's paper "Example of the Glicko-2 system" (2013) writes it: a rating,
its deviation (how uncertain the rating is) and its volatility (how erratic the player is), and
the update over one rating period. Pure arithmetic, no policy: which games make a period, the
system constant and the bounds lichess puts on the deviation are the ratings' (server/ratings.py).

Written from the paper's steps 1 to 8, numbered as there; tests/server/test_glicko2.py checks the
paper's worked example."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178
"""Step 2: ratings and deviations on the Glicko-2 scale are the Glicko ones divided by this."""
CENTRE = 1500.0
CONVERGENCE = 0.000001
"""Step 5: the volatility iteration stops when its interval is this narrow (the paper's ε)."""


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating, rating deviation (RD) and volatility, on the Glicko scale (1500 ± RD)."""

    rating: float
    rd: float
    volatility: float


@dataclass(frozen=True, slots=True)
class Outcome:
    """One game of a rating period: the opponent as rated before the period, and the score
    (1 a win, 0.5 a draw, 0 a loss)."""

    opponent: Rating
    score: float


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the root of the paper's f by the Illinois algorithm (a regula falsi)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    low = a
    if delta * delta > phi * phi + v:
        high = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > CONVERGENCE:
        middle = low + (low - high) * f_low / (f_high - f_low)
        f_middle = f(middle)
        if f_middle * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2
        high, f_high = middle, f_middle
    return math.exp(low / 2)


def update(player: Rating, games: Sequence[Outcome], tau: float) -> Rating:
    """The player's rating after a rating period with `games` (none: only the deviation grows,
    step 6 alone). `tau`, the system constant, bounds how fast the volatility may change."""
    mu = (player.rating - CENTRE) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    if not games:
        return Rating(player.rating, math.sqrt(phi * phi + sigma * sigma) * SCALE, sigma)
    # Steps 3 and 4: the estimated variance v and improvement delta.
    inverse_v = 0.0
    improvement = 0.0
    for game in games:
        mu_j = (game.opponent.rating - CENTRE) / SCALE
        phi_j = game.opponent.rd / SCALE
        g = _g(phi_j)
        e = _expected(mu, mu_j, phi_j)
        inverse_v += g * g * e * (1 - e)
        improvement += g * (game.score - e)
    v = 1 / inverse_v
    delta = v * improvement
    new_sigma = _new_volatility(sigma, phi, v, delta, tau)  # step 5
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)  # step 6
    new_phi = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)  # step 7
    new_mu = mu + new_phi * new_phi * improvement
    return Rating(new_mu * SCALE + CENTRE, new_phi * SCALE, new_sigma)  # step 8
