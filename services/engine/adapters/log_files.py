"""Exported public log files (``teoti export``, ``teoti verify FILE``, ``teoti replay
--step FILE``) on disk.

The format, its parsing and its offline audit are the domain's
(:mod:`services.engine.domain.public_log`); this module only touches the file system.
"""

from __future__ import annotations

from pathlib import Path

from services.engine.domain.public_log import PublicLog, parse_public_log


def read_public_log(path: Path) -> PublicLog:
    """Read and parse the file at ``path``. Raises OSError, PublicLogError."""
    return parse_public_log(path.read_text(encoding="utf-8").splitlines())


def looks_like_file(argument: str) -> bool:
    """True if a command-line game argument names an existing file (an exported log)."""
    return Path(argument).is_file()
