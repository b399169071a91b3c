"""``teoti tournament export`` and ``teoti tournament verify``: a tournament's log to a
file (format: :mod:`services.tournament.log_file`), and its audit, offline from such a
file or against a server.

The audit never takes the server's word: ``verify TOURNAMENT_ID`` reads the log and
re-checks it here exactly as ``verify FILE`` does offline (chain, fold, pairings from
the revealed seed, standings recomputed), then shows VerifyTournament's verdict beside
its own. Exit 0 when every check passed, 1 when one failed (services.cli.errors).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import grpc

from services.cli.errors import EXIT_FAILED, EXIT_OK, UsageError
from services.cli.logs import names_a_path
from services.cli.options import DEFAULT_GATEWAY
from services.engine.adapters.log_files import looks_like_file
from services.engine.domain.records import EventMetadata, StoredEvent
from services.rpc.generated import tournament_service_pb2 as pb
from services.rpc.generated import tournament_service_pb2_grpc as pb_grpc
from services.safe_text import printable
from services.tournament.log_file import (
    TournamentAudit,
    TournamentLogError,
    TournamentLogHeader,
    audit_tournament_log,
    parse_tournament_log,
    write_tournament_log,
)


def stored_event(message: Any) -> StoredEvent:
    """A WatchTournament TournamentEvent as the stored event it reports (every field
    the hash chain covers)."""
    return StoredEvent(
        version=message.version,
        type=message.type,
        schema_version=message.schema_version,
        payload=json.loads(message.payload_json),
        metadata=EventMetadata(
            command_id=message.command_id, seat=message.seat, recorded_at=message.recorded_at
        ),
        hash=message.hash,
    )


async def read_log(stub: Any, tournament_id: str, head_version: int) -> list[StoredEvent]:
    """The tournament's events 1..``head_version``, read with WatchTournament (which
    stops by itself only once the tournament has finished: a running one's stream is
    cancelled as soon as the head is reached)."""
    events: list[StoredEvent] = []
    call = stub.WatchTournament(pb.WatchTournamentRequest(tournament_id=tournament_id))
    try:
        async for message in call:
            if message.event.version > head_version:
                break
            events.append(stored_event(message.event))
            if message.event.version >= head_version:
                break
    finally:
        call.cancel()
    return events


async def fetch(stub: Any, tournament_id: str) -> tuple[dict[str, Any], list[StoredEvent]]:
    """(ExportTournament's document, the events up to its ``log_head``): the server's
    summary and the log it claims to have computed it from, at one version."""
    reply = await stub.ExportTournament(pb.ExportTournamentRequest(tournament_id=tournament_id))
    summary: dict[str, Any] = json.loads(reply.json)
    head_version = int(summary["log_head"]["version"])
    return summary, await read_log(stub, tournament_id, head_version)


async def _export(args: argparse.Namespace) -> int:
    async with grpc.aio.insecure_channel(args.target) as channel:
        summary, events = await fetch(pb_grpc.TournamentServiceStub(channel), args.tournament_id)
    head = summary["log_head"]
    header = TournamentLogHeader(
        tournament_id=str(summary["tournament_id"]),
        head_version=int(head["version"]),
        head_hash=str(head["hash"]),
        events=len(events),
        summary=summary,
        exported_at=datetime.now(UTC).isoformat(),
        source=args.target,
    )
    text = io.StringIO()
    write_tournament_log(text, header, events)
    if args.output == "-":
        sys.stdout.write(text.getvalue())
    else:
        await asyncio.to_thread(Path(args.output).write_text, text.getvalue(), "utf-8")
        print(
            f"exported {len(events)} events of tournament {header.tournament_id} "
            f"({summary.get('status', '?')}) to {args.output}"
        )
    return EXIT_OK


def _report(audit: TournamentAudit, source: str) -> list[str]:
    """What the audit checked, one line each, for people."""
    state = audit.state
    lines = []
    if state is not None:
        lines.append(
            f'tournament {state.tournament_id} "{printable(state.config.name)}" '
            f"({state.status}): {len(state.rounds)} rounds"
        )
    lines.append(f"source: {source}")
    lines.append(
        f"chain: {'ok' if audit.chain_ok else 'BROKEN'} ({audit.events_checked} events "
        f"chained, head {audit.head_hash[:16]}...)"
    )
    if audit.seed_revealed:
        lines.append(f"pairings: {audit.rounds_checked} rounds re-derived from the revealed seed")
    else:
        lines.append(
            "pairings: not checkable yet (the seed stays secret until the tournament finishes)"
        )
    if audit.summary_ok is not None:
        agree = "are" if audit.summary_ok else "are NOT"
        lines.append(f"standings: the exported standings and rounds {agree} the log's own")
    return lines


def _verdict(problems: list[str], head_hash: str) -> int:
    for problem in problems:
        print(f"PROBLEM: {problem}")
    if problems:
        print(f"verify: FAILED ({problems[0]})")
        return EXIT_FAILED
    print(f"verify: OK (chain head {head_hash})")
    return EXIT_OK


async def _verify_file(path: str) -> int:
    try:
        text = await asyncio.to_thread(Path(path).read_text, "utf-8")
    except UnicodeDecodeError as error:
        raise TournamentLogError(f"{path} is not UTF-8 text (byte {error.start})") from None
    log = parse_tournament_log(text.splitlines())
    header = log.header
    audit = audit_tournament_log(
        log.events, (header.head_version, header.head_hash), header.summary, header.tournament_id
    )
    problems = list(audit.problems)
    if header.events != len(log.events):
        problems.append(
            f"the header promises {header.events} events, the file has {len(log.events)}"
        )
    source = f"file {path}, exported {header.exported_at or '?'} from {header.source or '?'}"
    for line in _report(audit, source):
        print(line)
    print("signature: none (tournament logs are not signed: the file proves itself consistent)")
    return _verdict(problems, audit.head_hash)


async def _verify_server(args: argparse.Namespace) -> int:
    async with grpc.aio.insecure_channel(args.target) as channel:
        stub = pb_grpc.TournamentServiceStub(channel)
        summary, events = await fetch(stub, args.tournament_id)
        server = await stub.VerifyTournament(
            pb.VerifyTournamentRequest(tournament_id=args.tournament_id)
        )
    head = summary["log_head"]
    audit = audit_tournament_log(
        events, (int(head["version"]), str(head["hash"])), summary, args.tournament_id
    )
    problems = list(audit.problems)
    for line in _report(audit, f"read from {args.target}"):
        print(line)
    print(
        f"server VerifyTournament: chain {'ok' if server.chain_ok else 'BROKEN'} "
        f"({server.events_checked} events), pairings "
        + (f"ok ({server.rounds_checked} rounds)" if server.pairings_ok else "not verified")
        + (f": {printable(server.problem)}" if server.problem else "")
    )
    if not server.chain_ok:
        problems.append(f"the server finds its chain broken at {server.first_bad_version}")
    if audit.seed_revealed and not server.pairings_ok:
        problems.append(f"the server finds its pairings wrong: {printable(server.problem)}")
    return _verdict(problems, audit.head_hash)


async def _verify(args: argparse.Namespace) -> int:
    if looks_like_file(args.tournament_id):
        return await _verify_file(args.tournament_id)
    if names_a_path(args.tournament_id):
        raise UsageError(f"no such file: {args.tournament_id}")
    return await _verify_server(args)


def add_export_verify(commands: Any) -> None:
    """Add ``export`` and ``verify`` to ``teoti tournament``'s subcommands."""
    export = commands.add_parser(
        "export",
        help="write a tournament's log (and the server's standings) to a JSON-lines file",
        description="Write the tournament's hash-chained log and the server's summary "
        "(standings, rounds) to a file that `teoti tournament verify FILE` checks offline.",
    )
    export.add_argument("tournament_id")
    export.add_argument(
        "-o", "--output", default="-", metavar="FILE", help="file to write (default: stdout)"
    )
    export.add_argument("--target", default=DEFAULT_GATEWAY, metavar="HOST:PORT")
    export.set_defaults(run=_export)

    verify = commands.add_parser(
        "verify",
        help="check a tournament's log: on a server, or offline from an export file",
        description="Re-check a tournament from its log alone: the hash chain, the fold, "
        "every pairing re-derived from the revealed seed (once the tournament finished) "
        "and the standings. With a TOURNAMENT_ID the log is read from --target and the "
        "server's own VerifyTournament is shown too; with a FILE nothing is asked of any "
        "server. Exit 0 if every check passed, 1 if one failed.",
    )
    verify.add_argument(
        "tournament_id",
        metavar="TOURNAMENT_OR_FILE",
        help="tournament id, or a file written by teoti tournament export",
    )
    verify.add_argument("--target", default=DEFAULT_GATEWAY, metavar="HOST:PORT")
    verify.set_defaults(run=_verify)
