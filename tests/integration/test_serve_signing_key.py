"""``teoti serve`` signs with a key of its own (issue 30 item 10): made in its data folder
on first run (``signing-key.pem``, mode 0600), reused after a restart, and the one its
ListSigningKeys publishes."""

from __future__ import annotations

import asyncio
import signal
import stat
from pathlib import Path

import pytest

from services.client import TeotiClient
from services.engine.adapters.key_files import SERVE_KEY_FILE, load_signer
from tests.serve_process import Served, log_events, serving, wait_for


async def _published(served: Served) -> list[tuple[str, bool]]:
    async with TeotiClient(f"127.0.0.1:{served.port}") as client:
        return [(k.key_id, k.current) for k in await client.signing_keys()]


async def _stop(served: Served) -> None:
    served.process.send_signal(signal.SIGTERM)
    assert await asyncio.to_thread(served.process.wait, 60) == 0


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_serve_makes_its_key_once_and_reuses_it(tmp_path: Path) -> None:
    data = tmp_path / "redis"
    key_file = data / SERVE_KEY_FILE
    with serving(data, tmp_path / "first.log") as first:
        created = wait_for(first.log, "signing_key_created", first.process)
        assert created["path"] == str(key_file)
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        key_id = load_signer(key_file).key_id
        assert created["key_id"] == key_id
        assert await _published(first) == [(key_id, True)]
        await _stop(first)
    pem = key_file.read_bytes()
    with serving(data, tmp_path / "second.log") as second:
        loaded = wait_for(second.log, "signing_key_loaded", second.process)
        assert loaded["key_id"] == key_id
        assert not [e for e in log_events(second.log) if e.get("event") == "signing_key_created"]
        assert await _published(second) == [(key_id, True)]
        await _stop(second)
    assert key_file.read_bytes() == pem
    assert b"PRIVATE KEY" not in (tmp_path / "first.log").read_bytes()
