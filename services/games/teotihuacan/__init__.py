"""Teotihuacan: City of Gods (1-4 players, solo opponent Teotibot): rules, bots, terminal kit."""
