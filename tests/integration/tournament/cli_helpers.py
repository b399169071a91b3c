"""Running ``teoti tournament ...`` against an in-process server in a test: the command
parsed by teoti's own parser and run on the test's event loop, an error it raises
turned into one line and an exit code by services.cli.errors.failure, as
services.cli.commands.run does."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import pytest

from services.cli.commands import build_parser
from services.cli.errors import failure


@dataclass(frozen=True)
class Ran:
    """A command's exit code and what it printed."""

    code: int
    out: str
    err: str


async def teoti(capsys: pytest.CaptureFixture[str], *argv: str) -> Ran:
    """``teoti ARGV`` in this process (output read from ``capsys``)."""
    capsys.readouterr()  # drop what came before
    args = build_parser().parse_args(list(argv))
    try:
        code: int = await args.run(args)
    except Exception as error:
        message, code = failure(error)
        print(f"teoti {args.command}: error: {message}", file=sys.stderr)
    out, err = capsys.readouterr()
    return Ran(code, out, err)
