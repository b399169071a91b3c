"""Issue 30, items 7 and 8: what a request must look like before any method runs.
Tokens never travel in a URL (a clear 400 naming where they go), a bool field parses
from a query string (EventSource's ``with_view=true``), a page whose Origin the face
does not allow cannot act (not even with a "simple" text/plain POST, which CORS does not
preflight), and method calls must send JSON. Real HTTP, real stack, real Redis."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from services.web.server import WebSettings
from tests.web.conftest import StackFactory
from tests.web.test_web_face import ANN, JSON, SERVICE, nim_game, reason

TOURNAMENTS = "/gameserver.v1.TournamentService/"
BOUND_S = 10.0
"""A refused stream answers at once; one that was served instead would never end."""


async def refused_get(http: httpx.AsyncClient, url: str, **kwargs: Any) -> httpx.Response:
    """A GET that must be refused (a whole reply), bounded: before the fix a stream
    answered it and would never end."""
    return await asyncio.wait_for(http.get(url, **kwargs), BOUND_S)


async def first_frame_with(
    http: httpx.AsyncClient, url: str, key: str, **kwargs: Any
) -> dict[str, Any]:
    """The data of the first ``message`` event of a stream whose data has ``key``."""
    async with http.stream("GET", url, **kwargs) as response:
        assert response.status_code == 200, await response.aread()
        event = ""
        async for line in response.aiter_lines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "message":
                data: dict[str, Any] = json.loads(line[6:])
                if key in data:
                    return data
    raise AssertionError(f"the stream ended without a message carrying {key!r}")


async def test_a_token_in_the_url_is_refused_and_says_where_it_goes(
    served: StackFactory,
) -> None:
    async with served() as (_, http):
        game = await nim_game(http)
        watch = await refused_get(
            http, SERVICE + "WatchGame", params={"game_id": game, "seat": "0", "seat_token": ANN}
        )
        assert watch.status_code == 400, watch.text
        assert reason(watch) == "token_in_url"
        message = watch.json()["message"]
        assert "Authorization" in message and "JSON body of a POST" in message
        assert ANN not in watch.text, "the refusal never echoes the token"
        for url, query in (
            (SERVICE + "GetGame", {"seatToken": ANN}),  # lowerCamelCase too, and on POST
            (TOURNAMENTS + "WatchTournament", {"tournament_id": "t", "organiser_token": "x"}),
            (SERVICE + "WatchGame", {"game_id": game, "access_token": ANN}),
        ):
            refused = await asyncio.wait_for(
                http.request(
                    "POST" if "GetGame" in url else "GET",
                    url,
                    params=query,
                    json={"game_id": game},
                ),
                BOUND_S,
            )
            assert refused.status_code == 400 and reason(refused) == "token_in_url", url
        # The same watch with the token in the header is served (and a page cursor,
        # page_token, is no credential).
        served_ok = await first_frame_with(
            http,
            SERVICE + "WatchGame",
            "event",
            params={"game_id": game, "seat": "0"},
            headers={"authorization": f"Bearer {ANN}"},
        )
        assert served_ok["event"]["version"] == 1


async def test_with_view_parses_from_a_query_string(served: StackFactory) -> None:
    async with served() as (_, http):
        game = await nim_game(http)
        bearer = {"authorization": f"Bearer {ANN}"}
        for spelling in ("true", "1", "True"):
            viewed = await asyncio.wait_for(  # before the fix: 400, quoted "true"
                first_frame_with(
                    http,
                    SERVICE + "WatchGame",
                    "game",
                    params={"game_id": game, "seat": "0", "with_view": spelling},
                    headers=bearer,
                ),
                20,
            )
            assert viewed["game"]["game_id"] == game and viewed["legal_actions"], spelling
        plain = await first_frame_with(
            http,
            SERVICE + "WatchGame",
            "event",
            params={"game_id": game, "withView": "false"},
        )
        assert "game" not in plain
        bad = await refused_get(
            http, SERVICE + "WatchGame", params={"game_id": game, "with_view": "yes"}
        )
        assert bad.status_code == 400 and reason(bad) == "malformed_request"
        assert "'with_view' must be true or false" in bad.json()["message"]


async def test_a_disallowed_origin_cannot_act_even_without_a_preflight(
    served: StackFactory,
) -> None:
    settings = WebSettings(cors_origins=("https://play.example",))
    async with served(web=settings) as (stack, http):
        body = json.dumps({"ruleset": "nim", "seats": [{"kind": "SEAT_KIND_BOT", "name": "b"}] * 2})
        evil = {"origin": "https://evil.example"}
        # What a cross-site <form> or fetch(..., {mode: "no-cors"}) can send.
        forged = await http.post(
            SERVICE + "CreateGame", content=body, headers={**evil, "content-type": "text/plain"}
        )
        assert forged.status_code == 403, forged.text
        assert reason(forged) == "origin_not_allowed"
        assert forged.json()["code"] == 7  # PERMISSION_DENIED
        for headers in ({**evil, **JSON}, {"origin": "null", **JSON}):
            refused = await http.post(SERVICE + "CreateGame", content=body, headers=headers)
            assert refused.status_code == 403 and reason(refused) == "origin_not_allowed"
        watched = await refused_get(
            http, SERVICE + "WatchGame", params={"game_id": "x"}, headers=evil
        )
        assert watched.status_code == 403 and reason(watched) == "origin_not_allowed"
        listed = await http.post(SERVICE + "ListGames", json={})
        assert listed.json()["games"] == [], "no refused request created a game"
        # Allowed: no Origin (not a browser), the listed origin, the face's own pages.
        own_page = f"http://127.0.0.1:{stack.web_port}"
        for origin in (None, "https://play.example", own_page):
            headers = {**JSON, **({"origin": origin} if origin else {})}
            created = await http.post(SERVICE + "CreateGame", content=body, headers=headers)
            assert created.status_code == 200, (origin, created.text)


async def test_a_method_call_must_send_json(served: StackFactory) -> None:
    async with served() as (_, http):
        body = json.dumps({"ruleset": "nim", "seats": [{"kind": "SEAT_KIND_BOT", "name": "b"}] * 2})
        for content_type in (
            None,
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
        ):
            headers = {"content-type": content_type} if content_type else {}
            refused = await http.post(SERVICE + "CreateGame", content=body, headers=headers)
            assert refused.status_code == 415, (content_type, refused.text)
            assert reason(refused) == "unsupported_media_type"
            assert "application/json" in refused.json()["message"]
        assert (await http.post(SERVICE + "ListGames", json={})).json()["games"] == []
        for content_type in ("application/json", "Application/JSON; charset=utf-8"):
            created = await http.post(
                SERVICE + "CreateGame", content=body, headers={"content-type": content_type}
            )
            assert created.status_code == 200, created.text
        # An empty JSON body is the empty request, as before.
        empty = await http.post(SERVICE + "ListRulesets", headers=JSON)
        assert empty.status_code == 200, empty.text
