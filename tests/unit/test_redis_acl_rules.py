"""The ACL rules of each role name exactly the keys of services/engine/adapters/keys.py it
needs (the integration test test_redis_acl.py runs them against a real Redis)."""

from __future__ import annotations

from fnmatch import fnmatchcase

import pytest

from services.engine.adapters import RedisKeys
from services.engine.adapters.acl import (
    Role,
    acl_rules,
    key_patterns,
    redis_cli_lines,
    setuser_args,
)
from services.tournament.repository import stream_id


def reachable(role: Role, redis_version: tuple[int, ...] = (7, 2)) -> dict[str, str]:
    """Which kinds of key the role's patterns match, and how (``R`` or ``RW``)."""
    keys = RedisKeys("teoti", 16)
    game = "0123abcd"
    named = {
        "events": keys.events(game),
        "head": keys.head(game),
        "commands": keys.commands(game),
        "secret": keys.secret(game),
        "snapshot": keys.snapshot(game),
        "games": keys.games_of(game),
        "turns": keys.turns_of(game),
        "dead": keys.dead_letters(keys.shard_of(game)),
    }
    found = {}
    for rule in key_patterns(role, "teoti", redis_version):
        access, _, pattern = rule.partition("~")
        for kind, key in named.items():
            if fnmatchcase(key, pattern):
                assert kind not in found, f"{kind} matched twice"
                found[kind] = access.removeprefix("%") or "RW"
    return found


def test_only_the_engine_reaches_the_secret_seeds_and_command_ids() -> None:
    assert reachable(Role.ENGINE) == dict.fromkeys(
        ["events", "head", "commands", "secret", "snapshot", "games", "turns"], "RW"
    )
    assert reachable(Role.GATEWAY) == dict.fromkeys(["events", "head", "snapshot", "games"], "R")
    # The bot's reconciler lists games and reads their heads (services.bot.reconciler):
    # read only.
    assert reachable(Role.BOT) == {
        "events": "R",
        "head": "R",
        "snapshot": "R",
        "turns": "RW",
        "dead": "RW",
        "games": "R",
    }


def director_reach(redis_version: tuple[int, ...] = (7, 2)) -> dict[str, str]:
    """What the director's patterns give on a game's keys, a tournament log's keys and
    the tournament keys outside the shards (``-`` where no pattern matches)."""
    keys = RedisKeys("teoti", 16)
    game, log = "0123abcd", stream_id("5e11f00d")
    named = {
        **{f"game {kind}": getattr(keys, kind)(game) for kind in GAME_KINDS},
        **{f"log {kind}": getattr(keys, kind)(log) for kind in GAME_KINDS},
        "games": keys.games_of(game),
        "turns": keys.turns_of(game),
        "deadlines": keys.deadlines_of(game),
        "dead": keys.dead_letters(keys.shard_of(game)),
        "finished": keys.finished_of(game),
        "tournaments": "teoti:tournaments",
        "tournament games": "teoti:tournament:games",
        "players": "teoti:players",
        "ratings": "teoti:{ratings:nim}:players",
        "rated games": "teoti:{ratings:nim}:applied",
        "rating history": "teoti:{ratings:nim}:history:player:a0a0",
        "inbox": "teoti:{inbox:3}:a0a0",
        "notices sent": "teoti:finished-noticed:0123abcd",
    }
    found = dict.fromkeys(named, "-")
    for rule in key_patterns(Role.DIRECTOR, "teoti", redis_version):
        access, _, pattern = rule.partition("~")
        for kind, key in named.items():
            if fnmatchcase(key, pattern) and found[kind] != "RW":
                found[kind] = access.removeprefix("%") or "RW"
    return found


GAME_KINDS = ("events", "head", "commands", "secret", "snapshot", "sealed", "tokens", "archive")


