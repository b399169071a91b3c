"""Registry of rulesets by name, built from the games installed in this environment.

Every game declares itself (:class:`GameDeclaration`) in the entry-point group
``teotihuacan_server.games`` (``ENTRY_POINT_GROUP``); :func:`default_registry` reads the
declarations (which import no rules) and builds each ruleset the first time it is asked
for. Tests and ``teoti serve --extra-ruleset`` add more with :meth:`RulesetRegistry.register`.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterable
from importlib.metadata import EntryPoint, entry_points
from typing import Any

import structlog

from services.engine.domain.errors import UnknownRuleset
from services.engine.domain.game_declaration import (
    ENTRY_POINT_GROUP,
    GameDeclaration,
    missing_methods,
)
from services.engine.domain.ruleset import Ruleset

log = structlog.get_logger(__name__)

RulesetFactory = Callable[[], Ruleset[Any]]


def load_object(target: str) -> Any:
    """The object ``"package.module:attr"`` names (imports the module). Raises ImportError
    or AttributeError."""
    module_name, _, attr = target.partition(":")
    return getattr(importlib.import_module(module_name), attr)


def lazy_factory(target: str) -> RulesetFactory:
    """Factory importing ``"package.module:ClassName"`` only when first called.

    The import happens inside the call so a registry can name a ruleset whose code is
    not written yet (or is heavy) without failing at startup.
    """

    def factory() -> Ruleset[Any]:
        ruleset: Ruleset[Any] = load_object(target)()
        return ruleset

    return factory


class RulesetRegistry:
    """Maps ruleset names to factories; builds each ruleset once and caches it.

    A name registered from a :class:`GameDeclaration` (:meth:`register_game`) answers
    :meth:`declaration` without importing its rules.
    """

    def __init__(self) -> None:
        self._factories: dict[str, RulesetFactory] = {}
        self._instances: dict[str, Ruleset[Any]] = {}
        self._declarations: dict[str, GameDeclaration] = {}

    def register(self, name: str, factory: RulesetFactory) -> None:
        """Register (or replace) ``name``, built by ``factory`` (e.g. a ruleset class);
        its declaration is the built ruleset's ``declaration``."""
        self._factories[name] = factory
        self._instances.pop(name, None)
        self._declarations.pop(name, None)

    def register_game(self, declaration: GameDeclaration) -> None:
        """Register (or replace) the game ``declaration`` (its rules imported on first use)."""
        self.register(declaration.name, lazy_factory(declaration.ruleset))
        self._declarations[declaration.name] = declaration

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self._factories)

    def get(self, name: str) -> Ruleset[Any]:
        """The ruleset ``name``. Raises UnknownRuleset if unregistered or not importable,
        or if it does not implement what its declaration promises."""
        if name in self._instances:
            return self._instances[name]
        factory = self._factories.get(name)
        if factory is None:
            known = ", ".join(self.names()) or f"none (no entry point in {ENTRY_POINT_GROUP!r})"
            raise UnknownRuleset(f"unknown ruleset {name!r}; known: {known}")
        try:
            ruleset = factory()
        except (ImportError, AttributeError) as exc:
            raise UnknownRuleset(f"ruleset {name!r} is not available: {exc}") from exc
        self._check(name, ruleset)
        self._instances[name] = ruleset
        return ruleset

    def declaration(self, name: str) -> GameDeclaration:
        """The declaration of ``name`` (title, seats, solo mode, capabilities, kit).
        Raises UnknownRuleset as :meth:`get` does."""
        declared = self._declarations.get(name)
        if declared is not None:
            return declared
        own = self.get(name).declaration
        if not isinstance(own, GameDeclaration):  # get() checked it; this tells mypy
            raise UnknownRuleset(f"ruleset {name!r} has no GameDeclaration 'declaration'")
        return own

    def declarations(self) -> list[GameDeclaration]:
        """Declarations of every registered name that can be loaded, sorted by name (one
        that cannot is logged and left out, so one broken game hides no other)."""
        found = []
        for name in self.names():
            try:
                found.append(self.declaration(name))
            except UnknownRuleset as error:
                log.error("ruleset_not_available", ruleset=name, error=str(error))
        return found

    def _check(self, name: str, ruleset: Ruleset[Any]) -> None:
        declared = self._declarations.get(name)
        own = getattr(ruleset, "declaration", None)
        if not isinstance(own, GameDeclaration):
            raise UnknownRuleset(f"ruleset {name!r} has no GameDeclaration 'declaration'")
        if declared is not None and own != declared:
            raise UnknownRuleset(
                f"ruleset {name!r}: its class declares {own.name!r}, not the installed game"
            )
        if not name == ruleset.name == own.name:  # the name games are logged and folded by
            raise UnknownRuleset(
                f"ruleset {name!r}: its name is {ruleset.name!r} and its declaration's "
                f"{own.name!r}; all three must agree"
            )
        missing = missing_methods(own, ruleset)
        if missing:
            raise UnknownRuleset(
                f"ruleset {name!r} declares capabilities it lacks: {', '.join(missing)}"
            )


