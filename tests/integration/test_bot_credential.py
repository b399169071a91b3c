"""Bot seats act only under the bot credential, also over EngineService (issue 12)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import structlog

from services.bot.health import BotHealth
from services.bot.queue import TurnRequestQueue
from services.bot.worker import BotWorker, bot_command_id
from services.engine.adapters.redis_store import RedisEventStore
from services.engine.domain.bot_credential import BOT_SECRET_ENV, BotCredential
from services.engine.domain.engine import Engine
from services.engine.domain.errors import NotAuthorized
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.game_seats import hash_token
from services.engine.domain.reader import GameReader
from services.engine.domain.records import TurnRequest
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.entrypoints.servicer import start_engine_link
from services.engine.transport.client import InProcessEngineClient
from services.engine.transport.remote import RemoteEngineClient

REPO = Path(__file__).resolve().parents[2]


async def test_only_a_client_holding_the_credential_moves_a_bot_seat(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """The credential goes in each link connection's hello."""
    credential = BotCredential("remote-bot-credential-0123456789")
    engine = Engine(redis_store, registry, bot_credential=credential)
    server, port = await start_engine_link(engine, "127.0.0.1", 0)
    target = f"127.0.0.1:{port}"
    anyone = RemoteEngineClient(target)
    forger = RemoteEngineClient(target, bot_key="remote-bot-credential-guessed-00")
    bot = RemoteEngineClient(target, bot_key=credential.secret)
    try:
        seats = [SeatSpec(SeatKind.HUMAN, "ann", hash_token("t")), SeatSpec(SeatKind.BOT, "b")]
        game = (await anyone.create_game("nim", seats, {"max_take": 3})).game_id
        await anyone.submit_action(game, 0, {"take": 1})
        command = bot_command_id(TurnRequest(game, 1, 3))
        for client in (anyone, forger):
            with pytest.raises(NotAuthorized):
                await client.submit_action(game, 1, {"take": 1}, 3, command)
        assert (await bot.submit_action(game, 1, {"take": 1}, 3, command)).version == 4
    finally:
        for client in (anyone, forger, bot):
            await client.close()
        await server.stop(0)


def test_the_credential_is_never_shown_and_must_be_long() -> None:
    credential = BotCredential("a-secret-of-enough-length")
    assert "a-secret" not in repr(credential)
    with pytest.raises(ValueError):
        BotCredential("short")
    assert BotCredential.from_env({}) is None
    from_env = BotCredential.from_env({"TEOTI_BOT_SECRET": "x" * 16})
    assert from_env is not None and from_env.accepts("x" * 16)
    assert not from_env.accepts("") and not from_env.accepts("y" * 16)


PLACEHOLDER = "change-me-dev-only-bot-credential"  # deploy/k8s/base/redis-secret.yaml


@pytest.mark.parametrize(
    "secret", ["", PLACEHOLDER, "short"], ids=["unset", "placeholder", "short"]
)
@pytest.mark.parametrize("command", ["engine", "bot"])
def test_a_split_process_refuses_to_start_without_a_real_bot_secret(
    redis_url: str, command: str, secret: str
) -> None:
    """Issue 30 item 5: an engine or bot worker without the shared secret (or with the
    public placeholder) used to start with a warning, and no bot ever moved. Now it
    exits 2 with one line that names TEOTI_BOT_SECRET, before it serves anything."""
    env = {k: v for k, v in os.environ.items() if k != BOT_SECRET_ENV}
    if secret:
        env[BOT_SECRET_ENV] = secret
    args = ["--redis-url", redis_url, "--key-prefix", f"secret-{uuid.uuid4().hex[:8]}"]
    args += ["--port", "0"] if command == "engine" else ["--engine", "127.0.0.1:1"]
    try:
        done = subprocess.run(
            [sys.executable, "-m", "services.cli", command, *args],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=20,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"teoti {command} started without a usable {BOT_SECRET_ENV}")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr[-2000:]
    assert len(lines) == 1 and BOT_SECRET_ENV in lines[0], lines
    assert PLACEHOLDER not in lines[0]  # the secret itself is never printed


async def test_a_refused_bot_is_an_error_and_not_ready_until_the_secret_agrees(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    """Issue 30 item 5: a bot worker whose secret the engine refuses retried at info
    level (77 retries in 45 s) and its readiness said SERVING. Now each refused request
    is logged at error and readiness is NOT_SERVING until a move is accepted again."""
    credential = BotCredential("the-engine-s-bot-credential-0123")
    engine = Engine(redis_store, registry, bot_credential=credential)
    seats = [SeatSpec(SeatKind.HUMAN, "ann", hash_token("t")), SeatSpec(SeatKind.BOT, "b")]
    game = (await engine.create_game("nim", seats, {"max_take": 3})).game_id
    await engine.submit_action(game, 0, {"take": 1})  # the bot (seat 1) is to act at 3
    client = InProcessEngineClient(engine, bot_key="another-bot-credential-0123456789")
    queue = TurnRequestQueue(redis_store.client, redis_store.keys, consumer="bot-refused")
    worker = BotWorker(queue, GameReader(redis_store, registry), client, block_ms=50)
    health = BotHealth(worker, "127.0.0.1:0")
    stop = asyncio.Event()
    with structlog.testing.capture_logs() as logs:
        task = asyncio.create_task(worker.run(stop))
        try:
            for _ in range(100):
                if not await health.refresh():
                    break
                await asyncio.sleep(0.05)
            assert not await health.refresh(), "still SERVING while every move is refused"
            refused = [e for e in logs if e["event"] == "bot_credential_refused"]
            # The worker's at error, the engine's (same event name) at warning.
            assert {e["log_level"] for e in refused} == {"error", "warning"}, logs[-5:]
            assert credential.secret not in repr(logs)
            client._bot_key = credential.secret  # the secrets agree again (a rotation)
            for _ in range(100):
                if (await redis_store.head(game))[0] > 3 and await health.refresh():
                    break
                await asyncio.sleep(0.05)
            assert (await redis_store.head(game))[0] > 3
            assert await health.refresh()
        finally:
            stop.set()
            await task
