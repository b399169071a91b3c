"""``GameDeclaration``: the one object a game exports so the platform can find and run it.

A game is one folder (``services/games/<name>/`` for the shipped ones, or a package of
its own distribution). Its package exports ``GAME: GameDeclaration`` and names it in the
entry-point group :data:`ENTRY_POINT_GROUP`::

    [project.entry-points."teotihuacan_server.games"]
    nim = "nim_game:GAME"

The declaration is data: name, title, seats, solo mode, the optional ruleset methods the
game implements (:class:`Capability`, instead of the platform discovering them with
``getattr``) and import strings for its rules and terminal kit, loaded only on use, so
reading the declarations of every installed game imports no rules (the registry in
:mod:`services.engine.domain.rulesets` builds a ruleset the first time a game needs one).
The ruleset class names the same object in its ``declaration`` attribute, so code holding
a ruleset reads its capabilities without the registry (OpenSpiel's ``game.get_type()``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from services.engine.domain.ruleset import Capability, RulesetInfo, SoloMode

__all__ = [
    "ENTRY_POINT_GROUP",
    "Capability",
    "GameDeclaration",
    "InvalidDeclaration",
    "SoloMode",
]

ENTRY_POINT_GROUP = "teotihuacan_server.games"
"""The ``importlib.metadata`` entry-point group every installed game registers in."""

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
# "package.module:attr", as entry points and lazy_factory spell an object.
_TARGET = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
# "package:folder/inside", a folder of package data (no "..", no leading "/").
_RESOURCE = re.compile(r"^[A-Za-z_][\w.]*:(?!/)(?!.*\.\.)[\w./-]+$")


class InvalidDeclaration(ValueError):
    """A game declaration that the platform cannot use (the message names the field)."""


@dataclass(frozen=True, slots=True)
class GameDeclaration:
    """What the platform knows of one game before importing its rules.

    Attributes:
        name: the ruleset name games are created with (``CreateGame.ruleset``), stored in
            every game's log: lower-case letters, digits and ``_``, starting with a letter,
            at most 40 characters (it is also a Redis key part and a CLI argument).
        title: the game's name for people, e.g. ``"Nim"``.
        ruleset: ``"package.module:ClassName"`` of the :class:`Ruleset` class (built
            with no arguments, imported on first use).
        min_seats / max_seats: seat counts of a multiplayer game (1 <= min <= max <= 8).
        solo: how one person plays alone against the game's own opponent, or None.
        capabilities: the optional ruleset methods the class implements (checked when the
            ruleset is built: declaring one it lacks is an error).
        tui_kit: ``"package.module:ClassName"`` of the game's terminal kit (a
            ``services.tui.kit.TableKit`` subclass), or None for the generic table.
        default: True for the game a request naming no ruleset plays (at most one
            installed game should say so; see ``rulesets.default_ruleset``).
        archive_dictionaries: ``"package:folder"``, the folder of package data holding
            the game's zstd dictionaries for ``z3`` archives, one file ``<id>.zdict``
            each (``services.engine.adapters.archive_dicts``), or None for none.

    Raises:
        InvalidDeclaration: from the constructor, naming the field that is wrong.
    """

    name: str
    title: str
    ruleset: str
    min_seats: int
    max_seats: int
    solo: SoloMode | None = None
    capabilities: frozenset[Capability] = field(default_factory=frozenset)
    tui_kit: str | None = None
    default: bool = False
    archive_dictionaries: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise InvalidDeclaration(
                f"game name {self.name!r}: lower-case letters, digits and '_', starting "
                "with a letter, at most 40 characters"
            )
        if not isinstance(self.title, str) or not self.title.strip():
            raise InvalidDeclaration(f"game {self.name!r}: title must be a non-empty string")
        for label, target in (("ruleset", self.ruleset), ("tui_kit", self.tui_kit)):
            if target is not None and (not isinstance(target, str) or not _TARGET.match(target)):
                raise InvalidDeclaration(
                    f"game {self.name!r}: {label} {target!r} is not 'package.module:Name'"
                )
        folder = self.archive_dictionaries
        if folder is not None and (not isinstance(folder, str) or not _RESOURCE.match(folder)):
            raise InvalidDeclaration(
                f"game {self.name!r}: archive_dictionaries {folder!r} is not 'package:folder'"
            )
        seats = (self.min_seats, self.max_seats)
        if any(type(n) is not int for n in seats) or not 1 <= self.min_seats <= self.max_seats <= 8:
            raise InvalidDeclaration(
                f"game {self.name!r}: seats must satisfy 1 <= min_seats <= max_seats <= 8, "
                f"not {self.min_seats}..{self.max_seats}"
            )
        if self.solo is not None and not 1 <= self.solo.seats <= self.max_seats:
            raise InvalidDeclaration(
                f"game {self.name!r}: a solo game's {self.solo.seats} seats must be 1 to "
                f"max_seats ({self.max_seats})"
            )
        capabilities = frozenset(self.capabilities)
        unknown = [c for c in capabilities if not isinstance(c, Capability)]
        if unknown:
            raise InvalidDeclaration(
                f"game {self.name!r}: unknown capabilities {unknown!r}; known: "
                f"{', '.join(c.value for c in Capability)}"
            )
        object.__setattr__(self, "capabilities", capabilities)  # a set given: frozen here

    @property
    def info(self) -> RulesetInfo:
        """Title, seat counts and solo mode as clients read them (``ListRulesets``)."""
        return RulesetInfo(self.title, self.min_seats, self.max_seats, self.solo)

    def has(self, capability: Capability) -> bool:
        """True if the game declares ``capability``."""
        return capability in self.capabilities


def missing_methods(declaration: GameDeclaration, ruleset: object) -> list[str]:
    """The methods ``declaration``'s capabilities promise that ``ruleset`` lacks (empty when
    the declaration is honest). The one place a method is looked up by name: the registry
    checks each ruleset once, when it builds it."""
    wanted: Iterable[str] = (
        method for capability in declaration.capabilities for method in capability.methods
    )
    return sorted(m for m in set(wanted) if not callable(getattr(ruleset, m, None)))
