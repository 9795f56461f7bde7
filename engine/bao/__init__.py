"""Bao la Kiswahili: the rules core (`rules`), its notation (`notation`), the static evaluations
(`evaluations`) and the `Bao` game on top of them (`game`). docs/bao.md states the rules."""
