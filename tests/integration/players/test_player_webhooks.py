"""A credential's webhook through the gRPC face of a real ``all_in_one`` stack and Redis
(SetPlayerWebhook, GetPlayerWebhook, DeletePlayerWebhook; docs/players.md "Webhooks"):
the secret is shown once and never again, setting again replaces it, a URL the server
won't send to is refused with its rule and changes nothing, each credential acts on its
own webhook only, and revoking the credential drops it."""

from __future__ import annotations

import json
from typing import Any

import grpc
import pytest
from teoti_client import (
    GameNotFound,
    InvalidArgument,
    NotAuthorized,
    PlayerWebhookInfo,
    TeotiClient,
)
from teoti_client.proto import player_service_pb2 as pb
from teoti_client.proto import player_service_pb2_grpc as pb_grpc

from services.app import Stack
from services.gateway.player_servicer import PlayerServicer
from services.players.repository import PlayerRepository
from services.players.service import PlayerService
from services.players.webhooks import RedisWebhooks, state_key
from tests.servicer_context import Refused, ServicerContext

CHOSEN = "tpc_" + "w" * 43


@pytest.fixture
def webhooks(stack: Stack) -> RedisWebhooks:
    return RedisWebhooks(stack.store.client, stack.store.keys.prefix)


async def test_the_secret_is_shown_once_and_a_second_set_replaces_it(
    stack: Stack, client: TeotiClient, webhooks: RedisWebhooks
) -> None:
    ann = await client.register_player("Ann")
    me = ann.credential_info.credential_id
    info, secret = await client.set_player_webhook(ann.credential, "https://example.org/ann")
    assert secret.startswith("whsec_")
    assert info.credential_id == me and info.url == "https://example.org/ann"
    assert info.created_at.endswith("+00:00")
    assert (info.last_delivered_ms, info.last_error, info.failing_since_ms, info.dropped) == (
        0,
        "",
        0,
        0,
    )
    assert await client.get_player_webhook(ann.credential) == info
    stored = await webhooks.get(ann.player.player_id, me)
    assert stored is not None and stored.secret == secret

    # Get never carries it, in any field of the reply.
    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
        raw = await pb_grpc.PlayerServiceStub(channel).GetPlayerWebhook(
            pb.GetPlayerWebhookRequest(),
            metadata=(("authorization", f"Player {ann.credential}"),),
        )
    assert secret.encode() not in raw.SerializeToString()

    again, second = await client.set_player_webhook(ann.credential, "https://example.net/2")
    assert second != secret and again.url == "https://example.net/2"
    stored = await webhooks.get(ann.player.player_id, me)
    assert stored is not None and stored.secret == second
    assert (await client.get_player_webhook(ann.credential)).url == "https://example.net/2"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://example.org/hook", "webhook_url_not_https"),
        ("https://127.0.0.1:8443/hook", "webhook_address_not_public"),
        ("https://169.254.169.254/latest/meta-data", "webhook_address_not_public"),
        ("gopher://example.org/", "webhook_url_invalid"),
        ("", "webhook_url_invalid"),
    ],
)
async def test_a_bad_url_is_invalid_argument_and_changes_nothing(
    client: TeotiClient, url: str, reason: str
) -> None:
    ann = await client.register_player("Ann")
    with pytest.raises(InvalidArgument) as refused:
        await client.set_player_webhook(ann.credential, url)
    assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.reason == reason
    with pytest.raises(GameNotFound):  # none was set
        await client.get_player_webhook(ann.credential)

    kept, _ = await client.set_player_webhook(ann.credential, "https://example.org/kept")
    with pytest.raises(InvalidArgument):
        await client.set_player_webhook(ann.credential, url)
    assert await client.get_player_webhook(ann.credential) == kept


async def test_each_credential_acts_on_its_own_webhook_only(
    client: TeotiClient, webhooks: RedisWebhooks
) -> None:
    ann = await client.register_player("Ann")
    bob = await client.register_player("Bob")
    _, phone = await client.create_player_credential(ann.credential, "phone")
    mine, _ = await client.set_player_webhook(ann.credential, "https://example.org/ann")
    for other in (bob.credential, phone):
        with pytest.raises(GameNotFound) as missing:
            await client.get_player_webhook(other)
        assert missing.value.code == grpc.StatusCode.NOT_FOUND
        assert missing.value.reason == "webhook_not_found"
        with pytest.raises(GameNotFound):
            await client.delete_player_webhook(other)
    assert await client.get_player_webhook(ann.credential) == mine

    # Another credential's webhook is its own: setting it leaves Ann's first one alone.
    phones, _ = await client.set_player_webhook(phone, "https://example.org/phone")
    assert phones.credential_id != mine.credential_id
    await client.delete_player_webhook(phone)
    assert await client.get_player_webhook(ann.credential) == mine
    assert [w.url for w in await webhooks.of_player(ann.player.player_id)] == [
        "https://example.org/ann"
    ]

    await client.delete_player_webhook(ann.credential)
    for call in (client.get_player_webhook, client.delete_player_webhook):
        with pytest.raises(GameNotFound) as gone:
            await call(ann.credential)
        assert gone.value.reason == "webhook_not_found"