def test_the_director_writes_tournament_logs_and_ratings_and_only_reads_games() -> None:
    reach = director_reach()
    assert {kind: reach[f"log {kind}"] for kind in GAME_KINDS} == dict.fromkeys(GAME_KINDS, "RW")
    # No game seed, no command ids; the games it ranks read only.
    assert {kind: reach[f"game {kind}"] for kind in GAME_KINDS} == {
        "events": "R",
        "head": "R",
        "commands": "-",
        "secret": "-",
        "snapshot": "R",
        "sealed": "R",
        "tokens": "R",
        "archive": "R",
    }
    # The shards' shared keys of the games are out of reach; its own group's stream
    # and the tournament keys are read and write.
    assert [reach[k] for k in ("games", "turns", "deadlines", "dead")] == ["-"] * 4
    others = (
        "finished",
        "tournaments",
        "tournament games",
        "players",
        "ratings",
        "rated games",
        "rating history",
        "inbox",
        "notices sent",
    )
    assert [reach[k] for k in others] == ["RW"] * len(others)
    # On Redis 6 the same keys, all read and write (no read-only patterns there).
    on_6 = director_reach((6, 2))
    assert {k for k, v in on_6.items() if v != "-"} == {k for k, v in reach.items() if v != "-"}
    assert set(on_6.values()) == {"RW", "-"}


def test_the_gateway_reaches_no_tournament_key() -> None:
    tournament_keys = ("teoti:tournaments", "teoti:players", "teoti:{ratings:nim}:players")
    for rule in key_patterns(Role.GATEWAY):
        pattern = rule.partition("~")[2]
        assert not any(fnmatchcase(key, pattern) for key in tournament_keys)


def test_redis_6_has_no_read_only_patterns_but_the_same_keys() -> None:
    for role in Role:
        on_6 = reachable(role, (6, 2))
        assert set(on_6) == set(reachable(role)) and set(on_6.values()) == {"RW"}


def test_rules_start_from_nothing_and_grant_no_write_command_to_the_gateway() -> None:
    for role in Role:
        rules = acl_rules(role)
        assert rules[:2] == ["reset", "resetchannels"] and "-@all" in rules
        assert not any(rule in ("~*", "allkeys", "+@all", "allcommands") for rule in rules)
    gateway = {rule for rule in acl_rules(Role.GATEWAY) if rule.startswith("+")}
    assert gateway == {
        "+xrange",
        "+xread",
        "+hmget",
        "+hgetall",
        "+get",
        "+zrangebyscore",
        "+client|setinfo",
        "+ping",  # the start-up wait and the readiness probe (issue 30 item 16)
    }
    assert "+client|setinfo" not in acl_rules(Role.BOT, redis_version=(7, 0))
    assert "+cluster|slots" in acl_rules(Role.BOT, cluster=True)


def test_setuser_args_enable_the_user_after_the_reset() -> None:
    args = setuser_args(Role.BOT, "teoti-bot", "pw")
    assert args[:4] == ["teoti-bot", "reset", "on", ">pw"]


def test_a_prefix_with_glob_characters_is_matched_literally() -> None:
    (first, *_) = key_patterns(Role.GATEWAY, "a*b?[c]")
    assert first == r"%R~a\*b\?\[c\]:{s*}:game:*:events"


def test_teoti_redis_acl_prints_the_setuser_lines(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from services.cli import commands, main

    # Its log handler would outlive this test's captured output and break later logs.
    monkeypatch.setattr(commands, "configure_logging", lambda level: None)

    assert main(["redis-acl", "--key-prefix", "game", "--redis-version", "6.2"]) == 0
    assert capsys.readouterr().out.splitlines() == redis_cli_lines("game", (6, 2))
    assert main(["redis-acl", "--redis-version", "seven"]) == 2


def test_the_operations_guide_shows_the_current_lines() -> None:
    from pathlib import Path

    guide = (Path(__file__).resolve().parents[2] / "docs" / "operations.md").read_text()
    for line in redis_cli_lines():
        assert line in guide, f"docs/operations.md lacks: {line}"
