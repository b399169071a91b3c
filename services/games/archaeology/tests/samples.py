"""Archaeology's samples for the generic tests (tests/game_samples.py): the fixture logs
recorded for it and the games that sample its event schemas."""

from __future__ import annotations

from typing import Any

from services.bot.policy import RandomPolicy
from tests.game_driver import Fixture, bot, human
from tests.game_samples import BenchSetup, GameSamples

RULESET = "archaeology"

FIXTURE_LOGS: tuple[Fixture, ...] = (
    # The second ruleset (issue 14), in the format after issue 11.
    Fixture(
        "archaeology_3_pyramid",
        RULESET,
        (human("ann"), bot("bo"), bot("cy")),
        {"ruin": "pyramid"},
        policy=RandomPolicy,
    ),
    Fixture(
        "archaeology_5_buried_sand_hell",
        RULESET,
        tuple(bot(f"a{n}") for n in range(5)),
        {"ruin": "buried_ruins", "sand_hell": True, "lucky_beginner": True},
    ),
    Fixture(
        "archaeology_2_tomb_long_expedition",
        RULESET,
        (bot("a0"), bot("a1")),
        {"ruin": "tomb", "long_expedition": True},
        policy=RandomPolicy,
    ),
    Fixture(
        "archaeology_4_temple_unfinished",
        RULESET,
        (human("ann"), bot("bo"), bot("cy"), bot("di")),
        {"ruin": "temple"},
        policy=RandomPolicy,
        stop_after=120,
    ),
    # Leaving a game (issue 32): ann resigns a 3-seat expedition at version 40; she is
    # out (ranked last) and a zombie bot finishes her moves.
    Fixture(
        "archaeology_3_resign",
        RULESET,
        (human("ann"), human("bob"), bot("cy")),
        {"ruin": "pyramid"},
        policy=RandomPolicy,
        resignations=((40, 0),),
    ),
)
"""The recorded games (their files: tests/fixture_logs/), never regenerated."""

SCHEMA_OPTION_SETS: tuple[tuple[int, dict[str, Any]], ...] = tuple(
    (seats, {"ruin": ruin, **variants})
    for seats, ruin, variants in (
        (2, "pyramid", {"long_expedition": True}),
        (3, "temple", {"sand_hell": True}),
        (4, "tomb", {"lucky_beginner": True}),
        (5, "mine", {}),
        (3, "sphinx", {"sand_hell": True, "lucky_beginner": True}),
        (5, "buried_ruins", {"sand_hell": True}),
        (4, "buried_ruins", {}),
        (2, "temple", {}),
    )
)
"""(seats, options) of every option set the event-schema samples play."""


def schema_games(seed: int) -> list[Fixture]:
    """Seeded random games of every option set, every seat a bot."""
    return [
        Fixture(
            f"schemas_{RULESET}_{index}_{seed}",
            RULESET,
            tuple(bot(f"a{n}") for n in range(seats)),
            options,
            policy=RandomPolicy,
        )
        for index, (seats, options) in enumerate(SCHEMA_OPTION_SETS)
    ]


SAMPLES = GameSamples(
    fixture_logs=FIXTURE_LOGS,
    schema_games=schema_games,
    bench_seats=5,
    # Every setup deals hidden cards and dig results: no separate standard setup.
    bench_setups=(BenchSetup("default (random ruin)", {}),),
    archive_target=(5, 20_000),
    board_selector="#arch-board",
)
