"""Seat tokens kept on disk, so that `ubao play --join ID` after a restart returns to the seat.

A seat token is a capability: whoever holds it moves for the seat. The file is therefore
written with mode 0600, and atomically (a temporary file renamed over the old one), so that a
crash never leaves half a file. Every change reads the file again and writes it back under an
exclusive lock (`flock` on `tokens.json.lock` beside it), so that clients of one HOME that
store tokens at the same moment (six `ubao play --new` started at once) never lose one
another's: the rename alone prevents a torn file, not a lost update. Tokens are keyed
by server URL, game id and player name: game ids are only unique per server, and two terminals
of one user (one file) playing each other under two names must each find their own seat.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

try:
    import fcntl
except ImportError:  # Windows: msvcrt's byte-range lock instead
    fcntl = None  # type: ignore[assignment]
    import msvcrt

DEFAULT_PORTS = {"ws": 80, "wss": 443, "http": 80, "https": 443}


def join_command(game_id: str) -> str:
    """The command that takes the open seat of `game_id`, as a shell reads it (`--join=`
    holds for an id that begins with `-`), under another name than the creator's: the same
    user's name would come back to the creator's own seat."""
    return shlex.join(["ubao", "play", f"--join={game_id}", "--name=NAME"])


def default_path() -> Path:
    """`$XDG_DATA_HOME/ubao/tokens.json`, or `~/.local/share/ubao/tokens.json` (also when the
    variable is not an absolute path, which the XDG specification says to ignore)."""
    base = Path(os.environ.get("XDG_DATA_HOME", ""))
    if not base.is_absolute():
        base = Path.home() / ".local" / "share"
    return base / "ubao" / "tokens.json"


def server_key(server: str) -> str:
    """The key a `--server` value is stored under: each URL of the list with its scheme and
    host in lower case, its default port dropped and an empty path read as `/`, so that
    `ws://127.0.0.1:9700` finds the seat stored under `ws://127.0.0.1:9700/`."""
    return ",".join(_url_key(url.strip()) for url in server.split(","))


def _url_key(url: str) -> str:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return url  # not a URL the client could connect to: kept as given
    if not parts.scheme or parts.hostname is None:
        return url
    scheme = parts.scheme.lower()
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    if port is not None and port != DEFAULT_PORTS.get(scheme):
        host += f":{port}"
    query = f"?{parts.query}" if parts.query else ""
    return f"{scheme}://{host}{parts.path or '/'}{query}"


def write_private(path: Path, text: str) -> None:
    """`text` in `path`, readable by the user alone (0600), atomically: a temporary file
    renamed over the old one, so that a crash never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the exclusive lock of the file at `path` (another client of the same file waits
    for it): around every read-modify-write, so that no client writes back a file read before
    another's change."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_name(path.name + ".lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)  # released when the descriptor is closed
            yield
        else:
            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)  # retries for 10 s, then raises
            try:
                yield
            finally:
                msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    finally:
        os.close(fd)


@dataclass(frozen=True, slots=True)
class SeatToken:
    """The seat held in one game and the token that proves it."""

    seat: int
    token: str


Data = dict[str, dict[str, dict[str, dict[str, object]]]]
"""server -> game id -> player name -> {"seat": 0 | 1, "token": str}."""


class TokenStore:
    """Seat tokens by (server, game, name); every change goes to disk at once."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()

    def _load(self) -> Data:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            # A damaged file must not stop anyone from playing: treat it as empty; the next
            # save replaces it.
            return {}
        return _by_key(data) if isinstance(data, dict) else {}

    def get(self, server: str, game_id: str, name: str) -> SeatToken | None:
        """The seat `name` holds in `game_id` on `server`, if any."""
        return _seat_token(self._players(self._load(), server_key(server), game_id).get(name))

    def games(self, server: str, name: str) -> dict[str, SeatToken]:
        """Every seat `name` holds on `server`, by game id: the games a restarted serving bot
        comes back to (`ubao bot --serve`)."""
        data, server = self._load(), server_key(server)
        held = {
            game_id: _seat_token(self._players(data, server, game_id).get(name))
            for game_id in data.get(server, {})
        }
        return {game_id: seat for game_id, seat in held.items() if seat is not None}

    def put(self, server: str, game_id: str, name: str, seat: SeatToken) -> None:
        with locked(self.path):
            self._put(server_key(server), game_id, name, seat)

    def _put(self, server: str, game_id: str, name: str, seat: SeatToken) -> None:
        data = self._load()
        players = self._players(data, server, game_id)
        players[name] = {"seat": seat.seat, "token": seat.token}
        games = data.get(server)
        if not isinstance(games, dict):
            games = data[server] = {}
        games[game_id] = players
        write_private(self.path, json.dumps(data, indent=1, sort_keys=True))

    def remove(self, server: str, game_id: str, name: str) -> None:
        """Forget a seat (the game is over: the token is worth nothing any more)."""
        with locked(self.path):
            self._remove(server_key(server), game_id, name)

    def _remove(self, server: str, game_id: str, name: str) -> None:
        data = self._load()
        players = self._players(data, server, game_id)
        if players.pop(name, None) is None:
            return
        games = data[server]
        if players:
            games[game_id] = players
        else:
            del games[game_id]
            if not games:
                del data[server]
        write_private(self.path, json.dumps(data, indent=1, sort_keys=True))

    @staticmethod
    def _players(data: Data, server: str, game_id: str) -> dict[str, dict[str, object]]:
        """The seats kept for one game by player name; anything else there (a damaged or older
        file) is dropped."""
        games = data.get(server)
        players = games.get(game_id) if isinstance(games, dict) else None
        if not isinstance(players, dict):
            return {}
        return {name: entry for name, entry in players.items() if isinstance(entry, dict)}


def _seat_token(entry: object) -> SeatToken | None:
    """A stored seat, or None for anything else (a damaged or older file)."""
    if not isinstance(entry, dict):
        return None
    seat, token = entry.get("seat"), entry.get("token")
    if seat not in (0, 1) or not isinstance(token, str):
        return None
    assert isinstance(seat, int)
    return SeatToken(seat, token)


def _by_key(data: Data) -> Data:
    """`data` with its servers under `server_key`: entries an older client stored under
    another spelling of the same URL are found, and merged on the next save."""
    merged: Data = {}
    for server, games in data.items():
        if not isinstance(games, dict):
            continue
        into = merged.setdefault(server_key(server), {})
        for game_id, players in games.items():
            if isinstance(players, dict):
                into.setdefault(game_id, {}).update(players)
    return merged
