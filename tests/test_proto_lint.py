"""The protos are lint-clean under buf (STANDARD + COMMENTS, see buf.yaml), if buf is here.

Install buf with ``npm install -g @bufbuild/buf`` (CI runs it when present).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("buf") is None, reason="buf is not installed")
def test_buf_lint_is_clean() -> None:
    result = subprocess.run(
        ["buf", "lint"], cwd=REPO, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_proto_field_has_a_comment() -> None:
    """A fallback check without buf: each field line is preceded by a comment line."""
    for proto in (REPO / "proto").rglob("*.proto"):
        lines = proto.read_text().splitlines()
        for index, line in enumerate(lines):
            stripped = line.strip()
            is_field = (
                stripped.endswith(";")
                and "=" in stripped
                and not stripped.startswith(("option", "syntax", "//"))
            )
            if is_field:
                assert lines[index - 1].strip().startswith("//"), f"{proto.name}:{index + 1}"
