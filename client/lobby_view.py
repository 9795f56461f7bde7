"""The interactive lobby's texts, drawn from its model: the title, the table of games cut to
the terminal's width, the selected game in full, the new-game form, the leaderboard, the
server's tournaments and one tournament's standings, and the keys' hint.

The table says what a glance needs (the game, who plays, how it stands, its ply, how many
watch it); the line under it gives the selected game's id, options, clock and pace. Players are
named as `ubao games` names them (`seat_cell`: server bots by what they are, `bot d6`).
"""

from __future__ import annotations

import json

from prompt_toolkit.formatted_text import StyleAndTextTuples

from ubao.client.lobby import VS, cut_seats, seat_cell
from ubao.client.lobby_machine import HINTS, SPARE_HINTS, LobbyModel, Watch, described
from ubao.client.standings import leaderboard_table
from ubao.client.state import called_off
from ubao.client.terminal_text import columns, cut
from ubao.client.tournament_text import tournament_text, tournaments_table
from ubao.engine.games import GAMES
from ubao.engine.record import printable
from ubao.protocol import GameSummary, escape

MARK = "> "
"""Before the selected row (also in reverse video), so that it shows without colours."""
FIXED = (("PLY", 4), ("WATCHING", 8))
"""The right-hand columns: their headers and widths."""
GAP = "  "
NAME_SHOWN = 24
"""The most of the user's own name that the title shows."""


def short_status(summary: GameSummary) -> str:
    """`waiting`, `playing`, or how a finished game ended: the winner's side and the score
    (`South won 30-18`), a draw, or why it was called off."""
    result = summary.result
    if summary.status != "over" or result is None:
        return summary.status
    if called_off(result):
        return result.reason
    score = result.score
    if result.winner is None:
        return "draw" + (f" {score[0]}-{score[1]}" if score else "")
    info = GAMES.get(summary.game)
    side = info.sides[result.winner] if info else f"seat {result.winner}"
    points = f" {score[result.winner]}-{score[1 - result.winner]}" if score else ""
    return f"{side} won{points}" + ("" if score else f" ({result.reason})")


