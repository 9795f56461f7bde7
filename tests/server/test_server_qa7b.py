"""QA round 7b, server side, in the sans-I/O core with a hand-driven clock: a rematch offer
lapses with its player; each player's first move is
untimed, and a first move that does not come within the grace aborts the game; the game's pace
is in its snapshot and lobby line, so that a bot client can keep it."""

from __future__ import annotations

from tests.support.server import Harness
from ubao.protocol import (
    ListGames,
    SeatSpec,
    Snapshot,
)

# -- 1. a rematch offer lapses with its player ----------------------------------------------


# -- 2. each player's first move is untimed -----------------------------------------------------


# -- 3. the game's pace is in its snapshot and lobby line ----------------------------------------


def test_the_pace_is_in_the_snapshot_and_the_summary() -> None:
    h = Harness()
    human = h.player("human")
    paced = human.create(SeatSpec.open(), SeatSpec.bot(2), pace_ms=2_000)
    plain = human.create()
    _, _, got = human.join(paced, 0)
    assert isinstance(got[0], Snapshot) and got[0].pace_ms == 2_000
    _, _, got = h.player("other").join(plain, 0)
    assert isinstance(got[0], Snapshot) and got[0].pace_ms is None
    games = {g.game_id: g for g in human.ok(ListGames(id=99)).games or ()}
    assert (games[paced].pace_ms, games[plain].pace_ms) == (2_000, None)
