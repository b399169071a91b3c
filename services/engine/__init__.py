"""The engine: domain (pure), adapters (stores), transport (gateway to engine), entrypoints.

Each layer is a folder; see docs/architecture.md for what each may import.
"""
