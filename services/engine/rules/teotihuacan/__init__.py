"""Teotihuacan: City of Gods rules (pure; no I/O). See RULES.md.

Importing the package registers every task's rules (turn, harvest, worship, temples,
power, calendar) with the decision loop.
"""

from . import (  # noqa: F401  (importing registers each module's rules)
    alchemy,
    calendar,
    construction,
    decorations,
    harvest,
    main_action,
    nobles,
    power,
    temples,
    turn,
    worship,
)
from .ruleset import TeotihuacanRuleset

__all__ = ["TeotihuacanRuleset"]
