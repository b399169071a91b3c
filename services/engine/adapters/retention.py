"""Retention of finished games: after N days a finished log leaves the hot keys.

``teoti archive --older-than-days N`` (a Kubernetes CronJob in production, as the engine's
Redis user) walks the games index, oldest first, and for every game that has ended and
whose last event is older than N days, moves its log into one compressed archive key
(:meth:`RedisEventStore.archive`, format in :mod:`services.engine.adapters.archive`). The
stream, secret seed and snapshot go, the command ids move into the archive (a retried
command still gets its original reply), and the sealed secrets go when the log's reveals
rebuild them exactly; the head {version, hash}, the token bindings and the games index
entry stay, so ListGames still lists it, and every read (GetGame, GetGameAt, ListEvents,
VerifyGame, ``teoti replay --verify``) reads the archive transparently and checks the
same hash chain and seed commitment. An archived game grows no key back (the store saves
no snapshot for it), and a pass deletes what older versions left beside an archive (a
snapshot written back by a read, the sealed secrets).

A game is archived only if its whole log audits clean first (chain, fold, revealed
seed); one that does not is reported and left alone for a person to look at. The games
index is ordered by creation time, so the walk stops at the first game created after
the cutoff (a game cannot have ended before it began).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

import structlog

from services.engine.adapters.redis_store import RedisEventStore
from services.engine.domain.audit import audit_log
from services.engine.domain.game import fold
from services.engine.domain.records import GameIndexEntry
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.store_errors import VersionConflict

log = structlog.get_logger(__name__)

PAGE = 200
"""Games index entries read per step of the walk."""


@dataclass
class RetentionReport:
    """What one retention pass did (game ids per outcome)."""

    archived: list[str] = field(default_factory=list)
    running: int = 0
    recent: int = 0
    already_archived: int = 0
    tidied: int = 0
    """Archived games whose leftover keys (snapshot, sealed secrets) this pass deleted."""
    logged_bytes: int = 0
    """Bytes of the logs this pass archived, as they were read (stream fields and command
    ids, without Redis's own overhead)."""
    archived_bytes: int = 0
    """Bytes of the archive blobs this pass wrote for them."""
    failed: dict[str, str] = field(default_factory=dict)
    """Game id -> why it was left in place (audit problems, a concurrent append)."""


async def archive_finished(
    store: RedisEventStore,
    registry: RulesetRegistry,
    older_than: timedelta,
    now: datetime,
    max_games: int = 0,
) -> RetentionReport:
    """Archive every finished game whose last event is older than ``now - older_than``.

    ``now`` is an aware datetime; ``max_games`` > 0 caps the games archived in one pass.
    Redis errors propagate (a pass can simply be run again: archiving is idempotent).
    """
    cutoff = now - older_than
    cutoff_ms = int(cutoff.timestamp() * 1000)
    report = RetentionReport()
    after: GameIndexEntry | None = None
    while True:
        page = await store.list_games(after, PAGE)
        for entry in page:
            if entry.created_ms > cutoff_ms:
                return report
            if max_games > 0 and len(report.archived) >= max_games:
                return report
            await _consider(store, registry, entry.game_id, cutoff, report)
        if len(page) < PAGE:
            return report
        after = page[-1]


async def _consider(
    store: RedisEventStore,
    registry: RulesetRegistry,
    game_id: str,
    cutoff: datetime,
    report: RetentionReport,
) -> None:
    if await store.is_archived(game_id):
        report.already_archived += 1
        if await store.tidy_archived(game_id):
            report.tidied += 1
        return
    events = await store.read(game_id)
    if not events:
        return
    try:
        snapshot = fold(game_id, events, registry)
    except Exception as exc:  # a log that does not fold stays for a person to see
        report.failed[game_id] = f"does not fold: {exc!r}"
        return
    if not snapshot.is_terminal():
        report.running += 1
        return
    if datetime.fromisoformat(events[-1].metadata.recorded_at) > cutoff:
        report.recent += 1
        return
    audit = audit_log(game_id, events, registry, await store.head(game_id))
    if not audit.ok:
        report.failed[game_id] = "; ".join(audit.problems)
        return
    try:
        moved = await store.archive(game_id)
    except (VersionConflict, ValueError) as exc:
        report.failed[game_id] = str(exc)
        return
    if moved.version:
        report.archived.append(game_id)
        report.logged_bytes += moved.logged_bytes
        report.archived_bytes += moved.blob_bytes
        log.info(
            "game_archived",
            game_id=game_id,
            version=moved.version,
            logged_bytes=moved.logged_bytes,
            blob_bytes=moved.blob_bytes,
        )
