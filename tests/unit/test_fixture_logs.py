"""Old logs fold forever: every committed fixture log reaches its recorded final state.

The fixtures of each game (``services/games/<ruleset>/tests/fixture_logs/``) and of the
test-only Nim (``tests/fixtures/logs/nim/``) are real games recorded by
``scripts/record_fixture_logs.py`` with the code of their ``format_date``, stored exactly
as the store held them. They are never regenerated: when an event's schema changes, its
upcaster (``engine_events.upcast`` / ``Ruleset.upcast``) must make these logs fold to
the same result, scores, seats (names and kinds: token hashes are leaving the log) and
public view (every key recorded) as when they were recorded.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from services.engine.domain.chain import verify_chain
from services.engine.domain.event_json import event_from_json
from services.engine.domain.game import fold
from services.engine.domain.records import StoredEvent
from services.engine.domain.rulesets import RulesetRegistry, default_registry
from tests.game_samples import fixture_log_dirs, game_names, samples_of
from tests.nim import NimRuleset

LOG_DIRS = fixture_log_dirs()
"""Ruleset -> its fixture folder (tests/game_samples.py: each game's folder, and Nim's)."""
LOGS = [
    path for _, folder in sorted(LOG_DIRS.items()) for path in sorted(folder.glob("*.jsonl.gz"))
]
RULESET_OF = {path: name for name, folder in LOG_DIRS.items() for path in folder.glob("*.jsonl.gz")}


def log_id(path: Path) -> str:
    """``<ruleset>/<file name>``: a fixture's test id."""
    return f"{RULESET_OF[path]}/{path.name}"


def load_log(path: Path) -> list[StoredEvent]:
    """The stored events of one fixture log, in file order."""
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [event_from_json(json.loads(line)) for line in lines if line.strip()]


def registry() -> RulesetRegistry:
    """Shipped rulesets plus the test Nim ruleset the nim fixtures were recorded with."""
    reg = default_registry()
    reg.register("nim", NimRuleset)
    return reg


def expected_of(path: Path) -> dict[str, Any]:
    """The recorded final state next to ``path``."""
    stem = path.name.removesuffix(".jsonl.gz")
    data: dict[str, Any] = json.loads(path.with_name(f"{stem}.expected.json").read_text())
    return data


NIM_FIXTURES = {
    "nim/nim_2_bots",
    "nim/nim_3_joined",
    "nim/nim_unfinished",
    "nim/nim_lucky_2",
    "nim/nim_withdraw_forfeit",
    "nim/nim_leave_4",
    "nim/nim_resign_2",
}


def test_fixtures_cover_every_ruleset_and_option_set() -> None:
    names = {log_id(p).removesuffix(".jsonl.gz") for p in LOGS}
    declared = {  # every game's recorded fixtures, as its folder's samples.py lists them
        f"{name}/{fixture.name}"
        for name in game_names()
        for fixture in samples_of(name).fixture_logs
    }
    assert NIM_FIXTURES | declared <= names
    assert {name.split("/")[0] for name in names} >= set(game_names())


@pytest.mark.parametrize("path", LOGS, ids=log_id)
def test_fixture_log_chains_and_folds_to_its_recorded_final_state(path: Path) -> None:
    events = load_log(path)
    expected = expected_of(path)
    chain = verify_chain(events, (expected["version"], expected["head_hash"]))
    assert chain.ok, chain.reason
    assert len(events) == expected["events"]

    game = fold(expected["game_id"], events, registry())

    ruleset = game.ruleset
    result = ruleset.result(game.state)
    assert game.ruleset_name == expected["ruleset"]
    assert game.version == expected["version"]
    assert game.head_hash == expected["head_hash"]
    assert game.is_terminal() is expected["terminal"]
    assert list(game.seats_to_act()) == expected["seats_to_act"]
    assert list(ruleset.scores(game.state)) == expected["scores"]
    if expected["result"] is None:
        assert result is None
    else:
        assert result is not None
        assert list(result.scores) == expected["result"]["scores"]
        assert list(result.ranking) == expected["result"]["ranking"]
    if "game_result" in expected:  # recorded since 2026-12-07 (leaving a game)
        game_result = game.result()
        recorded = expected["game_result"]
        assert (game_result is None) is (recorded is None)
        if game_result is not None:
            assert list(game_result.ranking) == recorded["ranking"]
            assert list(game_result.scores) == recorded["scores"]
    assert game.revealed_seed == expected["revealed_seed"]
    assert [seat.name for seat in game.seats] == [s["name"] for s in expected["seats"]]
    assert [seat.kind.value for seat in game.seats] == [s["kind"] for s in expected["seats"]]
    # Seats name their player account since GameCreated v4 (older logs: nobody's).
    assert [seat.player for seat in game.seats] == [s.get("player", "") for s in expected["seats"]]
    # Every public view key recorded then must still hold its value; keys a later view
    # adds are not part of the old log's promise.
    view = json.loads(json.dumps(ruleset.view(game.state, None)))
    changed = {k for k, v in expected["public_view"].items() if view.get(k, KeyError) != v}
    assert not changed, f"public view differs at {sorted(changed)}"


@pytest.mark.parametrize("path", LOGS[:1], ids=lambda p: p.name)
def test_a_tampered_fixture_no_longer_chains(path: Path) -> None:
    events = load_log(path)
    victim = events[len(events) // 2]
    payload = {**victim.payload, "tampered": True}
    events[len(events) // 2] = StoredEvent(
        victim.version, victim.type, victim.schema_version, payload, victim.metadata, victim.hash
    )
    chain = verify_chain(events)
    assert not chain.ok
    assert chain.first_bad_version == victim.version


CLOCKED = [path for path in LOGS if "_clock_" in path.name]


def test_the_clock_fixtures_hold_every_clock_event() -> None:
    types = {event.type for path in CLOCKED for event in load_log(path)}
    clock_events = {"ClockStarted", "ClocksUpdated", "SeatTimedOut", "SeatTakenOver"}
    assert clock_events | {"SeatForfeited", "SeatReclaimed"} <= types


@pytest.mark.parametrize("path", CLOCKED, ids=lambda p: p.name)
def test_a_clock_fixture_audits_clean_its_clocks_recomputed(path: Path) -> None:
    """The audit recomputes every clock event from the public log (times included)."""
    from services.engine.domain.audit import audit_log

    expected = expected_of(path)
    report = audit_log(
        expected["game_id"],
        load_log(path),
        registry(),
        (expected["version"], expected["head_hash"]),
    )
    assert report.ok, report.problems


LEAVING = [path for path in LOGS if "resign" in path.name or "_leave_" in path.name]


def test_the_leaving_fixtures_hold_every_leaving_event() -> None:
    events = [event for path in LEAVING for event in load_log(path)]
    outcomes = {e.payload["outcome"] for e in events if e.type == "SeatResigned"}
    reasons = {e.payload["reason"] for e in events if e.type == "SeatClaimedForBot"}
    assert {"game_ended", "forfeited"} <= outcomes
    assert "absent" in reasons
    assert "SeatReclaimed" in {e.type for e in events}  # a claimed seat's player back


@pytest.mark.parametrize("path", LEAVING, ids=lambda p: p.name)
def test_a_leaving_fixture_audits_clean(path: Path) -> None:
    from services.engine.domain.audit import audit_log

    expected = expected_of(path)
    report = audit_log(
        expected["game_id"],
        load_log(path),
        registry(),
        (expected["version"], expected["head_hash"]),
    )
    assert report.ok, report.problems
