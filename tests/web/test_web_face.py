"""The web face over real HTTP (httpx) against a real all-in-one stack on a real Redis:
every RPC, errors with their reasons, Bearer auth, CORS preflight, the event stream,
and the limits the gRPC face has (shared with it, not doubled)."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import httpx
import pytest
from teoti_client.proto import game_service_pb2 as pb
from teoti_client.proto import game_service_pb2_grpc as pb_grpc

from services.app import GatewayLimits
from services.rpc.limits import MAX_REQUEST_BYTES, ClientRateLimiter, WatcherLimit
from services.web.server import WebSettings
from tests.web.conftest import StackFactory
from tests.web_serve import sse_frames

SERVICE = "/gameserver.v1.GameService/"
JSON = {"content-type": "application/json"}
"""Method calls must say their body is JSON (issue 30, item 8)."""
ANN = "ann-secret-0123456789abcdef"
BOB = "bob-secret-0123456789abcdef"


async def rpc(
    http: httpx.AsyncClient, method: str, body: dict[str, Any], token: str = ""
) -> httpx.Response:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return await http.post(SERVICE + method, json=body, headers=headers)


def reason(response: httpx.Response) -> str:
    """The ErrorInfo reason of a refusal (and checks the Status JSON's shape)."""
    body = response.json()
    assert set(body) == {"code", "message", "details"}, body
    (info,) = [d for d in body["details"] if d["@type"].endswith("google.rpc.ErrorInfo")]
    assert info["domain"] == "gameserver.v1"
    assert info["metadata"]["message"], "every refusal explains itself"
    return str(info["reason"])


async def nim_game(http: httpx.AsyncClient, open_seat: bool = False) -> str:
    second: dict[str, Any] = (
        {"kind": "SEAT_KIND_HUMAN", "open": True}
        if open_seat
        else {"kind": "SEAT_KIND_HUMAN", "name": "bob", "token": BOB}
    )
    reply = await rpc(
        http,
        "CreateGame",
        {
            "ruleset": "nim",
            "seats": [{"kind": "SEAT_KIND_HUMAN", "name": "ann", "token": ANN}, second],
        },
    )
    assert reply.status_code == 200, reply.text
    return str(reply.json()["game_id"])


async def sse_events(
    http: httpx.AsyncClient, method: str, url: str, **kwargs: Any
) -> list[tuple[str, dict[str, Any], str | None]]:
    """Every (event, data, id) of a server-sent event stream until it closes."""
    async with http.stream(method, url, **kwargs) as response:
        return [frame async for frame in sse_frames(response)]


async def test_every_rpc_over_http(served: StackFactory) -> None:
    async with served() as (_, http):
        game = await nim_game(http, open_seat=True)
        listed = (await rpc(http, "ListGames", {"status": "GAME_STATUS_FILTER_OPEN"})).json()
        assert game in [g["game_id"] for g in listed["games"]]
        joined = await rpc(http, "JoinGame", {"game_id": game, "seat": 1, "name": "bob"})
        assert joined.json()["seat_token"]["seat"] == 1
        bob = joined.json()["seat_token"]["token"]
        public = (await rpc(http, "GetGame", {"game_id": game})).json()
        assert public["seats_to_act"] == [0] and public["finished"] is False
        assert public["seats"][1]["name"] == "bob"
        actions = (await rpc(http, "ListLegalActions", {"game_id": game, "seat": 0}, ANN)).json()
        descriptions = [a["description"] for a in actions["actions"]]
        assert descriptions and all(descriptions)
        moves = 0
        while not public["finished"]:
            seat = public["seats_to_act"][0]
            token = ANN if seat == 0 else bob
            legal = await rpc(http, "ListLegalActions", {"game_id": game, "seat": seat}, token)
            submitted = await rpc(
                http,
                "SubmitAction",
                {
                    "game_id": game,
                    "seat": seat,
                    "action_json": legal.json()["actions"][-1]["action_json"],
                    "return_view": True,
                },
                token,
            )
            assert submitted.status_code == 200, submitted.text
            public = submitted.json()["game"]
            moves += 1
        assert public["result"]["ranking"] and moves >= 2
        at = (await rpc(http, "GetGameAt", {"game_id": game, "version": 2})).json()
        assert at["game"]["version"] == 2
        events = (await rpc(http, "ListEvents", {"game_id": game})).json()
        assert [e["version"] for e in events["events"]] == list(range(1, public["version"] + 1))
        # Each event in words with its seats named (issue 33): ann and bob, not "seat 0".
        words = [e["description"] for e in events["events"]]
        assert all(words) and not any("seat 0" in w or "seat 1" in w for w in words), words
        assert words[0] == "Game created (nim, 2 seats)" and "bob joins the game" in words
        assert any(w.startswith("ann takes") for w in words), words
        verified = (await rpc(http, "VerifyGame", {"game_id": game})).json()
        assert verified["ok"] and verified["seed_verified"]
        streamed = await sse_events(
            http, "POST", SERVICE + "WatchGame", json={"game_id": game, "from_version": 0}
        )
        assert [f[0] for f in streamed] == ["message"] * public["version"] + ["end"]
        assert [f[1]["event"] for f in streamed[:-1]] == events["events"]
        assert [f[2] for f in streamed[:-1]] == [str(v) for v in range(1, public["version"] + 1)]


async def test_the_stream_brings_moves_as_they_happen(served: StackFactory) -> None:
    async with served() as (_, http):
        game = await nim_game(http)
        frames: list[tuple[str, dict[str, Any], str | None]] = []

        async def follow() -> None:
            frames.extend(
                await sse_events(http, "GET", SERVICE + "WatchGame", params={"game_id": game})
            )

        watcher = asyncio.create_task(follow())
        await asyncio.sleep(0.3)
        seat = 0
        while True:
            state = (await rpc(http, "GetGame", {"game_id": game})).json()
            if state["finished"]:
                break
            seat = state["seats_to_act"][0]
            token = ANN if seat == 0 else BOB
            legal = await rpc(http, "ListLegalActions", {"game_id": game, "seat": seat}, token)
            last = legal.json()["actions"][-1]["action_json"]
            moved = await rpc(
                http, "SubmitAction", {"game_id": game, "seat": seat, "action_json": last}, token
            )
            assert moved.status_code == 200, moved.text
        await asyncio.wait_for(watcher, 20)
        types = [f[1]["event"]["type"] for f in frames if f[0] == "message"]
        assert "StonesTaken" in types and frames[-1][0] == "end"
        # EventSource's reconnect: Last-Event-ID resumes after that version.
        resumed = await sse_events(
            http,
            "GET",
            SERVICE + "WatchGame",
            params={"game_id": game},
            headers={"last-event-id": "2"},
        )
        assert resumed[0][1]["event"]["version"] == 3


async def test_refusals_carry_status_reason_and_message(served: StackFactory) -> None:
    async with served() as (_, http):
        game = await nim_game(http)
        wrong_turn = await rpc(
            http, "SubmitAction", {"game_id": game, "seat": 1, "action_json": '{"take":1}'}, BOB
        )
        assert wrong_turn.status_code == 400 and wrong_turn.json()["code"] == 9
        assert reason(wrong_turn) == "not_your_turn"
        bad_take = await rpc(
            http, "SubmitAction", {"game_id": game, "seat": 0, "action_json": '{"take":9}'}, ANN
        )
        assert reason(bad_take) == "nim.take_range"
        assert "take 1..3" in bad_take.json()["message"]
        stale = await rpc(
            http,
            "SubmitAction",
            {"game_id": game, "seat": 0, "action_json": '{"take":1}', "expected_version": 1},
            ANN,
        )
        assert stale.status_code == 409 and reason(stale) == "version_conflict"
        missing = await rpc(http, "GetGame", {"game_id": "no-such-game"})
        assert missing.status_code == 404 and reason(missing) == "game_not_found"
        unknown = await rpc(http, "CreateGame", {"ruleset": "chess", "seats": []})
        assert unknown.status_code == 400 and reason(unknown) == "unknown_ruleset"
        not_json = await rpc(
            http, "SubmitAction", {"game_id": game, "seat": 0, "action_json": "{x"}, ANN
        )
        assert not_json.status_code == 400 and reason(not_json) == "invalid_argument"


async def test_seat_tokens_by_bearer_header_or_field(served: StackFactory) -> None:
    async with served() as (_, http):
        game = await nim_game(http)
        by_header = await rpc(http, "GetGame", {"game_id": game, "seat": 0}, ANN)
        by_field = await rpc(http, "GetGame", {"game_id": game, "seat": 0, "seat_token": ANN})
        assert by_header.status_code == by_field.status_code == 200
        for token in ("", BOB, "Bearer-less"):
            refused = await rpc(http, "ListLegalActions", {"game_id": game, "seat": 0}, token)
            assert refused.status_code == 403 and reason(refused) == "bad_seat_token"
        # Not "Bearer <token>": no token at all.
        raw = await http.post(
            SERVICE + "GetGame",
            json={"game_id": game, "seat": 0},
            headers={"authorization": ANN},
        )
        assert raw.status_code == 403
        watch = await http.post(
            SERVICE + "WatchGame",
            json={"game_id": game, "seat": 0},
            headers={"authorization": "Bearer x"},
        )
        assert watch.status_code == 403 and reason(watch) == "bad_seat_token"


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"{not json", "malformed_request"),
        (b'{"game_id": 5, "no_such_field": 1}', "malformed_request"),
        (b"\xff\xfe\x00garbage", "malformed_request"),
        (b"[" * 100_000 + b"]" * 100_000, "malformed_request"),
        (b'{"game_id": "' + b"x" * (MAX_REQUEST_BYTES + 10) + b'"}', "request_too_large"),
        (b'{"seat": 99999999999999999999}', "malformed_request"),
    ],
    ids=["not-json", "unknown-field", "not-utf8", "deep-nesting", "over-size", "huge-int"],
)
async def test_hostile_bodies_get_a_reason_never_a_500(
    served: StackFactory, body: bytes, why: str
) -> None:
    async with served() as (_, http):
        response = await http.post(SERVICE + "GetGame", content=body, headers=JSON)
        assert response.status_code == (413 if why == "request_too_large" else 400), response.text
        assert reason(response) == why
        assert "Traceback" not in response.text


