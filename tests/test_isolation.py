"""The test suite keeps out of the user's own folders (issue 36, 13: it wrote endgame databases
into `~/.cache/ubao`)."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

from ubao.client.keys import default_keys_path
from ubao.client.tokens import default_path
from ubao.engine.endgame import cache_directory
from ubao.server.stores.sqlite import default_db_path


def test_no_file_a_test_may_write_is_in_the_users_home() -> None:
    home = Path(pwd.getpwuid(os.getuid()).pw_dir).resolve()
    for path in (cache_directory(), default_path(), default_keys_path(), default_db_path()):
        assert not path.resolve().is_relative_to(home), path
