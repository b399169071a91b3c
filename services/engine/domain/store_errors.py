"""Errors raised by event stores."""

from __future__ import annotations


class VersionConflict(Exception):
    """The game's log was not at the version the writer decided on; nothing was appended.

    Attributes:
        expected: version the writer expected.
        actual: version the log is really at.
    """

    def __init__(self, game_id: str, expected: int, actual: int) -> None:
        super().__init__(f"game {game_id}: expected version {expected}, log is at {actual}")
        self.game_id = game_id
        self.expected = expected
        self.actual = actual


class ChainMismatch(Exception):
    """The log's recorded head does not match what the writer chained onto; nothing appended.

    Either the writer's view of the log is corrupt or the stored log was altered (e.g. its
    head key no longer matches its last event). Never retried automatically.
    """

    def __init__(self, game_id: str, detail: str) -> None:
        super().__init__(f"game {game_id}: hash chain mismatch: {detail}")
        self.game_id = game_id
        self.detail = detail


class ArchiveMismatch(ValueError):
    """An archived log whose payloads and metadata, hashed again, do not end at the head
    the archive recorded (a ``z3`` archive keeps no per-event hash: it is tampered with or
    damaged). Never read as the game's log; answered DATA_LOSS (``archive_mismatch``)."""
