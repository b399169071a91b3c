"""Who acts, what they may do, and what their actions cause (RULES.md A3-A8).

Actions are JSON objects with a ``type``:

- ``{"type": "dig"}``: the turn's compulsory dig (A3.1), again after a sandstorm.
- ``{"type": "rob", "victim": s}``: a thief's victim (E2).
- ``{"type": "tent", "use": bool}``: a sandstorm's tent declaration (E11).
- ``{"type": "lose", "kind": k}``: one card lost to a sandstorm (E3).
- ``{"type": "offer", "kind": k}`` / ``{"type": "choose", "kind": k}`` /
  ``{"type": "confirm_trade"}`` / ``{"type": "cancel_trade"}``: a market trade (E8).
- ``{"type": "explore", "room": r}`` (sphinx: ``"named": [k1, k2]``): an exploration.
- ``{"type": "take", "cards": {k: n}}``: the tomb's choice (A6.3).
- ``{"type": "mine", "go": bool}``: reveal the mine's next card, or stop and take (A6.4).
- ``{"type": "sell", "kind": k, "count": n}``: a museum sale (A3.2).
- ``{"type": "peek", "room": r}`` / ``{"type": "no_peek"}``: the temple's peek (A6.2).
- ``{"type": "end_turn"}``: end the turn (a pass when nothing was done, A4).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from services.engine.domain.ruleset import JsonDict

from . import cards as c
from . import dig, market, museum, ruins, turn
from .components import Components
from .play import Play, refuse
from .state import (
    GameState,
    MinePending,
    PeekPending,
    SandstormPending,
    ThiefPending,
    TombPending,
    TradePending,
)


def seats_to_act(state: GameState) -> tuple[int, ...]:
    """The seat whose decision the game waits for (empty once over)."""
    if state.ended:
        return ()
    pending = state.pending
    if isinstance(pending, SandstormPending):
        seat = dig.sandstorm_seat(pending)
        return () if seat is None else (seat,)
    return (state.turn.seat,)


def legal_actions(comp: Components, state: GameState, seat: int) -> list[JsonDict]:
    """Every action ``seat`` may take now, exactly (A3-A8); empty when not its turn."""
    pending = state.pending
    if pending is None and not state.ended:  # most steps: the dig, or the free actions
        if seat != state.turn.seat:  # seats_to_act(state) == (state.turn.seat,)
            return []
        if state.turn.must_dig:
            return [{"type": "dig"}]
        return _free_actions(comp, state, seat)
    if seat not in seats_to_act(state):
        return []
    kinds = comp.kinds
    hand = state.seats[seat].hand
    if isinstance(pending, ThiefPending):
        return [{"type": "rob", "victim": s} for s in dig.thief_targets(state, seat)]
    if isinstance(pending, SandstormPending):
        if pending.to_declare:
            return [{"type": "tent", "use": True}, {"type": "tent", "use": False}]
        return [{"type": "lose", "kind": kinds[k]} for k, n in enumerate(hand) if n]
    if isinstance(pending, TradePending):
        actions: list[JsonDict] = [
            {"type": "offer", "kind": kinds[k]} for k, n in enumerate(hand) if n > pending.give[k]
        ]
        actions += [
            {"type": "choose", "kind": kinds[k]}
            for k in market.choosable_kinds(comp, state.market, pending)
        ]
        if c.size(pending.give) and c.size(pending.take):
            actions.append({"type": "confirm_trade"})
        actions.append({"type": "cancel_trade"})
        return actions
    if isinstance(pending, MinePending):
        return [{"type": "mine", "go": True}, {"type": "mine", "go": False}]
    if isinstance(pending, TombPending):
        take = comp.ruins[state.options.ruin].params.get("take", 2)
        return [
            {"type": "take", "cards": c.to_json(choice, kinds)}
            for choice in ruins.tomb_choices(state.rooms[pending.room], take)
        ]
    assert isinstance(pending, PeekPending)
    rooms = [r for r, room in enumerate(state.rooms) if c.size(room)]
    return [{"type": "peek", "room": r} for r in rooms] + [{"type": "no_peek"}]


def _free_actions(comp: Components, state: GameState, seat: int) -> list[JsonDict]:
    """The turn's free actions (nothing pending, no dig owed), in this order: offers,
    explorations, sales (``museum.sellable``'s), ending the turn."""
    kinds = comp.kinds
    sale = comp.sale
    sold = state.turn.sold
    actions: list[JsonDict] = []
    sales: list[JsonDict] = []
    # One pass over the hand lists both the offers and the sales (museum.sellable's order,
    # held to it by services/games/archaeology/tests/test_free_actions.py).
    for k, held in enumerate(state.seats[seat].hand):
        if held:
            name = kinds[k]
            actions.append({"type": "offer", "kind": name})
            if k not in sold:
                sales += [
                    {"type": "sell", "kind": name, "count": n}
                    for n in range(1, min(held, len(sale[k])) + 1)
                ]
    ruin = comp.ruins[state.options.ruin]
    for room in ruins.explorable_rooms(state, ruin, seat, comp.map_kind):
        if ruin.special == ruins.SPHINX:
            actions += [
                {"type": "explore", "room": room, "named": [kinds[a], kinds[b]]}
                for a, b in ruins.sphinx_namings(len(kinds))
            ]
        else:
            actions.append({"type": "explore", "room": room})
    actions += sales
    if turn.may_end_turn(state, seat):
        actions.append({"type": "end_turn"})
    return actions


def decide(
    comp: Components, state: GameState, seat: int, action: Mapping[str, Any], rng: random.Random
) -> Play:
    """The events caused by ``seat`` taking ``action``, already folded (``play.events``,
    ``play.state``).

    Raises RuleViolation: ``game_over``, ``not_your_turn``, ``bad_action`` (no or unknown
    ``type``), ``action_not_allowed_now`` (an action of another step), or the specific
    rule the action breaks (A8).
    """
    if state.ended:
        raise refuse("game_over", "RULES.md A4: the expedition is over")
    # With nothing pending the turn's seat acts (seats_to_act, asked only otherwise).
    acts = seat == state.turn.seat if state.pending is None else seat in seats_to_act(state)
    if not acts:
        raise refuse("not_your_turn", f"RULES.md A3: seat {seat} does not act now")
    kind = action.get("type")
    if not isinstance(kind, str):
        raise refuse("bad_action", "an action is a JSON object with a string 'type'")
    play = Play(comp, state, rng)
    handler = _step_handler(state, kind)
    handler(play, seat, dict(action))
    turn.end_if_over(play)
    return play


Handler = Callable[[Play, int, dict[str, Any]], None]


def _confirm_trade(play: Play, seat: int, action: dict[str, Any]) -> None:
    market.confirm(play, seat)


def _cancel_trade(play: Play, seat: int, action: dict[str, Any]) -> None:
    market.cancel(play, seat)


def _decline_peek(play: Play, seat: int, action: dict[str, Any]) -> None:
    museum.decline_peek(play, seat)


def _dig(play: Play, seat: int, action: dict[str, Any]) -> None:
    dig.dig(play, seat)


def _end_turn(play: Play, seat: int, action: dict[str, Any]) -> None:
    turn.end_turn(play, seat)


def _mine(play: Play, seat: int, action: dict[str, Any]) -> None:
    go = action.get("go")
    if not isinstance(go, bool):
        raise refuse("bad_action", "RULES.md A6.4: at the mine say {'go': true} or {'go': false}")
    if go:
        ruins.reveal_mine_card(play, seat)
    else:
        ruins.stop_mine(play, seat)


# The actions each step allows, by action type: built once, asked at every decision.
_ROB: dict[str, Handler] = {"rob": dig.rob}
_DECLARE_TENT: dict[str, Handler] = {"tent": dig.declare_tent}
_LOSE_CARD: dict[str, Handler] = {"lose": dig.lose_card}
_TRADE: dict[str, Handler] = {
    "offer": market.offer,
    "choose": market.choose,
    "confirm_trade": _confirm_trade,
    "cancel_trade": _cancel_trade,
}
_MINE: dict[str, Handler] = {"mine": _mine}
_TOMB: dict[str, Handler] = {"take": ruins.take_from_tomb}
_PEEK: dict[str, Handler] = {"peek": museum.peek, "no_peek": _decline_peek}
_DIG: dict[str, Handler] = {"dig": _dig}
_FREE: dict[str, Handler] = {
    "offer": market.offer,
    "explore": ruins.explore,
    "sell": museum.sell,
    "end_turn": _end_turn,
}


def _step_handler(state: GameState, kind: str) -> Handler:
    pending = state.pending
    allowed: dict[str, Handler]
    if pending is None:  # most steps
        allowed = _DIG if state.turn.must_dig else _FREE
    elif isinstance(pending, ThiefPending):
        allowed = _ROB
    elif isinstance(pending, SandstormPending):
        allowed = _DECLARE_TENT if pending.to_declare else _LOSE_CARD
    elif isinstance(pending, TradePending):
        allowed = _TRADE
    elif isinstance(pending, MinePending):
        allowed = _MINE
    elif isinstance(pending, TombPending):
        allowed = _TOMB
    else:
        assert isinstance(pending, PeekPending)
        allowed = _PEEK
    handler = allowed.get(kind)
    if handler is None:
        if not state.turn.must_dig or pending is not None:
            expected = ", ".join(sorted(allowed))
            raise refuse(
                "action_not_allowed_now",
                f"RULES.md A3: {kind!r} is not possible now (possible: {expected})",
            )
        raise refuse("dig_first", "RULES.md A3.1, A8: dig before anything else")
    return handler
