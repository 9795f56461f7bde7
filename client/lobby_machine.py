"""The interactive lobby's model, sans I/O: the games listed, the one selected, the new-game
form, and what each key means, returned as effects.

`LobbyModel` keeps the lobby's games as the server describes them (a page replaced by each
refresh, a game updated by each `lobby` event) and shows them in the server's order: open
games first, then live ones, then finished ones, each newest first. The selection follows a
game, not a row, so a list that changes under the user never moves it to another game. What a
key does is one table per mode (`MODE_KEYS`); the modes' transitions are
`MODE_TRANSITIONS`. The screen (`lobby_screen.py`) carries out the effects: it joins or watches
a game, creates one, asks for a fresh page, a game's leaderboard, the server's tournaments or
one tournament's standings (followed live), or leaves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import get_args

from ubao.engine.games import GAMES
from ubao.protocol import (
    Create,
    GameSummary,
    LobbyFilter,
    PoolRating,
    SeatInfo,
    SeatSpec,
    Status,
    TournamentSummary,
    TournamentView,
)

ERROR = "class:status.error"
PAGE_STEP = 10
"""Rows that PageUp and PageDown move the selection by."""
BOT_DEPTHS = tuple(range(1, 10))
"""The depths of the server bots the new-game form offers."""
LOBBY_RANK: dict[Status, int] = {"waiting": 0, "playing": 1, "over": 2}
"""The server's order (docs/protocol.md, `games`): open, live, finished; each newest first."""
FILTERS: tuple[LobbyFilter | None, ...] = (None, *get_args(LobbyFilter))
"""What Tab cycles through: every game, then open, live and finished ones."""


# -- effects: what the screen is asked to do ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Say:
    """Put `text` on the feedback line, in `style`."""

    text: str
    style: str = ""


@dataclass(frozen=True, slots=True)
class Play:
    """Take a seat in this game (or come back to the one held), on the game screen."""

    game_id: str


@dataclass(frozen=True, slots=True)
class Watch:
    """Watch this game on the game screen: live, or a finished one move by move."""

    game_id: str


@dataclass(frozen=True, slots=True)
class Start:
    """Create this game and play it from seat 0."""

    create: Create


@dataclass(frozen=True, slots=True)
class Refresh:
    """Ask the server for the lobby again."""


@dataclass(frozen=True, slots=True)
class Leave:
    """Close the lobby."""


@dataclass(frozen=True, slots=True)
class AskLeaderboard:
    """Ask the server for this game's leaderboard (`ratings`), shown when it comes
    (`LobbyModel.show_leaderboard`)."""

    game: str


@dataclass(frozen=True, slots=True)
class AskTournaments:
    """Ask the server for its tournaments (`tournament_list`), shown when they come
    (`LobbyModel.show_tournaments`)."""


@dataclass(frozen=True, slots=True)
class Follow:
    """Ask for this tournament and for each of its changes (`tournament_show`, `subscribe`),
    shown as they come (`LobbyModel.show_tournament`)."""

    tournament_id: str


@dataclass(frozen=True, slots=True)
class JoinTournament:
    """Enter this tournament under the lobby's name (`tournament_join`: an account's only)."""

    tournament_id: str


Effect = (
    Say
    | Play
    | Watch
    | Start
    | Refresh
    | Leave
    | AskLeaderboard
    | AskTournaments
    | Follow
    | JoinTournament
)


# -- the modes and their transitions -----------------------------------------------------------


class Mode(Enum):
    BROWSING = "browsing"
    """The list of games: arrows choose, Enter joins or watches."""
    CREATING = "creating"
    """The new-game form: which game, against whom."""
    LEADERBOARD = "leaderboard"
    """A game's best rated accounts, in place of the list (left/right: another game)."""
    TOURNAMENTS = "tournaments"
    """The server's tournaments, in place of the games: arrows choose, Enter follows one."""
    STANDINGS = "standings"
    """One tournament's standings and crosstable, updated as its games end."""
    CONFIRMING = "confirming"
    """Asked whether to take over our seat that another terminal holds (y or n)."""


