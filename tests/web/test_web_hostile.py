"""The web face against the hostile-client findings of issue 18 (newcomer report):
every method of both services answers without a 500, WatchTournament streams over SSE,
only POST (GET for streams) runs a method, every refusal is a google.rpc.Status, and
names that could drive a terminal are refused. Real HTTP, real stack, real Redis."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from teoti_client.proto import game_service_pb2 as pb

from services.rpc.generated import tournament_service_pb2 as tpb
from services.rpc.limits import MAX_REQUEST_BYTES
from tests.web.conftest import StackFactory
from tests.web.test_web_face import (
    ANN,
    JSON,
    SERVICE,
    nim_game,
    reason,
    rpc,
    sse_events,
)

TOURNAMENTS = "/gameserver.v1.TournamentService/"


async def bot_tournament(http: httpx.AsyncClient, start: bool = True) -> str:
    """A one-round Nim tournament of two bots (started unless ``start`` is False)."""
    created = await http.post(
        TOURNAMENTS + "CreateTournament",
        json={
            "config": {
                "name": "sse cup",
                "ruleset": "nim",
                "format": "TOURNAMENT_FORMAT_SWISS",
                "min_seats": 2,
                "max_seats": 2,
                "rounds": 1,
            }
        },
    )
    assert created.status_code == 200, created.text
    tid = str(created.json()["tournament"]["tournament_id"])
    organiser = str(created.json()["organiser_token"])  # bots and Start are the organiser's
    for name in ("ann", "bob"):
        joined = await http.post(
            TOURNAMENTS + "RegisterPlayer",
            json={"tournament_id": tid, "player": name, "bot": True, "organiser_token": organiser},
        )
        assert joined.status_code == 200, joined.text
    if start:
        started = await http.post(
            TOURNAMENTS + "StartTournament",
            json={"tournament_id": tid, "organiser_token": organiser},
        )
        assert started.status_code == 200, started.text
    return tid


@pytest.mark.slow  # 3-6 s: .ci/run's slow step (the default run stays under 10 min)
async def test_watch_tournament_streams_over_sse(served: StackFactory) -> None:
    async with served() as (_, http):
        tid = await bot_tournament(http)
        posted = await asyncio.wait_for(
            sse_events(http, "POST", TOURNAMENTS + "WatchTournament", json={"tournament_id": tid}),
            60,
        )
        kinds = [frame[0] for frame in posted]
        assert kinds[-1] == "end" and set(kinds[:-1]) == {"message"}, kinds
        types = [frame[1]["event"]["type"] for frame in posted[:-1]]
        assert types[0] == "TournamentCreated" and "TournamentFinished" in types
        versions = [frame[1]["event"]["version"] for frame in posted[:-1]]
        assert versions == list(range(1, len(versions) + 1))
        # EventSource's GET, resuming after version 2.
        resumed = await sse_events(
            http,
            "GET",
            TOURNAMENTS + "WatchTournament",
            params={"tournament_id": tid, "after_version": "2"},
        )
        assert [f[1]["event"]["version"] for f in resumed[:-1]] == versions[2:]
        missing = await http.get(
            TOURNAMENTS + "WatchTournament", params={"tournament_id": "no-such-cup"}
        )
        assert missing.status_code == 404, missing.text


async def test_watch_tournament_of_a_running_tournament_starts_at_once(
    served: StackFactory,
) -> None:
    """A stream that sends no initial metadata is accepted by its first response: the
    HTTP reply must not wait for the tournament to end."""
    async with served() as (_, http):
        tid = await bot_tournament(http, start=False)
        async with http.stream(
            "GET", TOURNAMENTS + "WatchTournament", params={"tournament_id": tid}
        ) as response:
            assert response.status_code == 200
            lines = response.aiter_lines()
            first = await asyncio.wait_for(anext(lines), 10)
            while not first.startswith("data: "):
                first = await asyncio.wait_for(anext(lines), 10)
            assert json.loads(first[6:])["event"]["type"] == "TournamentCreated"


def _body(method: Any, game: str, tid: str) -> dict[str, Any]:
    """A minimal, valid-ish request: the ids filled in, everything else default."""
    fields = method.input_type.fields_by_name
    body: dict[str, Any] = {}
    if "game_id" in fields:
        body["game_id"] = game
    if "tournament_id" in fields:
        body["tournament_id"] = tid
    return body


async def _call(http: httpx.AsyncClient, path: str, body: dict[str, Any], stream: bool) -> int:
    """HTTP status of one call; a stream is read until its first frame, then left."""
    if not stream:
        response = await http.post(path, json=body)
        assert response.status_code != 500, f"{path} {body}: {response.text}"
        if response.status_code != 200:
            assert response.json()["code"] != 13, response.text
        return response.status_code
    async with http.stream("POST", path, json=body) as response:
        if response.status_code != 200:
            text = await response.aread()
            assert response.status_code != 500, f"{path} {body}: {text!r}"
            return response.status_code
        async for line in response.aiter_lines():
            if line.startswith("data: "):
                assert json.loads(line[6:]).get("code") != 13, line
                break
        return response.status_code


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_every_method_of_both_services_answers_without_a_500(
    served: StackFactory,
) -> None:
    services = [
        pb.DESCRIPTOR.services_by_name["GameService"],
        tpb.DESCRIPTOR.services_by_name["TournamentService"],
    ]
    async with served() as (_, http):
        game = await nim_game(http, open_seat=True)
        tid = await bot_tournament(http, start=False)
        walked = 0
        for service in services:
            for method in service.methods:
                path = f"/{service.full_name}/{method.name}"
                for body in ({}, _body(method, game, tid)):
                    await asyncio.wait_for(_call(http, path, body, method.server_streaming), 20)
                    walked += 1
        assert walked == 2 * sum(len(s.methods) for s in services)


async def test_only_post_runs_a_method(served: StackFactory) -> None:
    create = {
        "ruleset": "nim",
        "seats": [{"kind": "SEAT_KIND_BOT", "name": "h1"}, {"kind": "SEAT_KIND_BOT", "name": "h2"}],
    }
    async with served() as (_, http):
        before = (await rpc(http, "ListGames", {})).json()["games"]
        head = await http.request("HEAD", SERVICE + "CreateGame", json=create)
        assert head.status_code == 405
        after = (await rpc(http, "ListGames", {})).json()["games"]
        assert len(after) == len(before), "HEAD must not create a game"
        for verb in ("PUT", "DELETE", "PATCH", "GET"):
            refused = await http.request(verb, SERVICE + "GetGame", params={"game_id": "x"})
            assert refused.status_code == 405, (verb, refused.text)
            assert reason(refused) == "method_not_allowed"
            assert refused.headers["allow"] == "POST"
        head_stream = await http.request("HEAD", SERVICE + "WatchGame")
        assert head_stream.status_code == 405
        assert head_stream.headers["allow"] == "GET, POST"
        unknown = await http.get("/no/such/path/at/all")
        assert unknown.status_code == 404 and reason(unknown) == "not_found"
        # httpx folds the dots: /etc/passwd is taken for an unknown method (a Status).
        traversal = await http.get("/static/../../../../etc/passwd")
        assert traversal.status_code == 501 and reason(traversal) == "unknown_method"
        nested = await http.get("/static/a/b/c.js")
        assert nested.status_code == 404 and reason(nested) == "not_found"
        spec = await http.post("/openapi.json", json={})
        assert spec.status_code == 405 and reason(spec) == "method_not_allowed"
        assert (await http.get("/")).status_code == 200


async def test_an_oversized_body_is_413(served: StackFactory) -> None:
    async with served() as (_, http):
        body = b'{"game_id": "' + b"x" * (MAX_REQUEST_BYTES + 10) + b'"}'
        response = await http.post(SERVICE + "GetGame", content=body, headers=JSON)
        assert response.status_code == 413 and reason(response) == "request_too_large"
        assert "retry-after" not in response.headers


async def test_a_malformed_deadline_header_is_refused_and_a_whole_one_is_kept(
    served: StackFactory,
) -> None:
    """``x-timeout-ms`` was ignored when it was not digits, and ``"\xb2"`` (Latin-1 "²",
    which ``str.isdigit`` accepts and ``int`` does not) was a 500."""
    async with served() as (_, http):
        game = await nim_game(http)
        for bad in (b"soon", b"-5", b"1.5", b"\xb2", b"9" * 13):
            refused = await http.post(
                SERVICE + "GetGame", json={"game_id": game}, headers={"x-timeout-ms": bad}
            )
            assert refused.status_code == 400, (bad, refused.text)
            assert reason(refused) == "malformed_timeout"
            assert "x-timeout-ms" in refused.json()["message"]
        kept = await http.post(
            SERVICE + "GetGame", json={"game_id": game}, headers={"x-timeout-ms": "5000"}
        )
        assert kept.status_code == 200, kept.text


async def test_names_that_could_drive_a_terminal_are_refused(served: StackFactory) -> None:
    async with served() as (_, http):
        for name in ("\x1b[2J\x1b[31mX", "a\x00b", "a\x9bb", "tab\there", "x" * 61):
            created = await rpc(
                http,
                "CreateGame",
                {
                    "ruleset": "nim",
                    "seats": [
                        {"kind": "SEAT_KIND_BOT", "name": name},
                        {"kind": "SEAT_KIND_BOT", "name": "y"},
                    ],
                },
            )
            assert created.status_code == 400, created.text
            assert reason(created) == "name_invalid"
        fine = "Zoë the 2nd, " + "x" * 47
        assert len(fine) == 60
        ok = await rpc(
            http,
            "CreateGame",
            {"ruleset": "nim", "seats": [{"kind": "SEAT_KIND_BOT", "name": fine}] * 2},
        )
        assert ok.status_code == 200, ok.text
        game = await nim_game(http, open_seat=True)
        for name in ("\x1b]0;owned\x07", "y" * 61):
            joined = await rpc(http, "JoinGame", {"game_id": game, "seat": 1, "name": name})
            assert joined.status_code == 400 and reason(joined) == "name_invalid"
        joined = await rpc(http, "JoinGame", {"game_id": game, "seat": 1, "name": "bob"})
        assert joined.status_code == 200, joined.text
        for title in ("\x00\x1b[31mX\n", "t" * 101):
            cup = await http.post(
                TOURNAMENTS + "CreateTournament",
                json={"config": {"name": title, "ruleset": "nim", "min_seats": 2, "max_seats": 2}},
            )
            assert cup.status_code == 400 and reason(cup) == "name_invalid", cup.text
        tid = await bot_tournament(http, start=False)
        player = await http.post(
            TOURNAMENTS + "RegisterPlayer",
            json={"tournament_id": tid, "player": "\x1b[31mred", "player_token": ANN},
        )
        assert player.status_code == 400 and reason(player) == "player_name"


async def test_watching_from_past_the_head_is_refused(served: StackFactory) -> None:
    async with served() as (_, http):
        game = await nim_game(http)
        head = (await rpc(http, "GetGame", {"game_id": game})).json()["version"]
        for ahead in (head + 1, 9223372036854775807):
            refused = await asyncio.wait_for(
                http.get(SERVICE + "WatchGame", params={"game_id": game, "from_version": ahead}),
                10,
            )
            assert refused.status_code == 400 and reason(refused) == "from_version_ahead"
        # At the head itself the watch is accepted (it waits for the next move).
        async with http.stream(
            "GET", SERVICE + "WatchGame", params={"game_id": game, "from_version": head}
        ) as at_head:
            assert at_head.status_code == 200


async def test_bearer_scheme_in_any_case(served: StackFactory) -> None:
    async with served() as (_, http):
        game = await nim_game(http)
        for scheme in ("bearer", "BEARER", "Bearer"):
            got = await http.post(
                SERVICE + "GetGame",
                json={"game_id": game, "seat": 0},
                headers={"authorization": f"{scheme} {ANN}"},
            )
            assert got.status_code == 200, (scheme, got.text)


async def test_messages_never_echo_python_internals(served: StackFactory) -> None:
    async with served() as (_, http):
        game = await nim_game(http)
        deep = "[" * 100_000 + "]" * 100_000
        action = await rpc(
            http, "SubmitAction", {"game_id": game, "seat": 0, "action_json": deep}, ANN
        )
        assert action.status_code == 400 and "nested too deeply" in action.json()["message"]
        body = await http.post(
            SERVICE + "GetGame", content=b'{"game_id": ' + deep.encode() + b"}", headers=JSON
        )
        assert body.status_code == 400 and "nested too deeply" in body.json()["message"]
        for not_object in (b"[1, 2]", b'"x"', b"5"):
            refused = await http.post(SERVICE + "SubmitAction", content=not_object, headers=JSON)
            assert refused.status_code == 400 and reason(refused) == "malformed_request"
            assert "must be a JSON object" in refused.json()["message"]
        for response in (action, body):
            assert "recursion" not in response.text and "Traceback" not in response.text


async def test_openapi_title_names_both_services(served: StackFactory) -> None:
    async with served() as (_, http):
        document = (await http.get("/openapi.json")).json()
        title = document["info"]["title"]
        assert "GameService" in title and "TournamentService" in title
        assert "tournament_service.proto" in document["info"]["description"]
        schemas = document["components"]["schemas"]
        refs = json.dumps(document["paths"])
        for name in schemas:
            assert name in refs or name.startswith("google.") or "." in name
        for ref in {part.split('"')[0] for part in refs.split("#/components/schemas/")[1:]}:
            assert ref in schemas, f"dangling $ref {ref}"
        assert "405" in document["paths"][SERVICE + "GetGame"]["post"]["responses"]
