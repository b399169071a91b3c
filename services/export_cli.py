"""``teoti export`` and ``teoti replay FILE``: a game's public log as a file, audited and
replayed offline (file format: :mod:`services.engine.domain.public_log`, docs/public-log.md).

User-facing output goes to stdout, like the rest of ``teoti``.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from services.engine.adapters.key_files import read_public_keys
from services.engine.adapters.log_files import read_public_log
from services.engine.domain.errors import CorruptLog, UnknownRuleset
from services.engine.domain.game import fold
from services.engine.domain.head_signing import (
    HeadStatement,
    PublicKey,
    SignedHead,
    key_entry,
)
from services.engine.domain.public_log import (
    LogHeader,
    PublicLog,
    audit_public_log,
    check_signatures,
    write_public_log,
)
from services.engine.domain.ruleset import DomainEvent, RuleViolation
from services.engine.domain.rulesets import RulesetRegistry

Describer = Callable[[RulesetRegistry, str, DomainEvent], tuple[bool, str]]
"""(registry, ruleset name, event) -> (is milestone, one-line description)."""


async def export_game(args: argparse.Namespace) -> int:
    """Write a game's public log (what a spectator may read) to a file or stdout, with
    the server's signature over its head (GetSignedHead); from a server that signs
    nothing, an unsigned export and a warning on stderr saying so."""
    from services.client import TeotiClient

    target = args.target or "127.0.0.1:50051"
    async with TeotiClient(target) as client:
        signed: SignedHead | None = None
        try:
            reply = await client.signed_head(args.game_id)
            signed = SignedHead(reply.statement_json, reply.signature, reply.key_id)
        except RuleViolation as refused:
            if refused.rule != "signing_key_missing":
                raise
            print(
                f"warning: {target} signs nothing ({refused.message}): this export is "
                "UNSIGNED, and replay --verify refuses it without --unsigned-ok",
                file=sys.stderr,
            )
        stored = await client.get_game(args.game_id)
        if signed is not None:
            # Export the signed head: the game may have moved on since it was signed.
            version = HeadStatement.parse(signed.statement).version
            if stored.version != version:
                stored = await client.get_game_at(args.game_id, version)
        # The game may move on meanwhile: keep the events up to the head GetGame gave.
        events = [e for e in await client.events(args.game_id) if e.version <= stored.version]
    header = LogHeader(
        game_id=args.game_id,
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
    text = io.StringIO()
    write_public_log(text, header, events)
    if args.output == "-":
        sys.stdout.write(text.getvalue())
    else:
        await asyncio.to_thread(Path(args.output).write_text, text.getvalue(), "utf-8")
        print(f"exported {len(events)} events of game {args.game_id} to {args.output}")
    return 0


async def replay_file(
    args: argparse.Namespace, registry: RulesetRegistry, describe: Describer
) -> int:
    """``teoti replay FILE [--verify | --step]``: an exported log, no server. Exit codes
    as ``replay`` on a server: 0 OK, 1 a ``--verify`` check failed, 2 cannot step."""
    public = await asyncio.to_thread(read_public_log, Path(args.game_id))
    game_id = public.header.game_id
    events = list(public.events)
    if args.step:
        from services.tui import launch

        launch.log_to_file(Path(args.log_file), args.log_level)
        try:
            return await launch.replay_log(game_id, events, registry)
        except (CorruptLog, UnknownRuleset) as error:
            print(f"error: cannot step through {args.game_id}: {error}", file=sys.stderr)
            print(f"(teoti replay {args.game_id} --verify names what is wrong)", file=sys.stderr)
            return 2
    print(
        f"game {game_id}: {len(events)} events, ruleset {public.header.ruleset} "
        f"(file {args.game_id}, exported {public.header.exported_at or '?'})"
    )
    for event in events:
        milestone, text = describe(registry, public.header.ruleset, event.to_domain())
        if milestone:
            print(f"  v{event.version:>5}  {text}")
    if not public.header.finished:
        print("game still running when exported: chain and commitments checked; no seed yet")
    report = audit_public_log(public, registry)
    print(f"commitments: {report.commitments}, opened and verified: {report.reveals_verified}")
    if report.ok:
        result = fold(game_id, events, registry).result()  # forfeits ranked last
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
            return 1
        return await _verify_signatures(args, public, report.head_hash)
    return 0


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
            return 0
        print(
            "verify: FAILED (unsigned: the export carries no signature of the service, so "
            "anyone could have written it; --unsigned-ok checks an old export's chain alone)"
        )
        return 1
    keys, source = await verification_keys(args)
    if not keys:
        ids = ", ".join(sorted({s.key_id for s in public.header.signatures}))
        print(
            f"verify: cannot check the signature of key {ids}: give the service's public "
            "key with --public-key FILE (its /.well-known/teoti-signing-keys.json, or a PEM) "
            "or ask it with --target HOST:PORT"
        )
        return 2
    check = check_signatures(public.header, keys)
    for problem in check.problems:
        print(f"PROBLEM: {problem}")
    if not check.ok:
        print(f"verify: FAILED ({check.problems[0]})")
        return 1
    for statement in check.signers:
        print(signer_line(statement, keys, source))
    print(f"verify: OK (chain head {head}, offline, signed by {check.signers[0].key_id})")
    return 0
