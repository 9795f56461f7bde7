"""What the game screen's keys and input line mean: the input modes, in one place, sans I/O.

The screen asks `InputMachine.press` what a key does and `InputMachine.enter` what a line
does; both only answer, with effects as data (`Say`, `SendMove`, `Screen("quit")`, ...) that
the screen carries out, and `None` from `press` leaves the key to the input line (so `press`
is also the key bindings' filter). The machine keeps the one piece of state that is its own,
what the player is being asked (`Asking`, whose transitions are the table `ASKING_TRANSITIONS`), and
whether a move is on its way or the connection closed for good: they change only through
`apply` (the effects `Transition` and `SendMove`) and the game's events (`resolved`, `reset`,
`close`). Everything else it reads from `Facts`, a picture of the game and the screen taken
for each key.

What each key means is one table, `GAME_KEYS` (`HELP_KEYS` while the help is open), and the
line's commands another (`LINE_COMMANDS`). Which mode rules when several hold is decided by the
order of the checks in `dialog` (the question line) and `play` (what a move typed does); every
other function asks them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal

from ubao.client.entry import Ask, Entry, OneMove, Reject, hole_entry, read_entry
from ubao.engine.game import Game

SEAT_LOST = "this terminal no longer holds the seat"
"""Why nothing is sent once another terminal took over the seat."""
ERROR = "class:status.error"
YES, NO = ("y", "yes"), ("n", "no")


# -- effects: what the screen is asked to do ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Say:
    """Put `text` on the feedback line, in `style`."""

    text: str
    style: str = ""


@dataclass(frozen=True, slots=True)
class SendMove:
    """OneMove `move` for the current ply (the machine now waits for its answer)."""

    move: str


Offer = Literal["takeback", "draw", "rematch"]
"""What the opponent offered, and waits for this player's answer."""


@dataclass(frozen=True, slots=True)
class AnswerOffer:
    """Accept or decline the opponent's takeback request, draw offer or rematch offer."""

    offer: Offer
    accept: bool


@dataclass(frozen=True, slots=True)
class Request:
    """Resign, abort (`abort`), offer a draw (`draw`) or a rematch (`rematch`), or ask to
    take back the last move (`takeback`)."""

    what: str


@dataclass(frozen=True, slots=True)
class Browse:
    """Show the board after `ply` moves; None follows the game."""

    ply: int | None


@dataclass(frozen=True, slots=True)
class Screen:
    """A change to the screen alone: `quit`, `help` (open or close it), `close list` (of
    moves), `skip` (the move being animated), `faster`, `slower`, an arrow that walks the
    cursor (`cursor left`), or one that scrolls the help (`scroll pagedown`)."""

    action: str


@dataclass(frozen=True, slots=True)
class Transition:
    """The machine's own state moves on (`InputMachine.apply`): `question` is the one asked."""

    trigger: Trigger
    question: Ask | None = None


Effect = Say | SendMove | AnswerOffer | Request | Browse | Screen | Transition


# -- what the player is asked: the machine's own state and its transitions ---------------------


class Asking(Enum):
    """What the player is being asked by this screen (the opponent's offers are the game's)."""

    NOTHING = "nothing"
    QUESTION = "question"
    """A move's open choice (Bao's direction, kichwa, stop or safari: `Ask`)."""
    RESIGN = "resign"
    """Resign (or cancel a game nobody joined)? y or n."""
    RESIGN_OVER_QUESTION = "resign over question"
    """Resign? asked while a move's question waits: after a no, the question is back."""


class Trigger(Enum):
    ASK = "a move's question asked"
    RESOLVED = "the question answered, cancelled, or made moot by a move"
    ASK_RESIGN = "resign asked"
    ANSWER_RESIGN = "resign answered"
    RESET = "game over, connection closed, rematch begun"


