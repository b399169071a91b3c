"""The exported public log file: round trip, clear refusals, and the offline audit
(services/engine/domain/public_log.py), tried on the committed fixture logs."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from services.engine.domain.public_log import (
    FORMAT,
    LogHeader,
    PublicLog,
    PublicLogError,
    audit_public_log,
    parse_public_log,
    write_public_log,
)
from services.engine.domain.records import StoredEvent
from tests.unit.test_fixture_logs import LOGS, expected_of, load_log, log_id, registry


def _exported(path: Path) -> PublicLog:
    """A fixture log as ``teoti export`` would write it (header from its recorded end)."""
    expected = expected_of(path)
    events = load_log(path)
    header = LogHeader(
        game_id=expected["game_id"],
        ruleset=expected["ruleset"],
        finished=expected["terminal"],
        head_version=expected["version"],
        head_hash=expected["head_hash"],
        events=len(events),
        exported_at="2026-12-01T00:00:00+00:00",
        source="fixture",
        state=expected["public_view"],
    )
    text = io.StringIO()
    write_public_log(text, header, events)
    return parse_public_log(text.getvalue().splitlines())


@pytest.mark.parametrize("path", LOGS, ids=log_id)
def test_every_fixture_log_round_trips_and_verifies_offline(path: Path) -> None:
    public = _exported(path)
    assert list(public.events) == load_log(path)
    report = audit_public_log(public, registry())
    assert report.ok, report.problems
    assert report.events == len(public.events)
    assert report.seed_revealed is public.header.finished
    assert report.seed_verified is public.header.finished


def test_offline_audit_names_the_first_tampered_version() -> None:
    public = _exported(next(p for p in LOGS if p.name.startswith("standard_3_humans")))
    events = list(public.events)
    victim = events[40]
    events[40] = StoredEvent(
        victim.version,
        victim.type,
        victim.schema_version,
        {**victim.payload, "extra": 1},
        victim.metadata,
        victim.hash,
    )
    report = audit_public_log(replace(public, events=tuple(events)), registry())
    assert not report.ok and report.first_bad_version == victim.version


def test_offline_audit_catches_a_cut_log_and_a_wrong_view() -> None:
    public = _exported(next(p for p in LOGS if p.name.startswith("nim_2_bots")))
    cut = replace(public, events=public.events[:-1])
    assert not audit_public_log(cut, registry()).ok
    wrong_view = replace(public, header=replace(public.header, state={"pile": 99}))
    report = audit_public_log(wrong_view, registry())
    assert report.problems == ("rebuilt state differs from the exported projection at pile",)
    assert public.header.state is not None
    unknown_key = {**public.header.state, "crown": "mine"}
    forged = replace(public, header=replace(public.header, state=unknown_key))
    assert audit_public_log(forged, registry()).problems == (
        "rebuilt state differs from the exported projection at crown",
    )


def test_a_file_exported_before_the_view_gained_a_field_still_audits() -> None:
    """A later release's view may add fields (a game's prices, issue 33): a file
    exported before promised nothing about them, and still verifies."""
    public = _exported(next(p for p in LOGS if p.name.startswith("nim_2_bots")))
    assert public.header.state is not None and len(public.header.state) > 1
    dropped = sorted(public.header.state)[0]
    older = {k: v for k, v in public.header.state.items() if k != dropped}
    report = audit_public_log(
        replace(public, header=replace(public.header, state=older)), registry()
    )
    assert report.ok, report.problems


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty file"),
        ("not json\n", "line 1: not JSON"),
        ('{"format": "other"}\n', f"not a {FORMAT} header"),
        (json.dumps({"format": FORMAT, "format_version": 2}), "format_version 2"),
        (json.dumps({"format": FORMAT, "format_version": 1}), "header field missing"),
    ],
)
def test_unreadable_files_are_refused_naming_the_line(text: str, message: str) -> None:
    with pytest.raises(PublicLogError, match=message):
        parse_public_log(text.splitlines())


def test_a_bad_event_line_is_named() -> None:
    public = _exported(next(p for p in LOGS if p.name.startswith("nim_unfinished")))
    text = io.StringIO()
    write_public_log(text, public.header, public.events)
    lines = text.getvalue().splitlines()
    lines[2] = json.dumps({"version": 2, "type": "PileSet"})
    with pytest.raises(PublicLogError, match="line 3: not a stored event"):
        parse_public_log(lines)
