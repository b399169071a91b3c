"""The game log commands: ``teoti replay`` (a game rebuilt from its log and checked:
hash chain, commitments, fold, the server's signature), on a server or offline from a
file that ``teoti export`` wrote (file format: :mod:`services.engine.domain.public_log`,
docs/public-log.md).

User-facing output goes to stdout, like the rest of ``teoti``.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from services.cli.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError
from services.cli.options import DEFAULT_GATEWAY, Subparsers, add_extra_ruleset, registry
from services.engine.adapters.key_files import read_public_keys
from services.engine.adapters.log_files import looks_like_file, read_public_log
from services.engine.domain.audit import audit_log
from services.engine.domain.engine_events import GAME_CREATED, SEED_REVEALED
from services.engine.domain.errors import CorruptLog, UnknownRuleset
from services.engine.domain.event_words import engine_event_words
from services.engine.domain.game import fold
from services.engine.domain.head_signing import (
    HeadStatement,
    PublicKey,
    SignatureError,
    SignedHead,
    key_entry,
)
from services.engine.domain.leaving import SEAT_CLAIMED_FOR_BOT, SEAT_RESIGNED
from services.engine.domain.public_log import (
    LogHeader,
    PublicLog,
    PublicLogError,
    audit_public_log,
    check_signatures,
    write_public_log,
)
from services.engine.domain.records import canonical_json
from services.engine.domain.ruleset import DomainEvent, RuleViolation
from services.engine.domain.rulesets import RulesetRegistry
from services.safe_text import printable


def describe(rulesets: RulesetRegistry, ruleset_name: str, event: DomainEvent) -> tuple[bool, str]:
    """(is milestone, one-line description) of ``event`` of a ``ruleset_name`` game: the
    engine's own events in :mod:`services.engine.domain.event_words`' words, the others
    by the ruleset in ``rulesets`` (the event's type alone when it is not there)."""
    engine_words = engine_event_words(ruleset_name, event)
    if engine_words is not None:
        milestone = event.type in (GAME_CREATED, SEED_REVEALED, SEAT_RESIGNED, SEAT_CLAIMED_FOR_BOT)
        return milestone, engine_words
    try:
        ruleset = rulesets.get(ruleset_name)
    except UnknownRuleset:
        return False, event.type
    return bool(ruleset.is_milestone(event)), ruleset.describe_event(event)


EXPORT_SUFFIXES = (".jsonl", ".json", ".ndjson", ".txt")
"""File endings ``teoti replay`` takes for a file, never a game id (ids have no path)."""


def names_a_path(argument: str) -> bool:
    """True if ``teoti replay ARGUMENT`` can only mean a file: a path separator (never
    in a game id, services.engine.adapters.keys) or an export's file ending."""
    return "/" in argument or os.sep in argument or argument.endswith(EXPORT_SUFFIXES)


async def _replay(args: argparse.Namespace) -> int:
    from services.client import TeotiClient

    rulesets = registry(args.extra_ruleset)
    if looks_like_file(args.game_id):
        try:
            return await _replay_file(args, rulesets)
        except UnicodeDecodeError as error:  # a picture, an archive: not a JSON-lines text
            byte = error.object[error.start]
            raise PublicLogError(
                f"{args.game_id} is not UTF-8 text (byte {error.start} is {byte:#04x})"
            ) from None
    if names_a_path(args.game_id):
        raise UsageError(f"no such file: {args.game_id}")
    target = args.target or DEFAULT_GATEWAY
    if args.step:
        from services.tui import launch

        launch.log_to_file(Path(args.log_file), args.log_level)
        code: int = await launch.replay(target, args.game_id, rulesets)
        return code
    async with TeotiClient(target) as client:
        stored = await client.get_game(args.game_id)
        # Only up to the version GetGame saw: a running game may have moved on since.
        events = (await client.events(args.game_id))[: stored.version]
        server_report = await client.verify(args.game_id) if args.verify else None
    ruleset_name = str(events[0].payload.get("ruleset", "")) if events else ""
    print(f"game {args.game_id}: {len(events)} events, ruleset {ruleset_name}")
    for event in events:
        milestone, text = describe(rulesets, ruleset_name, event.to_domain())
        if milestone:
            print(f"  v{event.version:>5}  {printable(text)}")
    if not stored.finished:
        # Every reader gets the events as stored, hidden information only as salted
        # commitments: the chain and every reveal so far check from them alone.
        print("game still running: chain and commitments checked; reveals and seed at the end")
    # The client re-checks everything itself: it trusts neither the server's verdict nor
    # its projection. The head is GetGame's, so events missing at the end are caught.
    report = audit_log(args.game_id, events, rulesets, (stored.version, stored.head_hash))
    problems = list(report.problems)
    try:
        snapshot = fold(args.game_id, events, rulesets)
    except (CorruptLog, UnknownRuleset, KeyError, ValueError, TypeError, AssertionError):
        pass  # already reported by the audit
    else:
        rebuilt = canonical_json(snapshot.ruleset.view(snapshot.state, None))
        if rebuilt != canonical_json(stored.state):
            problems.append("rebuilt state differs from the stored projection")
        result = snapshot.result()  # forfeited seats ranked last
        if result is not None:
            print(f"final scores {list(result.scores)}, ranking {list(result.ranking)}")
    print(f"commitments: {report.commitments}, opened and verified: {report.reveals_verified}")
    if report.seed_revealed:
        print(f"seed: revealed, {'verified' if report.seed_verified else 'NOT verified'}")
    if server_report is not None and not server_report.ok:
        problems += [f"server VerifyGame: {p}" for p in server_report.problems]
    signed = ""
    if server_report is not None and not problems:
        signed, problem = await _server_signature(args, events, server_report)
        problems += [problem] if problem else []
    for problem in problems:
        print(f"PROBLEM: {problem}")
    if args.verify:
        if problems:
            bad = report.first_bad_version or (
                server_report.first_bad_version if server_report else 0
            )
            print(f"verify: FAILED ({f'first bad version: {bad}' if bad else problems[0]})")
            return EXIT_FAILED
        print(signed)
        print(f"verify: OK (chain head {report.head_hash})")
    return EXIT_OK


async def _server_signature(args: argparse.Namespace, events: Any, verdict: Any) -> tuple[str, str]:
    """(the ``signature:`` line, a problem or "") of VerifyGame's signed head: it must
    verify with a key the server publishes and sign the head of the events this client
    read. Without one (a gateway without a signing key): a problem unless
    ``--unsigned-ok``."""
    from services.engine.domain.head_signing import SignedHead, verify_signed_head

    if verdict.signed_head is None:
        if args.unsigned_ok:
            return "signature: NONE (the server signs nothing; --unsigned-ok)", ""
        return "", "signature: the server signed no head (it has no signing key; --unsigned-ok)"
    if not args.target:
        args.target = DEFAULT_GATEWAY
    keys, source = await verification_keys(args)
    head = verdict.signed_head
    try:
        statement = verify_signed_head(
            SignedHead(head.statement_json, head.signature, head.key_id), keys
        )
    except SignatureError as error:
        return "", f"signature: {error}"
    logged = events[statement.version - 1].hash if 0 < statement.version <= len(events) else ""
    if (statement.game_id, statement.version, statement.head_hash) != (
        args.game_id,
        verdict.events,
        verdict.head_hash,
    ) or logged != statement.head_hash:
        return "", "signature: the signed head is not the head of the log that was read"
    return signer_line(statement, keys, source), ""


async def export_game(client: Any, game_id: str, target: str) -> tuple[LogHeader, list[Any]]:
    """(header, events) of a game's public log as ``teoti export`` writes it, with the
    server's signature over its head (GetSignedHead); from a server that signs nothing,
    an unsigned export and a warning on stderr saying so. ``client``: a TeotiClient."""
    signed: SignedHead | None = None
    try:
        reply = await client.signed_head(game_id)
        signed = SignedHead(reply.statement_json, reply.signature, reply.key_id)
    except RuleViolation as refused:
        if refused.rule != "signing_key_missing":
            raise
        print(
            f"warning: {target} signs nothing ({refused.message}): this export is "
            "UNSIGNED, and replay --verify refuses it without --unsigned-ok",
            file=sys.stderr,
        )
    stored = await client.get_game(game_id)
    if signed is not None:
        # Export the signed head: the game may have moved on since it was signed.
        version = HeadStatement.parse(signed.statement).version
        if stored.version != version:
            stored = await client.get_game_at(game_id, version)
    # The game may move on meanwhile: keep the events up to the head GetGame gave.
    events = [e for e in await client.events(game_id) if e.version <= stored.version]
    header = LogHeader(
        game_id=game_id,
        ruleset=stored.ruleset,
        finished=stored.finished,
        head_version=stored.version,
        head_hash=stored.head_hash,
        events=len(events),
        exported_at=datetime.now(UTC).isoformat(),
        source=target,
        state=stored.state,
        signatures=(signed,) if signed is not None else (),
    )
    return header, events


async def _export(args: argparse.Namespace) -> int:
    """Write a game's public log (what a spectator may read) to a file or stdout
    (:func:`export_game`)."""
    from services.client import TeotiClient

    target = args.target or DEFAULT_GATEWAY
    async with TeotiClient(target) as client:
        header, events = await export_game(client, args.game_id, target)
    text = io.StringIO()
    write_public_log(text, header, events)
    if args.output == "-":
        sys.stdout.write(text.getvalue())
    else:
        await asyncio.to_thread(Path(args.output).write_text, text.getvalue(), "utf-8")
        print(f"exported {len(events)} events of game {args.game_id} to {args.output}")
    return EXIT_OK


async def _replay_file(args: argparse.Namespace, rulesets: RulesetRegistry) -> int:
    """``teoti replay FILE [--verify | --step]``: an exported log, no server. Exit codes
    as ``replay`` on a server: 0 OK, 1 a ``--verify`` check failed, 2 cannot step."""
    public = await asyncio.to_thread(read_public_log, Path(args.game_id))
    game_id = public.header.game_id
    events = list(public.events)
    if args.step:
        from services.tui import launch

        launch.log_to_file(Path(args.log_file), args.log_level)
        try:
            return await launch.replay_log(game_id, events, rulesets)
        except (CorruptLog, UnknownRuleset) as error:
            print(f"error: cannot step through {args.game_id}: {error}", file=sys.stderr)
            print(f"(teoti replay {args.game_id} --verify names what is wrong)", file=sys.stderr)
            return EXIT_USAGE
    print(
        f"game {game_id}: {len(events)} events, ruleset {public.header.ruleset} "
        f"(file {args.game_id}, exported {public.header.exported_at or '?'})"
    )
    for event in events:
        milestone, text = describe(rulesets, public.header.ruleset, event.to_domain())
        if milestone:
            print(f"  v{event.version:>5}  {text}")
    if not public.header.finished:
        print("game still running when exported: chain and commitments checked; no seed yet")
    report = audit_public_log(public, rulesets)
    print(f"commitments: {report.commitments}, opened and verified: {report.reveals_verified}")
    if report.ok:
        result = fold(game_id, events, rulesets).result()  # forfeits ranked last
        if result is not None:
            print(f"final scores {list(result.scores)}, ranking {list(result.ranking)}")
    if report.seed_revealed:
        print(f"seed: revealed, {'verified' if report.seed_verified else 'NOT verified'}")
    for problem in report.problems:
        print(f"PROBLEM: {problem}")
    if args.verify:
        if not report.ok:
            bad = report.first_bad_version
            # A header's own broken promise has no version: name the promise instead.
            print(f"verify: FAILED ({f'first bad version: {bad}' if bad else report.problems[0]})")
            return EXIT_FAILED
        return await _verify_signatures(args, public, report.head_hash)
    return EXIT_OK


async def verification_keys(args: argparse.Namespace) -> tuple[list[PublicKey], str]:
    """The public keys ``replay --verify`` trusts and where they came from: every
    ``--public-key`` file (PEM public key or keys document), else the keys ``--target``
    publishes (ListSigningKeys), else none. Raises SigningKeyError for a bad key file."""
    if args.public_key:
        keys = [key for path in args.public_key for key in read_public_keys(Path(path))]
        return keys, ", ".join(args.public_key)
    if not args.target:
        return [], ""
    from services.client import TeotiClient

    async with TeotiClient(args.target) as client:
        listed = await client.signing_keys()
    keys = [PublicKey.from_json(key_entry(k)) for k in listed]
    return keys, f"{args.target} (ListSigningKeys)"


def signer_line(statement: HeadStatement, keys: list[PublicKey], source: str) -> str:
    """``signature: OK ...``: whose key signed what, when."""
    key = next(k for k in keys if k.key_id == statement.key_id)
    kind = "current" if key.current else "retired" if key.valid_until else "given"
    return (
        f"signature: OK, key {statement.key_id} ({kind} key from {source}) signed game "
        f"{statement.game_id} at version {statement.version}, head {statement.head_hash[:16]}..., "
        f"finished={str(statement.finished).lower()}, at {statement.signed_at}"
    )


async def _verify_signatures(args: argparse.Namespace, public: PublicLog, head: str) -> int:
    """The signature part of ``replay FILE --verify`` once the log checked out: exit 0
    when every signature verifies with a known key and signs this header (or, with
    ``--unsigned-ok``, an export with none), 1 when one fails or the export is unsigned,
    2 when no public key was given to check one with."""
    if not public.header.signatures:
        if args.unsigned_ok:
            print(
                "signature: NONE (unsigned export): the chain and fold check, but nothing "
                "proves the service wrote this file"
            )
            print(f"verify: OK (chain head {head}, offline, UNSIGNED)")
            return EXIT_OK
        print(
            "verify: FAILED (unsigned: the export carries no signature of the service, so "
            "anyone could have written it; --unsigned-ok checks an old export's chain alone)"
        )
        return EXIT_FAILED
    keys, source = await verification_keys(args)
    if not keys:
        ids = ", ".join(sorted({s.key_id for s in public.header.signatures}))
        print(
            f"verify: cannot check the signature of key {ids}: give the service's public "
            "key with --public-key FILE (its /.well-known/teoti-signing-keys.json, or a PEM) "
            "or ask it with --target HOST:PORT"
        )
        return EXIT_USAGE
    check = check_signatures(public.header, keys)
    for problem in check.problems:
        print(f"PROBLEM: {problem}")
    if not check.ok:
        print(f"verify: FAILED ({check.problems[0]})")
        return EXIT_FAILED
    for statement in check.signers:
        print(signer_line(statement, keys, source))
    print(f"verify: OK (chain head {head}, offline, signed by {check.signers[0].key_id})")
    return EXIT_OK


def add_replay(sub: Subparsers) -> None:
    """``teoti replay``: a game rebuilt from its log (a server's, or an export file)."""
    replay = sub.add_parser("replay", help="rebuild a game from its log and summarise it")
    replay.add_argument(
        "game_id", metavar="GAME_OR_FILE", help="game id, or a file written by teoti export"
    )
    replay.add_argument("--target", metavar="HOST:PORT", help="gateway (default 127.0.0.1:50051)")
    replay.add_argument(
        "--verify",
        action="store_true",
        help="exit 1 if the hash chain, fold, seed or rebuilt state do not check out",
    )
    replay.add_argument(
        "--public-key",
        action="append",
        metavar="FILE",
        help="with --verify: the service's public key(s) an export's signature must verify "
        "with (its /.well-known/teoti-signing-keys.json, or a PEM public key); repeatable. "
        "Without it, the keys --target publishes (ListSigningKeys)",
    )
    replay.add_argument(
        "--unsigned-ok",
        action="store_true",
        help="with --verify: accept a log without the service's signature (an export from "
        "before signatures, or from a gateway without a signing key), checking its chain alone",
    )
    replay.add_argument(
        "--step", action="store_true", help="step through the game on the terminal table"
    )
    replay.add_argument("--log-file", default=".teoti/tui.log", help="log file with --step")
    add_extra_ruleset(replay)
    replay.set_defaults(run=_replay)


def add_export(sub: Subparsers) -> None:
    """``teoti export``: a game's public log, signed, to a file or stdout."""
    export = sub.add_parser("export", help="write a game's public log to a JSON-lines file")
    export.add_argument("game_id")
    export.add_argument("--target", metavar="HOST:PORT", help="gateway (default 127.0.0.1:50051)")
    export.add_argument(
        "-o", "--output", default="-", metavar="FILE", help="file to write (default: stdout)"
    )
    add_extra_ruleset(export)
    export.set_defaults(run=_export)
