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

Beside it, each in a module of its own: the phases' table (`kgp_phases`), the effects and the
`Outbox` that paces them (`kgp_effects`), the games an agent joins and sits in and the time
of each `state` (`kgp_games`), verify mode's problems (`kgp_verify`), an agent's words as a
client's (`kgp_names`) and the endpoint's settings (`kgp_settings`).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ubao.engine.protocols.kgp import (
    MAX_LINE,
    VERSION,
    Board,
    Command,
    KgpSyntaxError,
    Word,
    board_of_position,
    kgp_options,
    parse_line,
)
from ubao.protocol import (
    BotInfo,
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
    Move as UbaoMove,
)
from ubao.protocol.messages import MAX_COMMENT
from ubao.server.clock import MessageBudget
from ubao.server.kgp_effects import (
    CloseAgent,
    Effect,
    HeldSeat,
    Invite,
    Outbox,
    SeatHeld,
    SendLine,
    Wait,
)
from ubao.server.kgp_games import Request, Seat, open_bot_seat, paired_game, state_time
from ubao.server.kgp_names import ANONYMOUS, account_key, seat_name, spoken
from ubao.server.kgp_phases import TRANSITIONS, Phase
from ubao.server.kgp_settings import KgpSettings
from ubao.server.kgp_verify import Problem, mistake, random_problem

