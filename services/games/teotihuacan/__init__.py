"""Teotihuacan: City of Gods (1-4 players, solo opponent Teotibot): rules, bots, terminal kit.

``GAME`` is the game's declaration, registered in the entry-point group
``teotihuacan_server.games`` (pyproject.toml); importing it imports no rules.
"""

from services.engine.domain.game_declaration import Capability, GameDeclaration, SoloMode

GAME = GameDeclaration(
    name="teotihuacan",
    title="Teotihuacan: City of Gods",
    ruleset="services.games.teotihuacan.rules:TeotihuacanRuleset",
    min_seats=2,
    max_seats=4,
    solo=SoloMode({"solo": True}, 2, "Teotibot"),  # RULES.md §8: seat 1 is Teotibot
    capabilities=frozenset({Capability.APPLY, Capability.SNAPSHOTS, Capability.BOT_POLICY}),
    # Trained by benchmarks/archive_benchmark.py --train; every one ever shipped stays.
    archive_dictionaries="services.games.teotihuacan:data/archive_dicts",
    tui_kit="services.games.teotihuacan.tui:TeotihuacanKit",
    # The platform's first game: requests naming no ruleset have always played it.
    default=True,
)
"""The declaration of Teotihuacan (see :class:`GameDeclaration`)."""
