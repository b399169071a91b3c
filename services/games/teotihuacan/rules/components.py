"""Component numbers of the base game, loaded once from the project's own data file.

``data/components.json`` is the project's copy of ``shared/rules/components.json``
(boards, harvest tables, temples, calendar, tiles, pyramid geometry). This module turns it
into typed, read-only tables the rules use; no rule logic lives here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final

RESOURCES: Final[tuple[str, ...]] = ("wood", "stone", "gold")
TEMPLES: Final[tuple[str, ...]] = ("blue", "red", "green")
PALACE: Final = 1
CONSTRUCTION: Final = 8
BOARD_COUNT: Final = 8
MAX_POWER: Final = 5
TEMPLE_TOP_STEP: Final = 11
TEMPLE_BONUS_STEP: Final = 10
NOT_A_TILE: Final = -1
"""Marks an empty tile place in index-by-position tuples of the state."""


@dataclass(frozen=True, slots=True)
class Board:
    """One action board (RULES.md §3).

    Attributes:
        number: printed number 1..8.
        key: snake_case name, e.g. ``"stone_quarry"``.
        name: display name.
        main_action: ``"harvest"``, ``"technology"``, ... or None (Palace).
        resource: harvested resource for boards 2-4, else None.
        worship: ``"royal_tiles"``, ``"temple"``, ``"temple_any"`` or None.
        worship_temple: temple advanced by this board's worship ability, if fixed.
        worship_spaces: number of worship spaces (Palace 3, others 0 or 1).
    """

    number: int
    key: str
    name: str
    main_action: str | None
    resource: str | None
    worship: str | None
    worship_temple: str | None
    worship_spaces: int


@dataclass(frozen=True, slots=True)
class Components:
    """Every component number the rules read (``data/components.json``)."""

    raw: dict[str, Any]
    boards: dict[int, Board]

    def board(self, number: int) -> Board:
        """The board with printed ``number`` (1..8). Raises KeyError."""
        return self.boards[number]

    def harvest_cell(self, board: Board, workers: int, lowest_power: int) -> dict[str, int]:
        """RULES.md §3.1: gain for (own workers on the board, capped at 3; lowest power)."""
        row = min(workers, 3) - 1
        column = 0 if lowest_power == 1 else (1 if lowest_power <= 3 else 2)
        cell: dict[str, int] = self.raw["harvest_tables"][board.key][row][column]
        return cell

    def temple_step_reward(self, temple: str, step: int) -> dict[str, int] | None:
        """Printed reward of ``step`` on ``temple``; None for step 0 and the bonus step."""
        reward = self.raw["temples"][temple]["steps"][step]
        return reward if isinstance(reward, dict) else None

    def temple_major_steps(self, temple: str) -> dict[int, str]:
        """Major steps of a temple mapped to their discovery-tile count formula."""
        return {int(k): v for k, v in self.raw["temples"][temple]["major_steps"].items()}

    def avenue_value(self, buildings_taken: int) -> int:
        """Avenue of the Dead value per step once ``buildings_taken`` buildings left the row."""
        values: list[int] = self.raw["buildings"]["avenue_value_by_buildings_taken"]
        return values[buildings_taken]

    def dark_start(self, players: int) -> int:
        """Dark calendar marker at setup (solo counts as 2 players)."""
        return int(self.raw["calendar"]["dark_start"][str(max(players, 2))])

    def dark_after_eclipse(self, eclipse: int, players: int) -> int:
        """Dark calendar marker after the 1st or 2nd eclipse."""
        return int(self.raw["calendar"][f"dark_after_eclipse_{eclipse}"][str(max(players, 2))])

    def mask_set_vp(self, size: int) -> int:
        """VP of one set of ``size`` different masks."""
        table: list[int] = self.raw["mask_set_vp"]
        return table[min(size, len(table) - 1)]


def _board(entry: dict[str, Any]) -> Board:
    return Board(
        number=entry["number"],
        key=entry["key"],
        name=entry["name"],
        main_action=entry.get("main_action"),
        resource=entry.get("resource"),
        worship=entry.get("worship"),
        worship_temple=entry.get("worship_temple"),
        worship_spaces=entry.get("worship_spaces", 0),
    )


@cache
def components() -> Components:
    """The component tables (loaded once; read-only by convention)."""
    text = resources.files(__package__).joinpath("data/components.json").read_text("utf-8")
    raw = json.loads(text)
    boards = {entry["number"]: _board(entry) for entry in raw["boards"]}
    return Components(raw=raw, boards=boards)
