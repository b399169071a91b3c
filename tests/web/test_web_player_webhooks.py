"""A credential's webhook on the web face (docs/players.md "Webhooks"): the same servicer
as the gRPC face, so the same answers and refusals; ``POST
/gameserver.v1.PlayerService/{Set,Get,Delete}PlayerWebhook`` with ``Authorization:
Player <credential>``, the secret shown once, each credential acting on its own."""

from __future__ import annotations

from typing import Any

import httpx
from structlog.testing import capture_logs

from tests.web.conftest import StackFactory

BASE = "/gameserver.v1.PlayerService"
JSON = {"content-type": "application/json"}
METHODS = ("SetPlayerWebhook", "GetPlayerWebhook", "DeletePlayerWebhook")


def _as(credential: str) -> dict[str, str]:
    return {"authorization": f"Player {credential}", **JSON}


def _reason(reply: httpx.Response) -> str:
    return str(reply.json()["details"][0]["reason"])


async def _register(http: httpx.AsyncClient, name: str) -> dict[str, Any]:
    reply = await http.post(f"{BASE}/RegisterPlayer", json={"name": name}, headers=JSON)
    assert reply.status_code == 200, reply.text
    body: dict[str, Any] = reply.json()
    return body


async def test_set_get_replace_and_delete_over_http(served: StackFactory) -> None:
    async with served() as (_stack, http):
        ann = await _register(http, "Ann")
        me = _as(ann["credential"])
        url = "https://hooks.example.org/teoti?token=receivers-own"
        with capture_logs() as logs:
            made = await http.post(f"{BASE}/SetPlayerWebhook", json={"url": url}, headers=me)
        assert made.status_code == 200, made.text
        body = made.json()
        secret = body["secret"]
        assert secret.startswith("whsec_")
        webhook = body["webhook"]
        assert webhook == {
            "credential_id": ann["credential_info"]["credential_id"],
            "url": url,
            "created_at": webhook["created_at"],
            "last_delivered_ms": 0,
            "last_error": "",
            "failing_since_ms": 0,
            "dropped": 0,
        }
        assert "secret" not in webhook
        assert secret not in repr(logs) and "receivers-own" not in repr(logs)
        assert {e["event"]: e.get("host") for e in logs}["player_webhook_set"] == (
            "hooks.example.org"
        )

        got = await http.post(f"{BASE}/GetPlayerWebhook", json={}, headers=me)
        assert got.status_code == 200 and got.json() == {"webhook": webhook}
        assert secret not in got.text

        again = await http.post(
            f"{BASE}/SetPlayerWebhook", json={"url": "https://example.net/2"}, headers=me
        )
        assert again.json()["secret"] not in (secret, "")
        got = await http.post(f"{BASE}/GetPlayerWebhook", json={}, headers=me)
        assert got.json()["webhook"]["url"] == "https://example.net/2"

        gone = await http.post(f"{BASE}/DeletePlayerWebhook", json={}, headers=me)
        assert gone.status_code == 200 and gone.json() == {}
        for method in ("GetPlayerWebhook", "DeletePlayerWebhook"):
            missing = await http.post(f"{BASE}/{method}", json={}, headers=me)
            assert missing.status_code == 404
            assert _reason(missing) == "webhook_not_found"


async def test_refusals_over_http(served: StackFactory) -> None:
    async with served() as (_stack, http):
        ann = await _register(http, "Ann")
        bob = await _register(http, "Bob")
        me = _as(ann["credential"])
        for url, reason in (
            ("http://example.org/", "webhook_url_not_https"),
            ("https://10.1.2.3/", "webhook_address_not_public"),
            ("https://localhost/", "webhook_address_not_public"),
            ("https://a:b@example.org/", "webhook_url_invalid"),
        ):
            bad = await http.post(f"{BASE}/SetPlayerWebhook", json={"url": url}, headers=me)
            assert bad.status_code == 400, bad.text
            assert _reason(bad) == reason
        nothing = await http.post(f"{BASE}/GetPlayerWebhook", json={}, headers=me)
        assert nothing.status_code == 404  # none of them was set

        await http.post(f"{BASE}/SetPlayerWebhook", json={"url": "https://e.org/a"}, headers=me)
        bobs = _as(bob["credential"])
        for method in ("GetPlayerWebhook", "DeletePlayerWebhook"):
            other = await http.post(f"{BASE}/{method}", json={}, headers=bobs)
            assert other.status_code == 404 and _reason(other) == "webhook_not_found"
        still = await http.post(f"{BASE}/GetPlayerWebhook", json={}, headers=me)
        assert still.json()["webhook"]["url"] == "https://e.org/a"

        for method in METHODS:
            anonymous = await http.post(f"{BASE}/{method}", json={}, headers=JSON)
            assert anonymous.status_code == 403
            assert _reason(anonymous) == "player_credential_invalid"
            # Only POST runs a method: no PUT or DELETE form of these.
            for verb in ("PUT", "DELETE", "GET"):
                other_verb = await http.request(verb, f"{BASE}/{method}", headers=me)
                assert other_verb.status_code == 405
        typed = await http.post(f"{BASE}/SetPlayerWebhook", json={"url": 7}, headers=me)
        assert typed.status_code == 400 and _reason(typed) == "malformed_request"


async def test_revoking_the_credential_drops_it_over_http(served: StackFactory) -> None:
    async with served() as (stack, http):
        ann = await _register(http, "Ann")
        me = _as(ann["credential"])
        made = await http.post(f"{BASE}/CreatePlayerCredential", json={"label": "bot"}, headers=me)
        bot = made.json()
        bots = _as(bot["credential"])
        await http.post(f"{BASE}/SetPlayerWebhook", json={"url": "https://e.org/b"}, headers=bots)
        revoked = await http.post(
            f"{BASE}/RevokePlayerCredential",
            json={"credential_id": bot["credential_info"]["credential_id"]},
            headers=me,
        )
        assert revoked.status_code == 200
        refused = await http.post(f"{BASE}/GetPlayerWebhook", json={}, headers=bots)
        assert refused.status_code == 403
        assert stack.players is not None
        hooks = stack.players.repo.webhooks
        assert await hooks.of_player(ann["player"]["player_id"]) == []


async def test_the_openapi_document_lists_them(served: StackFactory) -> None:
    async with served() as (_stack, http):
        document = (await http.get("/openapi.json")).json()
        for method in METHODS:
            assert f"{BASE}/{method}" in document["paths"]
        schemas = document["components"]["schemas"]
        webhook = next(v for k, v in schemas.items() if k.endswith("PlayerWebhook"))
        assert "secret" not in webhook["properties"]
