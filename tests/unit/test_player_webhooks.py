"""A credential's webhook as its player sets, reads and drops it
(services.players.webhook_service), on an in-memory store: the URL's refusals change
nothing, the secret is shown once and logged nowhere, a missing webhook is NOT_FOUND;
and the delivery status reader (services.players.webhooks.WebhookStatus) takes whatever
the state hash holds."""

from __future__ import annotations

import functools
import json
from datetime import UTC, datetime
from typing import Any, cast

import grpc
import pytest
from structlog.testing import capture_logs

from services.engine.transport.status_mapping import status_for
from services.gateway.player_servicer import webhook_to_proto, webhook_url_check
from services.players.errors import InvalidWebhook, NotYourPlayer, WebhookNotFound
from services.players.webhook_service import WebhookService, created_at, url_host
from services.players.webhooks import (
    MAX_ERROR_LENGTH,
    SECRET_PREFIX,
    RedisWebhooks,
    Webhook,
    WebhookStatus,
    state_key,
)

NOW = datetime(2025, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
NOW_MS = int(NOW.timestamp() * 1000)


class MemoryWebhooks:
    """RedisWebhooks' calls the service makes, in dicts; ``held`` are the credentials
    that exist (set refuses another, as the store's script does)."""

    def __init__(self, held: set[tuple[str, str]]) -> None:
        self.held = held
        self.hooks: dict[tuple[str, str], Webhook] = {}
        self.states: dict[tuple[str, str], str] = {}

    async def set(self, webhook: Webhook) -> bool:
        key = (webhook.player_id, webhook.credential_id)
        if key not in self.held:
            return False
        self.hooks[key] = webhook
        self.states.pop(key, None)
        return True

    async def get(self, player_id: str, credential_id: str) -> Webhook | None:
        return self.hooks.get((player_id, credential_id))

    async def delete(self, player_id: str, credential_id: str) -> bool:
        self.states.pop((player_id, credential_id), None)
        return self.hooks.pop((player_id, credential_id), None) is not None

    async def status(
        self, player_id: str, credential_id: str, created_ms: int | None = None
    ) -> WebhookStatus:
        return WebhookStatus.from_json(self.states.get((player_id, credential_id)), created_ms)


def service(store: MemoryWebhooks, allow_private: bool = False) -> WebhookService:
    check = functools.partial(webhook_url_check, allow_private=allow_private)
    return WebhookService(cast(RedisWebhooks, store), check, lambda: NOW)


@pytest.fixture
def store() -> MemoryWebhooks:
    return MemoryWebhooks({("ann", "c1"), ("ann", "c2"), ("bob", "c9")})


async def test_set_shows_the_secret_once_and_get_never(store: MemoryWebhooks) -> None:
    hooks = service(store)
    info, secret = await hooks.set("ann", "c1", "https://example.org/hook?token=abc")
    assert secret.startswith(SECRET_PREFIX) and len(secret) == len(SECRET_PREFIX) + 43
    assert info.credential_id == "c1" and info.url == "https://example.org/hook?token=abc"
    assert info.created_at == "2025-01-02T03:04:05.678000+00:00" == created_at(NOW_MS)
    assert info.status == WebhookStatus()
    assert store.hooks["ann", "c1"] == Webhook(
        "ann", "c1", "https://example.org/hook?token=abc", secret, NOW_MS
    )
    got = await hooks.get("ann", "c1")
    assert got == info
    assert secret not in repr(got) and secret not in str(webhook_to_proto(got))


async def test_setting_again_replaces_url_and_secret(store: MemoryWebhooks) -> None:
    hooks = service(store)
    _, first = await hooks.set("ann", "c1", "https://example.org/one")
    store.states["ann", "c1"] = json.dumps({"created_ms": NOW_MS, "dropped": 3})
    info, second = await hooks.set("ann", "c1", "https://example.net/two")
    assert second != first
    assert info.url == "https://example.net/two"
    assert store.hooks["ann", "c1"].secret == second
    assert (await hooks.get("ann", "c1")).status == WebhookStatus()  # a fresh start


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("", "webhook_url_invalid"),
        ("not a url", "webhook_url_invalid"),
        ("ftp://example.org/", "webhook_url_invalid"),
        ("https://user:pw@example.org/", "webhook_url_invalid"),
        ("https://example.org/#frag", "webhook_url_invalid"),
        ("https://example.org/" + "a" * 3000, "webhook_url_invalid"),
        ("http://example.org/hook", "webhook_url_not_https"),
        ("https://127.0.0.1/hook", "webhook_address_not_public"),
        ("https://10.0.0.8/hook", "webhook_address_not_public"),
        ("https://169.254.169.254/latest/meta-data", "webhook_address_not_public"),
        ("https://[::1]:8443/", "webhook_address_not_public"),
        ("https://localhost/hook", "webhook_address_not_public"),
        ("https://redis.internal/", "webhook_address_not_public"),
    ],
)
async def test_a_url_the_server_will_not_send_to_is_refused_and_changes_nothing(
    store: MemoryWebhooks, url: str, reason: str
) -> None:
    hooks = service(store)
    _, secret = await hooks.set("ann", "c1", "https://example.org/kept")
    with pytest.raises(InvalidWebhook) as refused:
        await hooks.set("ann", "c1", url)
    assert refused.value.rule == reason
    assert store.hooks["ann", "c1"].url == "https://example.org/kept"
    assert store.hooks["ann", "c1"].secret == secret
    code, mapped, meta = status_for(refused.value) or (None, "", {})
    assert (code, mapped, meta["kind"]) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        reason,
        "invalid_options",
    )


