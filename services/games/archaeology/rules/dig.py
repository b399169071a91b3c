"""The dig and its special cards: thieves, sandstorms and tents (RULES.md A3.1, E2, E3, E11,
E12; buried ruins A6.6; `sand_hell` A7)."""

from __future__ import annotations

from typing import Any

from . import cards as c
from .play import Play, refuse
from .state import GameState, SandstormPending, ThiefPending

BURIED_RUINS_SPECIAL = "sandstorm_adds_one_per_room"


def dig(play: Play, seat: int) -> None:
    """Draw the dig site's top card (drawn at random from what is left, A3.1).

    A treasure goes to the hand (its kind is the drawer's secret); a thief waits for its
    victim, or is void when no other seat holds a card (E12); a sandstorm starts.
    Raises RuleViolation ``no_dig_owed`` when the seat owes no dig.
    """
    state = play.state
    if not state.turn.must_dig or state.pending is not None:
        raise refuse("no_dig_owed", "RULES.md A3.1: there is no dig to make now")
    treasures = c.size(state.dig_site)
    pick = play.rng.randrange(state.dig_site_size)
    if pick < treasures:
        kind = c.draw(state.dig_site, play.rng)
        play.emit_sealed(
            "CardDug", "dug", {"kind": play.kind_name(kind)}, (seat,), seat=seat, card="treasure"
        )
    elif pick < treasures + state.dig_thieves:
        play.emit("CardDug", seat=seat, card="thief")
        if not thief_targets(play.state, seat):
            play.emit("ThiefVoided", seat=seat)
    else:
        play.emit("CardDug", seat=seat, card="sandstorm")
        _begin_sandstorm(play, seat)


def thief_targets(state: GameState, seat: int) -> tuple[int, ...]:
    """Seats a thief dug by ``seat`` may rob: every other seat holding a card (A3.1)."""
    return tuple(s for s in range(state.seat_count) if s != seat and state.hand_size(s) > 0)


def rob(play: Play, seat: int, action: dict[str, Any]) -> None:
    """Name the thief's victim; one card of its hand, drawn at random, moves to ``seat`` (E2).

    Raises RuleViolation ``bad_thief_target`` for the drawer itself, a seat without cards
    or a seat that does not exist.
    """
    pending = play.state.pending
    assert isinstance(pending, ThiefPending)
    victim = action.get("victim")
    if not isinstance(victim, int) or isinstance(victim, bool):
        raise refuse("bad_action", "RULES.md A3.1: a thief names its victim: {'victim': seat}")
    if victim not in thief_targets(play.state, seat):
        raise refuse(
            "bad_thief_target",
            f"RULES.md A3.1, A8: seat {victim} can't be robbed: name another seat that holds"
            " at least one card",
        )
    kind = c.draw(play.state.seats[victim].hand, play.rng)
    play.emit_sealed(
        "CardStolen",
        "stolen",
        {"kind": play.kind_name(kind)},
        (seat, victim),
        seat=seat,
        victim=victim,
    )


def _begin_sandstorm(play: Play, drawer: int) -> None:
    """Reserve cards into the buried ruins' rooms, then the losses (A3.1 a-b, A6.6)."""
    state = play.state
    added: list[str | None] = []
    ruin = play.comp.ruins[state.options.ruin]
    if ruin.special == BURIED_RUINS_SPECIAL:
        reserve = state.reserve
        for _ in state.rooms:
            if c.size(reserve) == 0:
                added.append(None)
                continue
            kind = c.draw(reserve, play.rng)
            reserve = c.sub(reserve, c.one(len(reserve), kind))
            added.append(play.kind_name(kind))
    losses = [state.hand_size(s) // 2 for s in range(state.seat_count)]
    play.emit("SandstormBegan", seat=drawer, losses=losses, reserve_added=added)
    _end_sandstorm_if_settled(play)


def _end_sandstorm_if_settled(play: Play) -> None:
    storm = play.state.pending
    assert isinstance(storm, SandstormPending)
    if not storm.to_declare and storm.next_loser() is None:
        play.emit("SandstormEnded", seat=storm.drawer)


def sandstorm_seat(storm: SandstormPending) -> int | None:
    """The seat that decides next in a sandstorm: a tent declaration, then a loss (E3)."""
    if storm.to_declare:
        return storm.to_declare[0]
    return storm.next_loser()


def declare_tent(play: Play, seat: int, action: dict[str, Any]) -> None:
    """Use the tent (lose nothing) or not (E11). Raises RuleViolation ``bad_action``."""
    used = action.get("use")
    if not isinstance(used, bool):
        raise refuse("bad_action", "RULES.md A3.1c: declare the tent: {'use': true|false}")
    play.emit("TentDeclared", seat=seat, used=used)
    _end_sandstorm_if_settled(play)


def lose_card(play: Play, seat: int, action: dict[str, Any]) -> None:
    """Put one chosen card of the hand into the market (A3.1d, E3).

    Raises RuleViolation ``card_not_in_hand`` for a kind the seat does not hold.
    """
    kind = kind_of(play, action)
    if play.state.seats[seat].hand[kind] == 0:
        raise refuse("card_not_in_hand", f"RULES.md A3.1d: you hold no {play.kind_name(kind)}")
    play.emit("CardLost", seat=seat, kind=play.kind_name(kind))
    _end_sandstorm_if_settled(play)


def kind_of(play: Play, action: dict[str, Any], key: str = "kind") -> int:
    """The treasure kind an action names under ``key``. Raises RuleViolation
    ``unknown_kind``."""
    name = action.get(key)
    index = play.comp.indices.get(name) if isinstance(name, str) else None
    if index is None:
        known = ", ".join(play.comp.kinds)
        raise refuse("unknown_kind", f"RULES.md A1: {name!r} is no treasure kind (known: {known})")
    return index
