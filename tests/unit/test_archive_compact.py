"""Issue 34: the ``z3`` archive body drops what can be recomputed and rebuilds it exactly.

Logs built here with the project's own chain code (so every hash is the real one): the
body rebuilds every entry and command record, refuses a log whose payloads were changed,
and leaves out of its rows what it cannot rebuild (kept verbatim or refused).
"""

from __future__ import annotations

import json
import struct
import sys
from dataclasses import replace
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from services.engine.adapters import archive_dicts
from services.engine.adapters.archive import (
    COMPACT_TAG,
    ArchiveMismatch,
    decode_archive,
    encode_archive,
    encode_entries,
    encode_z2,
)
from services.engine.adapters.archive_compact import Entry, decode_body, encode_body
from services.engine.domain.chain import GENESIS_HASH, chained
from services.engine.domain.records import EventMetadata
from services.engine.domain.ruleset import DomainEvent
from services.engine.domain.rulesets import default_registry
from tests.nim import NIM


def _log(batches: list[tuple[EventMetadata, list[DomainEvent]]]) -> list[Entry]:
    """Stream entries of ``batches`` (one command each), chained as the store chains."""
    entries: list[Entry] = []
    previous = GENESIS_HASH
    for metadata, events in batches:
        for payload, record in chained(len(entries), events, metadata, previous):
            previous = record.hash
            entries.append(
                (
                    f"{record.version}-1",
                    {
                        "type": record.type,
                        "schema_version": str(record.schema_version),
                        "payload": payload,
                        "command_id": metadata.command_id,
                        "seat": str(metadata.seat),
                        "recorded_at": metadata.recorded_at,
                        "hash": record.hash,
                    },
                )
            )
    return entries


HEX_ID = "0b9abc54f3d34140a94cab76a0e86b2a"
DIGEST = "2c407fd8c9aa58199e0def690f99b2f74c223c9438bde6e8de7471b18ddad6a5"
ENTRIES = _log(
    [
        (
            EventMetadata("create-1", -1, "2026-12-07T06:26:51.335198+00:00"),
            [DomainEvent("GameCreated", {"ruleset": "nim", "seats": [1, 2]}, 3)],
        ),
        (
            EventMetadata(HEX_ID, 0, "2026-12-07T06:26:52+00:00"),
            [DomainEvent("Took", {"n": 2, "note": "é\u2028"}), DomainEvent("Turn", {"seat": 1})],
        ),
        (EventMetadata("", -1, "2026-12-07 06:26:53Z"), [DomainEvent("Timer", {})]),
        (
            EventMetadata(HEX_ID.upper(), 1, "2026-12-07T06:26:54.000001+00:00"),
            [DomainEvent("Took", {"n": 1})],
        ),
    ]
)
COMMANDS = {
    "create|create-1": f"1-1:{DIGEST}",
    f"seat:0|{HEX_ID}": f"2-3:{DIGEST[::-1]}",
    f"seat:1|{HEX_ID.upper()}": "5-5",  # recorded before request hashes were kept
    "seat:1|not-in-the-log": "5-5:abc",  # of no shape the rows hold: kept verbatim
    "weird": "x",
}


def test_a_body_rebuilds_every_entry_and_command_record() -> None:
    log = decode_body(encode_body(ENTRIES, COMMANDS))
    assert log.entries == ENTRIES
    assert log.commands == COMMANDS
    assert log.head == (5, ENTRIES[-1][1]["hash"])


def test_the_blob_is_tagged_raw_bytes_and_every_older_format_still_decodes() -> None:
    blob = encode_archive(ENTRIES, COMMANDS)
    assert blob.startswith(COMPACT_TAG)
    z3 = decode_archive(blob)
    assert (z3.entries, z3.commands, z3.head) == (ENTRIES, COMMANDS, (5, ENTRIES[-1][1]["hash"]))
    z2 = decode_archive(encode_z2(ENTRIES, COMMANDS))
    assert (z2.entries, z2.commands, z2.head) == (ENTRIES, COMMANDS, None)
    assert decode_archive(encode_entries(ENTRIES).encode()).entries == ENTRIES  # as bytes


def _edited(body: bytes, edit: Any) -> bytes:
    (size,) = struct.unpack_from(">I", body)
    document = json.loads(body[4 : 4 + size])
    edit(document)
    text = json.dumps(document, separators=(",", ":")).encode()
    return struct.pack(">I", len(text)) + text + body[4 + size :]


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d["events"][1].__setitem__(2, '{"n":3,"note":"é\u2028"}'),  # a payload
        lambda d: d["groups"][2].__setitem__(1, 0),  # who sent a command
        lambda d: d["groups"][1].__setitem__(3, d["groups"][1][3] + 1),  # when
        lambda d: d["events"].__setitem__(slice(1, 3), d["events"][2:0:-1]),  # the order
    ],
)
def test_a_changed_body_is_refused_naming_its_format_and_head(edit: Any) -> None:
    body = _edited(encode_body(ENTRIES, COMMANDS), edit)
    with pytest.raises(ArchiveMismatch, match=r"z3 archive does not verify.* at version 5"):
        decode_body(body)


