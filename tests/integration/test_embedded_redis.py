"""One embedded Redis per data folder: a second ``teoti serve`` on the same folder must
fail instead of writing the same append-only file."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.embedded_redis import DataDirInUse, EmbeddedRedis


def test_a_data_folder_serves_one_redis_at_a_time(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path, persist=True) as first:
        assert first.port
        with pytest.raises(DataDirInUse):
            EmbeddedRedis(tmp_path, persist=True).start()
    with EmbeddedRedis(tmp_path, persist=True) as again:  # free once the first stopped
        assert again.port
