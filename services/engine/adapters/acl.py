"""Redis ACL users of a deployment: each process may touch only the keys it needs.

Why: a game's secret seed (``...:game:<id>:secret``, see
:mod:`services.engine.adapters.keys`) decides every future random draw, and the log holds
only its commitment until the game ends. With one shared Redis login, the internet-facing
gateway or a bot worker, once taken over, could read the seeds and predict every game,
or rewrite logs and the snapshots the engine trusts. So each process logs in as its own
user (Redis >= 6) and gets:

- **engine** (the log's only writer): read and write on every key of a game (events,
  head, command ids, secret seed, sealed secrets, token bindings, snapshot, archive), the
  games indexes, and the turn-request streams it publishes to. Not the dead letters.
- **gateway** (public read side): read only, on events, heads, snapshots, archives, a
  game's sealed secrets and token bindings (it folds games whole to show a seat its own
  secrets, and checks seat tokens), and the games indexes. No seed, no command ids, no
  turn requests. (An archived game's command-id answers are inside its archive, which
  every reader may read: ids the log's events carry anyway, with request hashes.)
- **bot** (turn-request consumer): read only on events, snapshots, archives, sealed
  secrets and token bindings (it loads the games it plays) and the games indexes (its
  reconciler lists them, services.bot.reconciler); read and write on the turn-request and
  dead-letter streams (its consumer group) and the reconciler's lease. No seed, no
  heads, no command ids.

Each user may run only the commands its code sends, found by running a whole game with
every process logged in as a user allowed everything and recording what each sent
(MONITOR; the append and ack scripts' own commands are checked against the caller's
rules too, and EVAL/EVALSHA need every key the script names). The integration test
``tests/integration/test_redis_acl.py`` plays games with these exact users and checks
that the gateway and the bot get NOPERM on the secret keys.

Redis 7 separates read from write access per key pattern (``%R~``); Redis 6 cannot
(``~`` is read and write), so there the gateway stays read-only only because it may run
no write command, and the bot's write commands (XADD, XDEL for its streams) would also
work on the events and snapshots it may read. The secret keys are out of reach for both
on either version. Use Redis 7 where you can.
"""

from __future__ import annotations

import re
import shlex
from enum import StrEnum


class Role(StrEnum):
    """A process of the deployment that logs in to Redis."""

    ENGINE = "engine"
    GATEWAY = "gateway"
    BOT = "bot"
    DIRECTOR = "director"


DEFAULT_USERNAMES: dict[Role, str] = {role: f"teoti-{role}" for role in Role}
"""User names the manifests and docs use (deploy/k8s, docs/operations.md)."""

