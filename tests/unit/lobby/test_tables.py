"""Lobby table rules (services.lobby.tables), from the issue: open tables list seats taken
and free; create a table, join a seat, leave before start, start when full or by the host
filling empty seats with bots."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.lobby.tables import (
    EMPTY,
    LobbyRefused,
    LobbyTable,
    TableStatus,
    is_full,
    join,
    leave,
    open_table,
    opened,
    start,
)


def table(seats: int = 3, rated: bool = False, host_sits: bool = True) -> LobbyTable:
    return open_table("t1", "host", "ruleset-a", seats, rated=rated, host_sits=host_sits)


@contextmanager
def refused(rule: str) -> Iterator[None]:
    """Expect a LobbyRefused naming ``rule``."""
    with pytest.raises(LobbyRefused) as caught:
        yield
    assert caught.value.rule == rule


def test_the_host_sits_first_and_players_take_free_seats() -> None:
    t = join(join(table(), "ann"), "bob")
    assert t.seats == ("host", "ann", "bob")
    assert is_full(t)


def test_a_chosen_seat() -> None:
    assert join(table(), "ann", seat=2).seats == ("host", EMPTY, "ann")
    with refused("seat_taken"):
        join(table(), "ann", seat=0)
    with refused("no_such_seat"):
        join(table(), "ann", seat=3)


def test_no_player_sits_twice_and_a_full_table_takes_nobody() -> None:
    with refused("already_seated"):
        join(table(), "host")
    with refused("table_full"):
        join(join(table(2), "ann"), "bob")


def test_leaving_before_the_start_frees_the_seat() -> None:
    t = leave(join(table(), "ann"), "ann")
    assert t.seats == ("host", EMPTY, EMPTY)
    with refused("not_seated"):
        leave(t, "ann")


def test_the_host_leaving_closes_the_table() -> None:
    closed = leave(join(table(), "ann"), "host")
    assert closed.status is TableStatus.CLOSED
    with refused("table_not_open"):
        join(closed, "bob")


def test_a_full_table_starts_for_anyone_with_no_bots() -> None:
    t = start(join(join(table(), "ann"), "bob"), by="bob")
    assert (t.status, t.bots, t.game_id) == (TableStatus.STARTED, (), "")
    assert opened(t, "g1").game_id == "g1"
    assert opened(opened(t, "g1"), "g1").game_id == "g1"
    with refused("table_has_a_game"):
        opened(opened(t, "g1"), "g2")
    with refused("table_not_open"):
        leave(t, "ann")


def test_only_the_host_starts_early_and_only_with_bots_and_unrated() -> None:
    t = join(table(4), "ann")
    with refused("not_the_host"):
        start(t, by="ann", fill_with_bots=True)
    with refused("table_not_full"):
        start(t, by="host")
    assert start(t, by="host", fill_with_bots=True).bots == (2, 3)
    with refused("rated_table_bots"):
        start(join(table(4, rated=True), "ann"), by="host", fill_with_bots=True)
    with refused("no_players"):
        start(table(3, host_sits=False), by="host", fill_with_bots=True)
    with refused("table_not_started"):
        opened(t, "g1")


def test_table_sizes() -> None:
    with refused("table_seats"):
        table(6)
    with refused("rated_table_seats"):
        table(1, rated=True)


def test_tables_round_trip_through_json() -> None:
    t = start(join(table(4), "ann"), by="host", fill_with_bots=True)
    assert LobbyTable.from_json(t.to_json()) == t


actions = st.lists(
    st.tuples(
        st.sampled_from(["join", "leave", "start", "start_bots"]),
        st.sampled_from(["host", "ann", "bob", "cat", "dan", "eve"]),
        st.one_of(st.none(), st.integers(0, 5)),
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 5), st.booleans(), actions)
def test_any_sequence_keeps_a_table_sound(
    seats: int, rated: bool, steps: list[tuple[str, str, Any]]
) -> None:
    t = open_table("t", "host", "ruleset-b", seats, rated=rated and seats > 1)
    starts = 0
    for kind, player, seat in steps:
        before = t
        try:
            if kind == "join":
                t = join(t, player, seat)
            elif kind == "leave":
                t = leave(t, player)
            else:
                t = start(t, player, fill_with_bots=kind == "start_bots")
                starts += 1
        except LobbyRefused:
            assert t == before  # a refusal changes nothing
        players = t.players
        assert len(players) == len(set(players))
        assert len(t.seats) == seats
        if t.status is TableStatus.STARTED:
            assert len(players) + len(t.bots) == seats
            assert not (t.rated and t.bots)
    assert starts <= 1
