"""Ratings as `ubao` shows them: a rated game's change at its end, a game's leaderboard
(`ubao ratings`) and an account's ratings and latest rated games (`ubao player`). Pure text
from the protocol's values; the provisional ratings marked `?` as lichess marks them."""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from ubao.protocol import PlayerCard, PoolRating, RatingChange


def rating(value: int, provisional: bool) -> str:
    return f"{value}?" if provisional else str(value)


def rating_change(change: RatingChange) -> str:
    """`1500 → 1512 (+12)`; the new rating marked `?` while provisional."""
    after = rating(change.after, change.provisional)
    return f"{change.before} → {after} ({change.after - change.before:+d})"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int) -> str:
    """Columns as wide as their widest cell: the first `left` to the left, numbers after them
    to the right."""
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    lines = []
    for row in (header, *rows):
        cells = [
            cell.ljust(width) if i < left else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _record(row: PoolRating) -> list[str]:
    return [
        rating(row.rating, row.provisional),
        str(row.rd),
        str(row.games),
        f"{row.wins}/{row.draws}/{row.losses}",
    ]


def leaderboard_table(rows: Sequence[PoolRating]) -> str:
    """One line per account and pool, each pool's best first."""
    header = ["pool", "player", "rating", "RD", "games", "W/D/L"]
    return _table(header, [[row.pool, row.player, *_record(row)] for row in rows], left=2)


def player_text(card: PlayerCard) -> str:
    """The account's rating in each pool, then its latest rated games."""
    if not card.ratings:
        return f"{card.name} has played no rated game"
    header = ["pool", "rating", "RD", "games", "W/D/L"]
    parts = [_table(header, [[r.pool, *_record(r)] for r in card.ratings], left=1)]
    if card.recent:
        games = [
            [
                game.game_id,
                game.pool,
                game.outcome,
                f"vs {game.opponent}",
                f"{game.before} → {game.after} ({game.after - game.before:+d})",
                _date(game.finished),
            ]
            for game in card.recent
        ]
        parts.append("latest rated games:\n" + "\n".join("  ".join(g) for g in games))
    return "\n\n".join(parts)


def _date(ms: int) -> str:
    """A wall-clock time in UTC, to the minute."""
    moment = datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M")
