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
import os
import re
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import grpc

from services.cli.errors import EXIT_FAILED, EXIT_OK, UsageError
from services.cli.logs import export_game, names_a_path
from services.cli.options import DEFAULT_GATEWAY, add_extra_ruleset, registry
from services.engine.adapters.key_files import read_public_keys
from services.engine.adapters.log_files import looks_like_file, read_public_log
from services.engine.domain.public_log import (
    PublicLog,
    PublicLogError,
    check_signatures,
    write_public_log,
)
from services.engine.domain.records import EventMetadata, StoredEvent
from services.rpc.generated import tournament_service_pb2 as pb
from services.rpc.generated import tournament_service_pb2_grpc as pb_grpc
from services.safe_text import printable
from services.tournament.aggregate import TournamentState
from services.tournament.log_file import (
    TournamentAudit,
    TournamentLogError,
    TournamentLogHeader,
    audit_tournament_log,
    parse_tournament_log,
    write_tournament_log,
)
from services.tournament.table_audit import check_tables


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


SAFE_GAME_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")
"""A game id ``export --games`` writes a file for (the server's ids are hex)."""


def _game_ids(summary: dict[str, Any]) -> list[str]:
    """Every table's game id in the summary, round by round."""
    return [
        str(table["game_id"])
        for round_ in summary.get("rounds", [])
        for table in round_.get("tables", [])
        if table.get("game_id")
    ]


async def _export_games(args: argparse.Namespace, game_ids: list[str]) -> dict[str, str]:
    """Write each game's signed public log to ``--games`` DIR (as ``teoti export``);
    returns game id -> its path relative to the tournament file's folder."""
    from services.client import TeotiClient

    folder = Path(args.games)
    await asyncio.to_thread(folder.mkdir, parents=True, exist_ok=True)
    base = Path(args.output).parent if args.output != "-" else Path()
    written: dict[str, str] = {}
    async with TeotiClient(args.target) as client:
        for game_id in game_ids:
            if not SAFE_GAME_ID.fullmatch(game_id):  # never a path from the server
                print(f"warning: skipped the game {game_id!r}: not a file name", file=sys.stderr)
                continue
            header, events = await export_game(client, game_id, args.target)
            text = io.StringIO()
            write_public_log(text, header, events)
            path = folder / f"{game_id}.jsonl"
            await asyncio.to_thread(path.write_text, text.getvalue(), "utf-8")
            written[game_id] = await asyncio.to_thread(os.path.relpath, path, base)
    return written


async def _export(args: argparse.Namespace) -> int:
    async with grpc.aio.insecure_channel(args.target) as channel:
        summary, events = await fetch(pb_grpc.TournamentServiceStub(channel), args.tournament_id)
    games = await _export_games(args, _game_ids(summary)) if args.games else {}
    head = summary["log_head"]
    header = TournamentLogHeader(
        tournament_id=str(summary["tournament_id"]),
        head_version=int(head["version"]),
        head_hash=str(head["hash"]),
        events=len(events),
        summary=summary,
        exported_at=datetime.now(UTC).isoformat(),
        source=args.target,
        games=games,
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
        if games:
            print(f"exported the logs of its {len(games)} games to {args.games}")
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


async def _verify_file(args: argparse.Namespace) -> int:
    path = args.tournament_id
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
    if header.games and audit.state is not None:
        problems += await _verify_games(args, header.games, audit.state)
    elif not header.games:
        print("games: not in the export (teoti tournament export --games DIR adds them)")
    return _verdict(problems, audit.head_hash)


async def _verify_games(
    args: argparse.Namespace, games: Mapping[str, str], state: TournamentState
) -> list[str]:
    """Each table's recorded places against its game's exported log (read beside the
    tournament file), and with ``--public-key`` each game's signature; returns the
    problems, printing what was checked."""
    base = Path(args.tournament_id).parent
    logs: dict[str, PublicLog] = {}
    unread: list[str] = []
    for game_id, relative in games.items():
        where = Path(relative)
        if where.is_absolute() or ".." in where.parts:  # a file may name only its folder's
            unread.append(f"game {game_id}: {relative!r} is outside the export's folder")
            continue
        try:
            logs[game_id] = await asyncio.to_thread(read_public_log, base / where)
        except (OSError, UnicodeDecodeError, PublicLogError) as error:
            unread.append(f"game {game_id}: cannot read {relative}: {error}")
    check = check_tables(state, logs, registry(args.extra_ruleset))
    print(
        f"games: {check.confirmed} finished tables' places re-derived from their games' logs"
        + (f", {check.playing} still playing" if check.playing else "")
    )
    problems = unread + list(check.problems)
    if not args.public_key:
        print("games' signatures: not checked (give the service's keys with --public-key FILE)")
        return problems
    keys = [key for path in args.public_key for key in read_public_keys(Path(path))]
    for game_id, log in logs.items():
        signed = check_signatures(log.header, keys)
        if not signed.ok:
            problems.append(
                f"game {game_id}: "
                + (signed.problems[0] if signed.problems else "unsigned (no service signature)")
            )
    if len(problems) == len(unread) + len(check.problems):
        print(f"games' signatures: all {len(logs)} verify with the given keys")
    return problems


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
        return await _verify_file(args)
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
    export.add_argument(
        "--games",
        metavar="DIR",
        help="also write each table's game log (signed, as teoti export) to DIR; verify "
        "then re-derives every table's places from them",
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
        "server, and a file exported with --games also has every table's places "
        "re-derived from its game's log (and, with --public-key, each game's signature "
        "checked). Exit 0 if every check passed, 1 if one failed.",
    )
    verify.add_argument(
        "tournament_id",
        metavar="TOURNAMENT_OR_FILE",
        help="tournament id, or a file written by teoti tournament export",
    )
    verify.add_argument(
        "--public-key",
        action="append",
        metavar="FILE",
        help="with a FILE exported with --games: the service's public key(s) each game's "
        "signature must verify with (its /.well-known/teoti-signing-keys.json, or a PEM)",
    )
    verify.add_argument("--target", default=DEFAULT_GATEWAY, metavar="HOST:PORT")
    add_extra_ruleset(verify)
    verify.set_defaults(run=_verify)
