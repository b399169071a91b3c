"""Player names: one identity per name however it is spelt, the display form kept.

A name's identity is :func:`name_key`: Unicode NFKC (full-width letters, ligatures and
compatibility forms to their plain letters), surrounding white space trimmed, and
case-folded (``"Ann "``, ``"ann"`` and a full-width ``"ANN"`` are one player;
``"Straße"`` and ``"STRASSE"`` too). The display form is the name as first registered,
trimmed. One rule for player accounts and tournament entrants (services.tournament).

Tournament logs keep the display form (``PlayerRegistered.player``), and folding compares
names exactly as it always did, so a log written before identities were normalised, which
may hold two names of one identity, folds as before (docs/events.md, "Tournaments"). Only
the decisions (register, withdraw) and the cross-tournament name claim
(services.tournament.repository) compare identities.
"""

from __future__ import annotations

import unicodedata

from services.players.errors import InvalidPlayer

MAX_NAME_LENGTH = 60
"""Characters of a display name (after trimming), as a seat's or a tournament player's."""
BOT_PREFIX = "bot:"
"""Names starting so are the tournaments' bot entrants (``bot:<name>``), never an account."""
NAME_RULE = "player_name"


def name_key(name: str) -> str:
    """The identity of the player name ``name`` (NFKC, trimmed, case-folded, NFKC again
    since case folding can leave a string unnormalised)."""
    folded = unicodedata.normalize("NFKC", name).strip().casefold()
    return unicodedata.normalize("NFKC", folded).strip()


def display_name(name: str) -> str:
    """``name`` trimmed, if an account may be registered under it: 1 to
    MAX_NAME_LENGTH printable characters (``str.isprintable``: no control characters,
    no line separators), an identity that is not empty, and not starting with
    BOT_PREFIX. Raises InvalidPlayer ``player_name``."""
    display = name.strip()
    if not 1 <= len(display) <= MAX_NAME_LENGTH or not display.isprintable():
        raise InvalidPlayer(
            NAME_RULE, f"a player name is 1 to {MAX_NAME_LENGTH} printable characters"
        )
    if not name_key(display):
        raise InvalidPlayer(NAME_RULE, "a player name needs a visible character")
    if name_key(display).startswith(BOT_PREFIX):
        raise InvalidPlayer(
            NAME_RULE, f"a player name may not start with {BOT_PREFIX!r} (tournament bots)"
        )
    return display
