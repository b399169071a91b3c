"""WatchPlayer on the web face (issue 32): server-sent events with the notice id as the
SSE id, ``Last-Event-ID`` resuming after it (EventSource's reconnect), the credential
only in the ``Authorization: Player`` header, listed in the OpenAPI document."""

from __future__ import annotations

import json
from typing import Any

import httpx

from services.notices.inbox import RedisInbox
from services.notices.notice import Notice, NoticeKind
from tests.web.conftest import StackFactory
from tests.web_serve import sse_frames

BASE = "/gameserver.v1.PlayerService"
JSON = {"content-type": "application/json"}


def turn(version: int) -> Notice:
    return Notice(NoticeKind.YOUR_TURN, {"game_id": "g1", "seat": 1, "version": version}, 1)


async def frames(
    http: httpx.AsyncClient, n: int, headers: dict[str, str]
) -> list[tuple[str, dict[str, Any], str | None]]:
    """The first ``n`` (event, data, id) frames of a WatchPlayer GET (it never ends)."""
    got: list[tuple[str, dict[str, Any], str | None]] = []
    async with http.stream("GET", f"{BASE}/WatchPlayer", headers=headers) as response:
        async for frame in sse_frames(response):
            got.append(frame)
            if len(got) == n:
                break
    return got


async def test_watch_player_over_sse_resumes_with_last_event_id(served: StackFactory) -> None:
    async with served() as (stack, http):
        reply = await http.post(f"{BASE}/RegisterPlayer", json={"name": "Ann"}, headers=JSON)
        credential = reply.json()["credential"]
        player = reply.json()["player"]["player_id"]
        inbox = RedisInbox(stack.store.client, stack.store.keys.prefix)
        ids = [await inbox.post(player, turn(v)) for v in (2, 4)]
        auth = {"authorization": f"Player {credential}"}
        first = await frames(http, 2, auth)
        assert [f[2] for f in first] == ids
        assert first[0][0] == "message"
        notice = first[0][1]["notice"]
        assert (notice["id"], notice["kind"], notice["v"]) == (ids[0], "your_turn", 1)
        assert json.loads(notice["data_json"]) == {"game_id": "g1", "seat": 1, "version": 2}
        later = await inbox.post(player, turn(6))
        resumed = await frames(http, 1, {**auth, "last-event-id": ids[1]})
        assert [f[2] for f in resumed] == [later]


async def test_watch_player_over_http_refuses_a_bad_credential(served: StackFactory) -> None:
    async with served() as (_stack, http):
        refused = await http.get(
            f"{BASE}/WatchPlayer", headers={"authorization": "Player tpc_" + "x" * 43}
        )
        assert refused.status_code == 403
        assert refused.json()["details"][0]["reason"] == "player_credential_invalid"
        in_url = await http.get(f"{BASE}/WatchPlayer", params={"credential": "tpc_" + "x" * 43})
        assert in_url.status_code == 400
        paths = (await http.get("/openapi.json")).json()["paths"]
        sse = paths[f"{BASE}/WatchPlayer"]["get"]["responses"]["200"]
        assert "text/event-stream" in sse["content"]
        assert "notice id" in sse["description"]


async def test_your_turn_reaches_a_player_over_sse_as_the_game_advances(
    served: StackFactory,
) -> None:
    async with served() as (_stack, http):
        credentials = []
        for name in ("Ann", "Bob"):
            reply = await http.post(f"{BASE}/RegisterPlayer", json={"name": name}, headers=JSON)
            credentials.append(reply.json()["credential"])
        ann, bob = ({"authorization": f"Player {c}", **JSON} for c in credentials)
        game_rpc = "/gameserver.v1.GameService/"
        seats = [
            {"kind": "SEAT_KIND_HUMAN", "bind_to_caller": True},
            {"kind": "SEAT_KIND_HUMAN", "open": True},
        ]
        created = await http.post(
            game_rpc + "CreateGame", json={"ruleset": "nim", "seats": seats}, headers=ann
        )
        game = created.json()["game_id"]
        joined = await http.post(
            game_rpc + "JoinGame", json={"game_id": game, "seat": 1}, headers=bob
        )
        assert joined.status_code == 200, joined.text
        (ann_first,) = await frames(http, 1, {"authorization": ann["authorization"]})
        assert json.loads(ann_first[1]["notice"]["data_json"])["seat"] == 0
        moved = await http.post(
            game_rpc + "SubmitAction",
            json={"game_id": game, "seat": 0, "action_json": '{"take":1}'},
            headers=ann,
        )
        assert moved.status_code == 200, moved.text
        (bob_turn,) = await frames(http, 1, {"authorization": bob["authorization"]})
        data = json.loads(bob_turn[1]["notice"]["data_json"])
        assert bob_turn[1]["notice"]["kind"] == "your_turn"
        assert (data["game_id"], data["seat"], data["version"]) == (
            game,
            1,
            moved.json()["version"],
        )
