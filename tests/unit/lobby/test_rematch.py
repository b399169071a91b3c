"""The rematch rules (services.lobby.rematch), pure: one offer per finished game, the one
who offers has accepted, the last acceptance opens it, a decline ends it, an offer lapses
after its time to live; only the game's players take part."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.lobby.rematch import (
    REMATCH_TTL_MS,
    REMATCH_WINDOW_MS,
    Rematch,
    RematchStatus,
    accept,
    check_window,
    decline,
    offer,
    rematch_ids,
)
from services.lobby.tables import LobbyRefused

NOW = 1_700_000_000_000
PLAYERS = ("ann", "bob", "cy")


def _rule(call: object) -> str:
    with pytest.raises(LobbyRefused) as refused:
        call()  # type: ignore[operator]
    return refused.value.rule


def test_the_last_acceptance_opens_the_rematch() -> None:
    made = offer("g1", "bob", PLAYERS, NOW)
    assert (made.status, made.accepted, made.expires_ms) == (
        RematchStatus.OFFERED,
        ("bob",),
        NOW + REMATCH_TTL_MS,
    )
    assert (made.offer_id, made.table_id) == rematch_ids("g1")
    one = accept(made, "ann", NOW + 1)
    assert one.status is RematchStatus.OFFERED and accept(one, "ann", NOW + 2) == one
    done = accept(one, "cy", NOW + 3)
    assert (done.status, done.decided_ms) == (RematchStatus.ACCEPTED, NOW + 3)
    assert _rule(lambda: decline(done, "ann", NOW + 4)) == "rematch_accepted"


def test_a_decline_ends_it_and_strangers_take_no_part() -> None:
    made = offer("g1", "ann", PLAYERS, NOW)
    assert _rule(lambda: offer("g1", "eve", PLAYERS, NOW)) == "not_in_game"
    assert _rule(lambda: accept(made, "eve", NOW)) == "not_in_game"
    assert _rule(lambda: decline(made, "eve", NOW)) == "not_in_game"
    off = decline(made, "cy", NOW + 1)
    assert off.status is RematchStatus.DECLINED and decline(off, "cy", NOW + 2) == off
    assert _rule(lambda: accept(off, "bob", NOW + 2)) == "rematch_declined"


def test_an_offer_lapses_after_its_time_to_live() -> None:
    made = offer("g1", "ann", PLAYERS, NOW)
    late = NOW + REMATCH_TTL_MS
    assert made.expired(late) and not made.expired(late - 1)
    assert _rule(lambda: accept(made, "bob", late)) == "rematch_expired"
    assert _rule(lambda: decline(made, "bob", late)) == "rematch_expired"


def test_a_player_alone_with_bots_has_the_rematch_at_once() -> None:
    assert offer("g1", "ann", ("ann",), NOW).status is RematchStatus.ACCEPTED


def test_the_rematch_survives_its_json() -> None:
    made = accept(offer("g1", "ann", PLAYERS, NOW), "bob", NOW + 5)
    assert Rematch.from_json(made.to_json()) == made


@given(
    players=st.lists(st.sampled_from("abcde"), min_size=1, max_size=5, unique=True),
    order=st.lists(st.sampled_from("abcdefg"), max_size=12),
)
def test_accepted_only_by_players_and_on_once_all_did(players: list[str], order: list[str]) -> None:
    rematch = offer("g", players[0], tuple(players), NOW)
    for n, player in enumerate(order):
        try:
            rematch = accept(rematch, player, NOW + n)
        except LobbyRefused as refused:
            assert refused.rule == "not_in_game" and player not in players
    assert set(rematch.accepted) <= set(players)
    assert len(set(rematch.accepted)) == len(rematch.accepted)
    on = set(rematch.accepted) == set(players)
    assert (rematch.status is RematchStatus.ACCEPTED) == on


@given(st.integers(min_value=-REMATCH_WINDOW_MS, max_value=3 * REMATCH_WINDOW_MS))
def test_a_rematch_is_offered_within_a_day_of_the_games_end(late_ms: int) -> None:
    if late_ms <= REMATCH_WINDOW_MS:
        check_window("g1", NOW, NOW + late_ms)
    else:
        assert _rule(lambda: check_window("g1", NOW, NOW + late_ms)) == "rematch_window_closed"
