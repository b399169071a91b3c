"""Plain words the terminal table uses for any game: seat names and colours, refusals.

Nothing here knows a game: a game's own words (tiles, boards, cards) live in its kit
under :mod:`services.games`.
"""

from __future__ import annotations

import re

from services.engine.domain.event_words import seat_label as seat_label
from services.engine.domain.event_words import with_seat_names as with_seat_names

SEAT_COLOURS: tuple[str, ...] = ("yellow", "magenta", "cyan", "bright_white", "green")
NEUTRAL_COLOUR = "grey50"


def seat_colour(colour: int, seats: int) -> str:
    """Rich style of a colour index (seats first, then neutral colours)."""
    return SEAT_COLOURS[colour % len(SEAT_COLOURS)] if colour < seats else NEUTRAL_COLOUR


def words_of(key: str) -> str:
    """A JSON key or id in words: ``"cards_sold"`` -> ``"cards sold"``."""
    return key.replace("_", " ")


_REPR_DICT = re.compile(r"\{[^{}]*\}")
_REPR_LIST = re.compile(r"\[([^\[\]]*)\]")
_QUOTED = re.compile(r"'([^']*)'")
_ALTERNATIVES = re.compile(r";\s*(possible|legal choices of that kind)\b.*$")


def refusal_words(rule: str, message: str, tried: str) -> str:
    """A refused choice in one sentence of game words, naming the rule.

    ``rule`` is the ErrorInfo reason (e.g. ``free_action_not_allowed``), ``message``
    the server's explanation (which may quote the action as data), ``tried`` the words
    of the choice. The action's data becomes ``tried``; lists of alternatives go (the
    choice list shows what is possible); ``snake_case`` becomes words.
    """
    text = _ALTERNATIVES.sub("", message.strip())
    text = _REPR_DICT.sub(tried, text)
    text = _REPR_LIST.sub(lambda m: _QUOTED.sub(r"\1", m.group(1)), text)
    text = _QUOTED.sub(r"\1", text).replace("_", " ").strip(" ;:")
    reason = rule.replace("_", " ")
    sentence = f"Not possible: {tried}"
    if text:
        sentence += f" ({reason}). {text[0].upper()}{text[1:]}"
    else:
        sentence += f" ({reason})"
    return sentence if sentence.endswith(".") else sentence + "."
