"""The transposition table of the Python search: what searches learnt, in fixed memory."""

from __future__ import annotations

from array import array
from typing import Any

EXACT, LOWER, UPPER = 0, 1, 2
"""Transposition-table bound flags: the stored score is exact, a lower or an upper bound."""

DEFAULT_HASH_MB = 16
"""The transposition table's default memory, in MB (the `Hash` option of the protocol)."""
ENTRY_BYTES = 32
"""Memory per table entry: the key's 64-bit hash, the score (a double), the depth, flag and
age packed into 64 bits, and a reference to the best move (our games' moves are small ints,
which Python shares, or tuples the game's move generation already holds)."""
FIRST_SLOTS = 1 << 12
"""A new table starts this small and doubles as it fills, up to its memory: a short search
never pays for a large table."""
AGE_BITS = 8
DEPTH_SHIFT = 2 + AGE_BITS


class TranspositionTable:
    """What searches learnt, in fixed memory: `megabytes` of ENTRY_BYTES entries.

    An entry is found by the 64-bit hash of the game's key (a false match needs two positions
    with the same 64-bit hash in one bucket). Each hash has a bucket of two slots; a new entry
    takes the slot of the same position, else an empty one, else the less valuable of the two:
    one from an earlier search (`next_search` ages the table, so a table kept over a whole game
    keeps learning), else the shallower. The arrays start small and double as they fill, up to
    the memory given.
    """

    def __init__(self, megabytes: float = DEFAULT_HASH_MB) -> None:
        if megabytes < 0:
            raise ValueError("the table's memory must be 0 MB or more")
        self.capacity = int(megabytes * (1 << 20)) // ENTRY_BYTES // 2 * 2
        """The most entries the memory holds (an even number: whole buckets)."""
        self.age = 0
        self._allocate(min(self.capacity, FIRST_SLOTS))

    def _allocate(self, slots: int) -> None:
        self.slots = slots
        self.used = 0
        self._keys = array("q", bytes(8 * slots))
        self._scores = array("d", bytes(8 * slots))
        self._meta = array("q", bytes(8 * slots))
        """depth << DEPTH_SHIFT | age << 2 | flag; 0 marks an empty slot (depth >= 1)."""
        self._moves: list[Any] = [None] * slots

    def __len__(self) -> int:
        return self.used

    def clear(self) -> None:
        self.age = 0
        self._allocate(min(self.capacity, FIRST_SLOTS))

    def next_search(self) -> None:
        """A new search begins: entries of earlier ones become the first to replace."""
        self.age = (self.age + 1) % (1 << AGE_BITS)

    def probe(self, key: int) -> tuple[int, int, float, Any] | None:
        """(depth, flag, score, best move) stored for `key`, or None."""
        if not self.slots:
            return None
        i = key % (self.slots >> 1) * 2
        keys = self._keys
        if keys[i] != key:
            i += 1
            if keys[i] != key:
                return None
        meta = self._meta[i]
        if not meta:
            return None
        return meta >> DEPTH_SHIFT, meta & 3, self._scores[i], self._moves[i]

    def store(self, key: int, depth: int, flag: int, score: float, move: Any) -> None:
        """Keep an entry (depth >= 1), replacing as the class says."""
        if not self.slots:
            return
        i = key % (self.slots >> 1) * 2
        keys = self._keys
        meta = self._meta
        if not (keys[i] == key and meta[i]):
            j = i + 1
            same = keys[j] == key and meta[j]
            if same or not meta[j] or (meta[i] and self._worth(meta[j]) < self._worth(meta[i])):
                i = j
        if not meta[i]:
            self.used += 1
        keys[i] = key
        self._scores[i] = score
        meta[i] = depth << DEPTH_SHIFT | self.age << 2 | flag
        self._moves[i] = move
        if 2 * self.used > self.slots and self.slots < self.capacity:
            self._grow()

    def _worth(self, meta: int) -> int:
        """How much an entry is worth keeping: this search's first, then the deeper."""
        current = (meta >> 2) % (1 << AGE_BITS) == self.age
        return current << 16 | meta >> DEPTH_SHIFT

    def _grow(self) -> None:
        """Twice the slots (within the memory), every entry moved over."""
        old = (self._keys, self._scores, self._meta, self._moves)
        age = self.age
        self._allocate(min(2 * self.slots, self.capacity))
        for key, score, meta, move in zip(*old, strict=True):
            if meta:
                self.age = (meta >> 2) % (1 << AGE_BITS)
                self.store(key, meta >> DEPTH_SHIFT, meta & 3, score, move)
        self.age = age
