"""From a server's snapshot of a game to a record, and from a record back to its positions."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from ubao.client.analysis_text import marks_of
from ubao.client.board import BoardView, view_of
from ubao.client.state import CALLED_OFF, called_off
from ubao.engine.game import Game, GameError
from ubao.engine.games import GAMES, make_game
from ubao.engine.record import Record, options_tag, result_token
from ubao.protocol import Result, SeatInfo, Snapshot

UNKNOWN_DATE = "????.??.??"
"""PGN's date of a game whose date is unknown (a server that does not send `created`)."""


def date_tag(created_ms: int | None) -> str:
    """The `Date` tag: the UTC day the game was created on."""
    if created_ms is None:
        return UNKNOWN_DATE
    created = datetime.datetime.fromtimestamp(created_ms / 1000, datetime.UTC)
    return created.strftime("%Y.%m.%d")


def bot_tags(side: str, seat: SeatInfo) -> dict[str, str]:
    """A server bot's settings as the seat info gives them: `SouthDepth`, `SouthTimeMs`, ..."""
    if seat.kind != "bot":
        return {}
    settings = {
        "Depth": seat.depth,
        "TimeMs": seat.time_ms,
        "Eval": seat.eval,
        "Algorithm": seat.algorithm,
    }
    return {f"{side}{name}": str(value) for name, value in settings.items() if value is not None}


def record_of(snapshot: Snapshot) -> Record:
    """The record of the game in `snapshot`, finished or running, dated the day it was created;
    with the server's analysis, if the snapshot has one: each move's mark (`?!`, `?`, `??`)
    and each side's accuracy (`SouthAccuracy`)."""
    tags = {
        "Game": snapshot.game,
        "Options": options_tag(snapshot.options),
        "GameId": snapshot.game_id,
        "Date": date_tag(snapshot.created),
    }
    for side, seat in zip(GAMES[snapshot.game].sides, snapshot.seats, strict=True):
        tags[side] = seat.name or "?"
        tags[f"{side}Kind"] = seat.kind
        if seat.client is not None:
            tags[f"{side}Client"] = seat.client
        tags.update(bot_tags(side, seat))
    if snapshot.clock is not None:
        tags["Clock"] = f"{snapshot.clock.initial_ms}+{snapshot.clock.increment_ms}"
    result = snapshot.result
    # A game called off (aborted, ...) has no result, as in PGN's `*`; `Reason` says why.
    finished = snapshot.status == "over" and not called_off(result)
    tags["Result"] = result_token(result.winner if result else None, finished)
    if result is not None:
        tags["Reason"] = result.reason
        if result.score is not None:
            tags["Score"] = f"{result.score[0]}-{result.score[1]}"
    tags["Plies"] = str(len(snapshot.history))
    analysis = snapshot.analysis
    if analysis is None or len(analysis.plies) != len(snapshot.history):
        return Record(tags, snapshot.history)
    for side, figures in zip(GAMES[snapshot.game].sides, analysis.sides, strict=True):
        tags[f"{side}Accuracy"] = f"{figures.accuracy:.1f}"
    return Record(tags, snapshot.history, marks=marks_of(analysis))


def seat_of(record: Record, side: str) -> SeatInfo:
    """A side's seat as the record's tags tell it (what `record_of` wrote), to say who or what
    played it; tags that do not read as such are left out."""
    tags = record.tags

    def count(name: str) -> int | None:
        value = tags.get(f"{side}{name}", "")
        return int(value) if value.isdecimal() else None

    return SeatInfo(
        "bot" if tags.get(f"{side}Kind") == "bot" else "open",
        tags.get(side),
        True,
        depth=count("Depth"),
        time_ms=count("TimeMs"),
        eval=tags.get(f"{side}Eval"),
        algorithm=tags.get(f"{side}Algorithm"),
        client=tags.get(f"{side}Client"),
    )


def result_of(record: Record) -> Result | None:
    """The result the record's tags give: None for a game not over (`*`), unless its `Reason`
    says it was called off (aborted, ...)."""
    winner = {"1-0": 0, "0-1": 1}.get(record.result)
    if record.result == "*":
        reason = record.tags.get("Reason", "")
        return Result(None, reason, None) if reason in CALLED_OFF else None
    points = record.tags.get("Score", "").split("-")
    score = None
    if len(points) == 2 and all(point.isdecimal() for point in points):
        score = (int(points[0]), int(points[1]))
    return Result(winner, record.tags.get("Reason", "normal"), score)


@dataclass(frozen=True, slots=True)
class Replay:
    """Every position of a recorded game, with who played each move."""

    game: Game[Any, Any]
    positions: tuple[Any, ...]
    """The start position, then the position after each move."""
    movers: tuple[int, ...]

    def view(self, ply: int) -> BoardView:
        return view_of(self.game, self.positions[ply])


def replay_of(record: Record) -> Replay:
    """Play the record's moves from the start; GameError names the first move that fails."""
    game = make_game(record.game, record.options)
    position = game.start()
    positions, movers = [position], []
    for ply, move in enumerate(record.moves):
        movers.append(game.to_move(position))
        try:
            position = game.play_text(position, move)
        except GameError as error:
            raise GameError(f"move {ply + 1} ({move}): {error}") from None
        positions.append(position)
    return Replay(game, tuple(positions), tuple(movers))
