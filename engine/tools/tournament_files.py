"""A tournament's output folder: what it was asked to play, a record of every game, the tables.

    FOLDER/tournament.json     the settings, written first; a re-run must ask for the same
    FOLDER/games/0001.txt ...  one record per finished game (ubao's record format, as
                               `ubao export` writes and `ubao replay` reads), numbered as the
                               schedule plays them, each written whole or not at all
    FOLDER/crosstable.txt      the standings and crosstable, rewritten after every game
    FOLDER/results.json        the same as data

Resuming reads the finished games back from their records, so a tournament stopped by Ctrl-C,
a crash or a power cut continues where it stopped when the same command runs again.
"""

from __future__ import annotations

import datetime
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ubao.client.export import result_of
from ubao.client.state import called_off
from ubao.engine.games import GAMES
from ubao.engine.record import (
    Record,
    RecordError,
    format_record,
    options_tag,
    parse_record,
    result_token,
)
from ubao.engine.tools.entrants import Entrant
from ubao.engine.tools.schedule import ScheduledGame
from ubao.engine.tools.standings import GameResult, Standing, crosstable, standings

SETTINGS_FILE = "tournament.json"
GAMES_FOLDER = "games"
EVENT = "ubao-engine tournament"


class FolderError(ValueError):
    """An output folder that holds another tournament, or a record that does not read back."""


def claim(folder: Path, settings: Mapping[str, Any]) -> None:
    """Make `folder` this tournament's: write its settings, or check that the settings already
    there are the same (a changed command is refused, not mixed into the old games)."""
    path = folder / SETTINGS_FILE
    if path.exists():
        try:
            kept = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as error:
            raise FolderError(f"{path}: not a tournament's settings ({error})") from None
        changed = [key for key in {**kept, **settings} if kept.get(key) != settings.get(key)]
        if changed:
            raise FolderError(
                f"{folder} holds a tournament with other settings ({', '.join(changed)}): "
                "run the same command to resume it, or give another folder"
            )
        return
    if folder.exists() and any(folder.iterdir()):
        raise FolderError(f"{folder} is not empty and holds no {SETTINGS_FILE}")
    (folder / GAMES_FOLDER).mkdir(parents=True, exist_ok=True)
    _write(path, json.dumps(settings, indent=2) + "\n")


def record_path(folder: Path, number: int) -> Path:
    return folder / GAMES_FOLDER / f"{number:04d}.txt"


def record_of(
    game: str,
    options: Mapping[str, Any],
    scheduled: ScheduledGame,
    entrants: Sequence[Entrant],
    moves: Sequence[str],
    result: GameResult,
    opening_plies: int,
    failure: str | None,
) -> Record:
    """The record of a finished game, with the tags `ubao replay` shows (a bot's settings) and
    those a resumed tournament reads back (`Round`, `GameNumber`, `Reason`, `Score`)."""
    tags = {
        "Event": EVENT,
        "Game": game,
        "Options": options_tag(options),
        "Date": datetime.datetime.now(datetime.UTC).strftime("%Y.%m.%d"),
        "Round": str(scheduled.round),
        "GameNumber": str(scheduled.number),
    }
    for side, entrant in zip(
        GAMES[game].sides, (entrants[i] for i in scheduled.seats), strict=True
    ):
        tags[side] = entrant.name
        tags[f"{side}Kind"] = "bot"
        settings = {
            "Depth": entrant.spec.depth,
            "TimeMs": None if entrant.spec.time_ms is None else round(entrant.spec.time_ms),
            "Clock": None if entrant.clock is None else entrant.clock.describe(),
            "Eval": None if entrant.external else entrant.spec.evaluation,
            "Algorithm": None if entrant.external else entrant.spec.algorithm,
            "Protocol": entrant.protocol if entrant.external else None,
        }
        tags.update(
            {f"{side}{key}": str(value) for key, value in settings.items() if value is not None}
        )
    tags["Opening"] = str(opening_plies)
    tags["Result"] = result_token(result.winner, True)
    tags["Reason"] = result.reason
    if result.score is not None:
        tags["Score"] = f"{result.score[0]}-{result.score[1]}"
    tags["Plies"] = str(result.plies)
    if failure is not None:
        tags["Failure"] = failure
    return Record(tags, tuple(moves))


def save_game(folder: Path, record: Record, number: int) -> None:
    _write(record_path(folder, number), format_record(record))


def finished_games(
    folder: Path,
    game: str,
    planned: Sequence[ScheduledGame],
    entrants: Sequence[Entrant],
) -> dict[int, GameResult]:
    """The results of the games whose records are in the folder, by number; FolderError names a
    record that does not belong to this tournament's schedule."""
    found: dict[int, GameResult] = {}
    by_number = {scheduled.number: scheduled for scheduled in planned}
    for path in sorted((folder / GAMES_FOLDER).glob("*.txt")):
        try:
            record = parse_record(path.read_text())
            number = int(record.tags.get("GameNumber", ""))
            if path != record_path(folder, number):
                raise RecordError(f"it holds game {number}, not the game its name says")
            found[number] = _result_of(record, by_number.get(number), game, entrants)
        except (OSError, ValueError) as error:
            raise FolderError(f"{path}: {error}; delete it to play that game again") from None
    return found


def _result_of(
    record: Record, scheduled: ScheduledGame | None, game: str, entrants: Sequence[Entrant]
) -> GameResult:
    """The result a record gives, checked against the game the schedule plays under its number."""
    if scheduled is None:
        raise RecordError("no game of the schedule has its GameNumber")
    names = tuple(record.tags.get(side) for side in GAMES[game].sides)
    expected = tuple(entrants[i].name for i in scheduled.seats)
    if record.game != game or names != expected:
        raise RecordError(
            f"it is {names[0]} against {names[1]} at {record.game}, "
            f"not {expected[0]} against {expected[1]}"
        )
    result = result_of(record)  # as `ubao replay` reads it
    if result is None or called_off(result):
        raise RecordError(f"result {record.result} is not a finished game's")
    return GameResult(
        scheduled.number,
        scheduled.seats,
        result.winner,
        result.reason,
        result.score,
        int(record.tags.get("Plies", len(record.moves))),
    )


def save_tables(
    folder: Path, names: Sequence[str], results: Sequence[GameResult], total: int
) -> None:
    """The crosstable and the results as data, after every game."""
    _write(folder / "crosstable.txt", crosstable(names, results) + "\n")
    _write(folder / "results.json", json.dumps(tables_json(names, results, total), indent=2) + "\n")


def tables_json(names: Sequence[str], results: Sequence[GameResult], total: int) -> dict[str, Any]:
    """The standings and every game's result, as `--json` prints them."""
    return {
        "games_played": len(results),
        "games_planned": total,
        "standings": [_standing_json(line) for line in standings(names, results)],
        "games": [
            {
                "number": result.number,
                "seats": [names[i] for i in result.seats],
                "winner": result.winner,
                "reason": result.reason,
                "score": None if result.score is None else list(result.score),
                "plies": result.plies,
            }
            for result in sorted(results, key=lambda result: result.number)
        ],
    }


def _standing_json(line: Standing) -> dict[str, Any]:
    return {
        "name": line.name,
        "games": line.games,
        "points": line.points,
        "wins": line.wins,
        "draws": line.draws,
        "losses": line.losses,
        "elo": line.elo,
        "elo_error": line.elo_error,
    }


def _write(path: Path, text: str) -> None:
    """Write the whole file or, if interrupted, leave the old one: a stopped tournament never
    leaves half a record to read back."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text)
    os.replace(partial, path)
