"""The interactive lobby's model on its own: no screen, no server, only games, keys and
effects."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import pytest

from ubao.client.lobby_machine import (
    BOT_DEPTHS,
    ERROR,
    PAGE_STEP,
    AskLeaderboard,
    AskTournaments,
    Follow,
    JoinTournament,
    Leave,
    LobbyModel,
    Mode,
    Play,
    Refresh,
    Say,
    Start,
    Watch,
    choose,
    described,
    takeover_question,
)
from ubao.client.lobby_view import hint
from ubao.engine.games import GAMES
from ubao.protocol import (
    GameSummary,
    PairingLine,
    PoolRating,
    Result,
    SeatInfo,
    SeatSpec,
    StandingLine,
    Status,
    TournamentSummary,
    TournamentView,
)

OPEN = SeatInfo("open", None, False)
BOB = SeatInfo("open", "bob", True)
AWAY = SeatInfo("open", "bob", False)
"""Bob's seat while no terminal holds it."""
CAROL = SeatInfo("open", "carol", True)
BOT = SeatInfo("bot", "ubao-engine (depth 3)", True, depth=3)


def game(game_id: str, status: Status, created: int, *seats: SeatInfo) -> GameSummary:
    return GameSummary(
        game_id=game_id,
        game="kalah",
        options={},
        status=status,
        ply=0 if status == "waiting" else 7,
        seats=(seats[0], seats[1]) if seats else (BOB, OPEN),
        created=created,
        result=Result(0, "normal", (30, 18)) if status == "over" else None,
    )


LOBBY = [
    game("over-old", "over", 1, BOB, CAROL),
    game("live", "playing", 5, BOB, BOT),
    game("open-old", "waiting", 2),
    game("over-new", "over", 9, CAROL, BOT),
    game("open-new", "waiting", 8),
]


def loaded(*games: GameSummary, held: Mapping[str, int] | None = None) -> LobbyModel:
    model = LobbyModel(held=held or {})
    model.replace(games or LOBBY)
    return model


def shown(model: LobbyModel) -> list[str]:
    return [summary.game_id for summary in model.rows()]


def test_games_show_open_then_live_then_finished_each_newest_first() -> None:
    model = loaded()
    assert shown(model) == ["open-new", "open-old", "live", "over-new", "over-old"]
    assert model.selected == "open-new"
    assert described(list(model.games.values())) == "2 open, 1 live, 2 finished"


def test_arrows_move_the_selection_and_stop_at_the_ends() -> None:
    model = loaded()
    assert model.press("down") == [] and model.selected == "open-old"
    model.press("j")
    assert model.selected == "live"
    model.press("end")
    assert model.selected == "over-old"
    model.press("down")
    assert model.selected == "over-old"
    model.press("home")
    assert model.selected == "open-new"
    model.press("up")
    assert model.selected == "open-new"
    model.press("pagedown")
    assert model.selected == "over-old"  # fewer than PAGE_STEP rows
    assert len(LOBBY) < PAGE_STEP


def test_the_selection_follows_its_game_when_the_list_changes_under_it() -> None:
    model = loaded()
    model.press("down")
    model.press("down")
    assert model.selected == "live"
    model.update(game("newer", "waiting", 10))  # a row above it
    assert shown(model)[0] == "newer" and model.selected == "live"
    model.update(dataclasses.replace(model.games["live"], status="over", created=5))
    assert model.selected == "live" and shown(model).index("live") == 4  # it moved with it


def test_a_game_gone_from_a_fresh_page_gives_the_selection_to_the_row_where_it_was() -> None:
    model = loaded()
    model.press("down")
    assert model.selected == "open-old"
    model.replace([summary for summary in LOBBY if summary.game_id != "open-old"])
    assert model.selected == "live"
    model.replace([])
    assert model.selected is None
    assert model.press("enter") == [Say("no game here: n creates one", "class:status.error")]


def test_a_lobby_event_adds_a_game_or_changes_one_in_place() -> None:
    model = loaded()
    model.update(dataclasses.replace(model.games["open-old"], status="playing", seats=(BOB, CAROL)))
    assert shown(model) == ["open-new", "live", "open-old", "over-new", "over-old"]
    model.update(game("brand-new", "waiting", 20))
    assert shown(model)[0] == "brand-new" and len(model.games) == 6


@pytest.mark.parametrize(
    ("summary", "held", "effect"),
    [
        (game("g", "waiting", 1, BOB, OPEN), False, Play("g")),  # a free seat: take it
        (game("g", "waiting", 1, OPEN, BOT), False, Play("g")),
        (
            game("g", "waiting", 1, BOB, SeatInfo("open", None, False, wants_bot=True)),
            False,
            Watch("g"),
        ),
        (game("g", "waiting", 1, AWAY, OPEN), True, Play("g")),  # our own waiting game
        (game("g", "playing", 1, BOB, CAROL), False, Watch("g")),
        (game("g", "playing", 1, BOB, CAROL), True, Play("g")),  # back to our seat
        (game("g", "over", 1, BOB, CAROL), False, Watch("g")),  # move by move
    ],
)
def test_enter_joins_an_open_seat_returns_to_ours_and_watches_the_rest(
    summary: GameSummary, held: bool, effect: Play | Watch
) -> None:
    assert choose(summary, held) == effect
    model = loaded(summary, held={"g": 0} if held else {})
    assert model.press("enter") == [effect]
    assert model.action() == effect


