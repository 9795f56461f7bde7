"""A KGP agent as a ubao client: the gateway's state machine, pure (sans-I/O).

Each KGP connection is one `KgpSession`: KGP lines from the agent and ubao messages from the
core go in, KGP lines to the agent and ubao commands to the core come out (`Effect`s), and
`deadline` says when it wants the time (`on_time`). The agent plays as an ordinary ubao seat:
its moves are `move` commands the rules validate, its games ordinary games (docs/kgp.md).

Freeplay as go-kgp's practice server gives it: a waiting game that asks for a bot client on
KGP's rules is joined; else the agent waits for another agent (the edge pairs them: one hosts a
game, the other is invited to it), and when none comes within `wait_ms` it plays a server bot.
Each `state` lasts until the agent yields or its time is up (`stop`): then its last `move` is
played, or a random legal move when it sent none, as the spec says.

An agent that sets `tournament:id` plays a tournament instead, as go-kgp's tournament server
gives games: its account is entered (if it was not), the tournament followed, and each game it
is paired in joined as it starts; at the tournament's end the server says `goodbye`.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ubao.engine.game import GameError
from ubao.engine.games import make_game
from ubao.engine.mancala.game import Mancala
from ubao.engine.protocols.kgp import (
    MAX_LINE,
    VERSION,
    Board,
    Command,
    KgpSyntaxError,
    Word,
    board_of_position,
    format_line,
    kgp_options,
    parse_line,
    plays_kgp_rules,
    position_of_board,
)
from ubao.protocol import (
    MAX_TOKEN,
    MIN_KEY,
    BotInfo,
    Clocks,
    Create,
    Error,
    ErrorCode,
    GameSummary,
    Hello,
    Join,
    ListGames,
    Moved,
    Ok,
    Over,
    Resign,
    Resume,
    SeatEvent,
    SeatSpec,
    ServerMessage,
    Snapshot,
    TournamentEvent,
    TournamentJoin,
    TournamentShow,
    TournamentView,
)
from ubao.protocol import (
    Command as UbaoCommand,
)
from ubao.protocol import (
    Move as UbaoMove,
)
from ubao.protocol.messages import MAX_COMMENT, MAX_NAME
from ubao.server.clock import MessageBudget

ANONYMOUS = "anonymous"
"""The seat's name of an agent that gave no `info:name`."""
MIN_MOVE_MS = 50
"""The least time a `state` lasts, whatever the clock says."""
COMMAND_SHARE = 0.8
"""Of the core's message rate, what the session spends: the core's bucket and this one do not
count at the same instants."""
LINE_BURST = 1_000
"""The lines an agent may send at once..."""
LINES_PER_SECOND = 500.0
"""...and each second after that; more get `error`. The course's Java MinMax agent sends a
`move` and an `info:comment` for every depth of its search, ten lines a state, and two such
agents play tens of states a second: at 50 a second its moves were refused."""
CLOCK_MARGIN_MS = 300
"""Kept back from a seat's clock when its `state` is timed: the move must still reach the core."""


@dataclass(frozen=True, slots=True)
class KgpSettings:
    """The endpoint's settings (`ubao-server --kgp-*`, docs/kgp.md)."""

    port: int = -1
    """TCP port for agents; 0 picks a free one, -1 none (the WebSocket path `/kgp` is always
    there)."""
    pits: int = 6
    seeds: int = 4
    wait_ms: int = 5_000
    """How long a freeplay agent waits for another agent before it gets a server bot."""
    move_ms: int = 5_000
    """How long a `state` lasts at most (go-kgp's practice server: 5 s)."""
    bot_depth: int = 6
    """The depth of the server bot an agent plays when nobody else comes."""


@dataclass(frozen=True, slots=True)
class SendLine:
    """A KGP line for the agent."""

    line: str


@dataclass(frozen=True, slots=True)
class SendCommand:
    """A ubao command for the core, on the session's connection."""

    command: UbaoCommand


@dataclass(frozen=True, slots=True)
class CloseAgent:
    """End the connection (after `goodbye`)."""


@dataclass(frozen=True, slots=True)
class SeatHeld:
    """The agent's `auth:token` now holds this seat (None: none): the edge remembers it for a
    reconnection with the same token."""

    auth: str
    seat: HeldSeat | None


