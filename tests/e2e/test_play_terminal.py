"""``teoti play`` / ``serve`` as people run them: on a terminal, quit and resume, join a
seat without a token, and signals that end the command never leave a Redis behind
(issue 13, items 3-5, 10 and 14)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import stat
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from services.app import Stack, StoreSettings, all_in_one
from services.client import SeatInfo, TeotiClient
from tests.e2e.terminal import TEOTI, Terminal, redis_children, wait_gone

PLAY_FILES = ["--data-dir", "data", "--seats-file", "seats.json", "--log-file", "tui.log"]


@pytest.fixture
async def stack(redis_url: str, key_prefix: str) -> AsyncIterator[Stack]:
    async with all_in_one(redis_url, store=StoreSettings(key_prefix)) as s:
        yield s


async def finish(term: Terminal) -> int:
    """Wait (off the event loop) for the terminal's ``teoti`` to exit; its exit code."""
    return await asyncio.to_thread(term.finish)


async def wait_for(term: Terminal, marker: str) -> None:
    """Wait (off the event loop) until the terminal shows ``marker``."""
    await asyncio.to_thread(term.wait_for, marker)


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_quit_keeps_the_game_and_resume_continues_it(tmp_path: Path) -> None:
    term = Terminal(["play", "--name", "zoe", *PLAY_FILES], tmp_path)
    try:
        await wait_for(term, "Your choices")
        term.press("q")
        assert await finish(term) == 0
    finally:
        term.kill()
    said = term.text
    game = re.search(r"game (\w+) \(left running\); you are seat 0 \(zoe\)", said)
    assert game is not None, said
    game_id = game.group(1)
    token = re.search(r"seat token: (\w+)", said)
    assert token is not None and f"resume: teoti play --resume {game_id}" in said
    assert "zoe: 0 VP" in said and "Teotibot: 0 VP" in said

    seats = tmp_path / "seats.json"
    assert stat.S_IMODE(seats.stat().st_mode) == 0o600  # the token is the seat's password
    saved = json.loads(seats.read_text())[game_id]
    assert saved["token"] == token.group(1) and saved["seat"] == 0
    assert (tmp_path / "data" / "appendonly.aof").exists() or any(
        (tmp_path / "data").glob("appendonlydir/*")
    )

    resumed = Terminal(["play", "--resume", game_id, *PLAY_FILES], tmp_path)
    try:
        await wait_for(resumed, f"game {game_id}")
        await wait_for(resumed, "(seat 0)")
        resumed.press("q")
        assert await finish(resumed) == 0
    finally:
        resumed.kill()
    assert f"game {game_id} (left running); you are seat 0 (zoe)" in resumed.text


async def test_join_without_a_token_shows_the_one_it_made(stack: Stack, tmp_path: Path) -> None:
    target = f"127.0.0.1:{stack.port}"
    async with TeotiClient(target) as client:
        seats = [
            SeatInfo("human", "ann", token="ann-secret-0123456789abcdef"),
            SeatInfo("human", "", open=True),
        ]
        game_id = (await client.create_game(seats)).game_id
        term = Terminal(
            [
                "play",
                "--target",
                target,
                "--join",
                game_id,
                "--seat",
                "1",
                "--name",
                "bob",
                *PLAY_FILES,
            ],
            tmp_path,
        )
        try:
            await wait_for(term, "(seat 1)")
            await wait_for(term, "Your choices")
            term.press("q")
            assert await finish(term) == 0
        finally:
            term.kill()
        token = re.search(r"seat token: (\w+)", term.text)
        assert token is not None, term.text
        assert f"--join {game_id} --seat 1 --token {token.group(1)}" in term.text
        view = await client.get_game(game_id, 1, token.group(1))  # the shown token holds it
        assert view.seats[1].name == "bob"


async def test_players_3_on_a_server_is_a_plain_game(stack: Stack, tmp_path: Path) -> None:
    term = Terminal(
        ["play", "--target", f"127.0.0.1:{stack.port}", "--players", "3", *PLAY_FILES], tmp_path
    )
    try:
        await wait_for(term, "Game against 2 bot seats")
        term.press("q")
        assert await finish(term) == 0
    finally:
        term.kill()
    assert "no solo mode" not in term.text


