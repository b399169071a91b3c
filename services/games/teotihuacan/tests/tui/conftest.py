"""The terminal client's fixtures (tests/tui/conftest.py: the real stack, a client of it,
``teoti`` run in-process) for Teotihuacan's own terminal-table tests, in the game's folder."""

from tests.tui.conftest import client, quiet_cli, stack

__all__ = ["client", "quiet_cli", "stack"]
