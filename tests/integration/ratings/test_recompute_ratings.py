"""An auditor recomputes every rating from public logs alone (issue 32, docs/ratings.md
"Recomputing a rating"): the rated games of a ruleset, replayed in the documented order
through update_ratings, give exactly the service's ratings; unrated games and other
rulesets rate nothing; a tampered log fails its audit, rates nothing, and the
comparison names the players it moved."""

from __future__ import annotations

from dataclasses import replace

from services.engine.adapters import RedisEventStore
from services.engine.domain.public_log import LogHeader, PublicLog
from services.engine.domain.records import StoredEvent
from services.engine.domain.rulesets import RulesetRegistry
from services.ratings.audit import compare, recompute
from services.tournament.ratings_book import account_identity
from tests.integration.ratings.helpers import ANN, BOB, CAT, Rig, play_out, player_seats, rig


async def exported(store: RedisEventStore, game_id: str) -> PublicLog:
    """The game's public log as ``teoti export`` writes it (nim without ``lucky`` hides
    nothing, so the stored events are the spectator's)."""
    events = tuple(await store.read(game_id))
    last = events[-1]
    header = LogHeader(game_id, "nim", True, last.version, last.hash, len(events))
    return PublicLog(header, events)


async def play_rated(parts: Rig, players: list[str], winner: int, rated: bool = True) -> str:
    game_id = (
        await parts.engine.create_game("nim", player_seats(players), {}, rated=rated)
    ).game_id
    await play_out(parts.engine, parts.reader, game_id, winner)
    await parts.rater.games_finished([game_id])
    return game_id


async def test_the_logs_give_the_service_s_ratings_and_a_tampered_one_is_caught(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    parts = rig(redis_store, registry)
    games = [
        await play_rated(parts, [ANN, BOB], 0),
        await play_rated(parts, [BOB, CAT], 1),
        await play_rated(parts, [CAT, ANN, BOB], 2),
        await play_rated(parts, [ANN, CAT], 0),
    ]
    unrated = await play_rated(parts, [ANN, BOB], 1, rated=False)
    logs = [await exported(redis_store, g) for g in [*reversed(games), unrated]]
    service = await parts.book.ratings("nim")
    assert set(service) == {account_identity(p) for p in (ANN, BOB, CAT)}

    again = recompute(logs, registry, "nim")
    assert again.problems == () and again.skipped == (unrated,)
    assert again.games == tuple(games)  # the order they ended, whatever the files' order
    assert compare(again.ratings, service) == []
    assert again.ratings[account_identity(ANN)].games == 3

    # Another ruleset's book has none of these players; its logs here are skipped.
    assert recompute(logs, registry, "another-ruleset").ratings == {}

    # A game's log with one move changed: its chain breaks, it rates nothing, and the
    # players it rated no longer match.
    victim = logs[0]  # the last game: ANN against CAT
    moves = [i for i, e in enumerate(victim.events) if e.type == "StonesTaken"]
    event: StoredEvent = victim.events[moves[0]]
    changed = replace(event, payload={**event.payload, "count": event.payload["count"] + 1})
    tampered = replace(
        victim, events=(*victim.events[: moves[0]], changed, *victim.events[moves[0] + 1 :])
    )
    caught = recompute([tampered, *logs[1:]], registry, "nim")
    assert len(caught.problems) == 1 and games[3] in caught.problems[0]
    assert games[3] not in caught.games
    differences = compare(caught.ratings, service)
    assert {line.split(":")[1] for line in differences} == {ANN, CAT}

    # A log missing from the export: its players' ratings differ and are named.
    assert compare(recompute(logs[1:], registry, "nim").ratings, service)
