"""Account keys kept on disk, per server and name, so that `ubao play`, `watch` and `bot` say
`hello` with the key of the name they play under (docs/client.md, "Accounts").

A key is the account: whoever holds it plays under the name. The file (`keys.json` beside the
seat tokens' file) is therefore the user's alone (0600) and written as the tokens' file is:
atomically, under a lock (client/tokens.py). Keys are kept by server URL (`server_key`) and
the name's canonical form, so that `--name Alice` finds the key of `alice`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ubao.client.tokens import default_path, locked, server_key, write_private
from ubao.protocol import canonical_name


def default_keys_path() -> Path:
    """`keys.json` in the folder of the seat tokens (`$XDG_DATA_HOME/ubao/`)."""
    return default_path().with_name("keys.json")


@dataclass(frozen=True, slots=True)
class AccountKey:
    """One account's key as kept: its name as claimed, the key, and whether it is a bot's."""

    name: str
    key: str
    bot: bool = False


Data = dict[str, dict[str, dict[str, object]]]
"""server -> canonical name -> {"name": str, "key": str, "bot": bool}."""


class KeyStore:
    """Account keys by (server, name); every change goes to disk at once."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_keys_path()

    def get(self, server: str, name: str) -> AccountKey | None:
        """The key kept for `name` (or a name a person could take for it) on `server`."""
        return _account(self.accounts(server).get(canonical_name(name)))

    def accounts(self, server: str) -> dict[str, dict[str, object]]:
        """Every account kept for `server`, by canonical name (as stored)."""
        names = self._load().get(server_key(server))
        return names if isinstance(names, dict) else {}

    def put(self, server: str, account: AccountKey) -> None:
        """Keep `account`'s key (a new account's, or a rotated one replacing the old)."""
        with locked(self.path):
            data = self._load()
            names = data.get(server_key(server))
            if not isinstance(names, dict):
                names = data[server_key(server)] = {}
            entry = {"name": account.name, "key": account.key, "bot": account.bot}
            names[canonical_name(account.name)] = entry
            write_private(self.path, json.dumps(data, indent=1, sort_keys=True))

    def _load(self) -> Data:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # none yet, or damaged: the next save replaces it
        return data if isinstance(data, dict) else {}


def _account(entry: object) -> AccountKey | None:
    """A kept key, or None for anything else (a damaged file)."""
    if not isinstance(entry, dict):
        return None
    name, key, bot = entry.get("name"), entry.get("key"), entry.get("bot", False)
    if not isinstance(name, str) or not isinstance(key, str):
        return None
    return AccountKey(name, key, bot is True)


def write_key_file(path: Path, key: str) -> None:
    """A `--key-file` holding `key` alone, the user's alone (0600), written atomically."""
    write_private(path, key + "\n")


def read_key_file(path: Path) -> str:
    """The key a `--key-file` holds: its first line, without spaces around it."""
    lines = path.read_text(encoding="utf-8").split()
    if not lines:
        raise ValueError(f"{path} holds no key")
    return lines[0]
