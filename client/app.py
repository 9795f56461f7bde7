"""The full-screen game screen: what its keys do, what it sends, and the events it shows.

`GameApp` wires the three parts of the screen: the input machine (`InputMachine`: what a key
or a line means, as effects), the layout (`game_layout`: the containers and their sizes) and
the view it builds on (`GameView`: every text, drawn from the state). It never talks to the
network: events come in through `on_event`, and moves and resignations go out through the
`Actions` it is given. Playing and watching use the same screen; a spectator (or a player
whose opponent is to move) simply has no legal moves to enter.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Iterable, Sequence
from typing import Any, Protocol

from prompt_toolkit.application import Application, create_app_session
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.input import Input
from prompt_toolkit.input.ansi_escape_sequences import ANSI_SEQUENCES
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.output import Output

from ubao.client import analysis_text, news
from ubao.client.bell import FOCUS_IN, FOCUS_OUT, FOCUS_REPORTS_OFF, FOCUS_REPORTS_ON, Attention
from ubao.client.board import STEP_SECONDS, sowing_frames, step_cursor
from ubao.client.connection import Disconnected, ServerError
from ubao.client.input_machine import (
    KEYS,
    SEAT_LOST,
    AnswerOffer,
    Browse,
    Effect,
    Request,
    Say,
    Screen,
    SendMove,
    awaits_answer,
)
from ubao.client.layout import game_layout
from ubao.client.render import STYLE
from ubao.client.state import Applied, GameState
from ubao.client.view import GameView
from ubao.protocol import (
    DrawOffer,
    ErrorCode,
    Event,
    Moved,
    Over,
    RematchOffer,
    SeatEvent,
    Snapshot,
    TakebackRequest,
)

MIN_STEP, MAX_STEP = 0.02, 2.0
FOCUS_IN_KEY, FOCUS_OUT_KEY = Keys.F24, Keys.F23
"""The keys the terminal's focus reports are read as (`--bell`): keys no keyboard here needs."""
ANSI_SEQUENCES.setdefault(FOCUS_IN, FOCUS_IN_KEY)
ANSI_SEQUENCES.setdefault(FOCUS_OUT, FOCUS_OUT_KEY)
IDLE_LOOK_S = 1.0
"""With no time running, how often the screen looks whether one runs (it draws nothing)."""
TICK_S = 0.01
"""Past a shown time's change, when the screen is drawn: the new second is there for sure."""


class Actions(Protocol):
    """What the screen asks of the network side; both raise ServerError or Disconnected."""

    async def move(self, ply: int, move: str) -> None: ...

    async def resign(self) -> None: ...

    async def abort(self) -> None: ...

    async def draw(self, ply: int) -> None: ...

    async def answer_draw(self, ply: int, accept: bool) -> None: ...

    async def takeback(self, ply: int) -> None: ...

    async def answer_takeback(self, ply: int, accept: bool) -> None: ...

    async def rematch(self) -> None: ...

    async def answer_rematch(self, accept: bool) -> None: ...

    async def analyse(self) -> int | None: ...


class _MoveCompleter(Completer):
    """Completes the moves (or answers) the screen would accept right now: while typing, or on
    Tab; an empty line offers nothing by itself (else a line just sent would reopen them)."""

    def __init__(self, choices: Callable[[], Iterable[str]]) -> None:
        self.choices = choices

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        word = document.text_before_cursor.strip().lower()
        if not word and not complete_event.completion_requested:
            return
        for choice in self.choices():
            if choice.lower().startswith(word):
                yield Completion(choice, start_position=-len(document.text_before_cursor))


