"""The generated stubs are build output: fresh, typed, not committed, client-only imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "clients" / "python"))
import build_stubs  # noqa: E402


def test_every_generated_package_matches_its_protos() -> None:
    sets = build_stubs.server_sets(REPO)
    for package_dir in {s.package_dir for s in sets}:
        stamp = package_dir / build_stubs.STAMP
        assert stamp.exists(), f"{package_dir}: run `pip install -e .`"
        assert stamp.read_text().strip() == build_stubs.source_hash(sets, package_dir), (
            f"{package_dir} is older than its .proto files: run `pip install -e .`"
        )
    for proto_set in sets:
        for rel in proto_set.files:
            stem = Path(rel).stem
            assert (proto_set.package_dir / f"{stem}_pb2.py").exists()
            assert (proto_set.package_dir / f"{stem}_pb2.pyi").exists()  # typed


def test_no_generated_file_is_committed() -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "clients", "services"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert not [path for path in tracked if "_pb2" in path or path.endswith(".stamp")]


def test_generated_imports_point_into_our_packages() -> None:
    engine = REPO / "services" / "rpc" / "generated" / "engine_service_pb2.py"
    text = engine.read_text()
    assert "from teoti_client.proto import game_service_pb2" in text
    assert "from gameserver.v1 import" not in text


def test_the_client_package_needs_nothing_of_the_server() -> None:
    code = (
        "import sys, teoti_client, teoti_client.proto.game_service_pb2_grpc;"
        "server = sorted(m for m in sys.modules if m.split('.')[0] in ('services', 'redis'));"
        "print(server)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert result.stdout.strip() == "[]"
    for source in (REPO / "clients" / "python" / "teoti_client").rglob("*.py"):
        assert "from services" not in source.read_text() and "import services" not in (
            source.read_text()
        ), source
