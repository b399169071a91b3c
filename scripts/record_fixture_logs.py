"""Record fixture logs: real games played through the engine, stored as the store holds them.

Usage (from the repository root)::

    .venv/bin/python scripts/record_fixture_logs.py            # write the missing fixtures
    .venv/bin/python scripts/record_fixture_logs.py --list     # what it would record

Each fixture is two files in its ruleset's folder: ``services/games/<ruleset>/tests/
fixture_logs/`` for a game (which declares its fixtures in that folder's ``samples.py``),
``tests/fixtures/logs/<ruleset>/`` for the test-only Nim (declared here):

- ``<name>.jsonl.gz``: one JSON object per stored event, in version order, exactly as
  :class:`services.engine.domain.records.StoredEvent` holds it: ``{version, type,
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
import sys
from pathlib import Path
from typing import Any

import structlog

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from services.engine.domain.event_json import event_to_json  # noqa: E402
from services.engine.domain.game import GameSnapshot  # noqa: E402
from services.engine.domain.records import StoredEvent  # noqa: E402
from services.engine.domain.timing.time_control import TimeControl, TimeoutPolicy  # noqa: E402
from tests.game_driver import (  # noqa: E402
    OPEN,
    Fixture,
    bot,
    human,
    play,
    player_seat,
    registry,
)
from tests.game_samples import fixture_log_dir, game_names, samples_of  # noqa: E402

FORMAT_DATE = "2026-12-07"
"""The code date whose log format the fixtures recorded today show."""


TEST_GAME_FIXTURES: tuple[Fixture, ...] = (
    Fixture("nim_2_bots", "nim", (bot("n0"), bot("n1")), {"max_take": 3}),
    Fixture(
        "nim_3_joined",
        "nim",
        (bot("n0"), OPEN, human("n2")),
        {"max_take": 4},
        joins=((1, "joiner", "fixture-token-joiner-0123456789abcdef"),),
    ),
    Fixture("nim_unfinished", "nim", (bot("n0"), bot("n1")), {}, stop_after=4),
    # Player accounts (issue 32): GameCreated v4 and SeatJoined v3 name each seat's
    # player; ann's seat is bound at creation, bob joins the open one as a player.
    Fixture(
        "nim_player_seats",
        "nim",
        (player_seat("ann", "0a1b2c3d4e5f60718293"), OPEN, bot("n2")),
        {"max_take": 3},
        player_joins=((1, "bob", "a4b3c2d1e0f9a8b7c6d5"),),
    ),
    # Rated games (issue 32): GameCreated v5 says the game is rated; every seat is a
    # player's (ann's bound at creation, bob joins the open one as a player), and ann
    # resigns at version 4 (a resigned seat is rated last).
    Fixture(
        "nim_rated_players",
        "nim",
        (player_seat("ann", "0a1b2c3d4e5f60718293"), OPEN),
        {"max_take": 3},
        player_joins=((1, "bob", "a4b3c2d1e0f9a8b7c6d5"),),
        resignations=((4, 0),),
        rated=True,
    ),
    # The format after issue 11 (hidden values as commitments, SecretsRevealed).
    Fixture("nim_lucky_2", "nim", (bot("n0"), bot("n1")), {"max_take": 2, "lucky": True}),
    # Clocks (engine events ClockStarted, ClocksUpdated, SeatTimedOut, SeatForfeited): bob
    # lets his clock run out at version 6, forfeits, and a zombie finishes for him.
    Fixture(
        "nim_clock_forfeit",
        "nim",
        (human("ann"), human("bob")),
        {"max_take": 3},
        time_control=TimeControl(60_000, 2_000, 0, TimeoutPolicy.FORFEIT),
        timeouts=(6,),
    ),
    # A tournament withdrawal (issue 30 item 4): bob's player withdraws at version 6 while
    # his day-long clock runs; SeatForfeited without SeatTimedOut, and a zombie finishes.
    Fixture(
        "nim_withdraw_forfeit",
        "nim",
        (human("ann"), human("bob")),
        {"max_take": 3},
        time_control=TimeControl(0, 0, 86_400_000, TimeoutPolicy.FORFEIT),
        withdrawals=((6, 1),),
    ),
    # Leaving a game (issue 32), no clock: cy (to act at version 4) stays away and dee
    # claims her seat for a bot (SeatClaimedForBot; Nim has no bot of its own, so
    # SeatForfeited); bob resigns at version 9 (three seats still in: he is out,
    # SeatForfeited) and zombies finish for both.
    Fixture(
        "nim_leave_4",
        "nim",
        (human("ann"), human("bob"), human("cy"), human("dee")),
        {"max_take": 2},
        claims=(4,),
        resignations=((9, 1),),
    ),
    # A 2-seat resignation ends the game at once (SeatResigned game_ended, SeedRevealed).
    Fixture(
        "nim_resign_2",
        "nim",
        (human("ann"), human("bob")),
        {"max_take": 3, "lucky": True},
        resignations=((4, 0),),
    ),
)
"""The fixtures of the test-only Nim ruleset (tests/nim.py), which has no game folder."""


def fixtures() -> tuple[Fixture, ...]:
    """Every fixture: Nim's, then each registered game's own (its ``samples.py``)."""
    games = tuple(f for name in game_names() for f in samples_of(name).fixture_logs)
    return TEST_GAME_FIXTURES + games


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
        # Since 2026-12-07: the engine's result (seats out ranked last; a game a
        # resignation ended ranks the seats still in by their scores).
        "game_result": _result_json(snapshot),
        "revealed_seed": snapshot.revealed_seed,
        "seats": [seat.to_json() for seat in snapshot.seats],
        "public_view": ruleset.view(snapshot.state, None),
    }


def _result_json(snapshot: GameSnapshot) -> dict[str, Any] | None:
    result = snapshot.result()
    if result is None:
        return None
    return {"scores": list(result.scores), "ranking": list(result.ranking)}


def paths(fixture: Fixture) -> tuple[Path, Path]:
    """(log file, expected-state file) of ``fixture``."""
    folder = fixture_log_dir(fixture.ruleset)
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
    for fixture in fixtures():
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
