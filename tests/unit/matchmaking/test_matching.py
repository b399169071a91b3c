"""The matchmaker's decision (services.matchmaking.matching), from the issue's rules:
players are placed with others who asked for compatible games, the rating window widens
with waiting time, bots fill a table only after the seek's own delay, and no seek is
ever seated at two tables."""

from __future__ import annotations

import itertools
import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from services.matchmaking.matching import Table, propose_tables
from services.matchmaking.seeks import RatingWindow, Seek, SeekInvalid, compatible

NOW = 1_000_000
DEFAULT_WINDOW = RatingWindow(5.0, 0.5)


def seek(
    n: int,
    *,
    seats: tuple[int, int] = (2, 2),
    rating: float = 0.0,
    waited_s: float = 0.0,
    window: RatingWindow = DEFAULT_WINDOW,
    ruleset: str = "ruleset-a",
    rated: bool = True,
    time_control: str = "",
    bots_after_s: float | None = None,
    player: str | None = None,
) -> Seek:
    return Seek(
        seek_id=f"s{n}",
        player=player or f"p{n}",
        ruleset=ruleset,
        min_seats=seats[0],
        max_seats=seats[1],
        rated=rated,
        time_control=time_control,
        rating=rating,
        window=window,
        created_ms=NOW - int(waited_s * 1000),
        bots_after_s=bots_after_s,
    )


def ids(tables: list[Table]) -> list[list[str]]:
    return [[s.seek_id for s in t.seeks] for t in tables]


def test_two_compatible_seeks_make_a_table() -> None:
    assert ids(propose_tables([seek(1), seek(2, rating=3)], NOW)) == [["s1", "s2"]]


def test_seeks_of_other_pools_never_meet() -> None:
    others = [
        seek(2, ruleset="ruleset-b"),
        seek(3, rated=False),
        seek(4, time_control='{"base_ms":60000}'),
    ]
    for other in others:
        assert propose_tables([seek(1), other], NOW) == []


def test_the_window_widens_with_waiting_time() -> None:
    far = [seek(1, rating=0.0), seek(2, rating=20.0)]
    assert propose_tables(far, NOW) == []
    # 5 + 0.5 * 30 = 20 points after 30 s: both windows must hold the other's rating.
    waited = [seek(1, rating=0.0, waited_s=30), seek(2, rating=20.0, waited_s=30)]
    assert ids(propose_tables(waited, NOW)) == [["s1", "s2"]]
    one_waited = [seek(1, rating=0.0, waited_s=30), seek(2, rating=20.0)]
    assert propose_tables(one_waited, NOW) == []


def test_the_window_stops_at_its_limit() -> None:
    capped = RatingWindow(5.0, 0.5, limit=10.0)
    pair = [seek(1, rating=0, waited_s=600, window=capped), seek(2, rating=15, waited_s=600)]
    assert propose_tables(pair, NOW) == []


def test_the_largest_table_the_oldest_seek_accepts() -> None:
    pool = [seek(n, seats=(2, 4), waited_s=10 - n) for n in range(1, 6)]
    tables = propose_tables(pool, NOW)
    assert [t.seats for t in tables] == [4]
    assert ids(tables) == [["s1", "s2", "s3", "s4"]]


def test_closest_ratings_are_seated_together() -> None:
    pool = [seek(1, rating=10, waited_s=5), seek(2, rating=14), seek(3, rating=11)]
    assert ids(propose_tables(pool, NOW)) == [["s1", "s3"]]


def test_one_player_never_sits_twice_at_a_table() -> None:
    pool = [seek(1, player="ann"), seek(2, player="ann")]
    assert propose_tables(pool, NOW) == []


def test_a_solo_seek_is_seated_at_once() -> None:
    tables = propose_tables([seek(1, seats=(1, 1), rated=False)], NOW)
    assert [(t.seats, t.bots) for t in tables] == [(1, 0)]


