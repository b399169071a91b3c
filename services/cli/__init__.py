"""``teoti``, the command line: the service launchers (:mod:`.launchers`), the game
client commands (:mod:`.games`: demo, play, watch; :mod:`.logs`: replay, export), the
tournament commands (:mod:`.tournament`), their parser and runner (:mod:`.commands`)
and the one map from an error to its exit code (:mod:`.errors`).

This module imports nothing heavy: :func:`main`, the ``teoti`` console script (and
``python -m services.cli``), sets gRPC's experiments for the process before anything
imports grpc (:mod:`services.grpc_experiments`), then loads the commands. Importing
``services.cli`` changes no environment variable.
"""

from __future__ import annotations

from collections.abc import Sequence

from services.grpc_experiments import apply_default


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``teoti`` console script; returns the exit code
    (services.cli.errors)."""
    apply_default()  # before the import below imports grpc: gRPC reads it then, once
    from services.cli.commands import run

    return run(argv)
