"""Tests of ubao.server: the sans-I/O core, its edges, the stores, bots and the cluster."""
