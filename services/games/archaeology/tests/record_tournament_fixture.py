"""Record a fixture log of a tournament: a real bot Swiss played by ``teoti serve``'s
parts (engine, bot worker, director) on an embedded Redis, its stream as the store
holds it.

Usage (from the repository root)::

    .venv/bin/python -m services.games.archaeology.tests.record_tournament_fixture

Writes ``tournament_logs/<name>.jsonl.gz`` next to this file (one stored event per line,
as :func:`services.engine.domain.event_json.event_to_json` writes game fixtures) and
``<name>.expected.json`` (version, head hash, status, standings, the pairing replay
result). As with game fixtures, THE COMMITTED FILES ARE THE CONTRACT: never regenerate
one; record a new name to capture a new format.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import sys
from pathlib import Path
from typing import Any

import structlog

ROOT = Path(__file__).resolve().parents[4]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from services.app import StoreSettings, all_in_one  # noqa: E402
from services.embedded_redis import EmbeddedRedis  # noqa: E402
from services.engine.domain.event_json import event_to_json  # noqa: E402
from services.tournament.aggregate import fold, replay_pairings  # noqa: E402
from services.tournament.config import TournamentConfig  # noqa: E402
from services.tournament.model import Format  # noqa: E402
from services.tournament.repository import stream_id  # noqa: E402

FOLDER = Path(__file__).resolve().parent / "tournament_logs"
NAME = "archaeology_swiss_5_bots"
ACCOUNTS_NAME = "archaeology_swiss_accounts"
"""A second recording: two player accounts enter as themselves (PlayerRegistered v2)
beside three bots, and withdraw once round 1 is paired (a bot plays their seats)."""
ORGANISER = "fixture-organiser-token-0123456789abcdef"


async def record(accounts: bool = False) -> tuple[list[Any], dict[str, Any]]:
    """Play the tournament to its end; returns (stored events, expected state). With
    ``accounts``, the :data:`ACCOUNTS_NAME` recording."""
    config = TournamentConfig(
        "fixture cup", "archaeology", {"ruin": "pyramid"}, Format.SWISS, 2, 2, rounds=2, rated=True
    )
    with EmbeddedRedis() as redis:
        async with all_in_one(redis.url, store=StoreSettings("fixture")) as stack:
            assert stack.tournaments is not None
            state, _ = await stack.tournaments.create(config, organiser_token=ORGANISER)
            tid = state.tournament_id
            if accounts:
                assert stack.players is not None
                for name in ("Ann", "Bob"):
                    player = (await stack.players.register(name))[0]
                    await stack.tournaments.register_account(tid, player.player_id, name)
                for n in range(3):
                    await stack.tournaments.register(tid, f"bot{n}", "", True, ORGANISER)
                await stack.tournaments.start(tid, ORGANISER)
                for name in ("Ann", "Bob"):  # a bot plays their seats to the end
                    await stack.tournaments.withdraw(tid, name, "", ORGANISER)
            else:
                for n in range(6):
                    await stack.tournaments.register(tid, f"bot{n}", "", True, ORGANISER)
                # One leaves before the start: an odd field, so a bye each round.
                await stack.tournaments.withdraw(tid, "bot5", "", ORGANISER)
                await stack.tournaments.start(tid, ORGANISER)
            for _ in range(1200):
                state = await stack.tournaments.get(tid)
                if state.status == "finished":
                    break
                await asyncio.sleep(0.1)
            else:
                raise RuntimeError("the tournament did not finish in 120 s")
            events = await stack.store.read(stream_id(tid))
    folded = fold(events)
    replay = replay_pairings(events)
    expected = {
        "tournament_id": tid,
        "events": len(events),
        "version": events[-1].version,
        "head_hash": events[-1].hash,
        "status": folded.status,
        "rounds": len(folded.rounds),
        "pairings_checked": replay.rounds_checked,
        "standings": [
            {"player": row.player, "rank": row.rank, "points": row.points}
            for row in folded.standings()
        ],
    }
    return events, expected


def main() -> int:
    """Record each fixture that does not exist yet (never overwritten)."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    for name, accounts in ((NAME, False), (ACCOUNTS_NAME, True)):
        log_path = FOLDER / f"{name}.jsonl.gz"
        if log_path.exists():
            sys.stdout.write(f"kept {log_path.relative_to(ROOT)} (never regenerated)\n")
            continue
        events, expected = asyncio.run(record(accounts))
        FOLDER.mkdir(parents=True, exist_ok=True)
        lines = "".join(json.dumps(event_to_json(e), sort_keys=True) + "\n" for e in events)
        with (
            log_path.open("wb") as raw,
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as out,
        ):
            out.write(lines.encode("utf-8"))
        (FOLDER / f"{name}.expected.json").write_text(
            json.dumps(expected, indent=1, sort_keys=True) + "\n"
        )
        sys.stdout.write(f"wrote {log_path.relative_to(ROOT)}: {len(events)} events\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
