"""``teoti gateway --web-port``: the split deployment (deploy/k8s) serves the same web face
in the gateway process, writing through a remote engine."""

from __future__ import annotations

import asyncio
import contextlib
import secrets

import httpx
import pytest

from services.app import run_engine, run_gateway
from services.engine.domain.rulesets import RulesetRegistry
from tests.web_serve import free_port


async def test_the_gateway_serves_the_web_face(
    redis_url: str, key_prefix: str, registry: RulesetRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    from services.app import StoreSettings

    # A split engine refuses to start without the bot credential (issue 30 item 5).
    monkeypatch.setenv("TEOTI_BOT_SECRET", secrets.token_urlsafe(24))

    settings = StoreSettings(key_prefix)
    stop = asyncio.Event()
    engine_port, link_port, grpc_port, web_port = free_port(), free_port(), free_port(), free_port()
    tasks = [
        asyncio.create_task(
            run_engine(
                redis_url, f"127.0.0.1:{engine_port}", registry, stop, settings, link_port=link_port
            )
        ),
        asyncio.create_task(
            run_gateway(
                redis_url,
                f"127.0.0.1:{grpc_port}",
                f"127.0.0.1:{link_port}",
                registry,
                stop,
                settings,
                web_address=f"127.0.0.1:{web_port}",
            )
        ),
    ]
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{web_port}") as http:
            for _ in range(100):
                with contextlib.suppress(httpx.TransportError):
                    if (await http.get("/healthz")).status_code == 200:
                        break
                await asyncio.sleep(0.1)
            created = await http.post(
                "/gameserver.v1.GameService/CreateGame",
                json={
                    "ruleset": "nim",
                    "seats": [
                        {"kind": "SEAT_KIND_HUMAN", "name": "ann"},
                        {"kind": "SEAT_KIND_BOT", "name": "bot"},
                    ],
                },
            )
            assert created.status_code == 200, created.text
            game = created.json()["game_id"]
            read = await http.post("/gameserver.v1.GameService/GetGame", json={"game_id": game})
            assert read.json()["ruleset"] == "nim"
    finally:
        stop.set()
        await asyncio.gather(*tasks)
