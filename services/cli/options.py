"""What every ``teoti`` command parses the same way: the parser class (one-line errors),
the option types (ports, JSON objects, log levels) and ``--extra-ruleset``."""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from services.cli.errors import EXIT_USAGE, UsageError
from services.engine.domain.rulesets import RulesetRegistry, default_registry, lazy_factory
from services.logging_setup import LEVELS

Subparsers = Any
"""argparse's subparsers action, what ``add_subparsers()`` returns and each command
module's ``add_*`` adds its command to (its class is private to argparse)."""

DEFAULT_GATEWAY = "127.0.0.1:50051"
"""The gateway a command talks to without ``--target`` when it needs a running server
(``play --join``, ``watch GAME_ID``, ``replay``, ``export``, ``tournament``)."""


class TeotiParser(argparse.ArgumentParser):
    """argparse whose errors are one line on stderr (exit 2), with where to get help."""

    def error(self, message: str) -> NoReturn:
        """Print ``PROG: error: MESSAGE (see PROG --help)`` and exit 2."""
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        """argparse's, except that options no command knows are reported by the
        subcommand they were given to (``teoti archive: ... (see teoti archive --help)``,
        with the option probably meant), not by ``teoti`` (argparse's own ``parse_args``
        leaves them to the top parser, whose help does not list them)."""
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            command = _command_parser(self, parsed)
            hint = _close_option(command, extra[0])
            command.error(f"unrecognized arguments: {' '.join(extra)}{hint}")
        return parsed


def _command_parser(parser: argparse.ArgumentParser, parsed: argparse.Namespace) -> Any:
    """The innermost (sub)command parser ``parsed`` was parsed by (``teoti tournament
    demo``'s for ``teoti tournament demo ...``)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(parsed, action.dest, None) or "")
            if chosen is not None:
                return _command_parser(chosen, parsed)
    return parser


def _close_option(parser: argparse.ArgumentParser, given: str) -> str:
    """``"; did you mean --older-than-days?"`` for ``--days``, or ""."""
    if not given.startswith("--"):
        return ""
    word = given.split("=", 1)[0]
    options = [o for a in parser._actions for o in a.option_strings if o.startswith("--")]
    near = [o for o in options if word[2:] and word[2:] in o] or difflib.get_close_matches(
        word, options, n=1
    )
    return f"; did you mean {near[0]}?" if near else ""


def json_object(text: str) -> dict[str, Any]:
    """``--options``: a JSON object (``{}`` when empty). Raises ArgumentTypeError."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(f"not valid JSON ({error})") from None
    if not isinstance(value, dict):
        kind = {list: "an array", str: "a string", bool: "true/false", type(None): "null"}
        got = kind.get(type(value), "a number")
        raise argparse.ArgumentTypeError(f'wants a JSON object such as {{"solo": true}}, got {got}')
    return value


MAX_PORT = 65_535
"""The largest TCP port."""


def port(text: str) -> int:
    """A TCP port flag: an integer 0 to 65535 (0: as the flag's help says, off or any
    free port). Raises ArgumentTypeError (a socket would raise OverflowError later)."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= number <= MAX_PORT:
        raise argparse.ArgumentTypeError(f"{number} is not a port (0 to {MAX_PORT})")
    return number


def log_level(value: str) -> str:
    """``--log-level`` (and ``$TEOTI_LOG_LEVEL``): a level name, any case; upper-cased.
    Raises ArgumentTypeError for a name that is not one of LEVELS."""
    if value.upper() not in LEVELS:
        raise argparse.ArgumentTypeError(f"{value!r} is not one of {', '.join(LEVELS)}")
    return value.upper()


def add_extra_ruleset(p: argparse.ArgumentParser) -> None:
    """``--extra-ruleset NAME=module:Class`` (repeatable), which every command that
    loads rulesets takes; read it with :func:`registry`."""
    p.add_argument(
        "--extra-ruleset",
        action="append",
        default=[],
        metavar="NAME=module:Class",
        help="register another ruleset (importable from the current directory)",
    )


def registry(extra: Sequence[str]) -> RulesetRegistry:
    """Default registry plus ``NAME=module:Class`` entries (importable from the cwd).
    Raises UsageError for an entry without ``=module:Class``."""
    rulesets = default_registry()
    if extra and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # like uvicorn's --app-dir: rulesets from a checkout
    for item in extra:
        name, _, target = item.partition("=")
        if not target:
            raise UsageError(f"--extra-ruleset wants NAME=module:Class, got {item!r}")
        rulesets.register(name, lazy_factory(target))
    return rulesets
