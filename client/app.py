"""The full-screen game screen: board, move entry, players and clocks, move list, engine info.

`GameApp` holds the screen's state and draws everything from it with
`FormattedTextControl(text=callable)`; after every change it calls `invalidate()`. It never
talks to the network: events come in through `on_event`, and moves and resignations go out
through the `Actions` it is given. Playing and watching use the same screen; a spectator (or a
player whose opponent is to move) simply has no legal moves to enter.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Coroutine, Iterable, Sequence
from typing import Any, Protocol

from prompt_toolkit.application import Application, create_app_session
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.data_structures import Point
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.output import Output
from prompt_toolkit.widgets import Frame as FrameWidget

from ubao.client.board import STEP_SECONDS, BoardView, Frame, Marks, sowing_frames, step_cursor
from ubao.client.connection import Disconnected, ServerError
from ubao.client.entry import Ask, Entry, Reject, Send, hole_entry, resolve
from ubao.client.lag import format_lag
from ubao.client.render import STYLE, render_board
from ubao.client.state import Applied, GameState, describe_result
from ubao.engine.game import Game
from ubao.engine.games import GAMES
from ubao.protocol import BotInfo, Event, Moved, Over, SeatEvent, SeatInfo, Snapshot

MIN_STEP, MAX_STEP = 0.02, 2.0


def board_beside(board: Callable[[], StyleAndTextTuples], panel: HSplit) -> VSplit:
    """The board on the left, a rule, and the side panel: the layout every screen shares."""
    return VSplit(
        [
            Window(FormattedTextControl(board)),
            Window(width=1, char="|", style="class:label"),
            panel,
        ]
    )


class Actions(Protocol):
    """What the screen asks of the network side; both raise ServerError or Disconnected."""

    async def move(self, ply: int, move: str) -> None: ...

    async def resign(self) -> None: ...


def format_clock(ms: int) -> str:
    """m:ss, with tenths in the last ten seconds when every tenth counts."""
    if ms < 10_000:
        return f"0:{ms / 1000:04.1f}"
    seconds = ms // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


def format_info(info: BotInfo) -> str:
    """An engine report as chess GUIs show it: the numbers, then the principal variation."""
    score = f"mate {info.mate:+d}" if info.mate is not None else f"{info.score:+d}"
    return (
        f"depth {info.depth}  score {score}  nodes {info.nodes}  {info.time_ms} ms\n"
        f"  pv {' '.join(info.pv)}"
    )


def describe_seat(seat: SeatInfo) -> str:
    """Who or what plays a seat, beyond the name: a server bot with its settings, or a seat
    that waits for a player or a bot client."""
    if seat.kind == "bot":
        settings = [f"depth {seat.depth}"] if seat.depth is not None else []
        if seat.time_ms is not None:
            settings.append(f"{seat.time_ms} ms")
        settings += [value for value in (seat.eval, seat.algorithm) if value is not None]
        return "server bot" + (f" ({', '.join(settings)})" if settings else "")
    wanted = "a bot client" if seat.wants_bot else "a player"
    if seat.wants_bot and seat.depth is not None:
        wanted += f" (depth {seat.depth})"
    return f"waiting for {wanted}"


def move_list(
    history: Sequence[str], movers: Sequence[int], side_names: Sequence[str], mark: int | None
) -> StyleAndTextTuples:
    """One ply a line, with who played it (extra turns make sides irregular); ply `mark` is
    highlighted."""
    text: StyleAndTextTuples = []
    for ply, (move, mover) in enumerate(zip(history, movers, strict=True)):
        style = "class:moves.last" if ply == mark else ""
        text.append((style, f"{ply + 1:>4}. {side_names[mover][0]} {move}\n"))
    return text


class _MoveCompleter(Completer):
    """Completes the moves (or answers) the screen would accept right now."""

    def __init__(self, choices: Callable[[], Iterable[str]]) -> None:
        self.choices = choices

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        word = document.text_before_cursor.strip().lower()
        for choice in self.choices():
            if choice.lower().startswith(word):
                yield Completion(choice, start_position=-len(document.text_before_cursor))


class GameApp:
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
    ) -> None:
        self.state = state
        self.seat = seat
        """The seat this client plays, None while watching (or before the join answered)."""
        self.actions = actions
        self.step_seconds = step_seconds
        self.on_gap = on_gap
        self.clock = clock
        self.message: tuple[str, str] = ("", "")
        """The last feedback line: (style, text)."""
        self.connection = "connecting"
        self.question: Ask | None = None
        self.confirming_resign = False
        self.showing_rules = False
        """F1 shows the registry's summary of the game's rules over the screen."""
        self.sending = False
        """A move is on its way: entry waits for the answer rather than send a second one."""
        self.cursor: str | None = None
        self.frames: list[Frame] = []
        self.frame = 0
        self._animation: asyncio.Task[None] | None = None
        self._quitting = False
        self.buffer = Buffer(
            multiline=False,
            completer=_MoveCompleter(self._choices),
            complete_while_typing=True,
            accept_handler=self._accept,
        )
        self.application = self._build(input, output)

    # -- what the screen shows -----------------------------------------------------------------

    @property
    def viewer(self) -> int:
        return self.seat if self.seat is not None else 0

    @property
    def my_turn(self) -> bool:
        return bool(self.state.legal) and not self.state.over and not self.sending

    def side_name(self, side: int) -> str:
        return self.state.view.side_labels[side]

    def legal_holes(self) -> dict[str, list[str]]:
        """Each hole a legal move starts from, with those moves."""
        holes: dict[str, list[str]] = {}
        if self.seat is None or not self.my_turn:
            return holes
        view = self.state.view
        for move in self.state.legal:
            hole = view.move_hole(move, self.seat)
            if hole is not None:
                holes.setdefault(hole, []).append(move)
        return holes

    def board(self) -> tuple[BoardView, Marks]:
        """The board to draw now: an animation frame, or the position with the player's marks."""
        if self.frames:
            frame = self.frames[self.frame]
            steps = self.frames[: self.frame + 1]
            return frame.view, Marks(
                trail=frozenset(f.step.hole for f in steps), active=frame.step.hole
            )
        last = self.state.last_hole()
        view = self.state.view
        if self.state.over:
            view = dataclasses.replace(view, to_move=None)
        return view, Marks(
            legal=frozenset(self.legal_holes()),
            last=frozenset([last] if last else []),
            cursor=self.cursor if self.my_turn else None,
        )

    def _board_text(self) -> StyleAndTextTuples:
        if not self.state.started:
            return [("", f"waiting for game {self.state.game_id or '(being created)'} ...\n")]
        view, marks = self.board()
        text: StyleAndTextTuples = [("class:panel.title", self._title() + "\n\n")]
        return text + render_board(view, self.viewer, marks, self.state.names())

    def _title(self) -> str:
        state = self.state
        title = f"{state.game_name} {state.game_id}  ply {state.ply}  {state.status}"
        if self.seat is None:
            title += "  (watching)"
        return title

    def turn_text(self) -> tuple[str, str]:
        """Who is to move, in words, always on screen."""
        state = self.state
        if not state.started:
            return ("", "")
        if state.over:
            assert state.result is not None
            return ("class:status.turn", "Game over: " + self._result_text())
        if state.status == "waiting":
            return ("", "waiting for a player to join")
        side = self.side_name(state.to_move)
        name = state.names()[state.to_move] or "open seat"
        if state.to_move == self.seat:
            return ("class:status.turn", f"Your move ({side})")
        return ("", f"{side} ({name}) to move")

    def _result_text(self) -> str:
        assert self.state.result is not None
        return describe_result(self.state.result, self.state.names(), self.state.view.side_labels)

    def _status_text(self) -> StyleAndTextTuples:
        text: StyleAndTextTuples = [self.turn_text()]
        if self.connection != "connected":
            text.append(("class:status.error", f"   [{self.connection}]"))
        if self.frames:
            frame = self.frames[self.frame]
            text.append(("", f"   sowing {frame.step.action} {frame.step.hole}"))
            if frame.hand.seeds:
                text.append(("", f" (hand {frame.hand.seeds})"))
        text.append(("", "\n"))
        if self.confirming_resign:
            text.append(("class:status.question", "Resign this game? y = yes, n or Esc = no"))
        elif self.question is not None:
            text.append(("class:status.question", self.question.question))
        else:
            text.append(self.message)
        return text

    def _players_text(self) -> StyleAndTextTuples:
        state = self.state
        if not state.started:
            return []
        now = self.clock()
        text: StyleAndTextTuples = [
            ("class:panel.title", "Players"),
            ("class:label", f"  {format_lag(state.rtt_ms)}\n"),
        ]
        for side in (1, 0):
            seat = state.seats[side]
            name = seat.name or "open seat"
            mover = "> " if side == state.to_move and not state.over else "  "
            text.append(("class:side.name", f"{mover}{self.side_name(side)}: {name}"))
            if side == self.seat:
                text.append(("", " (you)"))
            remaining = state.remaining_ms(side, now)
            if remaining is not None:
                text.append(("class:side.name", f"  {format_clock(remaining)}"))
            text.append(("", "\n    "))
            if seat.kind == "bot" or seat.name is None:
                text.append(("", describe_seat(seat)))
            elif seat.connected:
                text.append(("", "connected"))
            elif side in state.away_until:
                held = max(state.away_until[side] - now, 0.0)
                text.append(("class:status.error", f"disconnected, seat held {held:.0f} s"))
            else:
                text.append(("class:status.error", "disconnected"))
            text.append(("", "\n"))
        return text

    def _moves_text(self) -> StyleAndTextTuples:
        if not self.state.started:
            return []
        names = self.state.view.side_labels
        mark = len(self.state.history) - 1
        return [
            ("class:panel.title", "Moves\n"),
            *move_list(self.state.history, self.state.movers, names, mark),
        ]

    def _moves_cursor(self) -> Point:
        """Keeps the move list scrolled to the last move."""
        return Point(0, len(self.state.history))

    def _info_text(self) -> StyleAndTextTuples:
        if not self.state.info:
            return []
        text: StyleAndTextTuples = [("class:panel.title", "Engine\n")]
        for seat, info in sorted(self.state.info.items()):
            text.append(("", f"{self.side_name(seat)}: {format_info(info)}\n"))
        return text

    def _end_text(self) -> StyleAndTextTuples:
        return [
            ("class:end", self._result_text() + "\n\n"),
            ("", "Press q to leave."),
        ]

    def _prompt(self) -> str:
        if self.confirming_resign:
            return "resign? "
        if self.question is not None:
            return "answer> "
        return "move> " if self.seat is not None else "> "

    def _help_text(self) -> StyleAndTextTuples:
        if self.seat is None:
            keys = "F1: rules  Esc: skip animation  ^F/^B: faster/slower  q or ^Q: quit"
        else:
            keys = (
                "F1: rules  Enter: play  Tab: legal moves  arrows+Enter: pick a hole  "
                "Esc: skip/cancel  ^F/^B: animation faster/slower  ^R: resign  ^Q: quit"
            )
        return [("class:help", keys)]

    def _rules_text(self) -> StyleAndTextTuples:
        return [
            ("", GAMES[self.state.game_name].summary + "\n\n"),
            ("class:help", "F1 or Esc closes"),
        ]

    # -- layout and keys -----------------------------------------------------------------------

    def _build(self, input: Input | None, output: Output | None) -> Application[None]:
        over = Condition(lambda: self.state.over)
        panel = HSplit(
            [
                Window(FormattedTextControl(self._players_text), height=Dimension(min=5, max=7)),
                Window(
                    FormattedTextControl(self._moves_text, get_cursor_position=self._moves_cursor),
                    height=Dimension(min=3),
                ),
                Window(
                    FormattedTextControl(self._info_text),
                    height=Dimension(max=8),
                    wrap_lines=True,
                ),
            ],
            width=Dimension(preferred=40, max=48),
        )
        root = HSplit(
            [
                board_beside(self._board_text, panel),
                Window(FormattedTextControl(self._status_text), height=2, wrap_lines=True),
                Window(
                    BufferControl(self.buffer, input_processors=[BeforeInput(self._prompt)]),
                    height=1,
                ),
                Window(FormattedTextControl(self._help_text), height=1),
            ]
        )
        layout = Layout(
            FloatContainer(
                root,
                floats=[
                    Float(xcursor=True, ycursor=True, content=CompletionsMenu(max_height=8)),
                    Float(
                        ConditionalContainer(
                            FrameWidget(
                                Window(FormattedTextControl(self._end_text), wrap_lines=True),
                                title="Game over",
                                width=Dimension(preferred=50),
                                height=Dimension(preferred=6),
                            ),
                            filter=over,
                        )
                    ),
                    Float(
                        ConditionalContainer(
                            FrameWidget(
                                Window(FormattedTextControl(self._rules_text), wrap_lines=True),
                                title=lambda: f"Rules: {self.state.game_name}",
                                width=Dimension(preferred=60),
                            ),
                            filter=Condition(lambda: self.showing_rules and self.state.started),
                        )
                    ),
                ],
            ),
            focused_element=self.buffer,
        )
        return Application(
            layout=layout,
            key_bindings=self._keys(),
            style=STYLE,
            full_screen=True,
            refresh_interval=0.5,
            input=input,
            output=output,
        )

    def _keys(self) -> KeyBindings:
        keys = KeyBindings()
        selecting = Condition(
            lambda: not self.buffer.text and self.my_turn and self.question is None
        )
        confirming = Condition(lambda: self.confirming_resign)
        over = Condition(lambda: self.state.over)

        @keys.add("c-q")
        @keys.add("c-c")
        def _quit(event: KeyPressEvent) -> None:
            self.quit()

        watching = Condition(lambda: self.seat is None)

        @keys.add("q", filter=(over | watching) & Condition(lambda: not self.buffer.text))
        def _leave(event: KeyPressEvent) -> None:
            self.quit()

        @keys.add("escape", eager=True)
        def _escape(event: KeyPressEvent) -> None:
            self.escape()

        @keys.add("f1")
        def _rules(event: KeyPressEvent) -> None:
            self.toggle_rules()

        @keys.add("c-f")
        def _faster(event: KeyPressEvent) -> None:
            self.set_speed(self.step_seconds / 2)

        @keys.add("c-b")
        def _slower(event: KeyPressEvent) -> None:
            self.set_speed(self.step_seconds * 2)

        @keys.add("c-r", filter=~over)
        def _resign(event: KeyPressEvent) -> None:
            self.ask_resign()

        @keys.add("y", filter=confirming)
        def _yes(event: KeyPressEvent) -> None:
            self.confirm_resign(True)

        @keys.add("n", filter=confirming)
        def _no(event: KeyPressEvent) -> None:
            self.confirm_resign(False)

        for key in ("left", "right", "up", "down"):

            @keys.add(key, filter=selecting)
            def _arrow(event: KeyPressEvent, key: str = key) -> None:
                self.move_cursor(key)

        return keys

    # -- actions -------------------------------------------------------------------------------

    def invalidate(self) -> None:
        self.application.invalidate()

    def say(self, text: str, style: str = "") -> None:
        self.message = (style, text)
        self.invalidate()

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

    def escape(self) -> None:
        """Esc closes the rules, else skips a running animation, else cancels a question or
        the resign prompt."""
        if self.showing_rules:
            self.toggle_rules()
        elif self.frames:
            self.skip_animation()
        elif self.confirming_resign:
            self.confirm_resign(False)
        elif self.question is not None:
            self.question = None
            self.say("cancelled")

    def toggle_rules(self) -> None:
        self.showing_rules = not self.showing_rules
        self.invalidate()

    def set_speed(self, seconds: float) -> None:
        self.step_seconds = min(max(seconds, MIN_STEP), MAX_STEP)
        self.say(f"animation: {self.step_seconds:.2f} s per hole")

    def move_cursor(self, key: str) -> None:
        holes = frozenset(self.legal_holes())
        grid = self.state.view.grid(self.viewer)
        self.cursor = step_cursor(grid, holes, self.cursor, key)
        self.invalidate()

    def ask_resign(self) -> None:
        if self.seat is None:
            self.say("spectators cannot resign", "class:status.error")
            return
        self.confirming_resign = True
        self.invalidate()

    def confirm_resign(self, yes: bool) -> None:
        self.confirming_resign = False
        if not yes:
            self.say("not resigned")
            return
        self.say("resigning ...")
        self._spawn(self._resign())

    def _choices(self) -> Iterable[str]:
        if self.question is not None:
            return [option.answer for option in self.question.options]
        return self.state.legal if self.my_turn else ()

    def _accept(self, buffer: Buffer) -> bool:
        """Enter in the input line: a command, an answer, a typed move, or the cursor's hole."""
        self.enter(buffer.text)
        return False

    def enter(self, text: str) -> None:
        """Handle one line of input (what Enter does with the text typed)."""
        word = text.strip()
        if self.confirming_resign:
            self.confirm_resign(word.lower() in ("y", "yes"))
            return
        if word.lower() in ("quit", "exit") or (word.lower() == "q" and self.seat is None):
            self.quit()
            return
        if word.lower() == "resign":
            self.ask_resign()
            return
        if self.seat is None:
            self.say("watching: moves cannot be entered", "class:status.error")
            return
        if not self.my_turn:
            self.say("it is not your turn" if not self.sending else "wait: a move is on its way")
            return
        state = self.state
        entry: Entry
        if self.question is not None and (option := self.question.pick(word)) is not None:
            if option.final:
                entry = Send(option.move)
            else:
                entry = resolve(option.move, state.legal, _game(state), state.position)
        elif not word and self.cursor is not None:
            moves = self.legal_holes().get(self.cursor, [])
            entry = hole_entry(self.cursor, state.legal, _game(state), state.position, moves)
        else:
            entry = resolve(word, state.legal, _game(state), state.position)
        self.question = None
        if isinstance(entry, Reject):
            self.say(entry.message, "class:status.error")
        elif isinstance(entry, Ask):
            self.question = entry
            self.invalidate()
        else:
            self.send(entry.move)

    def send(self, move: str) -> None:
        """Send `move` for the current ply; input waits until the server answers."""
        self.sending = True
        self.say(f"sending {move} ...")
        self._spawn(self._send(self.state.ply, move))

    async def _send(self, ply: int, move: str) -> None:
        assert self.actions is not None
        try:
            await self.actions.move(ply, move)
        except ServerError as error:
            self.say(f"{move} refused: {error.message}", "class:status.error")
        except Disconnected:
            self.say(
                f"connection lost while sending {move}; it shows once reconnected if it arrived",
                "class:status.error",
            )
        else:
            self.say(f"played {move}")
        finally:
            self.sending = False
            self.invalidate()

    async def _resign(self) -> None:
        assert self.actions is not None
        try:
            await self.actions.resign()
        except (ServerError, Disconnected) as error:
            self.say(f"resignation failed: {error}", "class:status.error")

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        self.application.create_background_task(coroutine)

    # -- events --------------------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        """Apply a server event and show what it changed."""
        applied = self.state.apply(event, self.clock())
        if applied is Applied.GAP:
            if self.on_gap is not None:
                self.on_gap()
            return
        if applied is Applied.DUPLICATE:
            return
        if isinstance(event, Moved):
            self._moved(event)
        elif isinstance(event, Over):
            self.question, self.confirming_resign = None, False
            self.say(self._result_text(), "class:end")
        elif isinstance(event, SeatEvent):
            self._seat_changed(event)
        elif isinstance(event, Snapshot):
            self.skip_animation()
        self._turn_started()
        self.invalidate()

    def _moved(self, event: Moved) -> None:
        who = "You" if event.seat == self.seat else self.side_name(event.seat)
        self.say(f"{who} played {event.move}")
        self.question = None
        self.start_animation()

    def _seat_changed(self, event: SeatEvent) -> None:
        side = self.side_name(event.seat)
        if event.name is None:
            self.say(f"{side}'s seat is free again")
        elif event.connected:
            self.say(f"{side} ({event.name}) is here")
        else:
            held = f"; seat held {event.grace_ms / 1000:.0f} s" if event.grace_ms else ""
            self.say(f"{side} ({event.name}) disconnected{held}", "class:status.error")

    def _turn_started(self) -> None:
        """Put the cursor on a legal hole when a turn starts (keeping it if still legal)."""
        holes = self.legal_holes()
        if self.cursor not in holes:
            self.cursor = next(iter(holes), None)

    # -- animation -----------------------------------------------------------------------------

    def start_animation(self) -> None:
        """Show the last move hole by hole; a new move first ends a running animation."""
        self.skip_animation()
        last = self.state.last
        if last is None or not last.steps or self.step_seconds <= 0:
            return
        if not self.application.is_running:
            return
        self.frames = sowing_frames(last.before, last.steps, last.seat)
        self.frame = 0
        self._animation = self.application.create_background_task(self._animate())

    async def _animate(self) -> None:
        try:
            while self.frame < len(self.frames) - 1:
                await asyncio.sleep(self.step_seconds)
                self.frame += 1
                self.invalidate()
            await asyncio.sleep(self.step_seconds)
        finally:
            self.frames = []
            self.invalidate()

    def skip_animation(self) -> None:
        if self._animation is not None:
            self._animation.cancel()
            self._animation = None
        self.frames = []
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

        with create_app_session(input=app.input, output=app.output):
            await app.run_async(pre_run=leave_if_asked)


def _game(state: GameState) -> Game[Any, Any]:
    assert state.game is not None, "no snapshot yet"
    return state.game
