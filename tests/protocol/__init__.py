"""Tests of ubao.protocol: the messages and their msgpack codec."""
