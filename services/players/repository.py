"""Player accounts in Redis: one hash tag, so each script touches one cluster slot.

Keys, under the deployment's prefix (``<prefix>:players`` is the tournaments' name claim,
services.tournament.repository; accounts use none of its keys):

- ``<prefix>:{account}:names``                 hash, name identity
  (services.players.names.name_key) -> player id: one account per identity
- ``<prefix>:{account}:player:<id>``           hash {name, name_key, bot ("1"/"0"),
  created_at}: the public profile
- ``<prefix>:{account}:player:<id>:credentials`` hash, credential id ->
  ``{"label", "created_at", "hash"}`` (JSON; ``hash``: SHA-256 hex of the secret)
- ``<prefix>:{account}:credentials``           hash, SHA-256 hex of a credential ->
  ``"<player id> <credential id>"``: what authenticates a call (one HGET)
- ``<prefix>:{account}:player:<id>:webhooks`` and ``...:webhook-state``: a credential's
  webhook and its delivery (services.players.webhooks)
- ``<prefix>:{account}:commands``              hash, ``<scope>|<command id>`` ->
  ``"<result id> <SHA-256 of the request>"``: a retried command finds its result
  (``register|<id>``: ``<player id>/<first credential id>``; ``credential|<player
  id>|<id>``: the credential id)

Registration, a new credential and a revoke are each one Lua script: two registrations
of one identity can never both succeed, from any number of gateways, and a revoked
credential is gone from the lookup hash in the same step (the next call, on any gateway,
is refused: nothing caches a credential).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from redis.exceptions import NoScriptError

from services.engine.adapters.redis_client import RedisClient
from services.players.model import CredentialInfo, Player
from services.players.webhooks import RedisWebhooks, state_key, webhooks_key

TAG = "{account}"

# KEYS: 1 names, 2 commands, 3 credentials, 4 player, 5 player's credentials.
# ARGV: 1 name key, 2 display, 3 bot, 4 created_at, 5 player id, 6 command field ('' none),
# 7 request hash, 8 credential hash, 9 credential id, 10 credential json.
# Returns {'ok'}, {'dup', '<player id>/<credential id> <request hash>'}, {'taken'}, {'clash'}
# ('clash': the id or the credential is in use already: draw again / credential_taken).
_REGISTER = """
if ARGV[6] ~= '' then
  local seen = redis.call('HGET', KEYS[2], ARGV[6])
  if seen then return {'dup', seen} end
end
if redis.call('HGET', KEYS[1], ARGV[1]) then return {'taken'} end
if redis.call('EXISTS', KEYS[4]) == 1 then return {'clash'} end
if redis.call('HSETNX', KEYS[3], ARGV[8], ARGV[5] .. ' ' .. ARGV[9]) == 0 then
  return {'credential_taken'}
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[5])
redis.call('HSET', KEYS[4], 'name', ARGV[2], 'name_key', ARGV[1], 'bot', ARGV[3],
  'created_at', ARGV[4])
redis.call('HSET', KEYS[5], ARGV[9], ARGV[10])
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[2], ARGV[6], ARGV[5] .. '/' .. ARGV[9] .. ' ' .. ARGV[7])
end
return {'ok'}
"""

# KEYS: 1 commands, 2 credentials, 3 player's credentials.
# ARGV: 1 command field ('' none), 2 request hash, 3 credential hash, 4 player id,
# 5 credential id, 6 credential json, 7 most credentials a player may hold.
_ADD_CREDENTIAL = """
if ARGV[1] ~= '' then
  local seen = redis.call('HGET', KEYS[1], ARGV[1])
  if seen then return {'dup', seen} end
end
if redis.call('HLEN', KEYS[3]) >= tonumber(ARGV[7]) then return {'full'} end
if redis.call('HEXISTS', KEYS[3], ARGV[5]) == 1 then return {'clash'} end
if redis.call('HSETNX', KEYS[2], ARGV[3], ARGV[4] .. ' ' .. ARGV[5]) == 0 then
  return {'credential_taken'}
end
redis.call('HSET', KEYS[3], ARGV[5], ARGV[6])
if ARGV[1] ~= '' then redis.call('HSET', KEYS[1], ARGV[1], ARGV[5] .. ' ' .. ARGV[2]) end
return {'ok'}
"""

# KEYS: 1 credentials, 2 player's credentials, 3 player's webhooks, 4 their delivery
# states (services.players.webhooks). ARGV: 1 credential id. Returns 1 if revoked.
_REVOKE = """
local stored = redis.call('HGET', KEYS[2], ARGV[1])
if not stored then return 0 end
redis.call('HDEL', KEYS[1], cjson.decode(stored)['hash'])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
return 1
"""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a write script answered: ``status`` (``ok``, ``dup``, ``taken``, ``clash``,
    ``credential_taken``, ``full``) and, for ``dup``, the recorded result id and request
    hash."""

    status: str
    result_id: str = ""
    request_hash: str = ""


