"""Issue 12: the gateway's engine client spreads calls over every engine process.

Three real ``teoti engine`` processes; the gateway's client (a pool of engine link
connections, each to the next address of the target, as ``dns:///`` of a headless
Service gives in Kubernetes) creates games concurrently, and each engine's log shows
its share.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from services.embedded_redis import free_port
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.transport.remote import RemoteEngineClient
from tests.faults import engine_serving

ROOT = Path(__file__).resolve().parents[2]
ENGINES = 3
GAMES = 90


def _start_engine(
    port: int, link_port: int, log: Path, redis_url: str, prefix: str
) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "services.cli",
                "--log-level",
                "INFO",
                "engine",
                "--port",
                str(port),
                "--link-port",
                str(link_port),
                "--redis-url",
                redis_url,
                "--key-prefix",
                prefix,
                "--shards",
                "4",
                "--extra-ruleset",
                "nim=tests.nim:NimRuleset",
            ],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_calls_spread_over_every_engine_process(
    redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The gateway's engine streams each stay on the engine they opened on: those opened
    # while only some engines were connected are skewed until they age out (5 s). Short
    # ages here, so the measured calls go on streams opened once every engine is ready.
    monkeypatch.setattr("services.engine.transport.exchange_client.STREAM_MAX_AGE_S", 0.2)
    prefix = f"spread-{uuid.uuid4().hex[:8]}"
    ports = [free_port() for _ in range(ENGINES)]
    link_ports = [free_port() for _ in range(ENGINES)]
    logs = [tmp_path / f"engine-{i}.log" for i in range(ENGINES)]
    processes = [
        _start_engine(port, link, log, redis_url, prefix)
        for port, link, log in zip(ports, link_ports, logs, strict=True)
    ]
    client = RemoteEngineClient(",".join(f"127.0.0.1:{port}" for port in link_ports), timeout_s=30)
    try:
        await asyncio.gather(*(engine_serving(port) for port in ports))  # the link is up before
        seats = [SeatSpec(SeatKind.BOT, "b1"), SeatSpec(SeatKind.BOT, "b2")]
        # A link connection is opened per stream, to the next address: nothing to wait for.
        await asyncio.gather(*(client.create_game("nim", seats, {}) for _ in range(8)))
        await asyncio.sleep(0.5)  # every engine connected, the first streams aged out
        before = [log.read_text().count("game_created") for log in logs]
        await asyncio.gather(*(client.create_game("nim", seats, {}) for _ in range(GAMES)))
    finally:
        await client.close()
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(20)
    counts = [
        log.read_text().count("game_created") - n for log, n in zip(logs, before, strict=True)
    ]
    print(f"games created per engine: {counts}")
    assert sum(counts) == GAMES
    assert min(counts) >= GAMES // ENGINES // 2, counts  # round robin: about a third each
