"""A retried command id's Play answer (issue 16, the engine projects a move's view) is the
game as the log has it now, as GameService's SubmitAction return_view promises, never
the engine's cached game as it was when the command was first applied:

1. with two engines (the split deployment scales them; a game's commands land on any),
   the engine that applied the command still holds the game as it was then, while the
   other seat has moved since;
2. after Redis lost acknowledged writes (tests/integration/test_recovery.py: caches
   never stay ahead of Redis), the cache holds versions the log no longer has.

Real engines on the engine link, real Redis. (Found by a hostile review: both failed when
the engine answered every command from its cache.)
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from redis.asyncio import Redis
from teoti_client.proto import game_service_pb2

from services.engine.adapters import RedisEventStore
from services.engine.domain.engine import Engine
from services.engine.domain.game_seats import SeatKind, SeatSpec, hash_token
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.transport.remote import RemoteEngineClient
from services.gateway.servicer import GameServicer
from tests.engine_serving import engine_served
from tests.servicer_context import ServicerContext

pb = game_service_pb2
TOKENS = ("seat-0-token-0123456789abcdef", "seat-1-token-0123456789abcdef")
SEATS = [SeatSpec(SeatKind.HUMAN, n, hash_token(t)) for n, t in zip("ab", TOKENS, strict=True)]


@asynccontextmanager
async def engine_on_link(
    redis_url: str, prefix: str, registry: RulesetRegistry
) -> AsyncIterator[tuple[Engine, RemoteEngineClient, RedisEventStore]]:
    store = RedisEventStore.from_url(redis_url, prefix=prefix)
    engine = Engine(store, registry)
    try:
        async with engine_served(engine) as (_server, port):
            client = RemoteEngineClient(f"127.0.0.1:{port}", timeout_s=30)
            try:
                yield engine, client, store
            finally:
                await client.close()
    finally:
        await store.close()


def play(game: str, seat: int, action: str, command_id: str) -> Any:
    return pb.PlayRequest(
        request_id=1,
        submit_action=pb.SubmitActionRequest(
            game_id=game,
            seat=seat,
            seat_token=TOKENS[seat],
            action_json=action,
            command_id=command_id,
            return_view=True,
        ),
    )


async def test_a_retry_on_the_engine_that_applied_it_shows_the_game_as_it_is_now(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    async with AsyncExitStack() as stack:
        _e1, c1, gateway_store = await stack.enter_async_context(
            engine_on_link(redis_url, key_prefix, registry)
        )
        _e2, c2, _ = await stack.enter_async_context(
            engine_on_link(redis_url, key_prefix, registry)
        )
        # One gateway whose client happens to reach engine 1 for seat 0's commands.
        gateway = GameServicer(GameReader(gateway_store, registry), c1)
        game = (await c1.create_game("nim", SEATS, {"max_take": 3})).game_id
        first = await gateway.play_answer(play(game, 0, '{"take":1}', "a1"), ServicerContext())
        assert first.WhichOneof("response") == "submit_action"
        await c2.submit_action(game, 1, {"take": 1}, command_id="b1")  # on engine 2

        # Seat 0's answer was lost; it retries the same command (engine 1 again).
        again = await gateway.play_answer(play(game, 0, '{"take":1}', "a1"), ServicerContext())
        now = await gateway.get_game(
            pb.GetGameRequest(game_id=game, seat=0, seat_token=TOKENS[0]), ServicerContext()
        )
        legal = await gateway.list_legal_actions(
            pb.ListLegalActionsRequest(game_id=game, seat=0, seat_token=TOKENS[0]),
            ServicerContext(),
        )
        assert list(now.seats_to_act) == [0] and len(legal.actions) == 3
        # The proto: "the current game for a command id applied before".
        assert (again.submit_action.game.version, list(again.submit_action.game.seats_to_act)) == (
            now.version,
            list(now.seats_to_act),
        ), (
            f"retry answered version {again.submit_action.game.version} "
            f"(seats to act {list(again.submit_action.game.seats_to_act)}, "
            f"{len(again.submit_action.legal_actions)} legal actions); GetGame: version "
            f"{now.version}, seats to act {list(now.seats_to_act)}"
        )
        assert again.submit_action.game == now
        assert list(again.submit_action.legal_actions) == list(legal.actions)


async def test_after_lost_writes_a_retry_shows_only_versions_the_log_has(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    async with AsyncExitStack() as stack:
        _engine, client, store = await stack.enter_async_context(
            engine_on_link(redis_url, key_prefix, registry)
        )
        gateway = GameServicer(GameReader(store, registry), client)
        game = (await client.create_game("nim", SEATS, {"max_take": 1})).game_id
        await client.submit_action(game, 0, {"take": 1}, command_id="a-1")
        keys = [store.keys.events(game), store.keys.head(game), store.keys.commands(game)]
        binary = Redis.from_url(redis_url)
        try:
            kept = {key: await binary.dump(key) for key in keys}
            await client.submit_action(game, 1, {"take": 1}, command_id="b-1")
            await client.submit_action(game, 0, {"take": 1}, command_id="a-2")
            for key, value in kept.items():  # Redis loses the last two acknowledged moves
                await binary.delete(key)
                await binary.restore(key, 0, value)
        finally:
            await binary.aclose()

        again = await gateway.play_answer(play(game, 0, '{"take":1}', "a-1"), ServicerContext())
        assert again.WhichOneof("response") == "submit_action", again
        head = (await store.head(game))[0]
        now = await gateway.get_game(
            pb.GetGameRequest(game_id=game, seat=0, seat_token=TOKENS[0]), ServicerContext()
        )
        assert now.version == head
        assert again.submit_action.game.version <= head, (
            f"answered version {again.submit_action.game.version}; the log ends at {head}"
        )
        assert again.submit_action.game == now
