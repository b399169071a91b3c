"""Command-line defaults taken from the environment, refused cleanly when malformed.

A default read as ``int(os.environ.get(NAME, ...))`` while the parser is built turned a
typo in a deployment's environment (``TEOTI_WEB_PORT=80a``) into a Python traceback
before any option was read. :func:`env_number` says which variable holds what instead.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable
from typing import TypeVar

Number = TypeVar("Number", int, float)


def env_number(name: str, parse: Callable[[str], Number], fallback: Number) -> Number:
    """``parse(os.environ[name])``, or ``fallback`` when the variable is unset or empty.

    Args:
        name: the environment variable (not a secret: its value may be printed).
        parse: ``int`` or ``float``.
        fallback: the built-in default.

    Raises:
        SystemExit: the value does not parse, or is not finite (``nan``, ``inf``); the
            message names the variable and the value (exit status 2, as argparse's own
            usage errors).
    """
    raw = os.environ.get(name, "")
    if not raw.strip():
        return fallback
    try:
        value = parse(raw)
        # float() takes "nan" and "inf": a NaN interval made the timekeeper spin (a wait
        # of NaN seconds times out at once), an infinite one stopped it after one pass.
        if not math.isfinite(value):
            raise ValueError(raw)
    except ValueError:
        kind = "an integer" if parse is int else "a number"
        sys.stderr.write(f"teoti: error: ${name} is {raw!r}, which is not {kind}\n")
        raise SystemExit(2) from None
    return value
