"""Build-time generation of the protobuf/gRPC stubs, shared by both distributions.

``clients/python/setup.py`` (the ``teotihuacan-client`` distribution) and the server's
``setup.py`` both call :func:`generate` from their ``build_py`` step, so ``pip install``,
``pip install -e`` and ``pip wheel`` of either produce the same modules, each with its
``.pyi`` type stub (``grpc_tools.protoc --pyi_out``). Nothing is generated at import time
and nothing generated is committed (see ``.gitignore``).

protoc names a module after its proto package (``from gameserver.v1 import
game_service_pb2``); :func:`generate` rewrites those imports to the Python package each
file is generated into. The proto package lives in :data:`PROTO_PACKAGE_DIR` only, so a
renamed proto package (issue 14) changes that one constant.

Run ``python clients/python/build_stubs.py`` from a checkout to regenerate in place after
editing a ``.proto`` file (``pip install -e .`` does the same).
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: The public API's proto package, as a path under the proto root.
PROTO_PACKAGE_DIR = "gameserver/v1"

CLIENT_DIR = Path(__file__).resolve().parent
#: The repository's proto root (the client builds in place from a checkout).
REPO_PROTO_ROOT = CLIENT_DIR.parent.parent / "proto"
#: The public protos the client needs, relative to a proto root.
PUBLIC_PROTOS = (
    f"{PROTO_PACKAGE_DIR}/game_service.proto",
    f"{PROTO_PACKAGE_DIR}/player_service.proto",
    f"{PROTO_PACKAGE_DIR}/rating_service.proto",
    f"{PROTO_PACKAGE_DIR}/lobby_service.proto",
)
#: The client's private protos (wire-compatible copies of google.rpc's Status/ErrorInfo).
CLIENT_PROTO_ROOT = CLIENT_DIR / "proto"
#: Name of the file, in each generated package, holding the hash of its sources.
STAMP = ".stamp"


@dataclass(frozen=True)
class ProtoSet:
    """Proto files generated into one Python package.

    ``root`` is the ``-I`` include root, ``files`` are paths relative to it, and the
    modules land flat in ``package_dir``, importable as ``package``. ``grpc`` adds the
    ``*_pb2_grpc.py`` service modules.
    """

    root: Path
    files: tuple[str, ...]
    package_dir: Path
    package: str
    grpc: bool = True


def public_proto_root(client_dir: Path = CLIENT_DIR) -> Path:
    """Where the public protos are: the checkout's ``proto/``, else (building from the
    client's sdist, which carries a copy) the client's own ``proto/``."""
    repo_root = client_dir.parent.parent / "proto"
    return repo_root if (repo_root / PUBLIC_PROTOS[0]).exists() else client_dir / "proto"


def client_sets(client_dir: Path = CLIENT_DIR, proto_root: Path | None = None) -> list[ProtoSet]:
    """The client distribution's stubs: the public GameService and PlayerService, and the
    error details."""
    return [
        ProtoSet(
            proto_root or public_proto_root(client_dir),
            PUBLIC_PROTOS,
            client_dir / "teoti_client" / "proto",
            "teoti_client.proto",
        ),
        ProtoSet(
            client_dir / "proto",
            ("teoti_client/rpc_status.proto",),
            client_dir / "teoti_client" / "proto",
            "teoti_client.proto",
            grpc=False,
        ),
    ]


def server_sets(repo_root: Path) -> list[ProtoSet]:
    """The server's stubs: the client's, plus the internal EngineService."""
    client_dir = repo_root / "clients" / "python"
    return [
        *client_sets(client_dir, repo_root / "proto"),
        ProtoSet(
            repo_root / "proto",
            (
                f"{PROTO_PACKAGE_DIR}/engine_service.proto",
                f"{PROTO_PACKAGE_DIR}/tournament_service.proto",
            ),
            repo_root / "services" / "rpc" / "generated",
            "services.rpc.generated",
        ),
    ]


def source_hash(sets: Sequence[ProtoSet], package_dir: Path) -> str:
    """SHA-256 (hex) over the proto files generated into ``package_dir``."""
    digest = hashlib.sha256()
    for proto_set in sets:
        if proto_set.package_dir != package_dir:
            continue
        for rel in proto_set.files:
            digest.update(rel.encode())
            digest.update((proto_set.root / rel).read_bytes())
    return digest.hexdigest()


def _module_packages(sets: Sequence[ProtoSet]) -> dict[tuple[str, str], str]:
    """(protoc's package, module) -> our Python package, for every generated module."""
    result: dict[tuple[str, str], str] = {}
    for proto_set in sets:
        for rel in proto_set.files:
            proto_package, _, name = rel.removesuffix(".proto").rpartition("/")
            for suffix in ("_pb2", "_pb2_grpc"):
                key = (proto_package.replace("/", "."), f"{name}{suffix}")
                result[key] = proto_set.package
    return result


def _rewrite_imports(text: str, packages: dict[tuple[str, str], str]) -> str:
    for (proto_package, module), package in packages.items():
        pattern = rf"^from {re.escape(proto_package)} import {module}\b"
        text = re.sub(pattern, f"from {package} import {module}", text, flags=re.MULTILINE)
    return text


def _protoc(proto_set: ProtoSet, out: Path) -> None:
    from grpc_tools import protoc  # a build requirement only

    include = str(Path(protoc.__file__).parent / "_proto")
    args = [
        "grpc_tools.protoc",
        f"-I{proto_set.root}",
        f"-I{include}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        *([f"--grpc_python_out={out}"] if proto_set.grpc else []),
        *[str(proto_set.root / rel) for rel in proto_set.files],
    ]
    if protoc.main(args) != 0:
        raise RuntimeError(f"protoc failed for {proto_set.files} under {proto_set.root}")


def generate(sets: Sequence[ProtoSet]) -> list[Path]:
    """Generate every set into its package folder; returns the files written.

    Each package folder gets an ``__init__.py`` if it has none and a ``.stamp`` with
    :func:`source_hash`. Files are written then renamed, so a concurrent importer never
    reads half a module. Raises RuntimeError if protoc fails.
    """
    packages = _module_packages(sets)
    written: list[Path] = []
    for proto_set in sets:
        with tempfile.TemporaryDirectory(prefix="teoti-protoc-") as tmp:
            _protoc(proto_set, Path(tmp))
            target = proto_set.package_dir
            target.mkdir(parents=True, exist_ok=True)
            for rel in proto_set.files:
                produced_dir = Path(tmp) / Path(rel).parent
                stem = Path(rel).stem
                for produced in sorted(produced_dir.glob(f"{stem}_pb2*.py*")):
                    text = _rewrite_imports(produced.read_text(), packages)
                    written.append(_replace(target / produced.name, text))
    for package_dir in sorted({s.package_dir for s in sets}):
        init = package_dir / "__init__.py"
        if not init.exists():
            written.append(_replace(init, '"""Generated protobuf/gRPC stubs (build output)."""\n'))
        written.append(_replace(package_dir / STAMP, source_hash(sets, package_dir) + "\n"))
    return written


def _replace(path: Path, text: str) -> Path:
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    partial.write_text(text)
    os.replace(partial, path)
    return path


if __name__ == "__main__":  # regenerate in a checkout: python clients/python/build_stubs.py
    repo = CLIENT_DIR.parent.parent
    for path in generate(server_sets(repo)):
        print(path.relative_to(repo))  # noqa: T201 - a build script, not a service
    sys.exit(0)
