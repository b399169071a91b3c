"""The event schema registry: every event type's payload shape per schema version.

``docs/event-schemas/<scope>/<Type>.v<N>.schema.json`` (scope ``engine`` for GameCreated,
SeatJoined and SeedRevealed, else the ruleset's name) is a JSON Schema (draft 2020-12)
inferred from the payloads of seeded random games of every option set, strict about keys
(``additionalProperties: false``; keys present in every sample are ``required``). The
guard test (``tests/unit/test_event_schemas.py``) plays those games again and fails when
an emitted payload does not match the schema registered for its (type, schema_version):
a payload change without a version bump.

Commands (from the repository root)::

    .venv/bin/python -m tests.event_schemas            # check, print every mismatch
    .venv/bin/python -m tests.event_schemas --update   # register NEW (type, version)s

``--update`` writes a schema for each (type, version) that has none and never rewrites a
registered one: a changed payload needs a new schema_version (and an upcaster), which
then gets its own file while the old one stays for old logs. Only to widen a schema the
sample games had not fully covered (no payload of that version changed), name it:
``--replace <ruleset>/GameSetUp.v1``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import structlog
from genson import SchemaBuilder

from services.bot.policy import RandomPolicy
from services.engine.domain.engine_events import ENGINE_EVENTS
from services.engine.domain.records import StoredEvent
from tests.game_driver import OPEN, Fixture, bot, play, registry
from tests.game_samples import game_names, samples_of
from tests.tournament_samples import SCOPE as TOURNAMENT_SCOPE
from tests.tournament_samples import tournament_samples

REGISTRY_DIR = Path(__file__).resolve().parent.parent / "docs" / "event-schemas"
ENGINE_SCOPE = "engine"
DRAFT = "https://json-schema.org/draft/2020-12/schema"

Key = tuple[str, str, int]
"""(scope, event type, schema version)."""


def sample_games(seeds: int = 1) -> list[Fixture]:
    """Seeded random games covering every option set of each ruleset (and every engine
    event: an open seat is claimed with JoinGame in a game of each seed 0). Each game's
    own sample games come from its folder (``samples.py``, tests/game_samples.py)."""
    games: list[Fixture] = []
    for seed in range(seeds):
        for name in game_names():
            games.extend(samples_of(name).schema_games(seed))
        games.append(
            Fixture(
                f"schemas_nim_{seed}",
                "nim",
                (bot("n0"), OPEN, bot("n2")),
                {"max_take": 2 + seed},
                joins=((1, "joiner", "schema-token-nim-0123456789abcdef"),),
                policy=RandomPolicy,
            )
        )
        games.append(  # hidden information: sealed lucky numbers, revealed mid-game
            Fixture(
                f"schemas_nim_lucky_{seed}",
                "nim",
                (bot("n0"), bot("n1")),
                {"max_take": 2, "lucky": True},
                policy=RandomPolicy,
            )
        )
    return games


def scope_of(event_type: str, ruleset: str) -> str:
    """Registry folder of an event type: ``engine`` or the ruleset's name."""
    return ENGINE_SCOPE if event_type in ENGINE_EVENTS else ruleset


def schema_path(key: Key) -> Path:
    """File of one (scope, type, version) schema."""
    scope, event_type, version = key
    return REGISTRY_DIR / scope / f"{event_type}.v{version}.schema.json"


def keyed_payloads(ruleset: str, events: Iterable[StoredEvent]) -> Iterator[tuple[Key, Any]]:
    """(registry key, payload) of each event of a game played with ``ruleset``."""
    for event in events:
        yield (scope_of(event.type, ruleset), event.type, event.schema_version), event.payload


def played_samples(seeds: int = 1) -> list[tuple[Key, Any]]:
    """Payloads of every event of :func:`sample_games`, keyed."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    reg = registry()
    samples: list[tuple[Key, Any]] = []
    for game in sample_games(seeds):
        events, _snapshot = asyncio.run(play(game, reg))
        samples.extend(keyed_payloads(game.ruleset, events))
    samples.extend(tournament_samples(seeds))
    # Clocked games (every clock event; engine scope only): tests/clocks/samples.py.
    from tests.clocks.samples import clock_event_samples

    samples.extend(keyed_payloads("nim", clock_event_samples()))
    # Leaving a game (every outcome and claim reason; engine scope): tests/leaving_samples.py.
    from tests.leaving_samples import leaving_event_samples

    samples.extend(keyed_payloads("nim", leaving_event_samples()))
    return samples


def _strict(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every object closed to unknown keys and lists sorted (stable files)."""
    if "properties" in schema:
        schema["additionalProperties"] = False
        schema["properties"] = {k: _strict(v) for k, v in sorted(schema["properties"].items())}
    if "required" in schema:
        schema["required"] = sorted(schema["required"])
    if isinstance(schema.get("items"), dict):
        schema["items"] = _strict(schema["items"])
    for union in ("anyOf", "oneOf"):
        if union in schema:
            schema[union] = [_strict(s) for s in schema[union]]
    if isinstance(schema.get("type"), list):
        schema["type"] = sorted(schema["type"])
    return schema