class Trigger(Enum):
    OPEN_FORM = "the new-game form opened"
    CLOSE_FORM = "the form cancelled or its game created"
    OPEN_LEADERBOARD = "the leaderboard opened"
    CLOSE_LEADERBOARD = "the leaderboard closed"
    OPEN_TOURNAMENTS = "the tournaments opened"
    CLOSE_TOURNAMENTS = "the tournaments closed"
    OPEN_STANDINGS = "a tournament's standings opened"
    CLOSE_STANDINGS = "the standings closed"
    ASK_TAKEOVER = "Enter on our waiting game whose seat another terminal holds"
    ANSWER_TAKEOVER = "the takeover agreed to or refused"


MODE_TRANSITIONS: dict[tuple[Mode, Trigger], Mode] = {
    (Mode.BROWSING, Trigger.OPEN_FORM): Mode.CREATING,
    (Mode.CREATING, Trigger.CLOSE_FORM): Mode.BROWSING,
    (Mode.BROWSING, Trigger.OPEN_LEADERBOARD): Mode.LEADERBOARD,
    (Mode.LEADERBOARD, Trigger.CLOSE_LEADERBOARD): Mode.BROWSING,
    (Mode.BROWSING, Trigger.OPEN_TOURNAMENTS): Mode.TOURNAMENTS,
    (Mode.TOURNAMENTS, Trigger.CLOSE_TOURNAMENTS): Mode.BROWSING,
    (Mode.TOURNAMENTS, Trigger.OPEN_STANDINGS): Mode.STANDINGS,
    (Mode.STANDINGS, Trigger.CLOSE_STANDINGS): Mode.TOURNAMENTS,
    (Mode.BROWSING, Trigger.ASK_TAKEOVER): Mode.CONFIRMING,
    (Mode.CONFIRMING, Trigger.ANSWER_TAKEOVER): Mode.BROWSING,
}


# -- the new-game form -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Opponent:
    """Who takes the other seat of a game created from the lobby."""

    label: str
    seat: SeatSpec


OPPONENTS: tuple[Opponent, ...] = (
    Opponent("anyone (an open seat)", SeatSpec.open()),
    *(Opponent(f"server bot, depth {depth}", SeatSpec.bot(depth)) for depth in BOT_DEPTHS),
)
FORM_FIELDS = ("game", "opponent", "rated")
RATED_CHOICES = ("no (casual)", "yes (between two accounts only)")
"""A rated game is between two accounts: the server refuses one otherwise
(`rated_needs_accounts`, docs/ratings.md), and the lobby says why."""


@dataclass(slots=True)
class Form:
    """The new-game form: the field being changed and the choice made in each."""

    field: int = 0
    game: int = 0
    opponent: int = 0
    rated: bool = False

    def choices(self) -> tuple[tuple[str, str], ...]:
        """Each field's name and its value, as the form shows them."""
        return (
            ("game", list(GAMES)[self.game]),
            ("opponent", OPPONENTS[self.opponent].label),
            ("rated", RATED_CHOICES[self.rated]),
        )

    def change(self, step: int) -> None:
        if FORM_FIELDS[self.field] == "game":
            self.game = (self.game + step) % len(GAMES)
        elif FORM_FIELDS[self.field] == "opponent":
            self.opponent = (self.opponent + step) % len(OPPONENTS)
        else:
            self.rated = not self.rated

    def create(self) -> Create:
        """The game the form describes, our seat (0) open for us, with the rules' defaults."""
        seats = (SeatSpec.open(), OPPONENTS[self.opponent].seat)
        return Create(id=0, game=list(GAMES)[self.game], options={}, seats=seats, rated=self.rated)


# -- what Enter does with a game ---------------------------------------------------------------


def open_seat(summary: GameSummary) -> bool:
    """A seat a person may take: free, and not kept for a bot client."""
    return any(seat.name is None and not seat.wants_bot for seat in summary.seats)


