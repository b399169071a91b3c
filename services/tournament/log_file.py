"""The exported tournament log file (``teoti tournament export``), checkable without the
server (``teoti tournament verify FILE``).

Format ``teoti-tournament-log`` version 1: UTF-8 JSON lines.

- Line 1, the header: ``{"format": "teoti-tournament-log", "format_version": 1,
  "tournament_id", "head": {"version", "hash"}, "events": N, "exported_at": ISO 8601
  UTC, "source": gateway address, "summary": ExportTournament's document at that head,
  "games": {game_id: file name}}``. ``summary`` is what the server computed from its
  log (standings, rounds, tables, places: ``services.tournament.service.export_json``);
  ``games`` names the exported public logs (``teoti-public-log``, docs/public-log.md)
  of the tournament's games written beside the file (``{}`` when none were).
- Lines 2..N+1: the tournament's events in version order, one object each, in the line
  format of game logs (``services.engine.domain.event_json``: ``{version, type,
  schema_version, payload, metadata: {command_id, seat, recorded_at}, hash}``).

Unknown header keys are ignored; removing or changing one bumps ``format_version``.
Tournament logs carry no service signature (games' heads do): the file proves itself
consistent (chain, fold, pairings from the revealed seed, the summary recomputed), not
who wrote it.

This module parses lines and writes to a stream it is given: no I/O of its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from services.engine.domain.chain import verify_chain
from services.engine.domain.event_json import event_to_json
from services.engine.domain.public_log import PublicLogError, read_log_lines
from services.engine.domain.records import StoredEvent, canonical_json
from services.tournament import events as ev
from services.tournament.aggregate import (
    CorruptTournamentLog,
    TournamentState,
    fold,
    replay_pairings,
)
from services.tournament.service import export_json

FORMAT = "teoti-tournament-log"
FORMAT_VERSION = 1
KNOWN_VERSIONS = frozenset({1})


class TournamentLogError(PublicLogError):
    """A file that is not a readable tournament log; the message names the line and why
    (a PublicLogError: ``teoti`` reports both as a file that is not a teoti export)."""


@dataclass(frozen=True, slots=True)
class TournamentLogHeader:
    """The header line of a tournament log file (see the module docstring)."""

    tournament_id: str
    head_version: int
    head_hash: str
    events: int
    summary: Mapping[str, Any]
    exported_at: str = ""
    source: str = ""
    games: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The header as its JSON line's object."""
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "tournament_id": self.tournament_id,
            "head": {"version": self.head_version, "hash": self.head_hash},
            "events": self.events,
            "exported_at": self.exported_at,
            "source": self.source,
            "summary": dict(self.summary),
            "games": dict(self.games),
        }


@dataclass(frozen=True, slots=True)
class TournamentLog:
    """A tournament log read from a file: its header and its events."""

    header: TournamentLogHeader
    events: tuple[StoredEvent, ...]


def write_tournament_log(
    out: IO[str], header: TournamentLogHeader, events: Iterable[StoredEvent]
) -> None:
    """Write ``header`` then one line per event to ``out``."""
    out.write(json.dumps(header.to_json(), sort_keys=True, ensure_ascii=False) + "\n")
    for event in events:
        out.write(json.dumps(event_to_json(event), sort_keys=True, ensure_ascii=False) + "\n")


def _header(data: Any) -> TournamentLogHeader:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise TournamentLogError(f"line 1: not a {FORMAT} header")
    version = data.get("format_version")
    if version not in KNOWN_VERSIONS:
        raise TournamentLogError(
            f"line 1: {FORMAT} format_version {version!r} is not one this teoti reads (1)"
        )
    try:
        head = data["head"]
        summary = data["summary"]
        games = data.get("games") or {}
        if not isinstance(summary, dict) or not isinstance(games, dict):
            raise TypeError("summary and games must be objects")
        return TournamentLogHeader(
            tournament_id=str(data["tournament_id"]),
            head_version=int(head["version"]),
            head_hash=str(head["hash"]),
            events=int(data["events"]),
            summary=summary,
            exported_at=str(data.get("exported_at", "")),
            source=str(data.get("source", "")),
            games={str(k): str(v) for k, v in games.items()},
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise TournamentLogError(f"line 1: header field missing or malformed: {exc!r}") from exc


def parse_tournament_log(lines: Sequence[str]) -> TournamentLog:
    """Parse a whole file's lines. Raises TournamentLogError naming the first bad line."""
    header, events = read_log_lines(lines, TournamentLogError)
    return TournamentLog(_header(header), tuple(events))


@dataclass(frozen=True, slots=True)
class TournamentAudit:
    """What :func:`audit_tournament_log` found.

    Attributes:
        chain_ok: every event chains, up to the expected head.
        events_checked: events whose hash chained.
        head_hash: hash of the last event that chained.
        seed_revealed: the log holds SeedRevealed (pairings checkable).
        rounds_checked: rounds whose pairing was re-derived and matched.
        state: the tournament folded from the events (None if they do not fold).
        summary_ok: the summary recomputed from the fold is the one given (None: none
            was given, or the log does not fold).
        problems: one line per failed check ("" none): the audit passed when empty.
    """

    chain_ok: bool
    events_checked: int
    head_hash: str
    seed_revealed: bool
    rounds_checked: int
    state: TournamentState | None
    summary_ok: bool | None
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Every check passed (pairings only once the seed is revealed)."""
        return not self.problems


def audit_tournament_log(
    events: Sequence[StoredEvent],
    head: tuple[int, str],
    summary: Mapping[str, Any] | None = None,
    tournament_id: str = "",
) -> TournamentAudit:
    """Check a tournament's log from the events alone: the hash chain up to ``head``
    (version, hash), the fold, the revealed seed against its commitment and every
    pairing re-derived from it (``replay_pairings``, once SeedRevealed is in the log),
    the log's tournament id against ``tournament_id`` (if given), and ``summary`` (if
    given: what a server exported) against the same document recomputed from the fold.
    Never raises for a bad log: it reports (docs/events.md, "Auditing a tournament")."""
    problems: list[str] = []
    chain = verify_chain(events, head)
    if not chain.ok:
        problems.append(f"chain broken at version {chain.first_bad_version}: {chain.reason}")
    state: TournamentState | None = None
    try:
        state = fold(events)
    except (CorruptTournamentLog, KeyError, ValueError, TypeError) as exc:
        problems.append(f"the log does not fold: {exc}")
    revealed = any(event.type == ev.SEED_REVEALED for event in events)
    rounds = 0
    if revealed:
        pairings = replay_pairings(events)
        rounds = pairings.rounds_checked
        if not pairings.ok:
            problems.append(f"pairings: {pairings.problem}")
    summary_ok: bool | None = None
    if state is not None:
        if tournament_id and state.tournament_id != tournament_id:
            problems.append(f"the log is tournament {state.tournament_id}, not {tournament_id}")
        if summary is not None:
            summary_ok = canonical_json(export_json(state)) == canonical_json(dict(summary))
            if not summary_ok:
                problems.append("the exported summary (standings, rounds) differs from the log's")
    return TournamentAudit(
        chain_ok=chain.ok,
        summary_ok=summary_ok,
        events_checked=chain.checked,
        head_hash=chain.head_hash,
        seed_revealed=revealed,
        rounds_checked=rounds,
        state=state,
        problems=tuple(problems),
    )
