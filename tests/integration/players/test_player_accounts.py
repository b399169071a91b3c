"""Player accounts against a real Redis (issue 32): one account per name identity, also
when two service instances (two gateways) register at once; credentials shown once and
stored only as hashes; revocation immediate everywhere; retries by command id."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from structlog.testing import capture_logs

from services.engine.adapters.redis_store import RedisEventStore
from services.players.credentials import credential_hash
from services.players.errors import (
    CredentialNotFound,
    InvalidPlayer,
    NotYourPlayer,
    PlayerNotFound,
    PlayerRefused,
)
from services.players.repository import PlayerRepository
from services.players.service import MAX_CREDENTIALS, PlayerService

CHOSEN = "tpc_" + "k" * 43


@pytest.fixture
async def stores(redis_url: str, key_prefix: str) -> AsyncIterator[list[RedisEventStore]]:
    """Two stores (two gateways' connections) on one deployment's keys."""
    made = [RedisEventStore.from_url(redis_url, prefix=key_prefix) for _ in range(2)]
    yield made
    for store in made:
        await store.close()


def _service(store: RedisEventStore) -> PlayerService:
    return PlayerService(PlayerRepository(store.client, store.keys.prefix))


async def _all_values(store: RedisEventStore) -> str:
    """Every key and value under the test's prefix, as one text."""
    client = store.client
    parts = []
    async for key in client.scan_iter(match=f"{store.keys.prefix}:*"):
        parts.append(str(key))
        raw = await client.type(key)
        kind = raw.decode() if isinstance(raw, bytes) else str(raw)
        if kind == "hash":
            parts.append(str(await client.hgetall(key)))
        elif kind == "string":
            parts.append(str(await client.get(key)))
        elif kind == "stream":
            parts.append(str(await client.xrange(key)))
        elif kind == "zset":
            parts.append(str(await client.zrange(key, 0, -1)))
    return "\n".join(parts)


async def test_register_then_authenticate_and_look_up(stores: list[RedisEventStore]) -> None:
    players = _service(stores[0])
    player, _, credential = await players.register("  Ann  ", label="phone")
    assert player.name == "Ann" and player.name_key == "ann" and not player.bot
    assert await players.authenticate(credential) == player.player_id
    assert await players.get(player.player_id) == player
    assert await players.named("\uff21\uff2e\uff2e") == player  # full-width ANN
    [only] = await players.list_credentials(player.player_id)
    assert only.label == "phone"
    with pytest.raises(PlayerNotFound):
        await players.get("no-such-player")
    with pytest.raises(PlayerNotFound):
        await players.named("bob")


async def test_one_identity_one_account(stores: list[RedisEventStore]) -> None:
    players = _service(stores[0])
    await players.register("Straße")
    for spelling in ("STRASSE", " strasse", "Strasse"):
        with pytest.raises(PlayerRefused) as refused:
            await players.register(spelling)
        assert refused.value.rule == "name_taken"


async def test_two_gateways_registering_one_identity_at_once(
    stores: list[RedisEventStore],
) -> None:
    first, second = _service(stores[0]), _service(stores[1])
    for round_ in range(10):
        results = await asyncio.gather(
            first.register(f"Zoe{round_}"),
            second.register(f"ZOE{round_} "),
            first.register(f"zoe{round_}"),
            return_exceptions=True,
        )
        won = [r for r in results if not isinstance(r, BaseException)]
        lost = [r for r in results if isinstance(r, BaseException)]
        assert len(won) == 1
        assert all(isinstance(r, PlayerRefused) and r.rule == "name_taken" for r in lost)


async def test_a_bot_account_is_flagged(stores: list[RedisEventStore]) -> None:
    players = _service(stores[0])
    bot, _, _ = await players.register("Stockfish-ish", bot=True)
    assert (await players.get(bot.player_id)).bot


async def test_the_secret_is_stored_and_logged_nowhere(stores: list[RedisEventStore]) -> None:
    players = _service(stores[0])
    with capture_logs() as logs:
        player, _, credential = await players.register("Ann", command_id="reg-1")
        extra, second = await players.create_credential(player.player_id, "bot", "cred-1")
        await players.authenticate(credential)
        await players.revoke(player.player_id, extra.credential_id)
    stored = await _all_values(stores[0])
    for secret in (credential, second):
        assert secret not in stored
        assert secret not in repr(logs)
    assert credential_hash(credential) in stored  # only its hash
    assert credential_hash(second) not in stored  # revoked: gone
    assert {entry["event"] for entry in logs} >= {
        "player_registered",
        "player_credential_created",
        "player_credential_revoked",
    }
    listed = await players.list_credentials(player.player_id)
    assert all(credential not in repr(c) for c in listed)


async def test_several_credentials_and_revocation_at_once_everywhere(
    stores: list[RedisEventStore],
) -> None:
    here, there = _service(stores[0]), _service(stores[1])
    player, _, phone = await here.register("Ann", label="phone")
    info, laptop = await here.create_credential(player.player_id, "laptop")
    assert phone != laptop
    assert await there.authenticate(laptop) == player.player_id
    await here.revoke(player.player_id, info.credential_id)
    with pytest.raises(NotYourPlayer) as refused:
        await there.authenticate(laptop)  # the other gateway, the very next call
    assert refused.value.rule == "player_credential_invalid"
    assert await there.authenticate(phone) == player.player_id
    with pytest.raises(CredentialNotFound):
        await here.revoke(player.player_id, info.credential_id)
    assert [c.label for c in await here.list_credentials(player.player_id)] == ["phone"]


async def test_nobody_revokes_another_players_credential(stores: list[RedisEventStore]) -> None:
    players = _service(stores[0])
    ann, _, ann_secret = await players.register("Ann")
    bob, _, _ = await players.register("Bob")
    [ann_credential] = await players.list_credentials(ann.player_id)
    with pytest.raises(CredentialNotFound):
        await players.revoke(bob.player_id, ann_credential.credential_id)
    assert await players.authenticate(ann_secret) == ann.player_id


@pytest.mark.parametrize(
    "credential", ["", "seat-token-0123456789abcdef", "tpc_", "tpc_" + "x" * 43]
)
async def test_bad_credentials_are_refused(stores: list[RedisEventStore], credential: str) -> None:
    with pytest.raises(NotYourPlayer) as refused:
        await _service(stores[0]).authenticate(credential)
    assert refused.value.rule == "player_credential_invalid"


async def test_a_retried_register_returns_the_player(stores: list[RedisEventStore]) -> None:
    players = _service(stores[0])
    player, _, credential = await players.register("Ann", command_id="reg-1")
    again, _, shown = await players.register("Ann", command_id="reg-1")
    assert again == player and shown == ""  # a server-made credential is shown once
    with pytest.raises(PlayerRefused) as reused:
        await players.register("Bob", command_id="reg-1")
    assert reused.value.rule == "command_id_reused"
    chosen, _, secret = await players.register("Cleo", command_id="reg-2", credential=CHOSEN)
    assert secret == CHOSEN
    retried, _, shown = await players.register("Cleo", command_id="reg-2", credential=CHOSEN)
    assert retried == chosen and shown == CHOSEN  # the one it chose, held by the player
    assert await players.authenticate(credential) == player.player_id


async def test_a_chosen_credential_is_checked_and_unique(stores: list[RedisEventStore]) -> None:
    players = _service(stores[0])
    with pytest.raises(InvalidPlayer) as weak:
        await players.register("Ann", credential="tpc_weak")
    assert weak.value.rule == "player_credential_strength"
    await players.register("Ann", credential=CHOSEN)
    with pytest.raises(PlayerRefused) as taken:
        await players.register("Bob", credential=CHOSEN)
    assert taken.value.rule == "credential_taken"
    with pytest.raises(PlayerNotFound):
        await players.named("Bob")  # refused whole: no account left behind


async def test_credentials_are_bounded(stores: list[RedisEventStore]) -> None:
    players = _service(stores[0])
    player, _, _ = await players.register("Ann")
    for n in range(MAX_CREDENTIALS - 1):
        await players.create_credential(player.player_id, f"device {n}")
    with pytest.raises(PlayerRefused) as full:
        await players.create_credential(player.player_id, "one too many")
    assert full.value.rule == "too_many_credentials"
    with pytest.raises(InvalidPlayer) as label:
        await players.create_credential(player.player_id, "x" * 41)
    assert label.value.rule == "credential_label"


async def test_a_retried_credential_creation_returns_it(stores: list[RedisEventStore]) -> None:
    players = _service(stores[0])
    player, _, _ = await players.register("Ann")
    made, secret = await players.create_credential(player.player_id, "bot", "c-1")
    again, shown = await players.create_credential(player.player_id, "bot", "c-1")
    assert again == made and shown == "" and secret
    with pytest.raises(PlayerRefused) as reused:
        await players.create_credential(player.player_id, "phone", "c-1")
    assert reused.value.rule == "command_id_reused"
    assert len(await players.list_credentials(player.player_id)) == 2
