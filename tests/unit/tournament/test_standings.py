"""Standings worked by hand (services/tournament/standings.py's definitions)."""

from __future__ import annotations

import pytest

from services.tournament import (
    Pairing,
    RoundRecord,
    ScoringRules,
    Table,
    TableResult,
    TableSize,
    compute_standings,
    default_points,
)
from services.tournament.standings import table_outcome

TIEBREAKS = ("buchholz", "sonneborn_berger", "wins", "table_points")


def rnd(number: int, tables: list[tuple[str, ...]], results: list[TableResult], byes=()):
    """A round record from plain tuples."""
    return RoundRecord(
        pairing=Pairing(
            round=number,
            tables=tuple(Table(i, players) for i, players in enumerate(tables, start=1)),
            byes=tuple(byes),
        ),
        results=tuple(results),
    )


def by_player(rows):
    return {row.player: row for row in rows}


def test_default_points_linear_and_equal_for_a_win_at_every_size() -> None:
    assert default_points(TableSize(2, 2)) == {2: (1.0, 0.0)}
    assert default_points(TableSize(4, 4)) == {4: (3.0, 2.0, 1.0, 0.0)}
    assert default_points(TableSize(3, 4)) == {3: (3.0, 1.5, 0.0), 4: (3.0, 2.0, 1.0, 0.0)}


def test_two_seat_classical_example() -> None:
    # Round 1: A beats B, C draws D. Round 2: C beats A, B beats D.
    scoring = ScoringRules(default_points(TableSize(2, 2)), bye_points=1.0, tiebreaks=TIEBREAKS)
    history = [
        rnd(1, [("A", "B"), ("C", "D")], [TableResult(1, (1, 2)), TableResult(2, (1, 1))]),
        rnd(2, [("A", "C"), ("B", "D")], [TableResult(1, (2, 1)), TableResult(2, (1, 2))]),
    ]
    rows = compute_standings(["A", "B", "C", "D"], history, scoring)
    assert [(r.player, r.rank, r.points) for r in rows] == [
        ("C", 1, 1.5),
        ("A", 2, 1.0),  # Buchholz 2.5 beats B's 1.5
        ("B", 3, 1.0),
        ("D", 4, 0.5),
    ]
    table = by_player(rows)
    # Buchholz: sum of opponents' final points.
    assert table["A"].tiebreaks["buchholz"] == 1.0 + 1.5
    assert table["B"].tiebreaks["buchholz"] == 1.0 + 0.5
    assert table["C"].tiebreaks["buchholz"] == 0.5 + 1.0
    assert table["D"].tiebreaks["buchholz"] == 1.5 + 1.0
    # Sonneborn-Berger: beaten opponents' points + half the drawn ones'.
    assert table["A"].tiebreaks["sonneborn_berger"] == 1.0
    assert table["B"].tiebreaks["sonneborn_berger"] == 0.5
    assert table["C"].tiebreaks["sonneborn_berger"] == 0.25 + 1.0
    assert table["D"].tiebreaks["sonneborn_berger"] == 0.75
    # A draw is not a win.
    assert {p: r.tiebreaks["wins"] for p, r in table.items()} == {
        "A": 1,
        "B": 1,
        "C": 1,
        "D": 0,
    }
    assert list(table["A"].tiebreaks) == list(TIEBREAKS)


def test_four_seat_example_with_tie_forfeit_and_byes() -> None:
    # 5 players, one 4-seat table a round, a bye worth 1.5.
    # R1: [A, B, C, D] places (1, 2, 2, 4), E has the bye:
    #     A 3, B and C share 2nd and 3rd = (2 + 1) / 2 = 1.5 each, D 0, E 1.5.
    # R2: [E, D, C, A] places (2, 1, 3, 4) but C forfeited: C goes last, so D 1st 3,
    #     E 2nd 2, A 3rd 1, C 4th 0; B has the bye 1.5.
    scoring = ScoringRules(default_points(TableSize(4, 4)), bye_points=1.5, tiebreaks=TIEBREAKS)
    history = [
        rnd(1, [("A", "B", "C", "D")], [TableResult(1, (1, 2, 2, 4))], byes=["E"]),
        rnd(2, [("E", "D", "C", "A")], [TableResult(1, (2, 1, 3, 4), ("C",))], byes=["B"]),
    ]
    rows = compute_standings(["A", "B", "C", "D", "E"], history, scoring)
    # Totals: A 4, B 3, C 1.5, D 3, E 3.5; B and D tie on points, D's Buchholz is higher.
    assert [(r.player, r.rank, r.points) for r in rows] == [
        ("A", 1, 4.0),
        ("E", 2, 3.5),
        ("D", 3, 3.0),
        ("B", 4, 3.0),
        ("C", 5, 1.5),
    ]
    table = by_player(rows)
    expected = {
        # Buchholz: tablemates' final points, every round (a bye adds nothing).
        "buchholz": {
            "A": (3 + 1.5 + 3) + (3.5 + 3 + 1.5),
            "B": 4 + 1.5 + 3,
            "C": (4 + 3 + 3) + (3.5 + 3 + 4),
            "D": (4 + 3 + 1.5) + (3.5 + 1.5 + 4),
            "E": 3 + 1.5 + 4,
        },
        # Sonneborn-Berger: tablemate's points x share (1 ahead, 1/2 tied, 0 behind).
        "sonneborn_berger": {
            "A": (3 + 1.5 + 3) + 1.5,
            "B": 0.5 * 1.5 + 3,
            "C": 0.5 * 3 + 3,
            "D": 3.5 + 1.5 + 4,
            "E": 1.5 + 4,
        },
        "wins": {"A": 1, "B": 0, "C": 0, "D": 1, "E": 0},
        "table_points": {"A": 4, "B": 1.5, "C": 1.5, "D": 3, "E": 2},
    }
    for column, values in expected.items():
        assert {p: r.tiebreaks[column] for p, r in table.items()} == pytest.approx(values)
    assert {p: (r.rounds_played, r.byes) for p, r in table.items()} == {
        "A": (2, 0),
        "B": (1, 1),
        "C": (2, 0),
        "D": (2, 0),
        "E": (1, 1),
    }


