"""One embedded Redis per data folder: a second ``teoti serve`` on the same folder must
fail instead of writing the same append-only file. In its Unix-socket mode (``teoti
serve``'s) only this OS user can reach it: the folder and the socket are mode 0700 and
no TCP port is open (a second OS user cannot be simulated here, so the modes are what
is checked)."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest
import redis

from services import embedded_redis
from services.embedded_redis import (
    MAX_SOCKET_PATH,
    DataDirInUse,
    EmbeddedRedis,
    SocketPathTooLong,
)


def test_a_data_folder_serves_one_redis_at_a_time(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path, persist=True) as first:
        assert first.port
        with pytest.raises(DataDirInUse):
            EmbeddedRedis(tmp_path, persist=True).start()
    with EmbeddedRedis(tmp_path, persist=True) as again:  # free once the first stopped
        assert again.port


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_unix_socket_mode_is_for_this_user_alone(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o755)  # an existing folder others could read is closed too
    with EmbeddedRedis(data, persist=True, unix_socket=True) as server:
        sock = data / "redis.sock"
        assert server.url == f"unix://{sock}?db=0"
        assert stat.S_ISSOCK(sock.stat().st_mode)
        assert (_mode(data), _mode(sock)) == (0o700, 0o700)
        assert server.port == 0
        client = redis.Redis.from_url(server.url, decode_responses=True)
        try:
            assert client.set("k", "v") and client.get("k") == "v"
            assert client.config_get("port") == {"port": "0"}  # no TCP listener at all
        finally:
            client.close()
        with pytest.raises(DataDirInUse):
            EmbeddedRedis(data, persist=True, unix_socket=True).start()
    assert not sock.exists()  # redis-server removes its socket when it stops
    with EmbeddedRedis(data, persist=True, unix_socket=True) as again:
        client = redis.Redis.from_url(again.url, decode_responses=True)
        try:
            assert client.get("k") == "v"  # the append-only file kept it
        finally:
            client.close()


def test_a_data_folder_too_deep_for_a_socket_listens_in_a_private_temporary_folder(
    tmp_path: Path,
) -> None:
    deep = tmp_path / ("d" * 110)  # a deep checkout: DATA_DIR/redis.sock would not fit
    with EmbeddedRedis(deep, persist=True, unix_socket=True) as server:
        socket_path = server.socket_path
        assert socket_path is not None and socket_path.parent != deep
        assert len(os.fsencode(socket_path)) <= MAX_SOCKET_PATH
        assert stat.S_IMODE(socket_path.parent.stat().st_mode) == 0o700
        assert stat.S_IMODE(socket_path.stat().st_mode) == 0o700
        client = redis.Redis.from_url(server.url, decode_responses=True)
        try:
            client.set("k", "v")
        finally:
            client.close()
        assert (deep / "redis.log").exists()  # the data stays in the data folder
    assert not socket_path.parent.exists()  # the private folder goes with the server


def test_no_room_for_a_socket_anywhere_is_refused_before_starting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    private_folders = {*Path(tempfile.gettempdir()).glob("teoti-sock-*")}
    monkeypatch.setattr(embedded_redis, "MAX_SOCKET_PATH", 8)
    with pytest.raises(SocketPathTooLong, match="--data-dir"):
        EmbeddedRedis(tmp_path / "data", unix_socket=True).start()
    assert {*Path(tempfile.gettempdir()).glob("teoti-sock-*")} == private_folders
    monkeypatch.undo()
    # Nothing is left holding the folder: it starts at once.
    with EmbeddedRedis(tmp_path / "data", unix_socket=True) as server:
        assert server.url.startswith("unix://")


def test_a_temporary_unix_socket_redis_is_removed_on_stop() -> None:
    server = EmbeddedRedis(unix_socket=True).start()
    folder = server.data_dir
    assert _mode(folder) == 0o700
    server.stop()
    assert not folder.exists()


def test_a_socket_left_by_a_killed_redis_does_not_stop_the_next_start(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path, unix_socket=True).start()
    assert server._process is not None
    server._process.kill()  # SIGKILL: no chance to remove its socket
    server._process.wait()
    assert (tmp_path / "redis.sock").exists()
    server.stop()
    with EmbeddedRedis(tmp_path, unix_socket=True) as again:
        client = redis.Redis.from_url(again.url)
        try:
            assert client.ping()
        finally:
            client.close()


def test_a_folder_name_with_url_characters_still_gives_a_working_url(tmp_path: Path) -> None:
    folder = tmp_path / "my games?%20#1"
    with EmbeddedRedis(folder, unix_socket=True) as server:
        assert "?" not in server.url.removesuffix("?db=0")
        client = redis.Redis.from_url(server.url)
        try:
            assert client.ping()
            assert client.connection_pool.connection_kwargs["path"] == str(folder / "redis.sock")
        finally:
            client.close()


def test_a_temporary_data_folder_is_removed_when_no_socket_fits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embedded_redis, "MAX_SOCKET_PATH", 8)
    server = EmbeddedRedis(unix_socket=True)
    with pytest.raises(SocketPathTooLong):
        server.start()
    assert not server.data_dir.exists()


def test_a_server_that_exits_at_once_says_why_in_the_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A failed start's log may be gone with its temporary folder by the time anyone
    # looks (a CI run's was): the error itself carries the log's last lines.
    script = tmp_path / "redis-server"
    script.write_text("#!/bin/sh\necho 'Fatal error loading the DB: it is broken'\nexit 3\n")
    script.chmod(0o755)
    monkeypatch.setattr(embedded_redis, "redis_server_binary", lambda: script)
    with pytest.raises(RuntimeError) as failed:
        EmbeddedRedis(tmp_path / "data").start()
    assert "status 3" in str(failed.value)
    assert "Fatal error loading the DB: it is broken" in str(failed.value)
