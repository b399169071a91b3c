"""Teotihuacan's secrets (tests/unit/test_commitments.py: commitments for any ruleset):
its standard setup seals hands, choices and the discovery bag, revealed at the end."""

from __future__ import annotations

from services.engine.domain.audit import audit_log
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.rulesets import RulesetRegistry
from tests.unit.test_commitments import play_seeded


async def test_the_end_reveals_every_secret_left(registry: RulesetRegistry) -> None:
    """Teotihuacan's hands, discovery bag and returned tiles are revealed only at the end."""
    seats = [SeatSpec(SeatKind.BOT, f"b{i}") for i in range(2)]
    store, game = await play_seeded(registry, "teotihuacan", seats, {"first_game": False}, "end-1")
    events = await store.read(game)
    assert events[-1].type == "SeedRevealed" and events[-2].type == "SecretsRevealed"
    final = {s["id"] for s in events[-2].payload["secrets"]}
    assert final == {"discovery_bag", "returned_discoveries", "starting_hand:0", "starting_hand:1"}
    report = audit_log(game, events, registry, await store.head(game))
    assert report.ok and report.seed_verified, report.problems
    assert report.commitments == report.reveals_verified == 6  # + the two choices
