"""Schema-shape guard: an event payload change without a schema_version bump fails.

Every payload of seeded random games (every option set of every ruleset, plus the
engine's own events) and of every committed fixture log must match the registered JSON
Schema of its (type, schema_version) in ``docs/event-schemas/`` (see its README and
``tests/event_schemas.py``).
"""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from tests.event_schemas import check, keyed_payloads, load_registry, played_samples, scope_of
from tests.unit.test_fixture_logs import LOGS, expected_of, load_log


def test_every_registered_schema_is_a_valid_json_schema() -> None:
    registered = load_registry()
    assert {scope for scope, _type, _version in registered} >= {"engine", "teotihuacan", "nim"}
    for schema in registered.values():
        jsonschema.Draft202012Validator.check_schema(schema)


def test_seeded_games_of_every_option_set_emit_only_registered_shapes() -> None:
    samples = played_samples(seeds=1)
    seen = {key for key, _payload in samples}
    assert ("engine", "GameCreated", 3) in seen
    assert ("engine", "SeatJoined", 2) in seen
    assert ("engine", "SecretsRevealed", 1) in seen
    assert ("engine", "SeedRevealed", 1) in seen
    assert ("teotihuacan", "StartingTilesChosen", 2) in seen
    assert ("teotihuacan", "TeotibotActionChosen", 1) in seen
    assert ("teotihuacan", "StartingTileDrafted", 1) in seen
    problems = check(samples, load_registry())
    assert not problems, "\n".join(str(p) for p in problems)


@pytest.mark.parametrize("path", LOGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_logs_match_the_schemas_of_their_versions(path: Path) -> None:
    ruleset = expected_of(path)["ruleset"]
    problems = check(keyed_payloads(ruleset, load_log(path)), load_registry())
    assert not problems, "\n".join(str(p) for p in problems)


def test_a_changed_payload_without_a_version_bump_is_caught() -> None:
    registered = load_registry()
    path = next(p for p in LOGS if p.name.startswith("first_game_4_bots"))
    events = load_log(path)
    ruleset = expected_of(path)["ruleset"]
    key, payload = next((k, p) for k, p in keyed_payloads(ruleset, events) if k[1] == "WorkerMoved")
    renamed = {("seat_index" if k == "seat" else k): v for k, v in payload.items()}
    retyped = {**payload, "seat": str(payload["seat"])}
    added = {**payload, "extra": 1}
    for changed in (renamed, retyped, added):
        problems = check([(key, changed)], registered)
        assert [p.key for p in problems] == [key]
    bumped = (key[0], key[1], key[2] + 1)
    assert "no schema registered" in check([(bumped, payload)], registered)[0].reason
    assert check([(key, payload)], registered) == []


def test_engine_events_have_their_own_scope_whatever_the_ruleset() -> None:
    assert scope_of("GameCreated", "nim") == scope_of("SeedRevealed", "teotihuacan") == "engine"
    assert scope_of("WorkerMoved", "teotihuacan") == "teotihuacan"
