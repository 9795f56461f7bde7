"""Random Othello games on every board size, checked against the rules move by move.

A deliberately naive reference (a list of rows, one square and one direction at a time) says
what the bitboard engine must do; invariants that hold for any legal move are checked too.
"""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from ubao.engine.othello.game import COLUMNS, PASS, Othello, Position

DIRECTIONS = [(-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)]
sizes = st.sampled_from(range(4, 17, 2))


def rows_of(game: Othello, position: Position) -> tuple[list[list[str]], str]:
    board, side = game.format_position(position).split()
    s = game.size
    return [list(board[r * s : (r + 1) * s]) for r in range(s)], side


def reference_flips(rows: list[list[str]], me: str, r: int, c: int) -> list[tuple[int, int]]:
    """Every disc a disc of `me` placed on (r, c) turns, direction by direction."""
    s = len(rows)
    flips: list[tuple[int, int]] = []
    for dr, dc in DIRECTIONS:
        line = []
        rr, cc = r + dr, c + dc
        while 0 <= rr < s and 0 <= cc < s and rows[rr][cc] not in ("-", me):
            line.append((rr, cc))
            rr, cc = rr + dr, cc + dc
        if line and 0 <= rr < s and 0 <= cc < s and rows[rr][cc] == me:
            flips += line
    return flips


def reference_placements(rows: list[list[str]], me: str) -> list[str]:
    s = len(rows)
    return [
        f"{COLUMNS[c]}{r + 1}"
        for r in range(s)
        for c in range(s)
        if rows[r][c] == "-" and reference_flips(rows, me, r, c)
    ]


def discs_of(position: Position, player: int) -> int:
    return position.white if player else position.black


def random_game(game: Othello, data: st.DataObject) -> list[Position]:
    """Every position of a game played to its end with moves hypothesis draws."""
    positions = [game.start()]
    while moves := game.legal_moves(positions[-1]):
        positions.append(game.play(positions[-1], data.draw(st.sampled_from(moves))))
    return positions


@settings(max_examples=40, deadline=None)
@given(size=sizes, data=st.data())
def test_moves_and_results_agree_with_the_naive_reference(size: int, data: st.DataObject) -> None:
    game = Othello({"size": size})
    position = game.start()
    while True:
        rows, side = rows_of(game, position)
        other = "O" if side == "X" else "X"
        mine, theirs = reference_placements(rows, side), reference_placements(rows, other)
        moves = [game.format_move(position, m) for m in game.legal_moves(position)]
        if mine:
            assert moves == mine
        elif theirs:
            assert moves == ["pass"]
        else:
            assert moves == []
            assert game.outcome(position) is not None
            return
        text = data.draw(st.sampled_from(moves))
        after = game.play_text(position, text)
        if text != "pass":
            r, c = int(text[1:]) - 1, COLUMNS.index(text[0])
            for rr, cc in [(r, c), *reference_flips(rows, side, r, c)]:
                rows[rr][cc] = side
        assert rows_of(game, after) == (rows, other)
        position = after


@settings(max_examples=40, deadline=None)
@given(size=sizes, data=st.data())
def test_a_placement_adds_one_disc_and_turns_only_opponent_discs(
    size: int, data: st.DataObject
) -> None:
    game = Othello({"size": size})
    positions = random_game(game, data)
    for before, after in pairwise(positions):
        mover = game.to_move(before)
        assert game.to_move(after) == 1 - mover
        own_before, opp_before = discs_of(before, mover), discs_of(before, 1 - mover)
        own_after, opp_after = discs_of(after, mover), discs_of(after, 1 - mover)
        assert after.black & after.white == 0
        if own_after == own_before:
            assert after == Position(before.black, before.white, 1 - mover)
            continue
        occupied_before = before.black | before.white
        occupied_after = after.black | after.white
        assert occupied_before & ~occupied_after == 0, "a disc was lost"
        placed = occupied_after & ~occupied_before
        assert placed.bit_count() == 1
        flipped = opp_before & ~opp_after
        assert flipped, "a placement flips at least one disc"
        assert opp_after == opp_before & ~flipped
        assert own_after == own_before | placed | flipped
        assert own_after.bit_count() == own_before.bit_count() + 1 + flipped.bit_count()


@settings(max_examples=40, deadline=None)
@given(size=sizes, data=st.data())
def test_passes_and_the_end_follow_the_rules(size: int, data: st.DataObject) -> None:
    game = Othello({"size": size})
    positions = random_game(game, data)
    for position in positions[:-1]:
        moves = game.legal_moves(position)
        assert game.outcome(position) is None
        if PASS in moves:
            assert moves == [PASS]
            opponent_moves = game.legal_moves(game.play(position, PASS))
            assert opponent_moves and PASS not in opponent_moves
    end = positions[-1]
    outcome = game.outcome(end)
    assert outcome is not None
    assert outcome.score == (end.black.bit_count(), end.white.bit_count())
    black, white = outcome.score
    assert outcome.winner == (None if black == white else 0 if black > white else 1)
    assert game.legal_moves(end) == []
    assert game.legal_moves(Position(end.black, end.white, 1 - end.player)) == []


@settings(max_examples=30, deadline=None)
@given(size=sizes, data=st.data())
def test_every_position_and_move_round_trips_through_notation(
    size: int, data: st.DataObject
) -> None:
    game = Othello({"size": size})
    for position in random_game(game, data):
        text = game.format_position(position)
        assert game.parse_position(text) == position
        assert game.format_position(game.parse_position(text)) == text
        assert "moves" not in text.split()
        for move in game.legal_moves(position):
            assert game.parse_move(position, game.format_move(position, move).upper()) == move


@settings(max_examples=30, deadline=None)
@given(size=sizes, data=st.data())
def test_sowing_path_names_the_placed_square_then_exactly_the_flipped_discs(
    size: int, data: st.DataObject
) -> None:
    game = Othello({"size": size})
    for position in random_game(game, data)[:-1]:
        move = data.draw(st.sampled_from(game.legal_moves(position)))
        path = game.sowing_path(position, move)
        if move == PASS:
            assert path == []
            continue
        after = game.play(position, move)
        changed = {
            game.format_move(position, square)
            for square in range(size * size)
            if (position.black >> square & 1, position.white >> square & 1)
            != (after.black >> square & 1, after.white >> square & 1)
        }
        assert path[0].hole == game.format_move(position, move)
        assert path[0].action == "place"
        assert {step.action for step in path[1:]} == {"flip"}
        assert len({step.hole for step in path}) == len(path)
        assert {step.hole for step in path} == changed