async def test_no_or_a_bad_credential_is_refused(client: TeotiClient) -> None:
    for credential in ("", "tpc_" + "n" * 43, "not-a-credential"):
        with pytest.raises(NotAuthorized) as refused:
            await client.set_player_webhook(credential, "https://example.org/")
        assert refused.value.reason == "player_credential_invalid"
        with pytest.raises(NotAuthorized):
            await client.get_player_webhook(credential)
        with pytest.raises(NotAuthorized):
            await client.delete_player_webhook(credential)


async def test_revoking_the_credential_drops_its_webhook(
    client: TeotiClient, webhooks: RedisWebhooks
) -> None:
    ann = await client.register_player("Ann")
    info, _ = await client.create_player_credential(ann.credential, "bot", chosen=CHOSEN)
    await client.set_player_webhook(CHOSEN, "https://example.org/bot")
    await client.set_player_webhook(ann.credential, "https://example.org/ann")
    await client.revoke_player_credential(ann.credential, info.credential_id)

    with pytest.raises(NotAuthorized):
        await client.get_player_webhook(CHOSEN)
    assert await webhooks.get(ann.player.player_id, info.credential_id) is None
    assert (await client.get_player_webhook(ann.credential)).url == "https://example.org/ann"

    # The same secret held again is a new credential: it has no webhook.
    await client.create_player_credential(ann.credential, "bot", chosen=CHOSEN)
    with pytest.raises(GameNotFound) as missing:
        await client.get_player_webhook(CHOSEN)
    assert missing.value.reason == "webhook_not_found"


async def test_get_shows_how_deliveries_stand(stack: Stack, client: TeotiClient) -> None:
    ann = await client.register_player("Ann")
    me = ann.credential_info.credential_id
    await client.set_player_webhook(ann.credential, "https://example.org/ann")
    stored = await RedisWebhooks(stack.store.client, stack.store.keys.prefix).get(
        ann.player.player_id, me
    )
    assert stored is not None
    state: dict[str, Any] = {
        "created_ms": stored.created_ms,
        "cursor": "5-0",
        "attempts": 2,
        "retry_ms": 0,
        "last_ok_ms": 1_700_000_000_000,
        "last_error": "HTTP 503",
        "failing_since_ms": 1_700_000_100_000,
        "dropped": 3,
    }
    key = state_key(stack.store.keys.prefix, ann.player.player_id)
    await stack.store.client.hset(key, me, json.dumps(state))
    got = await client.get_player_webhook(ann.credential)
    assert got == PlayerWebhookInfo(
        me,
        "https://example.org/ann",
        got.created_at,
        last_delivered_ms=1_700_000_000_000,
        last_error="HTTP 503",
        failing_since_ms=1_700_000_100_000,
        dropped=3,
    )
    # A state the dispatcher kept for an earlier webhook of the credential counts nothing.
    await stack.store.client.hset(key, me, json.dumps({**state, "created_ms": 1}))
    assert (await client.get_player_webhook(ann.credential)).dropped == 0


class PlayerContext(ServicerContext):
    """A direct call carrying a player credential."""

    def __init__(self, credential: str) -> None:
        self._credential = credential

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:  # type: ignore[override]
        return (("authorization", f"Player {self._credential}"),)


async def test_a_deployment_allowing_private_addresses_takes_them(stack: Stack) -> None:
    repo = PlayerRepository(stack.store.client, stack.store.keys.prefix)
    strict = PlayerServicer(PlayerService(repo))
    private = PlayerServicer(PlayerService(repo, webhooks_allow_private=True))
    _, _, credential = await PlayerService(repo).register("Ann")
    request = pb.SetPlayerWebhookRequest(url="http://127.0.0.1:8080/hook")
    with pytest.raises(Refused, match="webhook_url_not_https"):
        await strict.SetPlayerWebhook(request, PlayerContext(credential))
    reply = await private.SetPlayerWebhook(request, PlayerContext(credential))
    assert reply.webhook.url == "http://127.0.0.1:8080/hook" and reply.secret
    got = await strict.GetPlayerWebhook(pb.GetPlayerWebhookRequest(), PlayerContext(credential))
    assert got.webhook.url == "http://127.0.0.1:8080/hook"
