"""What a tester found using the game screen as a person would (issue 12's polish): the help
at 80x24 and 60x20, help per board family, questions and stale messages, a dropped
connection, the command that comes back to a seat, and the ends of games."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input

from tests.support.client import Proxy, game_server, kalah_create, screen, until, url_of
from tests.support.screen import SIZES, Shown, SizedOutput, draw, legal_snapshot, played, sized
from ubao.client.app import MAX_STEP, GameApp
from ubao.client.board import view_from_json
from ubao.client.commands import return_command
from ubao.client.connection import DEFAULT_SERVER, ServerSession, SessionClosed, describe_failure
from ubao.client.render import render_board
from ubao.client.state import GameState
from ubao.engine.games import GAMES, make_game
from ubao.protocol import Clocks, ClockSpec, Moved, Over, Result, SeatInfo, SeatSpec, Snapshot

pytestmark = pytest.mark.timeout(120)

DOWN, PAGE_DOWN, END_KEY, ESC = "\x1b[B", "\x1b[6~", "\x1b[F", "\x1b"


# -- the help ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "player", [(name, *size) for name in sorted(GAMES) for size in SIZES], indirect=True
)
async def test_the_help_fits_or_scrolls_to_its_last_line_and_keys_stay_in_it(
    player: Shown,
) -> None:
    """At 80x24 and 60x20, every line of the help can be seen (Down, PageDown, End), and
    while it is open the arrows, typing and Enter do not reach the board or the input."""
    app = player.app
    player.keys.send_text("?")
    await until(lambda: app.showing_help, "the help")
    wanted = [line.replace("\xa0", " ").strip() for _, line in app._help_lines() if line.strip()]
    seen: set[str] = set()

    def look() -> str:
        lines = player.lines()
        framed = [line for line in lines if line.count("│") >= 2]
        seen.update(line[line.index("│") + 1 : line.rindex("│")].strip() for line in framed)
        return "\n".join(lines)

    first = look()
    assert "Esc: close" in first or "Esc closes" in first, first
    player.keys.send_text(DOWN)
    await until(lambda: app.help_top == 1 or len(wanted) < player.rows - 3, "a line down")
    for _ in range(len(wanted)):  # bounded: a page is at least a line
        top = app.help_top
        player.keys.send_text(PAGE_DOWN)
        await asyncio.sleep(0.05)
        look()
        if app.help_top == top:
            break
    player.keys.send_text(END_KEY)
    await asyncio.sleep(0.05)
    shown = look()
    missing = [line for line in wanted if line not in seen]
    assert not missing, f"never shown: {missing}\n{shown}"
    assert "q leaves" in shown  # the last key line, at the bottom of the help
    player.keys.send_text("\x1b[D\x1b[C2\r")  # arrows, a move and Enter: swallowed by the help
    await asyncio.sleep(0.2)
    assert app.showing_help and not app.cursor_shown and app.buffer.text == ""
    assert app.state.history == [] and app.actions.moves == []  # type: ignore[union-attr]
    player.keys.send_text(ESC)
    await until(lambda: not app.showing_help, "Esc to close it")
    await until(lambda: app.application.layout.has_focus(app.buffer), "the input line again")


@pytest.mark.parametrize("name", sorted(GAMES))
async def test_each_games_help_speaks_of_its_own_board(name: str) -> None:
    with create_pipe_input() as keys:
        app = GameApp(GameState("AbCd1234"), seat=0, input=keys, output=SizedOutput(80, 24))
        app.on_event(legal_snapshot(name))
        help_text = " ".join(line for _, line in app._help_lines())
        keys_line = fragment_list_to_text(app._help_text())
    board = GAMES[name].board
    if board == "othello":
        for word in ("hole", "pit", "sow", "seed", "store"):
            assert word not in help_text.lower(), word
        assert "+ (green): a square you may play" in help_text
        assert "arrows: squares" in keys_line
    else:
        assert "sown" in help_text and "arrows: squares" not in keys_line
    directed = name == "ethiopian"  # the one registered game whose moves end with L or R
    if board == "mancala":
        assert ("3L to your left" in help_text) == directed
        assert "nyumba" not in help_text and "arrows: pits" in keys_line
    if board == "bao":
        assert "nyumba" in help_text and "S* and N*" not in help_text


# -- questions and messages --------------------------------------------------------------------


@pytest.mark.parametrize("player", [("bao", 80, 24)], indirect=True)
async def test_a_question_replaces_the_refusal_before_it_and_takes_a_bare_letter(
    player: Shown,
) -> None:
    app = player.app
    player.keys.send_text("A1\r")
    await until(lambda: app.message[0] == "class:status.error", "the refusal")
    player.keys.send_text("A6\r")
    await until(lambda: app.input.question is not None, "the question")
    assert app.message == ("", "")
    assert "Answer L or R" in app.input.question.question  # type: ignore[union-attr]
    player.keys.send_text("l\r")
    await until(lambda: app.actions.moves == ["A6L"], "A6L sent")  # type: ignore[union-attr]


@pytest.mark.parametrize("player", [("bao", 60, 20)], indirect=True)
async def test_a_long_question_breaks_between_words_at_60_columns(player: Shown) -> None:
    app = player.app
    player.keys.send_text("A6\r")
    await until(lambda: app.input.question is not None, "the question")
    status = fragment_list_to_text(app._status_text()).split("\n")
    assert all(len(line) <= 60 for line in status)
    words = " ".join(status).split()
    assert words == " ".join(app._question() or "").split() or set(
        app.input.question.question.split()  # type: ignore[union-attr]
    ) <= set(words)
    assert "canc" not in words and "(Esc" in words and "cancels)" in words


@pytest.mark.parametrize("player", [("kalah", 80, 24)], indirect=True)
async def test_a_refusal_goes_once_the_player_types_or_lists_the_moves(player: Shown) -> None:
    app = player.app
    player.keys.send_text("xyz\r")
    await until(lambda: app.message[0] == "class:status.error", "the refusal")
    player.keys.send_text("\t")
    await until(lambda: app.message == ("", ""), "Tab to clear it")
    player.keys.send_text(ESC + "9\r")
    await until(lambda: app.message[0] == "class:status.error", "another refusal")
    player.keys.send_text("1")
    await until(lambda: app.message == ("", ""), "typing to clear it")


@pytest.mark.parametrize("player", [("kalah", 60, 20), ("kalah", 80, 24)], indirect=True)
async def test_the_prompt_comes_back_after_a_line_wider_than_the_terminal(player: Shown) -> None:
    """Issue 36, 5: after a paste wider than the terminal, `move>` never came back."""
    app = player.app
    player.keys.send_text("x" * (player.columns + 20))
    await until(lambda: len(app.buffer.text) == player.columns + 20, "the paste")
    assert any(line.endswith("x" * 20) for line in player.lines())  # scrolled to the cursor
    player.keys.send_text("\r")
    await until(lambda: app.message[0] == "class:status.error", "the refusal")
    assert "move>" in [line.strip() for line in player.lines()]
    player.keys.send_text("3")
    await until(lambda: app.buffer.text == "3", "a move typed")
    assert "move> 3" in [line.strip() for line in player.lines()]


# -- a dropped connection ----------------------------------------------------------------------


def test_connection_failures_read_as_sentences() -> None:
    refused = ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 18931)")
    assert describe_failure(refused) == "server unreachable"
    assert describe_failure(TimeoutError()) == "server not answering"


async def test_the_status_line_says_the_server_is_unreachable_in_words() -> None:
    states: list[str] = []
    session = ServerSession(
        "ws://127.0.0.1:9/", "alice", "human", on_event=lambda e: None, on_state=states.append
    )
    session.backoff = dataclasses.replace(session.backoff, first=0.01, limit=0.02)
    with pytest.raises(SessionClosed):
        await asyncio.wait_for(session.run(), 30)
    waits = [state for state in states if state != "connecting"]
    assert waits and all(w.startswith("server unreachable; reconnecting in") for w in waits)
    assert not any("Errno" in state or "(" in state for state in states)


async def test_while_disconnected_clocks_stop_the_panel_says_so_and_a_move_is_sent_after(
    tmp_path: Path,
) -> None:
    """The panel's presence says reconnecting and the lag is unknown; the clocks shown stop;
    a move typed meanwhile is sent after the resume, and reaches the opponent."""
    home = tmp_path
    create = dataclasses.replace(
        kalah_create(SeatSpec.open(), SeatSpec.open()), clock=ClockSpec(300_000, 0)
    )
    async with game_server() as server:
        proxy = Proxy(server.port)
        await proxy.start()
        try:
            async with screen(proxy.url, "alice", home / "a.json", create=create) as alice:
                await until(lambda: alice.live.state.started)
                game_id = alice.live.game_id
                async with screen(url_of(server), "bob", home / "b.json", game_id=game_id) as bob:
                    app = alice.live.app
                    await until(lambda: alice.live.state.legal, "alice's turn")
                    alice.type("1\r")
                    await until(lambda: bob.live.state.legal, "bob's turn")
                    bob.type(bob.live.state.legal[0] + "\r")
                    await until(lambda: alice.live.state.legal and not app.input.sending, "alice's")
                    await until(lambda: alice.live.state.rtt_ms is not None, "a first ping")
                    proxy.cut()
                    await until(lambda: not app.online, "the drop")
                    panel = fragment_list_to_text(app._players_text())
                    assert "reconnecting" in panel and "lag -" in panel, panel
                    stopped = alice.live.state.remaining_ms(0, app.clock())
                    await asyncio.sleep(1.1)
                    assert alice.live.state.remaining_ms(0, app.clock()) == stopped
                    move = alice.live.state.legal[0]
                    ply = alice.live.state.ply
                    alice.type(move + "\r")
                    await until(lambda: app.unsent == (ply, move), "the move kept")
                    assert "not sent" in app.message[1]
                    proxy.restore()
                    await until(lambda: len(bob.live.state.history) > ply, "the move at bob's")
                    assert bob.live.state.history[ply] == move
                    await until(lambda: app.online and app.unsent is None, "back")
        finally:
            await proxy.close()


# -- coming back -------------------------------------------------------------------------------


def test_the_command_to_come_back_names_the_player_the_server_and_any_id() -> None:
    assert return_command("-x9saQT3", "alice", "ws://h:1/") == (
        "ubao play --join=-x9saQT3 --name=alice --server=ws://h:1/"
    )
    assert "'--name=al ice'" in return_command("g", "al ice", DEFAULT_SERVER)


# -- ends of games -----------------------------------------------------------------------------

BEFORE_END = "kalah(4,3) S 0,0,0,2/3,3,3,1 8,4"
"""South's last move, 4: the game ends with it, North taking the rest."""