def choose(summary: GameSummary, held: bool) -> Play | Watch:
    """Enter on a game: back to our seat if we hold one (its token is stored), a seat taken in
    an open game that has one for a person, else watched (live, or finished move by move)."""
    if held or (summary.status == "waiting" and open_seat(summary)):
        return Play(summary.game_id)
    return Watch(summary.game_id)


def takeover_question(
    game_id: str, status: Status, seats: Sequence[SeatInfo], held: int
) -> str | None:
    """What to ask before resuming `held`, a seat this name holds in a game waiting for its
    opponent, while a connection still plays it (the same user's other terminal, which would
    lose it): None when there is nothing to ask. `ubao play --join` and the lobby ask it."""
    seat = seats[held]
    if status != "waiting" or not seat.connected:
        return None
    return (
        f"you ({seat.name}) hold seat {held} of game {game_id}, which waits for an "
        "opponent, in another terminal; take the seat over here (that terminal loses it)? [y/N] "
    )


def lobby_key(summary: GameSummary) -> tuple[int, int, str]:
    return LOBBY_RANK[summary.status], -(summary.created or 0), summary.game_id


# -- the model ---------------------------------------------------------------------------------


@dataclass(slots=True)
class LobbyModel:
    """The lobby's games, the selection and the mode; `press` says what a key does."""

    held: Mapping[str, int] = field(default_factory=dict)
    """The games with a seat of ours to return to (a token stored for it), and that seat."""
    games: dict[str, GameSummary] = field(default_factory=dict)
    selected: str | None = None
    """The selected game's id (None: the list is empty)."""
    filter: LobbyFilter | None = None
    mode: Mode = Mode.BROWSING
    form: Form = field(default_factory=Form)
    loaded: bool = False
    """A first page arrived."""
    board_game: str = next(iter(GAMES))
    """The game whose leaderboard is shown (or asked for)."""
    leaderboard: tuple[PoolRating, ...] | None = None
    """Its rows, best first in each pool; None until the server answered."""
    tournaments: tuple[TournamentSummary, ...] | None = None
    """The server's tournaments, the latest made first; None until the server answered."""
    tournament: int = 0
    """The index of the tournament selected among them."""
    followed: str | None = None
    """The tournament whose standings are shown (or asked for)."""
    standings: TournamentView | None = None
    """It as it stands; None until the server answered."""
    question: str = ""
    """While confirming: whether to take over our seat in `asked`, in words."""
    asked: str | None = None
    """While confirming: the game whose seat the question is about (the list may change)."""

    # -- the list ------------------------------------------------------------------------------

    def rows(self) -> list[GameSummary]:
        """The games shown, in the server's order, those of the filter only."""
        wanted = None if self.filter is None else FILTER_STATUS[self.filter]
        shown = (s for s in self.games.values() if wanted is None or s.status == wanted)
        return sorted(shown, key=lobby_key)

    def index(self) -> int | None:
        """The selected row's index among `rows()`."""
        ids = [summary.game_id for summary in self.rows()]
        return ids.index(self.selected) if self.selected in ids else None

    def current(self) -> GameSummary | None:
        return self.games.get(self.selected) if self.selected is not None else None

    def replace(self, games: Iterable[GameSummary]) -> None:
        """A fresh page of the lobby: the list is now these games."""
        before = self.index()
        self.games = {summary.game_id: summary for summary in games}
        self.loaded = True
        self._reselect(before)

    def update(self, summary: GameSummary) -> None:
        """A `lobby` event: a game created or changed (seated, started, over)."""
        before = self.index()
        self.games[summary.game_id] = summary
        self._reselect(before)

    def _reselect(self, before: int | None) -> None:
        """Keep the selected game if it is still shown, else the row where it was."""
        rows = self.rows()
        if any(summary.game_id == self.selected for summary in rows):
            return
        if not rows:
            self.selected = None
            return
        self.selected = rows[min(before or 0, len(rows) - 1)].game_id

    def move(self, step: int) -> None:
        rows = self.rows()
        if not rows:
            return
        at = self.index()
        at = 0 if at is None else min(max(at + step, 0), len(rows) - 1)
        self.selected = rows[at].game_id

    def action(self) -> Play | Watch | None:
        """What Enter would do now."""
        summary = self.current()
        return None if summary is None else choose(summary, summary.game_id in self.held)

    # -- keys ----------------------------------------------------------------------------------

    def show_leaderboard(self, game: str, rows: tuple[PoolRating, ...]) -> None:
        """The server's answer for `game`'s leaderboard (ignored if another game is shown by
        now)."""
        if game == self.board_game:
            self.leaderboard = rows

    def press(self, key: str) -> list[Effect] | None:
        """What `key` does in the current mode (None: nothing, the key is not ours)."""
        meaning = MODE_KEYS[self.mode].get(key)
        return None if meaning is None else meaning(self, key)

    def transition(self, trigger: Trigger) -> None:
        self.mode = MODE_TRANSITIONS[self.mode, trigger]

    def enter(self, key: str) -> list[Effect]:
        action = self.action()
        if action is None:
            return [Say("no game here: n creates one", ERROR)]
        summary = self.current()
        assert summary is not None
        held = self.held.get(summary.game_id)
        if held is not None:
            question = takeover_question(summary.game_id, summary.status, summary.seats, held)
            if question is not None:
                self.transition(Trigger.ASK_TAKEOVER)
                self.question, self.asked = question.strip(), summary.game_id
                return [Say("")]
        return [action]

    def answer_takeover(self, key: str) -> list[Effect]:
        """y takes the seat over (the other terminal loses it); anything else leaves it."""
        self.transition(Trigger.ANSWER_TAKEOVER)
        asked, self.question, self.asked = self.asked, "", None
        if key == "y" and asked is not None:
            return [Play(asked)]
        return [Say("your seat stays where it is")]

    def watch(self, key: str) -> list[Effect]:
        summary = self.current()
        if summary is None:
            return [Say("no game to watch", ERROR)]
        return [Watch(summary.game_id)]

    def arrow(self, key: str) -> list[Effect]:
        steps = {"up": -1, "down": 1, "k": -1, "j": 1, "pageup": -PAGE_STEP, "pagedown": PAGE_STEP}
        ends = {"home": -len(self.games), "end": len(self.games)}
        self.move({**steps, **ends}[key])
        return []

    def next_filter(self, key: str) -> list[Effect]:
        step = -1 if key == "s-tab" else 1
        self.filter = FILTERS[(FILTERS.index(self.filter) + step) % len(FILTERS)]
        self._reselect(0)
        return []

    def open_form(self, key: str) -> list[Effect]:
        self.transition(Trigger.OPEN_FORM)
        return [Say("a new game: the arrows choose, Enter creates it")]

    def close_form(self, key: str) -> list[Effect]:
        self.transition(Trigger.CLOSE_FORM)
        return [Say("")]

    def form_field(self, key: str) -> list[Effect]:
        self.form.field = (self.form.field + (1 if key in ("down", "tab") else -1)) % len(
            FORM_FIELDS
        )
        return []

    def form_value(self, key: str) -> list[Effect]:
        self.form.change(1 if key == "right" else -1)
        return []

    def create(self, key: str) -> list[Effect]:
        self.transition(Trigger.CLOSE_FORM)
        return [Start(self.form.create())]

    def open_leaderboard(self, key: str) -> list[Effect]:
        """The leaderboard of the chosen game's kind (or the one shown last)."""
        self.transition(Trigger.OPEN_LEADERBOARD)
        summary = self.current()
        if summary is not None and summary.game in GAMES:
            self.board_game = summary.game
        return self._ask_leaderboard()

    def close_leaderboard(self, key: str) -> list[Effect]:
        self.transition(Trigger.CLOSE_LEADERBOARD)
        return [Say("")]

    def other_leaderboard(self, key: str) -> list[Effect]:
        names = list(GAMES)
        step = 1 if key == "right" else -1
        self.board_game = names[(names.index(self.board_game) + step) % len(names)]
        return self._ask_leaderboard()

    def _ask_leaderboard(self) -> list[Effect]:
        self.leaderboard = None
        return [AskLeaderboard(self.board_game), Say(f"the best rated {self.board_game} players")]

    # -- tournaments ---------------------------------------------------------------------------

    def show_tournaments(self, lines: tuple[TournamentSummary, ...]) -> None:
        """The server's tournaments: the selection stays on the one it was on, if listed."""
        before = self.selected_tournament()
        self.tournaments = lines
        ids = [line.tournament_id for line in lines]
        kept = None if before is None else before.tournament_id
        self.tournament = ids.index(kept) if kept in ids else 0

    def selected_tournament(self) -> TournamentSummary | None:
        if not self.tournaments:
            return None
        return self.tournaments[min(self.tournament, len(self.tournaments) - 1)]

    def show_tournament(self, view: TournamentView) -> None:
        """A tournament as it stands now (the answer, then each change): shown if it is the
        one followed."""
        if view.tournament_id == self.followed:
            self.standings = view

    def open_tournaments(self, key: str) -> list[Effect]:
        self.transition(Trigger.OPEN_TOURNAMENTS)
        return [AskTournaments(), Say("the server's tournaments")]

    def close_tournaments(self, key: str) -> list[Effect]:
        self.transition(Trigger.CLOSE_TOURNAMENTS)
        return [Say("")]

    def tournament_arrow(self, key: str) -> list[Effect]:
        count = len(self.tournaments or ())
        step = -1 if key in ("up", "k") else 1
        self.tournament = min(max(self.tournament + step, 0), max(count - 1, 0))
        return []

    def follow(self, key: str) -> list[Effect]:
        chosen = self.selected_tournament()
        if chosen is None:
            return [Say("no tournament here: `ubao tournament new` makes one", ERROR)]
        self.transition(Trigger.OPEN_STANDINGS)
        self.followed, self.standings = chosen.tournament_id, None
        return [Follow(chosen.tournament_id), Say(f"{chosen.name}: live standings")]

    def close_standings(self, key: str) -> list[Effect]:
        self.transition(Trigger.CLOSE_STANDINGS)
        self.followed = self.standings = None
        return [AskTournaments(), Say("")]

    def enter_tournament(self, key: str) -> list[Effect]:
        if self.followed is None:
            return []
        return [JoinTournament(self.followed), Say("entering the tournament...")]

    def watch_tournament_game(self, key: str) -> list[Effect]:
        """The tournament's latest game being played, else its latest game."""
        pairings = self.standings.pairings if self.standings else ()
        games = [p for p in pairings if p.game_id is not None]
        playing = [p for p in games if p.result in (None, "*")]
        chosen = (playing or games)[-1].game_id if games else None
        if chosen is None:
            return [Say("no game of this tournament to watch yet", ERROR)]
        return [Watch(chosen)]