async def test_a_deployment_allowing_private_addresses_takes_them(store: MemoryWebhooks) -> None:
    hooks = service(store, allow_private=True)
    for url in ("http://127.0.0.1:8080/hook", "https://10.0.0.8/", "http://localhost/x"):
        info, _ = await hooks.set("ann", "c1", url)
        assert info.url == url
    with pytest.raises(InvalidWebhook) as refused:
        await hooks.set("ann", "c1", "ftp://127.0.0.1/")
    assert refused.value.rule == "webhook_url_invalid"


async def test_no_webhook_is_not_found(store: MemoryWebhooks) -> None:
    hooks = service(store)
    for call in (hooks.get, hooks.delete):
        with pytest.raises(WebhookNotFound) as missing:
            await call("ann", "c1")
        code, reason, meta = status_for(missing.value) or (None, "", {})
        assert (code, reason, meta["credential_id"]) == (
            grpc.StatusCode.NOT_FOUND,
            "webhook_not_found",
            "c1",
        )


async def test_each_credential_has_its_own(store: MemoryWebhooks) -> None:
    hooks = service(store)
    await hooks.set("ann", "c1", "https://example.org/phone")
    with pytest.raises(WebhookNotFound):
        await hooks.get("ann", "c2")
    with pytest.raises(WebhookNotFound):
        await hooks.delete("bob", "c1")
    await hooks.delete("ann", "c1")
    assert store.hooks == {}
    with pytest.raises(WebhookNotFound):
        await hooks.delete("ann", "c1")


async def test_a_credential_revoked_meanwhile_sets_nothing(store: MemoryWebhooks) -> None:
    store.held.discard(("ann", "c1"))
    with pytest.raises(NotYourPlayer) as refused:
        await service(store).set("ann", "c1", "https://example.org/")
    assert refused.value.rule == "player_credential_invalid"
    assert store.hooks == {}


async def test_logs_name_the_host_only(store: MemoryWebhooks) -> None:
    hooks = service(store)
    url = "https://hooks.example.org:8443/p/ath?token=sekrit-token"
    with capture_logs() as logs:
        _, secret = await hooks.set("ann", "c1", url)
        await hooks.delete("ann", "c1")
    assert [(e["event"], e["player_id"], e["credential_id"], e["host"]) for e in logs] == [
        ("player_webhook_set", "ann", "c1", "hooks.example.org"),
        ("player_webhook_deleted", "ann", "c1", "hooks.example.org"),
    ]
    for hidden in (secret, "sekrit-token", "/p/ath"):
        assert hidden not in repr(logs)
    assert url_host("https://[::1") == ""


def test_the_delivery_status_reader_takes_what_it_can() -> None:
    full = {
        "created_ms": 5,
        "cursor": "9-0",
        "last_ok_ms": 100,
        "last_error": "HTTP 502",
        "failing_since_ms": 90,
        "dropped": 4,
        "attempts": 2,
    }
    expected = WebhookStatus(100, "HTTP 502", 90, 4)
    assert WebhookStatus.from_json(json.dumps(full)) == expected
    assert WebhookStatus.from_json(json.dumps(full).encode(), created_ms=5) == expected
    assert WebhookStatus.from_json(json.dumps({"dropped": 2})) == WebhookStatus(dropped=2)
    empty = WebhookStatus()
    assert empty == WebhookStatus(0, "", 0, 0)
    for text in (None, "", "not json", "[1, 2]", '"text"', "null", b"\xff"):
        assert WebhookStatus.from_json(text) == empty
    odd = {"last_ok_ms": "100", "last_error": 7, "failing_since_ms": -3, "dropped": True}
    assert WebhookStatus.from_json(json.dumps(odd)) == empty
    assert WebhookStatus.from_json(json.dumps(full), created_ms=6) == empty  # an earlier one
    long = WebhookStatus.from_json(json.dumps({"last_error": "x" * 5000}))
    assert long.last_error == "x" * MAX_ERROR_LENGTH


class HashClient:
    """The one Redis call the status reader makes."""

    def __init__(self, hashes: dict[str, dict[str, Any]]) -> None:
        self.hashes = hashes

    async def hget(self, key: str, field: str) -> Any:
        return self.hashes.get(key, {}).get(field)


async def test_the_status_is_read_from_the_state_hash() -> None:
    state = json.dumps({"created_ms": 7, "last_ok_ms": 11, "dropped": 1})
    client = HashClient({state_key("pre", "ann"): {"c1": state}})
    store = RedisWebhooks(cast(Any, client), "pre")
    assert await store.status("ann", "c1") == WebhookStatus(last_ok_ms=11, dropped=1)
    assert await store.status("ann", "c1", created_ms=7) == WebhookStatus(11, "", 0, 1)
    assert await store.status("ann", "c2") == WebhookStatus()  # no field
    assert await store.status("bob", "c1") == WebhookStatus()  # no hash
