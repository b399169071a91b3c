"""The printed faces a client needs to draw what the view shows (issue 33).

The view names components by number (board 5, pyramid tile 27, technology 3); a client
drawing the table would otherwise carry its own copy of ``components.json``. This adds,
under the view's ``"printed"`` key, the printed faces of exactly the components on the
table or in a hand the viewer may see, so nothing in a bag or a hidden hand leaks.
"""

from __future__ import annotations

from typing import Any

from .components import NOT_A_TILE, components
from .state import GameState

PrintedFaces = dict[str, Any]


def _discovery_ids(state: GameState) -> set[int]:
    """Discovery tiles face up on the board or owned by a seat (owned tiles are public)."""
    ids: set[int] = {t for t in state.worship_discoveries if t != NOT_A_TILE}
    ids.update(t for step in state.avenue_discoveries for t in step)
    ids.update(t for temple in state.temple_discoveries for step in temple for t in step)
    for player in state.players:
        ids.update(player.discoveries)
        ids.update(player.used_discoveries)
        ids.update(player.masks)
    ids.update(state.discarded_discoveries)
    return ids


def _discovery(entry: dict[str, Any]) -> dict[str, Any]:
    face = {"kind": entry["kind"], "cost": entry.get("cost", {})}
    for key in ("mask", "amount", "temple"):
        if key in entry:
            face[key] = entry[key]
    return face


def printed_faces(state: GameState) -> PrintedFaces:
    """The faces of the components in view, keyed by what the view calls them.

    Returns a dict with:
        boards: display names indexed by printed board number (index 0: "").
        pyramid_grid: the 8 rows of the pyramid's printed icons ("b", "r", "g", "-").
        pyramid_levels: per level, its size (slots a side), cost and VP.
        pyramid_tiles: {tile id: its quadrants TL, TR, BR, BL} for placed and offered tiles
            (upper case: a coloured icon), as strings keyed by id (JSON keys).
        decoration_tiles: {tile id: its two icons} for placed and offered decorations.
        technologies: per slot of the technology board, its number, gold cost and text.
        royal_tiles, temple_bonus_tiles: the text of each tile in play, in the view's order.
        discoveries: {tile id: kind, cost and amount/mask/temple} for tiles in view.
        nobles_rows: VP of each building space, per row (top, middle, bottom).
        temple_steps: per temple, the printed reward of each step (None: none printed).
    """
    raw = components().raw
    pyramid = raw["pyramid"]
    placed = {tile for _, _, _, tile, _ in state.pyramid_tiles} | set(state.pyramid_offer)
    decorations = {tile for _, _, tile in state.decorations} | set(state.decoration_offer)
    technologies = raw["technologies"]
    return {
        "boards": [""] + [components().board(n).name for n in range(1, 9)],
        "pyramid_grid": pyramid["grid"],
        "pyramid_levels": pyramid["levels"],
        "pyramid_tiles": {str(t): pyramid["tiles"][t] for t in sorted(placed) if t != NOT_A_TILE},
        "decoration_tiles": {
            str(t): raw["decorations"]["tiles"][t] for t in sorted(decorations) if t != NOT_A_TILE
        },
        "technologies": [
            {k: technologies[t][k] for k in ("number", "cost_gold", "text")}
            for t in state.technologies
        ],
        "royal_tiles": [raw["royal_tiles"][t]["text"] for t in state.royal_tiles],
        "temple_bonus_tiles": [raw["temple_bonus_tiles"][t]["text"] for t in state.temple_bonus],
        "discoveries": {
            str(t): _discovery(raw["discovery_tiles"][t]) for t in sorted(_discovery_ids(state))
        },
        "nobles_rows": [raw["nobles_rows"][row] for row in ("top", "middle", "bottom")],
        "temple_steps": {
            temple: [s if isinstance(s, dict) else None for s in raw["temples"][temple]["steps"]]
            for temple in ("blue", "red", "green")
        },
    }
