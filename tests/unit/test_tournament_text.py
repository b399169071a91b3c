"""The tables ``teoti tournament`` prints for people (services/cli/tournament_text.py):
exact text, at most 80 columns, names clipped and escaped, ratings as rounded integers."""

from __future__ import annotations

from types import SimpleNamespace

from services.cli.tournament_text import (
    change_text,
    clip,
    elimination_lines,
    leaderboard_lines,
    list_lines,
    ordinal_text,
    swiss_lines,
)

LONG = "Maximiliana Alexandrovna Konstantinopolskaya-Rimsky"


def _rating(rank: int, player: str, ordinal: float, games: int) -> SimpleNamespace:
    # mu and sigma are on the wire too; the table shows neither.
    return SimpleNamespace(
        rank=rank, player=player, ordinal=ordinal, mu=ordinal + 20.0, sigma=6.66, games=games
    )


def test_a_leaderboard_reads_as_ranks_whole_ratings_games_and_changes() -> None:
    rows = [
        _rating(1, "ann", 12.49, 7),
        _rating(2, LONG, 3.5, 2),
        _rating(3, "bot:tortoise", -0.4, 30),
        _rating(4, "zoë\x1b[2J", -8.51, 1),
    ]
    before = {"ann": 0, LONG: 4, "bot:tortoise": 0}
    assert leaderboard_lines("pebbles", rows, before) == [
        "Leaderboard of pebbles (rating: mu - 3 sigma, rounded)",
        "rank  player                                rating  games  change",
        "   1  ann                                       12      7     +12",
        "   2  Maximiliana Alexandrovna Konstantin…       4      2       0",
        "   3  bot:tortoise                               0     30       0",
        "   4  zoë\\x1b[2J                                -9      1     new",
    ]
    assert leaderboard_lines("nim", [], None)[1:] == [
        "rank  player                                rating  games",
        "  (no rated games yet)",
    ]


def test_changes_ordinals_and_clipping() -> None:
    assert [change_text(5, 17), change_text(17, 5), change_text(3, 3)] == ["-12", "+12", "0"]
    assert change_text(3, None) == "new"
    assert [ordinal_text(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st",
    ]  # fmt: skip
    assert clip("ann", 5) == "ann" and clip("abcdefgh", 5) == "abcd…"
    assert clip("a\x00b", 10) == "a\\x00b"


def test_swiss_standings_fit_80_columns_with_every_tiebreak() -> None:
    every = ["buchholz", "sonneborn_berger", "wins", "table_points"]
    row = SimpleNamespace(
        rank=1, player=LONG, points=10.5, tiebreaks=[31.0, 20.25, 3.0, 9.5],
        rounds_played=5, withdrawn=True,
    )  # fmt: skip
    lines = swiss_lines(every, [row])
    assert lines == [
        "rank  player              games  points  buchholz  s-berger      wins  table pts",
        "   1  Maximiliana A… (w)      5    10.5     31.00     20.25      3.00       9.50",
    ]
    assert all(len(line) <= 80 for line in lines)
    # The default columns keep their full names.
    assert "sonneborn_berger" in swiss_lines(["buchholz", "sonneborn_berger", "wins"], [])[0]


def test_elimination_rows_say_how_far_each_player_went() -> None:
    def row(rank: int, player: str, reached: int, out: int, place: int, w: bool = False) -> object:
        return SimpleNamespace(
            rank=rank, player=player, round_reached=reached, eliminated_in_round=out,
            place_in_round=place, withdrawn=w,
        )  # fmt: skip

    assert elimination_lines(
        [
            row(1, "b2", 3, 0, 1),
            row(2, "d2", 3, 0, 2),
            row(3, "a1", 2, 2, 3),
            row(4, "c3", 1, 1, 2, w=True),
            row(5, "e4", 0, 0, 0),
        ]
    ) == [
        "rank  player              round  result",
        "   1  b2                      3  final table, 1st",
        "   2  d2                      3  final table, 2nd",
        "   3  a1                      2  out in round 2 (3rd at the table)",
        "   4  c3                      1  withdrew in round 1 (2nd at the table)",
        "   5  e4                      0  not seated",
    ]
    running = [row(1, "x", 2, 0, 0), row(1, "y", 2, 0, 1)]
    assert [line.split(None, 3)[3] for line in elimination_lines(running)[1:]] == [
        "still in",
        "final table, 1st",
    ]


def test_the_tournament_list_fits_80_columns() -> None:
    summary = SimpleNamespace(
        tournament_id="0123456789abcdef0123", name=LONG, ruleset="pebbles-long",
        status="registering", players=4096, rounds_paired=64,
    )  # fmt: skip
    lines = list_lines([summary])
    assert lines[1] == (
        "0123456789abcdef0123 Maximiliana Alexan… pebbles-lo… registering    4096     64"
    )
    assert all(len(line) <= 80 for line in lines)