LINE_BURST = 1_000
"""The lines an agent may send at once..."""
LINES_PER_SECOND = 500.0
"""...and each second after that; more get `error`. The course's Java MinMax agent sends a
`move` and an `info:comment` for every depth of its search, ten lines a state, and two such
agents play tens of states a second: at 50 a second its moves were refused."""


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
        self.lines = MessageBudget.new(LINE_BURST, LINES_PER_SECOND, now)
        self.out = Outbox(now, command_budget)
        self.out.send("kgp", *VERSION)

    # -- what the edge asks ------------------------------------------------------------------

    def take(self) -> list[Effect]:
        """The effects made since the last call, in order."""
        return self.out.take()

    def deadline(self) -> int | None:
        """When `on_time` should next be called (ms), or None."""
        times = [t for t in (self.wait_until, self.request and self.request.ends_at) if t]
        due = self.out.due()
        if due is not None:
            times.append(due)
        return min(times) if times else None

    def on_line(self, line: str, now: int) -> None:
        if self.phase is Phase.CLOSED:
            return
        if not self.lines.take(now):
            self.out.error(None, "too many commands: slow down")
            return
        if len(line) > MAX_LINE:
            self.out.error(None, f"line too long: a command has at most {MAX_LINE} characters")
            return
        try:
            command = parse_line(line)
        except KgpSyntaxError as exc:
            self.out.error(None, f"malformed command: {exc}")
            return
        if command is not None:
            self._command(command, now)
        self.out.release(now)

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
        self.out.release(now)

    def on_time(self, now: int) -> None:
        if self.request is not None and now >= self.request.ends_at:
            self.out.send("stop", ref=self.request.id)
            self._play(now)
        if self.wait_until is not None and now >= self.wait_until:
            self.wait_until = None
            if self.phase is Phase.WAITING:
                self.out.add(Wait(False))
                self._create(guest=False)
        self.out.release(now)

    def host(self, now: int) -> None:
        """Paired with a waiting agent: make the game, and invite it (`Invite`)."""
        if self.phase is Phase.WAITING:
            self.wait_until = None
            self._create(guest=True)
        self.out.release(now)

    def invited(self, game_id: str, seat: int, now: int) -> None:
        """Paired with an agent that made a game for both: take the seat left for it."""
        if self.phase is Phase.WAITING:
            self.wait_until = None
            self._go(Phase.JOINING)
            self.out.queue(Join(self.out.ubao_id(), game_id, seat))
        self.out.release(now)

    def on_closed(self) -> None:
        self.phase = Phase.CLOSED
        self.out.drop()
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
            self.out.send("pong", ref=command.id)
        elif name == "goodbye":
            self._leave(now)
        elif name in ("ok", "error", "pong"):
            pass
        elif name in ("move", "yield") and self.phase is not Phase.GREETED:
            self._answer(command, now)
        elif name == "solution" and self.phase is Phase.VERIFYING:
            self._solution(command)
        else:
            self.out.error(command.id, f"unknown command {name!r} here")

    def _mode(self, command: Command, now: int) -> None:
        if self.phase is not Phase.GREETED:
            self.out.error(command.id, "duplicate mode request")
            return
        mode = command.args[0] if len(command.args) == 1 else None
        if mode == "freeplay":
            self.out.send("ok", "freeplay", ref=command.id)
            self._go(Phase.HELLO)
            self.out.queue(
                Hello(self.out.ubao_id(), 1, self.name, "bot", key=account_key(self.auth))
            )
        elif mode in ("verify", "go-kgp:verify"):
            self._go(Phase.VERIFYING)
            self._pose_problem()
        else:
            self.out.error(command.id, f"unsupported mode {mode!r}: freeplay and verify are")
            self._close()

    def _set(self, command: Command) -> None:
        if len(command.args) != 2 or not isinstance(command.args[0], str):
            self.out.error(command.id, "set takes an option and a value")
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
            self.out.add(SeatHeld(text, None))
        # other options (the info group's authors and description, time and game from an
        # agent, names once seated, unknown ones) are hints: the spec says to ignore them

    def _answer(self, command: Command, now: int) -> None:
        request = self.request
        if request is None or command.ref != request.id:
            self.out.error(command.id, "no state waits for an answer under this reference")
            return
        if command.name == "yield":
            self._play(now)
            return
        pit = command.args[0] if len(command.args) == 1 else None
        if not isinstance(pit, int) or pit not in request.legal:
            self.out.error(command.id, f"illegal move {pit!r}: legal are {list(request.legal)}")
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
                self.out.queue(Resume(self.out.ubao_id(), held.game_id, held.token, 0))
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
            self.out.queue(Join(self.out.ubao_id(), ok.game_id, self.joining_seat))
            if self.guest and self.joining_seat is not None:
                self.out.add(Invite(ok.game_id, 1 - self.joining_seat))
        elif phase is Phase.JOINING and ok.token is not None and ok.game_id is not None:
            number = ok.seat if ok.seat is not None else 0
            self.seat = Seat(ok.game_id, number, ok.token)
            if self.auth:
                self.out.add(SeatHeld(self.auth, HeldSeat(ok.game_id, number, ok.token)))

    def _refused(self, error: Error, now: int) -> None:
        phase = self.phase
        if phase is Phase.JOINING and self.resuming:
            self.resuming = False
            self.seat = None  # the seat the token held is gone
            self.out.add(SeatHeld(self.auth, None))
            self._next()
        elif phase is Phase.JOINING:
            self._next()  # the game went, or its seat: look again
        elif phase is Phase.ENTERING and error.code in (
            ErrorCode.ALREADY_ENTERED,
            ErrorCode.TOURNAMENT_CLOSED,
        ):
            self._show()  # entered before (or it started: its view says whether it was)
        elif phase is Phase.ENTERING:
            self.out.send("error", f"no tournament can be played now: {error.message}")
            self._close()
        elif phase is Phase.PLAYING and self.seat is not None:
            self.out.send("error", f"the server refused the move: {error.message}")
        elif phase in (Phase.HELLO, Phase.LOOKING, Phase.CREATING):
            self.out.send("error", f"no game can be had now: {error.message}")
            self._close()

    def _next(self) -> None:
        """On to the next game: the tournament's, or freeplay's."""
        if self.tournament is None:
            self._look()
        elif self.view is None:
            self._go(Phase.ENTERING)
            self.seat = None
            self.out.queue(TournamentJoin(self.out.ubao_id(), self.tournament))
        else:
            self._go(Phase.FOLLOWING)
            self.seat = None
            self._follow()

    def _show(self) -> None:
        """Follow the tournament: its view now, and each change (`TournamentEvent`)."""
        assert self.tournament is not None
        self.out.queue(TournamentShow(self.out.ubao_id(), self.tournament, subscribe=True))

    def _follow(self) -> None:
        """Join the tournament's game this agent is paired in that has started and that it
        has not joined yet; say `goodbye` once the tournament is over."""
        view = self.view
        assert view is not None
        if self.phase is Phase.ENTERING:
            self._go(Phase.FOLLOWING)
        if self.name not in view.entrants:
            self.out.send(
                "error", f"{self.name} is not an entrant of tournament {view.tournament_id}"
            )
            self._close()
            return
        me = view.entrants.index(self.name)
        paired = paired_game(view, me, self.played)
        if paired is not None:
            game_id, self.joining_seat = paired
            self.played.add(game_id)
            self._go(Phase.JOINING)
            self.out.queue(Join(self.out.ubao_id(), game_id, self.joining_seat))
            return
        if view.status in ("finished", "cancelled"):
            self._close()

    def _look(self) -> None:
        self._go(Phase.LOOKING)
        self.seat = None
        self.out.queue(ListGames(self.out.ubao_id(), "open", limit=100))

    def _pick(self, games: tuple[GameSummary, ...], now: int) -> None:
        """Join a waiting game on KGP's rules whose open seat asks for a bot client: another
        person made for bots; else wait for another agent, or a server bot."""
        for summary in games:
            seat = open_bot_seat(summary)
            if seat is not None:
                self._go(Phase.JOINING)
                self.out.queue(Join(self.out.ubao_id(), summary.game_id, seat))
                return
        self._go(Phase.WAITING)
        self.wait_until = now + self.settings.wait_ms
        self.out.add(Wait(True))

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
        self.out.queue(Create(self.out.ubao_id(), "kalah", options, seats))

    # -- the game ----------------------------------------------------------------------------

    def _event(self, message: Snapshot | Moved | SeatEvent | Over, now: int) -> None:
        seat = self.seat
        if seat is None or message.game_id != seat.game_id:
            return
        if isinstance(message, Snapshot):
            self.resuming = False
        seat.update(message)
        if seat.status == "playing" and self.phase is Phase.JOINING:
            self._go(Phase.PLAYING)
            self._announce(seat)
        if seat.status == "over":
            self._over(now)
        elif self.phase is Phase.PLAYING:
            self._maybe_ask(now)

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
        options, budget = state_time(seat, self.settings.move_ms)
        for option, value in options:
            self.out.send("set", Word(option), value)
        seat.asked_ply = seat.ply
        state_id = self.out.send("state", board_of_position(seat.position))
        self.request = Request(state_id, seat.ply, legal, now, now + budget)

    def _announce(self, seat: Seat) -> None:
        """The `game` group, once a game, as soon as it starts (before any `state` of it)."""
        if not seat.announced:
            seat.announced = True
            self.out.send("set", Word("game:id"), seat.game_id)
            self.out.send("set", Word("game:opponent"), seat.opponent)
            self.out.send("set", Word("game:uri"), self.game_uri(seat.game_id))

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
        self.out.queue(
            UbaoMove(self.out.ubao_id(), seat.game_id, seat.token, request.ply, text, info)
        )

    def _over(self, now: int) -> None:
        """The game ended: on to the next one, as go-kgp's practice server does."""
        self.request = None
        if self.auth:
            self.out.add(SeatHeld(self.auth, None))
        if self.phase in (Phase.PLAYING, Phase.JOINING):
            self._next()

    # -- verify ------------------------------------------------------------------------------

    def _pose_problem(self) -> None:
        """A problem for the agent, judged by ubao's rules when it answers (`_solution`)."""
        problem = random_problem(self.rng)
        self.problems[self.out.send("problem", problem.board, problem.move)] = problem

    def _solution(self, command: Command) -> None:
        problem = self.problems.pop(command.ref, None) if command.ref is not None else None
        if problem is None:
            self.out.error(command.id, "no problem has this reference")
            return
        wrong = mistake(problem, command.args)
        if wrong is None:
            self.out.send("ok", "correct", ref=command.id)
        else:
            self.out.error(command.id, wrong)
        self._pose_problem()

    # -- plumbing ----------------------------------------------------------------------------

    def _go(self, phase: Phase) -> None:
        if phase not in TRANSITIONS[self.phase]:
            raise AssertionError(f"KGP session: {self.phase.value} -> {phase.value}")
        self.phase = phase

    def _leave(self, now: int) -> None:
        """A `goodbye`: the agent is not coming back, so the game it plays is resigned (a
        connection that merely drops keeps its seat for the grace period, as anybody's)."""
        seat = self.seat
        if self.phase is Phase.PLAYING and seat is not None and seat.status == "playing":
            self.out.queue(Resign(self.out.ubao_id(), seat.game_id, seat.token))
            self.out.release(now)
        self._close()

    def _close(self) -> None:
        if self.phase is not Phase.CLOSED:
            self.out.add(SendLine("goodbye"))
            self.out.add(CloseAgent())
            self.on_closed()
