"""PlayerService on the web face and over gRPC (issue 32): the same servicer, so the same
answers, refusals, quotas and secrecy; ``Authorization: Player <credential>`` acts as
the player; a credential never goes in a URL."""

from __future__ import annotations

import grpc
from structlog.testing import capture_logs
from teoti_client import NotAuthorized, RuleViolation, TeotiClient

from services.app import GatewayLimits
from services.rpc.limits import CreationQuota
from tests.web.conftest import StackFactory

BASE = "/gameserver.v1.PlayerService"


def _as(credential: str) -> dict[str, str]:
    return {"authorization": f"Player {credential}", "content-type": "application/json"}


JSON = {"content-type": "application/json"}


async def test_register_and_manage_credentials_over_http(served: StackFactory) -> None:
    async with served() as (_stack, http):
        request = {"name": " Ann ", "credential_label": "phone"}
        reply = await http.post(f"{BASE}/RegisterPlayer", json=request, headers=JSON)
        assert reply.status_code == 200, reply.text
        body = reply.json()
        credential = body["credential"]
        player = body["player"]
        assert credential.startswith("tpc_") and player["name"] == "Ann" and not player["bot"]
        assert body["credential_info"]["label"] == "phone"

        me = (await http.post(f"{BASE}/GetMyPlayer", json={}, headers=_as(credential))).json()
        assert me["player"] == player
        assert me["credential_id"] == body["credential_info"]["credential_id"]

        made = await http.post(
            f"{BASE}/CreatePlayerCredential", json={"label": "bot"}, headers=_as(credential)
        )
        second = made.json()["credential"]
        listed = await http.post(f"{BASE}/ListPlayerCredentials", json={}, headers=_as(second))
        assert [c["label"] for c in listed.json()["credentials"]] == ["phone", "bot"]
        assert credential not in listed.text and second not in listed.text

        revoke = await http.post(
            f"{BASE}/RevokePlayerCredential",
            json={"credential_id": made.json()["credential_info"]["credential_id"]},
            headers=_as(credential),
        )
        assert revoke.status_code == 200
        refused = await http.post(f"{BASE}/GetMyPlayer", json={}, headers=_as(second))
        assert refused.status_code == 403
        assert refused.json()["details"][0]["reason"] == "player_credential_invalid"

        found = await http.post(f"{BASE}/GetPlayer", json={"name": "ANN"}, headers=JSON)
        assert found.json()["player"] == player
        missing = await http.post(f"{BASE}/GetPlayer", json={"name": "nobody"}, headers=JSON)
        assert missing.status_code == 404
        assert missing.json()["details"][0]["reason"] == "player_not_found"
        both = await http.post(
            f"{BASE}/GetPlayer", json={"name": "Ann", "player_id": "x"}, headers=JSON
        )
        assert both.status_code == 400
        assert both.json()["details"][0]["reason"] == "player_lookup"


async def test_the_openapi_document_lists_player_service(served: StackFactory) -> None:
    async with served() as (_stack, http):
        paths = (await http.get("/openapi.json")).json()["paths"]
        for method in (
            "RegisterPlayer",
            "CreatePlayerCredential",
            "ListPlayerCredentials",
            "RevokePlayerCredential",
            "GetPlayer",
            "GetMyPlayer",
        ):
            assert f"{BASE}/{method}" in paths


async def test_refusals_name_their_rule_over_http(served: StackFactory) -> None:
    async with served() as (_stack, http):
        await http.post(f"{BASE}/RegisterPlayer", json={"name": "Ann"}, headers=JSON)
        taken = await http.post(f"{BASE}/RegisterPlayer", json={"name": "ANN "}, headers=JSON)
        assert taken.status_code == 400  # FAILED_PRECONDITION is 400 on the web face
        assert taken.json()["details"][0]["reason"] == "name_taken"
        bad = await http.post(f"{BASE}/RegisterPlayer", json={"name": "a\x1b[2J"}, headers=JSON)
        assert bad.json()["details"][0]["reason"] == "player_name"
        anonymous = await http.post(f"{BASE}/ListPlayerCredentials", json={}, headers=JSON)
        assert anonymous.status_code == 403
        assert anonymous.json()["details"][0]["reason"] == "player_credential_invalid"


async def test_a_credential_in_the_url_is_refused(served: StackFactory) -> None:
    async with served() as (_stack, http):
        registered = await http.post(f"{BASE}/RegisterPlayer", json={"name": "Ann"}, headers=JSON)
        credential = registered.json()["credential"]
        for query in ({"credential": credential}, {"x": credential}):
            reply = await http.post(f"{BASE}/GetMyPlayer", params=query, json={}, headers=JSON)
            assert reply.status_code == 400
            assert reply.json()["details"][0]["reason"] == "token_in_url"
            assert credential not in reply.text


async def test_registrations_spend_a_quota_per_address(served: StackFactory) -> None:
    limits = GatewayLimits(accounts=CreationQuota(per_hour=3600, burst=2))
    async with served(limits=limits) as (stack, http):
        for name in ("a1", "a2"):
            ok = await http.post(f"{BASE}/RegisterPlayer", json={"name": name}, headers=JSON)
            assert ok.status_code == 200
        over = await http.post(f"{BASE}/RegisterPlayer", json={"name": "a3"}, headers=JSON)
        assert over.status_code == 429
        assert over.json()["details"][0]["reason"] == "rate_limited"
        async with TeotiClient(f"127.0.0.1:{stack.port}") as client:
            try:
                await client.register_player("a4")
            except Exception as exc:  # one quota for both faces
                assert getattr(exc, "code", None) == grpc.StatusCode.RESOURCE_EXHAUSTED
            else:
                raise AssertionError("the gRPC face gave a fourth registration")


async def test_the_python_client_end_to_end(served: StackFactory) -> None:
    async with served() as (stack, _http):
        with capture_logs() as logs:
            async with TeotiClient(f"127.0.0.1:{stack.port}") as client:
                ann = await client.register_player("Ann", label="laptop")
                bot = await client.register_player("Botty", bot=True, label="bot")
                assert bot.player.bot and not ann.player.bot
                profile, credential_id = await client.my_player(ann.credential)
                assert profile == ann.player
                assert credential_id == ann.credential_info.credential_id
                info, phone = await client.create_player_credential(ann.credential, "phone")
                labels = [c.label for c in await client.player_credentials(phone)]
                assert labels == ["laptop", "phone"]
                await client.revoke_player_credential(ann.credential, info.credential_id)
                try:
                    await client.my_player(phone)
                except NotAuthorized as refused:
                    assert refused.reason == "player_credential_invalid"
                else:
                    raise AssertionError("a revoked credential still worked")
                assert await client.get_player(name="botty") == bot.player
                assert await client.get_player(player_id=ann.player.player_id) == ann.player
                try:
                    await client.register_player("ann")
                except RuleViolation as refused:
                    assert refused.reason == "name_taken"
                else:
                    raise AssertionError("one identity registered twice")
        for secret in (ann.credential, bot.credential, phone):
            assert secret not in repr(logs)
