"""The outcome of an accepted command, as every way of reaching the engine returns it.

The engine (:meth:`services.engine.domain.engine.Engine.create_game` and the other
commands) builds it; the transports (:mod:`services.engine.transport`) carry it to the
gateway and the bot worker unchanged in shape, whichever way the call travelled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.engine.domain.records import StoredEvent


@dataclass(frozen=True, slots=True)
class CommandResult:
    """Outcome of an accepted command.

    Attributes:
        game_id: the game written to.
        version: version of the log after the command.
        first_version: version of the command's first event.
        written: the events this command appended, as stored (SubmitAction and
            CreateGame; empty for a command id applied before, from engines that do not
            send them, and with a ``view``). Not compared: a retried command has the
            same result without them.
        view: only for a SubmitAction with ``return_view`` answered by a separate
            engine: its EngineServiceSubmitActionResponse, whose ``game`` (a
            GetGameResponse) and ``legal_actions`` are the acting seat's view of the
            game right after the action (its version, or later if others acted since)
            and its legal actions there, as GetGame and ListLegalActions show them to
            the seat. None when the caller must project the game itself: an engine in
            this process (whose cache the caller shares), or one from before
            return_view. Not compared.
        public_reply: only for a SubmitAction with ``return_view`` and
            ``public_reply`` answered by a separate engine that knows the field: the
            public ``gameserver.v1.SubmitActionResponse`` (version numbers, the seat's
            view and legal actions) as the engine serialized it, which the gateway's gRPC
            face sends on unparsed (issue 35); ``view`` is then None. Empty otherwise.
            Not compared.
    """

    game_id: str
    version: int
    first_version: int
    written: tuple[StoredEvent, ...] = field(default=(), compare=False)
    view: Any = field(default=None, compare=False)
    public_reply: bytes = field(default=b"", compare=False)
