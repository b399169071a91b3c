"""The committed rated-game fixture log (tests/fixtures/logs/nim/nim_rated_players,
GameCreated v5) reads as a rated game for ever: its outcome (services.ratings.outcome,
what the rater and ``teoti ratings verify`` both read) is rated, names both players, and
ranks ann, who resigned, last; replayed alone it moves bob up and ann down."""

from __future__ import annotations

from pathlib import Path

from services.engine.domain.game import fold
from services.engine.domain.public_log import LogHeader, PublicLog
from services.engine.domain.rulesets import RulesetRegistry
from services.ratings.audit import recompute
from services.ratings.outcome import finished_at, outcome_of
from services.tournament.ratings_book import account_identity
from tests.unit.test_fixture_logs import load_log

FIXTURE = (
    Path(__file__).resolve().parents[1] / "fixtures" / "logs" / "nim" / "nim_rated_players.jsonl.gz"
)
ANN, BOB = "0a1b2c3d4e5f60718293", "a4b3c2d1e0f9a8b7c6d5"


def test_the_rated_fixture_is_rated_with_the_resigned_seat_last(registry: RulesetRegistry) -> None:
    events = load_log(FIXTURE)
    game = fold("fixture", events, registry)
    outcome = outcome_of(game, finished_at(events))
    assert outcome is not None and outcome.rated
    assert outcome.seats == ((0, ANN), (1, BOB)) and outcome.places == (2, 1)
    assert outcome.at == events[-1].metadata.recorded_at

    last = events[-1]
    log = PublicLog(
        LogHeader("fixture", "nim", True, last.version, last.hash, len(events)), tuple(events)
    )
    again = recompute([log], registry, "nim")
    assert again.problems == () and again.games == ("fixture",)
    bob, ann = again.ratings[account_identity(BOB)], again.ratings[account_identity(ANN)]
    assert bob.mu > 25.0 > ann.mu and bob.games == ann.games == 1
