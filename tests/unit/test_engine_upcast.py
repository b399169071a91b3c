"""Engine events of older versions (docs/events.md): GameCreated v1/v2 and SeatJoined v1
upcast to today's shapes, and the token hashes old logs hold in clear are honoured
read-only (shown on a game's committed fixture logs, recorded in that format: in its
folder, services/games/<name>/tests/)."""

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
    v3 = engine_events.upcast(v2)
    assert v3.schema_version == 3
    assert v3.payload["seats"] == [
        {"kind": "human", "name": "ann", "open": False},
        {"kind": "human", "name": "", "open": True},
        {"kind": "bot", "name": "b", "open": False},
    ]
    assert engine_events.legacy_token_hashes(v2) == {0: HASH}
    assert engine_events.legacy_token_hashes(v3) == {}


def test_game_created_v1_commits_its_clear_seed() -> None:
    v1 = DomainEvent(
        GAME_CREATED,
        {"ruleset": "nim", "seats": [{"kind": "bot", "name": "b"}], "options": {}, "seed": "s"},
        1,
    )
    v3 = engine_events.upcast(v1)
    assert v3.schema_version == 3 and v3.payload["seed_commitment"] == commit("s")
    assert "seed" not in v3.payload and engine_events.legacy_seed(v1) == "s"


def test_seat_joined_v1_loses_its_token_hash() -> None:
    v1 = DomainEvent(SEAT_JOINED, {"seat": 1, "name": "dee", "token_hash": HASH})
    assert engine_events.upcast(v1) == DomainEvent(SEAT_JOINED, {"seat": 1, "name": "dee"}, 2)
    assert engine_events.legacy_token_hashes(v1) == {1: HASH}