ASKING_TRANSITIONS: dict[tuple[Asking, Trigger], Asking] = {
    (Asking.NOTHING, Trigger.ASK): Asking.QUESTION,
    (Asking.QUESTION, Trigger.ASK): Asking.QUESTION,
    (Asking.NOTHING, Trigger.RESOLVED): Asking.NOTHING,
    (Asking.QUESTION, Trigger.RESOLVED): Asking.NOTHING,
    (Asking.RESIGN, Trigger.RESOLVED): Asking.RESIGN,
    (Asking.RESIGN_OVER_QUESTION, Trigger.RESOLVED): Asking.RESIGN,
    (Asking.NOTHING, Trigger.ASK_RESIGN): Asking.RESIGN,
    (Asking.QUESTION, Trigger.ASK_RESIGN): Asking.RESIGN_OVER_QUESTION,
    (Asking.RESIGN, Trigger.ASK_RESIGN): Asking.RESIGN,
    (Asking.RESIGN_OVER_QUESTION, Trigger.ASK_RESIGN): Asking.RESIGN_OVER_QUESTION,
    (Asking.RESIGN, Trigger.ANSWER_RESIGN): Asking.NOTHING,
    (Asking.RESIGN_OVER_QUESTION, Trigger.ANSWER_RESIGN): Asking.QUESTION,
    **{(asking, Trigger.RESET): Asking.NOTHING for asking in Asking},
}


# -- the modes, derived in one place ---------------------------------------------------------


class Dialog(Enum):
    """What the question line asks, the first that holds."""

    CONFIRM_RESIGN = "confirm resign"
    ANSWER_REMATCH = "answer rematch"
    ANSWER_TAKEBACK = "answer takeback"
    ANSWER_DRAW = "answer draw"
    QUESTION = "question"
    BROWSING = "browsing"
    NONE = "none"


ANSWERED: dict[Dialog, Offer] = {
    Dialog.ANSWER_REMATCH: "rematch",
    Dialog.ANSWER_TAKEBACK: "takeback",
    Dialog.ANSWER_DRAW: "draw",
}
"""The dialogs `y` and `n` answer, and the offer each answers."""


class Play(Enum):
    """What a move typed does, the first that holds."""

    WATCHING = "watching"
    OVER = "over"
    SENDING = "sending"
    WAITING = "waiting"
    THEIR_TURN = "their turn"
    MY_TURN = "my turn"


class Hint(Enum):
    """Which keys the one-line hint names (`KEY_HINTS`), the first that holds."""

    CONNECTING = "connecting"
    REMATCH = "rematch"
    OVER = "over"
    WATCHING = "watching"
    WAITING = "waiting"
    PLAYING = "playing"


@dataclass(frozen=True, slots=True)
class Facts:
    """The game and the screen as the machine needs them for one key or line."""

    seat: int | None
    started: bool
    over: bool
    waiting: bool
    """Nobody joined yet (the game's status is "waiting")."""
    can_rematch: bool
    """`r` offers a rematch: a seat, the game over and the opponent there to answer."""
    legal: Sequence[str]
    takeback: int | None
    """The seat whose takeback request waits for its answer."""
    draw: int | None
    """The seat whose draw offer waits for its answer."""
    rematch: int | None
    """The seat whose rematch offer waits for its answer."""
    reply_too: bool
    """The takeback asked would take back this player's reply too."""
    has_moved: bool
    """This player has a move to take back."""
    opponent: str
    """The opponent's side, as the screen names it."""
    typed: str
    """What the input line holds."""
    helping: bool
    listing: bool
    """The list of moves (completions) is open."""
    picked: bool
    """A move of that list is picked (Enter plays it)."""
    animating: bool
    browsing: int | None
    shown_ply: int
    history: int
    """How many moves were played."""
    cursor: str | None
    """The hole under the cursor, if it shows."""
    cursor_moves: Sequence[str]
    cells: str
    """What the board's places are called ("holes", "squares")."""
    game: Game[Any, Any] | None
    position: Any


