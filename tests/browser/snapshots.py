"""Screenshot snapshots (issue 33): a picture of a page element compared with a committed
baseline PNG, with a tolerance, so a board drawn differently fails a test while a few
anti-aliased pixels do not.

Two images match when they have the same size and at most ``max_share`` of their pixels
differ, a pixel differing when any of its channels (R, G, B, A) is more than
``channel_threshold`` apart. A missing baseline is written and the test fails (a
forgotten baseline is not a silent pass); with ``TEOTI_UPDATE_SNAPSHOTS=1`` every
baseline that is missing or no longer matches is (re)written and the test passes:

    TEOTI_UPDATE_SNAPSHOTS=1 .venv/bin/pytest -m slow <the snapshot test files>

On a mismatch the screenshot and a diff image (the baseline faded, differing pixels in
red) are written to a new folder (in ``$TEOTI_SHOTS`` if set, else in the system's
temporary folder), and the assertion message names both."""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, ImageChops

UPDATE_ENV = "TEOTI_UPDATE_SNAPSHOTS"
CHANNEL_THRESHOLD = 24
"""How far apart (0-255) one channel of a pixel may be before the pixel counts as changed."""
MAX_SHARE = 0.01
"""Share of changed pixels that still matches (1%: text re-anti-aliased, not a panel moved)."""
DIFF_COLOUR = (230, 0, 0, 255)


@dataclass(frozen=True)
class Comparison:
    """The outcome of comparing two images: ``sizes`` (actual, expected) as (width,
    height); ``changed`` pixels out of ``total`` (0 of 0 when the sizes differ); ``diff``
    the diff image (None when the sizes differ)."""

    sizes: tuple[tuple[int, int], tuple[int, int]]
    changed: int
    total: int
    diff: Image.Image | None

    @property
    def share(self) -> float:
        """Share of changed pixels (1.0 when the sizes differ)."""
        return self.changed / self.total if self.total else 1.0

    def matches(self, max_share: float = MAX_SHARE) -> bool:
        """Same size and at most ``max_share`` of the pixels changed."""
        return self.sizes[0] == self.sizes[1] and self.share <= max_share


def compare(
    actual: Image.Image, expected: Image.Image, channel_threshold: int = CHANNEL_THRESHOLD
) -> Comparison:
    """Compare two images pixel by pixel (both taken as RGBA): a pixel is changed when one
    of its channels differs by more than ``channel_threshold`` (0-255)."""
    actual, expected = actual.convert("RGBA"), expected.convert("RGBA")
    sizes = (actual.size, expected.size)
    if actual.size != expected.size:
        return Comparison(sizes, 0, 0, None)
    # A pixel's largest channel difference, then 255 where it is over the threshold.
    bands = ImageChops.difference(actual, expected).split()
    largest = bands[0]
    for band in bands[1:]:
        largest = ImageChops.lighter(largest, band)
    mask = largest.point(lambda value: 255 if value > channel_threshold else 0)
    histogram = mask.histogram()
    changed = histogram[255]
    faded = Image.blend(expected, Image.new("RGBA", expected.size, (255, 255, 255, 255)), 0.7)
    faded.paste(Image.new("RGBA", expected.size, DIFF_COLOUR), mask=mask)
    return Comparison(sizes, changed, actual.width * actual.height, faded)


def updating() -> bool:
    """Whether ``TEOTI_UPDATE_SNAPSHOTS=1`` asks for baselines to be (re)written."""
    return os.environ.get(UPDATE_ENV) == "1"


def check_png(
    png: bytes,
    baseline: Path,
    *,
    channel_threshold: int = CHANNEL_THRESHOLD,
    max_share: float = MAX_SHARE,
) -> None:
    """Compare ``png`` (the bytes of a PNG) with the baseline PNG at ``baseline``.

    Raises AssertionError when the baseline is missing (after writing it; not when
    updating), when the sizes differ or more than ``max_share`` of the pixels changed
    (after writing the actual image and a diff, named in the message; when updating, the
    baseline is rewritten instead). A baseline that still matches is never rewritten, so
    an update leaves unchanged pictures' files alone.
    """
    actual = Image.open(io.BytesIO(png))
    if not baseline.exists():
        baseline.parent.mkdir(parents=True, exist_ok=True)
        baseline.write_bytes(png)
        if updating():
            return
        raise AssertionError(
            f"no baseline at {baseline}: written from this run; look at it and commit it "
            f"(or run with {UPDATE_ENV}=1 to write baselines without failing)"
        )
    with Image.open(baseline) as stored:
        result = compare(actual, stored, channel_threshold)
    if result.matches(max_share):
        return
    if updating():
        baseline.write_bytes(png)
        return
    # A folder of its own: two games' baselines may share a name.
    shots = os.environ.get("TEOTI_SHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=f"teoti-snapshot-{baseline.stem}-", dir=shots or None))
    actual_path = folder / f"{baseline.stem}.actual.png"
    actual_path.write_bytes(png)
    (actual_size, expected_size) = result.sizes
    if result.diff is None:
        raise AssertionError(
            f"{baseline.name}: the screenshot is {actual_size[0]}x{actual_size[1]}, the "
            f"baseline {expected_size[0]}x{expected_size[1]}; screenshot: {actual_path} "
            f"(if the change is meant: {UPDATE_ENV}=1, then look at and commit {baseline})"
        )
    diff_path = folder / f"{baseline.stem}.diff.png"
    result.diff.save(diff_path)
    raise AssertionError(
        f"{baseline.name}: {result.changed} of {result.total} pixels changed "
        f"({result.share:.2%} > {max_share:.2%}, channel threshold {channel_threshold}); "
        f"screenshot: {actual_path}, diff (changes in red): {diff_path} "
        f"(if the change is meant: {UPDATE_ENV}=1, then look at and commit {baseline})"
    )


def check_snapshot(locator: Any, baseline: Path, mask: Sequence[Any] = ()) -> None:
    """Screenshot the element ``locator`` points at (a Playwright sync Locator; the whole
    element, scrolled as needed) with animations stopped, the caret hidden and the mouse
    out of the way (no hover styles), the ``mask`` locators covered (what varies by run:
    ids, clocks), and compare it with ``baseline`` as :func:`check_png` does (its errors).
    """
    locator.page.mouse.move(0, 0)
    locator.page.evaluate("document.fonts.ready.then(() => true)")
    png = locator.screenshot(animations="disabled", caret="hide", mask=list(mask), scale="css")
    check_png(png, baseline)


def fresh_game_to_act(open_page: Any, ruleset: str, viewport: dict[str, int]) -> Any:
    """A fresh two-seat game of ``ruleset`` between two people ("ann" creates it, "bob"
    joins seat 1; no bot, so nothing moves on its own), each in a page of ``open_page``
    (the ``seeded_page`` fixture: the game's seed is fixed) in a window of ``viewport``.
    Returns the page of the seat to act once it shows its moves: the same seat, view and
    legal moves every run."""
    from playwright.sync_api import expect

    from tests.browser.test_browser_play import create, join, to_act

    ann = open_page(viewport=viewport)
    game_id = create(ann, "ann", ruleset, 2, others="open")
    bob = open_page(viewport=viewport)
    join(bob, "bob", game_id, 1)
    for page in (ann, bob):  # the join reached both pages: seat 1 has its name
        expect(page.locator("#seats li").nth(1)).to_contain_text("bob")
    mover = to_act([ann, bob])
    assert mover is not None, f"a fresh {ruleset} game is over"
    return mover
