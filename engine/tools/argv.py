"""What `ubao` and `ubao-engine` share of their command lines: options written before the
command (`ubao --server URL games`, `ubao-engine --backend native moves kalah`) are taken
there as after it, moved after the command's words before argparse reads them (an option the
command does not have is then refused by its name, "unrecognized arguments: --server URL");
and a mistake is said in one line, not after the whole usage."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import NoReturn


class CommandLineParser(argparse.ArgumentParser):
    """An argparse parser (its commands' too) whose mistakes are one line: what is wrong, and
    where the usage is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (usage: {self.prog} --help)\n")


def options_after_command(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[str]:
    """`argv` with the options before its command moved after the command's own words (before
    a `--`, which ends the options); `argv` as it is when no command follows such options."""
    words = list(argv)
    commands, takes_value = _grammar(parser)
    index = 0
    while index < len(words) and words[index].startswith("-") and words[index] != "--":
        option = words[index]
        if option in parser._option_string_actions:  # the program's own: --help, --version
            return words
        index += 1 if "=" in option or not takes_value.get(option, False) else 2
    if index == 0 or index >= len(words) or words[index] not in commands:
        return words
    leading, rest = words[:index], words[index:]
    end = rest.index("--") if "--" in rest else len(rest)
    return [*rest[:end], *leading, *rest[end:]]


def _grammar(parser: argparse.ArgumentParser) -> tuple[set[str], dict[str, bool]]:
    """The command names of `parser`, and whether each option of any command (at any depth)
    takes a value."""
    commands: set[str] = set()
    takes_value: dict[str, bool] = {}
    pending = [parser]
    while pending:
        current = pending.pop()
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                if current is parser:
                    commands.update(action.choices)
                pending.extend(action.choices.values())
            for option in action.option_strings:
                takes_value[option] = takes_value.get(option, False) or action.nargs != 0
    return commands, takes_value