FILTER_STATUS: dict[LobbyFilter, Status] = {
    "open": "waiting",
    "live": "playing",
    "finished": "over",
}

Meaning = Callable[[LobbyModel, str], list[Effect]]


def _always(*effects: Effect) -> Meaning:
    return lambda model, key: list(effects)


BROWSE_KEYS: dict[str, Meaning] = {
    **dict.fromkeys(
        ("up", "down", "k", "j", "pageup", "pagedown", "home", "end"), LobbyModel.arrow
    ),
    "enter": LobbyModel.enter,
    "w": LobbyModel.watch,
    "n": LobbyModel.open_form,
    "l": LobbyModel.open_leaderboard,
    "t": LobbyModel.open_tournaments,
    **dict.fromkeys(("tab", "s-tab"), LobbyModel.next_filter),
    "r": _always(Refresh(), Say("asking the server again")),
    **dict.fromkeys(("q", "c-q", "c-c"), _always(Leave())),
}
"""What each key of the list means: the one place it is decided."""

FORM_KEYS: dict[str, Meaning] = {
    **dict.fromkeys(("up", "down", "tab", "s-tab"), LobbyModel.form_field),
    **dict.fromkeys(("left", "right"), LobbyModel.form_value),
    "enter": LobbyModel.create,
    **dict.fromkeys(("escape", "q"), LobbyModel.close_form),
    **dict.fromkeys(("c-q", "c-c"), _always(Leave())),
}
"""What each key of the new-game form means."""

