"""``--lobby-per-hour`` (issue 32): LobbyService's quota of tables opened and seeks made
per address comes from the command line of ``teoti serve`` and ``teoti gateway`` (or
$TEOTI_LOBBY_PER_HOUR), reaches the servicer, and refuses the call past the configured
number with RESOURCE_EXHAUSTED, where the default would still admit it."""

from __future__ import annotations

import argparse

import grpc
import pytest
from teoti_client import TeotiClient
from teoti_client.errors import RateLimited

from services.app import StoreSettings, all_in_one
from services.cli.launchers import add_gateway, add_serve
from services.cli.service_options import gateway_settings
from services.engine.domain.rulesets import RulesetRegistry
from services.rpc.limits import DEFAULT_LOBBY_BURST, DEFAULT_LOBBY_PER_HOUR

CONFIGURED = 3
"""The hourly quota the tests configure: also its burst (lower than the default's 60)."""


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command")
    add_serve(commands)
    add_gateway(commands)
    return parser.parse_args(list(argv))


def test_both_commands_take_the_flag_and_keep_the_default() -> None:
    for command in ("serve", "gateway"):
        assert gateway_settings(_parse(command)).lobby_per_hour == DEFAULT_LOBBY_PER_HOUR
        settings = gateway_settings(_parse(command, "--lobby-per-hour", str(CONFIGURED)))
        assert settings.lobby_per_hour == CONFIGURED


def test_the_environment_sets_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEOTI_LOBBY_PER_HOUR", "7")
    assert gateway_settings(_parse("gateway")).lobby_per_hour == 7


async def _seeks_admitted(
    redis_url: str, prefix: str, registry: RulesetRegistry, argv: list[str], tries: int
) -> int:
    """Seeks from one address (as many players, one each) admitted before the first
    RESOURCE_EXHAUSTED, by a stack whose limits are ``teoti serve``'s ``argv``."""
    limits = gateway_settings(_parse("serve", *argv)).limits()
    async with all_in_one(
        redis_url, store=StoreSettings(prefix, shards=4), registry=registry, limits=limits
    ) as stack:
        assert stack.players is not None
        async with TeotiClient(f"127.0.0.1:{stack.port}") as client:
            for n in range(tries):
                _player, _info, credential = await stack.players.register(f"seeker {n}")
                try:
                    await client.seek(credential, "nim", min_seats=4, max_seats=4)
                except RateLimited as refused:
                    assert refused.code is grpc.StatusCode.RESOURCE_EXHAUSTED
                    return n
    return tries


async def test_a_seek_past_the_configured_quota_is_refused(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    configured = ["--lobby-per-hour", str(CONFIGURED)]
    assert await _seeks_admitted(redis_url, key_prefix, registry, configured, 10) == CONFIGURED
    # The default's burst admits more than that from one address.
    default = await _seeks_admitted(redis_url, key_prefix + "-d", registry, [], CONFIGURED + 2)
    assert default == CONFIGURED + 2 <= DEFAULT_LOBBY_BURST
