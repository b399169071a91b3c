"""The protobuf/gRPC stubs, generated when the package is built (never at import).

``clients/python/build_stubs.py`` writes them during ``pip install`` / ``pip install -e``
/ ``pip wheel`` (setup.py's ``build_py``): the public GameService into
``teoti_client.proto`` (shared with the client distribution) and the internal
EngineService into ``services.rpc.generated``. New code should import those modules
directly, which mypy checks against their ``.pyi`` stubs; :func:`load_stubs` keeps the
older call sites working.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Shown when the build step has not run (e.g. a checkout used without ``pip install``).
MISSING_HINT = (
    "the gRPC stubs are not generated: run `pip install -e .` in the checkout (or "
    "`python clients/python/build_stubs.py` after editing a .proto file)"
)


@dataclass(frozen=True)
class Stubs:
    """The generated modules (typed Any here; import them directly for checked types)."""

    game_pb2: Any
    game_pb2_grpc: Any
    engine_pb2: Any
    engine_pb2_grpc: Any


_loaded: Stubs | None = None


def load_stubs() -> Stubs:
    """Return the generated modules.

    Raises ModuleNotFoundError with :data:`MISSING_HINT` if the build step has not run.
    """
    global _loaded
    if _loaded is None:
        try:
            from teoti_client.proto import game_service_pb2, game_service_pb2_grpc

            from services.rpc.generated import engine_service_pb2, engine_service_pb2_grpc
        except ModuleNotFoundError as error:
            raise ModuleNotFoundError(f"{MISSING_HINT} ({error})") from error
        _loaded = Stubs(
            game_service_pb2, game_service_pb2_grpc, engine_service_pb2, engine_service_pb2_grpc
        )
    return _loaded