async def test_unknown_methods_and_verbs(served: StackFactory) -> None:
    async with served() as (_, http):
        assert reason(await http.post(SERVICE + "DropTables", json={})) == "unknown_method"
        assert (await http.post(SERVICE + "DropTables", json={})).status_code == 501
        get_unary = await http.get(SERVICE + "GetGame", params={"game_id": "x"})
        assert get_unary.status_code == 405 and reason(get_unary) == "method_not_allowed"
        deep = await http.get(SERVICE + "WatchGame", params={"from_version": "minus one"})
        assert deep.status_code == 400 and reason(deep) == "malformed_request"
        for verb in ("POST", "GET"):  # Play streams requests: refused, never half-served
            play = await http.request(verb, SERVICE + "Play", json={})
            assert play.status_code == 501, play.text
            assert reason(play) == "streaming_requests_unsupported"
            assert "SubmitAction" in play.json()["message"]


async def test_cors_preflight_and_origins(served: StackFactory) -> None:
    settings = WebSettings(cors_origins=("https://play.example",))
    async with served(web=settings) as (_, http):
        preflight = await http.options(
            SERVICE + "SubmitAction",
            headers={
                "origin": "https://play.example",
                "access-control-request-method": "POST",
                "access-control-request-headers": "authorization, content-type",
            },
        )
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == "https://play.example"
        assert "authorization" in preflight.headers["access-control-allow-headers"].lower()
        other = await http.options(
            SERVICE + "SubmitAction",
            headers={"origin": "https://evil.example", "access-control-request-method": "POST"},
        )
        assert other.status_code == 400
        assert "access-control-allow-origin" not in other.headers
        simple = await http.post(
            SERVICE + "ListGames", json={}, headers={"origin": "https://play.example"}
        )
        assert simple.headers["access-control-allow-origin"] == "https://play.example"


