"""The game as the terminal client sees it, through ``TeotiClient`` only.

``Session`` is one game seen by one seat (or by a watcher: ``seat is None``): it fetches
``Frame``s (the projection plus the seat's legal actions), submits actions and streams
events. ``create_game`` sets up a game of any ruleset against bots, preferring the
ruleset's solo mode (its ``RulesetInfo.solo``) when it has one.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from services.client import GameView, LegalMove, SeatInfo, TeotiClient, TimeControl
from services.engine.domain.errors import InvalidArgument, InvalidOptions, UnknownRuleset
from services.engine.domain.records import StoredEvent
from services.engine.domain.ruleset import RulesetInfo
from services.engine.domain.rulesets import RulesetRegistry, default_registry, default_ruleset
from services.safe_text import printable


@dataclass(frozen=True, slots=True)
class Frame:
    """What the screen shows at one version.

    Attributes:
        view: the projection (``state`` is ``view()`` of the ruleset) and seats.
        legal: the viewing seat's legal actions now (empty for a watcher or off turn).
    """

    view: GameView
    legal: tuple[LegalMove, ...] = ()

    @property
    def version(self) -> int:
        """Version of the log this frame shows."""
        return self.view.version

    @property
    def names(self) -> tuple[str, ...]:
        """Seat names in seat order (control characters escaped: names from old logs
        may hold terminal escapes)."""
        return tuple(printable(s.name) for s in self.view.seats)


@dataclass(frozen=True, slots=True)
class NewGame:
    """A game created for a person: its id, the person's seat and token, and how.

    Attributes:
        solo: True if the server plays the ruleset's solo mode (its solo options
            accepted); False for a plain game against bot seats.
        opponent: the solo opponent's name (e.g. ``"Teotibot"``), else ``""``.
    """

    game_id: str
    seat: int
    token: str
    solo: bool
    opponent: str = ""


def ruleset_info(ruleset: str = "", registry: RulesetRegistry | None = None) -> RulesetInfo:
    """The ``RulesetInfo`` of ``ruleset`` ("" = the default) as this client's registry
    knows it; a ruleset it cannot load gets the permissive default (no solo mode)."""
    name = ruleset or default_ruleset()
    try:
        return (registry or default_registry()).declaration(name).info
    except UnknownRuleset:
        return RulesetInfo(name, 1, 8)  # as info_of's default: the server checks seats


async def create_game(
    client: TeotiClient,
    name: str = "Player",
    players: int = 2,
    solo: bool = True,
    options: Mapping[str, Any] | None = None,
    ruleset: str = "",
    info: RulesetInfo | None = None,
    time_control: TimeControl | None = None,
) -> NewGame:
    """Create a game of ``ruleset`` ("" = the server's default): the person at seat 0,
    bots on the other ``players - 1`` seats; ``time_control``: the person's clock (None:
    none; the server refuses one it cannot run, InvalidArgument).

    With ``solo``, a ruleset with a solo mode (``info.solo``, default: from this client's
    registry, see :func:`ruleset_info`) and ``players`` equal to its seat count, it asks
    for the solo mode first; a server that refuses its options (InvalidOptions) gets a
    plain game with bot seats instead, and ``NewGame.solo`` says which one was made. The
    server checks the seat count (InvalidOptions, rule ``seat_count``).
    """
    token = uuid.uuid4().hex
    extra = dict(options or {})
    mode = (info or ruleset_info(ruleset)).solo
    if solo and mode is not None and players == mode.seats:
        seats = [SeatInfo("human", name, token=token)]
        seats += [SeatInfo("bot", mode.opponent) for _ in range(mode.seats - 1)]
        try:
            created = await client.create_game(
                seats,
                ruleset=ruleset,
                options={**extra, **mode.options},
                command_id=f"play:{uuid.uuid4().hex}",
                time_control=time_control,
            )
        except (InvalidOptions, InvalidArgument):
            pass
        else:
            seat_token = created.seat_tokens.get(0, token)
            return NewGame(created.game_id, 0, seat_token, True, mode.opponent)
    seats = [SeatInfo("human", name, token=token)] + [
        SeatInfo("bot", f"Bot {i}") for i in range(1, players)
    ]
    created = await client.create_game(
        seats,
        ruleset=ruleset,
        options=extra,
        command_id=f"play:{uuid.uuid4().hex}",
        time_control=time_control,
    )
    return NewGame(created.game_id, 0, created.seat_tokens.get(0, token), False)


@dataclass
class Session:
    """One game through one client, as ``seat`` (with ``token``) or as a watcher."""

    client: TeotiClient
    game_id: str
    seat: int | None = None
    token: str = ""
    solo: bool = False
    submitted: int = field(default=0, init=False)

    @property
    def read_only(self) -> bool:
        """True for a watcher."""
        return self.seat is None

    async def frame(self) -> Frame:
        """The current projection (this seat's view) and its legal actions."""
        view = await self.client.get_game(self.game_id, self.seat, self.token)
        if self.seat is None or view.finished or self.seat not in view.seats_to_act:
            return Frame(view)
        legal = await self.client.legal_actions(self.game_id, self.seat, self.token)
        return Frame(view, tuple(legal))

    async def submit(self, action: Mapping[str, Any], expected_version: int | None) -> int:
        """Submit ``action``; returns the new version.

        Raises RuleViolation (with the broken rule and its explanation), VersionConflict
        when the game moved on since ``expected_version``, or NotAuthorized.
        """
        if self.seat is None:
            raise PermissionError("watching: no seat to act for")
        self.submitted += 1
        result = await self.client.submit_action(
            self.game_id,
            self.seat,
            self.token,
            action,
            expected_version=expected_version,
            command_id=f"tui:{self.game_id}:{uuid.uuid4().hex}",
        )
        return result.version

    async def resign(self) -> str:
        """Resign this seat (ResignSeat); returns what it did (``game_ended``,
        ``forfeited`` or ``taken_over``). Raises RuleViolation (``game_over``,
        ``seat_out``), NotAuthorized, PermissionError for a watcher."""
        if self.seat is None:
            raise PermissionError("watching: no seat to resign")
        resigned = await self.client.resign(
            self.game_id, self.seat, self.token, command_id=f"tui-resign:{self.game_id}"
        )
        return resigned.outcome

    async def join(self, seat: int, name: str) -> str:
        """Claim open ``seat``; the session then plays it."""
        self.token = await self.client.join_game(self.game_id, seat, name, self.token)
        self.seat = seat
        return self.token

    def events(self, from_version: int = 0) -> AsyncIterator[StoredEvent]:
        """Events as they are recorded (WatchGame), ending with the game."""
        return self.client.watch(self.game_id, from_version)

    async def all_events(self) -> list[StoredEvent]:
        """The whole log so far (ListEvents)."""
        return await self.client.events(self.game_id)
