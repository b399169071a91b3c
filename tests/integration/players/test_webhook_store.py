"""A credential's webhook in a real Redis (services.players.webhooks): set only while its
credential exists, replaced with a fresh delivery state, dropped with the credential in
one step; its secret stays out of its repr."""

from __future__ import annotations

import time

from services.engine.adapters.redis_client import RedisClient
from services.players.repository import PlayerRepository
from services.players.service import PlayerService
from services.players.webhooks import (
    SECRET_PREFIX,
    RedisWebhooks,
    Webhook,
    new_secret,
    state_key,
)


async def test_a_webhook_lives_and_dies_with_its_credential(
    redis_client: RedisClient, key_prefix: str
) -> None:
    players = PlayerService(PlayerRepository(redis_client, key_prefix))
    webhooks = RedisWebhooks(redis_client, key_prefix)
    player, first, _ = await players.register("Ann")
    second, _ = await players.create_credential(player.player_id, "phone")
    now = int(time.time() * 1000)
    made = [
        Webhook(player.player_id, c.credential_id, f"https://example.org/{n}", new_secret(), now)
        for n, c in enumerate((first, second))
    ]
    assert all([await webhooks.set(w) for w in made])
    assert await webhooks.of_player(player.player_id) == sorted(made, key=lambda w: w.credential_id)
    assert await webhooks.get(player.player_id, first.credential_id) == made[0]

    # Its delivery state starts again when it is set again.
    state = state_key(key_prefix, player.player_id)
    await redis_client.hset(state, first.credential_id, '{"cursor": "1-0"}')
    assert await webhooks.set(made[0])
    assert not await redis_client.hexists(state, first.credential_id)

    await redis_client.hset(state, second.credential_id, '{"cursor": "1-0"}')
    await players.revoke(player.player_id, second.credential_id)
    assert await webhooks.get(player.player_id, second.credential_id) is None
    assert not await redis_client.hexists(state, second.credential_id)
    assert not await webhooks.set(made[1])  # a revoked credential gets none
    assert await webhooks.of_player(player.player_id) == [made[0]]

    assert await webhooks.delete(player.player_id, first.credential_id)
    assert not await webhooks.delete(player.player_id, first.credential_id)
    assert await webhooks.of_player(player.player_id) == []


def test_a_secret_is_random_and_never_in_a_repr() -> None:
    secrets = {new_secret() for _ in range(100)}
    assert len(secrets) == 100
    for secret in secrets:
        assert secret.startswith(SECRET_PREFIX) and len(secret) == len(SECRET_PREFIX) + 43
    hook = Webhook("p", "c", "https://example.org/", secrets.pop(), 1)
    assert hook.secret not in repr(hook) and hook.secret not in str(hook)
