"""The engines of a match or tournament: settings of the built-in search, or external programs.

An entrant is written as `name=value` items, in cutechess-cli's habit: `depth=6,eval=mobility`
is the built-in search at those settings; `cmd="./edax -nboard" proto=nboard depth=8` is an
external program over a dialect of `ubao.engine.protocols`. Either kind takes limits per move:
a depth, a time per move, or a clock with an increment. Parsing is pure; the entrant's engine
is started (and driven) only through the protocol library's `EngineClient`.
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ubao.engine.protocols.session import MAX_HASH_MB
from ubao.engine.protocols.ubao import decimal
from ubao.engine.search import ALGORITHMS, DEFAULT_ALGORITHM, DEFAULT_HASH_MB, MAX_SEARCH_DEPTH


@dataclass(frozen=True, slots=True)
class EngineSpec:
    """How the built-in search plays: `depth=6,eval=mobility,exact` on the command line."""

    algorithm: str = DEFAULT_ALGORITHM
    evaluation: str | None = None
    depth: int | None = None
    time_ms: float | None = None
    hash_mb: int = DEFAULT_HASH_MB
    exact: bool = False
    threads: int = 1
    selective: bool = True
    """Multi-ProbCut where the game has it (`probcut=off`: full width)."""
    book: bool = True
    """Play 8x8 Othello's opening book while it has the position (`book=off`: search)."""

    def describe(self) -> str:
        parts = [self.algorithm, self.evaluation or "default"]
        if self.depth is not None:
            parts.append(f"d{self.depth}")
        if self.time_ms is not None:
            parts.append(f"{self.time_ms:g}ms")
        if self.exact:
            parts.append("exact")
        if self.threads > 1:
            parts.append(f"t{self.threads}")
        if not self.selective:
            parts.append("noprobcut")
        if not self.book:
            parts.append("nobook")
        return ":".join(parts)


SPEC_SETTINGS = (
    "algorithm",
    "eval",
    "depth",
    "time",
    "hash",
    "threads",
    "exact",
    "probcut",
    "book",
)
"""Every setting of a built-in engine's spec."""
LIMITS = ("depth", "time", "tc")
"""The settings that limit each move, of either kind of engine."""
ENTRANT_SETTINGS = ("name", "cmd", "proto", "tc")
"""What an entrant takes besides a spec's settings (and `option.NAME=VALUE`)."""
SETTING = re.compile(r"\w+=\S*")
"""One `name=value` item (a command line has spaces or no `=`)."""


def parse_spec(text: str, threads: int = 1) -> EngineSpec | None:
    """Settings such as `depth=6,eval=mobility,hash=32,threads=2,exact`, or None when `text` is
    not made of such items (then it is a command line to run an external engine); `threads` is
    the threads when the settings do not say. Text made of `name=value` items is settings:
    ValueError names an unknown one rather than running the text as a program."""
    items = [item.strip() for item in text.split(",")]
    if not all(item == "exact" or SETTING.fullmatch(item) for item in items):
        return None
    spec = spec_of(items, threads)
    if spec.depth is None and spec.time_ms is None:
        raise ValueError(f"{text!r}: give depth=N or time=MS")
    return spec


