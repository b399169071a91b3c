"""Archaeology's numbers, read from ``data/components.json`` (RULES.md A1, A6, A7, E1).

Every number the engine uses comes from that file: card counts, trade values, sale tables,
thieves and sandstorms per seat count, the ruins and the variants. Trade values, sale
tables and sandstorms per seat count are provisional (E1): correcting them from the printed
cards is an edit of the JSON alone. The file is our copy of the contract's
``components.json``; ``confirmed`` flags say which numbers are checked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from .cards import Cards, one


@dataclass(frozen=True, slots=True)
class Ruin:
    """One ruin tile (RULES.md A6).

    Attributes:
        name: the ruin's id, e.g. ``"pyramid"``.
        rooms: cards dealt into each room at setup, room I first.
        maps: maps an exploration costs.
        face_up: room cards lie face up (buried ruins) instead of face down.
        reserve: face-down reserve pile dealt after the rooms (buried ruins, E6).
        special: the ruin's special rule id, or None (pyramid).
        params: the special rule's numbers (e.g. ``{"take": 2}`` at the tomb).
    """

    name: str
    rooms: tuple[int, ...]
    maps: int
    face_up: bool
    reserve: int
    special: str | None
    params: dict[str, int]


@dataclass(frozen=True, slots=True)
class Components:
    """The game's components as the engine uses them.

    Treasure kinds are indexed in the file's order; every card multiset in the state is a
    tuple of counts in that order.

    Attributes:
        kinds: treasure kind ids, e.g. ``("pottery_shards", ...)``.
        counts: cards of each kind in the box.
        trade: trade value (market price) of one card of each kind.
        sale: sale table of each kind: points for a set of 1, 2, ... cards.
        map_kind: index of the maps kind.
        starting_hand / starting_market: cards dealt to each seat / to the market.
        min_seats / max_seats: seat counts the game supports.
        removed_by_seats: kinds taken out of the game per seat count (A2.1).
        thieves_by_seats / sandstorms_by_seats: special cards in the dig site per seat count.
        thieves_total / sandstorms_total / tents_total: special cards in the box.
        tents_per_seat: tents each seat starts with.
        ruins: the ruin tiles by name, in the file's order.
        long_expedition_seats / long_expedition_keeps / long_expedition_extra_thieves:
            the `long_expedition` variant (A7).
        sand_hell_sandstorms / sand_hell_tent_uses: the `sand_hell` variant (A7).
        indices: each kind id's index in ``kinds`` (derived: the folds and actions name
            kinds by id at every step, and a dict answers faster than ``kinds.index``).
        units: one card of each kind, ``units[k] == cards.one(len(kinds), k)`` (derived,
            for the same reason).
    """

    kinds: tuple[str, ...]
    counts: tuple[int, ...]
    trade: tuple[int, ...]
    sale: tuple[tuple[int, ...], ...]
    map_kind: int
    starting_hand: int
    starting_market: int
    min_seats: int
    max_seats: int
    removed_by_seats: dict[int, tuple[int, ...]]
    thieves_by_seats: dict[int, int]
    sandstorms_by_seats: dict[int, int]
    thieves_total: int
    sandstorms_total: int
    tents_total: int
    tents_per_seat: int
    ruins: dict[str, Ruin]
    long_expedition_seats: tuple[int, ...]
    long_expedition_keeps: tuple[int, ...]
    long_expedition_extra_thieves: int
    sand_hell_sandstorms: int
    sand_hell_tent_uses: int
    indices: dict[str, int]
    units: tuple[Cards, ...]

    @property
    def card_total(self) -> int:
        """Every card in the box: treasures and special cards (106 with the printed numbers)."""
        return sum(self.counts) + self.thieves_total + self.sandstorms_total + self.tents_total

    def kind_index(self, kind: str) -> int:
        """Index of treasure kind ``kind``. Raises KeyError for an unknown kind."""
        return self.indices[kind]


def parse_components(data: dict[str, Any]) -> Components:
    """Build :class:`Components` from the JSON layout of ``components.json``.

    Raises KeyError / ValueError on a file that lacks a field or names an unknown kind.
    """
    treasures = data["treasures"]
    kinds = tuple(str(t["kind"]) for t in treasures)

    def indices(names: list[str]) -> tuple[int, ...]:
        return tuple(kinds.index(name) for name in names)

    specials = data["specials"]
    variants = data["variants"]
    ruins = {
        str(r["ruin"]): Ruin(
            name=str(r["ruin"]),
            rooms=tuple(int(n) for n in r["rooms"]),
            maps=int(r["maps"]),
            face_up=bool(r["face_up"]),
            reserve=int(r["reserve"]),
            special=r["special"],
            params={str(k): int(v) for k, v in r["params"].items()},
        )
        for r in data["ruins"]
    }
    return Components(
        kinds=kinds,
        counts=tuple(int(t["count"]) for t in treasures),
        trade=tuple(int(t["trade"]) for t in treasures),
        sale=tuple(tuple(int(p) for p in t["sale"]) for t in treasures),
        map_kind=kinds.index("maps"),
        starting_hand=int(data["starting_hand"]),
        starting_market=int(data["starting_market"]),
        min_seats=int(data["seats"]["min"]),
        max_seats=int(data["seats"]["max"]),
        removed_by_seats={
            int(n): indices(names) for n, names in data["removed_by_seats"].items() if n.isdigit()
        },
        thieves_by_seats={int(n): int(c) for n, c in specials["thieves"]["by_seats"].items()},
        sandstorms_by_seats={int(n): int(c) for n, c in specials["sandstorms"]["by_seats"].items()},
        thieves_total=int(specials["thieves"]["total"]),
        sandstorms_total=int(specials["sandstorms"]["total"]),
        tents_total=int(specials["tents"]["total"]),
        tents_per_seat=int(specials["tents"]["per_seat"]),
        ruins=ruins,
        long_expedition_seats=tuple(int(n) for n in variants["long_expedition"]["seats"]),
        long_expedition_keeps=indices(variants["long_expedition"]["keeps"]),
        long_expedition_extra_thieves=int(variants["long_expedition"]["extra_thieves"]),
        sand_hell_sandstorms=int(variants["sand_hell"]["sandstorms"]),
        sand_hell_tent_uses=int(variants["sand_hell"]["tent_uses"]),
        indices=_first_indices(kinds),
        units=tuple(one(len(kinds), index) for index in range(len(kinds))),
    )


def _first_indices(kinds: tuple[str, ...]) -> dict[str, int]:
    """``{kind: kinds.index(kind)}`` for every kind."""
    indices: dict[str, int] = {}
    for index, kind in enumerate(kinds):
        indices.setdefault(kind, index)
    return indices


def load_data() -> dict[str, Any]:
    """The raw JSON of the package's ``data/components.json``."""
    text = resources.files(__package__).joinpath("data/components.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def components() -> Components:
    """The components of the package's data file (read once)."""
    return parse_components(load_data())