async def test_the_rate_limit_is_the_grpc_faces_own(served: StackFactory) -> None:
    limiter = ClientRateLimiter(rate=0.5, burst=3)
    async with served(limits=GatewayLimits(limiter=limiter)) as (stack, http):
        async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
            stub = pb_grpc.GameServiceStub(channel)
            for _ in range(2):  # two of the address's three spent over gRPC
                await stub.ListGames(pb.ListGamesRequest())
        assert (await rpc(http, "ListGames", {})).status_code == 200  # the third, over HTTP
        limited = await rpc(http, "ListGames", {})
        assert limited.status_code == 429 and reason(limited) == "rate_limited"
        assert int(limited.headers["retry-after"]) >= 1
        details = limited.json()["details"]
        assert any(d["@type"].endswith("google.rpc.RetryInfo") for d in details)


async def test_open_streams_per_client_are_limited(served: StackFactory) -> None:
    async with served(limits=GatewayLimits(watchers=WatcherLimit(1))) as (_, http):
        game = await nim_game(http)
        async with http.stream("GET", SERVICE + "WatchGame", params={"game_id": game}) as first:
            assert first.status_code == 200
            second = await http.get(SERVICE + "WatchGame", params={"game_id": game})
            assert second.status_code == 429 and reason(second) == "too_many_watchers"
        # The first stream's hold ends with its connection: a new one is admitted.
        for _ in range(50):
            async with http.stream("GET", SERVICE + "WatchGame", params={"game_id": game}) as again:
                if again.status_code == 200:
                    break
            await asyncio.sleep(0.1)
        assert again.status_code == 200