async def _teoti(*args: str, cwd: Path) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    process = await asyncio.create_subprocess_exec(
        *TEOTI, *args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), 120)
    return process.returncode or 0, out.decode(), err.decode()


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_joining_a_taken_seat_or_with_a_wrong_token_is_one_line(
    stack: Stack, tmp_path: Path
) -> None:
    target = f"127.0.0.1:{stack.port}"
    async with TeotiClient(target) as client:
        seats = [
            SeatInfo("human", "ann", token="ann-secret-0123456789abcdef"),
            SeatInfo("bot", "Bot"),
        ]
        game_id = (await client.create_game(seats)).game_id
    for extra in (["--seat", "0"], ["--token", "wrong"], ["--seat", "0", "--token", "wrong"]):
        code, _out, err = await _teoti(
            "play", "--target", target, "--join", game_id, *extra, *PLAY_FILES, cwd=tmp_path
        )
        assert code == 2, (extra, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
        assert "seat" in err and game_id in err
    code, _, err = await _teoti(
        "play", "--target", target, "--join", "nosuchgame", *PLAY_FILES, cwd=tmp_path
    )
    assert code == 2 and "nosuchgame" in err and len(err.strip().splitlines()) == 1


def _signals(default: signal.Signals) -> list[Any]:
    """Every ending signal; only ``default`` in the default run (the others: -m slow)."""
    every = (signal.SIGHUP, signal.SIGTERM, signal.SIGINT, signal.SIGKILL)
    return [sig if sig == default else pytest.param(sig, marks=pytest.mark.slow) for sig in every]


@pytest.mark.parametrize("sig", _signals(signal.SIGHUP))  # a closed terminal
async def test_no_redis_outlives_play(tmp_path: Path, sig: signal.Signals) -> None:
    term = Terminal(["play", *PLAY_FILES], tmp_path)
    try:
        await wait_for(term, "Your choices")
        children = redis_children(term.process.pid)
        assert len(children) == 1
        term.signal(sig)
        await finish(term)
        assert await asyncio.to_thread(wait_gone, children) == []
    finally:
        term.kill()


@pytest.mark.parametrize("sig", _signals(signal.SIGHUP))
async def test_no_redis_outlives_watch(tmp_path: Path, sig: signal.Signals) -> None:
    term = Terminal(["watch", "--log-file", "tui.log"], tmp_path)
    try:
        await wait_for(term, "Watching")
        children = redis_children(term.process.pid)
        assert len(children) == 1
        term.signal(sig)
        await finish(term)
        assert await asyncio.to_thread(wait_gone, children) == []
    finally:
        term.kill()


def _serve(tmp_path: Path) -> subprocess.Popen[bytes]:
    """``teoti serve`` on a gRPC port the system chooses (``--port 0``): a port picked
    by the test and bound later by serve may be taken in between (issue 30, item 15)."""
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    return subprocess.Popen(
        [
            *TEOTI,
            "serve",
            "--port",
            "0",
            "--web-port",
            "0",
            "--log-level",
            "INFO",
            "--data-dir",
            str(tmp_path / "data"),
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, like a shell's foreground job
    )


async def _wait_listening(process: subprocess.Popen[bytes]) -> int:
    """The gRPC port serve listens on, from its ``teoti_serve_ready`` log line (read
    from its stderr; the rest stays for ``communicate``)."""
    assert process.stderr is not None
    seen = b""
    while True:
        line = await asyncio.to_thread(process.stderr.readline)
        seen += line
        if not line:
            raise AssertionError(f"serve never got ready: {seen.decode()[-2000:]}")
        if b"teoti_serve_ready" in line:
            return int(json.loads(line)["port"])


@pytest.mark.parametrize("sig", _signals(signal.SIGINT))  # Ctrl-C
async def test_serve_stops_cleanly_and_takes_redis_with_it(
    tmp_path: Path, sig: signal.Signals
) -> None:
    process = _serve(tmp_path)
    try:
        await _wait_listening(process)
        children = redis_children(process.pid)
        assert len(children) == 1
        os.killpg(process.pid, sig)  # the whole group, as Ctrl-C in a terminal does
        _, err = await asyncio.to_thread(process.communicate, None, 30)
        assert await asyncio.to_thread(wait_gone, children) == []
        if sig != signal.SIGKILL:
            assert process.returncode == 0, err
            assert b"bot_worker_redis_error" not in err and b"Traceback" not in err, err
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.slow
async def test_a_second_serve_on_a_taken_port_says_only_that(tmp_path: Path) -> None:
    (tmp_path / "one").mkdir()
    first = _serve(tmp_path / "one")
    try:
        port = await _wait_listening(first)
        code, out, err = await _teoti(
            "serve", "--port", str(port), "--web-port", "0", "--data-dir", "two", cwd=tmp_path
        )
        assert code == 2 and out == ""
        lines = err.strip().splitlines()
        assert lines == [
            f"teoti serve: error: cannot listen on 127.0.0.1:{port}: "
            "the address is in use or not local"
        ], err
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=30)


ROOT = Path(__file__).resolve().parents[2]
INTERRUPT_ONCE_LISTENING = """
import os, signal, sys
import services.app as app
from services.cli import main

listen = app.create_server


async def listen_then_interrupt(*args, **kwargs):
    served = await listen(*args, **kwargs)
    # The gRPC port listens: the earliest moment a test or a person can see the server,
    # and so press Ctrl-C. Delivered before serve has finished starting.
    os.kill(os.getpid(), signal.SIGINT)
    return served


app.create_server = listen_then_interrupt
sys.exit(main(sys.argv[1:]))
"""


async def test_ctrl_c_as_soon_as_serve_listens_stops_it_cleanly(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """issue 30 item 15: test_serve_stops_cleanly[SIGINT] saw exit 130 under load, since
    serve installed its signal handlers only after everything had started. SIGINT the
    moment the port listens, every time, instead of hoping the machine is slow."""
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env["PYTHONPATH"] = str(ROOT)
    process = await asyncio.create_subprocess_exec(
        *TEOTI[:1],
        "-c",
        INTERRUPT_ONCE_LISTENING,
        "serve",
        "--redis-url",
        redis_url,
        "--key-prefix",
        key_prefix,
        "--port",
        "0",
        "--web-port",
        "0",
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        _, err = await asyncio.wait_for(process.communicate(), 60)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, err.decode()[-2000:]
    assert b"Traceback" not in err and b"teoti_serve_stopped" in err, err.decode()[-2000:]
