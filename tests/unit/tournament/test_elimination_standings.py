"""Elimination standings from the rule (services/tournament/elimination_standings.py):
round reached first, still in before out, then place at the table; not Swiss points."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from services.tournament.elimination_standings import elimination_standings
from services.tournament.model import (
    Format,
    Pairing,
    PairingError,
    RoundRecord,
    ScoringRules,
    StandingRow,
    Table,
    TableResult,
    TableSize,
)
from services.tournament.pairing import pair_round
from services.tournament.pairing.context import PairingContext
from services.tournament.pairing.elimination import survivors
from services.tournament.standings import compute_standings

from .helpers import random_results, scoring_for

SIZE = TableSize(4, 4)
# Lopsided points, so Swiss points disagree with how far players went.
SCORING = ScoringRules({4: (10.0, 5.0, 4.0, 0.0)}, 0.0, ("buchholz",))
ENTRANTS = [f"{t}{n}" for t in "abcd" for n in range(1, 5)]


def _round(number: int, *tables: tuple[tuple[str, ...], tuple[int, ...] | None]) -> RoundRecord:
    """Round ``number``: tables of (players in seat order, places or None if playing)."""
    seated = tuple(Table(i, players) for i, (players, _) in enumerate(tables, start=1))
    results = tuple(
        TableResult(i, places) for i, (_, places) in enumerate(tables, start=1) if places
    )
    return RoundRecord(Pairing(number, seated), results)


ROUND_1 = _round(
    1,
    (("a1", "a2", "a3", "a4"), (1, 2, 3, 4)),
    (("b1", "b2", "b3", "b4"), (1, 2, 3, 4)),
    (("c1", "c2", "c3", "c4"), (1, 2, 3, 4)),
    (("d1", "d2", "d3", "d4"), (1, 2, 3, 4)),
)
ROUND_2 = _round(
    2,
    (("a1", "b2", "c1", "d2"), (3, 1, 4, 2)),
    (("b1", "a2", "d1", "c2"), (3, 1, 4, 2)),
)
FINAL = _round(3, (("b2", "d2", "a2", "c2"), (1, 2, 3, 4)))


def _ranks(rows: list[StandingRow]) -> dict[str, int]:
    return {row.player: row.rank for row in rows}


def test_a_finished_knockout_ranks_by_round_reached_then_place() -> None:
    rows = elimination_standings(ENTRANTS, ENTRANTS, [ROUND_1, ROUND_2, FINAL], SIZE, SCORING)
    ranks = _ranks(rows)
    # The final table by its places.
    assert [row.player for row in rows[:4]] == ["b2", "d2", "a2", "c2"]
    assert [row.rank for row in rows[:4]] == [1, 2, 3, 4]
    # Out in round 2: the two 3rds share 5th, the two 4ths share 7th.
    assert (ranks["a1"], ranks["b1"], ranks["c1"], ranks["d1"]) == (5, 5, 7, 7)
    # Out in round 1: 3rds share 9th, 4ths share 13th.
    assert {ranks[f"{t}3"] for t in "abcd"} == {9}
    assert {ranks[f"{t}4"] for t in "abcd"} == {13}
    assert [row.rank for row in rows] == sorted(row.rank for row in rows)
    by_player = {row.player: row for row in rows}
    assert (by_player["c2"].round_reached, by_player["c2"].eliminated_in_round) == (3, 0)
    assert by_player["c2"].place_in_round == 4
    assert (by_player["a1"].round_reached, by_player["a1"].eliminated_in_round) == (2, 2)
    assert (by_player["a1"].place_in_round, by_player["a1"].points) == (3, 14.0)
    assert (by_player["a4"].round_reached, by_player["a4"].eliminated_in_round) == (1, 1)
    # The Swiss order would put a1 (14 points, out in round 2) above the finalist c2
    # (10 points): elimination's order does not.
    swiss = _ranks(compute_standings(ENTRANTS, [ROUND_1, ROUND_2, FINAL], SCORING))
    assert swiss["a1"] < swiss["c2"] and ranks["c2"] < ranks["a1"]


def test_while_a_round_plays_everyone_still_in_shares_the_top() -> None:
    playing = _round(
        2,
        (("a1", "b2", "c1", "d2"), (3, 1, 4, 2)),
        (("b1", "a2", "d1", "c2"), None),
    )
    rows = elimination_standings(ENTRANTS, ENTRANTS, [ROUND_1, playing], SIZE, SCORING)
    ranks = _ranks(rows)
    # The top two of the finished table and the whole table still playing are in.
    still_in = {"b2", "d2", "b1", "a2", "d1", "c2"}
    assert {player for player, rank in ranks.items() if rank == 1} == still_in
    assert all(row.eliminated_in_round == 0 for row in rows if row.player in still_in)
    assert (ranks["a1"], ranks["c1"]) == (7, 8)  # out in round 2: 3rd, then 4th
    assert {ranks[f"{t}3"] for t in "abcd"} == {9}


def test_a_bye_is_still_in_and_a_withdrawal_is_out_where_it_stopped() -> None:
    # b2 went on from round 1 but withdrew; round 2 seats four, three have byes.
    active = [p for p in ENTRANTS if p != "b2"]
    second = RoundRecord(
        Pairing(2, (Table(1, ("a1", "b1", "c1", "a2")),), ("d1", "d2", "c2")),
        (TableResult(1, (1, 2, 3, 4)),),
    )
    rows = elimination_standings(ENTRANTS, active, [ROUND_1, second], SIZE, SCORING)
    by_player = {row.player: row for row in rows}
    assert (by_player["d2"].round_reached, by_player["d2"].eliminated_in_round) == (2, 0)
    assert by_player["d2"].place_in_round == 0
    assert (by_player["b2"].round_reached, by_player["b2"].eliminated_in_round) == (1, 1)
    assert by_player["b2"].place_in_round == 2
    ranks = _ranks(rows)
    # Still in: the byes and the top two of round 2's table.
    assert {p for p, r in ranks.items() if r == 1} == {"a1", "b1", "d1", "d2", "c2"}
    # Out in round 2 (3rd, then 4th) rank above everyone out in round 1, whose 2nd
    # (the withdrawn b2) ranks above its 3rds.
    assert (ranks["c1"], ranks["a2"], ranks["b2"]) == (6, 7, 8)
    assert {ranks[f"{t}3"] for t in "abcd"} == {9}


@settings(max_examples=60, deadline=None)
@given(
    bounds=st.integers(2, 5).flatmap(lambda lo: st.tuples(st.just(lo), st.integers(lo, 5))),
    players=st.integers(2, 30),
    rng_seed=st.integers(0, 2**32),
    advance=st.one_of(st.none(), st.integers(1, 4)),
    rounds=st.integers(1, 4),
)
def test_still_in_is_exactly_who_the_next_round_seats(
    bounds: tuple[int, int], players: int, rng_seed: int, advance: int | None, rounds: int
) -> None:
    """For any elimination played with random results (ties, forfeits): ranks follow the
    rounds reached; a played final is ranked by its places; otherwise the players the
    standings call still in are exactly who goes on by the pairing's own cut
    (``survivors``), and so the next round's field (seats and byes) when there is one."""
    size = TableSize(*bounds)
    scoring = scoring_for(size)
    rng = random.Random(rng_seed)
    entrants = [f"p{i:02d}" for i in range(players)]
    history: list[RoundRecord] = []
    for _ in range(rounds):
        try:
            pairing = pair_round(
                Format.ELIMINATION, entrants, history, size, scoring, "e", advance=advance
            )
        except PairingError:
            break
        history.append(random_results(pairing, rng))
    if not history:
        return
    rows = elimination_standings(entrants, entrants, history, size, scoring, advance)
    assert sorted(row.player for row in rows) == entrants
    assert rows[0].rank == 1
    for index, row in enumerate(rows):
        assert row.rank in (index + 1, rows[index - 1].rank)
        last = max(
            (r.pairing.round for r in history
             if row.player in r.pairing.byes
             or any(row.player in t.players for t in r.pairing.tables)),
            default=0,
        )  # fmt: skip
        assert row.round_reached == last
    reached = [row.round_reached for row in rows]
    assert reached == sorted(reached, reverse=True)
    still_in = {row.player for row in rows if row.round_reached and not row.eliminated_in_round}
    last = history[-1].pairing
    if len(last.tables) == 1 and not last.byes:  # the final: ranked by its places
        final = rows[: len(last.tables[0].players)]
        assert {row.player for row in final} == set(last.tables[0].players)
        places = [row.place_in_round for row in final]
        assert places == sorted(places) and {row.eliminated_in_round for row in final} == {0}
        return
    # Otherwise still in is who goes on by the pairing's own cut, and so the next field.
    ranking = PairingContext.build(entrants, history, scoring).ranking
    go_on = advance or max(1, size.max_seats // 2)
    assert still_in == survivors(history[-1], go_on, ranking, scoring)
    try:
        following = pair_round(
            Format.ELIMINATION, entrants, history, size, scoring, "e", advance=advance
        )
    except PairingError as error:
        assert error.reason in {"elimination_complete", "elimination_stalled"}
        return
    assert {p for t in following.tables for p in t.players} | set(following.byes) == still_in
