"""Issue 34: ``teoti archive`` (what the archive CronJob runs) says what it moved: games,
and bytes before and after, on stdout and in one ``archive_pass`` log line."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import uuid

import pytest

from services.cli import main
from services.engine.adapters import RedisEventStore
from services.engine.domain.engine import Engine
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.rulesets import RulesetRegistry


async def _finished_nim_game(url: str, prefix: str, registry: RulesetRegistry) -> str:
    store = RedisEventStore.from_url(url, prefix=prefix)
    engine = Engine(store, registry)
    seats = [
        SeatSpec(SeatKind.HUMAN, f"p{i}", hashlib.sha256(f"t{i}".encode()).hexdigest())
        for i in range(2)
    ]
    game = (await engine.create_game("nim", seats, {"max_take": 1}, uuid.uuid4().hex)).game_id
    snapshot = await engine.load(game)
    while not snapshot.is_terminal():
        seat = snapshot.seats_to_act()[0]
        await engine.submit_action(game, seat, {"take": 1}, snapshot.version, uuid.uuid4().hex)
        snapshot = await engine.load(game)
    await store.close()
    return game


def test_a_pass_reports_games_and_bytes_moved(
    redis_url: str, key_prefix: str, registry: RulesetRegistry, capsys: pytest.CaptureFixture[str]
) -> None:
    asyncio.run(_finished_nim_game(redis_url, key_prefix, registry))
    argv = [
        "--log-level=INFO",  # as the CronJob's pods have it (TEOTI_LOG_LEVEL in teoti-config)
        "archive",
        "--older-than-days=0",
        f"--redis-url={redis_url}",
        f"--key-prefix={key_prefix}",
        "--extra-ruleset=nim=tests.nim:NimRuleset",
    ]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    summary = re.search(r"archived 1, .*; bytes before (\d+), after (\d+)", out)
    assert summary, out
    before, after = int(summary[1]), int(summary[2])
    assert 0 < after < before
    (line,) = [json.loads(text) for text in err.splitlines() if '"archive_pass"' in text]
    assert (line["archived"], line["bytes_before"], line["bytes_after"]) == (1, before, after)

    assert main(argv) == 0  # a second pass finds it archived: nothing moved
    out, _ = capsys.readouterr()
    assert "archived 0, already archived 1" in out and "bytes before 0, after 0" in out
