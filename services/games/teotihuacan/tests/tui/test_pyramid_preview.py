"""Construction: the highlighted pyramid tile choice is drawn in place on the pyramid."""

from __future__ import annotations

import random
from typing import Any

from services.engine.domain.ruleset import SetupRequest
from services.games.teotihuacan.rules import TeotihuacanRuleset, pyramid
from services.games.teotihuacan.tui.pyramid import (
    PREVIEW_STYLE,
    PyramidPanel,
    icon_text,
    placement_of,
    render_grid,
)
from services.tui.app import TableApp
from services.tui.kit import kit_for
from services.tui.widgets.actions import ActionList, Choice
from tests.tui.conftest import SCREEN

RULES = TeotihuacanRuleset()


def _view() -> dict[str, Any]:
    state: Any = None
    for event in RULES.setup(SetupRequest(seat_count=2), random.Random(3)):
        state = RULES.evolve(state, event)
    return dict(RULES.view(state, None))


def _place_on_a_free_slot(view: dict[str, Any]) -> dict[str, Any]:
    """A place action for tile 5, turned once, on the first free level-1 slot."""
    taken = {tuple(p[:3]) for p in view["pyramid_tiles"]}
    row, col = next((r, c) for r in range(4) for c in range(4) if (1, r, c) not in taken)
    return {
        "type": "place_pyramid_tile",
        "level": 1,
        "row": row,
        "col": col,
        "tile": 5,
        "rotation": 1,
    }


def _squares(text: str) -> list[list[str]]:
    """The grid's squares (icon + level) row by row."""
    return [line.split(" ")[: pyramid.GRID_SIZE] for line in text.splitlines()]


def test_the_preview_shows_the_turned_tile_on_its_squares() -> None:
    view = _view()
    place = _place_on_a_free_slot(view)
    preview = placement_of(place)
    assert preview == (1, place["row"], place["col"], 5, 1)
    assert placement_of({"type": "move", "worker": 0, "steps": 1}) is None
    before, after = render_grid(view), render_grid(view, preview)
    covered = pyramid.covered_squares(1, place["row"], place["col"])
    icons = pyramid.tile_icons(5, 1)
    rows_before, rows_after = _squares(before.plain), _squares(after.plain)
    for (r, c), icon in zip(covered, icons, strict=True):
        assert rows_after[r][c] == f"{icon_text(icon).plain}1"  # the icon, on level 1
    changed = {
        (r, c)
        for r in range(pyramid.GRID_SIZE)
        for c in range(pyramid.GRID_SIZE)
        if rows_before[r][c] != rows_after[r][c]
    }
    assert changed <= set(covered)
    highlighted = sum(s.end - s.start for s in after.spans if s.style == PREVIEW_STYLE)
    assert highlighted == 2 * len(covered)  # icon + level character of each square


async def test_highlighting_a_tile_choice_previews_it_and_moving_on_clears_it() -> None:
    app = TableApp(kit_for("teotihuacan"))
    async with app.run_test(size=SCREEN) as pilot:
        panel = app.query_one(PyramidPanel)
        view = _view()
        place = _place_on_a_free_slot(view)
        panel.show(view, ("ann", "bob"))
        app.post_message(ActionList.Highlighted(Choice(place, "pyramid tile", "Construction")))
        await pilot.pause()
        assert panel.preview == placement_of(place)
        app.post_message(ActionList.Highlighted(None))
        await pilot.pause()
        assert panel.preview is None
