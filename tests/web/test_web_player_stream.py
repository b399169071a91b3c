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
        assert response.status_code == 200, await response.aread()
        assert response.headers["content-type"].startswith("text/event-stream")
        event, data, ident = "message", "", None
        async for line in response.aiter_lines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
            elif line.startswith("id: "):
                ident = line[4:]
            elif line == "" and data:
                got.append((event, json.loads(data), ident))
                event, data, ident = "message", "", None
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
