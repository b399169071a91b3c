"""Each game's own terminal-table kit (panels and words), one package per ruleset name.

Registered in :data:`services.tui.kit.KITS`; a game without one plays on the generic table.
"""
