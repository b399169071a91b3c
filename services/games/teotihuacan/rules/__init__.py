"""Teotihuacan: City of Gods rules (pure; no I/O). See RULES.md.

Importing the package registers every task's rules (turn, harvest, worship, temples,
power, calendar, discovery tiles, royal tiles) with the decision loop.
"""

from . import (  # noqa: F401  (importing registers each module's rules)
    alchemy,
    calendar,
    construction,
    decorations,
    discovery,
    flips,
    harvest,
    main_action,
    nobles,
    power,
    royal,
    temples,
    turn,
    worship,
)
from .ruleset import TeotihuacanRuleset
from .solo import turn as solo_turn  # noqa: F401  (registers Teotibot's turn, RULES.md §8)

__all__ = ["TeotihuacanRuleset"]