# Key patterns after ``<prefix>:{s*}:`` (the shard's hash tag), with the access needed.
# "RW" also where only writes happen inside a script: EVAL/EVALSHA check every key the
# script names as read and write (Redis cannot know what the script does with it).
_KEYS: dict[Role, tuple[tuple[str, str], ...]] = {
    Role.ENGINE: (
        ("RW", "game:*:events"),  # XLEN + XADD (append script), XRANGE (fold)
        ("RW", "game:*:head"),  # HMGET, HSET
        ("RW", "game:*:commands"),  # HGET (idempotency), HSET
        ("RW", "game:*:secret"),  # SET at creation, GET to decide moves
        ("RW", "game:*:snapshot"),  # GET, SET (only the engine saves snapshots)
        ("RW", "game:*:sealed"),  # HSET (append script), HGETALL (fold with secrets)
        ("RW", "game:*:tokens"),  # HSET (append script), HGETALL (token bindings)
        ("RW", "game:*:archive"),  # GET (reads), SET + DEL of the rest (archive script)
        ("RW", "games"),  # ZADD at creation (append script)
        ("RW", "turns"),  # XADD turn requests (append script)
        ("RW", "player_turns"),  # XADD player seats' turns (append script)
        ("RW", "finished"),  # XADD game-finished notifications (store.finished)
        ("RW", "deadlines"),  # ZADD/ZREM (append script), claims (timekeeper scripts)
    ),
    Role.GATEWAY: (
        ("R", "game:*:events"),  # XRANGE (fold, ListEvents), XREAD BLOCK (WatchGame)
        ("R", "game:*:head"),  # HMGET (version, VerifyGame)
        ("R", "game:*:snapshot"),  # GET
        ("R", "game:*:sealed"),  # HGETALL (a seat's view shows it its own secrets)
        ("R", "game:*:tokens"),  # HGETALL (checks a request's seat token)
        ("R", "game:*:archive"),  # GET (reads of an archived game)
        ("R", "games"),  # ZRANGEBYSCORE (ListGames)
    ),
    Role.BOT: (
        ("R", "game:*:events"),  # XRANGE (loads the game it plays)
        ("R", "game:*:head"),  # HMGET (the reconciler checks a game has not moved on)
        ("R", "game:*:snapshot"),  # GET
        ("R", "game:*:sealed"),  # HGETALL (its seat's own secrets, e.g. its dealt tiles)
        ("R", "game:*:tokens"),  # HGETALL (read with the secrets when loading a game)
        ("R", "game:*:archive"),  # GET (reads of an archived game)
        ("RW", "turns"),  # XGROUP CREATE, XREADGROUP, XAUTOCLAIM, XPENDING, XACK, XDEL
        ("RW", "dead"),  # XADD (dead-letter script)
        ("R", "games"),  # ZRANGEBYSCORE (the reconciler lists running games)
        ("RW", "reconciler"),  # XADD with an explicit id (the reconciler's lease)
    ),
    Role.DIRECTOR: (
        # Every key of a tournament log (events, head, command ids, pairing seed, token
        # bindings, archive): the append script, XRANGE, GET, HGETALL. Game ids never
        # start with "t-" (services.engine.domain.game_ids.NOT_A_GAME_PREFIX).
        ("RW", "game:t-*"),
        ("R", "game:*:events"),  # XRANGE (folds a finished table to rank and rate it)
        ("R", "game:*:head"),  # HMGET
        ("R", "game:*:snapshot"),  # GET
        ("R", "game:*:sealed"),  # HGETALL (a game folded with its secrets)
        ("R", "game:*:tokens"),  # HGETALL
        ("R", "game:*:archive"),  # GET (an archived table)
        ("RW", "finished"),  # XGROUP CREATE, XREADGROUP, XAUTOCLAIM, XACK, XDEL
        # The notifier (services.notices.notifier) on the players' login, in the gateway
        # process: XGROUP CREATE, XREADGROUP, XAUTOCLAIM, XACK, XDEL.
        ("RW", "player_turns"),
    ),
}

# Key patterns after ``<prefix>:`` alone (keys outside the shards' hash tags).
_PLAIN_KEYS: dict[Role, tuple[tuple[str, str], ...]] = {
    Role.DIRECTOR: (
        ("RW", "tournaments"),  # ZADD at creation, ZRANGEBYSCORE (List, the sweep)
        ("RW", "tournament:games"),  # HSET (tables of a round), HGET (the director)
        ("RW", "players"),  # HSETNX, HGET (a player name's token)
        ("RW", "{ratings:*}:players"),  # the ratings script, HGETALL (leaderboard)
        ("RW", "{ratings:*}:applied"),  # the ratings script (a game rated once)
        ("RW", "{ratings:*}:history:*"),  # the ratings script (LPUSH, LTRIM), LRANGE
        # The rater of games outside tournaments (services.ratings.rater): game_finished
        # notices (XADD to a player's inbox) and the per-game "notices sent" mark.
        ("RW", "{inbox:*}:*"),
        ("RW", "finished-noticed:*"),
        # Player accounts (services.players.repository): the register, credential and
        # revoke scripts, HMGET (a credential's holder), HGETALL (profiles, credentials).
        # TournamentService's login serves PlayerService too.
        ("RW", "{account}:*"),
        # Lobby and matchmaking (issue 32; services.lobby, services.matchmaking,
        # services.opener): tables, seeks and their streams.
        # TournamentService's login serves LobbyService and runs the matcher and opener.
        ("RW", "{lobby}:*"),
        ("RW", "{mm:*}:*"),
        ("RW", "mm:pools"),
        # Players' inboxes (services.notices): the notifier's post-once script (XADD and
        # the SET NX marker), a tournament_pairing notice's XADD, the hub's XREAD BLOCK,
        # XRANGE and XREVRANGE.
        ("RW", "{inbox:*}:*"),
    ),
}

