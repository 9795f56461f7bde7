"""Accounts: names claimed with a secret key, the key's slow salted hash, and the count of wrong
keys that holds back whoever guesses.

A claimed name is played only by whoever proves its key in `hello` (docs/protocol.md,
"Accounts"); a guest can neither take it nor a name a person could take for it
(`canonical_name`). The server makes every key (`new_key`, from `secrets`), so that no account
has a weak one, sends it once, and keeps only its scrypt hash (`hash_key`). Hashing is slow on
purpose: the core never hashes; it asks the layer to (the `CheckKey` and `MakeKey` outputs),
which does it on a worker thread, and hears the outcome (`Core.key_checked`, `Core.key_made`).
Pure but for that CPU work: no I/O. Wrong keys are counted here on one node; a cluster's store
counts them in Redis for all nodes (`SharesAttempts`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections import deque
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
"""scrypt's cost: 16 MiB and some 50 ms a hash, as the `hashlib` docs' interactive setting."""
SWEEP_AT = 10_000
"""Subjects counted at once before those with no failure left in the window are forgotten."""
KEY_BYTES = 32
"""A key's randomness: 256 bits, as URL-safe base64 (43 characters)."""


@dataclass(frozen=True, slots=True)
class StoredAccount:
    """An account as the store keeps it: never the key, only its hash."""

    name: str
    """The name as claimed, shown to everyone."""
    canonical: str
    """`canonical_name(name)`: the store's key, unique."""
    key_hash: str
    """`hash_key`'s form: scrypt, its cost, the salt and the hash."""
    bot: bool
    """A bot's account: its seats show as a bot client's, whatever its `hello` role."""
    created: int
    """When it was claimed, in milliseconds since the epoch (UTC)."""


def new_key() -> str:
    """A fresh secret key (the server makes them all)."""
    return secrets.token_urlsafe(KEY_BYTES)


def hash_key(key: str, salt: bytes | None = None) -> str:
    """The key's salted scrypt hash, with what checking it needs: `scrypt$n$r$p$salt$hash`."""
    salt = secrets.token_bytes(16) if salt is None else salt
    digest = hashlib.scrypt(
        key.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32, maxmem=64 << 20
    )
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def key_matches(key: str, key_hash: str) -> bool:
    """Whether `key` is the key `key_hash` was made of, compared in constant time."""
    kind, n, r, p, salt, digest = key_hash.split("$")
    if kind != "scrypt":
        return False
    computed = hashlib.scrypt(
        key.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p), dklen=32,
        maxmem=64 << 20,
    )  # fmt: skip
    return hmac.compare_digest(computed.hex(), digest)


class AttemptCounter(Protocol):
    """Failures counted per subject in a sliding window (`Attempts`, or a cluster's, which
    every node shares)."""

    def wait_ms(self, subject: str, now: int) -> int:
        """How long `subject` must wait before another try (0: it may try now)."""

    def failed(self, subject: str, now: int) -> None:
        """Count one failure of `subject` now."""


@runtime_checkable
class SharesAttempts(Protocol):
    """A store that counts failures for every node of a cluster (server/stores/redis.py)."""

    def attempts(self, kind: str, most: int, window_ms: int) -> AttemptCounter:
        """A counter of `kind` (`name`, `address`): `most` failures in `window_ms`."""


@dataclass(slots=True)
class Attempts:
    """Failures per subject (a name's canonical form, an address) in a sliding window: a
    subject with `most` failures in the last `window_ms` waits until the oldest leaves it."""

    most: int
    window_ms: int
    failures: dict[str, deque[int]] = field(default_factory=dict)

    def wait_ms(self, subject: str, now: int) -> int:
        """How long `subject` must wait before another try (0: it may try now)."""
        times = self.failures.get(subject)
        if times is None or not self._recent(subject, times, now):
            return 0
        return 0 if len(times) < self.most else times[0] + self.window_ms - now

    def failed(self, subject: str, now: int) -> None:
        if len(self.failures) >= SWEEP_AT:
            for other, times in list(self.failures.items()):
                self._recent(other, times, now)
        times = self.failures.setdefault(subject, deque())
        self._recent(subject, times, now)
        times.append(now)
        self.failures[subject] = times

    def _recent(self, subject: str, times: deque[int], now: int) -> bool:
        """Drop the subject's failures that left the window, and the subject with none left;
        whether any is left."""
        while times and times[0] + self.window_ms <= now:
            times.popleft()
        if not times:
            self.failures.pop(subject, None)
        return bool(times)
