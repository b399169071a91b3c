"""The tournament aggregate without Redis: fold, decisions and refusals, config checks,
and the audit that re-derives every pairing from the log and the revealed seed."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from services.engine.domain.chain import GENESIS_HASH, chained, verify_chain
from services.engine.domain.records import EventMetadata, StoredEvent
from services.engine.domain.ruleset import DomainEvent, RulesetInfo
from services.tournament import events as ev
from services.tournament.aggregate import (
    FINISHED,
    REGISTERING,
    decide_register,
    decide_start,
    decide_withdraw,
    fold,
    next_pairing,
    replay_pairings,
)
from services.tournament.config import TimeControl, TournamentConfig, validate
from services.tournament.errors import InvalidTournament, TournamentRefused
from services.tournament.model import Format
from tests.tournament_samples import sample_tournament

CONFIG = TournamentConfig("t", "nim", {}, Format.SWISS, 2, 2, rounds=3)
META = EventMetadata("", -1, "2026-06-01T00:00:00+00:00")
NOW = "2026-06-01T00:00:00+00:00"


def stored(events: list[DomainEvent]) -> list[StoredEvent]:
    return [record for _payload, record in chained(0, events, META, GENESIS_HASH)]


def created(config: TournamentConfig = CONFIG) -> list[DomainEvent]:
    return [ev.tournament_created("tid", config, "seed", NOW)]


def test_a_sample_tournament_folds_to_its_end_and_its_pairings_replay() -> None:
    log = stored(sample_tournament(7, CONFIG, "s1"))
    state = fold(log)
    assert state.status == FINISHED
    assert len(state.rounds) == 3
    assert all(r.complete() for r in state.rounds)
    assert state.revealed_seed == "s1"
    assert state.version == len(log) and state.head_hash == log[-1].hash
    assert verify_chain(log).ok
    check = replay_pairings(log)
    assert check.ok and check.rounds_checked == 3
    # byes: 7 players at 2-seat tables leave one out in round 1, and the withdrawal after
    # round 1 leaves 6 players for the next rounds.
    assert len(state.rounds[0].pairing.byes) == 1
    assert sum(len(t.players) for t in state.rounds[1].pairing.tables) == 6
    assert list(state.ranking) == [row.player for row in state.standings()]


def test_a_pairing_that_is_not_the_seeds_is_found() -> None:
    events = sample_tournament(8, CONFIG, "s2")
    index = next(i for i, e in enumerate(events) if e.type == ev.ROUND_PAIRED)
    tables = events[index].payload["tables"]
    swapped = [dict(t) for t in tables]
    swapped[0]["players"], swapped[1]["players"] = (
        [tables[0]["players"][0], tables[1]["players"][0]],
        [tables[0]["players"][1], tables[1]["players"][1]],
    )
    events[index] = DomainEvent(ev.ROUND_PAIRED, {**events[index].payload, "tables": swapped})
    check = replay_pairings(stored(events))
    assert not check.ok and "round 1" in check.problem


def test_a_revealed_seed_must_open_the_commitment() -> None:
    events = sample_tournament(4, CONFIG, "s3")
    events[-1] = ev.seed_revealed("another seed")
    check = replay_pairings(stored(events))
    assert not check.ok


def test_pairings_are_not_checkable_before_the_seed_is_revealed() -> None:
    events = sample_tournament(4, CONFIG, "s4")[:-2]
    assert replay_pairings(stored(events)).problem.startswith("the seed is not revealed")


def test_next_pairing_is_deterministic_from_log_and_seed() -> None:
    players = [f"p{n}" for n in range(10)]
    registered = [ev.player_registered(p, ev.BOT) for p in players]
    state = fold(stored([*created(), *registered, ev.tournament_started(players)]))
    first = next_pairing(state, "x")
    assert first is not None and first == next_pairing(state, "x")
    assert sorted(p for t in first.tables for p in t.players) == sorted(players)


def test_registration_refusals() -> None:
    window = replace(
        CONFIG,
        max_players=2,
        registration_opens_at="2026-05-01T00:00:00+00:00",
        registration_closes_at="2026-07-01T00:00:00+00:00",
    )
    state = fold(stored(created(window)))
    assert state.status == REGISTERING

    def refused(at: str, player: str = "new") -> str:
        with pytest.raises(TournamentRefused) as caught:
            decide_register(state, player, ev.HUMAN, at)
        return caught.value.rule

    assert refused("2026-04-30T00:00:00+00:00") == "registration_not_open"
    assert refused("2026-07-02T00:00:00+00:00") == "registration_closed"
    state = fold(stored([*created(window), ev.player_registered("a", ev.HUMAN)]))
    assert refused(NOW, "a") == "already_registered"
    state = fold(stored([*created(window), *(ev.player_registered(p, ev.BOT) for p in "ab")]))
    assert refused(NOW) == "tournament_full"
    state = fold(stored([*created(window), *(ev.player_registered(p, ev.BOT) for p in "ab"),
                         ev.tournament_started(["a", "b"])]))  # fmt: skip
    assert refused(NOW) == "tournament_started"


def test_the_registration_window_compares_instants_across_offsets() -> None:
    # 09:00+05:00 is 04:00Z; 05:00-05:00 is 10:00Z.
    closed = fold(
        stored(created(replace(CONFIG, registration_closes_at="2026-12-01T09:00:00+05:00")))
    )
    with pytest.raises(TournamentRefused, match="registration_closed"):
        decide_register(closed, "zed", ev.HUMAN, "2026-12-01T07:25:00+00:00")
    decide_register(closed, "zed", ev.HUMAN, "2026-12-01T03:59:00+00:00")
    not_yet = fold(
        stored(created(replace(CONFIG, registration_opens_at="2026-12-01T05:00:00-05:00")))
    )
    with pytest.raises(TournamentRefused, match="registration_not_open"):
        decide_register(not_yet, "zed", ev.HUMAN, "2026-12-01T07:25:00+00:00")
    decide_register(not_yet, "zed", ev.HUMAN, "2026-12-01T10:00:01+00:00")
    zoned = replace(
        CONFIG,
        registration_opens_at="2026-12-01T05:00:00-05:00",
        registration_closes_at="2026-12-01T12:00:00Z",
    )
    validate(zoned, NIM, has_bot=False)


def test_start_and_withdraw_refusals() -> None:
    one = fold(stored([*created(), ev.player_registered("a", ev.BOT)]))
    with pytest.raises(TournamentRefused, match="not_enough_players"):
        decide_start(one)
    with pytest.raises(TournamentRefused, match="not_registered"):
        decide_withdraw(one, "zed")
    gone = fold(
        stored(
            [*created(), ev.player_registered("a", ev.BOT), ev.player_withdrew("a", "requested")]
        )
    )
    assert gone.active() == []
    with pytest.raises(TournamentRefused, match="already_withdrawn"):
        decide_withdraw(gone, "a")


NIM = RulesetInfo("Nim", 2, 4)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"min_seats": 2, "max_seats": 5}, "table_size_unsupported"),
        ({"min_seats": 3, "max_seats": 2}, "table_size_unsupported"),
        ({"min_seats": 1, "max_seats": 2}, "table_size_unsupported"),
        ({"timeout_policy": "bot_takeover"}, "timeout_policy_unsupported"),
        ({"timeout_policy": "pass"}, "timeout_policy_unsupported"),
        ({"rounds": 0}, "invalid_config"),
        ({"name": " "}, "invalid_config"),
        ({"points_by_place": {2: (1.0,)}}, "invalid_config"),
        ({"max_seats": 3, "points_by_place": {2: (1.0, 0.0)}}, "invalid_config"),
        ({"time_control": TimeControl(-1, 0, 0)}, "time_control_invalid"),
        ({"time_control": TimeControl(500, 0, 0)}, "time_control_invalid"),  # under 1 s
        ({"time_control": TimeControl(0, 1_000, 0)}, "time_control_invalid"),  # no base
        # Non-finite points would rank -Infinity first and break the log's strict JSON.
        ({"points_by_place": {2: (math.nan, 0.0)}}, "invalid_config"),
        ({"points_by_place": {2: (math.inf, 0.0)}}, "invalid_config"),
        ({"points_by_place": {2: (1.0, -math.inf)}}, "invalid_config"),
        ({"bye_points": math.inf}, "invalid_config"),
        ({"bye_points": math.nan}, "invalid_config"),
        # A table size no table has is a meaningless entry.
        ({"points_by_place": {2: (1.0, 0.0), 0: ()}}, "invalid_config"),
        ({"points_by_place": {2: (1.0, 0.0), 3: (2.0, 1.0, 0.0)}}, "invalid_config"),
        ({"tiebreaks": ("wins", "wins")}, "invalid_config"),
        # Registration bounds are zoned ISO 8601 times, closing after opening.
        ({"registration_opens_at": "yesterday"}, "invalid_config"),
        ({"registration_opens_at": "99999-01-01T00:00:00Z"}, "invalid_config"),
        ({"registration_closes_at": "2030-01-01T00:00:00"}, "invalid_config"),
        (
            {
                "registration_opens_at": "2030-01-01T00:00:00Z",
                "registration_closes_at": "2020-01-01T00:00:00Z",
            },
            "invalid_config",
        ),
        (
            {
                "registration_opens_at": "2030-01-01T05:00:00+05:00",
                "registration_closes_at": "2030-01-01T00:00:00Z",
            },
            "invalid_config",
        ),
    ],
)
def test_configs_the_ruleset_cannot_play_are_refused(
    change: dict[str, object], reason: str
) -> None:
    with pytest.raises(InvalidTournament) as caught:
        validate(replace(CONFIG, **change), NIM, has_bot=False)  # type: ignore[arg-type]
    assert caught.value.rule == reason


def test_bot_takeover_needs_a_ruleset_bot_and_the_config_round_trips() -> None:
    config = replace(
        CONFIG,
        timeout_policy="bot_takeover",
        time_control=TimeControl(60_000, 1_000, 0),
        points_by_place={2: (3.0, 0.0)},
    )
    validate(config, NIM, has_bot=True)
    assert TournamentConfig.from_json(config.to_json()) == config
