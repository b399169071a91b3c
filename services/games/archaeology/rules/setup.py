"""Setting up an expedition (RULES.md A2, A7, E6, E7).

Every card is dealt from multisets with the engine's rng, and the whole opening layout is
written into one ``ExpeditionSetUp`` event: its public payload holds the market, every
pile's size and the face-up rooms; the hands, face-down rooms, the reserve and the dig
site's contents are sealed (A5; the log holds commitments, revealed at the end).
"""

from __future__ import annotations

import random
from typing import Any

from services.engine.domain.ruleset import DomainEvent, Sealed

from . import cards as c
from .components import Components
from .evolve import DIG_SITE_ID, RESERVE_ID, ROOMS_ID, hand_id
from .options import ArchaeologyOptions


def set_up(
    comp: Components, seat_count: int, options: ArchaeologyOptions, rng: random.Random
) -> list[DomainEvent]:
    """The opening event for ``seat_count`` seats (already validated by parse_options)."""
    kinds = len(comp.kinds)
    ruin_name = options.ruin or rng.choice(sorted(comp.ruins))
    ruin = comp.ruins[ruin_name]
    removed_kinds = set(comp.removed_by_seats.get(seat_count, ()))
    if options.long_expedition:
        removed_kinds -= set(comp.long_expedition_keeps)
    removed = tuple(comp.counts[k] if k in removed_kinds else 0 for k in range(kinds))
    in_play = c.sub(comp.counts, removed)
    maps = c.one(kinds, comp.map_kind, in_play[comp.map_kind])
    deck = c.sub(in_play, maps)  # A2.1: the treasure deck, without the maps

    hands = []
    for _ in range(seat_count):
        hand = c.draw_many(deck, comp.starting_hand, rng)
        deck = c.sub(deck, hand)
        hands.append(hand)
    market = c.draw_many(deck, comp.starting_market, rng)
    deck = c.sub(deck, market)
    rooms = []
    for size in ruin.rooms:
        room = c.draw_many(deck, size, rng)
        deck = c.sub(deck, room)
        rooms.append(room)
    reserve = c.draw_many(deck, ruin.reserve, rng)
    deck = c.sub(deck, reserve)

    thieves = comp.thieves_by_seats[seat_count]
    if options.long_expedition:
        thieves += comp.long_expedition_extra_thieves
    sandstorms = (
        comp.sand_hell_sandstorms if options.sand_hell else comp.sandstorms_by_seats[seat_count]
    )
    first_seat = _first_seat(comp, hands, options, rng)
    names = comp.kinds
    payload: dict[str, Any] = {
        "seats": seat_count,
        "ruin": ruin_name,
        "options": {
            "ruin": ruin_name,
            "long_expedition": options.long_expedition,
            "sand_hell": options.sand_hell,
            "lucky_beginner": options.lucky_beginner,
        },
        "first_seat": first_seat,
        "tent_uses": comp.tents_per_seat * (comp.sand_hell_tent_uses if options.sand_hell else 1),
        "market": c.to_json(market, names),
        "dig_thieves": thieves,
        "dig_sandstorms": sandstorms,
        "removed": c.to_json(removed, names),
        "hand_sizes": [c.size(h) for h in hands],
        "room_sizes": [c.size(r) for r in rooms],
        "reserve_size": c.size(reserve),
        "dig_site_size": c.size(deck) + c.size(maps) + thieves + sandstorms,
    }
    room_cards = [c.to_json(r, names) for r in rooms]
    # A5: hands, face-down rooms, the reserve and the dig site are hidden: the log holds
    # commitments to them (revealed at the end); each seat may see its own hand.
    sealed = {hand_id(s): Sealed(c.to_json(h, names), (s,)) for s, h in enumerate(hands)}
    sealed[RESERVE_ID] = Sealed(c.to_json(reserve, names), ())
    sealed[DIG_SITE_ID] = Sealed(c.to_json(c.add(deck, maps), names), ())
    if ruin.face_up:
        payload["rooms"] = room_cards
    else:
        sealed[ROOMS_ID] = Sealed(room_cards, ())
    return [DomainEvent("ExpeditionSetUp", payload, sealed=sealed)]


def _first_seat(
    comp: Components, hands: list[c.Cards], options: ArchaeologyOptions, rng: random.Random
) -> int:
    """A random seat (E7), or with `lucky_beginner` the lowest starting trade value (ties
    drawn at random, A7)."""
    if not options.lucky_beginner:
        return rng.randrange(len(hands))
    values = [c.value(hand, comp.trade) for hand in hands]
    lowest = min(values)
    return rng.choice([s for s, v in enumerate(values) if v == lowest])
