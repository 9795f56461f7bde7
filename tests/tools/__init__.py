"""Tests of ubao.engine.tools: `ubao-engine` commands, the stdio protocol, bench and match."""
