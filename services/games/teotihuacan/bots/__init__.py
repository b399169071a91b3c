"""Teotihuacan's bots: Teotibot's turn in solo games (RULES.md §8) and greedy play for the
bot seats of multiplayer games. The bot worker finds them through
``TeotihuacanRuleset.bot_policy``; nothing outside this package imports them."""

from .greedy import GreedyPolicy
from .teotibot import TeotibotPolicy, TeotihuacanBot

__all__ = ["GreedyPolicy", "TeotibotPolicy", "TeotihuacanBot"]