def test_bots_fill_only_after_the_seeks_own_delay() -> None:
    alone = seek(1, seats=(3, 4), bots_after_s=30, waited_s=10)
    assert propose_tables([alone], NOW) == []
    ready = seek(1, seats=(3, 4), bots_after_s=30, waited_s=31)
    tables = propose_tables([ready], NOW)
    assert [(ids([t]), t.seats, t.bots) for t in tables] == [([["s1"]], 3, 2)]


def test_bot_tables_seat_the_humans_who_waited_past_their_delay() -> None:
    pool = [
        seek(1, seats=(3, 4), bots_after_s=30, waited_s=40),
        seek(2, seats=(2, 3), bots_after_s=10, waited_s=20),
        seek(3, seats=(3, 3), bots_after_s=None, waited_s=50, rating=100),  # far, no bots
    ]
    # s3 waited longest but nobody is near its rating and it takes no bots: it waits.
    tables = propose_tables(pool, NOW)
    assert [(ids([t])[0], t.seats, t.bots) for t in tables] == [(["s1", "s2"], 3, 1)]


def test_invalid_seeks_are_refused() -> None:
    for bad in [(0, 2), (3, 2), (2, 6)]:
        try:
            seek(1, seats=bad)
        except SeekInvalid as refused:
            assert refused.rule == "seek_invalid"
        else:
            raise AssertionError(f"seats {bad} accepted")


def test_seeks_round_trip_through_json() -> None:
    original = seek(7, seats=(2, 5), rating=12.5, bots_after_s=3.0)
    assert Seek.from_json(original.to_json()) == original
    unbounded = seek(8, window=RatingWindow(1.0, 0.0, math.inf))
    assert Seek.from_json(unbounded.to_json()) == unbounded


seeks_strategy = st.lists(
    st.builds(
        lambda n, lo, span, rating, waited, pool, bots, player: seek(
            n,
            seats=(lo, min(5, lo + span)),
            rating=rating,
            waited_s=waited,
            ruleset=("ruleset-a", "ruleset-b")[pool % 2],
            rated=pool < 2 and lo + span >= 2,
            bots_after_s=bots,
            player=f"p{player}",
        ),
        n=st.integers(0, 10_000),
        lo=st.integers(1, 5),
        span=st.integers(0, 4),
        rating=st.floats(0, 50),
        waited=st.floats(0, 120),
        pool=st.integers(0, 3),
        bots=st.one_of(st.none(), st.floats(0, 60)),
        player=st.integers(0, 30),
    ),
    max_size=40,
    unique_by=lambda s: s.seek_id,
)


@settings(max_examples=300, deadline=None)
@given(seeks_strategy)
def test_tables_are_disjoint_compatible_and_within_every_range(seeks: list[Seek]) -> None:
    tables = propose_tables(seeks, NOW)
    seated = [s.seek_id for t in tables for s in t.seeks]
    assert len(seated) == len(set(seated))
    for table in tables:
        assert len({s.pool for s in table.seeks}) == 1
        assert len({s.player for s in table.seeks}) == len(table.seeks)
        assert all(s.accepts_size(table.seats) for s in table.seeks)
        for a, b in itertools.combinations(table.seeks, 2):
            assert compatible(a, b, NOW)
        if table.bots:
            assert all(s.wants_bots(NOW) for s in table.seeks)


@settings(max_examples=300, deadline=None)
@given(seeks_strategy)
def test_no_two_waiting_seeks_could_have_made_a_pair(seeks: list[Seek]) -> None:
    tables = propose_tables(seeks, NOW)
    seated = {s.seek_id for t in tables for s in t.seeks}
    left = [s for s in seeks if s.seek_id not in seated]
    for a, b in itertools.combinations(left, 2):
        assert not (compatible(a, b, NOW) and a.accepts_size(2) and b.accepts_size(2))
    assert not [s for s in left if s.min_seats == 1]


@settings(max_examples=200, deadline=None)
@given(seeks_strategy, st.randoms(use_true_random=False))
def test_the_decision_does_not_depend_on_the_order_seen(
    seeks: list[Seek], rnd: random.Random
) -> None:
    shuffled = list(seeks)
    rnd.shuffle(shuffled)
    assert ids(propose_tables(seeks, NOW)) == ids(propose_tables(shuffled, NOW))
