"""Multiplayer elimination: top K per table go on, snake seeding, a final table."""

from __future__ import annotations

import pytest

from services.tournament import (
    Format,
    PairingError,
    RoundRecord,
    TableResult,
    TableSize,
    pair_round,
)

from .helpers import scoring_for


def seat_order_results(pairing) -> RoundRecord:
    """Everyone finishes in seat order."""
    return RoundRecord(
        pairing,
        tuple(TableResult(t.number, tuple(range(1, len(t.players) + 1))) for t in pairing.tables),
    )


def test_sixteen_players_four_seats_top_two_advance() -> None:
    size = TableSize(4, 4)
    scoring = scoring_for(size)
    entrants = [f"p{i:02d}" for i in range(16)]
    history: list[RoundRecord] = []
    fields = []
    while True:
        try:
            pairing = pair_round(
                Format.ELIMINATION, entrants, history, size, scoring, "e", advance=2
            )
        except PairingError as error:
            assert error.reason == "elimination_complete"
            break
        fields.append(sorted(p for t in pairing.tables for p in t.players))
        if history:
            previous = history[-1].pairing
            winners = sorted(p for t in previous.tables for p in t.players[:2])
            assert fields[-1] == winners
        history.append(seat_order_results(pairing))
    assert [len(f) for f in fields] == [16, 8, 4]
    assert len(history[-1].pairing.tables) == 1  # the final table


def test_round_one_is_snake_seeded_by_registration_order() -> None:
    size = TableSize(4, 4)
    entrants = [f"s{i:02d}" for i in range(1, 17)]
    pairing = pair_round(Format.ELIMINATION, entrants, [], size, scoring_for(size), "x")
    first = {frozenset(t.players) for t in pairing.tables}
    assert frozenset({"s01", "s08", "s09", "s16"}) in first
    assert frozenset({"s04", "s05", "s12", "s13"}) in first


def test_byes_go_to_top_seeds_and_advance() -> None:
    size = TableSize(4, 4)
    entrants = [f"s{i:02d}" for i in range(1, 11)]  # 10 players: 2 tables of 4, 2 byes
    pairing = pair_round(Format.ELIMINATION, entrants, [], size, scoring_for(size), "x")
    assert pairing.byes == ("s01", "s02")
    history = [seat_order_results(pairing)]
    second = pair_round(Format.ELIMINATION, entrants, history, size, scoring_for(size), "x")
    field = {p for t in second.tables for p in t.players} | set(second.byes)
    assert {"s01", "s02"} <= field and len(field) == 6  # 2 byes + 2 tables x 2
    # 6 players: one table of 4; the top two of the standings (the table winners, 3 points
    # against the byes' 1) wait.
    assert set(second.byes) == {t.players[0] for t in pairing.tables}


def test_forfeiter_and_withdrawn_do_not_advance() -> None:
    size = TableSize(3, 4)
    entrants = [f"s{i}" for i in range(8)]
    pairing = pair_round(Format.ELIMINATION, entrants, [], size, scoring_for(size), "x")
    t1, t2 = pairing.tables
    results = (
        TableResult(1, (1, 2, 3, 4), (t1.players[0],)),  # the winner forfeited
        TableResult(2, (1, 2, 3, 4)),
    )
    history = [RoundRecord(pairing, results)]
    active = [p for p in entrants if p != t2.players[1]]  # t2's runner-up withdraws
    final = pair_round(Format.ELIMINATION, active, history, size, scoring_for(size), "x")
    assert len(final.tables) == 1
    assert set(final.tables[0].players) == {t1.players[1], t1.players[2], t2.players[0]}


def test_unfinished_round_and_stalled_advance_are_refused() -> None:
    size = TableSize(2, 2)
    entrants = ["a", "b", "c", "d"]
    pairing = pair_round(Format.ELIMINATION, entrants, [], size, scoring_for(size), "x", advance=1)
    with pytest.raises(PairingError) as caught:
        pair_round(
            Format.ELIMINATION,
            entrants,
            [RoundRecord(pairing, ())],
            size,
            scoring_for(size),
            "x",
            advance=1,
        )
    assert caught.value.reason == "round_unfinished"
    with pytest.raises(PairingError) as caught:
        pair_round(Format.ELIMINATION, entrants, [], size, scoring_for(size), "x", advance=2)
    assert caught.value.reason == "elimination_stalled"
    with pytest.raises(PairingError) as caught:
        pair_round(Format.ELIMINATION, entrants, [], size, scoring_for(size), "x", advance=0)
    assert caught.value.reason == "bad_advance"
