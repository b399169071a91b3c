"""Auditing a game's log: the hash chain, a full re-fold, and the fairness commitment.

What an auditor checks (also what ``teoti replay --verify`` and VerifyGame report):

1. Chain: versions 1..N, each event's hash = SHA-256(previous hash || canonical content),
   and the store's recorded head equals the last event (``store.chain``).
2. Fold: the log folds from GameCreated with the registered ruleset, without errors.
3. Commitments (at any moment): every secret id is committed once; every
   ``SecretsRevealed`` entry opens an earlier commitment, i.e.
   SHA-256(nonce bytes || canonical JSON of value) equals it (``commitments``).
4. Fairness, once ``SeedRevealed`` is in the log: every commitment has been opened,
   SHA-256(seed) equals GameCreated's ``seed_commitment``, and the setup events (the
   first append's batch) are exactly ``ruleset.setup(request, random.Random(f"{seed}:0"))``
   (public payloads, and each sealed value equal to the value revealed for it). Every
   later decision at version v drew from ``random.Random(f"{seed}:{v}")``: an auditor
   holding the commands can re-run ``ruleset.decide(state_at_v, seat, action, that rng)``.
5. Clocks (a game with a time control): every ``ClocksUpdated`` and ``SeatTimedOut`` is
   what the clock rules give from the log before it
   (:mod:`services.engine.domain.clock_audit`).
6. Leaving: every ``SeatResigned`` and ``SeatClaimedForBot`` was allowed and is what the
   rules give from the log before it (:mod:`services.engine.domain.leaving_audit`).

Everything here reads the public log only: the same events every reader gets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from services.engine.domain import engine_events
from services.engine.domain.chain import verify_chain
from services.engine.domain.clock_audit import check_clocks
from services.engine.domain.commitments import committed_parts, opens
from services.engine.domain.engine_events import GAME_CREATED, SECRETS_REVEALED, SEED_REVEALED
from services.engine.domain.errors import CorruptLog, UnknownRuleset
from services.engine.domain.fairness import commit, rng_for
from services.engine.domain.game import fold
from services.engine.domain.game_seats import SeatSpec
from services.engine.domain.leaving_audit import check_leaving
from services.engine.domain.records import StoredEvent, canonical_json
from services.engine.domain.ruleset import SEALED_KEY, DomainEvent, SetupRequest
from services.engine.domain.rulesets import RulesetRegistry


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
        commitments: secrets committed in the log.
        reveals_verified: secrets opened by a reveal that matches its commitment.
    """

    ok: bool
    first_bad_version: int
    problems: tuple[str, ...]
    events: int
    head_hash: str
    seed_revealed: bool
    seed_verified: bool
    commitments: int = 0
    reveals_verified: int = 0


@dataclass(frozen=True, slots=True)
class _Commitments:
    """What :func:`_check_commitments` found."""

    committed: dict[str, tuple[int, str]]
    opened: dict[str, Any]
    problems: list[tuple[int, str]]


def _check_commitments(events: Sequence[StoredEvent]) -> _Commitments:
    """Check every commitment and reveal of the public log (see the module's point 3)."""
    committed: dict[str, tuple[int, str]] = {}
    opened: dict[str, Any] = {}
    problems: list[tuple[int, str]] = []
    for event in events:
        if event.type == SECRETS_REVEALED:
            for entry in event.payload.get("secrets", []):
                secret_id = str(entry.get("id", ""))
                if secret_id not in committed:
                    problems.append((event.version, f"reveal of uncommitted secret {secret_id!r}"))
                elif secret_id in opened:
                    problems.append((event.version, f"secret {secret_id!r} revealed twice"))
                elif not opens(committed[secret_id][1], entry.get("value"), entry.get("nonce")):
                    problems.append(
                        (
                            event.version,
                            f"reveal of {secret_id!r} does not open its commitment "
                            f"(version {committed[secret_id][0]})",
                        )
                    )
                else:
                    opened[secret_id] = entry.get("value")
            continue
        if SEALED_KEY not in event.payload:
            continue
        for secret_id, digest in committed_parts(event.payload).items():
            if secret_id in committed:
                problems.append((event.version, f"secret {secret_id!r} committed twice"))
            else:
                committed[secret_id] = (event.version, digest)
    return _Commitments(committed, opened, problems)