SEALED_SCHEMA: dict[str, Any] = {
    "description": "commitments by secret id (docs/events.md, Commitments and reveals)",
    "type": "object",
    "additionalProperties": {
        "additionalProperties": False,
        "properties": {
            "commitment": {"pattern": "^[0-9a-f]{64}$", "type": "string"},
            "seats": {"items": {"type": "integer"}, "type": "array"},
        },
        "required": ["commitment", "seats"],
        "type": "object",
    },
}
"""The engine's reserved ``sealed`` key: secret ids are the ruleset's (often numbered, as
``dug:<n>``), so the schema fixes the shape of each commitment, not the ids."""


TOURNAMENT_OPTIONS_SCHEMA: dict[str, Any] = {
    "description": "the ruleset's options object (its own schema, see GameCreated)",
    "type": "object",
}
POINTS_BY_PLACE_SCHEMA: dict[str, Any] = {
    "description": "table size (decimal text) -> points for places 1..size",
    "type": "object",
    "propertyNames": {"pattern": "^[0-9]+$"},
    "additionalProperties": {"items": {"type": "number"}, "type": "array"},
}
"""Keys of a TournamentCreated config that are maps, not fixed shapes."""


def infer(samples: Iterable[tuple[Key, Any]]) -> dict[Key, dict[str, Any]]:
    """One strict JSON Schema per key, covering every sample payload of that key."""
    builders: dict[Key, SchemaBuilder] = {}
    for key, payload in samples:
        builders.setdefault(key, SchemaBuilder(schema_uri=DRAFT)).add_object(payload)
    schemas = {}
    for key, builder in sorted(builders.items()):
        scope, event_type, version = key
        schema = _strict(builder.to_schema())
        if "sealed" in schema.get("properties", {}):
            schema["properties"]["sealed"] = SEALED_SCHEMA
        if (scope, event_type) == (TOURNAMENT_SCOPE, "TournamentCreated"):
            config = schema["properties"]["config"]["properties"]
            config["options"] = TOURNAMENT_OPTIONS_SCHEMA
            config["points_by_place"] = POINTS_BY_PLACE_SCHEMA
        schema["title"] = f"{event_type} v{version} ({scope})"
        schemas[key] = schema
    return schemas


def load_registry() -> dict[Key, dict[str, Any]]:
    """Every committed schema, by key."""
    registered: dict[Key, dict[str, Any]] = {}
    for path in sorted(REGISTRY_DIR.glob("*/*.schema.json")):
        event_type, _, version = path.name.removesuffix(".schema.json").rpartition(".v")
        registered[(path.parent.name, event_type, int(version))] = json.loads(path.read_text())
    return registered


@dataclass(frozen=True)
class Mismatch:
    """A payload its registered schema does not accept (or an unregistered key)."""

    key: Key
    reason: str

    def __str__(self) -> str:
        scope, event_type, version = self.key
        return (
            f"{scope}/{event_type} v{version}: {self.reason} — a payload change needs a new "
            "schema_version and an upcaster (then: python -m tests.event_schemas --update)"
        )


def check(
    samples: Iterable[tuple[Key, Any]], registered: Mapping[Key, Mapping[str, Any]]
) -> list[Mismatch]:
    """First mismatch of every key whose payloads do not match the registry."""
    found: dict[Key, Mismatch] = {}
    validators: dict[Key, jsonschema.protocols.Validator] = {}
    for key, payload in samples:
        if key in found:
            continue
        schema = registered.get(key)
        if schema is None:
            found[key] = Mismatch(key, "no schema registered for this type and version")
            continue
        validator = validators.get(key)
        if validator is None:
            validator = validators[key] = jsonschema.Draft202012Validator(schema)
        error = jsonschema.exceptions.best_match(validator.iter_errors(payload))
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path) or "(payload)"
            found[key] = Mismatch(key, f"at {where}: {error.message[:300]}")
    return list(found.values())


def write_schema(key: Key, schema: Mapping[str, Any]) -> Path:
    """Write one schema file (stable bytes: sorted keys, one-space indent)."""
    path = schema_path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(schema, indent=1, sort_keys=True) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    """Check the registry against freshly played games, or register new versions."""
    parser = argparse.ArgumentParser(description="Event schema registry (see module doc).")
    parser.add_argument("--update", action="store_true", help="register new (type, version)s")
    parser.add_argument("--seeds", type=int, default=3, help="games per option set")
    parser.add_argument(
        "--replace",
        action="append",
        default=[],
        metavar="SCOPE/TYPE.vN",
        help="rewrite this registered schema from the samples (widening only)",
    )
    args = parser.parse_args(argv)
    samples = played_samples(args.seeds)
    registered = load_registry()
    inferred = infer(samples)
    out = sys.stdout
    if args.update:
        for key, schema in inferred.items():
            scope, event_type, version = key
            named = f"{scope}/{event_type}.v{version}" in args.replace
            if key not in registered or named:
                out.write(f"wrote {write_schema(key, schema)}\n")
        registered = load_registry()
    problems = check(samples, registered)
    for problem in problems:
        out.write(f"MISMATCH {problem}\n")
    out.write(f"{len(registered)} schemas registered, {len(problems)} mismatches\n")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
