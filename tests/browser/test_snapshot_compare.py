"""The screenshot snapshots' comparison (tests/browser/snapshots.py) on made-up images, no
browser: a few pixels off within the tolerance pass, a moved panel or another size fails
with the screenshot and a diff written, a missing baseline is written and fails, and
``TEOTI_UPDATE_SNAPSHOTS=1`` rewrites only what no longer matches."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from tests.browser.snapshots import UPDATE_ENV, check_png, compare

SIZE = (100, 50)


def board(panel_x: int = 10, size: tuple[int, int] = SIZE, dots: int = 0) -> Image.Image:
    """A made-up board: a dark panel at ``panel_x`` on a light ground, with ``dots``
    single pixels changed slightly (anti-aliasing) and, past 20, strongly."""
    image = Image.new("RGBA", size, (240, 230, 200, 255))
    ImageDraw.Draw(image).rectangle((panel_x, 10, panel_x + 30, 40), fill=(60, 40, 20, 255))
    for index in range(dots):
        shade = 235 if index < 20 else 0
        image.putpixel((index % size[0], size[1] - 1 - index // size[0]), (shade, 230, 200, 255))
    return image


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


@pytest.fixture(autouse=True)
def _not_updating(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(UPDATE_ENV, raising=False)
    monkeypatch.setenv("TEOTI_SHOTS", str(tmp_path / "shots"))


def test_equal_and_slightly_off_images_match(tmp_path: Path) -> None:
    baseline = tmp_path / "board.png"
    baseline.write_bytes(png(board()))
    check_png(png(board()), baseline)
    # 20 pixels a few shades off: under the channel threshold, none counts.
    assert compare(board(dots=20), board()).changed == 0
    check_png(png(board(dots=20)), baseline)
    # 40 more pixels far off: 40 of 5,000 changed (0.8%), within 1%.
    assert compare(board(dots=60), board()).changed == 40
    check_png(png(board(dots=60)), baseline)


def test_a_moved_panel_fails_with_the_screenshot_and_a_diff(tmp_path: Path) -> None:
    baseline = tmp_path / "board.png"
    baseline.write_bytes(png(board()))
    with pytest.raises(AssertionError, match=r"pixels changed \(.*% > 1\.00%") as failure:
        check_png(png(board(panel_x=20)), baseline)
    written = re.findall(r"(/\S+\.(?:actual|diff)\.png)", str(failure.value))
    assert len(written) == 2 and all(Path(path).exists() for path in written)
    assert Path(written[0]).read_bytes() == png(board(panel_x=20))
    diff = Image.open(written[1]).convert("RGBA")
    assert diff.getpixel((15, 20)) == (230, 0, 0, 255)  # panel there in one image only
    assert diff.getpixel((25, 20)) != (230, 0, 0, 255)  # panel in both
    assert baseline.read_bytes() == png(board())  # the baseline is left alone


def test_another_size_fails(tmp_path: Path) -> None:
    baseline = tmp_path / "board.png"
    baseline.write_bytes(png(board()))
    with pytest.raises(AssertionError, match="the screenshot is 100x60, the baseline 100x50"):
        check_png(png(board(size=(100, 60))), baseline)


def test_a_missing_baseline_is_written_and_fails(tmp_path: Path) -> None:
    baseline = tmp_path / "snapshots" / "board.png"
    with pytest.raises(AssertionError, match="no baseline"):
        check_png(png(board()), baseline)
    assert baseline.read_bytes() == png(board())
    check_png(png(board()), baseline)  # the next run compares with it


def test_updating_rewrites_only_what_no_longer_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(UPDATE_ENV, "1")
    missing = tmp_path / "missing.png"
    check_png(png(board()), missing)
    assert missing.read_bytes() == png(board())
    check_png(png(board(dots=60)), missing)  # within the tolerance: kept
    assert missing.read_bytes() == png(board())
    check_png(png(board(panel_x=20)), missing)  # changed: rewritten, no failure
    assert missing.read_bytes() == png(board(panel_x=20))