def spec_of(items: Sequence[str], threads: int = 1) -> EngineSpec:
    """The spec that `name=value` items (and `exact`) set; ValueError names what is wrong."""
    unknown = [
        item.partition("=")[0] for item in items if item.partition("=")[0] not in SPEC_SETTINGS
    ]
    if unknown:
        raise ValueError(
            f"unknown setting{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
            f"known: {', '.join(SPEC_SETTINGS)}"
        )
    _once([item.partition("=")[0] for item in items])
    values: dict[str, Any] = {"threads": threads}
    for item in items:
        name, equals, value = item.partition("=")
        if name == "exact":
            if equals:
                raise ValueError("exact takes no value: write exact, not exact=...")
            values["exact"] = True
        elif name == "algorithm":
            if value not in ALGORITHMS:
                raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}")
            values["algorithm"] = value
        elif name == "eval":
            values["evaluation"] = value
        elif name == "probcut":
            if value not in ("on", "off"):
                raise ValueError(f"probcut must be on or off, not {value!r}")
            values["selective"] = value == "on"
        elif name == "book":
            if value not in ("on", "off"):
                raise ValueError(f"book must be on or off, not {value!r}")
            values["book"] = value == "on"
        elif name == "hash" and value.startswith("-"):
            raise ValueError(f"hash must be at least 0 (no table) and at most {MAX_HASH_MB} (MB)")
        elif name in ("depth", "threads", "hash"):
            if not decimal(value):
                raise ValueError(f"{name} must be a whole number, not {value!r}")
            if name == "depth" and not 1 <= int(value) <= MAX_SEARCH_DEPTH:
                raise ValueError(f"depth must be from 1 to {MAX_SEARCH_DEPTH}")
            if name == "hash" and int(value) > MAX_HASH_MB:
                raise ValueError(
                    f"hash must be at least 0 (no table) and at most {MAX_HASH_MB} (MB)"
                )
            values["hash_mb" if name == "hash" else name] = int(value)
        else:
            number = _number(name, value)
            if number <= 0:
                raise ValueError("time must be more than 0 (ms)")
            values["time_ms"] = number
    return EngineSpec(**values)


def _once(names: Sequence[str]) -> None:
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"{', '.join(twice)} given twice: which one is meant?")


def _number(name: str, value: str) -> float:
    """A setting's finite number; ValueError says which setting is wrong."""
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a number, not {value!r}")
    return number


@dataclass(frozen=True, slots=True)
class Clock:
    """A clock for the whole game: `tc=10+0.1` is 10 s and 0.1 s more after each move."""

    base_ms: int
    increment_ms: int

    def describe(self) -> str:
        return f"{self.base_ms / 1000:g}+{self.increment_ms / 1000:g}"


def parse_clock(text: str) -> Clock:
    """`SECONDS` or `SECONDS+INCREMENT`, e.g. `60`, `10+0.1`."""
    base, _, increment = text.partition("+")
    seconds = _number("tc", base)
    extra = _number("tc", increment) if increment else 0.0
    if seconds <= 0 or extra < 0:
        raise ValueError(f"tc={text}: give SECONDS+INCREMENT, more than 0 s and at least 0 s more")
    return Clock(round(seconds * 1000), round(extra * 1000))


@dataclass(frozen=True, slots=True)
class Entrant:
    """One engine of a match or tournament, and the limits of its moves."""

    name: str
    spec: EngineSpec
    """The built-in search's settings; of an external engine only its depth and time count."""
    command: tuple[str, ...] = ()
    """An external engine's program and arguments; empty for the built-in search."""
    protocol: str = "ubao"
    """The dialect an external engine speaks (`ubao.engine.protocols.DIALECTS`)."""
    options: tuple[tuple[str, str], ...] = ()
    """An external engine's options, set before its first game (`option.Hash=32`)."""
    clock: Clock | None = None

    @property
    def external(self) -> bool:
        return bool(self.command)

    def to_json(self) -> dict[str, Any]:
        """What the entrant is, as an output folder keeps it to check a resumed tournament."""
        return {
            "name": self.name,
            "spec": None if self.external else self.spec.describe(),
            "hash_mb": None if self.external else self.spec.hash_mb,
            "depth": self.spec.depth,
            "time_ms": self.spec.time_ms,
            "command": list(self.command),
            "protocol": self.protocol,
            "options": dict(self.options),
            "clock": None if self.clock is None else self.clock.describe(),
        }


