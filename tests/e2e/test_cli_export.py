"""Audit without the server: ``teoti export`` writes a game's public log to a file, and
``teoti replay --verify FILE`` checks it offline (services/engine/public_log.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from services.app import Stack
from services.client import SeatInfo, TeotiClient
from services.engine.public_log import FORMAT, FORMAT_VERSION
from tests.e2e.test_cli import stack, teoti

__all__ = ["stack"]  # the fixture, shared with test_cli.py

NO_SERVER = "127.0.0.1:9"
"""A --target nothing listens on: the offline commands must not need it."""


async def _finished_game(target: str) -> str:
    code, out = await teoti("demo", "--target", target, "--players", "2")
    assert code == 0, out
    found = re.search(r"game id: (\w+)", out)
    assert found is not None, out
    return found.group(1)


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, lines: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


async def test_export_then_verify_offline_and_catch_tampering(stack: Stack, tmp_path: Path) -> None:
    target = f"127.0.0.1:{stack.port}"
    game_id = await _finished_game(target)
    exported = tmp_path / "game.jsonl"
    code, out = await teoti("export", game_id, "--target", target, "-o", str(exported))
    assert code == 0, out
    lines = _lines(exported)
    header, events = lines[0], lines[1:]
    assert header["format"] == FORMAT and header["format_version"] == FORMAT_VERSION
    assert header["game_id"] == game_id and header["ruleset"] == "teotihuacan"
    assert header["finished"] is True and header["events"] == len(events)
    assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    assert events[0]["type"] == "GameCreated" and events[-1]["type"] == "SeedRevealed"
    assert header["head"] == {"version": len(events), "hash": events[-1]["hash"]}

    code, stdout_export = await teoti("export", game_id, "--target", target)
    assert code == 0
    assert [json.loads(x) for x in stdout_export.splitlines()[1:]] == events

    code, out = await teoti("replay", str(exported), "--verify", "--target", NO_SERVER)
    assert code == 0, out
    assert "verify: OK" in out and "offline" in out
    assert "seed: revealed, verified" in out and "eclipse 3 scored" in out

    victim = len(events) // 2
    tampered = [dict(line) for line in lines]
    payload = dict(tampered[victim]["payload"])  # type: ignore[call-overload]
    payload["tampered"] = 1
    tampered[victim]["payload"] = payload
    _write(tmp_path / "tampered.jsonl", tampered)
    code, out = await teoti("replay", str(tmp_path / "tampered.jsonl"), "--verify")
    assert code == 1, out
    assert f"first bad version: {events[victim - 1]['version']}" in out

    code, out = await teoti("replay", str(tmp_path / "tampered.jsonl"), "--step")
    assert code == 2 and "cannot step through" in out and "Traceback" not in out, out

    _write(tmp_path / "short.jsonl", lines[:-1])
    code, out = await teoti("replay", str(tmp_path / "short.jsonl"), "--verify")
    assert code == 1 and "verify: FAILED" in out, out

    forged = [dict(line) for line in lines]
    forged[-1] = {**forged[-1], "payload": {"seed": "not-the-seed"}}
    _write(tmp_path / "forged.jsonl", forged)
    code, out = await teoti("replay", str(tmp_path / "forged.jsonl"), "--verify")
    assert code == 1 and f"first bad version: {len(events)}" in out, out


async def test_a_running_game_exports_and_verifies_without_a_seed(
    stack: Stack, tmp_path: Path
) -> None:
    target = f"127.0.0.1:{stack.port}"
    async with TeotiClient(target) as client:
        created = await client.create_game(
            [SeatInfo("human", "ann"), SeatInfo("bot", "bo")], options={"first_game": True}
        )
    exported = tmp_path / "running.jsonl"
    code, out = await teoti("export", created.game_id, "--target", target, "-o", str(exported))
    assert code == 0, out
    assert _lines(exported)[0]["finished"] is False
    code, out = await teoti("replay", str(exported), "--verify", "--target", NO_SERVER)
    assert code == 0, out
    assert "game still running when exported" in out and "verify: OK" in out
    assert "seed: revealed" not in out


async def test_unreadable_files_and_games_fail_clearly(stack: Stack, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "something-else"}\n')
    for mode in ("--verify", "--step"):
        code, out = await teoti("replay", str(bad), mode)
        assert code == 2 and "not a teoti export file" in out and "Traceback" not in out, out
    future = tmp_path / "future.jsonl"
    future.write_text(json.dumps({"format": FORMAT, "format_version": 99}) + "\n")
    code, out = await teoti("replay", str(future), "--verify")
    assert code == 2 and "format_version 99" in out, out
    code, out = await teoti("export", "nosuchgame", "--target", f"127.0.0.1:{stack.port}")
    assert code == 2 and "unknown game 'nosuchgame'" in out and "Traceback" not in out
