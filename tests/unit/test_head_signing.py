"""Signed heads (issue 30 item 10): an export re-hashed after an edit no longer passes,
because the service's Ed25519 signature binds its header (services/engine/domain/head_signing.py,
services/engine/domain/public_log.check_signatures), tried on the committed fixture logs."""

from __future__ import annotations

import base64
import hashlib
import json
import stat
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from services.engine.adapters.key_files import load_or_create_signer, load_signer, read_public_keys
from services.engine.domain.chain import hash_of
from services.engine.domain.game import fold
from services.engine.domain.head_signing import (
    HeadSigner,
    PublicKey,
    SignatureError,
    SignedHead,
    SigningKeyError,
    SigningKeys,
    key_id,
    parse_keys_document,
    public_pem,
    verify_signed_head,
)
from services.engine.domain.public_log import PublicLog, audit_public_log, check_signatures
from services.engine.domain.records import EventMetadata, StoredEvent
from tests.unit.test_fixture_logs import LOGS
from tests.unit.test_fixture_logs import registry as fixture_registry
from tests.unit.test_public_log import _exported

SIGNER = HeadSigner.generate()


def _signed(public: PublicLog, signer: HeadSigner = SIGNER, at: str | None = None) -> PublicLog:
    """``public`` as an export from a service signing with ``signer``."""
    h = public.header
    head = signer.sign(h.game_id, h.ruleset, h.head_version, h.head_hash, h.finished, at)
    return replace(public, header=replace(h, signatures=(head,)))


def _finished() -> PublicLog:
    return _signed(_exported(next(p for p in LOGS if p.name.startswith("nim_2_bots"))))


def _rehashed(public: PublicLog, events: list[StoredEvent]) -> PublicLog:
    """The forger's work: every hash recomputed after an edit, the header's head and
    public view made to match (the signatures kept as they were)."""
    previous = "0" * 64
    chained = []
    for event in events:
        previous = hash_of(previous, event)
        chained.append(replace(event, hash=previous))
    game = fold(public.header.game_id, chained, fixture_registry())
    header = replace(
        public.header,
        head_hash=previous,
        state=game.ruleset.view(game.state, None),
    )
    return PublicLog(header, tuple(chained))


def _check(public: PublicLog) -> tuple[bool, tuple[str, ...]]:
    """(audit and signature both pass, every problem found)."""
    report = audit_public_log(public, fixture_registry())
    signatures = check_signatures(public.header, [SIGNER.public])
    return report.ok and signatures.ok, report.problems + signatures.problems


def test_an_honest_export_verifies_and_names_its_signer() -> None:
    public = _finished()
    ok, problems = _check(public)
    assert ok, problems
    (statement,) = check_signatures(public.header, [SIGNER.public]).signers
    assert statement.key_id == SIGNER.key_id and statement.finished is True
    assert statement.version == public.header.head_version


def test_renaming_a_seat_and_rehashing_fails_on_the_signature() -> None:
    public = _finished()
    events = list(public.events)
    created = events[0]
    seats = [dict(seat) for seat in created.payload["seats"]]
    seats[0]["name"] = "mallory"
    events[0] = replace(created, payload={**created.payload, "seats": seats})
    forged = _rehashed(public, events)
    assert audit_public_log(forged, fixture_registry()).ok  # the chain alone is fooled
    ok, problems = _check(forged)
    assert not ok
    assert problems == (
        f"signature 1 (key {SIGNER.key_id}): the header's head_hash is not what was "
        f"signed (signed: head_hash={public.header.head_hash!r})",
    )


def test_changing_a_recorded_at_and_rehashing_fails_on_the_signature() -> None:
    public = _finished()
    events = list(public.events)
    victim = events[3]
    metadata = victim.metadata
    events[3] = replace(
        victim,
        metadata=EventMetadata(metadata.command_id, metadata.seat, "2020-01-01T00:00:00+00:00"),
    )
    ok, problems = _check(_rehashed(public, events))
    assert not ok and "head_hash is not what was signed" in problems[0]


def test_flipping_finished_fails_on_the_fold_and_on_the_signature() -> None:
    public = _finished()
    flipped = replace(public, header=replace(public.header, finished=False))
    report = audit_public_log(flipped, fixture_registry())
    assert report.problems == ("the header says finished=false, the log's game has ended",)
    (problem,) = check_signatures(flipped.header, [SIGNER.public]).problems
    assert "finished is not what was signed (signed: finished=True)" in problem


