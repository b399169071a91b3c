"""Clock tests log through structlog's defaults: a test run before them may have left it
configured to write to a stream that pytest has closed since."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import structlog


@pytest.fixture(autouse=True)
def fresh_structlog() -> Iterator[None]:
    saved = structlog.get_config()
    structlog.reset_defaults()
    yield
    structlog.configure(**saved)
