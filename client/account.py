"""`ubao account`: claim a name on a server, rotate its key, show the accounts kept here.

The server makes each key and sends it once (docs/protocol.md, "Accounts"); it is kept in the
keys file (client/keys.py) under the server and the name, and, with `--key-file`, also in that
file, so that a bot started elsewhere can be handed it. Nothing here prints a key."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ubao.client.connection import ServerError, hello_once, request_once
from ubao.client.keys import AccountKey, KeyStore, write_key_file
from ubao.client.tokens import server_key
from ubao.protocol import Claim, Role, Rotate


@dataclass(frozen=True, slots=True)
class AccountLine:
    """What `ubao account show` says of one kept account."""

    server: str
    name: str
    bot: bool
    taken: bool | None
    """Whether the server takes the kept key (None: not asked, or it could not answer)."""
    refusal: str | None = None
    """The server's error code when it refused the key."""

    def text(self) -> str:
        kind = "bot account" if self.bot else "account"
        if self.taken is None:
            state = "not checked"
        elif self.taken:
            state = "key accepted"
        else:
            state = f"key refused ({self.refusal})"
        return f"{self.name}  {kind}  {state}  {self.server}"


async def create(
    server: str, name: str, bot: bool, keys: KeyStore, key_file: Path | None
) -> AccountKey:
    """Claim `name` on `server` (as a bot's account if `bot`) and keep its key."""
    ok = await request_once(
        server, name, "bot" if bot else "human", Claim(id=0, name=name, bot=bot)
    )
    assert ok.key is not None and ok.name is not None, "the server's claim ok carries the key"
    account = AccountKey(ok.name, ok.key, bot)
    keep(server, account, keys, key_file)
    return account


async def rotate(server: str, account: AccountKey, keys: KeyStore, key_file: Path | None) -> None:
    """Replace the account's key with a new one the server makes, and keep that."""
    role: Role = "bot" if account.bot else "human"
    ok = await request_once(server, account.name, role, Rotate(id=0), account.key)
    assert ok.key is not None, "the server's rotate ok carries the key"
    keep(server, AccountKey(account.name, ok.key, account.bot), keys, key_file)


def keep(server: str, account: AccountKey, keys: KeyStore, key_file: Path | None) -> None:
    keys.put(server, account)
    if key_file is not None:
        write_key_file(key_file, account.key)


async def show(server: str, name: str | None, keys: KeyStore, check: bool) -> list[AccountLine]:
    """The accounts kept for `server` (or only `name`'s), each checked with the server."""
    kept = (
        [keys.get(server, name)] if name else [keys.get(server, n) for n in keys.accounts(server)]
    )
    lines = []
    for account in kept:
        if account is None:
            continue
        taken: bool | None = None
        refusal = None
        if check:
            role: Role = "bot" if account.bot else "human"
            try:
                taken = (await hello_once(server, account.name, role, account.key)).account
            except ServerError as error:
                taken, refusal = False, error.code
        lines.append(AccountLine(server_key(server), account.name, account.bot, taken, refusal))
    return lines