def account_key(token: str) -> str | None:
    """The agent's `auth:token` as the key of its `info:name`'s account (docs/kgp.md): a token
    that cannot be a key (the server's are 43 characters) is none, and the agent a guest, who
    cannot play under a claimed name."""
    fits = MIN_KEY <= len(token) <= MAX_TOKEN and token.isprintable()
    return token if fits else None


@dataclass(frozen=True, slots=True)
class HeldSeat:
    """A seat an `auth:token` holds: the game, the seat's number and its ubao token."""

    game_id: str
    seat: int
    token: str


@dataclass(frozen=True, slots=True)
class Wait:
    """The agent waits for another to play (`waiting` True), or no longer does: the edge pairs
    two waiting agents by `host` and `invited`."""

    waiting: bool


@dataclass(frozen=True, slots=True)
class Invite:
    """The game this agent hosts has `seat` open for the agent it was paired with."""

    game_id: str
    seat: int


Effect = SendLine | SendCommand | CloseAgent | SeatHeld | Wait | Invite


class Phase(Enum):
    GREETED = "greeted"  # `kgp` sent: waiting for `mode`
    HELLO = "hello"  # ubao `hello` sent
    LOOKING = "looking"  # the lobby asked for a game to join
    JOINING = "joining"  # `join` or `resume` sent
    CREATING = "creating"  # a game of its own asked for
    WAITING = "waiting"  # waiting for another agent, or for a server bot
    PLAYING = "playing"
    ENTERING = "entering"  # a tournament entered and followed
    FOLLOWING = "following"  # waiting for its next game of the tournament
    VERIFYING = "verifying"
    CLOSED = "closed"


TRANSITIONS: dict[Phase, frozenset[Phase]] = {
    Phase.GREETED: frozenset({Phase.HELLO, Phase.VERIFYING, Phase.CLOSED}),
    Phase.HELLO: frozenset({Phase.LOOKING, Phase.JOINING, Phase.ENTERING, Phase.CLOSED}),
    Phase.LOOKING: frozenset({Phase.JOINING, Phase.WAITING, Phase.CLOSED}),
    Phase.JOINING: frozenset(
        {Phase.PLAYING, Phase.LOOKING, Phase.ENTERING, Phase.FOLLOWING, Phase.CLOSED}
    ),
    Phase.CREATING: frozenset({Phase.JOINING, Phase.LOOKING, Phase.CLOSED}),
    Phase.WAITING: frozenset({Phase.CREATING, Phase.JOINING, Phase.CLOSED}),
    Phase.PLAYING: frozenset({Phase.LOOKING, Phase.ENTERING, Phase.FOLLOWING, Phase.CLOSED}),
    Phase.ENTERING: frozenset({Phase.FOLLOWING, Phase.CLOSED}),
    Phase.FOLLOWING: frozenset({Phase.JOINING, Phase.CLOSED}),
    Phase.VERIFYING: frozenset({Phase.CLOSED}),
    Phase.CLOSED: frozenset(),
}
"""Each phase and the phases it may go to: a freeplay agent goes round from LOOKING to PLAYING
and back for as long as it stays; a tournament's from FOLLOWING to PLAYING and back until the
tournament ends."""


def seat_name(text: str) -> str:
    """An `info:name` as a ubao player name: printable, trimmed, at most MAX_NAME characters."""
    cleaned = "".join(char if char.isprintable() else "?" for char in text)
    return cleaned.strip()[:MAX_NAME].strip() or ANONYMOUS


def spoken(text: str, limit: int) -> str:
    """Agent text others will read: printable, at most `limit` characters."""
    return "".join(char if char.isprintable() else " " for char in text)[:limit]


@dataclass(slots=True)
class Request:
    """The `state` the agent is working on."""

    id: int
    ply: int
    legal: tuple[int, ...]
    sent_at: int
    ends_at: int
    move: int | None = None


@dataclass(slots=True)
class Seat:
    """The game the agent sits in."""

    game_id: str
    seat: int
    token: str
    game: Mancala | None = None
    position: tuple[int, ...] | None = None
    ply: int = 0
    to_move: int = 0
    status: str = "waiting"
    clocks: Clocks | None = None
    opponent: str = ""
    asked_ply: int = -1
    """The ply of the last `state` sent: one per ply."""
    announced: bool = False
    """Whether `game:id` and the others were set for it."""


