"""Teotihuacan's samples for the generic tests (tests/game_samples.py): the fixture logs
recorded for it and the games that sample its event schemas."""

from __future__ import annotations

from typing import Any

from services.bot.policy import RandomPolicy
from services.engine.domain.timing.time_control import TimeControl, TimeoutPolicy
from tests.game_driver import OPEN, Fixture, bot, human
from tests.game_samples import BenchSetup, GameSamples

RULESET = "teotihuacan"

FIXTURE_LOGS: tuple[Fixture, ...] = (
    Fixture(
        "first_game_4_bots",
        RULESET,
        (bot("b0"), bot("b1"), bot("b2"), bot("b3")),
        {"first_game": True},
    ),
    Fixture(
        "standard_3_humans",
        RULESET,
        (human("ann"), human("bob"), bot("cat")),
        {"first_game": False},
        policy=RandomPolicy,
    ),
    Fixture(
        "draft_dark_advanced_3",
        RULESET,
        (human("ann"), bot("bo"), bot("cy")),
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
        RULESET,
        (human("ann"), bot("Teotibot")),
        {"solo": True, "first_game": False},
    ),
    Fixture(
        "joined_seat_2",
        RULESET,
        (bot("bo"), OPEN),
        {"first_game": True},
        joins=((1, "dee", "fixture-token-dee-0123456789abcdef"),),
        policy=RandomPolicy,
    ),
    Fixture(
        "unfinished_standard_4",
        RULESET,
        (human("ann"), bot("bo"), human("cy"), bot("di")),
        {"first_game": False},
        policy=RandomPolicy,
        stop_after=150,
    ),
    # The format after issue 11 (hidden values as commitments, SecretsRevealed, tokens out
    # of the log: GameCreated v3, SeatJoined v2).
    Fixture(
        "standard_3_sealed",
        RULESET,
        (human("ann"), bot("bob"), bot("cat")),
        {"first_game": False},
        policy=RandomPolicy,
    ),
    Fixture(
        "joined_seat_sealed",
        RULESET,
        (bot("bo"), OPEN),
        {"first_game": False},
        joins=((1, "dee", "fixture-token-dee-0123456789abcdef"),),
        policy=RandomPolicy,
        stop_after=120,
    ),
    # SeatTakenOver and SeatReclaimed: ann runs out at version 17, a bot takes her seat,
    # and her next move reclaims it.
    Fixture(
        "teotihuacan_clock_takeover",
        RULESET,
        (human("ann"), bot("bo")),
        {"first_game": True},
        time_control=TimeControl(600_000, 10_000, 0, TimeoutPolicy.BOT_TAKEOVER),
        timeouts=(17,),
        stop_after=80,
    ),
    # Leaving a game (issue 32): the seat to act at version 12 stays away and the other
    # claims it for a bot (SeatClaimedForBot, SeatTakenOver: the game has its own bot);
    # its player reclaims it with their next move (SeatReclaimed); at version 40 ann
    # resigns, which ends a 2-seat game (docs/rules-decisions.md, "Leaving a game").
    Fixture(
        "teotihuacan_resign_2",
        RULESET,
        (human("ann"), human("bob")),
        {"first_game": False},
        policy=RandomPolicy,
        claims=(12,),
        resignations=((40, 0),),
    ),
)
"""The recorded games (their files: tests/fixture_logs/), never regenerated."""

SCHEMA_OPTION_SETS: tuple[tuple[int, dict[str, Any]], ...] = (
    (2, {"first_game": True}),
    (3, {"first_game": True}),
    (4, {"first_game": True}),
    (2, {"first_game": False}),
    (4, {"first_game": False}),
    (3, {"first_game": False, "draft_starting_tiles": True}),
    (3, {"first_game": False, "dark_eclipse": True}),
    (3, {"first_game": False, "advanced_worship": True}),
    (4, {"first_game": False, "draft_starting_tiles": True, "dark_eclipse": True,
         "advanced_worship": True}),
    (2, {"solo": True, "first_game": False}),
    (2, {"solo": True, "first_game": True}),
    (2, {"solo": True, "first_game": False, "dark_eclipse": True,
         "teotibot": {"power_nobles": 1, "resources": -1, "temple_bonus_vp": 5}}),
)  # fmt: skip
"""(seats, options) of every option set the event-schema samples play."""


def schema_games(seed: int) -> list[Fixture]:
    """Seeded random games of every option set; in seed 0 the last seat of each game but
    the solo ones is left open and claimed with JoinGame (the engine's join events)."""
    games: list[Fixture] = []
    for index, (seats, options) in enumerate(SCHEMA_OPTION_SETS):
        specs = [bot(f"s{n}") for n in range(seats)]
        joins: tuple[tuple[int, str, str], ...] = ()
        if seed == 0 and not options.get("solo"):
            specs[-1] = OPEN
            joins = ((seats - 1, "joiner", f"schema-token-{index}-0123456789abcdef"),)
        games.append(
            Fixture(
                f"schemas_{RULESET}_{index}_{seed}",
                RULESET,
                tuple(specs),
                options,
                joins=joins,
                policy=RandomPolicy,
            )
        )
    return games


SAMPLES = GameSamples(
    fixture_logs=FIXTURE_LOGS,
    schema_games=schema_games,
    schema_events=frozenset(
        {("StartingTilesChosen", 2), ("TeotibotActionChosen", 1), ("StartingTileDrafted", 1)}
    ),
    bench_seats=4,
    # The standard setup deals secret starting tiles: its log holds commitments and reveals.
    bench_setups=(
        BenchSetup("first_game", {"first_game": True}),
        BenchSetup("standard", {"first_game": False}),
    ),
    archive_target=(4, 30_000),
    board_selector="#teo-board",
)
