"""Rated games for the ratings tests: an engine on a real Redis, nim games between player
accounts played to the end, and the rater wired as the service wires it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.engine.adapters import RedisEventStore
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry
from services.notices.inbox import RedisInbox
from services.ratings.rater import GameRater
from services.tournament.ratings_book import RatingsBook

ANN = "a0a0a0a0a0a0a0a0a0a0"
BOB = "b0b0b0b0b0b0b0b0b0b0"
CAT = "c0c0c0c0c0c0c0c0c0c0"


@dataclass
class Rig:
    """An engine, a reader, the book, the inboxes and the rater on one Redis prefix."""

    engine: Engine
    reader: GameReader
    book: RatingsBook
    inbox: RedisInbox
    rater: GameRater


def rig(store: RedisEventStore, registry: RulesetRegistry, seed: str = "ratings") -> Rig:
    """The parts as services.app.tournament_parts wires them (the store's append
    publishes game ends, as under ``teoti serve``)."""
    engine = Engine(store, registry, seed_source=fixed_seed(seed))
    reader = GameReader(store, registry)
    book = RatingsBook(store.client, store.keys.prefix)
    inbox = RedisInbox(store.client, store.keys.prefix)
    rater = GameRater(reader, book, inbox, store.client, store.keys.prefix, clock_ms=lambda: 1)
    return Rig(engine, reader, book, inbox, rater)


def player_seats(players: Sequence[str]) -> list[SeatSpec]:
    """A human seat bound to each player account (as bind_to_caller / the opener make)."""
    return [SeatSpec(SeatKind.HUMAN, f"P{i}", player=p) for i, p in enumerate(players)]


async def play_out(engine: Engine, reader: GameReader, game_id: str, winner: int) -> None:
    """Play nim to the end so that seat ``winner`` takes the last stone: the others take
    one stone a turn; the winner takes all that are left once it can, else one."""
    while not (game := await reader.load(game_id)).is_terminal():
        [seat] = game.seats_to_act()
        pile, max_take = game.state.pile, game.state.max_take
        take = pile if seat == winner and pile <= max_take else 1
        if seat != winner and pile == 1:
            take = 1  # forced: this seat wins instead (the test then names it)
        # A seat that left is a bot's now: its moves come under the bot credential.
        bot = seat in game.control.bot_controlled()
        key = engine.bot_credential.secret if bot else ""
        await engine.submit_action(game_id, seat, {"take": take}, bot_key=key)


async def winner_of(reader: GameReader, game_id: str) -> int:
    """The seat placed first."""
    result = (await reader.load(game_id)).result()
    assert result is not None
    return result.ranking[0]