@dataclass(slots=True)
class Problem:
    board: Board
    move: int


class KgpSession:
    """One agent's connection (see the module's docstring)."""

    def __init__(
        self,
        settings: KgpSettings,
        now: int,
        *,
        rng: random.Random | None = None,
        held_seat: Callable[[str], HeldSeat | None] = lambda auth: None,
        game_uri: Callable[[str], str] = lambda game_id: "",
        command_budget: tuple[int, float] = (60, 20.0),
    ) -> None:
        self.settings = settings
        self.rng = rng or random.Random()
        self.held_seat = held_seat
        self.game_uri = game_uri
        self.phase = Phase.GREETED
        self.name = ANONYMOUS
        self.auth = ""
        self.comment = ""
        self.seat: Seat | None = None
        self.request: Request | None = None
        self.problems: dict[int, Problem] = {}
        self.joining_seat: int | None = None
        """The seat it takes in the game it asked for."""
        self.guest: bool = False
        """Whether the game it asked for has the other seat open for the agent it was paired
        with (`Invite`)."""
        self.resuming = False
        self.tournament: str | None = None
        """The tournament it plays (`tournament:id`), if any, instead of freeplay."""
        self.view: TournamentView | None = None
        """That tournament as last heard of."""
        self.played: set[str] = set()
        """The tournament's games it joined (each once)."""
        self.wait_until: int | None = None
        self.next_id = 0
        self.next_ubao_id = 0
        self.lines = MessageBudget.new(LINE_BURST, LINES_PER_SECOND, now)
        burst, per_second = command_budget
        self.commands = MessageBudget.new(max(1, burst // 2), per_second * COMMAND_SHARE, now)
        """Within the core's own message budget (`--message-burst`, `--message-rate`): an agent
        that plays faster is paced, not cut off."""
        self.queued: deque[UbaoCommand] = deque()
        self.effects: list[Effect] = []
        self._send("kgp", *VERSION)

    # -- what the edge asks ------------------------------------------------------------------

    def take(self) -> list[Effect]:
        """The effects made since the last call, in order."""
        effects, self.effects = self.effects, []
        return effects

    def deadline(self) -> int | None:
        """When `on_time` should next be called (ms), or None."""
        times = [t for t in (self.wait_until, self.request and self.request.ends_at) if t]
        if self.queued:
            budget = self.commands
            times.append(budget.last + math.ceil((1 - budget.tokens) / budget.per_second * 1000))
        return min(times) if times else None

    def on_line(self, line: str, now: int) -> None:
        if self.phase is Phase.CLOSED:
            return
        if not self.lines.take(now):
            self._error(None, "too many commands: slow down")
            return
        if len(line) > MAX_LINE:
            self._error(None, f"line too long: a command has at most {MAX_LINE} characters")
            return
        try:
            command = parse_line(line)
        except KgpSyntaxError as exc:
            self._error(None, f"malformed command: {exc}")
            return
        if command is not None:
            self._command(command, now)
        self._release(now)

    def on_message(self, message: ServerMessage, now: int) -> None:
        if self.phase is Phase.CLOSED:
            return
        if isinstance(message, Ok):
            self._ok(message, now)
        elif isinstance(message, Error):
            self._refused(message, now)
        elif isinstance(message, Snapshot | Moved | SeatEvent | Over):
            self._event(message, now)
        elif isinstance(message, TournamentEvent):
            self.view = message.tournament
            if self.phase is Phase.FOLLOWING:
                self._follow()
        self._release(now)

    def on_time(self, now: int) -> None:
        if self.request is not None and now >= self.request.ends_at:
            self._send("stop", ref=self.request.id)
            self._play(now)
        if self.wait_until is not None and now >= self.wait_until:
            self.wait_until = None
            if self.phase is Phase.WAITING:
                self.effects.append(Wait(False))
                self._create(guest=False)
        self._release(now)

    def host(self, now: int) -> None:
        """Paired with a waiting agent: make the game, and invite it (`Invite`)."""
        if self.phase is Phase.WAITING:
            self.wait_until = None
            self._create(guest=True)
        self._release(now)

    def invited(self, game_id: str, seat: int, now: int) -> None:
        """Paired with an agent that made a game for both: take the seat left for it."""
        if self.phase is Phase.WAITING:
            self.wait_until = None
            self._go(Phase.JOINING)
            self._ubao(Join(self._ubao_id(), game_id, seat))
        self._release(now)

    def on_closed(self) -> None:
        self.phase = Phase.CLOSED
        self.queued.clear()
        self.request = None
        self.wait_until = None

    # -- the agent's commands ----------------------------------------------------------------

    def _command(self, command: Command, now: int) -> None:
        name = command.name
        if name == "mode":
            self._mode(command, now)
        elif name == "set":
            self._set(command)
        elif name == "ping":
            self._send("pong", ref=command.id)
        elif name == "goodbye":
            self._leave(now)
        elif name in ("ok", "error", "pong"):
            pass
        elif name in ("move", "yield") and self.phase is not Phase.GREETED:
            self._answer(command, now)
        elif name == "solution" and self.phase is Phase.VERIFYING:
            self._solution(command)
        else:
            self._error(command.id, f"unknown command {name!r} here")

    def _mode(self, command: Command, now: int) -> None:
        if self.phase is not Phase.GREETED:
            self._error(command.id, "duplicate mode request")
            return
        mode = command.args[0] if len(command.args) == 1 else None
        if mode == "freeplay":
            self._send("ok", "freeplay", ref=command.id)
            self._go(Phase.HELLO)
            self._ubao(Hello(self._ubao_id(), 1, self.name, "bot", key=account_key(self.auth)))
        elif mode in ("verify", "go-kgp:verify"):
            self._go(Phase.VERIFYING)
            self._pose_problem()
        else:
            self._error(command.id, f"unsupported mode {mode!r}: freeplay and verify are")
            self._close()

    def _set(self, command: Command) -> None:
        if len(command.args) != 2 or not isinstance(command.args[0], str):
            self._error(command.id, "set takes an option and a value")
            return
        option, value = command.args
        text = str(value) if not isinstance(value, Board) else ""
        if option == "info:name" and self.phase is Phase.GREETED:
            self.name = seat_name(text)
        elif option == "info:comment":
            self.comment = spoken(text, MAX_COMMENT)
        elif option == "auth:token" and text and self.phase is Phase.GREETED:
            self.auth = text
        elif option == "tournament:id" and text and self.phase is Phase.GREETED:
            self.tournament = text
        elif option == "auth:forget" and text:
            self.effects.append(SeatHeld(text, None))
        # other options (the info group's authors and description, time and game from an
        # agent, names once seated, unknown ones) are hints: the spec says to ignore them

    def _answer(self, command: Command, now: int) -> None:
        request = self.request
        if request is None or command.ref != request.id:
            self._error(command.id, "no state waits for an answer under this reference")
            return
        if command.name == "yield":
            self._play(now)
            return
        pit = command.args[0] if len(command.args) == 1 else None
        if not isinstance(pit, int) or pit not in request.legal:
            self._error(command.id, f"illegal move {pit!r}: legal are {list(request.legal)}")
            return
        request.move = pit

    # -- seating -----------------------------------------------------------------------------

    def _ok(self, ok: Ok, now: int) -> None:
        phase = self.phase
        if phase is Phase.HELLO:
            if ok.name is not None:
                self.name = ok.name  # the account's own spelling, as its entrant is named
            held = self.held_seat(self.auth) if self.auth else None
            if held is not None:
                self._go(Phase.JOINING)
                self.resuming = True
                self.seat = Seat(held.game_id, held.seat, held.token)
                self._ubao(Resume(self._ubao_id(), held.game_id, held.token, 0))
            else:
                self._next()
        elif phase is Phase.ENTERING and ok.tournament is not None:
            self.view = ok.tournament
            self._follow()
        elif phase is Phase.ENTERING:
            self._show()
        elif phase is Phase.LOOKING and ok.games is not None:
            self._pick(ok.games, now)
        elif phase is Phase.CREATING and ok.game_id is not None:
            self._go(Phase.JOINING)
            self._ubao(Join(self._ubao_id(), ok.game_id, self.joining_seat))
            if self.guest and self.joining_seat is not None:
                self.effects.append(Invite(ok.game_id, 1 - self.joining_seat))
        elif phase is Phase.JOINING and ok.token is not None and ok.game_id is not None:
            number = ok.seat if ok.seat is not None else 0
            self.seat = Seat(ok.game_id, number, ok.token)
            if self.auth:
                self.effects.append(SeatHeld(self.auth, HeldSeat(ok.game_id, number, ok.token)))

    def _refused(self, error: Error, now: int) -> None:
        phase = self.phase
        if phase is Phase.JOINING and self.resuming:
            self.resuming = False
            self.seat = None  # the seat the token held is gone
            self.effects.append(SeatHeld(self.auth, None))
            self._next()
        elif phase is Phase.JOINING:
            self._next()  # the game went, or its seat: look again
        elif phase is Phase.ENTERING and error.code in (
            ErrorCode.ALREADY_ENTERED,
            ErrorCode.TOURNAMENT_CLOSED,
        ):
            self._show()  # entered before (or it started: its view says whether it was)
        elif phase is Phase.ENTERING:
            self._send("error", f"no tournament can be played now: {error.message}")
            self._close()
        elif phase is Phase.PLAYING and self.seat is not None:
            self._send("error", f"the server refused the move: {error.message}")
        elif phase in (Phase.HELLO, Phase.LOOKING, Phase.CREATING):
            self._send("error", f"no game can be had now: {error.message}")
            self._close()

    def _next(self) -> None:
        """On to the next game: the tournament's, or freeplay's."""
        if self.tournament is None:
            self._look()
        elif self.view is None:
            self._go(Phase.ENTERING)
            self.seat = None
            self._ubao(TournamentJoin(self._ubao_id(), self.tournament))
        else:
            self._go(Phase.FOLLOWING)
            self.seat = None
            self._follow()

    def _show(self) -> None:
        """Follow the tournament: its view now, and each change (`TournamentEvent`)."""
        assert self.tournament is not None
        self._ubao(TournamentShow(self._ubao_id(), self.tournament, subscribe=True))

    def _follow(self) -> None:
        """Join the tournament's game this agent is paired in that has started and that it
        has not joined yet; say `goodbye` once the tournament is over."""
        view = self.view
        assert view is not None
        if self.phase is Phase.ENTERING:
            self._go(Phase.FOLLOWING)
        if self.name not in view.entrants:
            self._send("error", f"{self.name} is not an entrant of tournament {view.tournament_id}")
            self._close()
            return
        me = view.entrants.index(self.name)
        for p in view.pairings:
            if p.game_id is None or p.result != "*" or p.game_id in self.played:
                continue
            if me in (p.white, p.black):
                self.played.add(p.game_id)
                self._go(Phase.JOINING)
                self.joining_seat = 0 if p.white == me else 1
                self._ubao(Join(self._ubao_id(), p.game_id, self.joining_seat))
                return
        if view.status in ("finished", "cancelled"):
            self._close()

    def _look(self) -> None:
        self._go(Phase.LOOKING)
        self.seat = None
        self._ubao(ListGames(self._ubao_id(), "open", limit=100))

    def _pick(self, games: tuple[GameSummary, ...], now: int) -> None:
        """Join a waiting game on KGP's rules whose open seat asks for a bot client: another
        person made for bots; else wait for another agent, or a server bot."""
        for summary in games:
            seat = self._open_bot_seat(summary)
            if seat is not None:
                self._go(Phase.JOINING)
                self._ubao(Join(self._ubao_id(), summary.game_id, seat))
                return
        self._go(Phase.WAITING)
        self.wait_until = now + self.settings.wait_ms
        self.effects.append(Wait(True))

    @staticmethod
    def _open_bot_seat(summary: GameSummary) -> int | None:
        if summary.game != "kalah" or summary.status != "waiting":
            return None
        try:
            game = make_game("kalah", summary.options)
        except GameError:  # options a newer server allows: not for KGP
            return None
        if not plays_kgp_rules(game.options):
            return None
        for number, seat in enumerate(summary.seats):
            if seat.kind == "open" and seat.name is None and seat.wants_bot:
                return number
        return None

    def _create(self, *, guest: bool) -> None:
        """A game on KGP's rules, the agent's seat (taken next) at random: the other seat for
        the agent it was paired with (`guest`), or a server bot's."""
        self._go(Phase.CREATING)
        settings = self.settings
        opponent = SeatSpec.external_bot() if guest else SeatSpec.bot(settings.bot_depth)
        self.joining_seat = self.rng.randrange(2)
        self.guest = guest
        seats = (SeatSpec.external_bot(), opponent)
        if self.joining_seat:
            seats = (opponent, SeatSpec.external_bot())
        options = kgp_options(settings.pits, settings.seeds)
        self._ubao(Create(self._ubao_id(), "kalah", options, seats))

    # -- the game ----------------------------------------------------------------------------

    def _event(self, message: Snapshot | Moved | SeatEvent | Over, now: int) -> None:
        seat = self.seat
        if seat is None or message.game_id != seat.game_id:
            return
        if isinstance(message, Snapshot):
            self.resuming = False
            seat.game = make_game(message.game, message.options)  # type: ignore[assignment]
            seat.status = message.status
            seat.ply = message.ply
            seat.clocks = message.clocks
            seat.opponent = message.seats[1 - seat.seat].name or ""
            self._at(message.position, message.to_move)
        elif isinstance(message, Moved):
            seat.ply = message.ply + 1
            seat.clocks = message.clocks
            self._at(message.position, message.to_move)
        elif isinstance(message, SeatEvent):
            if message.seat != seat.seat and message.name is not None:
                seat.opponent = message.name
            if message.status is not None:
                seat.status = message.status
            if message.clocks is not None:
                seat.clocks = message.clocks
        else:
            seat.status = "over"
        if seat.status == "playing" and self.phase is Phase.JOINING:
            self._go(Phase.PLAYING)
            self._announce(seat)
        if seat.status == "over":
            self._over(now)
        elif self.phase is Phase.PLAYING:
            self._maybe_ask(now)

    def _at(self, position_text: str, to_move: int) -> None:
        seat = self.seat
        assert seat is not None and seat.game is not None
        seat.position = seat.game.parse_position(position_text)
        seat.to_move = to_move

    def _maybe_ask(self, now: int) -> None:
        """Send a `state` when it is the agent's turn and none is pending for this ply."""
        seat = self.seat
        if seat is None or seat.game is None or seat.position is None:
            return
        if seat.to_move != seat.seat or seat.asked_ply == seat.ply:
            return
        legal = tuple(seat.game.legal_moves(seat.position))
        if not legal:
            return
        self._announce(seat)
        budget = self._time(seat)
        seat.asked_ply = seat.ply
        state_id = self._send("state", board_of_position(seat.position))
        self.request = Request(state_id, seat.ply, legal, now, now + budget)

    def _announce(self, seat: Seat) -> None:
        """The `game` group, once a game, as soon as it starts (before any `state` of it)."""
        if not seat.announced:
            seat.announced = True
            self._send("set", Word("game:id"), seat.game_id)
            self._send("set", Word("game:opponent"), seat.opponent)
            self._send("set", Word("game:uri"), self.game_uri(seat.game_id))

    def _time(self, seat: Seat) -> int:
        """The time for this `state` (ms), with the `time:*` options that say it (the mode as a
        quoted string: the course's Java client reads no bare word there)."""
        move_ms = self.settings.move_ms
        clocks = seat.clocks
        if clocks is None:
            self._send("set", Word("time:mode"), "relative")
            self._send("set", Word("time:clock"), max(1, move_ms // 1000))
            return move_ms
        mine, theirs = clocks.remaining_ms[seat.seat], clocks.remaining_ms[1 - seat.seat]
        self._send("set", Word("time:mode"), "absolute")
        self._send("set", Word("time:clock"), mine // 1000)
        self._send("set", Word("time:opclock"), theirs // 1000)
        return max(MIN_MOVE_MS, min(move_ms, mine - CLOCK_MARGIN_MS))

    def _play(self, now: int) -> None:
        """The request ends: its last move (or a random legal one) goes to the rules."""
        request, seat = self.request, self.seat
        self.request = None
        if request is None or seat is None or seat.game is None or seat.position is None:
            return
        pit = request.move if request.move is not None else self.rng.choice(request.legal)
        comment = self.comment or ("" if request.move is not None else "[random move]")
        self.comment = ""
        info = BotInfo(0, 0, 0, now - request.sent_at, (str(pit),), comment=comment or None)
        text = seat.game.format_move(seat.position, pit)
        self._ubao(UbaoMove(self._ubao_id(), seat.game_id, seat.token, request.ply, text, info))

    def _over(self, now: int) -> None:
        """The game ended: on to the next one, as go-kgp's practice server does."""
        self.request = None
        if self.auth:
            self.effects.append(SeatHeld(self.auth, None))
        if self.phase in (Phase.PLAYING, Phase.JOINING):
            self._next()

    # -- verify ------------------------------------------------------------------------------

    def _pose_problem(self) -> None:
        """A random board (go-kgp's sizes and counts) of a game not over and a legal move of
        South's, answered by ubao's rules (`_solution`)."""
        rng = self.rng
        while True:
            size = rng.randrange(6, 12)
            board = Board(
                rng.randrange(4 * size),
                rng.randrange(4 * size),
                tuple(rng.randrange(2 * size) for _ in range(size)),
                tuple(rng.randrange(2 * size) for _ in range(size)),
            )
            game = make_game("kalah", kgp_options(size, 1))
            legal = game.legal_moves(position_of_board(board))  # none once over
            if legal:
                break
        move = rng.choice(legal)
        problem_id = self._send("problem", board, move)
        self.problems[problem_id] = Problem(board, move)

    @staticmethod
    def _sown(board: Board, move: int) -> tuple[Board, bool]:
        """`board` after South sows `move` by ubao's Kalah on KGP's rules; whether South moves
        again."""
        game = make_game("kalah", kgp_options(board.size, 1))
        after = game.play(position_of_board(board), move)
        south_again = after[-1] == 0
        return board_of_position((*after[:-1], 0)), south_again

    def _solution(self, command: Command) -> None:
        problem = self.problems.pop(command.ref, None) if command.ref is not None else None
        if problem is None:
            self._error(command.id, "no problem has this reference")
            return
        board, again = command.args if len(command.args) == 2 else (None, None)
        expected, repeat = self._sown(problem.board, problem.move)
        if not isinstance(board, Board) or not isinstance(again, int):
            self._error(command.id, "a solution is a board and 0 or 1")
        elif board != expected:
            self._error(command.id, f"expected state {format_line(Command('', (expected,)))[1:]}")
        elif bool(again) != repeat:
            self._error(command.id, "was a repeat move" if repeat else "was not a repeat move")
        else:
            self._send("ok", "correct", ref=command.id)
        self._pose_problem()

    # -- plumbing ----------------------------------------------------------------------------

    def _go(self, phase: Phase) -> None:
        if phase not in TRANSITIONS[self.phase]:
            raise AssertionError(f"KGP session: {self.phase.value} -> {phase.value}")
        self.phase = phase

    def _send(self, name: str, *args: Any, ref: int | None = None) -> int:
        """Send a command under a fresh even id (the agents' are odd by custom); the id."""
        self.next_id += 2
        command = Command(name, args, self.next_id, ref)
        self.effects.append(SendLine(format_line(command)))
        return self.next_id

    def _error(self, ref: int | None, message: str) -> None:
        self._send("error", message, ref=ref)

    def _leave(self, now: int) -> None:
        """A `goodbye`: the agent is not coming back, so the game it plays is resigned (a
        connection that merely drops keeps its seat for the grace period, as anybody's)."""
        seat = self.seat
        if self.phase is Phase.PLAYING and seat is not None and seat.status == "playing":
            self._ubao(Resign(self._ubao_id(), seat.game_id, seat.token))
            self._release(now)
        self._close()

    def _close(self) -> None:
        if self.phase is not Phase.CLOSED:
            self.effects.append(SendLine("goodbye"))
            self.effects.append(CloseAgent())
            self.on_closed()

    def _ubao(self, command: UbaoCommand) -> None:
        self.queued.append(command)

    def _release(self, now: int) -> None:
        """The queued commands the budget allows now, in order; the rest at `deadline`."""
        while self.queued and self.commands.take(now):
            self.effects.append(SendCommand(self.queued.popleft()))

    def _ubao_id(self) -> int:
        self.next_ubao_id += 1
        return self.next_ubao_id
