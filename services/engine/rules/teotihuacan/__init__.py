"""Teotihuacan: City of Gods rules (pure; no I/O). See RULES.md.

Importing the package registers every task's rules (turn, harvest, worship, temples,
power, calendar) with the decision loop.
"""

from . import calendar, harvest, power, temples, turn, worship  # noqa: F401  (registration)
from .ruleset import TeotihuacanRuleset

__all__ = ["TeotihuacanRuleset"]