def _load_entry_point(entry: EntryPoint) -> GameDeclaration | None:
    """The declaration ``entry`` names, or None (logged) if it cannot be loaded or is not
    a valid declaration named as its entry point."""
    try:
        declaration = entry.load()
    except Exception as error:  # a broken game must not take the others down
        log.error(
            "game_entry_point_broken", entry_point=entry.name, value=entry.value, error=repr(error)
        )
        return None
    if not isinstance(declaration, GameDeclaration):
        log.error(
            "game_entry_point_not_a_declaration",
            entry_point=entry.name,
            value=entry.value,
            type=type(declaration).__name__,
        )
        return None
    if declaration.name != entry.name:
        log.error("game_entry_point_misnamed", entry_point=entry.name, game=declaration.name)
        return None
    return declaration


def declarations_from(entries: Iterable[EntryPoint]) -> tuple[GameDeclaration, ...]:
    """The valid, distinct game declarations of ``entries``, sorted by name. A name
    declared twice keeps its first entry point in ``(name, value)`` order and logs the
    others (an environment with two distributions of one game is a packaging error)."""
    games: dict[str, GameDeclaration] = {}
    for entry in sorted(entries, key=lambda e: (e.name, e.value)):
        declaration = _load_entry_point(entry)
        if declaration is None:
            continue
        if declaration.name in games:
            log.error("game_declared_twice", game=declaration.name, ignored=entry.value)
            continue
        games[declaration.name] = declaration
    return tuple(games[name] for name in sorted(games))


@functools.cache
def installed_games() -> tuple[GameDeclaration, ...]:
    """Declarations of every game installed in this environment (entry-point group
    ``teotihuacan_server.games``), sorted by name; read once per process."""
    return declarations_from(entry_points(group=ENTRY_POINT_GROUP))


def default_ruleset(games: Iterable[GameDeclaration] | None = None) -> str:
    """The ruleset a request naming none plays: the game declaring ``default=True`` among
    ``games`` (default: the installed ones), else the first by name. Several defaults are
    a packaging error: logged, and the first by name of them wins. Raises UnknownRuleset
    when there is no game at all."""
    listed = sorted(installed_games() if games is None else games, key=lambda g: g.name)
    if not listed:
        raise UnknownRuleset(
            f"no game is installed (entry-point group {ENTRY_POINT_GROUP!r}): install the "
            "server (pip install -e . in a checkout) so its games' entry points are registered"
        )
    flagged = [g.name for g in listed if g.default]
    if len(flagged) > 1:
        log.error("several_default_games", games=flagged, chosen=flagged[0])
    return flagged[0] if flagged else listed[0].name


def default_registry() -> RulesetRegistry:
    """A registry of every installed game (:func:`installed_games`), none imported yet."""
    registry = RulesetRegistry()
    for declaration in installed_games():
        registry.register_game(declaration)
    return registry
