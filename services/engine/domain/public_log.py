"""The exported public log file (``teoti export``), readable without the server.

Format ``teoti-public-log`` version 1: UTF-8 JSON lines.

- Line 1, the header: ``{"format": "teoti-public-log", "format_version": 1, "game_id",
  "ruleset", "finished": bool, "head": {"version", "hash"}, "events": N,
  "exported_at": ISO 8601 UTC, "source": gateway address, "state": public view,
  "signatures": [{"statement", "signature", "key_id"}, ...]}``.
  ``head`` is the log's head and ``state`` the public view (GetGame's ``state``) at that
  version, as the server reported them when exporting: a reader checks that the events
  end at that head and fold to that view. ``signatures`` are the service's signed heads
  (:mod:`services.engine.domain.head_signing`) binding ``game_id``, ``ruleset``, ``head`` and
  ``finished``; an export from a server that signs nothing has none (issue 30 item 10).
- Lines 2..N+1: the events exactly as ListEvents returns them to a spectator, in version
  order, one object each: ``{version, type, schema_version, payload, metadata:
  {command_id, seat, recorded_at}, hash}`` (:mod:`services.engine.domain.event_json`).

A reader accepts any header whose ``format`` is ``teoti-public-log`` and whose
``format_version`` it knows; unknown header keys are ignored (a later exporter may add
some without a version bump; removing or changing one bumps ``format_version``).

Files are read by :mod:`services.engine.adapters.log_files`; this module parses lines
and writes to a stream it is given, so the domain does no I/O of its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import IO, Any

from services.engine.domain.audit import AuditReport, audit_log
from services.engine.domain.event_json import event_from_json, event_to_json
from services.engine.domain.game import fold
from services.engine.domain.head_signing import (
    HeadStatement,
    PublicKey,
    SignatureError,
    SignedHead,
    verify_signed_head,
)
from services.engine.domain.records import StoredEvent, canonical_json
from services.engine.domain.rulesets import RulesetRegistry

FORMAT = "teoti-public-log"
FORMAT_VERSION = 1
KNOWN_VERSIONS = frozenset({1})


class PublicLogError(ValueError):
    """A file that is not a readable public log; the message names the line and why."""


@dataclass(frozen=True, slots=True)
class LogHeader:
    """The header line of a public log file (see the module docstring)."""

    game_id: str
    ruleset: str
    finished: bool
    head_version: int
    head_hash: str
    events: int
    exported_at: str = ""
    source: str = ""
    state: dict[str, Any] | None = None
    format_version: int = FORMAT_VERSION
    signatures: tuple[SignedHead, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The header as its JSON line's object."""
        return {
            "format": FORMAT,
            "format_version": self.format_version,
            "game_id": self.game_id,
            "ruleset": self.ruleset,
            "finished": self.finished,
            "head": {"version": self.head_version, "hash": self.head_hash},
            "events": self.events,
            "exported_at": self.exported_at,
            "source": self.source,
            "state": self.state,
            "signatures": [signed.to_json() for signed in self.signatures],
        }


@dataclass(frozen=True, slots=True)
class PublicLog:
    """A public log read from a file: its header and its events."""

    header: LogHeader
    events: tuple[StoredEvent, ...]

    @property
    def head(self) -> tuple[int, str]:
        """(version, hash) of the head recorded at export."""
        return self.header.head_version, self.header.head_hash


def write_public_log(out: IO[str], header: LogHeader, events: Iterable[StoredEvent]) -> None:
    """Write ``header`` then one line per event to ``out``."""
    out.write(json.dumps(header.to_json(), sort_keys=True, ensure_ascii=False) + "\n")
    for event in events:
        out.write(json.dumps(event_to_json(event), sort_keys=True, ensure_ascii=False) + "\n")


