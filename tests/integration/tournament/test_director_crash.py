"""Crash safety of the director's work on a real Redis: a director killed between
creating a round's games and appending RoundPaired creates nothing twice when it
restarts, and two directors handling the same finished games open each round once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

import pytest

from services.app import Stack, StoreSettings, all_in_one
from services.engine.domain.records import PrivateRecords
from services.engine.domain.ruleset import DomainEvent
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.transport.client import InProcessEngineClient
from services.metrics.families import TOURNAMENT_ROUNDS, TOURNAMENT_TABLES
from services.tournament.aggregate import TournamentState
from services.tournament.conductor import Conductor
from services.tournament.config import TournamentConfig
from services.tournament.events import ROUND_PAIRED
from services.tournament.model import Format
from services.tournament.ratings_book import RatingsBook
from services.tournament.repository import TournamentRepository


class Killed(BaseException):
    """Stands for kill -9: nothing after it runs."""


class DyingRepository(TournamentRepository):
    """Dies on its first append of a RoundPaired (after the round's games exist)."""

    died = False

    async def append(
        self,
        state: TournamentState,
        events: Sequence[DomainEvent],
        command_id: str = "",
        private: PrivateRecords | None = None,
    ) -> TournamentState:
        if not self.died and any(e.type == ROUND_PAIRED for e in events):
            self.died = True
            raise Killed
        return await super().append(state, events, command_id, private)


@pytest.fixture
async def stack(redis_url: str, key_prefix: str, registry: RulesetRegistry) -> AsyncIterator[Stack]:
    async with all_in_one(
        redis_url, store=StoreSettings(key_prefix, shards=4), registry=registry, director=False
    ) as s:
        yield s


def conductor(stack: Stack, repo: TournamentRepository | None = None) -> Conductor:
    return Conductor(
        repo or TournamentRepository(stack.store),
        InProcessEngineClient(stack.engine),
        stack.reader,
        RatingsBook(stack.store.client, stack.store.keys.prefix),
    )


async def bot_tournament(stack: Stack, players: int) -> str:
    assert stack.tournaments is not None
    config = TournamentConfig("crash", "nim", {}, Format.SWISS, 2, 2, rounds=2)
    state, organiser = await stack.tournaments.create(config)
    for n in range(players):
        await stack.tournaments.register(
            state.tournament_id, f"p{n}", "", bot=True, organiser_token=organiser
        )
    return state.tournament_id


async def all_finished(stack: Stack, game_ids: Sequence[str]) -> None:
    for _ in range(300):
        snapshots = [await stack.reader.load(g) for g in game_ids]
        if all(s.is_terminal() for s in snapshots):
            return
        await asyncio.sleep(0.1)
    raise AssertionError("games did not finish")


async def test_killed_before_round_paired_restarts_without_duplicates(stack: Stack) -> None:
    tid = await bot_tournament(stack, 8)
    dying = conductor(stack, DyingRepository(stack.store))
    with pytest.raises(Killed):
        await dying.start(tid)
    games_before = {g.game_id for g in await stack.store.list_games()}
    assert len(games_before) == 4  # the round's games exist; RoundPaired does not
    state = await conductor(stack).start(tid)
    assert set(state.rounds[0].game_ids.values()) == games_before
    assert {g.game_id for g in await stack.store.list_games()} == games_before


async def test_two_directors_open_each_round_once(stack: Stack) -> None:
    tid = await bot_tournament(stack, 8)
    first, second = conductor(stack), conductor(stack)
    state = await first.start(tid)
    for round_number in (1, 2):
        games = list(state.rounds[round_number - 1].game_ids.values())
        await all_finished(stack, games)
        await asyncio.gather(
            *(first.game_finished(g) for g in games), *(second.game_finished(g) for g in games)
        )
        state = await first.repo.load(tid)
    events = await first.repo.events(tid)
    assert [e.type for e in events].count(ROUND_PAIRED) == 2
    assert [e.type for e in events].count("TableFinished") == 8
    assert state.status == "finished"
    assert len(await stack.store.list_games()) == 8


async def test_the_directors_sweep_records_tables_whose_notifications_were_lost(
    stack: Stack,
) -> None:
    from services.tournament.director import Director, GameFinishedQueue

    tid = await bot_tournament(stack, 4)
    state = await conductor(stack).start(tid)
    games = list(state.rounds[0].game_ids.values())
    await all_finished(stack, games)
    # The notifications were published, but drop them as a crash before publishing would.
    for stream in stack.store.keys.all_finished():
        await stack.store.client.delete(stream)
    director = Director(
        GameFinishedQueue(stack.store.client, stack.store.keys, "sweeper"), conductor(stack)
    )
    rounds, finished = TOURNAMENT_ROUNDS.value(), TOURNAMENT_TABLES.value("finished")
    await director.sweep()
    state = await conductor(stack).repo.load(tid)
    assert len(state.rounds) == 2
    assert state.rounds[0].complete()
    # Its metrics (issue 34): the sweep saw one tournament with round 1's two tables not
    # recorded yet; then it recorded them and opened round 2.
    assert (director.running, director.tables_waiting) == (1, 2)
    assert TOURNAMENT_TABLES.value("finished") - finished == 2
    assert TOURNAMENT_ROUNDS.value() - rounds == 1


async def test_two_director_processes_at_once_create_each_round_once(stack: Stack) -> None:
    """Two director loops on one consumer group (as two ``teoti director``), each with
    its own sweep: every round is paired once and no game is created twice."""
    from services.tournament.director import Director, GameFinishedQueue

    stop = asyncio.Event()
    loops = [
        asyncio.create_task(
            Director(
                GameFinishedQueue(stack.store.client, stack.store.keys, f"d{n}"),
                conductor(stack),
                sweep_s=0.2,
                block_ms=100,
            ).run(stop)
        )
        for n in range(2)
    ]
    try:
        tid = await bot_tournament(stack, 8)
        await conductor(stack).start(tid)
        repo = TournamentRepository(stack.store)
        for _ in range(300):
            if (await repo.load(tid)).status == "finished":
                break
            await asyncio.sleep(0.1)
    finally:
        stop.set()
        await asyncio.gather(*loops)
    types = [e.type for e in await repo.events(tid)]
    assert types.count(ROUND_PAIRED) == 2
    assert types.count("TableFinished") == 8
    assert types[-2:] == ["TournamentFinished", "SeedRevealed"]
    assert len(await stack.store.list_games()) == 8


async def test_every_table_of_a_clocked_tournament_runs_its_clock(stack: Stack) -> None:
    from dataclasses import replace

    from services.tournament.config import TimeControl

    assert stack.tournaments is not None
    config = replace(
        TournamentConfig("clocked", "nim", {}, Format.SWISS, 2, 2, rounds=1),
        time_control=TimeControl(60_000, 2_000, 0),
        timeout_policy="forfeit",
    )
    state, organiser = await stack.tournaments.create(config)
    for n in range(4):
        await stack.tournaments.register(
            state.tournament_id, f"p{n}", "", bot=True, organiser_token=organiser
        )
    started = await conductor(stack).start(state.tournament_id)
    games = list(started.rounds[0].game_ids.values())
    assert len(games) == 2
    for game_id in games:
        events = await stack.store.read(game_id)
        clocks = [e for e in events if e.type == "ClockStarted"]
        assert len(clocks) == 1, [e.type for e in events]
        assert clocks[0].payload["base_ms"] == 60_000
        assert clocks[0].payload["increment_ms"] == 2_000
        assert clocks[0].payload["timeout_policy"] == "forfeit"


async def test_a_tournament_created_without_a_clock_gets_the_default_one(stack: Stack) -> None:
    """Issue 30 item 4: a tournament without a time control was accepted and its tables
    had no clock, so a player who never moved held a table open for ever. No tournament
    is unclocked now: one created without a clock records the default (a per-move
    deadline, DEFAULT_TOURNAMENT_CLOCK), and every table's game runs it, so the
    timekeeper settles an absent player's seat by the tournament's timeout policy."""
    from services.tournament.config import DEFAULT_TOURNAMENT_CLOCK

    assert stack.tournaments is not None
    config = TournamentConfig("unclocked", "nim", {}, Format.SWISS, 2, 2, rounds=1)
    assert not config.time_control.is_set
    state, organiser = await stack.tournaments.create(config, command_id="no-clock")
    assert state.config.time_control == DEFAULT_TOURNAMENT_CLOCK
    again, _ = await stack.tournaments.create(config, command_id="no-clock")  # a retry
    assert again.tournament_id == state.tournament_id
    for n in range(2):
        await stack.tournaments.register(
            state.tournament_id, f"p{n}", "", bot=True, organiser_token=organiser
        )
    started = await conductor(stack).start(state.tournament_id)
    [game_id] = started.rounds[0].game_ids.values()
    clocks = [e for e in await stack.store.read(game_id) if e.type == "ClockStarted"]
    assert len(clocks) == 1
    assert clocks[0].payload["move_deadline_ms"] == DEFAULT_TOURNAMENT_CLOCK.move_deadline_ms
    assert clocks[0].payload["timeout_policy"] == "forfeit"
