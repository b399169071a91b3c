"""Audit without the server: ``teoti export`` writes a game's public log to a file, and
``teoti replay --verify FILE`` checks it offline (services/engine/domain/public_log.py) with
only the service's public key (issue 30 item 10: a re-hashed forgery fails)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from services.app import Stack, StoreSettings, all_in_one
from services.client import SeatInfo, TeotiClient
from services.engine.domain.chain import hash_of
from services.engine.domain.event_json import event_from_json, event_to_json
from services.engine.domain.game import fold
from services.engine.domain.head_signing import HeadSigner, SigningKeys, key_entry, public_pem
from services.engine.domain.public_log import FORMAT, FORMAT_VERSION
from services.engine.domain.rulesets import RulesetRegistry, default_ruleset
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


async def published_keys_file(target: str, path: Path) -> str:
    """The service's published keys (ListSigningKeys) as a keys document at ``path``:
    what an outsider saves from its /.well-known/teoti-signing-keys.json."""
    async with TeotiClient(target) as client:
        keys = await client.signing_keys()
    document = {"keys": [key_entry(k) for k in keys]}
    return _save(path, document)


def _save(path: Path, document: dict[str, Any]) -> str:
    path.write_text(json.dumps(document))
    return str(path)


def _rehash(lines: list[dict[str, Any]], registry: RulesetRegistry) -> list[dict[str, Any]]:
    """A forger's export: every event hash recomputed from version 1, the header's head
    and public view made to match the edited events (the signatures left as they were)."""
    previous = "0" * 64
    events = []
    for line in lines[1:]:
        event = event_from_json(line)
        previous = hash_of(previous, event)
        events.append(event_to_json(event) | {"hash": previous})
    header = dict(lines[0])
    game = fold(str(header["game_id"]), [event_from_json(e) for e in events], registry)
    header["head"] = {"version": len(events), "hash": previous}
    header["state"] = game.ruleset.view(game.state, None)
    return [header, *events]


@pytest.mark.slow  # 10-16 s: run by .ci/run's slow step, not the default run
async def test_export_then_verify_offline_and_catch_tampering(stack: Stack, tmp_path: Path) -> None:
    target = f"127.0.0.1:{stack.port}"
    game_id = await _finished_game(target)
    exported = tmp_path / "game.jsonl"
    code, out = await teoti("export", game_id, "--target", target, "-o", str(exported))
    assert code == 0, out
    lines = _lines(exported)
    header, events = lines[0], lines[1:]
    assert header["format"] == FORMAT and header["format_version"] == FORMAT_VERSION
    assert header["game_id"] == game_id and header["ruleset"] == default_ruleset()
    assert header["finished"] is True and header["events"] == len(events)
    assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    assert events[0]["type"] == "GameCreated" and events[-1]["type"] == "SeedRevealed"
    assert header["head"] == {"version": len(events), "hash": events[-1]["hash"]}

    code, stdout_export = await teoti("export", game_id, "--target", target)
    assert code == 0
    assert [json.loads(x) for x in stdout_export.splitlines()[1:]] == events

    keys = await published_keys_file(target, tmp_path / "keys.json")
    code, out = await teoti("replay", str(exported), "--verify", "--public-key", keys)
    assert code == 0, out
    assert "verify: OK" in out and "offline" in out
    assert "seed: revealed, verified" in out and "eclipse 3 scored" in out
    assert re.search(r"signature: OK, key [0-9a-f]{16} \(current key from .*keys.json\)", out)

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
    keys = await published_keys_file(target, tmp_path / "keys.json")
    code, out = await teoti("replay", str(exported), "--verify", "--public-key", keys)
    assert code == 0, out
    assert "game still running when exported" in out and "verify: OK" in out
    assert "seed: revealed" not in out and "finished=false" in out


@pytest.mark.slow  # 3-10 s of CLI runs: .ci/run's slow step
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


@pytest.mark.slow  # 10-16 s: run by .ci/run's slow step, not the default run
async def test_rehashed_forgeries_fail_verify_naming_the_signature(
    stack: Stack, tmp_path: Path, registry: RulesetRegistry
) -> None:
    """Issue 30 item 10, as it was seen: rename a seat in GameCreated or change a
    recorded_at, recompute every hash and the header's head; flip ``finished``. Each
    passed ``replay --verify`` before the service signed its heads."""
    target = f"127.0.0.1:{stack.port}"
    game_id = await _finished_game(target)
    exported = tmp_path / "game.jsonl"
    code, out = await teoti("export", game_id, "--target", target, "-o", str(exported))
    assert code == 0, out
    keys = await published_keys_file(target, tmp_path / "keys.json")
    lines = _lines(exported)

    renamed = [dict(line) for line in lines]
    payload = dict(renamed[1]["payload"])  # type: ignore[call-overload]
    payload["seats"] = [dict(seat) for seat in payload["seats"]]
    payload["seats"][0]["name"] = "Mallory"
    renamed[1] = {**renamed[1], "payload": payload}
    retimed = [dict(line) for line in lines]
    victim = len(lines) // 2
    metadata = dict(retimed[victim]["metadata"])  # type: ignore[call-overload]
    metadata["recorded_at"] = "2020-01-01T00:00:00+00:00"
    retimed[victim] = {**retimed[victim], "metadata": metadata}
    for name, forged in (("renamed", renamed), ("retimed", retimed)):
        path = tmp_path / f"{name}.jsonl"
        _write(path, _rehash(forged, registry))
        code, out = await teoti("replay", str(path), "--verify")
        assert code == 2 and "PROBLEM" not in out, out  # the chain and fold alone are fooled
        assert "verify: cannot check the signature of key" in out, out
        code, out = await teoti("replay", str(path), "--verify", "--public-key", keys)
        assert code == 1, out
        assert out.splitlines()[-1].startswith("verify: FAILED (signature 1 (key "), out
        assert "head_hash is not what was signed" in out.splitlines()[-1], out

    flipped = [{**lines[0], "finished": False}, *lines[1:]]
    _write(tmp_path / "flipped.jsonl", flipped)
    code, out = await teoti(
        "replay", str(tmp_path / "flipped.jsonl"), "--verify", "--public-key", keys
    )
    assert code == 1, out
    assert out.splitlines()[-1] == (
        "verify: FAILED (the header says finished=false, the log's game has ended)"
    ), out

    # Signed by someone else's key, or with the signature removed: refused too.
    mallory = HeadSigner.generate()
    resigned = dict(lines[0])
    head = lines[0]["head"]
    assert isinstance(head, dict)
    resigned["signatures"] = [
        mallory.sign(game_id, default_ruleset(), head["version"], head["hash"], True).to_json()
    ]
    _write(tmp_path / "resigned.jsonl", [resigned, *lines[1:]])
    code, out = await teoti(
        "replay", str(tmp_path / "resigned.jsonl"), "--verify", "--public-key", keys
    )
    assert code == 1 and f"signed by unknown key {mallory.key_id}" in out.splitlines()[-1], out
    _write(tmp_path / "stripped.jsonl", [{**lines[0], "signatures": []}, *lines[1:]])
    code, out = await teoti(
        "replay", str(tmp_path / "stripped.jsonl"), "--verify", "--public-key", keys
    )
    assert code == 1 and out.splitlines()[-1].startswith("verify: FAILED (unsigned:"), out
    code, out = await teoti("replay", str(tmp_path / "stripped.jsonl"), "--verify", "--unsigned-ok")
    assert code == 0 and "verify: OK" in out and "UNSIGNED" in out, out
    code, out = await teoti("replay", str(exported), "--verify")
    assert code == 2 and "give the service's public key with --public-key FILE" in out, out


@pytest.mark.slow  # 10-16 s: run by .ci/run's slow step, not the default run
async def test_a_retired_key_still_verifies_old_exports(
    redis_url: str, key_prefix: str, registry: RulesetRegistry, tmp_path: Path
) -> None:
    """Rotation: the service signs with a new key and keeps publishing the old one as
    retired; an export signed before verifies against what it publishes now."""
    old = HeadSigner.generate()
    exported = tmp_path / "old.jsonl"
    async with all_in_one(
        redis_url, store=StoreSettings(key_prefix), registry=registry, signing=SigningKeys(old)
    ) as first:
        target = f"127.0.0.1:{first.port}"
        game_id = await _finished_game(target)
        code, out = await teoti("export", game_id, "--target", target, "-o", str(exported))
        assert code == 0, out
    new = HeadSigner.generate()
    retired = old.public.to_json() | {"valid_until": datetime.now(UTC).isoformat()}
    (tmp_path / "retired.json").write_text(json.dumps({"keys": [retired]}))
    from services.engine.adapters.key_files import read_public_keys

    signing = SigningKeys(new, read_public_keys(tmp_path / "retired.json"))
    async with all_in_one(
        redis_url, store=StoreSettings(key_prefix), registry=registry, signing=signing
    ) as second:
        target = f"127.0.0.1:{second.port}"
        async with TeotiClient(target) as client:
            listed = await client.signing_keys()
        assert [(k.key_id, k.current) for k in listed] == [(new.key_id, True), (old.key_id, False)]
        code, out = await teoti("replay", str(exported), "--verify", "--target", target)
        assert code == 0, out
        assert f"signature: OK, key {old.key_id} (retired key from {target}" in out
        # A re-export is signed by the new key.
        again = tmp_path / "new.jsonl"
        code, out = await teoti("export", game_id, "--target", target, "-o", str(again))
        assert code == 0, out
        assert _lines(again)[0]["signatures"][0]["key_id"] == new.key_id  # type: ignore[index]
    only_new = tmp_path / "new.pem"
    only_new.write_text(public_pem(new.public))
    code, out = await teoti("replay", str(exported), "--verify", "--public-key", str(only_new))
    assert code == 1 and f"signed by unknown key {old.key_id}" in out, out
