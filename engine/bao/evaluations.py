"""Static evaluations of Bao positions, from South's (player 0's) point of view.

Each is a plain function of a position so that the search can call it without the game object.
The reasoning behind the weights is in docs/bao.md ("Evaluations"); docs/bao.md §19 names the
features: front-row material, capturable pairs, the nyumba and the stock.
"""

from __future__ import annotations

from ubao.engine.bao.rules import (
    HAND,
    NYUMBA,
    OWNED,
    STOCK,
    TO_MOVE,
    Position,
    capture_landings,
    rings,
)


def _threatened(position: Position, player: int) -> list[int]:
    """Seeds in each opponent front hole that `player` could capture if he moved now.

    In namua a capture is a placement in an occupied front hole facing an occupied hole; in
    mtaji it is a first lap of 2..15 seeds ending in such a hole. Later laps are ignored.
    """
    me, op = rings(position, player)
    if position[STOCK + player]:
        return [op[7 - i] for i in range(8) if me[i] and op[7 - i]]
    return [
        op[7 - landing] for landing in {landing for _, _, landing in capture_landings(me, op, True)}
    ]


def _material(position: Position, player: int) -> int:
    """Seeds a player has on his 16 holes and in stock."""
    start = 16 * player
    return sum(position[start : start + 16]) + position[STOCK + player]


def material(position: Position) -> float:
    """Seed difference: the greedy measure that the §19 self-play experiments used.

    Every capture moves seeds from one side to the other, so this counts captures made."""
    hand = position[HAND] * (1 if position[TO_MOVE] else -1)  # the loser is "to move"
    return float(_material(position, 0) - _material(position, 1) + hand)


def balanced(position: Position) -> float:
    """Material, front-row occupancy, a working nyumba and the captures each side threatens.

    Occupied front holes are both the places captures start from and the guard against losing
    by an empty front row. A functional nyumba (owned, 6+) is worth a safe store of seeds and a
    stop in namua captures. Threats count more for the side to move: he captures first.
    """
    mover = position[TO_MOVE]
    score = material(position)
    for player, sign in ((0, 1.0), (1, -1.0)):
        start = 16 * player
        front = position[start : start + 8]
        occupied = 8 - front.count(0)
        functional = position[OWNED + player] and front[NYUMBA] >= 6
        threats = _threatened(position, player)
        biggest = max(threats, default=0)
        tempo = 0.5 if player == mover else 0.2
        score += sign * (0.5 * occupied + 2.0 * functional + tempo * biggest)
    return score


def front_row(position: Position) -> float:
    """Front-row material at double weight, less what the opponent threatens to take from it.

    The front row is where captured seeds land and what an empty-row loss empties; the back row
    is safe but idle. Seeds in a front hole the opponent can capture next count for nothing.
    """
    score = 0.0
    for player, sign in ((0, 1.0), (1, -1.0)):
        start = 16 * player
        front = sum(position[start : start + 8])
        back = sum(position[start + 8 : start + 16])
        exposed = sum(_threatened(position, 1 - player))
        score += sign * (2.0 * (front - exposed) + back + position[STOCK + player])
    return score


EVALUATIONS = {"balanced": balanced, "material": material, "front_row": front_row}
"""By name; the first is the default."""
