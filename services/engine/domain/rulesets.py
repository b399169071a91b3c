"""Registry of rulesets by name; ``teotihuacan`` and ``archaeology`` are registered lazily
(imported on use)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from services.engine.domain.errors import UnknownRuleset
from services.engine.domain.ruleset import Ruleset

DEFAULT_RULESET = "teotihuacan"
"""Ruleset used when a request names none."""

RulesetFactory = Callable[[], Ruleset[Any]]


def lazy_factory(target: str) -> RulesetFactory:
    """Factory importing ``"package.module:ClassName"`` only when first called.

    The import happens inside the call so a registry can name a ruleset whose code is
    not written yet (or is heavy) without failing at startup.
    """

    def factory() -> Ruleset[Any]:
        module_name, _, attr = target.partition(":")
        cls = getattr(importlib.import_module(module_name), attr)
        ruleset: Ruleset[Any] = cls()
        return ruleset

    return factory


class RulesetRegistry:
    """Maps ruleset names to factories; builds each ruleset once and caches it."""

    def __init__(self) -> None:
        self._factories: dict[str, RulesetFactory] = {}
        self._instances: dict[str, Ruleset[Any]] = {}

    def register(self, name: str, factory: RulesetFactory) -> None:
        """Register (or replace) ``name``."""
        self._factories[name] = factory
        self._instances.pop(name, None)

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self._factories)

    def get(self, name: str) -> Ruleset[Any]:
        """The ruleset ``name``. Raises UnknownRuleset if unregistered or not importable."""
        if name in self._instances:
            return self._instances[name]
        factory = self._factories.get(name)
        if factory is None:
            raise UnknownRuleset(f"unknown ruleset {name!r}; known: {', '.join(self.names())}")
        try:
            ruleset = factory()
        except (ImportError, AttributeError) as exc:
            raise UnknownRuleset(f"ruleset {name!r} is not available: {exc}") from exc
        self._instances[name] = ruleset
        return ruleset


def default_registry() -> RulesetRegistry:
    """A registry with every ruleset shipped in ``services/engine/domain/rules_support``."""
    registry = RulesetRegistry()
    registry.register(
        DEFAULT_RULESET, lazy_factory("services.games.teotihuacan.rules:TeotihuacanRuleset")
    )
    registry.register(
        "archaeology", lazy_factory("services.games.archaeology.rules:ArchaeologyRuleset")
    )
    return registry
