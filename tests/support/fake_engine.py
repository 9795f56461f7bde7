"""A scripted stand-in for `ubao-engine stdio`, for testing the server's bot seats.

It speaks the line protocol of docs/engine-protocol.md and plays the first legal move (using the
real rules), unless told to misbehave:

    python tests/support/fake_engine.py [--mode MODE] [--state FILE]

MODE is `good`, `crash` (exit at `go`), `hang` (never answer `go`, ignore `stop`), `hang-info`
(print an `info` line with a pv, then hang), `illegal` (answer an impossible move), `refuse`
(refuse `go` with an `error` line, so no `bestmove` comes), `search-error` (an `error` line, as
of a failed search, then the `bestmove`), `refuse-position` (refuse `position` with an `error`
line, answer `go` with an impossible move), `bad-bytes` (a line that is not UTF-8 before each
`bestmove`), `silent` (never answer `uci`). `--delay SECONDS` sleeps that long before each
`bestmove`, deaf to `stop` meanwhile (an engine too slow for its clock). With `--state FILE`,
the misbehaviour happens only in the first process that finds FILE missing (it creates it): the
restarted engine then behaves.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from ubao.engine.games import make_game


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def first_time(state: str | None) -> bool:
    if state is None:
        return True
    try:
        with open(state, "x"):
            return True
    except FileExistsError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="good")
    parser.add_argument("--state")
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args()
    mode = args.mode if args.mode == "good" or first_time(args.state) else "good"
    game = position = None
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        command = words[0]
        if command == "uci":
            if mode == "silent":
                continue
            say("id name fake-engine")
            say("uciok")
        elif command == "isready":
            say("readyok")
        elif command == "position":
            if mode == "refuse-position":
                say("error move 1 (1): that pit is empty")
                continue
            name, options = words[1], json.loads(words[2])
            game = make_game(name, options)
            position = game.start()
            if "moves" in words:
                for text in words[words.index("moves") + 1 :]:
                    position = game.play_text(position, text)
        elif command == "go":
            if mode == "refuse-position":
                say("bestmove 9Z")
                continue
            assert game is not None
            moves = game.legal_moves(position)
            best = game.format_move(position, moves[0]) if moves else "none"
            if mode == "crash":
                sys.exit(3)
            if mode == "refuse":
                say("error go: a search is running; send stop first")
                continue
            if mode in ("hang", "hang-info"):
                if mode == "hang-info":
                    say(f"info depth 1 score 7 nodes 3 nps 3 time 1 pv {best}")
                while True:
                    time.sleep(60)
            time.sleep(args.delay)
            say(f"info depth 1 score mate 3 nodes 5 nps 5000 time 1 pv {best}")
            if mode == "bad-bytes":
                sys.stdout.buffer.write(b"info string \xff\xfe\x80\n")
                sys.stdout.flush()
            if mode == "search-error":
                say("error the search failed: RuntimeError('out of luck')")
            say("bestmove 9Z" if mode == "illegal" else f"bestmove {best}")
        elif command == "quit":
            return


if __name__ == "__main__":
    main()