_COMMANDS: dict[Role, tuple[str, ...]] = {
    Role.ENGINE: (
        "evalsha",
        "eval",  # the append script (EVAL once per server, after NOSCRIPT)
        "xadd",
        "xrevrange",
        "xrange",
        "hget",
        "hmget",
        "hset",
        "get",
        "set",
        "zadd",
        "hgetall",
        "xlen",  # the append and archive scripts (teoti archive runs as the engine's user)
        "del",
        "exists",
        "zrangebyscore",  # teoti archive walks the games index; the timekeeper's claim
        "zrem",  # the deadlines set (append and timekeeper scripts)
        "zscore",  # the timekeeper's reschedule script
    ),
    Role.GATEWAY: ("xrange", "xread", "hmget", "get", "zrangebyscore", "hgetall"),
    Role.BOT: (
        "evalsha",
        "eval",  # the ack / dead-letter script
        "xgroup|create",
        "xreadgroup",
        "xautoclaim",
        "xpending",
        "xlen",  # the metrics endpoint's queue depths (services.bot.queue.depths)
        "xack",
        "xdel",
        "xadd",
        "xrange",
        "get",
        "hgetall",
        "hmget",  # the reconciler's look at a game's head
        "zrangebyscore",  # the reconciler's list of games
    ),
    Role.DIRECTOR: (
        "evalsha",
        "eval",  # the append script, the ratings script
        "xadd",
        "xlen",  # the append script's check of a tournament log (issue 35)
        "xrevrange",
        "xrange",
        "xread",  # WatchTournament (XREAD BLOCK on the tournament log)
        "hget",
        "hmget",
        "hset",
        "hsetnx",
        "hgetall",
        "get",
        "set",
        "zadd",
        "zrangebyscore",
        "hdel",  # the revoke script (player credentials)
        "hexists",  # the credential script
        "hlen",  # the credential script (credentials a player holds)
        "exists",  # the register script (a player id drawn twice)
        "sismember",
        "sadd",
        "lrange",  # a player's rating history
        "lpush",  # the ratings script (history)
        "ltrim",  # the ratings script (history cap)
        "xgroup|create",
        "xreadgroup",
        "xautoclaim",
        "xack",
        "xdel",
        # Lobby and matchmaking (issue 32): a player's tables and seeks (ZRANGE, ZREM),
        # a pool's seeks (ZRANGE), the pools (HVALS), a matcher's lease (PEXPIRE), the
        # placement script (ZSCORE: every seek still waits).
        "zrange",
        "zscore",
        "zrem",
        "hvals",
        "pexpire",
        # The lobby's sweeper, once per deployment: the rematches stored before their
        # lapse index existed are put in it (services.lobby.redis_rematches).
        "hscan",
    ),
}

# Commands the Redis Cluster client sends to learn the slot map (CLUSTER SLOTS) and which
# arguments of a command are keys (COMMAND, COMMAND GETKEYS).
_CLUSTER_COMMANDS = ("cluster|slots", "command")

REDIS_7_2 = (7, 2)
"""The default server version of the rules (the dev overlay's Redis image)."""


def _handshake(version: tuple[int, ...]) -> list[str]:
    """What redis-py (8) sends on every new connection besides HELLO/AUTH, where the server
    takes a rule for it: CLIENT SETINFO (library name and version) and CLIENT
    MAINT_NOTIFICATIONS. The client carries on when either is refused, but a refusal
    still lands in ACL LOG, which should hold only real denials. Redis 6 accepts a rule
    for any subcommand name; Redis 7 only for subcommands it has, so SETINFO from 7.2
    and MAINT_NOTIFICATIONS (Redis 8) not at all: there its refusals show in ACL LOG.
    """
    if version[:1] < (7,):
        return ["client|setinfo", "client|maint_notifications"]
    return ["client|setinfo"] if version[:2] >= REDIS_7_2 else []


