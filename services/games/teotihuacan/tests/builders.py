"""Build Teotihuacan states for tests: a set-up game, then workers and goods placed by hand."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from services.engine.domain.ruleset import DomainEvent, SetupRequest
from services.games.teotihuacan.rules import TeotihuacanRuleset
from services.games.teotihuacan.rules.state import NOT_IN_PLAY, GameState, Player, Worker
from services.games.teotihuacan.rules.tasks import TakeTurn, Task

RULES = TeotihuacanRuleset()


def fold(events: list[DomainEvent], state: GameState | None = None) -> GameState:
    """Fold ``events`` onto ``state`` (None: from the start)."""
    for event in events:
        state = RULES.evolve(state, event)
    assert state is not None
    return state


def new_game(seats: int = 4, seed: int = 0, **options: Any) -> GameState:
    """A first-game setup for ``seats`` seats, waiting on the first seat's turn."""
    return fold(RULES.setup(SetupRequest(seat_count=seats, options=options), random.Random(seed)))


def place(
    state: GameState, seat: int, *workers: tuple[int, int] | tuple[int, int, int]
) -> GameState:
    """Give ``seat`` exactly these workers: (board, power) or (board, power, worship space)."""
    dice = [
        Worker(board=w[0], power=w[1], locked=len(w) == 3, space=w[2] if len(w) == 3 else -1)
        for w in workers
    ]
    dice += [Worker(board=NOT_IN_PLAY, power=3)] * (4 - len(dice))
    return state.with_player(seat, replace(state.players[seat], workers=tuple(dice)))


def goods(state: GameState, seat: int, **amounts: int) -> GameState:
    """Set ``seat``'s goods (cocoa, wood, stone, gold, vp, avenue, pyramid, temples...)."""
    return state.with_player(seat, replace(state.players[seat], **amounts))


def clear_board(state: GameState) -> GameState:
    """Empty every seat (goods, steps, technologies, workers), no neutrals, seat 0 first."""
    players = tuple(Player() for _ in state.players)
    turn_order = tuple(range(state.seat_count))
    state = replace(state, players=players, neutral_workers=(), turn_order=turn_order)
    for seat in range(state.seat_count):
        state = place(state, seat)
    return state


def turn_of(state: GameState, seat: int, agenda: tuple[Task, ...] | None = None) -> GameState:
    """Make it ``seat``'s turn, at the start of its turn unless ``agenda`` is given."""
    return replace(state, current=seat, agenda=agenda or (TakeTurn(seat=seat),))


def play(state: GameState, seat: int, action: dict[str, Any], seed: int = 0) -> GameState:
    """Apply one action and fold its events."""
    return fold(RULES.decide(state, seat, action, random.Random(seed)), state)


def play_all(state: GameState, seat: int, *actions: dict[str, Any]) -> GameState:
    """Apply several actions of one seat in order."""
    for action in actions:
        state = play(state, seat, action)
    return state


def with_buildings(
    state: GameState, top: tuple[int, ...], middle: tuple[int, ...], bottom: tuple[int, ...]
) -> GameState:
    """Nobles rows with buildings on exactly these space indices (0 = leftmost); the count
    of buildings taken from the row is left to the caller."""
    rows = (tuple(sorted(top)), tuple(sorted(middle)), tuple(sorted(bottom)))
    return replace(state, nobles_built=rows, nobles_rows=(len(rows[0]), len(rows[1]), len(rows[2])))


def with_leftmost_buildings(state: GameState, rows: tuple[int, int, int]) -> GameState:
    """Nobles rows holding ``rows`` buildings each, filled from the left (as seats build)."""
    top, middle, bottom = (tuple(range(n)) for n in rows)
    return with_buildings(state, top, middle, bottom)
