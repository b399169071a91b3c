"""The engine: domain (pure), adapters (stores), transport (gateway to engine), entrypoints.

Each layer is a folder, and may import only the layers below it (``lint-imports``, the
contracts in pyproject.toml's ``[tool.importlinter]``):

- ``entrypoints``: the engine's own process (gRPC server, timekeeper loop);
- ``transport`` | ``adapters``: how the gateway and bot worker reach the engine, and the
  stores and files it reads and writes; siblings that never import each other;
- ``domain``: games folded from logs, commands, commitments, fairness, audit, signed
  heads and the ports the others implement; no gRPC, Redis, network or file system.

``services.rpc`` (proto <-> domain, status codes) sits between the domain and the
transport: it imports the domain only. See docs/architecture.md.
"""
