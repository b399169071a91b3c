"""An outside auditor, through the real gRPC API and ``teoti replay --verify`` only: human,
solo and all-bot games with secret starting tiles (standard setup) verify mid-game and at
the end, ``replay --step``'s timeline folds every version of them, and a forged reveal is
caught with its version named (docs/events.md)."""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from services.app import GatewayLimits, Stack, StoreSettings, all_in_one
from services.client import SeatInfo, TeotiClient
from services.engine.domain.audit import audit_log
from services.engine.domain.chain import GENESIS_HASH, hash_of
from services.engine.domain.commitments import new_nonce
from services.engine.domain.errors import VersionConflict
from services.engine.domain.rulesets import RulesetRegistry
from services.rpc.limits import PeerRateLimiter
from services.tui.timeline import Timeline
from tests.e2e.test_cli import teoti
from tests.e2e.test_cli_export import published_keys_file

STANDARD = {"first_game": False}
TOKENS = ("ann-audit-token-0123456789", "bob-audit-token-0123456789")


@pytest.fixture
async def stack(redis_url: str, key_prefix: str, registry: RulesetRegistry) -> AsyncIterator[Stack]:
    async with all_in_one(
        redis_url,
        store=StoreSettings(key_prefix),
        limits=GatewayLimits(limiter=PeerRateLimiter(0)),
        registry=registry,
    ) as s:
        yield s


async def _play_humans(client: TeotiClient, game: str, rng: random.Random, moves: int) -> None:
    """The two human seats play ``moves`` random legal actions (0: to the end); the bot
    seat is played by the service's bot worker meanwhile."""
    done = 0
    while not moves or done < moves:
        view = await client.get_game(game)
        if view.finished:
            return
        humans = [s for s in view.seats_to_act if s < len(TOKENS)]
        if not humans:
            await asyncio.sleep(0.02)  # the bot worker's turn
            continue
        seat = humans[0]
        legal = await client.legal_actions(game, seat, TOKENS[seat])
        if not legal:
            continue
        try:
            await client.submit_action(
                game, seat, TOKENS[seat], rng.choice(legal).action, view.version
            )
        except VersionConflict:  # the bot moved since: look again
            continue
        done += 1


async def _verify_cli(stack: Stack, game: str) -> str:
    code, out = await teoti("replay", game, "--target", f"127.0.0.1:{stack.port}", "--verify")
    assert code == 0 and "verify: OK" in out, out
    signer = rf"signature: OK, key [0-9a-f]{{16}} \(current key from 127.0.0.1:{stack.port}"
    assert re.search(signer, out), out
    return out


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_a_human_standard_game_verifies_from_the_public_api_mid_game(
    stack: Stack, registry: RulesetRegistry, tmp_path: Path
) -> None:
    async with TeotiClient(f"127.0.0.1:{stack.port}") as client:
        created = await client.create_game(
            [SeatInfo("human", "ann", token=TOKENS[0]), SeatInfo("human", "bob", token=TOKENS[1]),
             SeatInfo("bot", "bot")],
            ruleset="teotihuacan",
            options=STANDARD,
        )  # fmt: skip
        game = created.game_id
        # Version 2..: before anyone chose, after one choice, after the reveal and moves.
        out = await _verify_cli(stack, game)
        assert "game still running" in out
        await _play_humans(client, game, random.Random(1), 1)
        await _verify_cli(stack, game)
        await _play_humans(client, game, random.Random(2), 12)
        out = await _verify_cli(stack, game)
        assert re.search(r"commitments: [1-9]\d*, opened and verified: [1-9]", out), out
        events = await client.events(game)
        assert any(e.type == "SecretsRevealed" for e in events)
        Timeline(game, events, registry)  # replay --step folds every version: no CorruptLog
        view = await client.get_game(game)
        report = audit_log(game, events[: view.version], registry, (view.version, view.head_hash))
        assert report.ok and not report.seed_revealed, report.problems
    # Offline, years later: the exported public log verifies without the server.
    exported = tmp_path / "standard.jsonl"
    target = f"127.0.0.1:{stack.port}"
    code, out = await teoti("export", game, "--target", target, "-o", str(exported))
    assert code == 0, out
    keys = await published_keys_file(target, tmp_path / "keys.json")  # its well-known file
    code, out = await teoti("replay", str(exported), "--verify", "--public-key", keys)
    assert code == 0 and "verify: OK" in out and "commitments: " in out, out


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_all_bot_and_solo_standard_games_verify_at_the_end(
    stack: Stack, registry: RulesetRegistry
) -> None:
    target = f"127.0.0.1:{stack.port}"
    for extra in (("--players", "4"), ("--solo",)):
        code, out = await teoti(
            "demo", "--target", target, "--options", json.dumps(STANDARD), *extra
        )
        assert code == 0, out
        found = re.search(r"game id: (\w+)", out)
        assert found is not None
        game = found.group(1)
        out = await _verify_cli(stack, game)
        assert "seed: revealed, verified" in out
        async with TeotiClient(target) as client:
            events = await client.events(game)
            verdict = await client.verify(game)
        assert verdict.ok and verdict.seed_verified
        report = audit_log(game, events, registry)
        assert report.commitments == report.reveals_verified > 0
        Timeline(game, events, registry)

        # A server that forged a reveal (and re-chained every hash) is caught at it.
        reveal = next(e for e in events if e.type == "SecretsRevealed")
        forged_secrets = [{**s, "nonce": new_nonce()} for s in reveal.payload["secrets"]]
        forged, previous = [], GENESIS_HASH
        for event in events:
            if event.version == reveal.version:
                event = replace(event, payload={"secrets": forged_secrets})
            previous = hash_of(previous, event)
            forged.append(replace(event, hash=previous))
        bad = audit_log(game, forged, registry)
        assert not bad.ok and bad.first_bad_version == reveal.version


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_a_human_standard_game_verifies_at_the_end(
    stack: Stack, registry: RulesetRegistry
) -> None:
    async with TeotiClient(f"127.0.0.1:{stack.port}") as client:
        created = await client.create_game(
            [SeatInfo("human", "ann", token=TOKENS[0]), SeatInfo("human", "bob", token=TOKENS[1]),
             SeatInfo("bot", "bot")],
            ruleset="teotihuacan",
            options=STANDARD,
        )  # fmt: skip
        game = created.game_id
        await _play_humans(client, game, random.Random(3), 0)
        out = await _verify_cli(stack, game)
        assert "seed: revealed, verified" in out
        events: list[Any] = await client.events(game)
        Timeline(game, events, registry)
