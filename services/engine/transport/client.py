"""The engine's command API as seen by the gateway and the bot, and its in-process adapter.

``EngineClient`` has two adapters: :class:`InProcessEngineClient` (calls an Engine in
this process) and ``services.engine.transport.remote.RemoteEngineClient`` (gRPC EngineService).
Both raise the same domain errors, so callers never care which one they hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from services.engine.domain.command_result import CommandResult
from services.engine.domain.engine import Engine
from services.engine.domain.game import SeatSpec
from services.engine.domain.timing.time_control import TimeControl


class EngineClient(Protocol):
    """Write side of the game service."""

    async def create_game(
        self,
        ruleset: str,
        seats: Sequence[SeatSpec],
        options: Mapping[str, Any],
        command_id: str = "",
        time_control: TimeControl | None = None,
        rated: bool = False,
    ) -> CommandResult:
        """Create a game (with clocks if ``time_control`` is set; counting for its
        players' ratings if ``rated``). Raises InvalidArgument (TimeControlInvalid,
        TimeoutPolicyUnsupported, RatedSeatsInvalid among them), UnknownRuleset,
        InvalidOptions."""
        ...

    async def submit_action(
        self,
        game_id: str,
        seat: int,
        action: Mapping[str, Any],
        expected_version: int | None = None,
        command_id: str = "",
        return_view: bool = False,
        public_reply: bool = False,
        action_json: str = "",
    ) -> CommandResult:
        """Decide and append one action; with ``return_view`` a separate engine also
        answers with the seat's view and legal actions after it (``CommandResult.view``),
        and with ``public_reply`` too as GameService's SubmitActionResponse serialized
        (``CommandResult.public_reply``, if the engine knows the field; issue 35).
        ``action_json``: the JSON text ``action`` was decoded from, if the caller has it
        (sent to a separate engine as it is, not encoded again; issue 35).

        Raises GameNotFound, InvalidArgument (unknown seat), RuleViolation (illegal),
        VersionConflict (stale ``expected_version``).
        """
        ...

    async def join_game(
        self,
        game_id: str,
        seat: int,
        name: str,
        token_hash: str,
        command_id: str = "",
        player: str = "",
    ) -> CommandResult:
        """Claim an open seat for a token's holder and/or the player ``player`` (see
        Engine.join_game). Raises GameNotFound, InvalidArgument, RuleViolation."""
        ...

    async def withdraw_seat(self, game_id: str, seat: int) -> CommandResult:
        """Apply the game's timeout policy to the human ``seat`` now: its tournament player
        withdrew (see Engine.withdraw_seat; nothing appended if there is nothing to settle,
        then ``first_version`` equals ``version``). Raises GameNotFound, InvalidArgument."""
        ...

    async def resign_seat(self, game_id: str, seat: int, command_id: str = "") -> CommandResult:
        """``seat``'s player resigns (see Engine.resign_seat; the caller checked the
        seat's token). Raises GameNotFound, InvalidArgument, RuleViolation."""
        ...

    async def claim_seat_for_bot(
        self, game_id: str, seat: int, claimed_by: int, command_id: str = ""
    ) -> CommandResult:
        """Seat ``claimed_by``'s player hands ``seat`` to a bot (see
        Engine.claim_seat_for_bot; the caller checked ``claimed_by``'s token). Raises
        GameNotFound, InvalidArgument, RuleViolation."""
        ...

    async def close(self) -> None:
        """Release resources (channels)."""
        ...


class InProcessEngineClient:
    """EngineClient calling an :class:`Engine` directly (``teoti serve``, tests).

    ``bot_key`` is the engine's bot credential for the bot worker's client, "" for the
    gateway's (whose commands for bot seats the engine then refuses).
    """

    def __init__(self, engine: Engine, bot_key: str = "") -> None:
        self._engine = engine
        self._bot_key = bot_key

    async def create_game(
        self,
        ruleset: str,
        seats: Sequence[SeatSpec],
        options: Mapping[str, Any],
        command_id: str = "",
        time_control: TimeControl | None = None,
        rated: bool = False,
    ) -> CommandResult:
        """See EngineClient.create_game."""
        return await self._engine.create_game(
            ruleset, seats, options, command_id, time_control, rated
        )

    async def submit_action(
        self,
        game_id: str,
        seat: int,
        action: Mapping[str, Any],
        expected_version: int | None = None,
        command_id: str = "",
        return_view: bool = False,
        public_reply: bool = False,
        action_json: str = "",
    ) -> CommandResult:
        """See EngineClient.submit_action. ``return_view`` and ``public_reply`` ask
        nothing more here: the caller reads the game from the cache it shares with this
        engine (no ``view``, no ``public_reply``), and serializes its answer once."""
        return await self._engine.submit_action(
            game_id, seat, action, expected_version, command_id, bot_key=self._bot_key
        )

    async def join_game(
        self,
        game_id: str,
        seat: int,
        name: str,
        token_hash: str,
        command_id: str = "",
        player: str = "",
    ) -> CommandResult:
        """See EngineClient.join_game."""
        return await self._engine.join_game(game_id, seat, name, token_hash, command_id, player)

    async def withdraw_seat(self, game_id: str, seat: int) -> CommandResult:
        """See EngineClient.withdraw_seat."""
        return await self._engine.withdraw_seat(game_id, seat)

    async def resign_seat(self, game_id: str, seat: int, command_id: str = "") -> CommandResult:
        """See EngineClient.resign_seat."""
        return await self._engine.resign_seat(game_id, seat, command_id)

    async def claim_seat_for_bot(
        self, game_id: str, seat: int, claimed_by: int, command_id: str = ""
    ) -> CommandResult:
        """See EngineClient.claim_seat_for_bot."""
        return await self._engine.claim_seat_for_bot(game_id, seat, claimed_by, command_id)

    async def close(self) -> None:
        """The engine is owned by whoever built it."""
