"""What the game screen shows: the board, the status lines, the panels, the help.

`GameView` draws everything from the game's state (`GameState`), the input machine's
(`InputMachine`) and its own (the move being animated, the ply looked back at, the cursor,
the feedback line); `GameApp` builds on it with the keys, the network and the events. Every
text is a function called whenever the screen is drawn (`ScreenParts`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.data_structures import Point
from prompt_toolkit.formatted_text import StyleAndTextTuples

from ubao.client.analysis_text import at_ply, eval_bar, known, marks_of, side_lines
from ubao.client.board import Animation, BoardView, Marks
from ubao.client.input_machine import Facts, InputMachine
from ubao.client.layout import (
    END_WIDTH,
    HELP_WIDTH,
    NBSP,
    Fit,
    ScreenParts,
    cut_lines,
    fold,
    line_count,
    panel_beside,
    text_height,
    too_small,
    wrap,
    wrap_fragments,
)
from ubao.client.news import Seen
from ubao.client.panels import (
    clock_text,
    describe_step,
    format_search_report,
    help_lines,
    help_page,
    help_scrolled,
    move_list,
    players_panel,
)
from ubao.client.render import render_board
from ubao.client.standings import rating_change
from ubao.client.state import GameState, called_off, describe_result
from ubao.client.tokens import join_command
from ubao.protocol import GameAnalysis


class GameView:
    """What the screen of one live game shows, played from `seat` or watched (seat None)."""

    def __init__(self, state: GameState, seat: int | None, clock: Callable[[], float]) -> None:
        self.state = state
        self.seat = seat
        """The seat this client plays, None while watching (or before the join answered)."""
        self.clock = clock
        self.input = InputMachine()
        self.message: tuple[str, str] = ("", "")
        """The last feedback line: (style, text)."""
        self.connection = "connecting"
        """The connection's state in words, shown on the status line unless "connected"."""
        self.online = True
        """False while the connection is down (after it was up): the clocks shown stop and
        the players' presence is not known."""
        self.showing_help = False
        """F1 or ? shows the game's rules in short, its notation, the marks and the keys."""
        self.help_top = 0
        """The first line of the help shown: it scrolls when the terminal is too short."""
        self.cursor: str | None = None
        """The hole the arrow keys are on, remembered from turn to turn."""
        self.cursor_shown = False
        """The cursor shows (and Enter plays its hole) only after an arrow key in this turn,
        so that a stray Enter on a fresh turn plays nothing."""
        self.browsing: int | None = None
        """The ply looked back at (left/right, like lichess), None while following the game."""
        self.animation = Animation()
        """The moves being shown hole by hole, in order."""

    buffer: Buffer
    """The input line (made by `GameApp`, with what it completes and accepts)."""
    application: Application[None]

    def invalidate(self) -> None:
        self.application.invalidate()

    def parts(self) -> ScreenParts:
        """What each part of the layout shows."""
        return ScreenParts(
            board=self._board_text,
            players=self._players_text,
            moves=self._moves_text,
            moves_cursor=self._moves_cursor,
            info=self._info_text,
            ending=self.ending,
            end=self._end_text,
            status=self._status_text,
            status_height=self._status_height,
            prompt=self._prompt,
            input_clocks=self._input_clocks,
            keys=self._help_text,
            too_small=self._too_small,
            help=self._help_screen,
            help_rows=self._help_rows,
            help_width=self._help_width,
            help_title=lambda: f"Help: {self.state.game_name}",
            helping=lambda: self.showing_help,
        )

    @property
    def viewer(self) -> int:
        return self.seat if self.seat is not None else 0

    @property
    def my_turn(self) -> bool:
        return self.input.my_turn(self.state.legal, self.state.over)

    @property
    def rematch_offered(self) -> bool:
        """The keys offer `r`: this screen holds a seat and the opponent is there to answer."""
        return self.seat is not None and self.state.can_rematch(self.seat)

    @property
    def shown_ply(self) -> int:
        """How many moves the board shows played (the move being animated among them)."""
        if self.browsing is not None:
            return self.browsing
        frame = self.animation.frame
        return len(self.state.history) if frame is None else frame.ply + 1

    def facts(self) -> Facts:
        """The game and the screen as the input machine reads them."""
        state, seat = self.state, self.seat
        movers = state.movers
        cursor = self.cursor if self.cursor_shown else None
        complete = self.buffer.complete_state
        return Facts(
            seat=seat,
            started=state.started,
            over=state.over,
            waiting=state.status == "waiting",
            can_rematch=self.rematch_offered,
            legal=state.legal,
            takeback=state.takeback,
            draw=state.draw,
            rematch=state.rematch,
            reply_too=bool(movers) and movers[-1] != state.takeback,
            has_moved=seat in movers,
            opponent=self.side_name(1 - self.viewer) if state.started else "",
            typed=self.buffer.text,
            helping=self.showing_help,
            listing=complete is not None,
            picked=complete is not None and complete.complete_index is not None,
            animating=self.animation.frame is not None,
            browsing=self.browsing,
            shown_ply=self.shown_ply,
            history=len(state.history),
            cursor=cursor,
            cursor_moves=self.legal_holes().get(cursor, []) if cursor is not None else [],
            cells=state.view.cells if state.started else "",
            game=state.game,
            position=state.position,
        )

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
        """The board to draw now: a position looked back at, an animation frame, or the
        position with the player's marks."""
        if self.browsing is not None:
            last = self.state.hole_of(self.browsing - 1) if self.browsing else None
            return self.state.view_at(self.browsing), Marks(last=frozenset([last] if last else []))
        frame = self.animation.frame
        if frame is not None:
            return frame.view, Marks(trail=self.animation.trail, active=frame.step.hole)
        last = self.state.last_hole()
        view = self.state.view
        if self.state.over:
            view = dataclasses.replace(view, to_move=None)
        return view, Marks(
            legal=frozenset(self.legal_holes()),
            last=frozenset([last] if last else []),
            cursor=self.cursor if self.my_turn and self.cursor_shown else None,
        )

    def _board_core(self) -> StyleAndTextTuples:
        """The board drawn, without its title line."""
        view, marks = self.board()
        return render_board(view, self.viewer, marks, self.state.names())

    def _board_text(self) -> StyleAndTextTuples:
        if not self.state.started:
            return [("", f"waiting for game {self.state.game_id or '(being created)'} ...\n")]
        core = self._board_core()
        if not self._fit(core).title:
            return core
        return [("class:panel.title", self._title() + "\n"), *core]

    def _fit(self, core: StyleAndTextTuples | None = None) -> Fit:
        """What the terminal's rows leave of the optional lines (`fold`); `core` is the board
        without its title, if already drawn."""
        if not self.state.started:
            return Fit()
        size = self.application.output.get_size()
        core = self._board_core() if core is None else core
        beside = panel_beside(size.columns, [("", self._title() + "\n"), *core])
        status = line_count(self._status_lines(clocks=False, feedback=True))
        clock_rows = None
        if self.state.remaining_ms(0, self.clock()) is not None:
            clock_rows = line_count(self._status_lines(clocks=True, feedback=True)) - status
        return fold(
            size.rows,
            text_height(core),
            status,
            beside=beside,
            empty_feedback=not self.message[1],
            clock_rows=clock_rows,
        )

    def _too_small(self) -> str | None:
        """Why the terminal cannot show the board, with the status, input and key lines."""
        if not self.state.started:
            return None
        size = self.application.output.get_size()
        below = line_count(self._status_lines(clocks=False, feedback=False)) + 2
        return too_small(size.columns, size.rows, self._board_core(), below)

    def _title(self) -> str:
        """The game, and the ply the board shows: the one looked back at, the move being
        animated (the game goes on meanwhile: it is said when the board has caught up), or
        the game's."""
        state = self.state
        if self.browsing is not None:
            return f"{state.game_name} {state.game_id}  move {self.browsing} of {state.ply}"
        frame = self.animation.frame
        ply, status = (state.ply, state.status) if frame is None else (frame.ply + 1, "playing")
        title = f"{state.game_name} {state.game_id}  ply {ply}  {status}"
        return title + ("  (watching)" if self.seat is None else "")

    @property
    def settled(self) -> bool:
        """No move is being animated: the board shows the game as it stands."""
        return self.animation.frame is None

    def turn_text(self) -> tuple[str, str]:
        """Who is to move, in words, always on screen; the result once the game is over and
        its last move has been shown (it is the line nothing overwrites)."""
        state = self.state
        if not state.started or (not self.settled and self.browsing is None):
            return ("", "")  # the move being animated says who moves: that is what is shown
        if state.over:
            assert state.result is not None
            if called_off(state.result):
                return ("class:status.turn", self._result_text())
            return ("class:status.turn", "Game over: " + self._result_text())
        if state.status == "waiting":
            if any(seat.wants_bot and seat.name is None for seat in state.seats):
                return ("", "waiting for a bot client: start one with ubao bot --depth N --serve")
            return ("", f"waiting for a player to join: {join_command(state.game_id)}")
        left = state.first_move_left(self.clock()) if self.online else None
        first = "" if left is None else f": {left:.0f} s to play the first move"
        if state.to_move == self.seat and not self.input.closed:
            return ("class:status.turn", f"Your move ({self.side_name(state.to_move)}){first}")
        return ("", f"{self.seen().who(state.to_move)}, to move{first}")

    def seen(self) -> Seen:
        """The screen as the news of an event reads it."""
        state = self.state
        return Seen(self.seat, state.view.side_labels, state.names(), state.over, self.message[1])

    def _result_text(self) -> str:
        state = self.state
        assert state.result is not None
        return describe_result(
            state.result, state.names(), state.view.side_labels, state.aborted_why
        )

    def _status_text(self) -> StyleAndTextTuples:
        """The status lines as the terminal's rows leave them (`fold`)."""
        fit = self._fit()
        return self._status_lines(clocks=fit.clocks_in_status, feedback=fit.feedback)

    def _status_lines(self, *, clocks: bool, feedback: bool) -> StyleAndTextTuples:
        """Who is to move (or the result), the `clocks` when the panel has no room for them,
        the connection if it is not up, the move being shown; the question; the `feedback`
        line: broken between words to the terminal's width, on as many rows as that takes,
        so that a long question or refusal (a Bao rule's reason) is never cut."""
        text: StyleAndTextTuples = [self.turn_text()]
        if clocks:
            now = self.clock()
            for side in (0, 1):
                text += [("", f"   {self.side_name(side)[0]}{NBSP}"), *self._clock(side, now)[:1]]
        if self.connection != "connected":
            text.append(("class:status.error", f"   [{self.connection}]"))
        frame = self.animation.frame
        if frame is not None and self.browsing is None:
            text.append(("", f"   {describe_step(frame, self.side_name(frame.mover))}"))
        question = self._question()
        if question is not None:
            text += [("", "\n"), ("class:status.question", question)]
        if feedback:
            text += [("", "\n"), self.message]
        return wrap_fragments(text, self.application.output.get_size().columns)

    def _input_clocks(self) -> StyleAndTextTuples:
        """The clocks at the end of the input line, when the status line has no row for them
        (`Fit.clocks_by_input`)."""
        if not self.state.started or not self._fit().clocks_by_input:
            return []
        now = self.clock()
        text: StyleAndTextTuples = []
        for side in (0, 1):
            text += [("", f"  {self.side_name(side)[0]} "), *self._clock(side, now)[:1]]
        return text

    def _status_height(self) -> int:
        """The status lines: as many rows as they take."""
        return line_count(self._status_text())

    def _question(self) -> str | None:
        """What the player is asked, on a line of its own above the feedback line."""
        return self.input.question_text(self.facts())

    def _players_text(self, width: int | None = None) -> StyleAndTextTuples:
        """Each seat: who plays it (and whether it is us), then its clock and presence, each
        line cut to the panel's `width` (if known) with `…`. Under the board on a short
        terminal it takes fewer rows rather than lose a clock: first without its title, then
        one line a seat."""
        lines = self._players_lines()
        return lines if width is None else cut_lines(lines, width)

    def _players_lines(self) -> StyleAndTextTuples:
        if not self.state.started:
            return []
        rows = self._panel_rows()
        return players_panel(
            self.state,
            self.clock(),
            seat=self.seat,
            online=self.online,
            mine_closed=self.input.closed,
            rows=5 if rows is None else rows,
            to_move=self.shown_to_move(),
        )

    def _clock(self, side: int, now: float) -> StyleAndTextTuples:
        return clock_text(self.state, side, now, online=self.online)

    def shown_to_move(self) -> int | None:
        """The side to move on the board shown: in the position looked back at, if any; the
        mover of the move being animated; nobody once the game is over."""
        if self.browsing is not None:
            return self.state.view_at(self.browsing).to_move
        if self.animation.frame is not None:
            return self.animation.frame.mover
        return None if self.state.over else self.state.to_move

    def _panel_rows(self) -> int | None:
        """The rows the side panel gets under the board on a narrow terminal; None when it
        goes beside the board."""
        return self._fit().panel_rows

    def _moves_text(self) -> StyleAndTextTuples:
        if not self.state.started:
            return []
        names = self.state.view.side_labels
        history = self.state.history
        analysis = self.state.analysis
        if analysis is not None and len(analysis.plies) == len(history):
            history = [move + mark for move, mark in zip(history, marks_of(analysis), strict=True)]
        return [
            ("class:panel.title", "Moves\n"),
            *move_list(history, self.state.movers, names, self.shown_ply - 1),
            ("", "\n" * self._end_rows()),
        ]

    def _moves_cursor(self) -> Point:
        """Keeps the move list scrolled to the move shown, and above the game-over box."""
        return Point(0, self.shown_ply + self._end_rows())

    def _end_rows(self) -> int:
        """The rows the game-over box covers at the bottom of the screen's top part (0 while
        it is not shown): the move list, the panel's last part then, leaves them blank, so that
        its end stays in sight."""
        if not self.ending():
            return 0
        return text_height(self._end_text()) + 2

    def ending(self) -> bool:
        """The game-over box is shown."""
        return self.state.over and self.browsing is None and self.settled and self._end_fits()

    def _info_text(self) -> StyleAndTextTuples:
        analysis = self.state.analysis
        if self.state.over and analysis is not None and known(analysis):
            return self._analysis_text(analysis)
        if not self.state.info:
            return []
        text: StyleAndTextTuples = [("class:panel.title", "Engine")]
        for seat, info in sorted(self.state.info.items()):  # no blank row at the panel's foot
            text.append(("", "\n" + format_search_report(info, self.side_name(seat))))
        return text

    def _analysis_text(self, analysis: GameAnalysis) -> StyleAndTextTuples:
        """The panel's engine part once the game has its analysis: the value and the verdict
        at the move shown, the engine's line, the sides' figures."""
        shown = self.shown_ply
        value = analysis.plies[shown - 1].after if shown and analysis.plies else 0.0
        labels = self.state.view.side_labels
        head, best = at_ply(analysis, shown, labels)[:2]
        bar = eval_bar(value, analysis.units, 10)
        text: StyleAndTextTuples = [("class:panel.title", "Analysis")]
        for line in [f"{bar} {head}", best, *side_lines(analysis, labels)]:
            text.append(("", "\n" + line))
        return text

    def _end_text(self) -> StyleAndTextTuples:
        keys = "left/right: look back at the moves   q: leave"
        if self.rematch_offered:
            keys = "left/right: moves   r: rematch   q: leave"
        lines = [self._result_text()]
        if self.state.ratings is not None:  # a rated game: each seat's change, a line each
            names = self.state.names()
            lines += [
                f"{self.side_name(seat)}, {names[seat] or change.player}: {rating_change(change)}"
                for seat, change in enumerate(self.state.ratings)
            ]
        analysis = self.state.analysis
        if analysis is not None and known(analysis):  # the box covers the panel: its figures
            lines += side_lines(analysis, self.state.view.side_labels)
            keys = "left/right: moves   m: mistakes   " + (
                "\nr: rematch   q: leave" if self.rematch_offered else "q: leave"
            )
        text = "\n".join(wrap(line, END_WIDTH - 4) for line in lines)
        return [("class:end", text + "\n"), ("", keys)]

    def _end_fits(self) -> bool:
        """The game-over box goes under the board, across the screen, where it covers no
        part of the board; where there is no room for it the status line says it all."""
        size = self.application.output.get_size()
        area = size.rows - self._status_height() - 2
        return area - text_height(self._board_text()) >= text_height(self._end_text()) + 2

    def _prompt(self) -> str:
        return self.input.prompt(self.facts())

    def _help_text(self) -> StyleAndTextTuples:
        """The keys that matter now, in one short line (F1 has them all); while the legal
        moves are offered, they take this line instead of covering the screen."""
        facts = self.facts()
        lead = self.input.entry_hint(facts)
        complete = self.buffer.complete_state
        if lead is not None and complete is not None:
            text: StyleAndTextTuples = [("class:help", lead)]
            for index, completion in enumerate(complete.completions):
                chosen = index == complete.complete_index
                text.append(("class:completion.current" if chosen else "", completion.text))
                text.append(("", " "))
            return text
        if lead is not None:
            return [("class:help", lead), ("class:completion.current", facts.typed.strip())]
        if self.message[1] and not self._fit().feedback:
            # No row for the feedback line: what it says is news, the keys are in F1's help.
            return cut_lines([self.message], self.application.output.get_size().columns)
        return [("class:help", self.input.keys_hint(facts))]

    def _help_lines(self) -> list[tuple[str, str]]:
        return help_lines(self.state, self.seat, self._help_width() - 4)

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
        """Scroll the help as `key` says (up, down, pageup, pagedown, space, home, end)."""
        count = len(self._help_lines())
        self.help_top = help_scrolled(key, self.help_top, count, self._help_rows())
        self.invalidate()
