"""`ubao replay FILE`: step through a game record in the board view.

Keys: right/left one move forward/back, home/end the start/the end, q to leave.
"""

from __future__ import annotations

import dataclasses

from prompt_toolkit.application import Application, create_app_session, get_app
from prompt_toolkit.data_structures import Point
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import FormattedTextControl, HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import Output

from ubao.client.board import Marks
from ubao.client.export import Replay, result_of, seat_of
from ubao.client.layout import (
    PANEL_MIN_WIDTH,
    board_and_panel,
    fitting,
    rule,
    text_height,
    too_small,
    wrap,
)
from ubao.client.panels import describe_seat, format_control, move_list
from ubao.client.render import STYLE, render_board
from ubao.client.state import describe_result
from ubao.engine.games import GAMES
from ubao.engine.record import Record
from ubao.protocol import ClockSpec, escape
from ubao.protocol.messages import MAX_NAME


class ReplayApp:
    """The board at one ply of a recorded game; the keys move through the game."""

    def __init__(
        self,
        record: Record,
        replay: Replay,
        *,
        input: Input | None = None,
        output: Output | None = None,
    ) -> None:
        self.record = record
        self.replay = replay
        self.ply = 0
        """How many moves are played on the board shown (0 = the start position)."""
        self.application = self._build(input, output)

    @property
    def last_ply(self) -> int:
        return len(self.record.moves)

    def go(self, ply: int) -> None:
        self.ply = min(max(ply, 0), self.last_ply)
        self.application.invalidate()

    def _board_text(self) -> StyleAndTextTuples:
        title = f"{self.record.game}  move {self.ply} of {self.last_ply}"
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

    def _board_core(self) -> StyleAndTextTuples:
        """The board at the ply shown, without its title."""
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
        return move_list(self.record.moves, self.replay.movers, names, self.ply - 1)

    def _build(self, input: Input | None, output: Output | None) -> Application[None]:
        keys = KeyBindings()

        @keys.add("right")
        def _forward(event: KeyPressEvent) -> None:
            self.go(self.ply + 1)

        @keys.add("left")
        def _back(event: KeyPressEvent) -> None:
            self.go(self.ply - 1)

        @keys.add("home")
        def _start(event: KeyPressEvent) -> None:
            self.go(0)

        @keys.add("end")
        def _end(event: KeyPressEvent) -> None:
            self.go(self.last_ply)

        @keys.add("q")
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
        root = HSplit(
            [
                board_and_panel(self._board_text, beside, below),
                Window(
                    FormattedTextControl(self._status_text),
                    height=lambda: Dimension.exact(self._status_rows()),
                ),
                Window(
                    FormattedTextControl(
                        [("class:help", "left/right: move  home/end: start/end  q: quit")]
                    ),
                    height=1,
                ),
            ]
        )
        return Application(
            layout=Layout(fitting(root, self._too_small)),
            key_bindings=keys,
            style=STYLE,
            full_screen=True,
            input=input,
            output=output,
        )

    async def run(self) -> None:
        app = self.application
        with create_app_session(input=app.input, output=app.output):
            await app.run_async()