class GameApp(GameView):
    """The screen of one live game, played from `seat` or watched (seat None)."""

    def __init__(
        self,
        state: GameState,
        *,
        seat: int | None = None,
        actions: Actions | None = None,
        step_seconds: float = STEP_SECONDS,
        on_gap: Callable[[], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        input: Input | None = None,
        output: Output | None = None,
        bell: bool = False,
    ) -> None:
        super().__init__(state, seat, clock)
        self.attention = Attention() if bell else None
        """With `--bell`: whether the player looks at the screen (client/bell.py)."""
        self.actions = actions
        self.step_seconds = step_seconds
        self.on_gap = on_gap
        self.unsent: tuple[int, str] | None = None
        """A move (its ply and text) that was on its way when the connection dropped: sent
        again after the resume if it did not arrive and the turn is still ours."""
        self._turn_ply = -1
        """The ply whose turn the cursor belongs to."""
        self._notes: dict[int, str] = {}
        """What the feedback line says of each move queued behind the one being shown, by
        ply: said when its frames begin."""
        self._declined_at: int | None = None
        """The ply of a takeback request declined by the event just applied: a move at that
        ply, next, is what declined it."""
        self._animation: asyncio.Task[None] | None = None
        self._quitting = False
        self.buffer = Buffer(
            multiline=False,
            completer=_MoveCompleter(lambda: self.input.choices(self.facts())),
            complete_while_typing=True,
            accept_handler=self._accept,
        )
        self.buffer.on_text_changed += self._typed
        self.buffer.on_completions_changed += self._typed
        layout, self._help_window = game_layout(self.parts(), self.buffer)
        self.application = Application(
            layout=layout,
            key_bindings=self._game_keys(),
            style=STYLE,
            full_screen=True,
            input=input,
            output=output,
        )

    # -- keys and effects ----------------------------------------------------------------------

    def _game_keys(self) -> KeyBindings:
        """Every key the screen may take: the input machine says, key by key, whether it takes
        it now (else it is typed) and what it does."""
        keys = KeyBindings()
        if self.attention is not None:

            @keys.add(FOCUS_IN_KEY)
            @keys.add(FOCUS_OUT_KEY)
            def _focus(event: KeyPressEvent) -> None:
                assert self.attention is not None
                self.attention.focused = event.key_sequence[0].key == FOCUS_IN_KEY

        for key in KEYS:

            def claimed(key: str = key) -> bool:
                return self.input.press(self.facts(), key) is not None

            @keys.add(key, filter=Condition(claimed), eager=key == "escape")
            def _press(event: KeyPressEvent, key: str = key) -> None:
                self._key_pressed()
                self.carry_out(self.input.press(self.facts(), key) or [])

        return keys

    def _accept(self, buffer: Buffer) -> bool:
        """Enter in the input line: a command, an answer, a typed move, or the cursor's hole."""
        self._key_pressed()
        self.enter(buffer.text)
        return False

    def enter(self, text: str) -> None:
        """Handle one line of input (what Enter does with the text typed)."""
        self.carry_out(self.input.enter(self.facts(), text))

    def carry_out(self, effects: Sequence[Effect]) -> None:
        """Do what the input machine decided, in order."""
        for effect in effects:
            self.input.apply(effect)
            if isinstance(effect, Say):
                self.say(effect.text, effect.style)
            elif isinstance(effect, SendMove):
                self._spawn(self._send(self.state.ply, effect.move))
            elif isinstance(effect, AnswerOffer):
                answer = {
                    "takeback": self.answer_takeback,
                    "draw": self.answer_draw,
                    "rematch": self.answer_rematch,
                }[effect.offer]
                answer(effect.accept)
            elif isinstance(effect, Request):
                self._spawn(self._request(effect.what))
            elif isinstance(effect, Browse):
                self.browse(effect.ply)
            elif isinstance(effect, Screen):
                self._screen(effect.action)

    def _request(self, what: str) -> Coroutine[Any, Any, None]:
        assert self.actions is not None
        if what == "resign":
            return self._try("resignation", self.actions.resign())
        if what == "rematch":
            return self._try("rematch", self.actions.rematch())
        if what == "analyse":
            return self._try("analysis", self._analyse())
        if what == "abort":
            return self._try("abort", self.actions.abort())
        if what == "draw":
            return self._try("draw offer", self.actions.draw(self.state.ply))
        return self._try("takeback", self.actions.takeback(self.state.ply))

    async def _analyse(self) -> None:
        assert self.actions is not None
        self.say("asking the server for the analysis ...")
        ahead = await self.actions.analyse()
        if ahead is None:
            self.say("the analysis is here: m jumps to a mistake")
        else:
            self.say(f"analysis queued ({ahead} ahead)" if ahead else "the server is analysing")

    def jump_to_mistake(self, step: int) -> None:
        """Browse to the position after the next (1) or previous (-1) mistake or blunder; from
        the end screen's last move, the next is the game's first."""
        analysis = self.state.analysis
        if analysis is None:
            self.say("no analysis yet: a asks the server for it")
            return
        shown = self.shown_ply
        if step > 0 and self.browsing is None:
            shown = 0
        target = analysis_text.next_serious(analysis_text.marks_of(analysis), shown, step)
        if target is None:
            self.say("no mistake " + ("after" if step > 0 else "before") + " this move")
            return
        self.browse(target)

    async def _try(self, what: str, request: Coroutine[Any, Any, None]) -> None:
        """Send a request or an answer; the events that follow say what became of it, and
        only its failure is said here."""
        try:
            await request
        except (ServerError, Disconnected) as error:
            self.say(f"{what} failed: {error}", "class:status.error")

    def _screen(self, action: str) -> None:
        """A change to the screen alone (`Screen`)."""
        verb, _, key = action.partition(" ")
        if action == "quit":
            self.quit()
        elif action == "help":
            self.toggle_help()
        elif action == "close list":
            self.buffer.cancel_completion()
        elif action == "skip":
            self.animation.skip()
            self.invalidate()
        elif action in ("faster", "slower"):
            self.set_speed(self.step_seconds / 2 if action == "faster" else self.step_seconds * 2)
        elif verb == "cursor":
            self.move_cursor(key)
        elif verb == "mistake":
            self.jump_to_mistake(int(key))
        elif verb == "scroll":
            self.scroll_help(key)

    # -- actions -------------------------------------------------------------------------------

    def say(self, text: str, style: str = "") -> None:
        self.message = (style, text)
        self.invalidate()

    def _clear_refusal(self) -> None:
        """The player moved on (types, lists the moves, walks the board): a refusal or error
        about what they did before goes."""
        if self.message[0] == "class:status.error":
            self.say("")

    def _typed(self, buffer: Buffer) -> None:
        """Something typed, or the list of moves opened for what the line holds (not the line
        emptied after Enter, nor a list that comes too late for a line already sent)."""
        self._key_pressed()
        listed = buffer.complete_state
        if buffer.text or (
            listed is not None
            and listed.completions
            and listed.original_document.text == buffer.text
        ):
            self._clear_refusal()

    def set_seat(self, seat: int) -> None:
        """The server gave us `seat` (its events may have arrived before its answer did)."""
        self.seat = seat
        self._turn_started()
        self.invalidate()

    def quit(self) -> None:
        """Leave the screen (at once if it is not running yet)."""
        self._quitting = True
        if self.application.is_running:
            self.application.exit()

    def browse(self, ply: int | None) -> None:
        """Look at the board after `ply` moves; None, or the last ply, follows the game."""
        if ply is not None and ply >= len(self.state.history):
            ply = None
        self.browsing = None if ply is None else max(ply, 0)
        self.invalidate()

    def toggle_help(self) -> None:
        """Open the help (it takes the keys: nothing typed reaches the board or the input
        line behind it), or close it."""
        if not self.state.started and not self.showing_help:
            return
        self.showing_help = not self.showing_help
        self.help_top = 0
        if self.application.is_running:
            layout = self.application.layout
            layout.focus(self._help_window if self.showing_help else self.buffer)
        self.invalidate()

    def set_speed(self, seconds: float) -> None:
        self.step_seconds = min(max(seconds, MIN_STEP), MAX_STEP)
        self.say(f"animation: {self.step_seconds:.2f} s per hole")

    def move_cursor(self, key: str) -> None:
        """Walk the legal holes; the first arrow of a turn only shows where the cursor is."""
        self._clear_refusal()
        holes = frozenset(self.legal_holes())
        if self.cursor_shown or self.cursor not in holes:
            self.cursor = step_cursor(self.state.view.grid(self.viewer), holes, self.cursor, key)
        self.cursor_shown = self.cursor is not None
        self.invalidate()

    def answer_rematch(self, accept: bool) -> None:
        assert self.actions is not None
        self.say("accepting the rematch ..." if accept else "declining the rematch ...")
        self._spawn(self._try("rematch", self.actions.answer_rematch(accept)))

    def on_rematch(self, offer: RematchOffer) -> None:
        """An offer made, declined or withdrawn (an accepted one switches games: `switch`)."""
        self.state.rematch = offer.seat if offer.state == "offered" else None
        self.carry_out([news.rematch_changed(offer, self.seen())])

    def offer_lapsed(self) -> None:
        """The rematch offer shown is forgotten (a new connection: the server sends again an
        offer that still waits): neither its question nor what was said of it stays."""
        if not self.state.started:
            return
        if news.about_an_offer(self.seen()):
            self.say("")
        self.invalidate()

    def switch(self, state: GameState, seat: int | None) -> None:
        """Show the rematch `state` (empty until its snapshot arrives), played from `seat`."""
        self.state, self.seat = state, seat
        self.input.reset()
        self.browsing, self.cursor, self.cursor_shown, self._turn_ply = None, None, False, -1
        self.animation.clear()
        self._notes.clear()
        self.buffer.reset()
        self.say(f"rematch: game {state.game_id}")

    def answer_draw(self, accept: bool) -> None:
        assert self.actions is not None
        self.say("accepting the draw ..." if accept else "declining the draw ...")
        self._spawn(self._try("draw", self.actions.answer_draw(self.state.ply, accept)))

    def answer_takeback(self, accept: bool) -> None:
        assert self.actions is not None
        self.say("accepting the takeback ..." if accept else "declining the takeback ...")
        self._spawn(self._try("takeback", self.actions.answer_takeback(self.state.ply, accept)))

    async def _send(self, ply: int, move: str) -> None:
        assert self.actions is not None
        try:
            await self.actions.move(ply, move)
        except ServerError as error:
            if error.code == ErrorCode.STALE_PLY and self._arrived(ply, move):
                return  # sent again after a resume, and it had arrived the first time
            self.say(f"{move} refused: {error.message}", "class:status.error")
        except Disconnected:
            if self.input.closed:
                self.say(f"{move} not sent: {SEAT_LOST}", "class:status.error")
                return
            self.unsent = (ply, move)
            self.say(
                f"{move} not sent: the connection is down; it goes once the connection is "
                "back, unless the server had it",
                "class:status.error",
            )
        else:
            # The `moved` event said "You played ..." already, and the `over` that may have
            # followed it says how the game ended: neither is overwritten by this answer.
            if self.message[1] == f"sending {move} ...":
                self.say("")
        finally:
            self.input.sending = False
            self.invalidate()

    def _arrived(self, ply: int, move: str) -> bool:
        """The server has our `move` for `ply`."""
        state = self.state
        return ply < len(state.history) and (state.history[ply], state.movers[ply]) == (
            move,
            self.seat,
        )

    def _send_unsent(self) -> None:
        """Back in the game after a reconnection: the move that was on its way when the
        connection dropped is sent again if the server did not get it and it is still ours
        to play at that ply; else the player is told what became of it."""
        if self.unsent is None:
            return
        (ply, move), self.unsent = self.unsent, None
        if self._arrived(ply, move):
            self.say(f"{move} had arrived before the connection dropped")
        elif self.state.ply == ply and move in self.state.legal and self.my_turn:
            self.input.sending = True
            self.say(f"sending {move} again ...")
            self._spawn(self._send(ply, move))
        else:
            self.say(f"{move} was not played: the game went on meanwhile", "class:status.error")

    def set_connection(self, text: str, up: bool) -> None:
        """The connection's state (`up`, and in words): while it is down the clocks shown stop
        and nobody's presence is known; a word from the server while up is feedback."""
        if up and text != "connected":
            self.say(text, "class:status.error")
            return
        self.connection = text
        if up != self.online:
            self.online = up
            if up:
                self.state.resume_clocks()
            else:
                self.state.pause_clocks(self.clock())
                if self.unsent is None:  # what became of a move in flight stays said
                    self.say("")  # news from before ("North, bob, is here") no longer holds
        self.invalidate()

    def close_for_good(self, reason: str) -> None:
        """The connection ended for good (`reason`: another terminal took over the seat):
        the clocks stop in grey and nobody's presence is known, as on a dropped connection,
        and no move, resignation or request is sent any more."""
        self.input.close()
        self.set_connection(f"closed: {reason}", False)
        self.say(f"connection closed for good: {reason}; ^Q leaves", "class:status.error")

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        self.application.create_background_task(coroutine)

    # -- events --------------------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        """Apply a server event and show what it changed."""
        before, was_over = self.state.ply, self.state.over
        applied = self.state.apply(event, self.clock())
        if applied is Applied.GAP:
            if self.on_gap is not None:
                self.on_gap()
            return
        if applied is not Applied.APPLIED:
            return  # seen before, or about another game (a rematch's old one)
        declined, self._declined_at = self._declined_at, None
        if self.state.over and not was_over:
            # A move half typed is no move any more: the line is emptied, so that `r` offers
            # a rematch and `q` leaves whatever was typed (as lichess drops its move input).
            self.buffer.reset()
        self._show(event, before, declined)
        self._turn_started()
        self._pass_if_forced()
        if news.back_in_game(event, self.seat):
            self._send_unsent()
        self.invalidate()

    def _show(self, event: Event, before: int, declined: int | None) -> None:
        """What the screen does with an event applied (the game was at ply `before`; a
        takeback request was `declined` at that ply by the event before)."""
        if isinstance(event, Moved):
            self._ring_if_away(event)
            self.input.resolved()
            passing = self.state.view.move_hole(event.move, event.seat) is None
            note = news.moved(event, self.seen(), declined == event.ply, passing)
            if self.start_animation():
                self._notes[event.ply] = note  # said when the board gets to it
            else:
                self.say(note)
        elif isinstance(event, Over):
            # The status line's first line gives the result from now on (once the last move
            # has been shown), and nothing overwrites it there.
            self.input.reset()
            self.say("")
        elif isinstance(event, SeatEvent):
            self.carry_out([said for said in [news.seat_changed(event, self.seen())] if said])
        elif isinstance(event, TakebackRequest):
            self._takeback_changed(event, before)
        elif isinstance(event, DrawOffer):
            answering = awaits_answer(self.seat, self.state.draw)
            self.carry_out([news.draw_changed(event, self.seen(), answering)])
        elif isinstance(event, Snapshot):
            self.animation.clear()
            self._notes.clear()

    def _takeback_changed(self, event: TakebackRequest, before: int) -> None:
        """A takeback asked, declined, or granted (the game was at ply `before`)."""
        answering = awaits_answer(self.seat, self.state.takeback)
        if event.state == "declined":
            self._declined_at = event.ply  # a move that comes next declined it: it says so
        elif event.state != "asked":
            self.animation.clear()
            self._notes.clear()
            self.input.resolved()
            self.browse(self.browsing)
        self.carry_out([news.takeback_changed(event, self.seen(), before, answering)])

    def _key_pressed(self) -> None:
        """A key the screen took, or one typed: the player is at the screen."""
        if self.attention is not None:
            self.attention.last_key = self.clock()

    def _ring_if_away(self, event: Moved) -> None:
        """The bell (`--bell`), for the opponent's move while nobody looks at the screen."""
        if self.attention is not None and self.attention.rings_for(
            event.seat, self.seat, self.clock()
        ):
            self.application.output.bell()

    def _pass_if_forced(self) -> None:
        """A player whose one legal move is a pass (a move on no hole: Othello) passes at once,
        as Othello programs do: there is nothing to choose, and nothing to wait for."""
        legal = self.state.legal
        if not self.my_turn or len(legal) != 1 or self.seat is None:
            return
        if self.state.view.move_hole(legal[0], self.seat) is None:
            self.carry_out([Say("You have no move and pass"), SendMove(legal[0])])

    def _turn_started(self) -> None:
        """A new ply hides the keyboard cursor until the next arrow key."""
        if self.state.ply != self._turn_ply:
            self._turn_ply, self.cursor_shown = self.state.ply, False

    # -- animation -----------------------------------------------------------------------------

    def start_animation(self) -> bool:
        """Queue the last move's sowing to be shown hole by hole after those before it; True
        when it waits behind a move still being shown (what is said of it waits too)."""
        last = self.state.last
        if last is None or not last.steps or self.step_seconds <= 0:
            return False
        if not self.application.is_running:
            return False
        busy = self.animation.frame is not None
        self.animation.push(sowing_frames(last.before, last.steps, last.seat, last.ply))
        if self._animation is None or self._animation.done():
            self._animation = self.application.create_background_task(self._animate())
        return busy

    async def _animate(self) -> None:
        """Show the queued frames one by one; each stays a step (less with a backlog). When
        the next move's frames begin, the feedback line says that move: the whole screen is
        about the move shown."""
        while (frame := self.animation.frame) is not None:
            await asyncio.sleep(self.animation.delay(self.step_seconds))
            self.animation.advance()
            after = self.animation.frame
            if after is not None and after.ply != frame.ply and after.ply in self._notes:
                self.say(self._notes.pop(after.ply))
            self.invalidate()
        self._notes.clear()

    async def _tick(self) -> None:
        """Draw the screen again when a time it shows changes (`GameState.next_change`), and
        only then: events, keys and the animation draw what they change themselves. With no
        time running it looks again every `IDLE_LOOK_S`, drawing nothing."""
        while True:
            wait = self.state.next_change(self.clock())
            await asyncio.sleep(IDLE_LOOK_S if wait is None else min(wait + TICK_S, IDLE_LOOK_S))
            if wait is not None:
                self.invalidate()

    async def run(self) -> None:
        """Run the screen until the player leaves.

        Its own app session keeps `get_app()` pointing at this screen even when several
        screens run in one event loop (two players in one test).
        """
        app = self.application

        def leave_if_asked() -> None:
            if self._quitting:
                app.exit()
            else:
                app.create_background_task(self._tick())

        with create_app_session(input=app.input, output=app.output):
            if self.attention is not None:
                app.output.write_raw(FOCUS_REPORTS_ON)
            try:
                await app.run_async(pre_run=leave_if_asked)
            finally:
                if self.attention is not None:
                    app.output.write_raw(FOCUS_REPORTS_OFF)
                    app.output.flush()