def ending() -> tuple[Snapshot, Moved, Over]:
    game = make_game("kalah", {"pits": 4, "seeds": 3})
    before = game.parse_position(BEFORE_END)
    after = game.play_text(before, "4")
    snapshot = Snapshot(
        game_id="g",
        v=1,
        game="kalah",
        options={"pits": 4, "seeds": 3},
        status="playing",
        position=BEFORE_END,
        to_move=0,
        ply=0,
        history=(),
        seats=(SeatInfo("open", "alice", True), SeatInfo("open", "bob", True)),
    )
    moved = Moved(
        game_id="g",
        v=2,
        ply=0,
        seat=0,
        move="4",
        position=game.format_position(after),
        to_move=1,
    )
    return snapshot, moved, Over(game_id="g", v=3, result=Result(1, "normal", (9, 15)))


async def test_the_end_shows_once_the_last_move_has_been_shown() -> None:
    snapshot, moved, over = ending()
    with create_pipe_input() as keys:
        output = SizedOutput(80, 24)
        app = GameApp(GameState("g"), seat=1, step_seconds=MAX_STEP, input=keys, output=output)
        app.set_connection("connected", True)
        task = asyncio.create_task(app.run())
        await until(lambda: app.application.is_running, "the screen")
        for event in (snapshot, moved, over):
            app.on_event(event)
        assert app.animation.frame is not None
        shown = "\n".join(draw(app.application, 80, 24))
        assert "Game over" not in shown, shown
        status = fragment_list_to_text(app._status_text())
        assert status.startswith("South lifts S4, 2 in hand\n"), status
        keys.send_text(ESC)  # end the animation
        await until(lambda: app.settled, "the end of the animation")
        shown = "\n".join(draw(app.application, 80, 24))
        assert "Game over: North, bob, wins at the end of play, 15-9" in shown, shown
        assert "to move" not in shown
        app.quit()
        await asyncio.wait_for(task, 30)