class InputMachine:
    """The input modes of one game screen, and what each key and line means in them."""

    def __init__(self) -> None:
        self.asking = Asking.NOTHING
        self.question: Ask | None = None
        """The move's question while `asking` holds one."""
        self.sending = False
        """A move is on its way: entry waits for the answer rather than send a second one."""
        self.closed = False
        """The connection ended for good: nothing can be sent."""

    # -- state ---------------------------------------------------------------------------------

    def _to(self, trigger: Trigger, question: Ask | None = None) -> None:
        self.asking = ASKING_TRANSITIONS[self.asking, trigger]
        if trigger is Trigger.ASK:
            self.question = question
        elif self.asking not in (Asking.QUESTION, Asking.RESIGN_OVER_QUESTION):
            self.question = None

    def apply(self, effect: Effect) -> None:
        """Carry out what an effect changes in the machine itself."""
        if isinstance(effect, Transition):
            self._to(effect.trigger, effect.question)
        elif isinstance(effect, SendMove):
            self.sending = True

    def resolved(self) -> None:
        """The move's question (if any) is moot: a move was played or taken back."""
        self._to(Trigger.RESOLVED)

    def reset(self) -> None:
        """Nothing asked any more: the game ended, or a rematch begins."""
        self._to(Trigger.RESET)

    def close(self) -> None:
        """The connection ended for good."""
        self.closed = True
        self.reset()

    @property
    def confirming_resign(self) -> bool:
        return self.asking in (Asking.RESIGN, Asking.RESIGN_OVER_QUESTION)

    def my_turn(self, legal: Sequence[str], over: bool) -> bool:
        return bool(legal) and not over and not self.sending and not self.closed

    def choosing_hole(self, f: Facts) -> bool:
        """The arrows walk the legal holes: our turn, nothing typed, nothing asked."""
        return not f.typed and self.question is None and self.my_turn(f.legal, f.over)

    def dialog(self, f: Facts) -> Dialog:
        if self.confirming_resign:
            return Dialog.CONFIRM_RESIGN
        if awaits_answer(f.seat, f.rematch):
            return Dialog.ANSWER_REMATCH
        if awaits_answer(f.seat, f.takeback):
            return Dialog.ANSWER_TAKEBACK
        if awaits_answer(f.seat, f.draw):
            return Dialog.ANSWER_DRAW
        if self.question is not None:
            return Dialog.QUESTION
        return Dialog.NONE if f.browsing is None else Dialog.BROWSING

    def play(self, f: Facts) -> Play:
        if f.seat is None:
            return Play.WATCHING
        if f.over:
            return Play.OVER
        if self.my_turn(f.legal, f.over):
            return Play.MY_TURN
        if self.sending:
            return Play.SENDING
        return Play.WAITING if f.waiting else Play.THEIR_TURN

    # -- what is shown of it -------------------------------------------------------------------

    def question_text(self, f: Facts) -> str | None:
        """What the player is asked, on a line of its own above the feedback line."""
        dialog = self.dialog(f)
        if dialog is Dialog.CONFIRM_RESIGN:
            if f.waiting:  # nobody joined: it is withdrawn (`cancel`)
                return "Cancel this game? y = yes, n or Esc = no"
            return "Resign this game? y = yes, n or Esc = no"
        if dialog is Dialog.ANSWER_REMATCH:
            return f"{f.opponent} offers a rematch, seats swapped: y = accept, n = decline"
        if dialog is Dialog.ANSWER_TAKEBACK:
            # Asked on their own turn, it takes back this player's reply too: say so.
            reply = " and your reply" if f.reply_too else ""
            return f"{f.opponent} asks to take back their move{reply}: y = accept, n = decline"
        if dialog is Dialog.ANSWER_DRAW:
            return f"{f.opponent} offers a draw: y = accept, n = decline"
        if dialog is Dialog.QUESTION:
            assert self.question is not None
            return self.question.question
        if dialog is Dialog.BROWSING:
            return f"Looking at move {f.browsing} of {f.history}: left/right step, End back to live"
        return None

    def prompt(self, f: Facts) -> str:
        if self.confirming_resign:
            return "resign? "
        if self.question is not None:
            return "answer> "
        return "move> " if f.seat is not None and not f.over else "> "

    def hint(self, f: Facts) -> Hint:
        if not f.started:
            return Hint.CONNECTING
        if f.can_rematch:
            return Hint.REMATCH
        if f.over:
            return Hint.OVER
        if f.seat is None:
            return Hint.WATCHING
        return Hint.WAITING if f.waiting else Hint.PLAYING

    def entry_hint(self, f: Facts) -> str | None:
        """What Enter and Tab do with the input line, when that is what matters now: the
        words before the list of moves offered, or before the one move typed in full."""
        if f.listing:
            # Enter plays only a move picked from the list: say which key does what now.
            return "Enter plays, Tab: next: " if f.picked else "Tab picks: "
        if self.question is None and f.typed.strip() in self.choices(f):
            # One legal move: Tab filled it in without a list to pick from.
            return "Enter plays "
        return None

    def keys_hint(self, f: Facts) -> str:
        """The keys that matter now, in one short line (F1's help has them all)."""
        return KEY_HINTS[self.hint(f)].format(cells=f.cells)

    def choices(self, f: Facts) -> Sequence[str]:
        """What the input line would take now: the question's answers, or the legal moves."""
        if self.question is not None:
            return [option.answer for option in self.question.options]
        return f.legal if self.my_turn(f.legal, f.over) else ()

    # -- keys ----------------------------------------------------------------------------------

    def press(self, f: Facts, key: str) -> list[Effect] | None:
        """What `key` does (`GAME_KEYS`, or `HELP_KEYS` while the help is open); None leaves
        it to the input line (it is typed)."""
        meaning = (HELP_KEYS if f.helping else GAME_KEYS).get(key)
        return None if meaning is None else meaning(self, f, key)

    def yes_or_no(self, f: Facts, key: str) -> list[Effect] | None:
        """`y` or `n`: the resign question's answer, else the opponent's offer's."""
        if self.confirming_resign:
            return self.confirm_resign(key == "y")
        if self._answers(f, key):
            return [AnswerOffer(ANSWERED[self.dialog(f)], key == "y")]
        return None

    def arrow(self, f: Facts, key: str) -> list[Effect] | None:
        """An arrow (or Home, End) with nothing typed walks the legal holes on our turn,
        answers a direction question (Left L, Right R), or steps through the moves while
        watching or after the end."""
        if f.typed:
            return None
        if key in ("left", "right", "up", "down") and self.choosing_hole(f):
            return [Screen(f"cursor {key}")]
        answer = self._arrow_answer(key)
        if answer is not None:
            return self.enter(f, answer)
        if key in ("left", "right", "home", "end") and (f.seat is None or f.over) and f.started:
            ply = {"left": f.shown_ply - 1, "right": f.shown_ply + 1, "home": 0}.get(key)
            return [Browse(ply)]
        return None

    def _arrow_answer(self, key: str) -> str | None:
        """At a question whose answers are directions (`L or R`), the answer an arrow gives:
        Left L, Right R."""
        if self.question is None or self.confirming_resign or key not in ("left", "right"):
            return None
        answers = {option.answer.upper(): option.answer for option in self.question.options}
        return answers.get("L" if key == "left" else "R")

    def _answers(self, f: Facts, letter: str) -> bool:
        """`y` or `n` answers the opponent's takeback request or rematch offer, whatever is
        typed, unless it goes on with a move or a command being typed (`resign`)."""
        if self.dialog(f) not in ANSWERED:
            return False
        if self.closed:
            return False  # typed, to be told that nothing goes any more
        typed = f.typed.strip().lower()
        words = [*self.choices(f), *COMMANDS]
        return not typed or not any(word.lower().startswith(typed + letter) for word in words)

    def escape(self, f: Facts) -> list[Effect]:
        """Esc closes the help, else the list of moves, else skips the move being animated,
        else cancels the resign prompt or a question."""
        if f.helping:
            return [Screen("help")]
        if f.listing:
            return [Screen("close list")]
        if f.animating:
            return [Screen("skip")]
        if self.confirming_resign:
            return self.confirm_resign(False)
        if self.question is not None:
            return [Transition(Trigger.RESOLVED), Say("cancelled")]
        return []

    # -- requests ------------------------------------------------------------------------------

    def ask_resign(self, f: Facts) -> list[Effect]:
        if f.seat is None:
            return [Say("spectators cannot resign", ERROR)]
        if self.closed:
            return [Say(SEAT_LOST, ERROR)]
        # An earlier "not resigned" is not the answer to this question.
        return [Transition(Trigger.ASK_RESIGN), Say("")]

    def confirm_resign(self, yes: bool) -> list[Effect]:
        answered = Transition(Trigger.ANSWER_RESIGN)
        if not yes:
            return [answered, Say("not resigned")]
        return [answered, Say("resigning ..."), Request("resign")]

    def offer_rematch(self, f: Facts) -> list[Effect]:
        if f.seat is None or not f.over:
            return [Say("a rematch is offered by a player once the game is over", ERROR)]
        if self.closed:
            return [Say(SEAT_LOST, ERROR)]
        return [Say("offering a rematch ..."), Request("rematch")]

    def offer_draw(self, f: Facts) -> list[Effect]:
        """Offer a draw (or accept the opponent's offer), as on lichess."""
        if f.seat is None:
            return [Say("spectators cannot offer a draw", ERROR)]
        if self.closed:
            return [Say(SEAT_LOST, ERROR)]
        if f.over or f.waiting:
            return [Say("a draw is offered while the game is played", ERROR)]
        if f.draw == f.seat:
            return [Say("your draw offer waits for its answer", ERROR)]
        if f.draw is not None:
            return [AnswerOffer("draw", True)]
        return [Say("offering a draw ..."), Request("draw")]

    def ask_abort(self, f: Facts) -> list[Effect]:
        """Call the game off before one's first move, as lichess's abort: nobody wins, so
        nothing is asked first."""
        if f.seat is None:
            return [Say("spectators cannot abort a game", ERROR)]
        if self.closed:
            return [Say(SEAT_LOST, ERROR)]
        if f.over:
            return [Say("the game is over", ERROR)]
        if f.has_moved:
            return [Say("you have moved: the game can no longer be aborted (resign)", ERROR)]
        return [Say("aborting the game ..."), Request("abort")]

    def ask_takeback(self, f: Facts) -> list[Effect]:
        if f.seat is None:
            return [Say("spectators cannot take moves back", ERROR)]
        if self.closed:
            return [Say(SEAT_LOST, ERROR)]
        if not f.has_moved:
            return [Say("you have no move to take back", ERROR)]
        if f.takeback is not None:
            return [Say("a takeback request waits for its answer", ERROR)]
        return [Say("asking to take back your last move ..."), Request("takeback")]

    # -- a line entered ------------------------------------------------------------------------

    def enter(self, f: Facts, text: str) -> list[Effect]:
        """What Enter does with the line `text`: a command, an answer, a move, the cursor's
        hole, or a refusal that says why nothing goes."""
        word = text.strip()
        said = word.lower()
        if self.confirming_resign:
            return self.confirm_resign(said in YES)
        if said in ("quit", "exit") or (said == "q" and f.seat is None):
            return [Screen("quit")]
        if self.closed and word and f.seat is not None:
            return [Say(SEAT_LOST, ERROR)]
        if said in LINE_COMMANDS:
            return LINE_COMMANDS[said](self, f)
        dialog = self.dialog(f)
        if dialog in ANSWERED and said in YES + NO:
            return [AnswerOffer(ANSWERED[dialog], said in YES)]
        play = self.play(f)
        if play is Play.WATCHING:
            return [Say("watching: moves cannot be entered", ERROR)]
        if play is Play.OVER:
            # A bare Enter says nothing: the result stays the last word.
            return [Say("the game is over: r offers a rematch, q leaves", ERROR)] if word else []
        if play is not Play.MY_TURN:
            return [Say(NOT_NOW[play])]
        return self._move(f, word)

    def _move(self, f: Facts, word: str) -> list[Effect]:
        """The move `word` names on our turn (the question's answer, or the cursor's hole on a
        bare Enter): sent, asked about, or refused."""
        assert f.game is not None, "no snapshot yet"
        if self.question is not None:
            option = self.question.pick(word)
            if option is None:
                answers = " or ".join(choice.answer for choice in self.question.options)
                return [Say(f"{word or 'nothing'}: answer {answers}", ERROR)]
            if option.final:
                entry: Entry = OneMove(option.move)
            else:
                entry = read_entry(option.move, f.legal, f.game, f.position)
        elif not word and f.cursor is not None:
            entry = hole_entry(f.cursor, f.legal, f.game, f.position, f.cursor_moves)
        else:
            entry = read_entry(word, f.legal, f.game, f.position)
        if isinstance(entry, Ask):
            # A refusal before the question is no longer the point.
            return [Transition(Trigger.ASK, entry), Say("")]
        if isinstance(entry, Reject):
            return [Transition(Trigger.RESOLVED), Say(entry.message, ERROR)]
        return [
            Transition(Trigger.RESOLVED),
            Say(f"sending {entry.move} ..."),
            SendMove(entry.move),
        ]


