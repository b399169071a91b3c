"""Hidden information as salted commitments (docs/events.md "Commitments"), generic over
rulesets: the test Nim's ``lucky`` variant seals a number per seat and reveals them
mid-game (a game's own secrets are tested in its folder, services/games/<name>/tests/).

Checked here: the documented byte format, fresh 256-bit nonces, nothing recoverable by
trying every candidate, the secrets kept in service-only storage with the append, the
reveals (rule-triggered and at the end) opening their commitments, and every kind of
tampering detected with the first bad version named.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from services.engine.adapters.memory import InMemoryEventStore
from services.engine.domain.audit import audit_log
from services.engine.domain.chain import GENESIS_HASH, hash_of
from services.engine.domain.commitments import NONCE_BYTES, commitment, new_nonce, opens
from services.engine.domain.engine import Engine
from services.engine.domain.game import fold
from services.engine.domain.game_seats import SeatKind, SeatSpec, hash_token
from services.engine.domain.records import StoredEvent
from services.engine.domain.rulesets import RulesetRegistry

BOTS = [SeatSpec(SeatKind.BOT, "b0"), SeatSpec(SeatKind.BOT, "b1")]


def test_the_commitment_byte_format_is_the_documented_one() -> None:
    """SHA-256 over the nonce's 32 bytes then sorted-key, space-free UTF-8 JSON."""
    nonce = "00" * 31 + "ff"
    value = {"tiles": [3, 1], "é": "x"}
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    expected = hashlib.sha256(bytes.fromhex(nonce) + text.encode("utf-8")).hexdigest()
    assert commitment(value, nonce) == expected
    assert opens(expected, value, nonce)
    assert not opens(expected, {"tiles": [1, 3], "é": "x"}, nonce)
    assert not opens(expected, value, "00" * 32)
    assert not opens(expected, value, "not hex")


def test_nonces_are_fresh_and_carry_at_least_128_bits() -> None:
    nonces = {new_nonce() for _ in range(2000)}
    assert len(nonces) == 2000
    assert all(len(bytes.fromhex(n)) == NONCE_BYTES >= 16 for n in nonces)


def _clock() -> datetime:
    return datetime(2026, 12, 1, tzinfo=UTC)


async def play_seeded(
    registry: RulesetRegistry,
    ruleset: str,
    seats: list[SeatSpec],
    options: dict[str, Any],
    seed: str,
    stop_after: int = 0,
) -> tuple[InMemoryEventStore, str]:
    """A game played through the engine by seeded random moves; the store and game id."""
    store = InMemoryEventStore()
    engine = Engine(store, registry, clock=_clock, seed_source=lambda: seed)
    game = (await engine.create_game(ruleset, seats, options)).game_id
    rng = random.Random(seed)
    snapshot = await engine.load(game)
    while not snapshot.is_terminal() and not (stop_after and snapshot.version >= stop_after):
        seat = snapshot.seats_to_act()[0]
        action = rng.choice(list(snapshot.ruleset.legal_actions(snapshot.state, seat)))
        # Bot seats act under the bot worker's credential (issue 12).
        bot_key = engine.bot_credential.secret if snapshot.seats[seat].kind is SeatKind.BOT else ""
        await engine.submit_action(game, seat, action, snapshot.version, bot_key=bot_key)
        snapshot = await engine.load(game)
    return store, game


def _rechained(events: list[StoredEvent]) -> list[StoredEvent]:
    """``events`` with every hash recomputed: what a server rewriting its log could show."""
    previous = GENESIS_HASH
    result = []
    for event in events:
        previous = hash_of(previous, event)
        result.append(replace(event, hash=previous))
    return result


def _with_payload(events: list[StoredEvent], version: int, payload: Any) -> list[StoredEvent]:
    return [replace(e, payload=payload) if e.version == version else e for e in events]


async def test_nim_lucky_numbers_are_committed_kept_aside_and_revealed_by_the_rules(
    registry: RulesetRegistry,
) -> None:
    store, game = await play_seeded(registry, "nim", BOTS, {"lucky": True}, "seed-lucky-1")
    events = await store.read(game)
    private = await store.read_private(game)
    pile_set = events[1].payload
    assert set(pile_set["sealed"]) == {"lucky:0", "lucky:1"}
    assert pile_set["sealed"]["lucky:1"]["seats"] == [1]
    assert "lucky" not in json.dumps({k: v for k, v in pile_set.items() if k != "sealed"})
    # A spectator tries every lucky number (1..3) with every nonce it could guess.
    for secret_id, part in pile_set["sealed"].items():
        for candidate in range(1, 4):
            for guess in ("", "00" * 16, "00" * 32):
                assert not opens(part["commitment"], candidate, guess)
        assert opens(
            part["commitment"], private.secrets[secret_id].value, private.secrets[secret_id].nonce
        )
    # The reveal comes right after the StonesTaken that brought the pile to 5 or below.
    reveal_at = next(i for i, e in enumerate(events) if e.payload.get("reveals_lucky"))
    assert events[reveal_at + 1].type == "SecretsRevealed"
    assert [s["id"] for s in events[reveal_at + 1].payload["secrets"]] == ["lucky:0", "lucky:1"]
    assert sum(e.type == "SecretsRevealed" for e in events) == 1  # nothing left at the end
    report = audit_log(game, events, registry, await store.head(game))
    assert report.ok and report.commitments == 2 and report.reveals_verified == 2
    assert report.seed_verified


