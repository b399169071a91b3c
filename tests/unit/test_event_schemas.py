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
from tests.game_samples import game_names, samples_of
from tests.unit.test_fixture_logs import LOGS, expected_of, load_log, log_id


def test_every_registered_schema_is_a_valid_json_schema() -> None:
    registered = load_registry()
    assert {scope for scope, _type, _version in registered} >= {"engine", "nim", *game_names()}
    for schema in registered.values():
        jsonschema.Draft202012Validator.check_schema(schema)


def test_seeded_games_of_every_option_set_emit_only_registered_shapes() -> None:
    samples = played_samples(seeds=1)
    seen = {key for key, _payload in samples}
    assert ("engine", "GameCreated", 5) in seen
    assert ("engine", "SeatJoined", 3) in seen
    assert ("engine", "SecretsRevealed", 1) in seen
    assert ("engine", "SeedRevealed", 1) in seen
    for name in game_names():  # each game's rarer events (its folder's samples.py)
        for event_type, version in samples_of(name).schema_events:
            assert (name, event_type, version) in seen
    problems = check(samples, load_registry())
    assert not problems, "\n".join(str(p) for p in problems)


@pytest.mark.parametrize("path", LOGS, ids=log_id)
def test_fixture_logs_match_the_schemas_of_their_versions(path: Path) -> None:
    ruleset = expected_of(path)["ruleset"]
    problems = check(keyed_payloads(ruleset, load_log(path)), load_registry())
    assert not problems, "\n".join(str(p) for p in problems)


def test_engine_events_have_their_own_scope_whatever_the_ruleset() -> None:
    for ruleset in ["nim", *game_names()]:
        assert scope_of("GameCreated", ruleset) == scope_of("SeedRevealed", ruleset) == "engine"
        assert scope_of("StonesTaken", ruleset) == ruleset
