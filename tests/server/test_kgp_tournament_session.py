"""The KGP gateway's tournament phases, pure (server/kgp_gateway.py): an agent that sets
`tournament:id` is entered, follows the tournament, joins each game it is paired in once it
starts (in its own seat), and is told `goodbye` at the end; a guest is refused."""

from __future__ import annotations

from ubao.protocol import (
    Error,
    ErrorCode,
    Hello,
    Join,
    Ok,
    PairingLine,
    TournamentEvent,
    TournamentJoin,
    TournamentShow,
    TournamentView,
)
from ubao.server.kgp_effects import CloseAgent, Effect, SendCommand, SendLine
from ubao.server.kgp_gateway import KgpSession
from ubao.server.kgp_settings import KgpSettings

KEY = "k" * 43


def view(status: str, *pairings: PairingLine) -> TournamentView:
    return TournamentView(
        tournament_id="t12345678",
        name="cup",
        game="kalah",
        format="round_robin",
        status=status,  # type: ignore[arg-type]
        scoring="standard",
        rated=False,
        round=1,
        rounds=2,
        entrants=("bot-d1", "agent", "other"),
        kinds=("bot depth 1", "account", "account"),
        standings=(),
        pairings=pairings,
        crosstable=(),
    )


def commands(effects: list[Effect]) -> list[object]:
    return [e.command for e in effects if isinstance(e, SendCommand)]


def lines(effects: list[Effect]) -> list[str]:
    return [e.line for e in effects if isinstance(e, SendLine)]


def session(token: str = KEY) -> KgpSession:
    s = KgpSession(KgpSettings(), 0)
    for line in ('1 set info:name "agent"', f'3 set auth:token "{token}"'):
        s.on_line(line, 0)
    s.on_line('5 set tournament:id "t12345678"', 0)
    s.on_line("7 mode freeplay", 0)
    (hello,) = commands(s.take())
    assert isinstance(hello, Hello) and hello.key == (token if len(token) >= 43 else None)
    return s


def test_an_agent_enters_follows_joins_its_games_in_its_seat_and_leaves_at_the_end() -> None:
    s = session()
    s.on_message(Ok(id=1, account=True, name="agent"), 0)
    (join,) = commands(s.take())
    assert join == TournamentJoin(id=2, tournament_id="t12345678")
    s.on_message(Error(id=2, code=ErrorCode.ALREADY_ENTERED, message="entered"), 0)
    (show,) = commands(s.take())
    assert show == TournamentShow(id=3, tournament_id="t12345678", subscribe=True)
    waiting = view("running", PairingLine(1, 0, 1), PairingLine(1, 2, None))
    s.on_message(Ok(id=3, tournament=waiting), 0)
    assert commands(s.take()) == []  # paired, not started yet: it waits
    started = view("running", PairingLine(1, 0, 1, "g0000001", "*"), PairingLine(1, 2, None))
    s.on_message(TournamentEvent(tournament=started), 0)
    (seated,) = commands(s.take())
    assert seated == Join(id=4, game_id="g0000001", seat=1)  # black: seat 1
    s.on_message(TournamentEvent(tournament=started), 0)
    assert commands(s.take()) == []  # once a game
    over = view("finished", PairingLine(1, 0, 1, "g0000001", "0-1"), PairingLine(1, 2, None))
    s.on_message(TournamentEvent(tournament=over), 0)
    s.on_message(Error(id=4, code=ErrorCode.UNKNOWN_GAME, message="gone"), 0)
    effects = s.take()
    assert lines(effects)[-1] == "goodbye" and isinstance(effects[-1], CloseAgent)


def test_a_guest_agent_is_refused_a_tournament() -> None:
    s = session(token="short")
    s.on_message(Ok(id=1, account=False), 0)
    s.take()
    refused = Error(id=2, code=ErrorCode.NOT_AN_ACCOUNT, message="only an account enters")
    s.on_message(refused, 0)
    effects = s.take()
    assert "no tournament can be played now" in lines(effects)[0]
    assert isinstance(effects[-1], CloseAgent)