def test_a_forger_signing_with_their_own_key_or_editing_the_statement_fails() -> None:
    public = _finished()
    mallory = HeadSigner.generate()
    resigned = _signed(public, mallory)
    (problem,) = check_signatures(resigned.header, [SIGNER.public]).problems
    assert f"signed by unknown key {mallory.key_id}" in problem
    (honest,) = public.header.signatures
    edited = SignedHead(
        honest.statement.replace('"finished":true', '"finished":false'),
        honest.signature,
        honest.key_id,
    )
    with pytest.raises(SignatureError, match="does not verify"):
        verify_signed_head(edited, [SIGNER.public])
    unsigned = replace(public, header=replace(public.header, signatures=()))
    assert not check_signatures(unsigned.header, [SIGNER.public]).ok


def test_the_signatures_survive_the_file_round_trip() -> None:
    import io

    from services.engine.domain.public_log import parse_public_log, write_public_log

    public = _finished()
    text = io.StringIO()
    write_public_log(text, public.header, public.events)
    header_line = json.loads(text.getvalue().splitlines()[0])
    assert header_line["signatures"] == [public.header.signatures[0].to_json()]
    again = parse_public_log(text.getvalue().splitlines())
    assert again.header.signatures == public.header.signatures
    assert check_signatures(again.header, [SIGNER.public]).ok


def test_a_retired_key_verifies_what_it_signed_before_retirement_only() -> None:
    public = _exported(next(p for p in LOGS if p.name.startswith("nim_2_bots")))
    old = HeadSigner.generate()
    retired_at = datetime.now(UTC)
    before = _signed(public, old, (retired_at - timedelta(days=1)).isoformat())
    after = _signed(public, old, (retired_at + timedelta(seconds=1)).isoformat())
    keys = SigningKeys(
        HeadSigner.generate(),
        [replace(old.public, valid_until=retired_at.isoformat(), current=False)],
    )
    published = parse_keys_document(json.loads(json.dumps(keys.document())))
    assert [k.current for k in published] == [True, False]
    assert check_signatures(before.header, published).ok
    (problem,) = check_signatures(after.header, published).problems
    assert f"after key {old.key_id} was retired" in problem


def test_key_ids_and_key_files() -> None:
    raw = SIGNER.public.public_key
    assert len(raw) == 32
    assert SIGNER.key_id == hashlib.sha256(raw).hexdigest()[:16]
    assert key_id(raw) == SIGNER.key_id
    entry = SIGNER.public.to_json()
    assert entry["algorithm"] == "ed25519" and base64.b64decode(entry["public_key"]) == raw
    with pytest.raises(SigningKeyError, match="is not the id of its public key"):
        PublicKey.from_json({**entry, "key_id": "0" * 16})
    with pytest.raises(SigningKeyError, match='no "keys" list'):
        parse_keys_document({"key": []})


def test_public_keys_read_from_a_pem_or_a_keys_document(tmp_path: Path) -> None:
    pem = tmp_path / "key.pem"
    pem.write_text(public_pem(SIGNER.public))
    document = tmp_path / "keys.json"
    document.write_text(json.dumps(SigningKeys(SIGNER).document()))
    for path in (pem, document):
        (key,) = read_public_keys(path)
        assert (key.key_id, key.public_key) == (SIGNER.key_id, SIGNER.public.public_key)
    garbage = tmp_path / "garbage.png"
    garbage.write_bytes(b"\x89PNG\r\n")
    with pytest.raises(SigningKeyError, match="neither a PEM public key nor a keys document"):
        read_public_keys(garbage)


def test_serve_s_key_is_made_once_mode_0600_then_reused(tmp_path: Path) -> None:
    path = tmp_path / "data" / "signing-key.pem"
    first, created = load_or_create_signer(path)
    assert created and stat.S_IMODE(path.stat().st_mode) == 0o600
    again, created_again = load_or_create_signer(path)
    assert not created_again and again.key_id == first.key_id
    (tmp_path / "not-a-key.pem").write_text("-----BEGIN PRIVATE KEY-----\nAAAA\n")
    with pytest.raises(SigningKeyError, match="cannot read the signing key"):
        load_signer(tmp_path / "not-a-key.pem")
