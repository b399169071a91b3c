"""Helpers every game's rules may use: frozen state copies and public-event shapes."""
