"""Archaeology: The New Expedition (2-5 players): rules, bots, terminal kit.

``GAME`` is the game's declaration, registered in the entry-point group
``teotihuacan_server.games`` (pyproject.toml); importing it imports no rules.
"""

from services.engine.domain.game_declaration import Capability, GameDeclaration

GAME = GameDeclaration(
    name="archaeology",
    title="Archaeology: The New Expedition",
    ruleset="services.games.archaeology.rules:ArchaeologyRuleset",
    # The seat counts of rules/data/components.json (tests/games check they agree).
    min_seats=2,
    max_seats=5,
    capabilities=frozenset({Capability.APPLY, Capability.SNAPSHOTS, Capability.BOT_POLICY}),
    # Trained by benchmarks/archive_benchmark.py --train; every one ever shipped stays.
    archive_dictionaries="services.games.archaeology:data/archive_dicts",
    tui_kit="services.games.archaeology.tui:ArchaeologyKit",
)
"""The declaration of Archaeology (see :class:`GameDeclaration`)."""