def _header(data: Any) -> LogHeader:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise PublicLogError(f"line 1: not a {FORMAT} header")
    version = data.get("format_version")
    if version not in KNOWN_VERSIONS:
        raise PublicLogError(
            f"line 1: {FORMAT} format_version {version!r} is not one this teoti reads "
            f"({', '.join(str(v) for v in sorted(KNOWN_VERSIONS))})"
        )
    try:
        head = data["head"]
        signatures = data.get("signatures") or []
        if not isinstance(signatures, list):
            raise TypeError("signatures is not a list")
        return LogHeader(
            game_id=str(data["game_id"]),
            ruleset=str(data["ruleset"]),
            finished=bool(data["finished"]),
            head_version=int(head["version"]),
            head_hash=str(head["hash"]),
            events=int(data["events"]),
            exported_at=str(data.get("exported_at", "")),
            source=str(data.get("source", "")),
            state=data["state"] if isinstance(data.get("state"), dict) else None,
            format_version=int(version),
            signatures=tuple(SignedHead.from_json(entry) for entry in signatures),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise PublicLogError(f"line 1: header field missing or malformed: {exc!r}") from exc


def read_log_lines(
    lines: Sequence[str], error: type[PublicLogError] = PublicLogError
) -> tuple[Any, list[StoredEvent]]:
    """The JSON of an exported file's header line and the stored events of the lines
    after it (blank lines skipped): what every teoti log file (a game's, a
    tournament's) is made of. Raises ``error`` naming the first line that is not JSON or
    not a stored event; the header's own fields are the caller's to check."""
    numbered = [(n, line) for n, line in enumerate(lines, start=1) if line.strip()]
    if not numbered:
        raise error("empty file: no header line")
    parsed: list[Any] = []
    for number, line in numbered:
        try:
            parsed.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise error(f"line {number}: not JSON ({exc.msg})") from exc
    events = []
    for (number, _line), data in zip(numbered[1:], parsed[1:], strict=True):
        if not isinstance(data, dict):
            raise error(f"line {number}: not a stored event")
        try:
            events.append(event_from_json(data))
        except ValueError as exc:
            raise error(f"line {number}: {exc}") from exc
    return parsed[0], events


def parse_public_log(lines: Sequence[str]) -> PublicLog:
    """Parse a whole file's lines. Raises PublicLogError naming the first bad line."""
    header, events = read_log_lines(lines)
    return PublicLog(_header(header), tuple(events))


def projection_differences(rebuilt: Any, exported: Any) -> list[str]:
    """The top-level keys of an exported public view (``exported``, a JSON object) whose
    value is not the rebuilt view's, in the canonical JSON that both were written in;
    [] when they agree. Keys only the rebuilt view has are not differences: a later
    release's view may add fields (a game's board needed prices), and a file exported
    before it promised nothing about them. An ``exported`` that is no object is compared
    whole (["(the whole view)"] when it differs)."""
    if not isinstance(exported, dict) or not isinstance(rebuilt, dict):
        same = canonical_json(rebuilt) == canonical_json(exported)
        return [] if same else ["(the whole view)"]
    return sorted(
        str(key)
        for key, value in exported.items()
        if key not in rebuilt or canonical_json(rebuilt[key]) != canonical_json(value)
    )


def audit_public_log(log: PublicLog, registry: RulesetRegistry) -> AuditReport:
    """Audit an exported log offline: exactly the server's checks (:func:`audit_log`,
    what VerifyGame runs: chain up to the exported head, fold, revealed seed against its
    commitment and the setup it derives), plus the file's own promises: as many events as
    the header says, and the fold's public view agreeing with the exported ``state`` on
    every key it has (:func:`projection_differences`)."""
    game_id = log.header.game_id
    report = audit_log(game_id, log.events, registry, log.head)
    extra: list[str] = []
    if log.header.events != len(log.events):
        extra.append(
            f"the header promises {log.header.events} events, the file has {len(log.events)}"
        )
    if report.ok:
        game = fold(game_id, log.events, registry)
        if log.header.state is not None:
            differing = projection_differences(
                game.ruleset.view(game.state, None), log.header.state
            )
            if differing:
                extra.append(
                    "rebuilt state differs from the exported projection at " + ", ".join(differing)
                )
        if game.is_terminal() != log.header.finished:
            extra.append(
                f"the header says finished={str(log.header.finished).lower()}, the log's game "
                f"{'has' if game.is_terminal() else 'has not'} ended"
            )
    if not extra:
        return report
    return replace(report, ok=False, problems=(*report.problems, *extra))


@dataclass(frozen=True, slots=True)
class SignatureCheck:
    """What :func:`check_signatures` found.

    Attributes:
        signed: the header carries at least one signature.
        signers: the statements that verified, in the header's order (all of them when
            ``problems`` is empty).
        problems: one line per signature that failed, naming the check.
    """

    signed: bool
    signers: tuple[HeadStatement, ...]
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Signed, and every signature verified and matches the header."""
        return self.signed and not self.problems


def check_signatures(header: LogHeader, keys: Sequence[PublicKey]) -> SignatureCheck:
    """Check every signature of ``header`` against ``keys`` (the service's published
    keys) and against the header itself: each must verify with a known key and sign this
    header's ``game_id``, ``ruleset``, ``head`` (version and hash) and ``finished``. The
    events are bound through the head hash (:func:`audit_public_log` checks they chain
    to it), the ``state`` through the fold."""
    signers: list[HeadStatement] = []
    problems: list[str] = []
    for number, signed in enumerate(header.signatures, start=1):
        try:
            statement = verify_signed_head(signed, keys)
        except SignatureError as exc:
            problems.append(f"signature {number}: {exc}")
            continue
        claimed = {
            "game_id": header.game_id,
            "ruleset": header.ruleset,
            "version": header.head_version,
            "head_hash": header.head_hash,
            "finished": header.finished,
        }
        signed_json = statement.to_json()
        differ = [name for name, value in claimed.items() if signed_json[name] != value]
        if differ:
            problems.append(
                f"signature {number} (key {statement.key_id}): the header's "
                f"{', '.join(differ)} {'is' if len(differ) == 1 else 'are'} not what was "
                f"signed (signed: {', '.join(f'{n}={signed_json[n]!r}' for n in differ)})"
            )
            continue
        signers.append(statement)
    return SignatureCheck(bool(header.signatures), tuple(signers), tuple(problems))
