"""A tournament's configuration: what TournamentCreated records, and its validation.

The config is pure data, written once into the tournament's first event and never
changed. :func:`validate` checks it against the ruleset's :class:`RulesetInfo` (table
sizes it can seat) and whether the ruleset has a bot (the ``bot_takeover`` timeout
policy needs one); it knows no game.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from services.engine.domain.ruleset import RulesetInfo
from services.engine.domain.timing.time_control import TimeControl as GameClock
from services.engine.domain.timing.time_control import TimeControlInvalid, TimeoutPolicy
from services.tournament.errors import InvalidTournament
from services.tournament.model import Format, ScoringRules, TableSize, default_points
from services.tournament.standings import TIEBREAKS

TIMEOUT_POLICIES = ("bot_takeover", "forfeit")
"""What happens to a seat whose clock runs out: a bot plays it, or it forfeits (last)."""

MAX_ROUNDS = 64
MAX_PLAYERS = 4096


@dataclass(frozen=True)
class TimeControl:
    """Per-seat clock of every game of the tournament (passed on to CreateGame).

    Attributes:
        base_ms: thinking time each seat starts with (0: no live clock).
        increment_ms: added to a seat's clock after each of its moves.
        move_deadline_ms: correspondence deadline per move (0: none).
    """

    base_ms: int = 0
    increment_ms: int = 0
    move_deadline_ms: int = 0

    def to_json(self) -> dict[str, int]:
        """``{base_ms, increment_ms, move_deadline_ms}``."""
        return {
            "base_ms": self.base_ms,
            "increment_ms": self.increment_ms,
            "move_deadline_ms": self.move_deadline_ms,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TimeControl:
        """Inverse of :meth:`to_json` (missing fields are 0)."""
        return cls(
            int(data.get("base_ms", 0)),
            int(data.get("increment_ms", 0)),
            int(data.get("move_deadline_ms", 0)),
        )

    @property
    def is_set(self) -> bool:
        """True if any clock applies."""
        return bool(self.base_ms or self.increment_ms or self.move_deadline_ms)


DEFAULT_TOURNAMENT_CLOCK = TimeControl(move_deadline_ms=24 * 3600 * 1000)
"""The clock of a tournament created without one (issue 30 item 4): 24 hours per move,
a correspondence pace. A table's game without a clock waited for ever on a player who
never moved (Lichess and BGA tournaments always have clocks); with it, the timekeeper
applies the tournament's ``timeout_policy`` to that seat once its move is overdue."""


def with_default_clock(config: TournamentConfig) -> TournamentConfig:
    """``config`` with DEFAULT_TOURNAMENT_CLOCK if it has no time control (no tournament
    is unclocked); unchanged otherwise."""
    if config.time_control.is_set:
        return config
    return replace(config, time_control=DEFAULT_TOURNAMENT_CLOCK)


