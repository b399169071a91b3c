"""Tournament player names: one identity per name however it is spelt, the display kept.

A player's identity is :func:`name_key` of the name: Unicode NFKC (full-width letters,
ligatures and compatibility forms to their plain letters), surrounding white space
trimmed, and case-folded (``"Ann "``, ``"ann"`` and the full-width ``"ANN"`` are one player;
``"Straße"`` and ``"STRASSE"`` too). The display form is the name as first registered,
trimmed; logs and standings show it.

Logs keep the display form (``PlayerRegistered.player``), and folding compares names
exactly as it always did, so a log written before identities were normalised, which
may hold two names of one identity, folds as before (docs/events.md, "Tournaments").
Only the decisions (register, withdraw) and the cross-tournament name claim
(services.tournament.repository) compare identities.
"""

from __future__ import annotations

import unicodedata


def name_key(name: str) -> str:
    """The identity of the player name ``name`` (NFKC, trimmed, case-folded, NFKC again
    since case folding can leave a string unnormalised)."""
    folded = unicodedata.normalize("NFKC", name).strip().casefold()
    return unicodedata.normalize("NFKC", folded).strip()