def entrant_items(words: Sequence[str]) -> list[str]:
    """The `name=value` items of an `--engine`'s words: `cmd=` takes its word whole, every other
    word may hold several items separated by commas (`depth=6,eval=mobility`)."""
    items: list[str] = []
    for word in words:
        if word.startswith("cmd="):
            items.append(word)
        else:
            items.extend(item.strip() for item in word.split(",") if item.strip())
    return items


def parse_entrant(words: Sequence[str], each: Sequence[str] = (), threads: int = 1) -> Entrant:
    """An entrant from its `--engine` words; `each` (`--each`'s words) fills in the items the
    engine does not give and that are for its kind (`eval=` only for the built-in search,
    `proto=` and `option.` only for an external engine). ValueError says what is wrong."""
    own = entrant_items(words)
    names = [_key(item) for item in own]
    _once(names)
    common = [item for item in entrant_items(each) if _key(item) not in names]
    is_external = "cmd" in names or any(_key(item) == "cmd" for item in common)
    items = own + [item for item in common if _for_kind(item, is_external)]
    settings = dict(item.partition("=")[::2] for item in items)
    spec_items = [item for item in items if _key(item) in SPEC_SETTINGS]
    unknown = [
        _key(item)
        for item in items
        if _key(item) not in (*SPEC_SETTINGS, *ENTRANT_SETTINGS) and not item.startswith("option.")
    ]
    if unknown:
        raise ValueError(
            f"unknown setting {unknown[0]!r}; known: "
            f"{', '.join((*ENTRANT_SETTINGS, *SPEC_SETTINGS))}, option.NAME"
        )
    clock = parse_clock(settings["tc"]) if "tc" in settings else None
    spec = spec_of(spec_items, threads)
    if sum(limit in settings for limit in LIMITS) == 0:
        raise ValueError(f"{' '.join(words)!r}: give depth=N, time=MS or tc=SECONDS+INCREMENT")
    if clock is not None and spec.time_ms is not None:
        raise ValueError("give time=MS or tc=SECONDS+INCREMENT, not both")
    options = tuple(
        (item.partition("=")[0].removeprefix("option."), item.partition("=")[2])
        for item in items
        if item.startswith("option.")
    )
    if "cmd" not in settings:
        if "proto" in settings or options:
            raise ValueError("proto= and option.NAME= are for an external engine (cmd=...)")
        return Entrant(settings.get("name") or spec.describe(), spec, clock=clock)
    builtin = [_key(item) for item in spec_items if _key(item) in BUILTIN_ONLY]
    if builtin:
        raise ValueError(
            f"{builtin[0]} is a setting of the built-in search; an external engine takes "
            "option.NAME=VALUE"
        )
    try:
        command = tuple(shlex.split(settings["cmd"]))
    except ValueError as error:
        raise ValueError(f"the engine command {settings['cmd']!r}: {error}") from None
    if not command:
        raise ValueError("the engine command is empty")
    name = settings.get("name") or settings["cmd"]
    return Entrant(name, spec, command, settings.get("proto", "ubao"), options, clock)


def external(command: str, limits: EngineSpec, protocol: str = "ubao") -> Entrant:
    """An external engine over `protocol` (ubao's stdio protocol unless said) with another
    engine's depth and time: `match`'s `--engine2 CMD` and `--protocol2`."""
    try:
        argv = tuple(shlex.split(command))
    except ValueError as error:
        raise ValueError(f"the engine command {command!r}: {error}") from None
    if not argv:
        raise ValueError("the engine command is empty")
    spec = EngineSpec(depth=limits.depth, time_ms=limits.time_ms)
    return Entrant(command, spec, argv, protocol)


BUILTIN_ONLY = ("algorithm", "eval", "hash", "threads", "exact", "probcut")
"""The settings only the built-in search takes."""


def _for_kind(item: str, external: bool) -> bool:
    """Whether an `--each` item means something to an engine of this kind."""
    if external:
        return _key(item) not in BUILTIN_ONLY
    return _key(item) != "proto" and not item.startswith("option.")


def _key(item: str) -> str:
    return item.partition("=")[0]
