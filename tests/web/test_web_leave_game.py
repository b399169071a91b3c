"""ResignSeat and ClaimSeatForBot on the web face (issue 32): the same servicer methods
over HTTP/JSON against a real all-in-one stack on a real Redis, in the OpenAPI document,
with the gRPC face's tokens, refusals and limits."""

from __future__ import annotations

from teoti_client.proto import game_service_pb2 as pb

from tests.web.conftest import StackFactory
from tests.web.test_web_face import ANN, BOB, SERVICE, nim_game, reason, rpc


async def test_resigning_over_http_ends_a_two_seat_game_and_it_verifies(
    served: StackFactory,
) -> None:
    async with served() as (_, http):
        game = await nim_game(http)
        body = {"game_id": game, "seat": 1, "command_id": "bye"}
        denied = await rpc(http, "ResignSeat", body, ANN)
        assert denied.status_code == 403, denied.text

        resigned = await rpc(http, "ResignSeat", body, BOB)

        assert resigned.status_code == 200, resigned.text
        reply = resigned.json()
        assert reply["outcome"] == "RESIGN_OUTCOME_GAME_ENDED" and reply["finished"] is True
        public = (await rpc(http, "GetGame", {"game_id": game})).json()
        assert public["finished"] and public["result"]["ranking"] == [0, 1]
        events = (await rpc(http, "ListEvents", {"game_id": game})).json()["events"]
        assert BOB not in str(events)  # a seat token never enters the log
        assert "SeatResigned" in [e["type"] for e in events]
        verified = (await rpc(http, "VerifyGame", {"game_id": game})).json()
        assert verified["ok"] and verified["seed_verified"]
        again = await rpc(http, "ResignSeat", {"game_id": game, "seat": 0}, ANN)
        assert again.status_code == 400 and reason(again) == "game_over"


async def test_a_claim_over_http_is_refused_until_the_seat_is_absent(
    served: StackFactory,
) -> None:
    async with served() as (_, http):
        game = await nim_game(http)
        claim = {"game_id": game, "seat": 0, "claimed_by": 1}
        early = await rpc(http, "ClaimSeatForBot", claim, BOB)
        assert early.status_code == 400 and reason(early) == "seat_not_absent"
        own = await rpc(http, "ClaimSeatForBot", {**claim, "claimed_by": 0}, ANN)
        assert own.status_code == 400 and reason(own) == "claim_own_seat"


async def test_the_openapi_document_describes_both_methods(served: StackFactory) -> None:
    async with served() as (_, http):
        document = (await http.get("/openapi.json")).json()
        for method in ("ResignSeat", "ClaimSeatForBot"):
            assert SERVICE + method in document["paths"]
        schemas = document["components"]["schemas"]
        assert "seat_token" in schemas["gameserver.v1.ResignSeatRequest"]["properties"]
        outcome = schemas["gameserver.v1.ResignSeatResponse"]["properties"]["outcome"]
        assert outcome, "the outcome is described"
        names = pb.ResignOutcome.keys()
        assert "RESIGN_OUTCOME_GAME_ENDED" in names
