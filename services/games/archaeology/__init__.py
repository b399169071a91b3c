"""Archaeology: The New Expedition (2-5 players): rules, bots, terminal kit."""
