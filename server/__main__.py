"""`ubao-server`: run the game server until SIGTERM or SIGINT, then shut down gracefully."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import signal
from collections.abc import Sequence

from ubao.server.app import GameServer, ServerConfig
from ubao.server.core import Limits
from ubao.server.store import default_path


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="ubao-server",
        description="Host Bao, mancala and Othello games over WebSocket (wire protocol v1).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (%(default)s)")
    parser.add_argument(
        "--port", type=int, default=8765, help="port to listen on; 0 picks a free one (%(default)s)"
    )
    parser.add_argument(
        "--db",
        default=str(default_path()),
        help="SQLite database file, or :memory: for a throwaway server (%(default)s)",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        help="log verbosity (%(default)s)",
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=Limits().grace_ms / 1000,
        metavar="SECONDS",
        help="how long a dropped player's seat is held (%(default)s)",
    )
    parser.add_argument(
        "--max-plies",
        type=int,
        default=Limits().bounds.max_plies,
        help="a game still going at this ply is drawn (%(default)s)",
    )
    return parser.parse_args(argv)


async def serve(config: ServerConfig) -> None:
    server = GameServer(config)
    try:
        await server.start()
    except OSError as exc:
        raise SystemExit(
            f"ubao-server: cannot listen on {config.host}:{config.port}: {exc}"
        ) from None
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    await server.stop()


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    defaults = Limits()
    limits = dataclasses.replace(
        defaults,
        grace_ms=round(args.grace * 1000),
        bounds=dataclasses.replace(defaults.bounds, max_plies=args.max_plies),
    )
    config = ServerConfig(host=args.host, port=args.port, db=args.db, limits=limits)
    asyncio.run(serve(config))


if __name__ == "__main__":
    main()