@dataclass(frozen=True)
class TournamentConfig:
    """Everything a tournament is created with (TournamentCreated ``config``).

    Attributes:
        name: display name.
        ruleset / options: the game every table plays, with these ruleset options.
        format: swiss, round_robin or elimination.
        min_seats / max_seats: seats per table (``max_seats`` preferred).
        rounds: rounds to play (elimination: at most this many).
        points_by_place: table size -> points for places 1..size (empty: default_points).
        bye_points: points a bye scores.
        tiebreaks: tie-break column names in order.
        advance: elimination: players per table who go on (0: the format's default).
        time_control: clock of each game; timeout_policy: what a timeout does.
        rated: finished tables update the players' ratings for ``ruleset``.
        max_players: registration cap (0: none).
        registration_opens_at / registration_closes_at: ISO 8601 times with a zone,
            compared as instants ("" = no bound; registration always ends when the
            tournament starts).
    """

    name: str
    ruleset: str
    options: Mapping[str, Any] = field(default_factory=dict)
    format: Format = Format.SWISS
    min_seats: int = 2
    max_seats: int = 2
    rounds: int = 3
    points_by_place: Mapping[int, tuple[float, ...]] = field(default_factory=dict)
    bye_points: float = 0.0
    tiebreaks: tuple[str, ...] = ("buchholz", "sonneborn_berger", "wins")
    advance: int = 0
    time_control: TimeControl = TimeControl()
    timeout_policy: str = "forfeit"
    rated: bool = False
    max_players: int = 0
    registration_opens_at: str = ""
    registration_closes_at: str = ""

    @property
    def table_size(self) -> TableSize:
        """Seats per table as the pairing takes them."""
        return TableSize(self.min_seats, self.max_seats)

    def scoring(self) -> ScoringRules:
        """Points and tie-breaks as the standings take them."""
        points = dict(self.points_by_place) or default_points(self.table_size)
        return ScoringRules(points, self.bye_points, tuple(self.tiebreaks))

    def to_json(self) -> dict[str, Any]:
        """The JSON object recorded in TournamentCreated v1 (docs/events.md)."""
        return {
            "name": self.name,
            "ruleset": self.ruleset,
            "options": dict(self.options),
            "format": str(self.format),
            "min_seats": self.min_seats,
            "max_seats": self.max_seats,
            "rounds": self.rounds,
            "points_by_place": {
                str(size): list(points) for size, points in sorted(self.points_by_place.items())
            },
            "bye_points": self.bye_points,
            "tiebreaks": list(self.tiebreaks),
            "advance": self.advance,
            "time_control": self.time_control.to_json(),
            "timeout_policy": self.timeout_policy,
            "rated": self.rated,
            "max_players": self.max_players,
            "registration_opens_at": self.registration_opens_at,
            "registration_closes_at": self.registration_closes_at,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TournamentConfig:
        """Inverse of :meth:`to_json`. Raises KeyError/ValueError on a malformed object."""
        return cls(
            name=str(data["name"]),
            ruleset=str(data["ruleset"]),
            options=dict(data.get("options", {})),
            format=Format(str(data["format"])),
            min_seats=int(data["min_seats"]),
            max_seats=int(data["max_seats"]),
            rounds=int(data["rounds"]),
            points_by_place={
                int(size): tuple(float(p) for p in points)
                for size, points in dict(data.get("points_by_place", {})).items()
            },
            bye_points=float(data.get("bye_points", 0.0)),
            tiebreaks=tuple(str(t) for t in data.get("tiebreaks", ())),
            advance=int(data.get("advance", 0)),
            time_control=TimeControl.from_json(data.get("time_control", {})),
            timeout_policy=str(data.get("timeout_policy", "forfeit")),
            rated=bool(data.get("rated", False)),
            max_players=int(data.get("max_players", 0)),
            registration_opens_at=str(data.get("registration_opens_at", "")),
            registration_closes_at=str(data.get("registration_closes_at", "")),
        )


MAX_TOURNAMENT_NAME = 100


def check_tournament_name(name: str) -> None:
    """Refuse a tournament name that is blank (InvalidTournament ``invalid_config``, as
    before), or over MAX_TOURNAMENT_NAME characters or not printable (``str.isprintable``:
    no C0/C1 controls such as ESC or NUL, no newlines), so it can never drive the
    terminal it is printed on (InvalidTournament ``name_invalid``)."""
    rule = f"a tournament needs a name of 1 to {MAX_TOURNAMENT_NAME} printable characters"
    if not name.strip():
        raise InvalidTournament("invalid_config", rule)
    if len(name) > MAX_TOURNAMENT_NAME or not name.isprintable():
        raise InvalidTournament("name_invalid", f"{rule} (no control characters)")


def parse_instant(text: str) -> datetime:
    """An ISO 8601 time with a zone (``Z`` or an offset) as an aware datetime. Raises
    ValueError for anything else (no zone, not a time)."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{text!r} has no time zone")
    return moment


def _window_bound(field_name: str, text: str) -> datetime | None:
    """A registration window bound ("" = none). Raises InvalidTournament."""
    if not text:
        return None
    try:
        return parse_instant(text)
    except ValueError as exc:
        raise InvalidTournament(
            "invalid_config",
            f"{field_name} must be an ISO 8601 time with a zone, e.g. 2026-12-01T09:00:00Z "
            f"or 2026-12-01T09:00:00+05:00",
        ) from exc


def validate(config: TournamentConfig, info: RulesetInfo, has_bot: bool) -> None:
    """Refuse a config the ruleset cannot play or that makes no sense.

    Raises InvalidTournament with reasons ``name_invalid`` (see check_tournament_name),
    ``invalid_config`` (rounds, caps, points that are not finite or name a table size
    outside min..max seats, tie-breaks, a registration window bound that is not an ISO
    8601 time with a zone, or closes no later than it opens),
    ``time_control_invalid`` (the clock rules of every game), ``table_size_unsupported``
    (seats outside ``info``'s range or min > max), ``timeout_policy_unsupported``
    (unknown policy, or ``bot_takeover`` for a ruleset with no bot).
    """
    bad = "invalid_config"
    check_tournament_name(config.name)
    if not 1 <= config.rounds <= MAX_ROUNDS:
        raise InvalidTournament(bad, f"rounds must be 1 to {MAX_ROUNDS}, not {config.rounds}")
    if not 0 <= config.max_players <= MAX_PLAYERS:
        raise InvalidTournament(bad, f"max_players must be 0 to {MAX_PLAYERS}")
    if config.min_seats < 2 or config.max_seats < config.min_seats:
        raise InvalidTournament(
            "table_size_unsupported",
            f"tables need 2 <= min seats <= max seats, not {config.min_seats}..{config.max_seats}",
        )
    if config.min_seats < info.min_seats or config.max_seats > info.max_seats:
        raise InvalidTournament(
            "table_size_unsupported",
            f"{info.title} seats {info.min_seats} to {info.max_seats} players, "
            f"not tables of {config.min_seats} to {config.max_seats}",
        )
    for size, points in config.points_by_place.items():
        if not config.min_seats <= size <= config.max_seats:
            raise InvalidTournament(
                bad,
                f"points_by_place has an entry for {size}-seat tables; tables seat "
                f"{config.min_seats} to {config.max_seats}",
            )
        if len(points) != size:
            raise InvalidTournament(bad, f"points for a {size}-seat table need {size} values")
        if not all(math.isfinite(p) for p in points):
            raise InvalidTournament(bad, f"points for a {size}-seat table must be finite")
    if not math.isfinite(config.bye_points):
        raise InvalidTournament(bad, "bye_points must be a finite number")
    missing = [
        n
        for n in range(config.min_seats, config.max_seats + 1)
        if config.points_by_place and n not in config.points_by_place
    ]
    if missing:
        raise InvalidTournament(bad, f"points_by_place has no entry for table sizes {missing}")
    clock = config.time_control
    if clock.is_set:
        # The games' own rules for clocks (services.engine.domain.timing), checked here so that a
        # started tournament never meets a table it cannot create.
        figures = GameClock(
            clock.base_ms, clock.increment_ms, clock.move_deadline_ms, TimeoutPolicy.FORFEIT
        )
        try:
            figures.check(None)
        except TimeControlInvalid as exc:
            raise InvalidTournament("time_control_invalid", str(exc)) from exc
    if config.timeout_policy not in TIMEOUT_POLICIES:
        raise InvalidTournament(
            "timeout_policy_unsupported",
            f"timeout policy must be one of {', '.join(TIMEOUT_POLICIES)}",
        )
    if config.timeout_policy == "bot_takeover" and not has_bot:
        raise InvalidTournament(
            "timeout_policy_unsupported",
            f"{info.title} has no bot to take over a seat that runs out of time; use forfeit",
        )
    unknown = [name for name in config.tiebreaks if name not in TIEBREAKS]
    repeated = sorted({n for n in config.tiebreaks if config.tiebreaks.count(n) > 1})
    if unknown or repeated:
        problem = f"unknown: {unknown}" if unknown else f"repeated: {repeated}"
        raise InvalidTournament(
            bad, f"tie-breaks are distinct names among {', '.join(TIEBREAKS)} ({problem})"
        )
    opens = _window_bound("registration_opens_at", config.registration_opens_at)
    closes = _window_bound("registration_closes_at", config.registration_closes_at)
    if opens is not None and closes is not None and closes <= opens:
        raise InvalidTournament(bad, "registration_closes_at must be after registration_opens_at")
    if config.format is Format.ELIMINATION and not 0 <= config.advance < config.max_seats:
        raise InvalidTournament(bad, "advance must be 0 (default) or fewer than max seats")