def test_damage_is_refused_as_not_an_archive() -> None:
    blob = encode_archive(ENTRIES, COMMANDS)
    for bad in (b"", b"z3:", blob[:-5], COMPACT_TAG + b"\x28\xb5\x2f\xfd garbage", b"z9:x"):
        with pytest.raises(ValueError):
            decode_archive(bad)
    body = encode_body(ENTRIES, COMMANDS)
    with pytest.raises(ValueError, match="damaged"):
        decode_body(body + b"\x00")  # a tail byte too many


def test_a_log_the_body_cannot_hold_exactly_is_refused() -> None:
    odd = [(ENTRIES[0][0], {**ENTRIES[0][1], "extra": "1"}), *ENTRIES[1:]]
    with pytest.raises(ValueError, match="not a plain event"):
        encode_body(odd, {})
    with pytest.raises(ValueError, match="not a plain event"):
        encode_body([("1-0", ENTRIES[0][1])], {})
    with pytest.raises(ValueError, match="no events"):
        encode_body([], {})


_texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
_payloads = st.dictionaries(
    _texts,
    st.one_of(st.integers(), _texts, st.booleans(), st.none(), st.lists(st.integers())),
    max_size=4,
)
_times = st.one_of(
    st.datetimes(timezones=st.just(UTC)).map(lambda t: t.isoformat()),
    _texts,  # any text: kept as it is
)
_ids = st.one_of(st.uuids().map(lambda u: u.hex), _texts)


@given(
    st.lists(
        st.tuples(
            _ids,
            st.integers(-1, 5),
            _times,
            st.lists(
                st.tuples(st.sampled_from(["A", "B", "Ç"]), _payloads), min_size=1, max_size=3
            ),
        ),
        min_size=1,
        max_size=8,
    ),
    st.data(),
)
@settings(max_examples=40, deadline=None)
def test_any_log_round_trips_exactly(batches: list[Any], data: st.DataObject) -> None:
    entries = _log(
        [
            (EventMetadata(cid, seat, at), [DomainEvent(t, p) for t, p in events])
            for cid, seat, at, events in batches
        ]
    )
    commands: dict[str, str] = {}
    for version, (_entry_id, fields) in enumerate(entries, start=1):
        if data.draw(st.booleans()):
            digest = data.draw(st.sampled_from(["", f":{DIGEST}", ":short"]))
            commands[f"seat:{fields['seat']}|{fields['command_id']}"] = (
                f"{version}-{version}{digest}"
            )
    log = decode_body(encode_body(entries, commands))
    assert (log.entries, log.commands) == (entries, commands)


def test_a_blob_naming_a_dictionary_not_shipped_is_refused_by_its_id() -> None:
    body = encode_body(ENTRIES, COMMANDS)
    samples = [body[i : i + 64] for i in range(0, len(body), 64)] * 20
    foreign = zstandard.train_dictionary(2048, samples, dict_id=999_999)
    frame = zstandard.ZstdCompressor(dict_data=foreign, write_content_size=True).compress(body)
    with pytest.raises(ValueError, match="needs zstd dictionary 999999, which is not shipped"):
        decode_archive(COMPACT_TAG + frame)
    assert 999_999 not in archive_dicts.shipped()


def test_each_game_ships_its_own_dictionaries_and_an_id_shipped_twice_keeps_the_first(
    tmp_path: Path,
) -> None:
    """Dictionaries are found through the games' declarations (a game is one folder): a
    game naming no folder ships none, and an id two games ship is read from the first
    game by name (the other is a packaging error, logged)."""
    for game, ids in (("zz_alpha", (7, 8)), ("zz_beta", (8, 9))):
        folder = tmp_path / game / "data" / "archive_dicts"
        folder.mkdir(parents=True)
        for dict_id in ids:
            (folder / f"{dict_id}.zdict").write_bytes(b"")
        (folder / "notes.txt").write_text("not a dictionary")
    sys.path.insert(0, str(tmp_path))
    try:
        for game in ("zz_alpha", "zz_beta"):
            (tmp_path / game / "__init__.py").write_text("")
        games = [
            replace(NIM, name=name, archive_dictionaries=f"{name}:data/archive_dicts")
            for name in ("zz_beta", "zz_alpha")
        ] + [NIM]
        found = archive_dicts.shipped_by(games)
    finally:
        sys.path.remove(str(tmp_path))
        for game in ("zz_alpha", "zz_beta"):
            sys.modules.pop(game, None)
    assert {dict_id: (game, path.name) for dict_id, (game, path) in found.items()} == {
        7: ("zz_alpha", "7.zdict"),
        8: ("zz_alpha", "8.zdict"),
        9: ("zz_beta", "9.zdict"),
    }


def test_the_shipped_games_dictionaries_are_found_with_their_own_ids() -> None:
    shipped = archive_dicts.shipped()
    assert sorted({game for game, _ in shipped.values()}) == default_registry().names()
    for dict_id in shipped:
        assert archive_dicts.dictionary(dict_id).dict_id() == dict_id
