"""The two-row mancala family (Kalah, Egyptian, Ethiopian): the `Mancala` game and its variants
(`game`). docs/mancala.md states the rules."""
