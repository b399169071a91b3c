"""The contract between the generic game service and one game's rules.

The event store, engine, gateway and bot worker know no game: they
talk to a :class:`Ruleset`. A ruleset is pure (no I/O, no clock, no global randomness):
random outcomes come in through the ``rng`` argument and are written into the events it
returns (RULES.md D7), so folding events never draws randomness again.

Actions and event payloads cross this boundary as JSON-safe mappings so that every
service, the wire format and the event log share one representation.

Hidden information never enters a payload in clear: a ruleset puts it in
``DomainEvent.sealed`` and the engine logs only a salted commitment to it (see
:mod:`services.engine.domain.commitments`), reveals it when the ruleset says so
(``DomainEvent.reveals``) and at the latest when the game ends. The public log is
therefore exactly what is stored and hash-chained: nothing is redacted after hashing.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol, TypeVar, cast

JsonDict = dict[str, Any]

StateT = TypeVar("StateT")


@dataclass(frozen=True, slots=True)
class Sealed:
    """A hidden value of an event: only a salted commitment to it enters the public log.

    Attributes:
        value: JSON-safe hidden value (e.g. a seat's secret choice of starting tiles).
        seats: seats entitled to see it before it is revealed (empty: nobody, e.g. the
            contents of a bag).
    """

    value: Any
    seats: tuple[int, ...] = ()


SEALED_KEY = "sealed"
"""Payload key the engine reserves for commitments (see docs/events.md, "Commitments")."""


@dataclass(frozen=True, slots=True)
class DomainEvent:
    """One fact produced by a ruleset.

    Attributes:
        type: past-tense event name, e.g. ``"WorkerMoved"``.
        payload: JSON-safe PUBLIC data of the fact: stored, hash-chained and shown to
            every reader as is. It must not use the key ``"sealed"`` (the engine's).
        schema_version: version of this event type's payload layout (starts at 1).
        sealed: hidden parts by secret id (unique within a game, chosen by the ruleset,
            e.g. ``"choice:2"``). The engine logs a salted commitment to each in
            ``payload["sealed"][id]`` and keeps value and nonce in service-only storage.
            When folding, a ruleset finds here the values the folder may know (the
            engine and gateway: all; a public auditor: none) and must fold either way.
        reveals: ids of earlier secrets this event makes public (the engine appends
            ``SecretsRevealed`` with their values and nonces right after it).
    """

    type: str
    payload: Mapping[str, Any]
    schema_version: int = 1
    sealed: Mapping[str, Sealed] = field(default_factory=dict)
    reveals: tuple[str, ...] = ()

    def sealed_ids(self) -> tuple[str, ...]:
        """Ids of the secrets this event commits to (from ``sealed`` or, read back from
        the log, from the commitments in its payload)."""
        committed = self.payload.get(SEALED_KEY)
        if isinstance(committed, Mapping):
            return tuple(committed)
        return tuple(self.sealed)


class RuleViolation(Exception):
    """A command broke a rule; nothing was changed.

    Attributes:
        rule: short stable id of the broken rule, e.g. ``"RULES.md §3"`` or ``"not_your_turn"``.
        message: human explanation naming the rule.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message


class InvalidOptions(RuleViolation):
    """Game options or seat list that the ruleset cannot set up."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """Final result of a terminal game.

    Attributes:
        scores: final score per seat index.
        ranking: seat indices from winner to last, ties already broken by the rules.
    """

    scores: tuple[int, ...]
    ranking: tuple[int, ...]

    @property
    def winner(self) -> int:
        """Seat index of the winner."""
        return self.ranking[0]


@dataclass(frozen=True, slots=True)
class SetupRequest:
    """What a ruleset needs to set up a game.

    Attributes:
        seat_count: number of seats (players).
        options: ruleset-specific options, already JSON-decoded.
        seat_names: display names, one per seat.
    """

    seat_count: int
    options: Mapping[str, Any] = field(default_factory=dict)
    seat_names: tuple[str, ...] = ()


class Capability(Enum):
    """An OPTIONAL part of the ruleset contract that a game declares it implements
    (``GameDeclaration.capabilities``), so the platform reads it as data instead of
    probing the ruleset with ``getattr``. Values are stable names (docs, errors)."""

    # Identity hash in C: members are singletons, and decide_and_fold tests APPLY on every
    # step (Enum's own __hash__ is a Python call, about 0.3 us more per step).
    __hash__ = object.__hash__

    APPLY = "apply"
    """``apply(state, seat, action, rng) -> (events, state)``: decide and the state it
    folded (see :func:`decide_and_fold`)."""
    SNAPSHOTS = "snapshots"
    """``snapshot(state)`` and ``restore(data)`` (:class:`SnapshottingRuleset`)."""
    BOT_POLICY = "bot_policy"
    """``bot_policy() -> BotPolicy``: the game's own bot (:func:`bot_policy_of`)."""
    RESIGNATION = "resignation"
    """``resignation(state, seat, seats_in) -> Resignation``: what a seat's resignation
    means in this game (:func:`resignation_of`; without it, :func:`default_resignation`)."""

    @property
    def methods(self) -> tuple[str, ...]:
        """Names of the ruleset methods this capability promises."""
        return _CAPABILITY_METHODS[self]


_CAPABILITY_METHODS: dict[Capability, tuple[str, ...]] = {
    Capability.APPLY: ("apply",),
    Capability.SNAPSHOTS: ("snapshot", "restore"),
    Capability.BOT_POLICY: ("bot_policy",),
    Capability.RESIGNATION: ("resignation",),
}
_APPLY = Capability.APPLY  # module constant: decide_and_fold runs on every step


class Declaration(Protocol):
    """What the platform reads of a game's declaration through its ruleset: the fields of
    :class:`~services.engine.domain.game_declaration.GameDeclaration` this contract uses
    (typed structurally, so the declaration module may import this one without a cycle)."""

    @property
    def name(self) -> str:
        """The ruleset's registered name."""
        ...

    @property
    def capabilities(self) -> frozenset[Capability]:
        """The optional methods the ruleset implements."""
        ...

    @property
    def info(self) -> RulesetInfo:
        """Title, seats and solo mode."""
        ...


class Ruleset(Protocol[StateT]):
    """A game's pure rules, in the OpenSpiel vocabulary, over frozen state.

    ``setup`` returns the opening events; ``evolve`` folds one event into a state
    (``evolve(None, first_event)`` builds the initial state); ``decide`` validates one
    action of one seat and returns the events it causes. ``declaration`` is the game's
    :class:`~services.engine.domain.game_declaration.GameDeclaration` (the same object
    its package exports as ``GAME``): title, seats, solo mode and the optional methods
    (:class:`Capability`) this class implements.
    """

    name: str
    declaration: Declaration

    def setup(self, request: SetupRequest, rng: random.Random) -> list[DomainEvent]:
        """Opening events of a new game. Raises InvalidOptions."""
        ...

    def evolve(self, state: StateT | None, event: DomainEvent) -> StateT:
        """Fold one event into the state (pure; never draws randomness)."""
        ...

    def upcast(self, event: DomainEvent) -> DomainEvent:
        """Bring an event of an older schema version to the current one."""
        ...

    def seats_to_act(self, state: StateT) -> tuple[int, ...]:
        """Seats with a pending decision (empty when terminal)."""
        ...

    def legal_actions(self, state: StateT, seat: int) -> Sequence[JsonDict]:
        """Every action ``seat`` may take now, as JSON-safe mappings."""
        ...

    def decide(
        self, state: StateT, seat: int, action: Mapping[str, Any], rng: random.Random
    ) -> list[DomainEvent]:
        """Events caused by ``seat`` taking ``action``. Raises RuleViolation."""
        ...

    def is_terminal(self, state: StateT) -> bool:
        """True once the game has ended."""
        ...

    def result(self, state: StateT) -> GameResult | None:
        """Final scores and ranking of a terminal game, else None."""
        ...

    def scores(self, state: StateT) -> tuple[int, ...]:
        """Current score per seat."""
        ...

    def view(self, state: StateT, seat: int | None) -> JsonDict:
        """JSON projection of the state as ``seat`` may see it (None: public view)."""
        ...

    def describe_action(self, action: Mapping[str, Any]) -> str:
        """One line naming the action in the game's own terms.

        A ruleset may also define ``describe_action_at(state, seat, action) -> str``
        (optional, not part of this protocol): the legal actions a seat is sent are then
        described with what the state tells (where a worker goes, what a tile is)."""
        ...

    def describe_event(self, event: DomainEvent) -> str:
        """One line telling what the event means, in the game's own terms."""
        ...

    def is_milestone(self, event: DomainEvent) -> bool:
        """True for events a summary shows (e.g. an eclipse's scoring, the game's end)."""
        ...


class SnapshottingRuleset(Ruleset[StateT], Protocol[StateT]):
    """A ruleset whose state can be saved and restored, so long games load from a snapshot.

    OPTIONAL (:attr:`Capability.SNAPSHOTS`): the service asks :func:`supports_snapshots`
    and folds the whole log for a ruleset that does not declare it.
    ``restore(snapshot(s))`` must equal ``s`` (a snapshot is only a cache: deleting it
    never changes a game).
    """

    def snapshot(self, state: StateT) -> JsonDict:
        """The whole state (hidden parts included) as a JSON-safe dict."""
        ...

    def restore(self, data: JsonDict) -> StateT:
        """Inverse of :meth:`snapshot`. May raise any error for data it cannot read."""
        ...


class ApplyingRuleset(Ruleset[StateT], Protocol[StateT]):
    """A ruleset that returns the state it folded while deciding (:attr:`Capability.APPLY`)."""

    def apply(
        self, state: StateT, seat: int, action: Mapping[str, Any], rng: random.Random
    ) -> tuple[list[DomainEvent], StateT]:
        """``decide`` plus the state after its events. Raises RuleViolation."""
        ...


def decide_and_fold(
    ruleset: Ruleset[StateT],
    state: StateT,
    seat: int,
    action: Mapping[str, Any],
    rng: random.Random,
) -> tuple[list[DomainEvent], StateT]:
    """``ruleset.decide`` and the state after its events.

    A ruleset declaring :attr:`Capability.APPLY` (both shipped games do) returns
    the state it folded while deciding, which saves folding the events a second time;
    without it the events are folded here. Both give the same result
    (tests/unit/test_ruleset_contract.py). Raises RuleViolation.
    """
    if _APPLY in ruleset.declaration.capabilities:
        events, after = cast("ApplyingRuleset[StateT]", ruleset).apply(state, seat, action, rng)
        return list(events), after
    events = list(ruleset.decide(state, seat, action, rng))
    for event in events:
        state = ruleset.evolve(state, event)
    return events, state


def supports_snapshots(ruleset: Ruleset[Any]) -> bool:
    """True if ``ruleset`` declares the optional :class:`SnapshottingRuleset` methods
    (:attr:`Capability.SNAPSHOTS`)."""
    return Capability.SNAPSHOTS in ruleset.declaration.capabilities


class BotPolicy(Protocol):
    """How a bot seat of one ruleset picks its action (the bot worker plays it through the
    same command path as a person's).

    A ruleset offers its own bot with an OPTIONAL ``bot_policy() -> BotPolicy`` method
    (:attr:`Capability.BOT_POLICY`, see :func:`bot_policy_of`); the worker plays uniformly
    random legal actions for a ruleset without one.
    """

    name: str

    def choose(
        self,
        ruleset: Ruleset[Any],
        state: Any,
        seat: int,
        legal_actions: Sequence[JsonDict],
        rng: random.Random,
    ) -> JsonDict:
        """One element of ``legal_actions`` (never empty) for ``seat`` in ``state``; draws
        only from ``rng`` so a redelivered turn request picks the same."""
        ...


class BotRuleset(Ruleset[StateT], Protocol[StateT]):
    """A ruleset with a bot of its own (:attr:`Capability.BOT_POLICY`)."""

    def bot_policy(self) -> BotPolicy:
        """A new bot for the game's bot seats."""
        ...


def bot_policy_of(ruleset: Ruleset[Any]) -> BotPolicy | None:
    """The ruleset's own bot (its optional ``bot_policy()``, declared with
    :attr:`Capability.BOT_POLICY`), or None."""
    if Capability.BOT_POLICY not in ruleset.declaration.capabilities:
        return None
    return cast("BotRuleset[Any]", ruleset).bot_policy()


class Resignation(Enum):
    """What a seat's resignation does to its game (docs/events.md, "Leaving a game").

    Values are the ``outcome`` of the ``SeatResigned`` event (stable names)."""

    GAME_ENDS = "game_ended"
    """The game ends now: the seats still in are ranked by their current scores, the
    resigning seat below them (and seats out before it below that)."""
    SEAT_OUT = "forfeited"
    """The seat is out, as a forfeit on time: ranked last among those still in; a zombie
    bot makes its remaining moves (``SeatForfeited``)."""
    BOT_PLAYS = "taken_over"
    """A bot plays the seat to the end with its standing (``SeatTakenOver``); the player
    who resigned may not reclaim it."""


def default_resignation(seats_in: Sequence[int]) -> Resignation:
    """The platform's rule for a game that declares no :attr:`Capability.RESIGNATION`:
    GAME_ENDS when at most one other seat would still be in (a 2-seat game, a solo game
    against the game's own opponent, the last two of a larger table), else SEAT_OUT.

    Args:
        seats_in: seats not out (neither forfeited nor resigned) before the resignation,
            the resigning seat among them.
    """
    return Resignation.GAME_ENDS if len(seats_in) <= 2 else Resignation.SEAT_OUT


class ResigningRuleset(Ruleset[StateT], Protocol[StateT]):
    """A ruleset that says what a resignation means (:attr:`Capability.RESIGNATION`)."""

    def resignation(self, state: StateT, seat: int, seats_in: Sequence[int]) -> Resignation:
        """What ``seat`` resigning in ``state`` does (``seats_in``: as
        :func:`default_resignation` takes it). Pure; raises nothing."""
        ...


def resignation_of(
    ruleset: Ruleset[StateT], state: StateT, seat: int, seats_in: Sequence[int]
) -> Resignation:
    """What ``seat`` resigning does: the ruleset's own ``resignation`` if it declares
    :attr:`Capability.RESIGNATION`, else :func:`default_resignation`."""
    if Capability.RESIGNATION not in ruleset.declaration.capabilities:
        return default_resignation(seats_in)
    return cast("ResigningRuleset[StateT]", ruleset).resignation(state, seat, seats_in)


@dataclass(frozen=True, slots=True)
class SoloMode:
    """How a ruleset plays solo: one person against the ruleset's own opponent.

    Attributes:
        options: options that select the solo mode (e.g. ``{"solo": True}``).
        seats: seats of a solo game (the person's seat is 0, the others are bots).
        opponent: the opponent's name, shown to the person (e.g. in ``teoti play``).
    """

    options: Mapping[str, Any]
    seats: int
    opponent: str


@dataclass(frozen=True, slots=True)
class RulesetInfo:
    """What clients need to know of a ruleset before creating a game (the CLI, docs and
    the API read it instead of assuming one game).

    Attributes:
        title: the game's name for people (its declaration's ``title``).
        min_seats / max_seats: seat counts of a multiplayer game.
        solo: the solo mode, or None when the game has none.
    """

    title: str
    min_seats: int
    max_seats: int
    solo: SoloMode | None = None

    def check_seats(self, seats: int) -> None:
        """Raise InvalidOptions (rule ``seat_count``) unless ``seats`` is a seat count of
        this game."""
        if not self.min_seats <= seats <= self.max_seats:
            raise InvalidOptions(
                "seat_count",
                f"{self.title} seats {self.min_seats} to {self.max_seats} players, not {seats}",
            )


def info_of(ruleset: Ruleset[Any]) -> RulesetInfo:
    """A ruleset's :class:`RulesetInfo`: title, seats and solo mode of its declaration."""
    return ruleset.declaration.info
