"""Neutral workers for 2 and 3 players (RULES.md §1.2.6, D2)."""

from __future__ import annotations

import random

from .components import components

NEUTRAL_WORKERS_PER_COLOUR = 3


def neutral_colour_count(seat_count: int) -> int:
    """Neutral colours in play: two for 2 players (and solo), one for 3, none for 4."""
    return {1: 2, 2: 2, 3: 1}.get(seat_count, 0)


def draw_neutral_placement(
    rng: random.Random,
    first_colour: int,
    colours: int,
    excluded_tiles: frozenset[int] = frozenset(),
) -> tuple[list[list[int]], list[int]]:
    """Draw starting tiles and place each neutral colour's 3 workers.

    Each colour draws starting tiles (2, and more only if they print fewer than 3
    different boards) and takes the first 3 different board numbers in printed order.

    Returns:
        ``([[colour, board], ...], [starting tile ids drawn])``.
    """
    deck = [t["id"] for t in components().raw["starting_tiles"] if t["id"] not in excluded_tiles]
    rng.shuffle(deck)
    boards_of = {t["id"]: t["boards"] for t in components().raw["starting_tiles"]}
    placed: list[list[int]] = []
    drawn: list[int] = []
    for colour in range(first_colour, first_colour + colours):
        boards: list[int] = []
        tiles_for_colour = 0
        while len(boards) < NEUTRAL_WORKERS_PER_COLOUR or tiles_for_colour < 2:
            tile = deck.pop()
            drawn.append(tile)
            tiles_for_colour += 1
            for board in boards_of[tile]:
                if board not in boards and len(boards) < NEUTRAL_WORKERS_PER_COLOUR:
                    boards.append(board)
        placed.extend([colour, board] for board in boards)
    return placed, drawn