def test_the_takeover_question_is_asked_only_of_a_waiting_seat_held_elsewhere() -> None:
    """Issue 36, 2: the same user's second terminal took the creator's seat over unasked."""
    question = takeover_question("g", "waiting", (BOB, OPEN), 0)
    assert question is not None and "you (bob) hold seat 0 of game g" in question
    assert question.endswith("(that terminal loses it)? [y/N] ")
    assert takeover_question("g", "waiting", (AWAY, OPEN), 0) is None  # coming back
    assert takeover_question("g", "playing", (BOB, CAROL), 0) is None


KEPT = Say("your seat stays where it is")


@pytest.mark.parametrize(("key", "effect"), [("y", Play("g")), ("n", KEPT), ("escape", KEPT)])
def test_enter_on_our_waiting_game_held_elsewhere_asks_before_taking_the_seat(
    key: str, effect: Play | Say
) -> None:
    """Issue 36: Enter in the lobby took the seat back from the other terminal unasked, as
    `ubao play --join` no longer does; y alone takes it over, anything else leaves it."""
    model = loaded(game("g", "waiting", 1, BOB, OPEN), held={"g": 0})
    assert model.press("enter") == [Say("")]
    assert model.mode.value == "confirming"
    assert model.question == str(takeover_question("g", "waiting", (BOB, OPEN), 0)).strip()
    assert "y: take the seat over" in hint(model, 80)
    model.replace([game("h", "waiting", 2)])  # the list changed meanwhile: still about g
    assert model.press(key) == [effect]
    assert model.mode is Mode.BROWSING and model.question == ""


def test_w_watches_even_an_open_game() -> None:
    model = loaded()
    assert model.selected == "open-new"
    assert model.press("w") == [Watch("open-new")]


def test_tab_filters_open_live_and_finished_games_in_turn() -> None:
    model = loaded()
    seen = []
    for key in ("tab", "tab", "tab", "tab", "s-tab"):
        model.press(key)
        seen.append((model.filter, shown(model), model.selected))
    assert seen == [
        ("open", ["open-new", "open-old"], "open-new"),
        ("live", ["live"], "live"),
        ("finished", ["over-new", "over-old"], "over-new"),
        (None, ["open-new", "open-old", "live", "over-new", "over-old"], "over-new"),  # kept
        ("finished", ["over-new", "over-old"], "over-new"),
    ]


def test_the_new_game_form_creates_a_game_against_a_server_bot_or_an_open_seat() -> None:
    model = loaded()
    model.press("n")
    assert model.press("w") is None  # the list's keys do nothing here
    assert model.mode is Mode.CREATING
    model.press("right")  # the game
    assert model.form.choices()[0] == ("game", list(GAMES)[1])
    model.press("left")
    model.press("down")  # to the opponent
    model.press("right")
    model.press("right")
    assert model.form.choices()[1] == ("opponent", f"server bot, depth {BOT_DEPTHS[1]}")
    (effect,) = model.press("enter") or []
    assert isinstance(effect, Start) and model.mode.value == "browsing"
    assert effect.create.game == next(iter(GAMES))
    assert effect.create.seats == (SeatSpec.open(), SeatSpec.bot(BOT_DEPTHS[1]))
    model.press("n")  # the form remembers the last game's choices
    assert model.form.choices()[1] == ("opponent", f"server bot, depth {BOT_DEPTHS[1]}")
    model.press("left")
    model.press("left")
    model.press("left")  # round to the last
    assert model.form.choices()[1] == ("opponent", f"server bot, depth {BOT_DEPTHS[-1]}")
    model.press("right")
    (effect,) = model.press("enter") or []
    assert isinstance(effect, Start) and effect.create.seats == (SeatSpec.open(), SeatSpec.open())
    assert not effect.create.rated  # casual unless chosen


def test_the_new_game_form_asks_for_a_rated_game_when_chosen() -> None:
    model = loaded()
    model.press("n")
    model.press("s-tab")  # up from the first field: the last, rated
    assert model.form.choices()[2] == ("rated", "no (casual)")
    model.press("left")
    assert model.form.choices()[2] == ("rated", "yes (between two accounts only)")
    (effect,) = model.press("enter") or []
    assert isinstance(effect, Start) and effect.create.rated
    model.press("n")
    model.press("right")  # the form remembers: rated still chosen, now off
    (effect,) = model.press("enter") or []
    assert isinstance(effect, Start) and not effect.create.rated


