"""Sample tournament logs for the event schema registry (scope ``tournament``): pure
folds of seeded tournaments covering every tournament event type and config shape."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from services.engine.domain.ruleset import DomainEvent
from services.engine.domain.rulesets import default_ruleset
from services.tournament import events as ev
from services.tournament.aggregate import (
    TournamentState,
    decide_register,
    decide_start,
    decide_withdraw,
    finishing_events,
    next_pairing,
    preview,
)
from services.tournament.config import TimeControl, TournamentConfig
from services.tournament.model import Format, TableResult

SCOPE = "tournament"

_CONFIGS = (
    (7, TournamentConfig("sample swiss", "nim", {}, Format.SWISS, 2, 2, rounds=3)),
    (
        9,
        TournamentConfig(
            "sample tables",
            default_ruleset(),  # its options: the default game's first-game setup
            {"first_game": True},
            Format.SWISS,
            3,
            4,
            rounds=2,
            points_by_place={3: (3.0, 1.5, 0.0), 4: (4.0, 2.0, 1.0, 0.0)},
            bye_points=1.0,
            time_control=TimeControl(600_000, 5_000, 0),
            timeout_policy="bot_takeover",
            rated=True,
            max_players=32,
            registration_opens_at="2026-01-01T00:00:00+00:00",
            registration_closes_at="2026-12-31T00:00:00+00:00",
        ),
    ),
)


def sample_tournament(players: int, config: TournamentConfig, seed: str) -> list[DomainEvent]:
    """Every event of one tournament played to the end with random places (pure)."""
    rng = random.Random(seed)
    events: list[DomainEvent] = [ev.tournament_created("sample", config, seed, "2026-06-01")]
    state: TournamentState = preview_new(events[0])

    def add(new: list[DomainEvent]) -> None:
        nonlocal state
        events.extend(new)
        state = preview(state, new)

    for n in range(players):
        # Every fourth player entered as a player account (PlayerRegistered v2).
        account = f"{n:020x}" if n % 4 == 0 else ""
        kind = ev.BOT if n % 2 else ev.HUMAN
        add(decide_register(state, f"p{n}", kind, "2026-06-01", account))
    add(decide_start(state))
    while (pairing := next_pairing(state, seed)) is not None:
        games = [f"g{pairing.round}-{t.number}" for t in pairing.tables]
        add([ev.round_paired(pairing, games)])
        for table, game in zip(pairing.tables, games, strict=True):
            places = list(range(1, len(table.players) + 1))
            rng.shuffle(places)
            forfeited = (table.players[0],) if rng.random() < 0.2 else ()
            add(
                [
                    ev.table_finished(
                        pairing.round, game, TableResult(table.number, tuple(places), forfeited)
                    )
                ]
            )
        if pairing.round == 1:
            add(decide_withdraw(state, state.active()[-1]))
        add([ev.round_finished(pairing.round)])
    add(finishing_events(state, seed))
    return events


def preview_new(created: DomainEvent) -> TournamentState:
    """The state of a tournament whose log is ``created`` alone."""
    from services.tournament.aggregate import _apply

    return _apply(None, created)


def tournament_samples(seeds: int = 1) -> Iterator[tuple[tuple[str, str, int], Any]]:
    """(registry key, payload) of every event of the sample tournaments."""
    for seed in range(seeds):
        for players, config in _CONFIGS:
            for event in sample_tournament(players, config, f"sample-{seed}"):
                yield (SCOPE, event.type, event.schema_version), dict(event.payload)
