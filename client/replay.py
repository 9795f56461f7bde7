"""`ubao replay FILE`: step through a game record in the board view, with its analysis.

Keys: right/left one move forward (animated hole by hole, as the game screen does) or back,
home/end the start/the end, m/M the next/previous mistake, a the server's analysis of the game,
e the engine on the position shown, t a move of one's own tried there (1-3 play an engine
line's move, u takes one back, Esc back to the game), F1 or ? the help (the game screen's, with
these keys), q to leave (docs/client.md, "Game records").
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

from prompt_toolkit.application import Application, create_app_session, get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    BufferControl,
    ConditionalContainer,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import Output

from ubao.client import analysis_text
from ubao.client.board import STEP_SECONDS, Animation, Frame, Marks, sowing_frames, view_of
from ubao.client.export import Replay, result_of, seat_of
from ubao.client.layout import (
    HELP_WIDTH,
    PANEL_MIN_WIDTH,
    board_and_panel,
    fitting,
    help_overlay,
    rule,
    text_height,
    too_small,
    wrap,
)
from ubao.client.panels import (
    describe_seat,
    format_control,
    game_help,
    help_page,
    help_scrolled,
    move_list,
)
from ubao.client.render import STYLE, render_board
from ubao.client.state import describe_result
from ubao.client.study import MULTIPV, Variation, engine_lines
from ubao.client.study_engine import StudyEngine
from ubao.engine.game import GameError
from ubao.engine.games import GAMES
from ubao.engine.record import Record
from ubao.protocol import ClockSpec, GameAnalysis, escape
from ubao.protocol.messages import MAX_NAME

Fetch = Callable[[Callable[[int], None]], Awaitable[GameAnalysis]]
"""Asks the server for the game's analysis and waits for it; told how many are ahead of it."""

KEYS = "F1: help  left/right: moves  a: analyse  e: study  q: quit"
STUDY_KEYS = "F1: help  1-3: line  t: try a move  u: undo  Esc: back"
"""The keys that matter most, in one line of 60 columns (F1's help has them all)."""
HELP_KEYS = (
    "right: the next move, shown hole by hole (Esc ends the animation, right goes on to the"
    " next move at once); left: the move before; Home/End: the start/the end",
    "m/M: the position after the next/previous mistake or blunder",
    "a: ask the server for its analysis of the game (the record's GameId): marks beside the"
    " moves, the evaluation and the engine's line at the move shown, a graph of the game",
    "e: the engine on the position shown (its three best lines), or off",
    "t: type a move of your own, played from the position shown; 1-3: play the first move of"
    " the engine's line of that number; u or Backspace: take the last one back; Esc: back to"
    " the game, which the moves tried never change",
    "F1 or ?: this help; q or ^Q: leave",
)
"""Every key of the replay, as its help lists them."""
HELP_SCROLL_KEYS = ("up", "down", "pageup", "pagedown", "space", "home", "end")
INFO_ROWS = 4
"""The most rows the analysis or the study takes under the board."""