def test_equal_rows_share_a_rank_listed_in_registration_order() -> None:
    scoring = ScoringRules(default_points(TableSize(2, 2)), tiebreaks=TIEBREAKS)
    history = [rnd(1, [("A", "B")], [TableResult(1, (1, 1))])]
    rows = compute_standings(["B", "A"], history, scoring)
    assert [(r.player, r.rank) for r in rows] == [("B", 1), ("A", 1)]


def test_rank_after_a_shared_rank_skips() -> None:
    scoring = ScoringRules(default_points(TableSize(3, 3)), tiebreaks=())
    history = [rnd(1, [("A", "B", "C")], [TableResult(1, (1, 1, 3))])]
    rows = compute_standings(["A", "B", "C"], history, scoring)
    assert [(r.player, r.rank, r.points) for r in rows] == [
        ("A", 1, 1.5),
        ("B", 1, 1.5),
        ("C", 3, 0.0),
    ]


def test_three_way_tie_shares_the_average() -> None:
    scoring = ScoringRules(default_points(TableSize(3, 3)))
    assert table_outcome(("A", "B", "C"), TableResult(1, (1, 1, 1)), scoring) == [
        (1, 1.0),
        (1, 1.0),
        (1, 1.0),
    ]


def test_several_forfeiters_tie_for_the_last_places() -> None:
    scoring = ScoringRules(default_points(TableSize(4, 4)))
    out = table_outcome(("A", "B", "C", "D"), TableResult(1, (1, 2, 3, 4), ("A", "B")), scoring)
    assert out == [(3, 0.5), (3, 0.5), (1, 3.0), (2, 2.0)]


def test_withdrawn_players_keep_their_row_and_unfinished_tables_count_nothing() -> None:
    scoring = ScoringRules(default_points(TableSize(2, 2)))
    history = [
        rnd(1, [("A", "B"), ("C", "D")], [TableResult(1, (2, 1))]),  # table 2 unfinished
    ]
    rows = by_player(compute_standings(["A", "C", "D"], history, scoring))
    assert rows["B"].points == 1.0 and rows["B"].rounds_played == 1
    assert rows["C"].points == 0.0 and rows["C"].rounds_played == 0


def test_late_joiner_starts_at_zero() -> None:
    scoring = ScoringRules(default_points(TableSize(2, 2)))
    history = [rnd(1, [("A", "B")], [TableResult(1, (1, 2))])]
    rows = by_player(compute_standings(["A", "B", "Z"], history, scoring))
    assert rows["Z"].points == 0.0 and rows["Z"].rounds_played == 0


@pytest.mark.parametrize(
    ("result", "message"),
    [
        (TableResult(1, (1,)), "places for 2 seats"),
        (TableResult(1, (0, 1)), "places start at 1"),
        (TableResult(1, (1, 2), ("X",)), "not seated"),
        (TableResult(2, (1, 2)), "unknown table"),
    ],
)
def test_malformed_results_are_refused(result: TableResult, message: str) -> None:
    scoring = ScoringRules(default_points(TableSize(2, 2)))
    with pytest.raises(ValueError, match=message):
        compute_standings(["A", "B"], [rnd(1, [("A", "B")], [result])], scoring)


def test_unknown_tiebreak_and_missing_points_are_refused() -> None:
    history = [rnd(1, [("A", "B", "C")], [TableResult(1, (1, 2, 3))])]
    with pytest.raises(ValueError, match="unknown tie-breaks"):
        compute_standings([], history, ScoringRules(default_points(TableSize(3, 3)), 0, ("x",)))
    with pytest.raises(ValueError, match="3-seat table"):
        compute_standings([], history, ScoringRules(default_points(TableSize(2, 2))))
