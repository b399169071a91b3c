"""Engine events of older versions (docs/events.md): GameCreated v1/v2/v3/v4 and SeatJoined
v1/v2 upcast to today's shapes (v5 and v3: each seat names its player, "" for none, and
no game before v5 was rated), and
the token hashes old logs hold in clear are honoured read-only (shown on a game's
committed fixture logs, recorded in that format: in its folder,
services/games/<name>/tests/)."""

from __future__ import annotations

from services.engine.domain import engine_events
from services.engine.domain.engine_events import GAME_CREATED, SEAT_JOINED
from services.engine.domain.fairness import commit
from services.engine.domain.game_seats import hash_token
from services.engine.domain.ruleset import DomainEvent

HASH = hash_token("some-old-token-0123456789")


def test_game_created_v2_loses_token_hashes_and_gains_open() -> None:
    v2 = DomainEvent(
        GAME_CREATED,
        {
            "ruleset": "nim",
            "seats": [
                {"kind": "human", "name": "ann", "token_hash": HASH},
                {"kind": "human", "name": "", "token_hash": ""},
                {"kind": "bot", "name": "b", "token_hash": ""},
            ],
            "options": {},
            "seed_commitment": commit("s"),
        },
        2,
    )
    v4 = engine_events.upcast(v2)
    assert v4.schema_version == 5 and v4.payload["rated"] is False
    assert v4.payload["seats"] == [
        {"kind": "human", "name": "ann", "open": False, "player": ""},
        {"kind": "human", "name": "", "open": True, "player": ""},
        {"kind": "bot", "name": "b", "open": False, "player": ""},
    ]
    assert engine_events.legacy_token_hashes(v2) == {0: HASH}
    assert engine_events.legacy_token_hashes(v4) == {}


def test_game_created_v3_gains_an_unbound_player() -> None:
    seats = [
        {"kind": "human", "name": "ann", "open": False},
        {"kind": "human", "name": "", "open": True},
        {"kind": "bot", "name": "b", "open": False},
    ]
    v3 = DomainEvent(
        GAME_CREATED,
        {"ruleset": "nim", "seats": seats, "options": {}, "seed_commitment": commit("s")},
        3,
    )
    v4 = engine_events.upcast(v3)
    assert v4.schema_version == 5 and v4.payload["rated"] is False
    assert v4.payload["seats"] == [{**seat, "player": ""} for seat in seats]
    assert v4.payload["seed_commitment"] == commit("s")
    assert engine_events.upcast(v4) == v4  # current: as is


def test_game_created_v4_is_unrated() -> None:
    seats = [{"kind": "human", "name": "ann", "open": False, "player": "p1"}]
    v4 = DomainEvent(
        GAME_CREATED,
        {"ruleset": "nim", "seats": seats, "options": {}, "seed_commitment": commit("s")},
        4,
    )
    v5 = engine_events.upcast(v4)
    assert v5 == DomainEvent(GAME_CREATED, {**v4.payload, "rated": False}, 5)
    assert engine_events.upcast(v5) == v5  # current: as is


def test_game_created_v1_commits_its_clear_seed() -> None:
    v1 = DomainEvent(
        GAME_CREATED,
        {"ruleset": "nim", "seats": [{"kind": "bot", "name": "b"}], "options": {}, "seed": "s"},
        1,
    )
    v4 = engine_events.upcast(v1)
    assert v4.schema_version == 5 and v4.payload["seed_commitment"] == commit("s")
    assert "seed" not in v4.payload and engine_events.legacy_seed(v1) == "s"


def test_seat_joined_v1_loses_its_token_hash() -> None:
    v1 = DomainEvent(SEAT_JOINED, {"seat": 1, "name": "dee", "token_hash": HASH})
    assert engine_events.upcast(v1) == DomainEvent(
        SEAT_JOINED, {"seat": 1, "name": "dee", "player": ""}, 3
    )
    assert engine_events.legacy_token_hashes(v1) == {1: HASH}


def test_seat_joined_v2_gains_an_unbound_player() -> None:
    v2 = DomainEvent(SEAT_JOINED, {"seat": 1, "name": "dee"}, 2)
    assert engine_events.upcast(v2) == DomainEvent(
        SEAT_JOINED, {"seat": 1, "name": "dee", "player": ""}, 3
    )
    assert engine_events.legacy_token_hashes(v2) == {}