def test_escape_leaves_the_form_and_q_the_lobby() -> None:
    model = loaded()
    model.press("n")
    model.press("escape")
    assert model.mode is Mode.BROWSING
    assert model.press("q") == [Leave()]
    model.press("n")
    assert model.press("q") != [Leave()] and model.mode is Mode.BROWSING  # q closes the form
    model.press("n")
    assert model.press("c-q") == [Leave()]


def test_r_asks_the_server_again() -> None:
    assert Refresh() in (loaded().press("r") or [])


def test_l_asks_for_the_leaderboard_of_the_chosen_games_kind_and_arrows_change_game() -> None:
    model = loaded(game("o", "playing", 1, BOB, CAROL))
    model.games["o"] = dataclasses.replace(model.games["o"], game="othello")
    effects = model.press("l") or []
    assert AskLeaderboard("othello") in effects and model.mode is Mode.LEADERBOARD
    assert model.leaderboard is None  # asking
    rows = (PoolRating("ada", "othello/untimed", 1600, 80, 12, 8, 1, 3),)
    model.show_leaderboard("kalah", rows)  # an answer for a game no longer shown
    assert model.leaderboard is None
    model.show_leaderboard("othello", rows)
    assert model.leaderboard == rows
    names = list(GAMES)
    after = names[(names.index("othello") + 1) % len(names)]
    assert AskLeaderboard(after) in (model.press("right") or [])
    assert model.board_game == after and model.leaderboard is None
    assert model.press("enter") is None  # the list's keys do nothing here
    model.press("escape")
    assert model.mode.value == "browsing"
    assert model.press("l") is not None and model.board_game == "othello"
    assert model.press("c-q") == [Leave()]


CUPS = (
    TournamentSummary("t2", "spring cup", "kalah", "round_robin", "running", 3, 1, 3),
    TournamentSummary("t1", "winter cup", "kalah", "swiss", "finished", 6, 5, 5, "ann"),
)


def cup(tournament_id: str, *pairings: PairingLine) -> TournamentView:
    over = sum(p.result in ("1-0", "0-1") for p in pairings)
    lines = (
        StandingLine(1, 0, str(over), over, over, 0, 0, 0, "0", "0", 1700),
        StandingLine(2, 1, "0", over, 0, 0, over, 0, "0", "0", 1300),
    )
    return TournamentView(
        tournament_id, "spring cup", "kalah", "round_robin", "running", "standard", False, 1, 3,
        ("ann", "bob"), ("account", "bot depth 2"), lines, pairings, (("", "1"), ("0", "")),
    )  # fmt: skip


def test_t_lists_the_tournaments_and_enter_follows_ones_standings_live() -> None:
    model = loaded()
    effects = model.press("t") or []
    assert AskTournaments() in effects and model.mode is Mode.TOURNAMENTS
    assert model.tournaments is None  # asking
    assert model.press("n") is None  # the list's keys do nothing here
    model.show_tournaments(CUPS)
    model.press("down")
    assert model.selected_tournament() == CUPS[1]
    model.press("down")  # stops at the end
    assert model.selected_tournament() == CUPS[1]
    model.show_tournaments(CUPS[::-1])  # a fresh list: the selection stays on its tournament
    assert model.selected_tournament() == CUPS[1] and model.tournament == 0
    model.press("down")
    effects = model.press("enter") or []
    assert Follow("t2") in effects and model.mode.value == "standings"
    assert model.standings is None  # asking
    model.show_tournament(cup("t1"))  # another tournament's change: not shown
    assert model.standings is None
    model.show_tournament(cup("t2", PairingLine(1, 0, 1, "g1", "*")))
    assert model.standings is not None and model.standings.standings[0].points == "0"
    model.show_tournament(cup("t2", PairingLine(1, 0, 1, "g1", "1-0")))  # a game over
    assert model.standings.standings[0].points == "1"
    assert AskTournaments() in (model.press("escape") or [])
    assert model.mode is Mode.TOURNAMENTS and model.standings is None
    model.show_tournament(cup("t2"))  # no longer followed
    assert model.standings is None
    model.press("escape")
    assert model.mode is Mode.BROWSING
    assert model.press("c-q") == [Leave()]


def test_w_in_the_standings_watches_the_game_being_played_else_the_latest() -> None:
    model = loaded()
    model.press("t")
    assert model.press("enter") == [
        Say("no tournament here: `ubao tournament new` makes one", ERROR)
    ]
    assert model.mode is Mode.TOURNAMENTS
    model.show_tournaments(CUPS)
    model.press("enter")
    assert model.press("w") == [Say("no game of this tournament to watch yet", ERROR)]
    played = PairingLine(1, 0, 1, "g1", "1-0")
    playing = PairingLine(2, 1, 0, "g2", "*")
    waiting = PairingLine(3, 0, 1)
    model.show_tournament(cup("t2", played, playing, waiting))
    assert model.press("w") == [Watch("g2")]
    model.show_tournament(cup("t2", played, waiting))
    assert model.press("w") == [Watch("g1")]
    assert JoinTournament("t2") in (model.press("j") or [])