class ReplayApp:
    """The board at one ply of a recorded game; the keys move through the game, its analysis
    and a study of the position shown."""

    def __init__(
        self,
        record: Record,
        replay: Replay,
        *,
        analysis: GameAnalysis | None = None,
        fetch: Fetch | None = None,
        input: Input | None = None,
        output: Output | None = None,
        step_seconds: float = STEP_SECONDS,
    ) -> None:
        self.record = record
        self.replay = replay
        self.ply = 0
        """How many moves are played on the board shown (0 = the start position)."""
        self.analysis: GameAnalysis | None = None
        self.marks: tuple[str, ...] = tuple(record.marks)
        """Each move's glyph: the record's, or the analysis's once there is one."""
        self.fetch = fetch
        self.said = ""
        """The feedback line: what the last key did, or why not."""
        self.variation: Variation | None = None
        """Moves tried from the ply shown (study), the game itself unchanged."""
        self.engine = StudyEngine(self._changed, MULTIPV)
        self.studying = False
        """The engine searches the position shown (its lines are shown)."""
        self.entry = Buffer(multiline=False, accept_handler=self._typed)
        self.typing = False
        self.showing_help = False
        self.help_top = 0
        """The first line of the help shown: it scrolls when the terminal is too short."""
        self.animation = Animation()
        """The move stepped to, shown hole by hole (the game screen's pace, `step_seconds`)."""
        self.step_seconds = step_seconds
        self._tasks: set[asyncio.Task[Any]] = set()
        if analysis is not None:
            self.show_analysis(analysis)
        self.application = self._build(input, output)

    def show_analysis(self, analysis: GameAnalysis) -> None:
        if not analysis_text.known(analysis):
            self.said = f"the server's analysis is of format {analysis.format}: update ubao"
            return
        if len(analysis.plies) != self.last_ply:
            self.said = "the server's analysis is of another game"
            return
        self.analysis = analysis
        self.marks = analysis_text.marks_of(analysis)
        self.said = ""

    @property
    def last_ply(self) -> int:
        return len(self.record.moves)

    def go(self, ply: int) -> None:
        """Show the position after `ply` moves at once (an animation under way ends)."""
        self.ply = min(max(ply, 0), self.last_ply)
        self.variation = None
        self.animation.clear()
        self._restudy()
        self.application.invalidate()

    def forward(self) -> None:
        """One move on, shown hole by hole; pressed while a move is shown, that animation
        ends at once and the next move's begins (a key held walks the game)."""
        before = self.ply
        self.go(before + 1)
        frames = self._frames(before) if self.ply > before else []
        if frames and self.step_seconds > 0:
            self.animation.push(frames)
            self._spawn(self._animate())

    def skip(self) -> None:
        """End the move being shown hole by hole: the position after it."""
        self.animation.clear()
        self.application.invalidate()

    def _frames(self, ply: int) -> list[Frame]:
        """The animation of the move played at `ply` (none if the rules cannot show it)."""
        game = self.replay.game
        position = self.replay.positions[ply]
        try:
            steps = game.sowing_path(position, game.parse_move(position, self.record.moves[ply]))
        except GameError:
            return []
        return sowing_frames(self.replay.view(ply), steps, self.replay.movers[ply], ply)

    async def _animate(self) -> None:
        """Show the frames one by one, each a step; a key may end them meanwhile."""
        while self.animation.frame is not None:
            await asyncio.sleep(self.animation.delay(self.step_seconds))
            self.animation.advance()
            self.application.invalidate()

    # -- the help ------------------------------------------------------------------------------

    def toggle_help(self) -> None:
        self.showing_help = not self.showing_help
        self.help_top = 0
        self.application.invalidate()

    def _help_lines(self) -> list[tuple[str, str]]:
        view, moves = self.replay.view(0), self.record.moves
        width = self._help_width() - 4
        return game_help(self.replay.game, self.record.game, view, moves, HELP_KEYS, True, width)

    def _help_width(self) -> int:
        return min(HELP_WIDTH, self.application.output.get_size().columns)

    def _help_rows(self) -> int:
        """The help's rows inside its frame: all its lines, or as many as the screen holds."""
        rows = self.application.output.get_size().rows - 2
        return max(min(len(self._help_lines()) + 1, rows), 1)

    def _help_screen(self) -> StyleAndTextTuples:
        self.help_top, text = help_page(self._help_lines(), self.help_top, self._help_rows())
        return text

    def scroll_help(self, key: str) -> None:
        count = len(self._help_lines())
        self.help_top = help_scrolled(key, self.help_top, count, self._help_rows())
        self.application.invalidate()

    # -- the analysis --------------------------------------------------------------------------

    def jump(self, step: int) -> None:
        """To the position after the next (`step` 1) or previous (-1) mistake or blunder."""
        if not any(self.marks):
            self.say("no analysis: a asks the server for it" if self.fetch else "no marks")
            return
        target = analysis_text.next_serious(self.marks, self.ply, step)
        if target is None:
            self.say("no mistake " + ("after" if step > 0 else "before") + " this move")
            return
        self.go(target)
        self.say("")

    def ask(self) -> None:
        """Ask the server for the game's analysis (in the background)."""
        if self.analysis is not None:
            self.say("the analysis is shown")
        elif self.fetch is None:
            self.say("this record names no game of a server (no GameId tag)")
        else:
            self.say("asking the server for the analysis…")
            self._spawn(self._fetch(self.fetch))

    async def _fetch(self, fetch: Fetch) -> None:
        def queued(ahead: int) -> None:
            self.say(f"analysis queued ({ahead} ahead)" if ahead else "the server is analysing")

        try:
            self.show_analysis(await fetch(queued))
        except Exception as error:  # the server's refusal, or no server: said, not raised
            self.say(f"no analysis: {error}")
        self.application.invalidate()

    def say(self, text: str) -> None:
        self.said = text
        self.application.invalidate()

    # -- the study: the engine and moves of the user's own ------------------------------------

    def study(self) -> None:
        """The engine on the position shown, or off."""
        self.studying = not self.studying
        if self.studying:
            self._restudy()
        else:
            self._spawn(self.engine.stop())
        self.application.invalidate()

    def try_move(self, text: str) -> None:
        """Play `text` in the variation from the position shown (a move being shown hole by
        hole ends: the board shows the variation now)."""
        self.animation.clear()
        if self.variation is None:
            game = self.replay.game
            self.variation = Variation(game, self.ply, self.replay.positions[self.ply])
        try:
            self.variation.play(text)
        except GameError as error:
            self.say(f"{text}: {error}")
            if not self.variation.moves:
                self.variation = None
            return
        self.say("")
        self._restudy()

    def undo(self) -> None:
        if self.variation is None or not self.variation.undo():
            self.say("no move of yours to take back")
            return
        if not self.variation.moves:
            self.variation = None
        self._restudy()

    def play_line(self, number: int) -> None:
        info = self.engine.lines.get(number)
        if info is None or not info.pv:
            self.say(f"the engine has no line {number} yet")
            return
        self.try_move(info.pv[0])

    def _position(self) -> Any:
        return self.variation.position if self.variation else self.replay.positions[self.ply]

    def _restudy(self) -> None:
        """Have the engine search the position shown, if it studies."""
        if not self.studying:
            return
        game = self.replay.game
        position = self._position()
        if game.is_over(position):
            self._spawn(self.engine.stop())
            self.engine.lines = {}
            return
        moves = [*self.record.moves[: self.ply], *(self.variation.moves if self.variation else [])]
        player = game.to_move(position)
        self._spawn(self.engine.analyse(self.record.game, self.record.options, moves, player))

    def _typed(self, buffer: Buffer) -> bool:
        self.typing = False
        if buffer.text.strip():
            self.try_move(buffer.text)
        self.application.layout.focus_last()
        return False

    def _changed(self) -> None:
        self.application.invalidate()

    def _spawn(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _board_text(self) -> StyleAndTextTuples:
        title = f"{self.record.game}  move {self.ply} of {self.last_ply}"
        if self.variation is not None:
            title += f"  + {len(self.variation.moves)} tried"
        if self.ply == self.last_ply:
            title += f"  result {self.record.result}"
        return [("class:panel.title", title + "\n"), *self._board_core()]

    def _result(self) -> str | None:
        """How the game ended, in words, if the record says it ended."""
        result = result_of(self.record)
        if result is None:
            return None
        names = [escape(self.record.tags.get(side) or "?", MAX_NAME) for side in self._sides()]
        return describe_result(result, names, self.replay.view(0).side_labels)

    def _sides(self) -> tuple[str, str]:
        return GAMES[self.record.game].sides

    def _status_text(self) -> StyleAndTextTuples:
        """Under the board at the last move: how the game ended, whatever the panel (folded
        away on a short terminal) shows."""
        said = self._result()
        if self.ply != self.last_ply or said is None:
            return []
        columns = get_app().output.get_size().columns  # the screen being drawn
        return [("class:status.turn", wrap(said, columns))]

    def _status_rows(self) -> int:
        text = self._status_text()
        return text_height(text) if text else 0

    def _too_small(self) -> str | None:
        size = get_app().output.get_size()
        below = 2 + self._status_rows()  # the title, the result, the keys
        return too_small(size.columns, size.rows, self._board_core(), below)

    def _info_lines(self) -> list[str]:
        """Under the board: the engine's lines and the variation while studying, else the
        analysis at the ply shown (and its graph), else the feedback alone."""
        columns = get_app().output.get_size().columns
        lines: list[str] = []
        if self.studying or self.variation is not None:
            if self.variation is not None:
                lines.append(self.variation.text())
            if self.engine.failure:
                lines.append(f"engine: {self.engine.failure}")
            elif self.studying and self.replay.game.is_over(self._position()):
                lines.append("engine: the game is over here")
            elif self.studying:
                lines += engine_lines(self.engine.lines, columns) or ["engine: thinking…"]
        elif self.analysis is not None:
            labels = self.replay.view(0).side_labels
            lines = analysis_text.at_ply(self.analysis, self.ply, labels)
            bar = analysis_text.eval_bar(self._value(), self.analysis.units, 10)
            lines[0] = f"{bar} {lines[0]}"
            lines.insert(2, "graph " + analysis_text.graph(self.analysis, columns - 6))
        if self.said:
            lines.append(self.said)
        return [line[:columns] for line in lines]

    def _value(self) -> float:
        assert self.analysis is not None
        plies = self.analysis.plies
        if not plies:
            return 0.0
        return plies[0].before if self.ply == 0 else plies[self.ply - 1].after

    def _info_rows(self) -> int:
        """The rows the info takes: what it has, within what the board and the rest leave."""
        size = get_app().output.get_size()
        board = text_height(self._board_core())
        left = size.rows - board - 2 - self._status_rows()  # the title, the keys
        return max(0, min(len(self._info_lines()), INFO_ROWS, left))

    def _info_text(self) -> StyleAndTextTuples:
        """The info lines; in the graph, the column of the move shown stands out."""
        text: StyleAndTextTuples = []
        for line in self._info_lines()[: self._info_rows()]:
            column = self._graph_column() if line.startswith("graph ") else None
            if column is None:
                text.append(("class:status.turn", line + "\n"))
                continue
            at = len("graph ") + column
            text += [
                ("class:status.turn", line[:at]),
                ("class:moves.last", line[at : at + 1]),
                ("class:status.turn", line[at + 1 :] + "\n"),
            ]
        return text

    def _graph_column(self) -> int | None:
        assert self.analysis is not None
        columns = get_app().output.get_size().columns - 6
        return analysis_text.graph_column(self.analysis, self.ply, columns)

    def _board_core(self) -> StyleAndTextTuples:
        """The board at the ply shown (or the variation's position), without its title."""
        if self.variation is not None:
            view = view_of(self.replay.game, self.variation.position)
            names = [self.record.tags.get(tag) for tag in self._sides()]
            return render_board(view, 0, Marks(), names)
        frame = self.animation.frame
        if frame is not None:
            names = [self.record.tags.get(tag) for tag in self._sides()]
            marks = Marks(trail=self.animation.trail, active=frame.step.hole)
            return render_board(frame.view, 0, marks, names)
        view = self.replay.view(self.ply)
        ended = result_of(self.record) is not None
        if self.ply == self.last_ply and ended:
            view = dataclasses.replace(view, to_move=None)  # resigned, lost on time, called off
        last: frozenset[str] = frozenset()
        if self.ply:
            hole = view.move_hole(self.record.moves[self.ply - 1], self.replay.movers[self.ply - 1])
            last = frozenset([hole] if hole else [])
        names = [self.record.tags.get(tag) for tag in self._sides()]
        return render_board(view, 0, Marks(last=last), names)

    def _tags_text(self) -> StyleAndTextTuples:
        """The game in words: who played each side (and what, for a bot), when, with which
        options and clock, and how it ended."""
        record = self.record
        tags = record.tags
        sides = GAMES[record.game].sides
        seats = [seat_of(record, side) for side in sides]
        text: StyleAndTextTuples = [("class:panel.title", f"{record.game}\n")]
        names = [escape(seat.name or "?", MAX_NAME) for seat in seats]
        for side, seat, name in zip(sides[::-1], seats[::-1], names[::-1], strict=True):
            text.append(("class:side.name", f"{side}: {name}\n"))
            if seat.kind == "bot":
                text.append(("", f"    {describe_seat(seat)}\n"))
            elif seat.client == "bot":
                text.append(("", "    bot client\n"))
        facts = [
            ("Options", tags.get("Options", "{}") if tags.get("Options", "{}") != "{}" else ""),
            ("Clock", self._clock()),
            ("Date", tags.get("Date", "")),
            ("Id", tags.get("GameId", "")),
        ]
        text += [("class:label", f"{name} {value}\n") for name, value in facts if value]
        said = self._result()
        if said is not None:
            text.append(("class:end", wrap(said, PANEL_MIN_WIDTH - 1) + "\n"))
        return text

    def _clock(self) -> str:
        """The record's `Clock` tag as players say it (5+3), if it reads as one."""
        initial, _, increment = self.record.tags.get("Clock", "").partition("+")
        if not (initial.isdecimal() and increment.isdecimal()):
            return ""
        return format_control(ClockSpec(int(initial), int(increment)))

    def _moves_text(self) -> StyleAndTextTuples:
        names = self.replay.view(0).side_labels
        moves = [move + mark for move, mark in zip(self.record.moves, self._marks(), strict=True)]
        return move_list(moves, self.replay.movers, names, self.ply - 1)

    def _marks(self) -> tuple[str, ...]:
        """A glyph per move ("" where none)."""
        marks = self.marks
        return marks if len(marks) == self.last_ply else ("",) * self.last_ply

    def _build(self, input: Input | None, output: Output | None) -> Application[None]:
        keys = KeyBindings()
        helping = Condition(lambda: self.showing_help)
        browsing = Condition(lambda: not self.typing) & ~helping
        studying = browsing & Condition(lambda: self.studying or bool(self.variation))
        animating = browsing & Condition(lambda: self.animation.frame is not None)

        @keys.add("f1", filter=~Condition(lambda: self.typing))
        @keys.add("?", filter=browsing)
        @keys.add("escape", filter=helping, eager=True)
        @keys.add("q", filter=helping)
        def _help(event: KeyPressEvent) -> None:
            self.toggle_help()

        for key in HELP_SCROLL_KEYS:

            @keys.add(key, filter=helping)
            def _scroll(event: KeyPressEvent, key: str = key) -> None:
                self.scroll_help(key)

        @keys.add("right", filter=browsing)
        def _forward(event: KeyPressEvent) -> None:
            self.forward()

        @keys.add("escape", filter=animating, eager=True)
        def _skip(event: KeyPressEvent) -> None:
            self.skip()

        @keys.add("left", filter=browsing)
        def _back(event: KeyPressEvent) -> None:
            self.go(self.ply - 1)

        @keys.add("home", filter=browsing)
        def _start(event: KeyPressEvent) -> None:
            self.go(0)

        @keys.add("end", filter=browsing)
        def _end(event: KeyPressEvent) -> None:
            self.go(self.last_ply)

        @keys.add("m", filter=browsing)
        def _next_mistake(event: KeyPressEvent) -> None:
            self.jump(1)

        @keys.add("M", filter=browsing)
        def _previous_mistake(event: KeyPressEvent) -> None:
            self.jump(-1)

        @keys.add("a", filter=browsing)
        def _analyse(event: KeyPressEvent) -> None:
            self.ask()

        @keys.add("e", filter=browsing)
        def _engine(event: KeyPressEvent) -> None:
            self.study()

        @keys.add("t", filter=browsing)
        def _move(event: KeyPressEvent) -> None:
            self.typing = True
            self.entry.reset()
            event.app.layout.focus(self.entry)

        for number in range(1, MULTIPV + 1):

            @keys.add(str(number), filter=studying)
            def _line(event: KeyPressEvent, number: int = number) -> None:
                self.play_line(number)

        @keys.add("u", filter=studying)
        @keys.add("backspace", filter=studying)
        def _undo(event: KeyPressEvent) -> None:
            self.undo()

        @keys.add("escape", filter=browsing & ~animating)
        def _back_to_game(event: KeyPressEvent) -> None:
            self.go(self.ply)

        @keys.add("escape", filter=Condition(lambda: self.typing))
        def _cancel_typing(event: KeyPressEvent) -> None:
            self.typing = False
            event.app.layout.focus_last()

        @keys.add("q", filter=browsing)
        @keys.add("c-c")
        @keys.add("c-q")
        def _quit(event: KeyPressEvent) -> None:
            event.app.exit()

        tags = Window(FormattedTextControl(self._tags_text), height=Dimension(max=12))
        moves = Window(
            FormattedTextControl(
                self._moves_text, get_cursor_position=lambda: Point(0, max(self.ply - 1, 0))
            )
        )
        beside = HSplit([tags, moves], width=Dimension(preferred=40, max=48))
        below = VSplit([tags, rule(), moves])
        typing = Condition(lambda: self.typing)

        def help_text() -> StyleAndTextTuples:
            studied = self.studying or self.variation is not None
            return [("class:help", STUDY_KEYS if studied else KEYS)]

        root = HSplit(
            [
                board_and_panel(self._board_text, beside, below),
                Window(
                    FormattedTextControl(self._status_text),
                    height=lambda: Dimension.exact(self._status_rows()),
                ),
                Window(
                    FormattedTextControl(self._info_text),
                    height=lambda: Dimension.exact(self._info_rows()),
                ),
                ConditionalContainer(
                    VSplit(
                        [
                            Window(FormattedTextControl("your move: "), width=11),
                            Window(BufferControl(self.entry)),
                        ],
                        height=1,
                    ),
                    filter=typing,
                ),
                ConditionalContainer(
                    Window(FormattedTextControl(help_text), height=1), filter=~typing
                ),
            ]
        )
        _, help_float = help_overlay(
            self._help_screen,
            self._help_rows,
            self._help_width,
            lambda: f"Help: replay of {self.record.game}",
            lambda: self.showing_help,
        )
        return Application(
            layout=Layout(FloatContainer(fitting(root, self._too_small), floats=[help_float])),
            key_bindings=keys,
            style=STYLE,
            full_screen=True,
            input=input,
            output=output,
        )

    async def run(self) -> None:
        app = self.application
        with create_app_session(input=app.input, output=app.output):
            try:
                await app.run_async()
            finally:  # what the keys started first (a search asked for), then the engine
                for task in list(self._tasks):
                    task.cancel()
                await asyncio.gather(*self._tasks, return_exceptions=True)
                await self.engine.close()