Meaning = Callable[[InputMachine, Facts, str], "list[Effect] | None"]


def _unless_typed(effect: Effect, when: Callable[[Facts], bool]) -> Meaning:
    """A letter that does `effect` when nothing is typed and `when` holds (else it is typed)."""
    return lambda machine, f, key: [effect] if not f.typed and when(f) else None


QUIT = Screen("quit")
HELP = Screen("help")
GAME_KEYS: dict[str, Meaning] = {
    "c-q": lambda machine, f, key: [QUIT],
    "c-c": lambda machine, f, key: [QUIT],
    "escape": lambda machine, f, key: machine.escape(f),
    "f1": lambda machine, f, key: [HELP],
    "?": _unless_typed(HELP, lambda f: True),
    "q": _unless_typed(QUIT, lambda f: f.over or f.seat is None),
    "c-f": lambda machine, f, key: [Screen("faster")],
    "c-b": lambda machine, f, key: [Screen("slower")],
    "c-r": lambda machine, f, key: None if f.over else machine.ask_resign(f),
    "c-t": lambda machine, f, key: None if f.over else machine.ask_takeback(f),
    "r": lambda machine, f, key: (
        machine.offer_rematch(f) if not f.typed and f.over and f.seat is not None else None
    ),
    "a": _unless_typed(Request("analyse"), lambda f: f.over and f.started),
    "m": _unless_typed(Screen("mistake 1"), lambda f: f.over),
    "M": _unless_typed(Screen("mistake -1"), lambda f: f.over),
    "y": InputMachine.yes_or_no,
    "n": InputMachine.yes_or_no,
    **dict.fromkeys(("left", "right", "up", "down", "home", "end"), InputMachine.arrow),
}
"""What each key of the game screen means (the help closed): the one place it is decided."""

