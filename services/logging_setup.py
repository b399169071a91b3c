"""structlog configuration: one JSON object per line on stderr."""

from __future__ import annotations

import logging
import sys
from typing import TextIO, cast

import structlog

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
_stdlib_handler: logging.Handler | None = None


class _CurrentStderr:
    """Writes to whatever ``sys.stderr`` is at the time of writing, not the object it was
    when logging was set up (a test harness may swap stderr for a capture and close it)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


_STDERR = cast(TextIO, _CurrentStderr())


def configure_logging(level: str = "INFO") -> None:
    """Send structlog and stdlib logging output (asyncio, grpc, ...) as JSON lines to stderr.

    ``level`` is one of :data:`LEVELS` (any case). Raises ValueError for another name.
    """
    global _stdlib_handler
    if level.upper() not in LEVELS:
        raise ValueError(f"unknown log level {level!r}; one of {', '.join(LEVELS)}")
    numeric = logging.getLevelName(level.upper())
    timestamp = structlog.processors.TimeStamper(fmt="iso", utc=True)
    handler = logging.StreamHandler(_STDERR)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processor=structlog.processors.JSONRenderer(),
            foreign_pre_chain=[
                structlog.stdlib.add_log_level,
                structlog.stdlib.add_logger_name,
                timestamp,
            ],
        )
    )
    root = logging.getLogger()
    if _stdlib_handler is not None:  # configured before: replace only our own handler
        root.removeHandler(_stdlib_handler)
    root.addHandler(handler)
    root.setLevel(numeric)
    _stdlib_handler = handler
    # uvicorn (the web face) logs each WebSocket's opening, refusal and closing at INFO on
    # "uvicorn.error", with the peer's address: a line or two per player connection, and
    # its start-up lines say what "web_serving" says. Shown at DEBUG only.
    logging.getLogger("uvicorn.error").setLevel(
        numeric if numeric <= logging.DEBUG else max(numeric, logging.WARNING)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            timestamp,
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=_STDERR),
        cache_logger_on_first_use=True,
    )
