"""``teoti``'s command line assembled: every command's parser (in the order ``teoti
--help`` lists them) and :func:`run`, which parses, sets up logging, runs the command
and turns what it raised into one line and an exit code (services.cli.errors)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence

from services.cli import games, launchers, logs, tournament
from services.cli.errors import EXIT_INTERRUPTED, failure
from services.cli.options import TeotiParser, log_level
from services.cli.ratings import add_ratings
from services.event_loop import run_service
from services.logging_setup import configure_logging

DESCRIPTION = """``teoti``: run the services, play a demo game, replay a game's log.

User-facing output goes to stdout; logs are JSON lines on stderr.
"""

COMMANDS = (
    launchers.add_serve,
    launchers.add_engine,
    launchers.add_gateway,
    launchers.add_archive,
    launchers.add_director,
    tournament.add_tournament,
    add_ratings,
    launchers.add_bot,
    games.add_demo,
    logs.add_replay,
    logs.add_export,
    games.add_play,
    games.add_watch,
    launchers.add_redis_acl,
)
"""Each command's parser, in the order ``teoti --help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    """The ``teoti`` argument parser (serve engine gateway bot demo replay play watch)."""
    parser = TeotiParser(prog="teoti", description=DESCRIPTION)
    parser.add_argument(
        "--log-level",
        type=log_level,
        default=os.environ.get("TEOTI_LOG_LEVEL"),
        help="INFO for the services (serve, engine, gateway, bot); WARNING for the commands "
        "a person reads (demo, replay, play, watch), so logs don't bury their output",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for add in COMMANDS:
        add(sub)
    for command in sub.choices.values():
        # Also after the command (`teoti demo --log-level INFO`); SUPPRESS keeps a value
        # given before it when none is given after.
        command.add_argument(
            "--log-level",
            type=log_level,
            default=argparse.SUPPRESS,
            help="log level (default INFO for serve, engine, gateway, bot; WARNING otherwise)",
        )
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: the process's), run the command and return its exit
    code; an error it raised is printed as ``teoti COMMAND: error: ...`` on stderr with
    the code :func:`services.cli.errors.failure` gives it, Ctrl-C is 130."""
    args = build_parser().parse_args(argv)
    if args.log_level is None:
        args.log_level = "INFO" if args.command in launchers.SERVICE_COMMANDS else "WARNING"
    configure_logging(args.log_level)
    try:
        if args.command in launchers.SERVICE_COMMANDS:  # long-running: uvloop when installed
            code: int = run_service(args.run(args))
        else:
            code = asyncio.run(args.run(args))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception as error:
        message, code = failure(error)
        print(f"teoti {args.command}: error: {message}", file=sys.stderr)
        return code
    return code
