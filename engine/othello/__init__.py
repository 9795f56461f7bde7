"""Othello on every even board from 4x4 to 16x16: the `Othello` game on bitboards (`game`).
docs/othello.md states the rules."""
