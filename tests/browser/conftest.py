"""The browser tests' fixtures: Debian's chromium driven by Playwright (no browser
download), against a real ``teoti serve``. Without chromium or Playwright they skip and
say what to install (.ci/run installs both)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from tests.web_serve import Served, serve_in_process, teoti_serve

CHROMIUM = os.environ.get("TEOTI_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture(scope="module")
def served(redis_url: str) -> Iterator[Served]:
    """One ``teoti serve`` for the module's tests (its own key prefix)."""
    import uuid

    with teoti_serve(redis_url, f"browser-{uuid.uuid4().hex[:10]}") as server:
        yield server


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless chromium (Debian's), closed after the module."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(
            f"no chromium at {CHROMIUM}: `apt-get install -y chromium` (as .ci/run does) "
            "or set TEOTI_CHROMIUM to a Chromium binary"
        )
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright is in the dev extra: pip install -e '.[dev]'"
    )
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


SNAPSHOT_SEED = "board-snapshots-1"
"""The seed of every game on ``seeded_served``: the baselines of the board snapshots
(services/games/<name>/tests/browser/snapshots/) are drawn from it."""


@pytest.fixture(scope="module")
def seeded_served(redis_url: str) -> Iterator[str]:
    """The web base URL of a stack like ``teoti serve`` run in this process whose games
    all have the seed ``SNAPSHOT_SEED`` (tests.web_serve.serve_in_process): a game
    created with the same options and seats is the same game each run."""
    import uuid

    with serve_in_process(redis_url, f"seeded-{uuid.uuid4().hex[:10]}", SNAPSHOT_SEED) as web:
        yield web


def _pages(browser: Any, web: str) -> Iterator[Any]:
    """A factory of pages on the reference client at ``web`` (see ``new_page``)."""
    contexts: list[Any] = []

    def open_page(viewport: dict[str, int] | None = None, path: str = "/") -> Any:
        options: dict[str, Any] = {"base_url": web}
        if viewport is not None:
            options["viewport"] = viewport
        context = browser.new_context(**options)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.goto(path)
        return page

    yield open_page
    for context in contexts:
        context.close()


@pytest.fixture
def new_page(browser: Any, served: Served) -> Iterator[Any]:
    """A factory of pages, each in its own browser context (its own storage: another
    person), opened on the reference client (at ``path``, in a window of ``viewport``,
    e.g. ``{"width": 390, "height": 844}``: a phone); all closed after the test."""
    yield from _pages(browser, served.web)


@pytest.fixture
def seeded_page(browser: Any, seeded_served: str) -> Iterator[Any]:
    """As ``new_page``, on ``seeded_served`` (every game with the seed ``SNAPSHOT_SEED``)."""
    yield from _pages(browser, seeded_served)
