"""The service's public signing keys (issue 30 item 10): the well-known file of the web
face, ListSigningKeys on both faces and the signatures of GetSignedHead / VerifyGame
agree, and a gateway without a key says so instead of answering unsigned."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import grpc
import pytest
from teoti_client.proto import game_service_pb2 as pb
from teoti_client.proto import game_service_pb2_grpc as pb_grpc

from services.engine.adapters.redis_store import RedisEventStore
from services.engine.domain.head_signing import (
    WELL_KNOWN_PATH,
    HeadSigner,
    SignedHead,
    SigningKeys,
    key_entry,
    parse_keys_document,
    verify_signed_head,
)
from services.engine.domain.reader import GameReader
from services.gateway.server import create_server
from services.rpc.errors import error_info
from tests.e2e.test_cli import teoti
from tests.integration.helpers import HUMANS
from tests.web.conftest import StackFactory
from tests.web.test_web_face import nim_game, rpc


def _signed(message: dict[str, str]) -> SignedHead:
    """A SignedHead message as the web face's JSON shows it."""
    return SignedHead(message["statement_json"], message["signature"], message["key_id"])


async def test_well_known_file_and_list_signing_keys_agree(served: StackFactory) -> None:
    current = HeadSigner.generate()
    retired = HeadSigner.generate().public
    retired = type(retired)(
        retired.key_id, retired.public_key, "", datetime.now(UTC).isoformat(), False
    )
    async with served(signing=SigningKeys(current, [retired])) as (stack, http):
        well_known = await http.get(WELL_KNOWN_PATH)
        assert well_known.status_code == 200, well_known.text
        assert well_known.headers["content-type"] == "application/json"
        document = well_known.json()
        keys = parse_keys_document(document)
        assert [(k.key_id, k.current) for k in keys] == [
            (current.key_id, True),
            (retired.key_id, False),
        ]
        async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
            listed = await pb_grpc.GameServiceStub(channel).ListSigningKeys(
                pb.ListSigningKeysRequest(), timeout=10
            )
        assert [key_entry(k) for k in listed.keys] == document["keys"]
        over_http = await rpc(http, "ListSigningKeys", {})
        assert over_http.status_code == 200, over_http.text
        assert over_http.json() == document  # the same document, field for field

        game_id = await nim_game(http)
        signed = await rpc(http, "GetSignedHead", {"game_id": game_id})
        assert signed.status_code == 200, signed.text
        statement = verify_signed_head(_signed(signed.json()["signed_head"]), keys)
        game = (await rpc(http, "GetGame", {"game_id": game_id})).json()
        assert (statement.game_id, statement.ruleset) == (game_id, "nim")
        assert (statement.version, statement.head_hash) == (int(game["version"]), game["head_hash"])
        assert statement.finished is False and statement.key_id == current.key_id

        verdict = (await rpc(http, "VerifyGame", {"game_id": game_id})).json()
        audited = verify_signed_head(_signed(verdict["signed_head"]), keys)
        assert audited.head_hash == verdict["head_hash"] == statement.head_hash
        assert json.loads(_signed(verdict["signed_head"]).statement)["format"] == (
            "teoti-signed-head"
        )


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_a_gateway_without_a_key_refuses_to_sign(
    redis_store: RedisEventStore, registry_with_nim_reader: GameReader, tmp_path: Path
) -> None:
    from services.engine.domain.engine import Engine
    from services.engine.transport.client import InProcessEngineClient

    engine = Engine(redis_store, registry_with_nim_reader.registry)
    created = await engine.create_game("nim", HUMANS, {}, command_id="c1")
    client = InProcessEngineClient(engine)
    server, port = await create_server("127.0.0.1:0", registry_with_nim_reader, client, "nim")
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = pb_grpc.GameServiceStub(channel)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.GetSignedHead(pb.GetSignedHeadRequest(game_id=created.game_id))
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            info = error_info(refused.value)
            assert info is not None and info.reason == "signing_key_missing"
            assert "--signing-key-file" in (refused.value.details() or "")
            listed = await stub.ListSigningKeys(pb.ListSigningKeysRequest())
            assert list(listed.keys) == []
            verdict = await stub.VerifyGame(pb.VerifyGameRequest(game_id=created.game_id))
            assert verdict.ok and not verdict.HasField("signed_head")
        # Its exports say they are unsigned, and replay --verify refuses them by default.
        exported = tmp_path / "unsigned.jsonl"
        target = f"127.0.0.1:{port}"
        code, out = await teoti("export", created.game_id, "--target", target, "-o", str(exported))
        assert code == 0 and f"warning: {target} signs nothing" in out and "UNSIGNED" in out, out
        nim = ("--extra-ruleset", "nim=tests.nim:NimRuleset")
        code, out = await teoti("replay", str(exported), "--verify", *nim)
        assert code == 1 and out.splitlines()[-1].startswith("verify: FAILED (unsigned:"), out
        code, out = await teoti("replay", str(exported), "--verify", "--unsigned-ok", *nim)
        assert code == 0 and out.splitlines()[-1].endswith("offline, UNSIGNED)"), out
    finally:
        await server.stop(None)


@pytest.fixture
def registry_with_nim_reader(redis_store: RedisEventStore) -> GameReader:
    from tests.plugin import registry_with_nim

    return GameReader(redis_store, registry_with_nim())
