"""``teoti export`` and ``teoti replay FILE``: a game's public log as a file, audited and
replayed offline (file format: :mod:`services.engine.public_log`, docs/public-log.md).

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

from services.engine.errors import CorruptLog, UnknownRuleset
from services.engine.game import fold
from services.engine.public_log import (
    LogHeader,
    audit_public_log,
    read_public_log,
    write_public_log,
)
from services.engine.ruleset import DomainEvent
from services.engine.rulesets import RulesetRegistry

Describer = Callable[[RulesetRegistry, str, DomainEvent], tuple[bool, str]]
"""(registry, ruleset name, event) -> (is milestone, one-line description)."""


async def export_game(args: argparse.Namespace) -> int:
    """Write a game's public log (what a spectator may read) to a file or stdout."""
    from services.client import TeotiClient

    target = args.target or "127.0.0.1:50051"
    async with TeotiClient(target) as client:
        stored = await client.get_game(args.game_id)
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
            print(f"verify: FAILED (first bad version: {report.first_bad_version})")
            return 1
        print(f"verify: OK (chain head {report.head_hash}, offline)")
    return 0