async def test_a_seat_sees_its_own_secret_and_a_public_fold_folds_without_it(
    registry: RulesetRegistry,
) -> None:
    store, game = await play_seeded(registry, "nim", BOTS, {"lucky": True}, "seed-lucky-2", 3)
    events = await store.read(game)
    private = await store.read_private(game)
    whole = fold(game, events, registry, private)
    public = fold(game, events, registry)
    for seat in (0, 1):
        lucky = private.secrets[f"lucky:{seat}"].value
        assert whole.ruleset.view(whole.state, seat)["your_lucky"] == lucky
        assert public.ruleset.view(public.state, seat)["your_lucky"] is None
    assert whole.ruleset.view(whole.state, None) == public.ruleset.view(public.state, None)
    assert whole.unrevealed() == ("lucky:0", "lucky:1")
    assert audit_log(game, events, registry).ok  # mid-game, from the public events alone


async def test_tampering_is_detected_and_the_first_bad_version_named(
    registry: RulesetRegistry,
) -> None:
    store, game = await play_seeded(registry, "nim", BOTS, {"lucky": True}, "seed-lucky-3")
    events = await store.read(game)
    assert audit_log(game, events, registry).ok
    reveal = next(e for e in events if e.type == "SecretsRevealed")
    secrets = reveal.payload["secrets"]

    # Any edit of a stored event, without recomputing hashes: the chain breaks there.
    for victim in events:
        edited = _with_payload(events, victim.version, {**victim.payload, "x": 1})
        report = audit_log(game, edited, registry)
        assert not report.ok and report.first_bad_version == victim.version

    # A server rewriting its log and every hash after it: the commitments still catch it.
    wrong_value = [{**secrets[0], "value": secrets[0]["value"] % 3 + 1}, *secrets[1:]]
    wrong_nonce = [{**secrets[0], "nonce": new_nonce()}, *secrets[1:]]
    for changed in (wrong_value, wrong_nonce):
        forged = _rechained(_with_payload(events, reveal.version, {"secrets": changed}))
        report = audit_log(game, forged, registry)
        assert not report.ok and report.first_bad_version == reveal.version
        assert "does not open its commitment (version 2)" in report.problems[0]

    pile_set = events[1].payload
    forged_commitment = {
        **pile_set,
        "sealed": {**pile_set["sealed"], "lucky:0": {"commitment": "0" * 64, "seats": [0]}},
    }
    report = audit_log(game, _rechained(_with_payload(events, 2, forged_commitment)), registry)
    assert not report.ok and report.first_bad_version == reveal.version
    assert any("lucky:0" in p for p in report.problems)

    # A game that ended with a commitment never opened fails, naming its end.
    unrevealed = _rechained(
        [
            replace(e, version=e.version - (e.version > reveal.version))
            for e in events
            if e.version != reveal.version
        ]
    )
    report = audit_log(game, unrevealed, registry)
    assert not report.ok and report.first_bad_version == unrevealed[-1].version
    assert any("never revealed" in p for p in report.problems)


@pytest.mark.parametrize("token", ["short", "ann-secret"])
async def test_no_token_derived_value_enters_the_log(registry: RulesetRegistry, token: str) -> None:
    """Whatever the token, neither it nor any hash of it is in any event (the binding is in
    the service-only tokens record); even a token guessed from a dictionary finds nothing."""
    store = InMemoryEventStore()
    engine = Engine(store, registry, clock=_clock)
    seats = [SeatSpec(SeatKind.HUMAN, "ann", hash_token(token)), SeatSpec(SeatKind.HUMAN, "")]
    game = (await engine.create_game("nim", seats, {})).game_id
    await engine.join_game(game, 1, "bob", hash_token(token + "-bob"))
    log_text = json.dumps([dict(e.payload) for e in await store.read(game)])
    for candidate in (token, token + "-bob", "ann-secret", "short"):
        for derived in (
            candidate,
            hash_token(candidate),
            hashlib.sha1(candidate.encode()).hexdigest(),
        ):
            assert derived not in log_text
    assert (await store.read_private(game)).token_hashes == {
        0: hash_token(token),
        1: hash_token(token + "-bob"),
    }
    loaded = await engine.load(game)
    assert loaded.seats[0].accepts(token) and loaded.seats[1].accepts(token + "-bob")
    assert not fold(game, await store.read(game), registry).seats[0].token_hash
