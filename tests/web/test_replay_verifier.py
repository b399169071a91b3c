"""The reference web client's log verifier (clients/web/src/verify.ts, canonical.ts) gives
the server's answers: run in node (bundled with the client's pinned esbuild) over recorded
logs of both games, its chain heads, first bad versions and canonical JSON are compared
with the server's own code (services/engine/domain/chain.py, records.canonical_json), and
the service's Ed25519 signature (head_signing.py) checks in it as in ``teoti replay``.

Needs node and ``npm ci`` in clients/web (.ci/run does both before the tests); skips and
says so otherwise."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from services.engine.domain.chain import GENESIS_HASH, hash_of, verify_chain
from services.engine.domain.event_json import event_from_json, event_to_json
from services.engine.domain.head_signing import HeadSigner
from services.engine.domain.records import StoredEvent, canonical_json
from tests.game_samples import game_names

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "clients" / "web"
ESBUILD = WEB / "node_modules" / ".bin" / "esbuild"
RUNNER = Path(__file__).with_name("replay_verifier.mjs")
FIXTURES = sorted((ROOT / "services" / "games").glob("*/tests/fixture_logs/*.jsonl.gz"))


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """verify.ts and canonical.ts bundled as one ES module, as build.mjs compiles them."""
    if shutil.which("node") is None or not ESBUILD.exists():
        pytest.skip("needs node and `npm ci` in clients/web (as .ci/run does)")
    out = tmp_path_factory.mktemp("verifier") / "verifier.mjs"
    entry = 'export * from "./verify"; export { canonicalJson, parseJson } from "./canonical";'
    subprocess.run(
        [str(ESBUILD), "--bundle", "--format=esm", "--loader=ts", f"--outfile={out}"],
        input=entry.encode(),
        cwd=WEB / "src",
        check=True,
        capture_output=True,
        timeout=60,
    )
    return out


def run_verifier(
    bundle: Path, logs: dict[str, str], keys: list[dict[str, Any]], canonical: Sequence[str] = ()
) -> dict[str, Any]:
    """The verifier's conclusions on ``logs`` (name → file text) and ``canonical`` texts."""
    job = {"bundle": str(bundle), "logs": logs, "keys": keys, "canonical": list(canonical)}
    done = subprocess.run(
        ["node", str(RUNNER)], input=json.dumps(job).encode(), capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr.decode()
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def fixture_lines(path: Path) -> list[str]:
    """A recorded log's event lines, as written (json.dumps with spaces, sorted keys)."""
    return [line for line in gzip.decompress(path.read_bytes()).decode().splitlines() if line]


def public_log(
    lines: list[str], signer: HeadSigner, game_id: str, head: tuple[int, str] | None = None
) -> str:
    """A teoti-public-log file of ``lines``: its header as ``teoti export`` writes it,
    signed by ``signer`` over ``head`` (default: the last line's version and hash)."""
    last = json.loads(lines[-1])
    version, digest = head or (int(last["version"]), str(last["hash"]))
    ruleset = str(json.loads(lines[0])["payload"].get("ruleset", ""))
    finished = any(json.loads(line)["type"] == "GameEnded" for line in lines)
    signed = signer.sign(game_id, ruleset, version, digest, finished)
    header = {
        "format": "teoti-public-log",
        "format_version": 1,
        "game_id": game_id,
        "ruleset": ruleset,
        "finished": finished,
        "head": {"version": version, "hash": digest},
        "events": len(lines),
        "exported_at": "2026-12-07T00:00:00+00:00",
        "source": "test",
        "state": {},
        "signatures": [signed.to_json()],
    }
    return "\n".join([json.dumps(header, sort_keys=True, ensure_ascii=False), *lines]) + "\n"


def events_of(lines: list[str]) -> list[StoredEvent]:
    return [event_from_json(json.loads(line)) for line in lines]


def test_recorded_logs_of_at_least_two_games_are_checked() -> None:
    games = {path.parts[-4] for path in FIXTURES}
    assert len(games) >= 2 and games <= set(game_names()), FIXTURES


def test_the_browser_recomputes_every_recorded_chain_to_the_servers_head(bundle: Path) -> None:
    signer = HeadSigner.generate()
    logs = {path.name: public_log(fixture_lines(path), signer, path.stem) for path in FIXTURES}
    keys = [signer.public.to_json()]
    result = run_verifier(bundle, logs, keys)["logs"]
    for path in FIXTURES:
        lines = fixture_lines(path)
        server = verify_chain(events_of(lines))
        expected = json.loads(
            path.with_name(path.name.replace(".jsonl.gz", ".expected.json")).read_text()
        )
        seen = result[path.name]
        assert server.ok and server.head_hash == expected["head_hash"], path
        assert seen["chain"] == {
            "ok": True,
            "checked": len(lines),
            "head": server.head_hash,
            "firstBad": 0,
            "reason": "",
        }, path
        [signature] = seen["signatures"]
        assert signature["ok"], (path, signature)
        assert signature["detail"].startswith(f"the current key {signer.key_id} signed version"), (
            signature
        )


def _tamper_payload(line: str) -> str:
    """``line`` with one byte of its payload changed (the first digit of its first number
    or hex string inside the payload), still valid JSON."""
    start = line.index('"payload": ') + len('"payload": ')
    for at in range(start, len(line)):
        if line[at] in "0123456789" and line[at - 1] not in "e":
            return line[:at] + ("1" if line[at] != "1" else "2") + line[at + 1 :]
    raise AssertionError(f"no digit in the payload of {line[:80]}")


def test_a_changed_payload_byte_is_refused_at_the_servers_first_bad_version(bundle: Path) -> None:
    signer = HeadSigner.generate()
    logs, expected = {}, {}
    for path in FIXTURES[:: max(1, len(FIXTURES) // 4)]:
        lines = fixture_lines(path)
        at = len(lines) // 2
        tampered = [*lines[:at], _tamper_payload(lines[at]), *lines[at + 1 :]]
        last = json.loads(lines[-1])
        logs[path.name] = public_log(tampered, signer, path.stem, (last["version"], last["hash"]))
        server = verify_chain(events_of(tampered))
        assert not server.ok and server.first_bad_version == at + 1
        expected[path.name] = server.first_bad_version
    result = run_verifier(bundle, logs, [signer.public.to_json()])["logs"]
    for name, first_bad in expected.items():
        chain = result[name]["chain"]
        assert not chain["ok"] and chain["firstBad"] == first_bad, (name, chain)
        assert chain["reason"] == "its hash is not SHA-256 of the previous hash and its content"


def test_a_rehashed_forgery_chains_but_its_signature_is_refused(bundle: Path) -> None:
    """Every hash after the edit recomputed and the header's head moved to the forged
    head: the chain holds, the signature (over the real head) does not."""
    signer = HeadSigner.generate()
    path = FIXTURES[-1]
    lines = fixture_lines(path)
    real = json.loads(lines[-1])
    ruleset = json.loads(lines[0])["payload"]["ruleset"]
    finished = any(json.loads(line)["type"] == "GameEnded" for line in lines)
    signed_real = signer.sign(path.stem, ruleset, real["version"], real["hash"], finished)
    forged: list[str] = []
    previous = GENESIS_HASH
    for index, line in enumerate(lines):
        event = event_from_json(json.loads(_tamper_payload(line) if index == 20 else line))
        digest = hash_of(previous, event)
        forged.append(json.dumps({**event_to_json(event), "hash": digest}, sort_keys=True))
        previous = digest
    text = public_log(forged, signer, path.stem)
    header, *rest = text.splitlines()
    # Keep the real head's signature: a forger cannot sign the forged head.
    moved = {**json.loads(header), "signatures": [signed_real.to_json()]}
    forged_log = "\n".join([json.dumps(moved), *rest])
    result = run_verifier(bundle, {"forged": forged_log}, [signer.public.to_json()])["logs"]
    assert result["forged"]["chain"]["ok"], result
    [signature] = result["forged"]["signatures"]
    assert not signature["ok"] and not signature["unsupported"], signature
    assert signature["detail"] == "the header's version is not what was signed" or (
        signature["detail"] == "the header's head_hash is not what was signed"
    ), signature


def test_a_missing_tail_or_unknown_key_is_named(bundle: Path) -> None:
    signer = HeadSigner.generate()
    path = FIXTURES[0]
    lines = fixture_lines(path)
    whole = public_log(lines, signer, "g")
    cut = "\n".join(whole.splitlines()[:-1]) + "\n"
    other = HeadSigner.generate()
    result = run_verifier(bundle, {"cut": cut, "whole": whole}, [other.public.to_json()])["logs"]
    server = verify_chain(events_of(lines[:-1]), expected_head=(len(lines), "x"))
    assert result["cut"]["chain"]["firstBad"] == server.first_bad_version == len(lines)
    assert result["cut"]["chain"]["reason"] == f"events missing: the head is at {len(lines)}"
    [signature] = result["whole"]["signatures"]
    assert signature["detail"] == f"key {signer.key_id} is not one this server publishes"


CANONICAL_CASES = [
    '{"b": 1, "a": [1.0, 2.5, -0.0, 0.0001, 0.00001, 1e16, 1e15, 123456789012345678901234567890]}',
    '{"x": 1E5, "y": 3.14159e-10, "z": -12.5e+3, "w": 9007199254740993, "v": -0}',
    '{"s": "caf\\u00e9 \\u2028 \\ud83c\\udfb2 \\"q\\" \\\\ \\n\\t\\u0001 \\u007f /"}',
    '{"\\ud83c\\udfb2": 1, "\\uffff": 2, "Z": 3, "a": 4, "": 5}',
    '{"n": null, "t": true, "f": false, "e": {}, "l": [], "d": {"k": 1, "k": 2}}',
    "[NaN, Infinity, -Infinity, 1.7976931348623157e308, 5e-324, 0.1, 100.0, 1e22]",
]


def test_canonical_json_is_the_servers_byte_for_byte(bundle: Path) -> None:
    result = run_verifier(bundle, {}, [], CANONICAL_CASES)["canonical"]
    assert result == [canonical_json(json.loads(text)) for text in CANONICAL_CASES]