LEADERBOARD_KEYS: dict[str, Meaning] = {
    **dict.fromkeys(("left", "right"), LobbyModel.other_leaderboard),
    **dict.fromkeys(("escape", "q", "l"), LobbyModel.close_leaderboard),
    **dict.fromkeys(("c-q", "c-c"), _always(Leave())),
}
"""What each key of the leaderboard means."""

TOURNAMENTS_KEYS: dict[str, Meaning] = {
    **dict.fromkeys(("up", "down", "k", "j"), LobbyModel.tournament_arrow),
    "enter": LobbyModel.follow,
    "r": _always(AskTournaments(), Say("asking the server again")),
    **dict.fromkeys(("escape", "q", "t"), LobbyModel.close_tournaments),
    **dict.fromkeys(("c-q", "c-c"), _always(Leave())),
}
"""What each key of the tournaments' list means."""

STANDINGS_KEYS: dict[str, Meaning] = {
    "w": LobbyModel.watch_tournament_game,
    "j": LobbyModel.enter_tournament,
    **dict.fromkeys(("escape", "q"), LobbyModel.close_standings),
    **dict.fromkeys(("c-q", "c-c"), _always(Leave())),
}
"""What each key of a tournament's standings means."""

CONFIRM_KEYS: dict[str, Meaning] = {
    **dict.fromkeys(("y", "n", "enter", "escape", "q"), LobbyModel.answer_takeover),
    **dict.fromkeys(("c-q", "c-c"), _always(Leave())),
}
"""What each key means while the lobby asks whether to take a seat over: y alone agrees."""

