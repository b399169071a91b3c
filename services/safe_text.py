"""Text from the server made safe to print on a terminal.

Names come from other people (seat, player and tournament names). The server refuses
control characters in new names (``name_invalid``), but logs written before that rule
may hold ESC, NUL or OSC sequences that would clear a screen or retitle a window: every
printer escapes them here instead of writing them raw.
"""

from __future__ import annotations


def printable(text: str) -> str:
    """``text`` with every non-printable character (``str.isprintable`` false: C0/C1
    controls such as ESC and NUL, line separators, unassigned code points) written as a
    visible escape: ``\\x1b``, ``\\x00``, ``\\u2028``. Printable text is returned as is."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)