HELP_KEYS: dict[str, Meaning] = {
    **dict.fromkeys(("escape", "f1", "?", "q"), lambda machine, f, key: [HELP]),
    **dict.fromkeys(("c-q", "c-c"), lambda machine, f, key: [QUIT]),
    **dict.fromkeys(
        ("up", "down", "pageup", "pagedown", " ", "home", "end"),
        lambda machine, f, key: [Screen(f"scroll {key}")],
    ),
}
"""While the help is open it has the keys: scroll it, close it, or leave; others do nothing."""

KEY_HINTS: dict[Hint, str] = {
    Hint.CONNECTING: "^Q: leave",  # nothing else does anything yet, whoever is connecting
    Hint.REMATCH: "F1: help  left/right: moves  r: rematch  a: analysis  q: leave",
    Hint.OVER: "F1: help  left/right: moves  a: analysis  m: mistakes  q: leave",
    Hint.WATCHING: "F1: help  left/right: moves  End: live  Esc: skip  q: leave",
    Hint.WAITING: "F1: help  ^Q: leave",  # no moves yet: the status line says who to invite
    Hint.PLAYING: "F1: help  Tab: moves  arrows: {cells}  ^R: resign  ^Q: leave",
}
"""What the one-line hint under the input line says in each mode: the keys of `GAME_KEYS`
that matter then (F1's help lists them all)."""

KEYS = tuple(dict.fromkeys([*GAME_KEYS, *HELP_KEYS]))
"""Every key `press` may claim."""

LINE_COMMANDS: dict[str, Callable[[InputMachine, Facts], list[Effect]]] = {
    "resign": InputMachine.ask_resign,
    "abort": InputMachine.ask_abort,
    "draw": InputMachine.offer_draw,
    "takeback": InputMachine.ask_takeback,
    "rematch": InputMachine.offer_rematch,
}
"""The words the input line takes besides moves, answers and quit or exit."""
COMMANDS = (*LINE_COMMANDS, "quit", "exit")

NOT_NOW = {
    Play.SENDING: "wait: a move is on its way",
    Play.WAITING: "the opponent has not joined yet",
    Play.THEIR_TURN: "it is not your turn",
}
"""Why a move typed goes nowhere when it is not our turn."""


def awaits_answer(seat: int | None, asker: int | None) -> bool:
    """The opponent's request or offer (made from seat `asker`) waits for `seat`'s answer."""
    return seat is not None and asker is not None and asker != seat
