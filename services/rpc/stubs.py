"""Generate the Python gRPC stubs from ``proto/`` on first use, and load them.

The stubs are build output, not source: they are regenerated with ``grpc_tools.protoc``
whenever they are missing or older than the ``.proto`` files (a stamp file holds a hash
of the sources). They go to ``services/gateway/generated/``; if that folder is read-only
(an installed package), to a per-source-hash cache folder instead.

protoc writes absolute imports (``from teotihuacan.v1 import game_service_pb2``); we
rewrite them to relative ones so the stubs live inside our package without touching
``sys.path`` for the normal case.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import re
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

_REPO_ROOT = Path(__file__).resolve().parents[2]
PROTO_ROOT = _REPO_ROOT / "proto"
PROTO_FILES = ("teotihuacan/v1/game_service.proto", "teotihuacan/v1/engine_service.proto")
_PACKAGE_DIR = _REPO_ROOT / "services" / "gateway" / "generated"
_PACKAGE_NAME = "services.gateway.generated"
_MODULES = (
    "game_service_pb2",
    "game_service_pb2_grpc",
    "engine_service_pb2",
    "engine_service_pb2_grpc",
)
_IMPORT_RE = re.compile(r"^from teotihuacan\.v1 import (\w+)", re.MULTILINE)

_lock = threading.Lock()
_loaded: Stubs | None = None


@dataclass(frozen=True)
class Stubs:
    """The generated modules (typed Any: generated code is not type-checked)."""

    game_pb2: Any
    game_pb2_grpc: Any
    engine_pb2: Any
    engine_pb2_grpc: Any


def _source_hash() -> str:
    digest = hashlib.sha256()
    for rel in PROTO_FILES:
        digest.update(rel.encode())
        digest.update((PROTO_ROOT / rel).read_bytes())
    return digest.hexdigest()[:16]


def _generate(target: Path, stamp: str) -> None:
    """Run protoc into a temp folder, then move the rewritten files into ``target``."""
    from grpc_tools import protoc  # heavy import: only when generating

    include = str(Path(protoc.__file__).parent / "_proto")
    with tempfile.TemporaryDirectory(prefix="teoti-protoc-") as tmp:
        args = [
            "grpc_tools.protoc",
            f"-I{PROTO_ROOT}",
            f"-I{include}",
            f"--python_out={tmp}",
            f"--pyi_out={tmp}",
            f"--grpc_python_out={tmp}",
            *[str(PROTO_ROOT / rel) for rel in PROTO_FILES],
        ]
        if protoc.main(args) != 0:
            raise RuntimeError(f"protoc failed for {PROTO_FILES}")
        target.mkdir(parents=True, exist_ok=True)
        init = target / "__init__.py"
        if not init.exists():
            init.write_text('"""Generated gRPC stubs."""\n')
        for produced in sorted((Path(tmp) / "teotihuacan" / "v1").glob("*.py*")):
            text = _IMPORT_RE.sub(r"from . import \1", produced.read_text())
            # Write then rename so a concurrent importer never sees half a file.
            partial = target / f".{produced.name}.{os.getpid()}.tmp"
            partial.write_text(text)
            os.replace(partial, target / produced.name)
        partial_stamp = target / f".stamp.{os.getpid()}.tmp"
        partial_stamp.write_text(stamp)
        os.replace(partial_stamp, target / ".stamp")


def _fresh(target: Path, stamp: str) -> bool:
    stamp_file = target / ".stamp"
    return (
        stamp_file.exists()
        and stamp_file.read_text() == stamp
        and all((target / f"{name}.py").exists() for name in _MODULES)
    )


def _cache_dir(stamp: str) -> tuple[Path, str]:
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    package = f"teoti_stubs_{stamp}"
    return base / "teotihuacan-server" / "stubs" / stamp, package


def _import_all(package: str) -> Stubs:
    mods: list[ModuleType] = [importlib.import_module(f"{package}.{name}") for name in _MODULES]
    return Stubs(*mods)


def load_stubs() -> Stubs:
    """Return the generated modules, generating them first if missing or stale.

    Raises RuntimeError if protoc fails; OSError if neither the package folder nor the
    cache folder is writable.
    """
    global _loaded
    with _lock:
        if _loaded is not None:
            return _loaded
        stamp = _source_hash()
        if not _fresh(_PACKAGE_DIR, stamp):
            try:
                _generate(_PACKAGE_DIR, stamp)
            except OSError:
                root, package = _cache_dir(stamp)
                if not _fresh(root / package, stamp):
                    _generate(root / package, stamp)
                if str(root) not in sys.path:
                    sys.path.insert(0, str(root))
                _loaded = _import_all(package)
                return _loaded
        _loaded = _import_all(_PACKAGE_NAME)
        return _loaded


if __name__ == "__main__":  # pragma: no cover - manual regeneration
    load_stubs()
