"""gRPC's experiments for the project's processes (services/grpc_experiments.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

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
    assert environ == {
        "GRPC_EXPERIMENTS": GRPC_EXPERIMENTS_DEFAULT,
        "GRPC_ENABLE_FORK_SUPPORT": "false",  # grpc/grpc#43055: a fork+exec child aborts
    }


def test_an_operators_value_is_kept_even_empty() -> None:
    for value in ("", "tcp_rcv_lowat", "-event_engine_listener"):
        environ = {"GRPC_EXPERIMENTS": value, "GRPC_ENABLE_FORK_SUPPORT": value}
        assert apply_default(environ) == value
        assert environ == {"GRPC_EXPERIMENTS": value, "GRPC_ENABLE_FORK_SUPPORT": value}


def test_the_default_turns_the_event_engine_listener_and_client_off() -> None:
    assert set(GRPC_EXPERIMENTS_DEFAULT.split(",")) == {
        "-event_engine_listener",
        "-event_engine_client",
    }


def test_importing_the_project_changes_no_environment_variable() -> None:
    # A library user (or a test) importing the package, the engine's domain or the
    # CLI's entry module gets its environment as it was: the experiments are the
    # processes' entry points' business, not an import's side effect.
    code = (
        "import os, sys; before = dict(os.environ); "
        "import services, services.engine.domain.engine, services.cli; "
        "print(dict(os.environ) == before, 'GRPC_EXPERIMENTS' in os.environ)"
    )
    assert _fresh_python(code) == "True False"


# Runs ``teoti redis-acl`` (its lines on stdout) the way an entry runs it, then prints
# GRPC_EXPERIMENTS as it was when grpc was first imported (gRPC reads it then, once)
# and the command's exit code.
_WATCH_GRPC_IMPORT = """
import importlib.abc, os, runpy, sys
from importlib.metadata import entry_points

seen = []

class Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "grpc" and not seen:
            seen.append(os.environ.get("GRPC_EXPERIMENTS"))
        return None

sys.meta_path.insert(0, Watch())
sys.argv = ["teoti", "redis-acl"]
try:
    if "{entry}" == "console script":
        (script,) = entry_points(group="console_scripts", name="teoti")
        code = script.load()()
    else:
        runpy.run_module("services.cli", run_name="__main__", alter_sys=True)
        code = None
except SystemExit as done:
    code = done.code
print(repr(seen[0] if seen else None), code)
"""


@pytest.mark.slow
def test_the_teoti_entries_set_the_default_before_grpc_is_imported() -> None:
    # The console script (services.cli:main) and ``python -m services.cli``: gRPC must
    # find the default when it is first imported, so every teoti process runs with it.
    for entry in ("console script", "python -m"):
        code = _WATCH_GRPC_IMPORT.replace("{entry}", entry)
        last = _fresh_python(code).splitlines()[-1]
        assert last == f"{GRPC_EXPERIMENTS_DEFAULT!r} 0", entry


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
def test_the_teoti_entries_keep_an_operators_value() -> None:
    for entry in ("console script", "python -m"):
        code = _WATCH_GRPC_IMPORT.replace("{entry}", entry)
        assert _fresh_python(code, GRPC_EXPERIMENTS="").splitlines()[-1] == "'' 0", entry
