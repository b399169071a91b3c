"""Text from the server made safe to print on a terminal, and counted words a person reads.

Names come from other people (seat, player and tournament names). The server refuses
control characters in new names (``name_invalid``), but logs written before that rule
may hold ESC, NUL or OSC sequences that would clear a screen or retitle a window: every
printer escapes them here instead of writing them raw.

Counted things read as a person writes them, "1 card" and "2 cards", never the
developer's "card(s)": :func:`count` and :func:`plural` are the one place every game
and face words them (the web client's twin is clients/web/src/words.ts).
"""

from __future__ import annotations


def printable(text: str) -> str:
    """``text`` with every non-printable character (``str.isprintable`` false: C0/C1
    controls such as ESC and NUL, line separators, unassigned code points) written as a
    visible escape: ``\\x1b``, ``\\x00``, ``\\u2028``. Printable text is returned as is."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def plural(n: int, one: str, many: str | None = None) -> str:
    """The noun agreeing with ``n``: ``one`` for exactly 1, else ``many`` (an irregular
    plural such as ``"people"``), by default ``one`` with an "s": ``plural(2, "worker")``
    is ``"workers"``, ``plural(0, "worker")`` too."""
    if n == 1:
        return one
    return many if many is not None else f"{one}s"


def count(n: int, one: str, many: str | None = None) -> str:
    """``n`` and the noun agreeing with it: ``count(1, "card")`` is ``"1 card"``,
    ``count(2, "card")`` and ``count(0, "card")`` are ``"2 cards"`` and ``"0 cards"``;
    ``many`` names an irregular plural (``count(3, "person", "people")``)."""
    return f"{n} {plural(n, one, many)}"
