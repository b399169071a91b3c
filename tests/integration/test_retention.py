"""Issue 12: retention. A finished game past N days moves into a compressed archive that
leaves the hot keys, and every read, VerifyGame and ``teoti replay --verify`` still
check it; running or recent games stay."""

from __future__ import annotations

import asyncio
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from services.app import StoreSettings, all_in_one
from services.client import SeatInfo, TeotiClient
from services.engine.adapters.archive import decode_entries, encode_entries
from services.engine.adapters.retention import archive_finished
from services.engine.domain.rulesets import RulesetRegistry

ROOT = Path(__file__).resolve().parents[2]
HUMANS = [SeatInfo("human", "ann"), SeatInfo("human", "bob")]
BOTS = [SeatInfo("bot", "b1"), SeatInfo("bot", "b2")]


async def _finished(client: TeotiClient, game_id: str) -> int:
    """The version of ``game_id`` once its bots have played it to the end."""
    for _ in range(600):
        view = await client.get_game(game_id)
        if view.finished:
            return view.version
        await asyncio.sleep(0.05)
    raise AssertionError("the bots did not finish the game")


def test_archive_blobs_round_trip_and_refuse_garbage() -> None:
    entries = [
        ("1-1", {"type": "A", "payload": '{"x":1}'}),
        ("2-1", {"type": "B", "payload": "{}"}),
    ]
    blob = encode_entries(entries)
    assert decode_entries(blob) == entries
    for bad in ("", "z1:not-base64!", "z2:" + blob[3:]):
        try:
            decode_entries(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} decoded")


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_finished_games_move_to_an_archive_that_reads_and_verifies(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    async with (
        all_in_one(
            redis_url,
            store=StoreSettings(key_prefix, shards=4),
            registry=registry,
            default_ruleset="nim",
        ) as stack,
        TeotiClient(f"127.0.0.1:{stack.port}") as client,
    ):
        # Bots' seats hold no token hash, so a client can re-check the whole chain.
        done = await client.create_game(BOTS, options={"max_take": 1})
        running = await client.create_game(HUMANS, options={"max_take": 1})
        end = await _finished(client, done.game_id)
        before = await client.events(done.game_id)
        view_before = await client.get_game(done.game_id)
        store, keys = stack.store, stack.store.keys
        raw = store.client

        # Created (so finished) only moments ago: a 1-day policy keeps it, and the walk
        # of the index stops at the first game created after the cutoff.
        kept = await archive_finished(store, registry, timedelta(days=1), datetime.now(UTC))
        assert kept.archived == [] and kept.recent == kept.running == 0
        # Ended moments ago, but the cutoff is now: kept as recent... once it is past.
        soon = await archive_finished(store, registry, timedelta(hours=1), datetime.now(UTC))
        assert soon.archived == [] and not soon.failed

        later = datetime.now(UTC) + timedelta(days=2)
        report = await archive_finished(store, registry, timedelta(days=1), later)
        assert report.archived == [done.game_id] and report.running == 1 and not report.failed
        game = done.game_id
        for hot in (keys.events(game), keys.commands(game), keys.secret(game), keys.snapshot(game)):
            assert not await raw.exists(hot), hot
        assert await raw.exists(keys.archive(game))
        assert await raw.exists(keys.events(running.game_id))  # the running game stays
        blob_size = await raw.strlen(keys.archive(game))
        assert blob_size < sum(len(e.type) + 200 for e in before)

        # Reads through a fresh gateway process's view (no cache): same log, same hashes.
        stack.reader._snapshots.forget(game)  # drop this process's cached game
        assert await client.events(game) == before
        paged = await client.events(game, from_version=3)
        assert paged == before[3:]
        view = await client.get_game(game)
        assert view.finished and view.version == end and view.head_hash == view_before.head_hash
        assert (await client.get_game_at(game, 3)).version == 3
        report_ok = await client.verify(game)
        assert report_ok.ok and report_ok.events == end and report_ok.seed_verified

        again = await archive_finished(store, registry, timedelta(days=1), later)
        assert again.already_archived == 1 and again.archived == []

        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "services.cli",
            "--log-level",
            "WARNING",
            "replay",
            "--extra-ruleset",
            "nim=tests.nim:NimRuleset",
            game,
            "--target",
            f"127.0.0.1:{stack.port}",
            "--verify",
            cwd=ROOT,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        out, _ = await asyncio.wait_for(process.communicate(), 120)
        assert process.returncode == 0, out.decode()
        assert "verify: OK" in out.decode()
