"""``teoti``'s exit codes and the one map from an error to its line and exit code.

Every command returns one of the exit codes here, and every exception a command lets
out is turned into one line on stderr and an exit code by :func:`failure` (called by
:func:`services.cli.commands.run` alone): no command prints its own traceback or picks
its own number for an error. The codes are public (scripts test them):

- :data:`EXIT_OK` 0: done, every check passed;
- :data:`EXIT_FAILED` 1: a check failed (``replay --verify``, an unfinished demo, a game
  ``archive`` left for a person), the server failed or was unreachable, or a bug;
- :data:`EXIT_USAGE` 2: bad input the person can fix (flags, files, ids, a refused request);
- :data:`EXIT_TIMEOUT` 3: gave up waiting;
- :data:`EXIT_INTERRUPTED` 130: Ctrl-C (the shell's 128 + SIGINT).
"""

from __future__ import annotations

import json

import grpc
import structlog

from services.embedded_redis import DataDirInUse
from services.engine.domain.bot_credential import BotSecretError
from services.engine.domain.errors import (
    CorruptLog,
    GameNotFound,
    InvalidArgument,
    NotAuthorized,
    RuleViolation,
    VersionConflict,
)
from services.engine.domain.head_signing import SignatureError, SigningKeyError
from services.engine.domain.public_log import PublicLogError
from services.rpc.server import AddressInUse

log = structlog.get_logger("teoti")

EXIT_OK = 0
"""Done; every check passed."""
EXIT_FAILED = 1
"""A check failed, the server failed or could not be reached, or a bug (logged at DEBUG)."""
EXIT_USAGE = 2
"""Bad input the person can fix: a flag, a file, an id, a request the server refused."""
EXIT_TIMEOUT = 3
"""Gave up waiting (``demo --timeout``)."""
EXIT_INTERRUPTED = 130
"""Interrupted by Ctrl-C (128 + SIGINT, as shells report it)."""


class UsageError(Exception):
    """Bad input the person can fix: printed as one line, exit :data:`EXIT_USAGE`."""


USER_ERROR_CODES = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.ALREADY_EXISTS,
        grpc.StatusCode.OUT_OF_RANGE,
    }
)
"""gRPC statuses that mean the request was wrong (exit 2); the others are the server's."""


def failure(error: Exception) -> tuple[str, int]:
    """One line for ``error`` and the exit code: 2 bad input, 1 server-side or a bug,
    3 a timeout. Never a traceback: an unexpected error is logged (DEBUG) in full."""
    match error:
        case UsageError() | AddressInUse() | DataDirInUse() | BotSecretError():
            return str(error), EXIT_USAGE
        case SigningKeyError() | SignatureError():
            return str(error), EXIT_USAGE
        case RuleViolation():  # InvalidOptions too: the rule and its explanation
            return f"{error.rule}: {error.message}", EXIT_USAGE
        case GameNotFound() | InvalidArgument() | NotAuthorized() | VersionConflict():
            return f"{type(error).__name__}: {error}", EXIT_USAGE
        case LookupError():  # e.g. a seat that is taken
            return str(error).strip("'\""), EXIT_USAGE
        case json.JSONDecodeError():
            return f"not valid JSON ({error})", EXIT_USAGE
        case grpc.aio.AioRpcError():
            status = error.code()
            if status == grpc.StatusCode.UNAVAILABLE:
                return f"the server is unavailable ({error.details()})", EXIT_FAILED
            if status == grpc.StatusCode.DEADLINE_EXCEEDED:
                return "the server did not answer in time", EXIT_FAILED
            code = EXIT_USAGE if status in USER_ERROR_CODES else EXIT_FAILED
            return f"{status.name}: {error.details()}", code
        case TimeoutError():
            return "timed out", EXIT_TIMEOUT
        case CorruptLog():
            return f"the game's log is damaged: {error}", EXIT_FAILED
        case PublicLogError():
            return f"not a teoti export file: {error}", EXIT_USAGE
        case ConnectionError():  # services.app.StoreUnavailable too
            return f"connection failed: {error}", EXIT_FAILED
        case OSError():  # an export or replay file that can't be read or written
            return str(error), EXIT_USAGE
    log.debug("unexpected_error", exc_info=error)
    return f"unexpected {type(error).__name__}: {error} (run with --log-level DEBUG)", EXIT_FAILED