def request_digest(*parts: str) -> str:
    """SHA-256 hex of a command's content (what a retry must repeat)."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


class PlayerRepository:
    """The account keys of one deployment (see the module doc).

    Args:
        client: a Redis client that may write the ``{account}`` keys (in a split
            deployment, TournamentService's login: docs/operations.md "Redis users").
        prefix: the deployment's key prefix.
    """

    def __init__(self, client: RedisClient, prefix: str) -> None:
        self._redis = client
        base = f"{prefix}:{TAG}"
        self._names = f"{base}:names"
        self._credentials = f"{base}:credentials"
        self._commands = f"{base}:commands"
        self._base = base
        self._prefix = prefix
        self.webhooks = RedisWebhooks(client, prefix)
        """The players' webhooks, on the same client and prefix (services.players.webhooks)."""

    def _player_key(self, player_id: str) -> str:
        return f"{self._base}:player:{player_id}"

    def _player_credentials(self, player_id: str) -> str:
        return f"{self._base}:player:{player_id}:credentials"

    async def _run(self, script: str, keys: Sequence[str], args: Sequence[str]) -> Outcome:
        sha = hashlib.sha1(script.encode()).hexdigest()
        try:
            reply: Any = await self._redis.evalsha(sha, len(keys), *keys, *args)
        except NoScriptError:
            reply = await self._redis.eval(script, len(keys), *keys, *args)
        status = _text(reply[0])
        if status != "dup":
            return Outcome(status)
        result_id, _, request_hash = _text(reply[1]).partition(" ")
        return Outcome(status, result_id, request_hash)

    async def register(
        self,
        player: Player,
        command_field: str,
        request_hash: str,
        credential_hash: str,
        credential: CredentialInfo,
    ) -> Outcome:
        """Create ``player`` with its first credential, unless its name identity is
        taken (``taken``), its id or credential is in use (``clash``,
        ``credential_taken``) or ``command_field`` ("" for none) ran before (``dup``)."""
        return await self._run(
            _REGISTER,
            [
                self._names,
                self._commands,
                self._credentials,
                self._player_key(player.player_id),
                self._player_credentials(player.player_id),
            ],
            [
                player.name_key,
                player.name,
                "1" if player.bot else "0",
                player.created_at,
                player.player_id,
                command_field,
                request_hash,
                credential_hash,
                credential.credential_id,
                _credential_json(credential, credential_hash),
            ],
        )

    async def add_credential(
        self,
        player_id: str,
        command_field: str,
        request_hash: str,
        credential_hash: str,
        credential: CredentialInfo,
        limit: int,
    ) -> Outcome:
        """Give ``player_id`` one more credential, unless it holds ``limit`` already
        (``full``), the id or secret is in use (``clash``, ``credential_taken``) or
        ``command_field`` ran before (``dup``)."""
        return await self._run(
            _ADD_CREDENTIAL,
            [self._commands, self._credentials, self._player_credentials(player_id)],
            [
                command_field,
                request_hash,
                credential_hash,
                player_id,
                credential.credential_id,
                _credential_json(credential, credential_hash),
                str(limit),
            ],
        )

    async def revoke(self, player_id: str, credential_id: str) -> bool:
        """Delete a credential of ``player_id``, its lookup entry and its webhook
        (services.players.webhooks) at once; False if the player has no such credential."""
        sha = hashlib.sha1(_REVOKE.encode()).hexdigest()
        keys = [
            self._credentials,
            self._player_credentials(player_id),
            webhooks_key(self._prefix, player_id),
            state_key(self._prefix, player_id),
        ]
        try:
            reply: Any = await self._redis.evalsha(sha, len(keys), *keys, credential_id)
        except NoScriptError:
            reply = await self._redis.eval(_REVOKE, len(keys), *keys, credential_id)
        return bool(int(reply))

    async def holder(self, credential_hash: str) -> tuple[str, str] | None:
        """(player id, credential id) holding the credential hashed ``credential_hash``,
        or None (unknown or revoked). One HMGET (the gateway's Redis users may run it)."""
        reply: Any = await self._redis.hmget(self._credentials, [credential_hash])
        if not reply or not reply[0]:
            return None
        player_id, _, credential_id = _text(reply[0]).partition(" ")
        return player_id, credential_id

    async def player(self, player_id: str) -> Player | None:
        """The profile of ``player_id``, or None."""
        stored: Any = await self._redis.hgetall(self._player_key(player_id))
        if not stored:
            return None
        fields = {_text(k): _text(v) for k, v in stored.items()}
        return Player(
            player_id=player_id,
            name=fields.get("name", ""),
            name_key=fields.get("name_key", ""),
            bot=fields.get("bot") == "1",
            created_at=fields.get("created_at", ""),
        )

    async def player_named(self, key: str) -> str | None:
        """The id of the player whose name identity is ``key``, or None."""
        reply: Any = await self._redis.hmget(self._names, [key])
        return _text(reply[0]) if reply and reply[0] else None

    async def credentials(self, player_id: str) -> list[CredentialInfo]:
        """``player_id``'s credentials, oldest first (never their hashes)."""
        stored: Any = await self._redis.hgetall(self._player_credentials(player_id))
        result = []
        for credential_id, text in (stored or {}).items():
            data = json.loads(_text(text))
            result.append(
                CredentialInfo(_text(credential_id), str(data["label"]), str(data["created_at"]))
            )
        return sorted(result, key=lambda c: (c.created_at, c.credential_id))


def _credential_json(credential: CredentialInfo, credential_hash: str) -> str:
    return json.dumps(
        {"label": credential.label, "created_at": credential.created_at, "hash": credential_hash},
        sort_keys=True,
    )


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)