@pytest.mark.parametrize(("columns", "rows"), SIZES)
@pytest.mark.parametrize("name", sorted(GAMES))
async def test_the_game_over_box_covers_whole_rows_under_the_board(
    name: str, columns: int, rows: int
) -> None:
    """The box never sits on the board, and no text of the panel is left cut at its sides."""
    snapshot, events = played(name)
    with create_pipe_input() as keys:
        app = GameApp(GameState("AbCd1234"), seat=0, input=keys, output=SizedOutput(columns, rows))
        app.on_event(snapshot)
        for event in events:
            app.on_event(event)
        app.on_event(Over(game_id="AbCd1234", v=len(events) + 2, result=Result(1, "resign", None)))
        lines = draw(app.application, columns, rows)
        board = fragment_list_to_text(app._board_text()).splitlines()
    shown = "\n".join(lines)
    assert all(line.startswith(part.rstrip()) for part, line in zip(board, lines, strict=False))
    boxed = [line for line in lines if line.strip()[:1] in ("┌", "│", "└")]
    for line in boxed:
        assert line.startswith(" " * ((columns - 50) // 2)) and line.endswith(("┐", "│", "┘"))
    if not boxed:
        assert "Game over: " in shown, shown


def test_a_bao_game_ending_with_seeds_in_hand_shows_them_with_the_winner() -> None:
    board = [[0] * 8, [0, 0, 0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0] * 8]
    data = {"board": board, "stock": [0, 0], "owned": [False, False]}
    view = view_from_json("bao", {**data, "winner": "N", "captured_in_hand": 5})
    text = fragment_list_to_text(render_board(view, 0)).splitlines()
    assert text[1] == "  stock 0  nyumba a5 lost  in hand 5"
    assert "in hand" not in text[-1] and "to move" not in "\n".join(text)


def test_a_replay_at_its_last_move_marks_nobody_to_move() -> None:
    from ubao.client.export import replay_of
    from ubao.client.replay import ReplayApp
    from ubao.engine.record import Record

    record = Record({"Game": "kalah", "Options": "{}", "Result": "0-1"}, ("3",))
    with create_pipe_input() as keys:
        app = ReplayApp(record, replay_of(record), input=keys, output=SizedOutput(80, 24))
        app.go(1)
        assert "to move" not in fragment_list_to_text(app._board_text())
        app.go(0)
        assert "to move" in fragment_list_to_text(app._board_text())


async def test_looking_back_the_panel_marks_who_moved_there_and_no_sowing_is_said() -> None:
    snapshot, events = played("kalah")
    with create_pipe_input() as keys:
        app = GameApp(
            GameState("AbCd1234"), step_seconds=MAX_STEP, input=keys, output=SizedOutput(80, 24)
        )
        task = asyncio.create_task(app.run())
        await until(lambda: app.application.is_running, "the screen")
        app.on_event(snapshot)
        for event in events[:-1]:
            app.on_event(event)
        app.animation.clear()
        app.browse(0)
        app.on_event(events[-1])  # a move arrives, and is animated, while looking back
        assert app.animation.frame is not None
        panel = fragment_list_to_text(app._players_text())
        assert "> South" in panel and "> North" not in panel  # South moves first
        status = fragment_list_to_text(app._status_text())
        assert f"Looking at move 0 of {len(events)}" in status and "sows" not in status
        app.quit()
        await asyncio.wait_for(task, 30)


# -- the panel on a short terminal -------------------------------------------------------------


@pytest.mark.parametrize(("columns", "rows"), SIZES)
@pytest.mark.parametrize("name", sorted(GAMES))
async def test_both_clocks_show_whatever_the_terminal(name: str, columns: int, rows: int) -> None:
    snapshot, events = played(name)
    clocks = Clocks((292_000, 187_000), running=None, increment_ms=5_000)
    people = (SeatInfo("open", "root", True), SeatInfo("open", "bob", True))
    snapshot = dataclasses.replace(snapshot, clock=ClockSpec(300_000, 5_000), seats=people)
    with create_pipe_input() as keys:
        app = GameApp(GameState("AbCd1234"), seat=0, input=keys, output=SizedOutput(columns, rows))
        app.set_connection("connected", True)
        app.on_event(snapshot)
        for event in [*events[:-1], dataclasses.replace(events[-1], clocks=clocks)]:
            app.on_event(event)
        shown = "\n".join(draw(app.application, columns, rows))
    assert "4:52" in shown and "3:07" in shown, shown


def test_a_game_waiting_for_a_bot_client_says_how_to_start_one() -> None:
    snapshot, _ = played("kalah")
    wanted = SeatInfo("open", None, False, wants_bot=True, depth=4)
    waiting = dataclasses.replace(
        snapshot, status="waiting", seats=(SeatInfo("open", "root", True), wanted)
    )
    with create_pipe_input() as keys:
        app = GameApp(GameState("AbCd1234"), seat=0, input=keys, output=SizedOutput(80, 24))
        app.on_event(waiting)
        assert "ubao bot --depth N --serve" in app.turn_text()[1]


def test_a_replays_panel_says_who_played_and_how_it_ended_in_words() -> None:
    from ubao.client.export import replay_of
    from ubao.client.replay import ReplayApp
    from ubao.engine.record import Record

    tags = {
        "Game": "kalah",
        "Options": "{}",
        "GameId": "8O6GPzXM",
        "South": "alice",
        "SouthKind": "open",
        "North": "ubao-engine (depth 2)",
        "NorthKind": "bot",
        "NorthDepth": "2",
        "Clock": "300000+5000",
        "Result": "0-1",
        "Reason": "resign",
    }
    record = Record(tags, ("3",))
    with create_pipe_input() as keys:
        app = ReplayApp(record, replay_of(record), input=keys, output=SizedOutput(80, 24))
        panel = fragment_list_to_text(app._tags_text())
    assert "Kind" not in panel and "server bot (depth 2)" in panel and "Clock 5+5" in panel
    assert " ".join(panel.split()).endswith("North, ubao-engine (depth 2), wins by resignation")


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", ["kalah", "ethiopian", "bao", "othello"])
def test_the_help_speaks_to_a_spectator_as_one(name: str) -> None:
    snapshot, _ = played(name)
    watcher, seated = sized(80, 24, seat=None), sized(80, 24, seat=0)
    for app in (watcher, seated):
        app.on_event(snapshot)
    lines = [line for _, line in watcher._help_lines()]
    watched = " ".join(lines[lines.index("") :])  # after the rules, which speak to a player
    for words in ("Your row", "yours on the right", "your front row", "your left", "you may"):
        assert words not in watched, (words, watched)
    assert "Your row" in " ".join(line for _, line in seated._help_lines()) or name in (
        "bao",
        "othello",
    )
    if name != "othello":
        assert "South" in watched
