"""Snapshot tests of the table's main screens (pytest-textual-snapshot).

The game is set up locally from a fixed seed (no server, no clock), so every run draws
the same screen; the SVGs live in ``__snapshots__``. After a deliberate change to the
screen, review and refresh them with ``pytest
services/games/teotihuacan/tests/tui/test_snapshots.py --snapshot-update``. Textual is
pinned in pyproject.toml: its rendering is the snapshot.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from services.client import GameView, LegalMove, SeatInfo
from services.engine.domain.ruleset import SetupRequest
from services.games.teotihuacan.rules.ruleset import TeotihuacanRuleset
from services.tui.app import TableApp
from services.tui.backend import Frame
from services.tui.kit import kit_for
from services.tui.widgets.actions import group_choices

NAMES = ("ann", "Teotibot")


def _solo_frame() -> Frame:
    """A solo game (RULES.md §8) right after set-up, seen by seat 0, with its choices."""
    rules = TeotihuacanRuleset()
    events = rules.setup(SetupRequest(2, {"solo": True}, NAMES), random.Random("snapshot"))
    state: Any = None
    for event in events:
        state = rules.evolve(state, event)
    view = GameView(
        game_id="snapshot-game",
        ruleset="teotihuacan",
        version=len(events),
        state=dict(rules.view(state, 0)),
        seats=(SeatInfo("human", NAMES[0]), SeatInfo("bot", NAMES[1])),
        seats_to_act=tuple(rules.seats_to_act(state)),
        finished=False,
        scores=(),
        ranking=(),
        head_hash="",
        seed_commitment="",
        revealed_seed="",
    )
    legal = tuple(LegalMove(dict(a), "") for a in rules.legal_actions(state, 0))
    return Frame(view, legal)


class ShownTable(TableApp):
    """The table showing one fixed frame as seat 0 on its turn."""

    def __init__(self, frame: Frame) -> None:
        super().__init__(kit_for("teotihuacan"))
        self.you = 0
        self.mode = "playing"
        self._frame = frame

    def on_mount(self) -> None:
        """Show the frame."""
        self.show(self._frame)

    def _render_choices(self) -> None:
        frame = self.frame
        assert frame is not None
        assert self.kit is not None
        grouped = group_choices(frame.legal, frame.view.state, self.you, self.kit)
        self.actions.set_choices("Your choices (arrows, Enter)", grouped)
        self.actions.focus()


@pytest.mark.parametrize(
    ("size", "keys"),
    [
        ((80, 24), ()),
        ((80, 24), ("s",)),
        ((80, 24), ("l",)),
        ((120, 40), ()),
        ((120, 40), ("s",)),
        ((170, 52), ()),
        ((60, 20), ()),
    ],
    ids=["80x24", "80x24-seats", "80x24-log", "120x40", "120x40-seats", "170x52", "too-small"],
)
def test_table_snapshot(snap_compare: Any, size: tuple[int, int], keys: tuple[str, ...]) -> None:
    assert snap_compare(ShownTable(_solo_frame()), terminal_size=size, press=keys)
