"""A tournament's games count against the server's capacity (`--max-games`, `--max-bot-seats`)
as anybody's do: a pairing the server has no room for waits, unstarted, and starts once a game
ends (docs/tournaments-server.md, "Scoring and standings" and "Concurrency")."""

from __future__ import annotations

from tests.support.server import Harness, small_limits
from ubao.protocol import SeatSpec, TournamentJoin, TournamentNew, TournamentShow, TournamentStart
from ubao.server.tournaments import RECHECK_MS


def started(h: Harness, entrants: int) -> str:
    organiser = h.player("organiser")
    new = TournamentNew(id=0, name="full", game="kalah", options={"pits": 3, "seeds": 3})
    tid = organiser.ok(new).tournament_id
    assert tid is not None
    for depth in range(1, entrants + 1):
        organiser.ok(TournamentJoin(id=0, tournament_id=tid, bot=SeatSpec("bot", depth)))
    organiser.ok(TournamentStart(id=0, tournament_id=tid))
    return tid


def games_started(h: Harness, tid: str) -> list[str]:
    view = h.player("fan", "spectator").ok(TournamentShow(id=0, tournament_id=tid)).tournament
    assert view is not None
    return [p.game_id for p in view.pairings if p.game_id is not None]


def test_a_tournament_starts_no_more_games_than_the_server_has_room_for() -> None:
    h = Harness(small_limits(max_games=2))
    tid = started(h, 6)  # round 1: three games, room for two
    first = games_started(h, tid)
    assert len(first) == 2 and len(h.core.games.shares.live) == 2
    h.advance(RECHECK_MS)
    assert games_started(h, tid) == first  # still full: the third waits
    turn = next(t for t in h.bot_turns if t.game_id == first[0])
    h.core.bot_failed(turn, "gone")  # one game ends: room for the third
    h.advance(RECHECK_MS)
    now = games_started(h, tid)
    assert len(now) == 3 and now[:2] == first
    assert len(h.core.games.shares.live) == 2


def test_bot_seats_bound_a_tournament_too() -> None:
    h = Harness(small_limits(max_bot_seats=2))
    tid = started(h, 4)
    assert len(games_started(h, tid)) == 1