def _glob_escape(text: str) -> str:
    """``text`` matched literally inside a Redis glob pattern."""
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)


def key_patterns(
    role: Role, prefix: str = "teoti", redis_version: tuple[int, ...] = REDIS_7_2
) -> list[str]:
    """The role's key rules (``%R~...``/``~...``; on Redis 6 all ``~...``)."""
    tag = _glob_escape(prefix) + ":{s*}:"  # every shard's hash tag (RedisKeys._tag)
    plain = _glob_escape(prefix) + ":"
    rules = []
    for base, entries in ((tag, _KEYS[Role(role)]), (plain, _PLAIN_KEYS.get(Role(role), ()))):
        for access, suffix in entries:
            marker = "~" if access == "RW" or redis_version < (7,) else f"%{access}~"
            rules.append(f"{marker}{base}{suffix}")
    return rules


def acl_rules(
    role: Role,
    prefix: str = "teoti",
    redis_version: tuple[int, ...] = REDIS_7_2,
    cluster: bool = False,
) -> list[str]:
    """The rules of ``role``'s user on a server of ``redis_version`` (major, minor).

    Starts with ``reset`` (no keys, no channels, no commands, no password), so applying
    it again replaces the user's rules instead of adding to them; ``on`` and the
    password must come after it (see :func:`setuser_args`). ``cluster`` adds the
    commands a cluster client needs.
    """
    commands = list(_COMMANDS[Role(role)]) + (list(_CLUSTER_COMMANDS) if cluster else [])
    commands += _handshake(redis_version)
    # Every service PINGs its Redis before it says it is ready, and its readiness probe
    # goes on PINGing (services/app.py wait_for_store, services/rpc/store_readiness.py).
    commands.append("ping")
    return [
        "reset",
        "resetchannels",
        *key_patterns(role, prefix, redis_version),
        "-@all",
        *(f"+{command}" for command in commands),
    ]


def setuser_args(
    role: Role,
    username: str,
    password: str,
    prefix: str = "teoti",
    redis_version: tuple[int, ...] = REDIS_7_2,
    cluster: bool = False,
) -> list[str]:
    """Arguments of ``ACL SETUSER``: the user, enabled, with ``password`` and the rules."""
    rules = acl_rules(role, prefix, redis_version, cluster)
    return [username, *rules[:1], "on", f">{password}", *rules[1:]]


def password_variable(role: Role) -> str:
    """The shell variable :func:`redis_cli_lines` expects each role's password in."""
    return f"REDIS_{Role(role).upper()}_PASSWORD"


MIN_REDIS = (6, 2)
"""Oldest server the rules work on: ACL users came in 6.0, ``resetchannels`` in 6.2."""


def redis_cli_lines(
    prefix: str = "teoti",
    redis_version: tuple[int, ...] = REDIS_7_2,
    cluster: bool = False,
    usernames: dict[Role, str] | None = None,
) -> list[str]:
    """``redis-cli ACL SETUSER`` shell lines creating (or resetting) every role's user.

    Passwords are read from ``$REDIS_ENGINE_PASSWORD`` etc. when the lines run, so they
    never appear in this output; an unset or empty one stops the line with an error
    (``${VAR:?}``) rather than create a user whose password is empty. Every other word
    is quoted for the shell (patterns hold ``*`` and ``{``).
    """
    names = usernames or DEFAULT_USERNAMES
    lines = []
    for role in Role:
        rules = acl_rules(role, prefix, redis_version, cluster)
        words = [
            "redis-cli",
            "ACL",
            "SETUSER",
            shlex.quote(names[role]),
            rules[0],
            "on",
            f'">${{{password_variable(role)}:?set it first}}"',
            *(shlex.quote(rule) for rule in rules[1:]),
        ]
        lines.append(" ".join(words))
    return lines
