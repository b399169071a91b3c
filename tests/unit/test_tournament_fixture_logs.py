"""Recorded tournament logs (each game's tests/tournament_logs/, written once by its
record_tournament_fixture.py; see tests/game_samples.py) still chain, fold to their
recorded standings and replay their pairings from the revealed seed: the tournament
events are a permanent contract, like the games'."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from services.engine.domain.chain import verify_chain
from services.engine.domain.event_json import event_from_json
from services.engine.domain.records import StoredEvent
from services.tournament import events as ev
from services.tournament.aggregate import fold, replay_pairings
from tests.game_samples import tournament_log_dirs

LOGS = sorted(path for folder in tournament_log_dirs() for path in folder.glob("*.jsonl.gz"))


def load_log(path: Path) -> list[StoredEvent]:
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [event_from_json(json.loads(line)) for line in lines]


def expected_of(path: Path) -> dict[str, Any]:
    stem = path.name.removesuffix(".jsonl.gz")
    data: dict[str, Any] = json.loads(path.with_name(f"{stem}.expected.json").read_text())
    return data


def test_the_fixtures_hold_every_tournament_event_type() -> None:
    types = {event.type for path in LOGS for event in load_log(path)}
    assert {
        ev.TOURNAMENT_CREATED,
        ev.PLAYER_REGISTERED,
        ev.PLAYER_WITHDREW,
        ev.TOURNAMENT_STARTED,
        ev.ROUND_PAIRED,
        ev.TABLE_FINISHED,
        ev.ROUND_FINISHED,
        ev.TOURNAMENT_FINISHED,
        ev.SEED_REVEALED,
    } <= types


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_a_tournament_fixture_chains_folds_and_replays(path: Path) -> None:
    events = load_log(path)
    expected = expected_of(path)
    assert len(events) == expected["events"]
    assert verify_chain(events, (expected["version"], expected["head_hash"])).ok
    state = fold(events)
    assert state.status == expected["status"]
    assert len(state.rounds) == expected["rounds"]
    standings = [
        {"player": row.player, "rank": row.rank, "points": row.points} for row in state.standings()
    ]
    assert standings == expected["standings"]
    replay = replay_pairings(events)
    assert replay.ok and replay.rounds_checked == expected["pairings_checked"]


def test_a_fixture_holds_accounts_entered_as_themselves() -> None:
    # PlayerRegistered v2 (a player account entered itself) folds for ever too.
    found = {}
    for path in LOGS:
        events = load_log(path)
        v2 = [e for e in events if e.type == ev.PLAYER_REGISTERED and e.schema_version == 2]
        if v2:
            state = fold(events)
            found = {e.player: e.player_id for e in state.entrants if e.player_id}
            assert set(found) == {str(e.payload["player"]) for e in v2}
    assert found, "no recorded tournament log holds a PlayerRegistered v2"
