"""gRPC's experiments for the project's processes (services/grpc_experiments.py)."""

from __future__ import annotations

import os
import subprocess
import sys

from services.grpc_experiments import GRPC_EXPERIMENTS_DEFAULT, apply_default


def _fresh_python(code: str, **env: str) -> str:
    """Run ``code`` in a new interpreter with GRPC_EXPERIMENTS unset (unless given)."""
    environ = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    environ.update(env)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environ, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_default_is_set_when_absent() -> None:
    environ: dict[str, str] = {}
    assert apply_default(environ) == GRPC_EXPERIMENTS_DEFAULT
    assert environ == {"GRPC_EXPERIMENTS": GRPC_EXPERIMENTS_DEFAULT}


def test_an_operators_value_is_kept_even_empty() -> None:
    for value in ("", "tcp_rcv_lowat", "-event_engine_listener"):
        environ = {"GRPC_EXPERIMENTS": value}
        assert apply_default(environ) == value
        assert environ == {"GRPC_EXPERIMENTS": value}


def test_the_default_turns_the_event_engine_listener_and_client_off() -> None:
    assert set(GRPC_EXPERIMENTS_DEFAULT.split(",")) == {
        "-event_engine_listener",
        "-event_engine_client",
    }


def test_importing_the_cli_sets_it_before_grpc_is_imported() -> None:
    # gRPC reads GRPC_EXPERIMENTS on its first import: the package's own import must set
    # it without importing grpc first, and the CLI (every teoti process) must get it.
    code = (
        "import sys, os; import services; "
        "print('grpc' in sys.modules, os.environ['GRPC_EXPERIMENTS']); "
        "import services.cli; print(os.environ['GRPC_EXPERIMENTS'])"
    )
    first, second = _fresh_python(code).splitlines()
    assert first == f"False {GRPC_EXPERIMENTS_DEFAULT}"
    assert second == GRPC_EXPERIMENTS_DEFAULT


def test_the_cli_keeps_an_operators_value() -> None:
    code = "import os, services.cli; print(repr(os.environ['GRPC_EXPERIMENTS']))"
    assert _fresh_python(code, GRPC_EXPERIMENTS="") == "''"
