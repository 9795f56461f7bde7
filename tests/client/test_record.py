"""A record as the client exports and replays it (the format: tests/engine/test_record.py)."""

from __future__ import annotations

import dataclasses

import pytest
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input

from tests.support.screen import SizedOutput, aborted_game
from ubao.client.export import record_of, replay_of
from ubao.client.replay import ReplayApp
from ubao.engine.record import format_record, parse_record


@pytest.mark.timeout(120)
def test_an_aborted_game_is_exported_without_a_result_and_replayed_as_aborted() -> None:
    snapshot, over = aborted_game()
    ended = dataclasses.replace(snapshot, status="over", result=over.result)
    text = format_record(record_of(ended))
    assert '[Result "*"]' in text and '[Reason "aborted"]' in text and "1/2-1/2" not in text
    record = parse_record(text)
    with create_pipe_input() as keys:
        replay = ReplayApp(record, replay_of(record), input=keys, output=SizedOutput(80, 24))
        assert "Game aborted" in fragment_list_to_text(replay._tags_text())
        assert "to move" not in fragment_list_to_text(replay._board_text())