async def test_openapi_describes_every_rpc(served: StackFactory) -> None:
    async with served() as (_, http):
        document = (await http.get("/openapi.json")).json()
        methods = pb.DESCRIPTOR.services_by_name["GameService"].methods
        http_methods = {f"{SERVICE}{m.name}" for m in methods if not m.client_streaming}
        assert http_methods <= set(document["paths"])
        assert SERVICE + "Play" not in document["paths"]  # requests streamed: no HTTP form
        watch = document["paths"][SERVICE + "WatchGame"]
        assert "text/event-stream" in watch["get"]["responses"]["200"]["content"]
        schemas = document["components"]["schemas"]
        assert "seat_token" in schemas["gameserver.v1.SubmitActionRequest"]["properties"]
        index = await http.get("/")
        assert index.status_code == 200 and "app.js" in index.text


async def test_tournaments_are_on_the_web_face_too(served: StackFactory) -> None:
    tournaments = "/gameserver.v1.TournamentService/"
    async with served() as (_, http):
        created = await http.post(
            tournaments + "CreateTournament",
            json={
                "config": {
                    "name": "web cup",
                    "ruleset": "nim",
                    "format": "TOURNAMENT_FORMAT_SWISS",
                    "min_seats": 2,
                    "max_seats": 2,
                    "rounds": 1,
                }
            },
        )
        assert created.status_code == 200, created.text
        tid = created.json()["tournament"]["tournament_id"]
        organiser = created.json()["organiser_token"]
        for name in ("ann", "bob"):
            joined = await http.post(
                tournaments + "RegisterPlayer",
                json={
                    "tournament_id": tid,
                    "player": name,
                    "bot": True,
                    "organiser_token": organiser,
                },
            )
            assert joined.status_code == 200, joined.text
        again = await http.post(
            tournaments + "RegisterPlayer",
            json={"tournament_id": tid, "player": "ann", "bot": True, "organiser_token": organiser},
        )
        assert again.status_code in (400, 409), again.text
        assert reason(again) == "already_registered"
        got = await http.post(tournaments + "GetTournament", json={"tournament_id": tid})
        assert [p["name"] for p in got.json()["tournament"]["players"]] == ["ann", "bob"]
        document = (await http.get("/openapi.json")).json()
        assert tournaments + "StartTournament" in document["paths"]
