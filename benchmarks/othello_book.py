"""Builds the 8x8 Othello opening book (engine/othello_book.txt) from ubao's own self-play.

    .venv/bin/python benchmarks/othello_book.py --games 200 --plies 12 --depth 10 --explore 3 \
        --seed 37

Each game starts from the initial position; at each of its first `--plies` plies the position
is looked up in the book being built, and when it is not there yet, every legal move is searched
(the child to `--depth` - 1 plies, the 8x8 default evaluation, the native core) and the position
goes into the book with every move's value. The game then goes on by a move within `--explore`
discs of the best, drawn from `--seed`, as a bot playing from the book would with a wider margin
(a bot keeps within `BOOK_MARGIN`; the wider one gives the book the near-best replies an
opponent may play): the book grows along the lines its own play reaches, the likelier lines
getting their positions first. The
file and the hash in engine/othello_book.py are written together; nothing comes from another
program or a game database.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import time
from collections.abc import Callable
from pathlib import Path

from ubao.engine import othello_book
from ubao.engine.backend import NativeOthello
from ubao.engine.othello.game import Position
from ubao.engine.othello_book import BookMove, OpeningBook, canonical, format_book, transform_move
from ubao.engine.search.driver import Searcher

MODULE = Path(othello_book.__file__)
BOOK = MODULE.with_name(othello_book.BOOK_FILE)


def searched_moves(
    game: NativeOthello, searcher: Searcher[Position, int], position: Position, depth: int
) -> list[tuple[str, float]]:
    """Every legal move with the value (discs, the mover's view) of a search of its child."""
    values = []
    for move in game.legal_moves(position):
        child = game.play(position, move)
        result = searcher.search(child, depth - 1)
        score = -result.score if game.to_move(child) != game.to_move(position) else result.score
        values.append((game.format_move(position, move), round(score, 2)))
    return values


def build(
    games: int,
    plies: int,
    depth: int,
    explore: float,
    seed: int,
    checkpoint: Callable[[OpeningBook, int], None],
) -> OpeningBook:
    """The book of `games` self-play games; `checkpoint` gets it every 25 games."""
    chooser = random.Random(seed)
    game = NativeOthello({"size": 8})
    searcher: Searcher[Position, int] = Searcher(game, hash_mb=64)
    book = OpeningBook({})
    started = time.monotonic()
    for number in range(games):
        position = game.start()
        for _ in range(plies):
            moves = game.legal_moves(position)
            if game.is_over(position) or game.format_move(position, moves[0]) == "pass":
                break  # the book holds no passes
            text = game.format_position(position)
            key, symmetry = canonical(text)
            if key not in book.entries:
                book.entries[key] = tuple(
                    BookMove(transform_move(move, symmetry), value)
                    for move, value in searched_moves(game, searcher, position, depth)
                )
            choice = book.choose(text, chooser, explore)
            assert choice is not None
            position = game.play(position, game.parse_move(position, choice.move))
        if (number + 1) % 25 == 0 or number + 1 == games:
            print(
                f"{number + 1} games, {len(book)} positions, {time.monotonic() - started:.0f} s",
                flush=True,
            )
            checkpoint(book, number + 1)
    return book


def write(book: OpeningBook, comments: list[str]) -> str:
    """The book file and the hash in the module, together; the hash."""
    data = format_book(book.entries, comments).encode("utf-8")
    BOOK.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    source = MODULE.read_text()
    source = re.sub(r'BOOK_SHA256 = "[0-9a-f]{64}"', f'BOOK_SHA256 = "{digest}"', source)
    MODULE.write_text(source)
    return digest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="self-play games")
    parser.add_argument("--plies", type=int, default=12, help="book plies of each game")
    parser.add_argument("--depth", type=int, default=10, help="plies searched for each move")
    parser.add_argument(
        "--explore", type=float, default=3.0, help="discs below the best a game may play"
    )
    parser.add_argument("--seed", type=int, default=37, help="the choice of moves")
    args = parser.parse_args()

    def checkpoint(book: OpeningBook, games: int) -> None:
        """The book so far, written as if `--games` had been `games` (a run cut short leaves
        the book of the games it played, rebuilt exactly by that command)."""
        comments = [
            "ubao's 8x8 Othello opening book: benchmarks/othello_book.py "
            f"--games {games} --plies {args.plies} --depth {args.depth} "
            f"--explore {args.explore:g} --seed {args.seed}",
            f"{len(book)} positions; each move's value in discs for the side to move",
        ]
        digest = write(book, comments)
        print(f"{len(book)} positions, {BOOK.stat().st_size:,} bytes, SHA-256 {digest}")

    build(args.games, args.plies, args.depth, args.explore, args.seed, checkpoint)


if __name__ == "__main__":
    main()
