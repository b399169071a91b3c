"""mypy checks proto field names: the generated stubs carry ``.pyi`` type stubs.

Issue 13 item 11: the stubs used to be generated at first import and typed ``Any``, so a
misspelt field passed mypy and failed at run time. Now ``build_stubs.py`` writes them at
build time with ``--pyi_out``; this runs ``mypy --strict`` on a program with a misspelt
request field and a misspelt reply field, and on the same program spelt right.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CLIENT_CONFIG = REPO / "clients" / "python" / "pyproject.toml"

PROGRAM = """\
from teoti_client.proto import game_service_pb2 as pb


def request(game: str) -> pb.GetGameRequest:
    return pb.GetGameRequest(game_id=game, seat_token="t")


def game_of(reply: pb.CreateGameResponse) -> str:
    return reply.game_id
"""


def test_mypy_strict_refuses_a_misspelt_proto_field(tmp_path: Path) -> None:
    (tmp_path / "good.py").write_text(PROGRAM)
    misspelt = PROGRAM.replace("game_id=game", "gameid=game").replace(
        "reply.game_id", "reply.gameId"
    )
    (tmp_path / "bad.py").write_text(misspelt)
    # The server's editable install maps teoti_client with an import hook mypy does not
    # follow; MYPYPATH points it at the package (as pyproject.toml's mypy_path does).
    env = {**os.environ, "MYPYPATH": str(REPO / "clients" / "python")}
    result = subprocess.run(
        # The client distribution's own mypy settings (strict; protoc's .pyi files are not
        # written for --strict, so errors inside them are ignored, not their types).
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(CLIENT_CONFIG),
            "--no-incremental",
            "good.py",
            "bad.py",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert result.returncode == 1, result.stdout + result.stderr
    assert all(line.startswith("bad.py:") for line in errors), errors
    assert any('Unexpected keyword argument "gameid"' in line for line in errors), errors
    assert any('has no attribute "gameId"' in line for line in errors), errors
