"""Auditing a game's log: the hash chain, a full re-fold, and the fairness commitment.

What an auditor checks (also what ``teoti replay --verify`` and VerifyGame report):

1. Chain: versions 1..N, each event's hash = SHA-256(previous hash || canonical content),
   and the store's recorded head equals the last event (``store.chain``).
2. Fold: the log folds from GameCreated with the registered ruleset, without errors.
3. Fairness, once ``SeedRevealed`` is in the log: SHA-256(seed) equals GameCreated's
   ``seed_commitment``, and the setup events (the first append's batch) are exactly
   ``ruleset.setup(request, random.Random(f"{seed}:0"))``. Every later decision at version
   v drew from ``random.Random(f"{seed}:{v}")``: an auditor holding the commands can
   re-run ``ruleset.decide(state_at_v, seat, action, that rng)`` and compare events.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.engine import engine_events
from services.engine.engine_events import GAME_CREATED, SEED_REVEALED
from services.engine.errors import CorruptLog, UnknownRuleset
from services.engine.fairness import commit, rng_for
from services.engine.game import fold
from services.engine.game_seats import SeatSpec
from services.engine.ruleset import SetupRequest
from services.engine.rulesets import RulesetRegistry
from services.engine.store.chain import verify_chain
from services.engine.store.records import StoredEvent, canonical_json


@dataclass(frozen=True, slots=True)
class AuditReport:
    """Result of :func:`audit_log`.

    Attributes:
        ok: every check that could run passed.
        first_bad_version: first version that breaks the chain or the fold (0 if none).
        problems: one line per failed check.
        events: number of events read.
        head_hash: hash of the last event that chained.
        seed_revealed: True if the log reveals its seed.
        seed_verified: True if the revealed seed matches the commitment and re-derives
            the setup events.
    """

    ok: bool
    first_bad_version: int
    problems: tuple[str, ...]
    events: int
    head_hash: str
    seed_revealed: bool
    seed_verified: bool


def audit_log(
    game_id: str,
    events: Sequence[StoredEvent],
    registry: RulesetRegistry,
    head: tuple[int, str] | None = None,
) -> AuditReport:
    """Audit ``events`` (the whole log); ``head`` is the store's recorded (version, hash)."""
    problems: list[str] = []
    chain = verify_chain(events, head)
    first_bad = chain.first_bad_version
    if not chain.ok:
        problems.append(f"hash chain broken at version {first_bad}: {chain.reason}")
    try:
        fold(game_id, events, registry)
    except (CorruptLog, UnknownRuleset, KeyError, ValueError, TypeError, AssertionError) as exc:
        problems.append(f"cannot fold the log: {exc}")
    revealed = [e for e in events if e.type == SEED_REVEALED]
    seed_verified = False
    if revealed and events and events[0].type == GAME_CREATED:
        seed = str(revealed[-1].payload.get("seed", ""))
        seed_problem = _check_seed(events, seed, registry)
        if seed_problem:
            problems.append(seed_problem)
        else:
            seed_verified = True
    return AuditReport(
        not problems,
        first_bad,
        tuple(problems),
        len(events),
        chain.head_hash,
        bool(revealed),
        seed_verified,
    )


def _check_seed(events: Sequence[StoredEvent], seed: str, registry: RulesetRegistry) -> str:
    """'' if ``seed`` matches the commitment and re-derives the setup batch, else why not."""
    created = engine_events.upcast(events[0].to_domain()).payload
    if commit(seed) != created.get("seed_commitment"):
        return "revealed seed does not match the seed commitment"
    try:
        ruleset = registry.get(str(created["ruleset"]))
        seats = [SeatSpec.from_json(s) for s in created["seats"]]
        setup = ruleset.setup(
            SetupRequest(len(seats), dict(created["options"]), tuple(s.name for s in seats)),
            rng_for(seed, 0),
        )
    except Exception as exc:  # an auditor reports, it does not crash on a bad log
        return f"cannot re-run setup: {exc!r}"
    batch = [e for e in events[1 : 1 + len(setup)] if e.metadata == events[0].metadata]
    expected = [(e.type, e.schema_version, canonical_json(dict(e.payload))) for e in setup]
    logged = [(e.type, e.schema_version, canonical_json(dict(e.payload))) for e in batch]
    if expected != logged:
        return "setup events differ from those the revealed seed derives"
    return ""
