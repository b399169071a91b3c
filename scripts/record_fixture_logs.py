"""Record fixture logs: real games played through the engine, stored as the store holds them.

Usage (from the repository root)::

    .venv/bin/python scripts/record_fixture_logs.py            # write the missing fixtures
    .venv/bin/python scripts/record_fixture_logs.py --list     # what it would record

Each fixture is two files under ``tests/fixtures/logs/<ruleset>/``:

- ``<name>.jsonl.gz``: one JSON object per stored event, in version order, exactly as
  :class:`services.engine.store.records.StoredEvent` holds it: ``{version, type,
  schema_version, payload, metadata: {command_id, seat, recorded_at}, hash}``. The
  engine's own events (GameCreated, SeatJoined, SeedRevealed) are included.
- ``<name>.expected.json``: what folding the log gave when it was recorded:
  ``{game_id, ruleset, format_date, events, version, head_hash, terminal, seats_to_act,
  scores, result: {scores, ranking} | null, revealed_seed, seats, public_view}``.

Games are played by the engine over the in-memory store (same records as the Redis
store) with a fixed seed, game id and clock, every seat's move chosen by the bot
worker's own policy (Teotibot in solo, greedy otherwise) or at random.

THE COMMITTED FILES ARE THE CONTRACT: they pin what logs written by the code of their
date look like, so that every later version must still fold them (through upcasters).
This script never overwrites an existing fixture; record a NEW fixture (new name) to
capture a new format, never regenerate an old one.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import logging
import random
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import structlog

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from services.bot.policy import Policy, RandomPolicy, SeatPolicy  # noqa: E402
from services.engine.engine import Engine  # noqa: E402
from services.engine.event_json import event_to_json  # noqa: E402
from services.engine.game import GameSnapshot  # noqa: E402
from services.engine.game_seats import SeatKind, SeatSpec, hash_token  # noqa: E402
from services.engine.rulesets import RulesetRegistry, default_registry  # noqa: E402
from services.engine.store.memory import InMemoryEventStore  # noqa: E402
from services.engine.store.records import StoredEvent  # noqa: E402

FIXTURE_DIR = ROOT / "tests" / "fixtures" / "logs"
FORMAT_DATE = "2026-12-01"
"""The code date whose log format the fixtures recorded today show."""


@dataclass(frozen=True)
class Fixture:
    """One game to record.

    Attributes:
        name: file stem.
        ruleset: registered ruleset name.
        seats: seat specs at creation (open human seats have no name and no token).
        options: game options.
        joins: (seat, name, token) claimed with JoinGame right after creation.
        policy: picks every seat's move.
        stop_after: stop once the log has at least this many events (0: play to the end).
    """

    name: str
    ruleset: str
    seats: tuple[SeatSpec, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    joins: tuple[tuple[int, str, str], ...] = ()
    policy: Callable[[], Policy] = SeatPolicy
    stop_after: int = 0


def _human(name: str) -> SeatSpec:
    # Fixture tokens are public test data; only their SHA-256 is in today's format.
    return SeatSpec(SeatKind.HUMAN, name, hash_token(f"fixture-token-{name}-0123456789abcdef"))


def _bot(name: str) -> SeatSpec:
    return SeatSpec(SeatKind.BOT, name)


OPEN = SeatSpec(SeatKind.HUMAN, "")

FIXTURES: tuple[Fixture, ...] = (
    Fixture(
        "first_game_4_bots",
        "teotihuacan",
        (_bot("b0"), _bot("b1"), _bot("b2"), _bot("b3")),
        {"first_game": True},
    ),
    Fixture(
        "standard_3_humans",
        "teotihuacan",
        (_human("ann"), _human("bob"), _bot("cat")),
        {"first_game": False},
        policy=RandomPolicy,
    ),
    Fixture(
        "draft_dark_advanced_3",
        "teotihuacan",
        (_human("ann"), _bot("bo"), _bot("cy")),
        {
            "first_game": False,
            "draft_starting_tiles": True,
            "dark_eclipse": True,
            "advanced_worship": True,
        },
        policy=RandomPolicy,
    ),
    Fixture(
        "solo_teotibot",
        "teotihuacan",
        (_human("ann"), _bot("Teotibot")),
        {"solo": True, "first_game": False},
    ),
    Fixture(
        "joined_seat_2",
        "teotihuacan",
        (_bot("bo"), OPEN),
        {"first_game": True},
        joins=((1, "dee", "fixture-token-dee-0123456789abcdef"),),
        policy=RandomPolicy,
    ),
    Fixture(
        "unfinished_standard_4",
        "teotihuacan",
        (_human("ann"), _bot("bo"), _human("cy"), _bot("di")),
        {"first_game": False},
        policy=RandomPolicy,
        stop_after=150,
    ),
    Fixture("nim_2_bots", "nim", (_bot("n0"), _bot("n1")), {"max_take": 3}),
    Fixture(
        "nim_3_joined",
        "nim",
        (_bot("n0"), OPEN, _human("n2")),
        {"max_take": 4},
        joins=((1, "joiner", "fixture-token-joiner-0123456789abcdef"),),
    ),
    Fixture("nim_unfinished", "nim", (_bot("n0"), _bot("n1")), {}, stop_after=4),
)


def registry() -> RulesetRegistry:
    """The shipped rulesets plus the test Nim ruleset (tests/nim.py)."""
    from tests.nim import NimRuleset

    reg = default_registry()
    reg.register("nim", NimRuleset)
    return reg


def _clock(start: datetime) -> Callable[[], datetime]:
    """A clock that ticks one second per call (deterministic timestamps)."""
    ticks = [0]

    def now() -> datetime:
        ticks[0] += 1
        return start + timedelta(seconds=ticks[0])

    return now


async def play(fixture: Fixture, reg: RulesetRegistry) -> tuple[list[StoredEvent], GameSnapshot]:
    """Play ``fixture`` through the engine; returns its stored log and the final snapshot."""
    store = InMemoryEventStore()
    engine = Engine(
        store,
        reg,
        clock=_clock(datetime(2026, 12, 1, tzinfo=UTC)),
        seed_source=lambda: f"fixture-seed-{fixture.name}-00112233445566778899aabbccddeeff",
        id_source=lambda: f"fixture-{fixture.name}".replace("_", "-"),
    )
    created = await engine.create_game(fixture.ruleset, fixture.seats, fixture.options)
    game_id = created.game_id
    for seat, name, token in fixture.joins:
        await engine.join_game(game_id, seat, name, hash_token(token), command_id=f"join-{seat}")
    policy = fixture.policy()
    snapshot = await engine.load(game_id)
    while not snapshot.is_terminal():
        if fixture.stop_after and snapshot.version >= fixture.stop_after:
            break
        seat = snapshot.seats_to_act()[0]
        legal = list(snapshot.ruleset.legal_actions(snapshot.state, seat))
        rng = random.Random(f"{fixture.name}:{snapshot.version}:{seat}")
        action = policy.choose(snapshot.ruleset, snapshot.state, seat, legal, rng)
        await engine.submit_action(
            game_id,
            seat,
            action,
            expected_version=snapshot.version,
            command_id=f"cmd-{snapshot.version}-{seat}",
        )
        snapshot = await engine.load(game_id)
    return await store.read(game_id), snapshot


def expected_json(snapshot: GameSnapshot, events: int) -> dict[str, Any]:
    """What the fixture test compares after folding (see the module docstring)."""
    ruleset = snapshot.ruleset
    result = ruleset.result(snapshot.state)
    return {
        "game_id": snapshot.game_id,
        "ruleset": snapshot.ruleset_name,
        "format_date": FORMAT_DATE,
        "events": events,
        "version": snapshot.version,
        "head_hash": snapshot.head_hash,
        "terminal": snapshot.is_terminal(),
        "seats_to_act": list(snapshot.seats_to_act()),
        "scores": list(ruleset.scores(snapshot.state)),
        "result": None
        if result is None
        else {"scores": list(result.scores), "ranking": list(result.ranking)},
        "revealed_seed": snapshot.revealed_seed,
        "seats": [seat.to_json() for seat in snapshot.seats],
        "public_view": ruleset.view(snapshot.state, None),
    }


def paths(fixture: Fixture) -> tuple[Path, Path]:
    """(log file, expected-state file) of ``fixture``."""
    folder = FIXTURE_DIR / fixture.ruleset
    return folder / f"{fixture.name}.jsonl.gz", folder / f"{fixture.name}.expected.json"


def write(fixture: Fixture, events: list[StoredEvent], snapshot: GameSnapshot) -> None:
    """Write both files of ``fixture`` (gzip without a timestamp, so bytes are stable)."""
    log_path, expected_path = paths(fixture)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps(event_to_json(e), sort_keys=True) + "\n" for e in events)
    with (
        log_path.open("wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as out,
    ):
        out.write(lines.encode("utf-8"))
    expected_path.write_text(
        json.dumps(expected_json(snapshot, len(events)), indent=1, sort_keys=True) + "\n"
    )


def main(argv: list[str] | None = None) -> int:
    """Record every fixture that has no file yet; never overwrite one."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list fixtures and exit")
    args = parser.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    reg = registry()
    for fixture in FIXTURES:
        log_path, expected_path = paths(fixture)
        if args.list:
            exists = "exists" if log_path.exists() else "missing"
            sys.stdout.write(f"{fixture.ruleset}/{fixture.name}: {exists}\n")
            continue
        if log_path.exists() or expected_path.exists():
            sys.stdout.write(f"kept {log_path.relative_to(ROOT)} (never regenerated)\n")
            continue
        events, snapshot = asyncio.run(play(fixture, reg))
        write(fixture, events, snapshot)
        sys.stdout.write(f"wrote {log_path.relative_to(ROOT)}: {len(events)} events\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