def audit_log(
    game_id: str,
    events: Sequence[StoredEvent],
    registry: RulesetRegistry,
    head: tuple[int, str] | None = None,
) -> AuditReport:
    """Audit ``events`` (the whole log); ``head`` is the store's recorded (version, hash)."""
    problems: list[str] = []
    chain = verify_chain(events, head)
    bad_versions = [chain.first_bad_version] if not chain.ok else []
    if not chain.ok:
        problems.append(f"hash chain broken at version {chain.first_bad_version}: {chain.reason}")
    try:
        fold(game_id, events, registry)
    except (CorruptLog, UnknownRuleset, KeyError, ValueError, TypeError, AssertionError) as exc:
        problems.append(f"cannot fold the log: {exc}")
    else:
        for version, problem in [
            *check_clocks(game_id, events, registry),
            *check_leaving(game_id, events, registry),
        ]:
            bad_versions.append(version)
            problems.append(f"version {version}: {problem}")
    found = _check_commitments(events)
    for version, problem in found.problems:
        bad_versions.append(version)
        problems.append(f"version {version}: {problem}")
    revealed = [e for e in events if e.type == SEED_REVEALED]
    seed_verified = False
    if revealed:
        end = revealed[-1].version
        for secret_id, (version, _digest) in found.committed.items():
            if secret_id not in found.opened:
                bad_versions.append(end)
                problems.append(
                    f"version {end}: the game ended with secret {secret_id!r} (committed at "
                    f"version {version}) never revealed"
                )
    if revealed and events and events[0].type == GAME_CREATED:
        seed = str(revealed[-1].payload.get("seed", ""))
        seed_problem = _check_seed(events, seed, registry, found.opened)
        if seed_problem:
            problems.append(seed_problem)
        else:
            seed_verified = True
    return AuditReport(
        not problems,
        min(bad_versions) if bad_versions else 0,
        tuple(problems),
        len(events),
        chain.head_hash,
        bool(revealed),
        seed_verified,
        len(found.committed),
        len(found.opened),
    )


def _check_seed(
    events: Sequence[StoredEvent],
    seed: str,
    registry: RulesetRegistry,
    opened: dict[str, Any],
) -> str:
    """'' if ``seed`` matches the commitment and re-derives the setup batch (public
    payloads, and sealed values equal to the values revealed for them), else why not."""
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
    batch = [
        e
        for e in events[1:]
        if e.metadata == events[0].metadata and e.type not in engine_events.ENGINE_EVENTS
    ][: len(setup)]
    expected = [
        (
            e.type,
            e.schema_version,
            canonical_json(dict(e.payload)),
            canonical_json({k: v.value for k, v in e.sealed.items()}),
        )
        for e in setup
    ]
    logged = [_comparable(ruleset.upcast(e.to_domain()), opened) for e in batch]
    if expected != logged:
        return "setup events differ from those the revealed seed derives"
    return ""


def _comparable(event: DomainEvent, opened: dict[str, Any]) -> tuple[str, int, str, str]:
    """A logged (upcast) setup event as ``(type, version, public payload, sealed values)``:
    a value comes from the event itself (an old log's upcaster) or from its reveal."""
    ids = dict.fromkeys([*committed_parts(event.payload), *event.sealed])
    values = {k: event.sealed[k].value if k in event.sealed else opened.get(k) for k in ids}
    public = {k: v for k, v in event.payload.items() if k != SEALED_KEY}
    return event.type, event.schema_version, canonical_json(public), canonical_json(values)
