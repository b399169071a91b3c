"""Archaeology's bot policies (the bot worker's, not the rules)."""
