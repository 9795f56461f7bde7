"""Move entry: from what a player typed to a move to send, a question to ask, or a clear refusal.

The server's `legal` list is the judge; the game's own parser only turns aliases into canonical
notation (`a5:cw`, `>` for `+`, any letter case) and explains what is wrong with a bad entry.
A hole the rules do not allow is refused with the game's own reason (Bao names the rule that
forbids it: "A5L: a functional nyumba is played only when ...").
An entry that names a hole but leaves a choice open (Bao's kichwa or direction, an Ethiopian
direction) becomes a question with the candidates, and a Bao move that reaches the namua
nyumba decision without a suffix asks "stop or safari" (docs/bao.md §17.3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ubao.client.board import view_of
from ubao.engine.game import Game, GameError, IllegalMoveError

SAFARI = "+"


@dataclass(frozen=True, slots=True)
class OneMove:
    """The entry names exactly one legal move."""

    move: str


@dataclass(frozen=True, slots=True)
class Option:
    """One answer to a question: what to type, and the move it leads to."""

    answer: str
    move: str
    final: bool
    """True when the move is complete; False when it may still need a decision."""


@dataclass(frozen=True, slots=True)
class Ask:
    """The entry leaves a choice open; the player answers with one of `options`."""

    question: str
    options: tuple[Option, ...]

    def pick(self, answer: str) -> Option | None:
        """The option `answer` names (its answer or its move, any case), or None; a bare
        Enter confirms a question with a single option."""
        word = answer.strip().lower()
        if not word and len(self.options) == 1:
            return self.options[0]
        for option in self.options:
            if word in (option.answer.lower(), option.move.lower()):
                return option
        return None


@dataclass(frozen=True, slots=True)
class Reject:
    """The entry is not a legal move; `message` says why; nothing is sent."""

    message: str


Entry = OneMove | Ask | Reject


def read_entry(
    text: str, legal: Sequence[str], game: Game[Any, Any], position: Any, decided: bool = False
) -> Entry:
    """What the entry `text` means for the player to move, given the server's `legal` moves.

    `decided` says the player already answered the stop/safari question for this move.
    """
    entry = text.strip()
    if not entry:
        cell = view_of(game, position).cells.removesuffix("s")  # the game's word: pit, square
        return Reject(f"type a move (Tab lists them), or pick a {cell} with the arrow keys")
    if not legal:
        return Reject("it is not your turn")
    try:
        canonical = game.format_move(position, game.parse_move(position, entry))
    except IllegalMoveError as error:
        return Reject(str(error))
    except GameError as error:
        return _complete(entry, legal, game, position) or Reject(str(error))
    if canonical not in legal:
        return Reject(f"{canonical} is not among the legal moves: {' '.join(legal)}")
    safari = canonical + SAFARI
    if not decided and not canonical.endswith(SAFARI) and safari in legal:
        return Ask(
            f"{canonical} reaches your nyumba: stop there, or go on safari (sow on from it)? "
            "Answer stop or safari (Esc cancels)",
            (Option("stop", canonical, True), Option("safari", safari, True)),
        )
    return OneMove(canonical)


def _complete(entry: str, legal: Sequence[str], game: Game[Any, Any], position: Any) -> Ask | None:
    """The question that completes an unfinished entry (`A5` for `A5L`/`A5R`), if any, with
    where each answer sows."""
    prefix = entry.lower()
    bases = sorted({move.removesuffix(SAFARI) for move in legal if move.lower().startswith(prefix)})
    if not bases:
        return None
    if len(bases) == 1:
        move = bases[0]
        return Ask(f"{entry} means {move}: confirm with Enter", (Option(move, move, False),))
    return _which(entry, bases, game, position)


def _which(hole: str, moves: Sequence[str], game: Game[Any, Any], position: Any) -> Ask:
    """Ask which of `moves` (from one hole, however it was chosen: typed, or with the cursor)
    is meant, saying where each one sows. The answers are what tells the moves apart (L or R),
    the moves themselves are accepted too."""
    lowered = [move.lower() for move in moves]
    common = next(
        (i for i, letters in enumerate(zip(*lowered, strict=False)) if len(set(letters)) > 1),
        min(map(len, lowered)),
    )
    options = tuple(Option(move[common:] or move, move, False) for move in moves)
    # Only the direction left open (A6: L or R), or the hole too (`a` completed by Tab to
    # A6L A6R A7L A7R): then it is a choice of moves, each named whole.
    way = all(len(option.answer) == 1 for option in options)
    choices = ", ".join(
        " ".join(
            filter(
                None, (option.answer if way else option.move, _sows(game, position, option.move))
            )
        )
        for option in options
    )
    answers = [option.answer for option in options]
    listed = (
        " or ".join(answers) if len(answers) < 3 else f"{', '.join(answers[:-1])} or {answers[-1]}"
    )
    stop = "" if choices.endswith("...") else "."
    asked = "which way?" if way else "which move?"
    return Ask(f"{hole}: {asked} {choices}{stop} Answer {listed} (Esc cancels)", options)


def _sows(game: Game[Any, Any], position: Any, move: str, holes: int = 3) -> str:
    """Where a move's first seeds go ("sows A5 A4 A3..."), from the rules' sowing path."""
    try:
        path = game.sowing_path(position, game.parse_move(position, move))
    except GameError:
        return ""
    sown = [step.hole for step in path if step.action in ("sow", "store")]
    if not sown:
        return ""
    return "sows " + " ".join(sown[:holes]) + ("..." if len(sown) > holes else "")


def hole_entry(
    hole: str,
    legal: Sequence[str],
    game: Game[Any, Any],
    position: Any,
    moves_from: Sequence[str],
) -> Entry:
    """What choosing `hole` with the keyboard means: `moves_from` are the legal moves that
    start there; one is played (after the stop/safari question if it arises), several ask."""
    bases = sorted({move.removesuffix(SAFARI) for move in moves_from})
    if not bases:
        return _refused(hole, game, position)
    if len(bases) == 1:
        return read_entry(bases[0], legal, game, position)
    return _which(hole, bases, game, position)


def _refused(hole: str, game: Game[Any, Any], position: Any) -> Reject:
    """Why no legal move starts at `hole`, in the game's own words."""
    try:
        game.parse_move(position, hole)
    except GameError as error:
        return Reject(str(error))
    return Reject(f"no legal move starts at {hole}")
