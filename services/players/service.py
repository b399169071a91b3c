"""The player application service: register, credentials, profiles, authentication
(a credential's webhook: services.players.webhook_service).

Free of gRPC: the gateway's PlayerService (services.gateway.player_servicer) and the
seat checks of GameService call it. Nothing here logs, returns or stores a credential's
secret but the one reply that made it; only its SHA-256 is kept
(services.players.repository).
"""

from __future__ import annotations

import secrets

import structlog

from services.engine.domain.clock import Clock, iso, system_clock
from services.players.credentials import (
    MAX_CREDENTIAL_LENGTH,
    check_client_credential,
    credential_hash,
    is_player_credential,
    new_credential,
)
from services.players.errors import (
    CredentialNotFound,
    InvalidPlayer,
    NotYourPlayer,
    PlayerNotFound,
    PlayerRefused,
)
from services.players.model import CredentialInfo, Player
from services.players.names import display_name, name_key
from services.players.repository import Outcome, PlayerRepository, request_digest

log = structlog.get_logger(__name__)

MAX_CREDENTIALS = 20
"""Credentials a player may hold at once (one per device or bot, with room to spare)."""
MAX_LABEL_LENGTH = 40
MAX_COMMAND_ID_LENGTH = 128
MAX_ATTEMPTS = 8
INVALID_CREDENTIAL = "player_credential_invalid"


def new_player_id() -> str:
    """An opaque random player id: 80 bits as 20 hex digits."""
    return secrets.token_hex(10)


def new_credential_id() -> str:
    """A credential's id within its player: 48 random bits as 12 hex digits."""
    return secrets.token_hex(6)


def check_label(label: str) -> str:
    """``label`` trimmed if it is 0 to MAX_LABEL_LENGTH printable characters, else
    InvalidPlayer ``credential_label``."""
    label = label.strip()
    if len(label) > MAX_LABEL_LENGTH or not label.isprintable():
        raise InvalidPlayer(
            "credential_label",
            f"a credential label is at most {MAX_LABEL_LENGTH} printable characters",
        )
    return label


def check_command_id(command_id: str) -> str:
    """``command_id`` if at most MAX_COMMAND_ID_LENGTH printable characters, else
    InvalidPlayer ``command_id``."""
    if len(command_id) > MAX_COMMAND_ID_LENGTH or not command_id.isprintable():
        raise InvalidPlayer(
            "command_id", f"a command id is at most {MAX_COMMAND_ID_LENGTH} printable characters"
        )
    return command_id


