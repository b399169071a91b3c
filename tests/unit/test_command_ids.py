"""Command ids are scoped to their sender and bound to their content (issue 12).

Written from the requirement: deduplicate on (game, seat or creator, id), keep a hash of
the request with the result, refuse a reuse with other content (``command_id_reused``,
nothing changes), let seat B use seat A's id, and keep every client off bot seats and
their command ids.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.bot.worker import bot_command_id
from services.engine.adapters import InMemoryEventStore
from services.engine.adapters.redis_store import RedisEventStore
from services.engine.domain.bot_credential import BotCredential
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.errors import InvalidArgument, NotAuthorized, RuleViolation
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.game_seats import hash_token
from services.engine.domain.records import CommandRecord, EventMetadata, TurnRequest
from services.engine.domain.ruleset import DomainEvent
from services.engine.domain.rulesets import RulesetRegistry

CREDENTIAL = BotCredential("test-bot-credential-0123456789")
HUMANS = [
    SeatSpec(SeatKind.HUMAN, "ann", hash_token("tok-ann")),
    SeatSpec(SeatKind.HUMAN, "bob", hash_token("tok-bob")),
]


def make_engine(registry: RulesetRegistry, store: object | None = None) -> Engine:
    return Engine(
        store or InMemoryEventStore(),  # type: ignore[arg-type]
        registry,
        clock=lambda: datetime(2024, 5, 1, tzinfo=UTC),
        seed_source=fixed_seed("s1"),
        bot_credential=CREDENTIAL,
    )


async def _versions(engine: Engine, game: str) -> tuple[int, str]:
    return await engine.store.head(game)


async def test_seat_b_reusing_seat_a_id_is_a_fresh_command(registry: RulesetRegistry) -> None:
    engine = make_engine(registry)
    game = (await engine.create_game("nim", HUMANS, {"max_take": 3})).game_id
    first = await engine.submit_action(game, 0, {"take": 1}, command_id="move-1")
    second = await engine.submit_action(game, 1, {"take": 2}, command_id="move-1")
    assert (first.version, second.version) == (3, 4)  # B's action was applied, not dropped
    events = await engine.store.read(game, 2)
    assert [(e.metadata.seat, e.payload["count"]) for e in events] == [(0, 1), (1, 2)]


async def test_a_retry_gets_the_original_result_and_appends_nothing(
    registry: RulesetRegistry,
) -> None:
    engine = make_engine(registry)
    game = (await engine.create_game("nim", HUMANS, {"max_take": 3})).game_id
    first = await engine.submit_action(game, 0, {"take": 1}, command_id="move-1")
    again = await engine.submit_action(game, 0, {"take": 1}, 2, command_id="move-1")
    assert (again.version, again.first_version) == (first.version, first.first_version)
    assert (await engine.store.head(game))[0] == 3


async def test_same_id_with_other_content_is_refused_and_changes_nothing(
    registry: RulesetRegistry,
) -> None:
    engine = make_engine(registry)
    game = (await engine.create_game("nim", HUMANS, {"max_take": 3})).game_id
    await engine.submit_action(game, 0, {"take": 1}, command_id="move-1")
    await engine.submit_action(game, 1, {"take": 1}, command_id="b-1")
    head = await engine.store.head(game)
    for action in ({"take": 2}, {"take": 99}, {"type": []}):
        with pytest.raises(RuleViolation) as info:
            await engine.submit_action(game, 0, action, command_id="move-1")
        assert info.value.rule == "command_id_reused"
    assert await engine.store.head(game) == head


async def test_reuse_is_refused_on_the_cached_fast_path_too(registry: RulesetRegistry) -> None:
    """Seat 0's id reused for seat 0's next (legal) move: the cached game would accept the
    move, the store finds the id and the engine refuses it."""
    engine = make_engine(registry)
    game = (await engine.create_game("nim", HUMANS, {"max_take": 3})).game_id
    await engine.submit_action(game, 0, {"take": 1}, command_id="move-1")
    await engine.submit_action(game, 1, {"take": 1})
    head = await engine.store.head(game)
    with pytest.raises(RuleViolation) as info:
        await engine.submit_action(game, 0, {"take": 2}, command_id="move-1")
    assert info.value.rule == "command_id_reused"
    assert await engine.store.head(game) == head


async def test_no_client_moves_a_bot_seat_or_blocks_its_command_id(
    registry: RulesetRegistry,
) -> None:
    engine = make_engine(registry)
    seats = [HUMANS[0], SeatSpec(SeatKind.BOT, "bot")]
    game = (await engine.create_game("nim", seats, {"max_take": 3})).game_id
    await engine.submit_action(game, 0, {"take": 1}, command_id="h-1")
    request = TurnRequest(game, 1, 3)
    with pytest.raises(NotAuthorized):  # no credential, or a wrong one
        await engine.submit_action(game, 1, {"take": 1}, 3, bot_command_id(request))
    with pytest.raises(NotAuthorized):
        await engine.submit_action(game, 1, {"take": 1}, 3, "x", bot_key="guess-" * 8)
    # The human pre-empting the bot's id for its own seat only spends an id of its own.
    with pytest.raises(RuleViolation):
        await engine.submit_action(game, 0, {"take": 1}, command_id=bot_command_id(request))
    played = await engine.submit_action(
        game, 1, {"take": 1}, 3, bot_command_id(request), bot_key=CREDENTIAL.secret
    )
    assert played.version == 4 and (await engine.store.read(game, 3))[0].metadata.seat == 1


async def test_create_ids_are_scoped_to_the_caller_and_bound_to_the_request(
    registry: RulesetRegistry,
) -> None:
    engine = make_engine(registry)
    mine = await engine.create_game("nim", HUMANS, {"max_take": 3}, "my-create-1")
    retried = await engine.create_game("nim", HUMANS, {"max_take": 3}, "my-create-1")
    assert (retried.game_id, retried.version) == (mine.game_id, mine.version)
    others = [SeatSpec(SeatKind.HUMAN, "eve", hash_token("tok-eve")), HUMANS[1]]
    theirs = await engine.create_game("nim", others, {"max_take": 3}, "my-create-1")
    assert theirs.game_id != mine.game_id  # someone else's id never meets my game
    with pytest.raises(RuleViolation) as info:
        await engine.create_game("nim", HUMANS, {"max_take": 2}, "my-create-1")
    assert info.value.rule == "command_id_reused"
    assert len(await engine.store.list_games()) == 2


async def test_join_ids_are_scoped_to_the_seat(registry: RulesetRegistry) -> None:
    engine = make_engine(registry)
    seats = [SeatSpec(SeatKind.HUMAN, ""), SeatSpec(SeatKind.HUMAN, "")]
    game = (await engine.create_game("nim", seats, {})).game_id
    await engine.join_game(game, 0, "ann", hash_token("tok-ann"), "join-1")
    await engine.join_game(game, 1, "bob", hash_token("tok-bob"), "join-1")  # not a dup
    snapshot = await engine.load(game)
    assert [s.name for s in snapshot.seats] == ["ann", "bob"]
    with pytest.raises(RuleViolation) as info:  # seat 1's id, and ann does not hold seat 1
        await engine.join_game(game, 1, "ann", hash_token("tok-ann"), "join-1")
    assert info.value.rule == "command_id_used"


async def test_a_join_retried_with_another_name_is_a_reused_id(
    registry: RulesetRegistry,
) -> None:
    """Issue 30 item 13: the same command id, token and seat with another name answered
    the original reply; docs/operations.md lists ``command_id_reused`` for it."""
    engine = make_engine(registry)
    seats = [SeatSpec(SeatKind.HUMAN, ""), SeatSpec(SeatKind.HUMAN, "")]
    game = (await engine.create_game("nim", seats, {})).game_id
    joined = await engine.join_game(game, 0, "ann", hash_token("tok-ann"), "join-1")
    again = await engine.join_game(game, 0, "ann", hash_token("tok-ann"), "join-1")
    assert (again.first_version, again.version) == (joined.first_version, joined.version)
    with pytest.raises(RuleViolation) as info:
        await engine.join_game(game, 0, "anna", hash_token("tok-ann"), "join-1")
    assert info.value.rule == "command_id_reused"
    # Without that id, joining again with the seat's token is still a success.
    await engine.join_game(game, 0, "anna", hash_token("tok-ann"), "join-2")
    await engine.join_game(game, 0, "anna", hash_token("tok-ann"))
    assert (await engine.load(game)).seats[0].name == "ann"


async def test_results_recorded_before_hashes_still_deduplicate(
    registry: RulesetRegistry, redis_store: RedisEventStore
) -> None:
    """An old log's command table holds ``"first-last"`` under the bare id: it still loads
    and reads back, with no hash."""
    engine = make_engine(registry, redis_store)
    game = (await engine.create_game("nim", HUMANS, {"max_take": 3})).game_id
    await redis_store.client.hset(redis_store.keys.commands(game), "old-id", "3-3")
    assert await redis_store.command_result(game, "old-id") == CommandRecord(3, 3, "")
    await engine.submit_action(game, 0, {"take": 1}, command_id="new-id")
    record = await redis_store.command_result(game, "seat:0|new-id")
    assert record is not None and (record.first_version, len(record.request_hash)) == (3, 64)
    # An append made the old way (no CommandKey) is recorded under the bare id, no hash.
    legacy = EventMetadata("legacy", 1, "2024-05-01T00:00:00+00:00")
    events = [DomainEvent("StonesTaken", {"seat": 1, "count": 1})]
    done = await redis_store.append(game, 3, events, legacy)
    again = await redis_store.append(game, 4, events, legacy)
    assert again.duplicate and (again.first_version, again.request_hash) == (4, "")
    assert done.first_version == 4
    assert await redis_store.command_result(game, "legacy") == CommandRecord(4, 4, "")


@settings(max_examples=40, deadline=None)
@given(
    ids=st.lists(st.sampled_from(["a", "b", "bot:g:3:1"]), min_size=1, max_size=6),
    takes=st.lists(st.integers(1, 3), min_size=6, max_size=6),
)
def test_property_each_id_of_a_seat_applies_once_and_only_for_its_first_content(
    ids: list[str], takes: list[int]
) -> None:
    """Whatever ids the two seats send, an id is applied at most once per seat; a resend
    with the same content returns that result, with other content is refused."""
    import asyncio

    from tests.plugin import registry_with_nim

    async def run() -> None:
        engine = make_engine(registry_with_nim())
        game = (await engine.create_game("nim", HUMANS, {"max_take": 3})).game_id
        first: dict[tuple[int, str], tuple[int, int]] = {}
        for step, command_id in enumerate(ids):
            snapshot = await engine.load(game)
            if snapshot.is_terminal():
                break
            seat = snapshot.seats_to_act()[0]
            action = {"take": min(takes[step], snapshot.state.pile)}
            key = (seat, command_id)
            try:
                result = await engine.submit_action(game, seat, action, command_id=command_id)
            except RuleViolation as exc:
                assert key in first and exc.rule in {"command_id_reused", "not_your_turn"}
                continue
            if key in first:
                assert (result.first_version, result.version) == first[key]
            else:
                first[key] = (result.first_version, result.version)
        batches: dict[tuple[int, str], list[int]] = {}
        for event in await engine.store.read(game, 2):
            key = (event.metadata.seat, event.metadata.command_id)
            batches.setdefault(key, []).append(event.version)
        for key, versions in batches.items():  # one append per (seat, id): contiguous
            assert versions == list(range(versions[0], versions[-1] + 1)), key
            assert (versions[0], versions[-1]) == first[key]

    asyncio.run(run())


async def test_an_overlong_command_id_is_invalid(registry: RulesetRegistry) -> None:
    engine = make_engine(registry)
    game = (await engine.create_game("nim", HUMANS, {"max_take": 3})).game_id
    with pytest.raises(InvalidArgument):
        await engine.submit_action(game, 0, {"take": 1}, command_id="x" * 201)
    with pytest.raises(InvalidArgument):
        await engine.create_game("nim", HUMANS, {}, "y" * 201)
    assert (await engine.store.head(game))[0] == 2