MODE_KEYS = {
    Mode.BROWSING: BROWSE_KEYS,
    Mode.CREATING: FORM_KEYS,
    Mode.LEADERBOARD: LEADERBOARD_KEYS,
    Mode.TOURNAMENTS: TOURNAMENTS_KEYS,
    Mode.STANDINGS: STANDINGS_KEYS,
    Mode.CONFIRMING: CONFIRM_KEYS,
}

KEYS = tuple(dict.fromkeys(key for keys in MODE_KEYS.values() for key in keys))
"""Every key `press` may claim."""

HINTS: dict[Mode, tuple[str, ...]] = {
    Mode.BROWSING: (
        "Enter: {action}",
        "w: watch",
        "n: new game",
        "l: ratings",
        "t: tournaments",
        "Tab: filter",
        "q: quit",
    ),
    Mode.CREATING: ("up/down: field", "left/right: change", "Enter: create", "Esc: back"),
    Mode.LEADERBOARD: ("left/right: another game", "Esc: back", "^Q: quit"),
    Mode.TOURNAMENTS: ("Enter: standings", "r: refresh", "Esc: back", "^Q: quit"),
    Mode.STANDINGS: ("w: watch its game", "j: join", "Esc: back", "^Q: quit"),
    Mode.CONFIRMING: ("y: take the seat over", "n: leave it there", "^Q: quit"),
}
"""The one-line hint of each mode, key by key; `{action}` is what Enter does with the selected
game."""
SPARE_HINTS = ("w: watch", "Tab: filter", "t: tournaments", "n: new game")
"""Left out of the hint in this order while it is wider than the terminal."""


def described(games: Sequence[GameSummary]) -> str:
    """`2 open, 1 live, 5 finished`: the lobby's games by status."""
    found = dict.fromkeys(LOBBY_RANK, 0)
    for summary in games:
        found[summary.status] += 1
    names = {"waiting": "open", "playing": "live", "over": "finished"}
    return ", ".join(f"{found[status]} {names[status]}" for status in LOBBY_RANK)