class PlayerService:
    """Player accounts and their credentials.

    Args:
        repo: the account keys (services.players.repository).
        clock: time recorded on accounts and credentials.
        webhooks_allow_private: the deployment's players' webhooks may be ``http`` and
            point at loopback or private addresses (``--webhooks-allow-private``: tests,
            a laptop, a deployment delivering inside its own network). Its faces'
            PlayerService calls read it (services.gateway.player_servicer), so the gRPC
            and web faces of one process apply the same rule.
    """

    def __init__(
        self,
        repo: PlayerRepository,
        clock: Clock = system_clock,
        webhooks_allow_private: bool = False,
    ) -> None:
        self.repo = repo
        self._clock = clock
        self.webhooks_allow_private = webhooks_allow_private

    async def register(
        self,
        name: str,
        bot: bool = False,
        command_id: str = "",
        credential: str = "",
        label: str = "",
    ) -> tuple[Player, CredentialInfo, str]:
        """Register the player ``name`` (a bot account if ``bot``) with a first
        credential labelled ``label``: ``credential`` if the client chose one (see
        services.players.credentials), else a new one. Returns (player, the
        credential's description, the credential).

        Retries: a register with the ``command_id`` of an earlier one and the same name,
        bot flag and label returns that player, and the credential it sent if it chose
        one that player holds, else "" (a server-made credential is shown once and never
        kept: the CreateTournament rule for its organiser token). Raises InvalidPlayer
        (``player_name``, ``credential_label``, ``player_credential_strength``,
        ``command_id``), PlayerRefused ``name_taken`` (another account holds the name's
        identity), ``command_id_reused`` (the id registered something else),
        ``credential_taken`` (a chosen credential in use)."""
        display = display_name(name)
        key = name_key(display)
        label = check_label(label)
        chosen = check_client_credential(credential) if credential else ""
        secret = chosen or new_credential()
        hashed = credential_hash(secret)
        field = f"register|{check_command_id(command_id)}" if command_id else ""
        digest = request_digest("register", key, "1" if bot else "0", label)
        for _attempt in range(MAX_ATTEMPTS):
            now = iso(self._clock())
            player = Player(new_player_id(), display, key, bot, now)
            first = CredentialInfo(new_credential_id(), label, now)
            outcome = await self.repo.register(player, field, digest, hashed, first)
            if outcome.status == "ok":
                log.info("player_registered", player_id=player.player_id, bot=bot)
                return player, first, secret
            if outcome.status == "dup":
                existing = await self._retried(outcome, digest)
                _, _, first_id = outcome.result_id.partition("/")
                shown = CredentialInfo(first_id, label, existing.created_at)
                holder = await self.repo.holder(hashed) if chosen else None
                held = holder is not None and holder == (existing.player_id, first_id)
                return existing, shown, chosen if held else ""
            if outcome.status == "taken":
                raise PlayerRefused(
                    "name_taken", f"the player name {display!r} belongs to another player"
                )
            if outcome.status == "credential_taken":
                if chosen:
                    raise _credential_taken()
                secret = new_credential()  # 256 random bits met twice: draw again
                hashed = credential_hash(secret)
        raise RuntimeError("player ids kept clashing")  # 80 random bits: never

    async def _retried(self, outcome: Outcome, digest: str) -> Player:
        """The player a retried register made, or PlayerRefused ``command_id_reused``."""
        if not secrets.compare_digest(outcome.request_hash, digest):
            raise PlayerRefused(
                "command_id_reused",
                "this command id registered another request; choose a new command id",
            )
        return await self.get(outcome.result_id.partition("/")[0])

    async def create_credential(
        self, player_id: str, label: str = "", command_id: str = "", credential: str = ""
    ) -> tuple[CredentialInfo, str]:
        """Give ``player_id`` another credential labelled ``label`` (``credential`` if
        the client chose one, else a new one). Returns (its description, the secret).
        A retry (same ``command_id`` and label) returns the credential it made, with the
        secret only if the retry sent its chosen one again (else ""). Raises
        InvalidPlayer, PlayerRefused (``too_many_credentials``: MAX_CREDENTIALS held,
        ``command_id_reused``, ``credential_taken``)."""
        label = check_label(label)
        chosen = check_client_credential(credential) if credential else ""
        secret = chosen or new_credential()
        hashed = credential_hash(secret)
        field = f"credential|{player_id}|{check_command_id(command_id)}" if command_id else ""
        digest = request_digest("credential", player_id, label)
        for _attempt in range(MAX_ATTEMPTS):
            info = CredentialInfo(new_credential_id(), label, iso(self._clock()))
            outcome = await self.repo.add_credential(
                player_id, field, digest, hashed, info, MAX_CREDENTIALS
            )
            if outcome.status == "ok":
                log.info(
                    "player_credential_created",
                    player_id=player_id,
                    credential_id=info.credential_id,
                )
                return info, secret
            if outcome.status == "dup":
                if not secrets.compare_digest(outcome.request_hash, digest):
                    raise PlayerRefused(
                        "command_id_reused",
                        "this command id created another credential; choose a new command id",
                    )
                made = [
                    c
                    for c in await self.repo.credentials(player_id)
                    if c.credential_id == outcome.result_id
                ]
                if not made:  # revoked since: nothing left to return
                    raise CredentialNotFound(outcome.result_id)
                holder = await self.repo.holder(hashed) if chosen else None
                return made[0], chosen if holder and holder[1] == outcome.result_id else ""
            if outcome.status == "full":
                raise PlayerRefused(
                    "too_many_credentials",
                    f"a player holds at most {MAX_CREDENTIALS} credentials; revoke one first",
                )
            if outcome.status == "credential_taken":
                if chosen:
                    raise _credential_taken()
                secret = new_credential()  # 256 random bits met twice: draw again
                hashed = credential_hash(secret)
        raise RuntimeError("credential ids kept clashing")

    async def list_credentials(self, player_id: str) -> list[CredentialInfo]:
        """``player_id``'s credentials, oldest first: ids, labels, times, never secrets."""
        return await self.repo.credentials(player_id)

    async def revoke(self, player_id: str, credential_id: str) -> None:
        """Revoke a credential of ``player_id``: the next call with it, on any gateway,
        is refused. Raises CredentialNotFound if the player holds no such credential."""
        if not await self.repo.revoke(player_id, credential_id[:64]):
            raise CredentialNotFound(credential_id[:64])
        log.info("player_credential_revoked", player_id=player_id, credential_id=credential_id[:64])

    async def get(self, player_id: str) -> Player:
        """The public profile of ``player_id``. Raises PlayerNotFound."""
        player = await self.repo.player(player_id[:64]) if player_id else None
        if player is None:
            raise PlayerNotFound(player_id[:64])
        return player

    async def named(self, name: str) -> Player:
        """The public profile of the player whose name has the identity of ``name``.
        Raises PlayerNotFound."""
        player_id = await self.repo.player_named(name_key(name[:200]))
        if player_id is None:
            raise PlayerNotFound(name[:64])
        return await self.get(player_id)

    async def authenticate(self, credential: str) -> str:
        """The id of the player holding ``credential`` (checked against Redis on every
        call, so a revoke takes effect at once everywhere). Raises NotYourPlayer
        ``player_credential_invalid`` (empty, malformed, unknown or revoked)."""
        return (await self.whoami(credential))[0]

    async def whoami(self, credential: str) -> tuple[str, str]:
        """(player id, credential id) of ``credential``; raises as :meth:`authenticate`."""
        if not is_player_credential(credential) or len(credential) > MAX_CREDENTIAL_LENGTH:
            raise NotYourPlayer(INVALID_CREDENTIAL, "this call needs a valid player credential")
        holder = await self.repo.holder(credential_hash(credential))
        if holder is None:
            raise NotYourPlayer(
                INVALID_CREDENTIAL, "unknown or revoked player credential; register or get one"
            )
        return holder


def _credential_taken() -> PlayerRefused:
    return PlayerRefused(
        "credential_taken", "this credential is in use; choose another or leave it empty"
    )