def widths(games: list[GameSummary], width: int) -> tuple[int, int, int]:
    """The widths of the game, players and status columns in `width` columns: the game's
    name whole when it can be, then the status as far as the players leave room for it (a
    third at least), the players taking the rest."""
    fixed = len(MARK) + sum(len(GAP) + size for _, size in FIXED) + 2 * len(GAP)
    free = max(width - fixed, 12)
    game = min(max([4, *(columns(s.game) for s in games)]), max(free // 5, 4))
    players = max(columns(seats_text(s)) for s in games)
    wanted = max([6, *(columns(short_status(s)) for s in games)])
    state = min(wanted, max((free - game) // 3, free - game - players))
    return game, free - game - state, state


def seats_text(summary: GameSummary) -> str:
    return VS.join(printable(seat_cell(seat, summary)) for seat in summary.seats)


def pad(text: str, width: int) -> str:
    return text + " " * (width - columns(text))


def header(sizes: tuple[int, int, int]) -> StyleAndTextTuples:
    words = ("GAME", "PLAYERS", "STATUS")
    cells = [pad(cut(word, size), size) for word, size in zip(words, sizes, strict=True)]
    right = "".join(GAP + word.rjust(size) for word, size in FIXED)
    return [("class:label", " " * len(MARK) + GAP.join(cells) + right)]


def row(summary: GameSummary, sizes: tuple[int, int, int], selected: bool) -> StyleAndTextTuples:
    """One game: its name, who sits in each seat, how it stands, its ply and spectators."""
    game, players, state = sizes
    cells = [
        pad(cut(printable(summary.game), game), game),
        pad(cut_seats(seats_text(summary), players), players),
        pad(cut(printable(short_status(summary)), state), state),
    ]
    watching = "-" if summary.spectators is None else str(summary.spectators)
    (_, ply_width), (_, watching_width) = FIXED
    right = GAP + str(summary.ply).rjust(ply_width) + GAP + watching.rjust(watching_width)
    text = (MARK if selected else " " * len(MARK)) + GAP.join(cells) + right
    return [("reverse" if selected else "", text)]


def table(model: LobbyModel, width: int, height: int) -> StyleAndTextTuples:
    """The header and as many games as `height` lines take, the selected one in sight."""
    rows = model.rows()
    if not rows:
        empty = "no games here yet: n creates one" if model.loaded else "asking the server..."
        return [("class:label", empty)]
    sizes = widths(rows, width)
    out = header(sizes)
    selected = model.index()
    for at in rows_around(selected, len(rows), max(height - 1, 1)):
        out += [("", "\n"), *row(rows[at], sizes, at == selected)]
    return out


def rows_around(selected: int | None, count: int, height: int) -> range:
    """The rows shown in `height` lines: the selected one in sight, near the middle once the
    list is longer than the screen."""
    if count <= height:
        return range(count)
    top = max(0, min((selected or 0) - height // 2, count - height))
    return range(top, top + height)


def detail(summary: GameSummary | None) -> str:
    """The selected game in full: its id, options, clock and pace, and whether it is rated."""
    if summary is None:
        return ""
    parts = [f"game {summary.game_id}", printable(summary.game)]
    if summary.options:
        parts.append(printable(json.dumps(summary.options, separators=(",", ":"))))
    if summary.clock is not None:
        initial, increment = summary.clock.initial_ms / 1000, summary.clock.increment_ms / 1000
        parts.append(f"clock {initial:g}+{increment:g}")
    if summary.pace_ms:
        parts.append(f"pace {summary.pace_ms / 1000:g} s")
    if summary.rated:
        parts.append("rated")
    return "  ".join(parts)


def title(model: LobbyModel, name: str, connection: str, width: int) -> StyleAndTextTuples:
    """Whose lobby, how many games of each kind, the filter, and the connection unless up."""
    shown = model.filter or "all"
    games = list(model.games.values())
    left = f"ubao lobby: {escape(name, NAME_SHOWN)}  {described(games)}  [{shown}]"
    right = "" if connection == "connected" else connection
    room = max(width - columns(right) - 1, 0)
    return [("class:panel.title", cut(left, room)), ("", " "), ("class:status.error", right)]


def form(model: LobbyModel) -> StyleAndTextTuples:
    """The new-game form: each field's choice, the one being changed marked."""
    out: StyleAndTextTuples = [("class:panel.title", "New game\n\n")]
    for at, (field, value) in enumerate(model.form.choices()):
        current = at == model.form.field
        out.append(
            ("reverse" if current else "", f"{MARK if current else '  '}{field}: < {value} >")
        )
        out.append(("", "\n"))
    out.append(("class:label", "\nyou sit South (seat 0, moves first)"))
    return out


def leaderboard(model: LobbyModel, width: int, height: int) -> StyleAndTextTuples:
    """The best rated accounts of the game shown, pool by pool, as `ubao ratings` prints
    them, as many lines as fit."""
    out: StyleAndTextTuples = [("class:panel.title", f"Leaderboard: {model.board_game}\n")]
    if model.leaderboard is None:
        return [*out, ("class:label", "asking the server...")]
    if not model.leaderboard:
        return [*out, ("class:label", f"nobody has a rated {model.board_game} game yet")]
    lines = leaderboard_table(model.leaderboard).splitlines()[: max(height - 1, 1)]
    return [*out, ("", "\n".join(cut(printable(line), width) for line in lines))]


def tournaments(model: LobbyModel, width: int, height: int) -> StyleAndTextTuples:
    """The server's tournaments as `ubao tournament list` prints them, the selected one
    marked and in sight."""
    out: StyleAndTextTuples = [("class:panel.title", "Tournaments\n")]
    if model.tournaments is None:
        return [*out, ("class:label", "asking the server...")]
    if not model.tournaments:
        return [*out, ("class:label", "no tournament on this server: ubao tournament new")]
    head, *lines = tournaments_table(model.tournaments).splitlines()
    out.append(("class:label", cut(" " * len(MARK) + printable(head), width)))
    for at in rows_around(model.tournament, len(lines), max(height - 2, 1)):
        selected = at == model.tournament
        text = (MARK if selected else " " * len(MARK)) + printable(lines[at])
        out += [("", "\n"), ("reverse" if selected else "", cut(text, width))]
    return out


def standings(model: LobbyModel, width: int, height: int) -> StyleAndTextTuples:
    """The followed tournament as `ubao tournament show` prints it, as many lines as fit."""
    if model.standings is None:
        return [("class:label", "asking the server...")]
    head, *lines = tournament_text(model.standings).splitlines()[: max(height, 1)]
    shown = "\n".join(cut(printable(line), width) for line in lines)
    return [("class:panel.title", cut(printable(head), width)), ("", "\n" + shown)]


def hint(model: LobbyModel, width: int) -> str:
    """The keys that matter in the current mode, what Enter does with the selected game
    first; those of `SPARE_HINTS` left out while the line is wider than `width`."""
    action = "watch" if isinstance(model.action(), Watch) else "play"
    items = [item.format(action=action) for item in HINTS[model.mode]]
    for spare in SPARE_HINTS:
        if columns(GAP.join(items)) <= width:
            break
        if spare in items:
            items.remove(spare)
    return GAP.join(items)
