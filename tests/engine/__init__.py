"""Tests of ubao.engine: the rules of every game, the search, the solver, the native core."""
