"""Bot seats act only under the bot credential, also over EngineService (issue 12)."""

from __future__ import annotations

from typing import Any

import pytest

from services.bot.worker import bot_command_id
from services.engine.bot_credential import BotCredential
from services.engine.engine import Engine
from services.engine.errors import NotAuthorized
from services.engine.game import SeatKind, SeatSpec
from services.engine.game_seats import hash_token
from services.engine.remote import RemoteEngineClient
from services.engine.rulesets import RulesetRegistry
from services.engine.servicer import start_engine_link, start_engine_server
from services.engine.store.records import TurnRequest
from services.engine.store.redis_store import RedisEventStore


@pytest.mark.parametrize("transport", ["stream", "unary", "link"])
async def test_only_a_client_holding_the_credential_moves_a_bot_seat(
    redis_store: RedisEventStore, registry: RulesetRegistry, transport: str
) -> None:
    """On every transport: the stream's metadata, each unary call's, the link's hello."""
    credential = BotCredential("remote-bot-credential-0123456789")
    engine = Engine(redis_store, registry, bot_credential=credential)
    server: Any
    if transport == "link":
        server, port = await start_engine_link(engine, "127.0.0.1", 0)
    else:
        server, port = await start_engine_server(engine, "127.0.0.1:0")
    target = f"127.0.0.1:{port}"
    anyone = RemoteEngineClient(target, transport=transport)
    forger = RemoteEngineClient(
        target, bot_key="remote-bot-credential-guessed-00", transport=transport
    )
    bot = RemoteEngineClient(target, bot_key=credential.secret, transport=transport)
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
