"""Archaeology: The New Expedition rules (pure; no I/O). See shared/rules/archaeology/RULES.md."""

from .ruleset import ArchaeologyRuleset

__all__ = ["ArchaeologyRuleset"]
