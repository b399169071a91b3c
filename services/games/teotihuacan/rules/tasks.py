"""Pending tasks: what the game still has to resolve, in order.

A turn is a chain of steps (move, board action, power-ups, temple rewards, ascension...).
Steps that need a seat's choice wait on the state's *agenda* as one of these tasks; the
top task is the decision the game is waiting for. Tasks are plain data so the agenda
travels in events and folds like everything else.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Final


@dataclass(frozen=True, slots=True)
class Task:
    """Base of every pending task. ``seat`` is the seat that resolves it (-1: nobody)."""

    seat: int


@dataclass(frozen=True, slots=True)
class TakeTurn(Task):
    """Start a normal turn (move a worker) or take the free unlock (RULES.md §2)."""


@dataclass(frozen=True, slots=True)
class BoardAction(Task):
    """Choose collect cocoa, the main action or worship on ``board`` (RULES.md §3).

    ``workers`` are the worker ids that just moved there (more than one with a double move).
    """

    board: int
    workers: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PowerUps(Task):
    """Power up ``count`` times, only workers on ``board`` (RULES.md §5); board 0: any board."""

    board: int
    count: int


@dataclass(frozen=True, slots=True)
class TempleSteps(Task):
    """Advance ``count`` times on ``temple`` ("" = a temple of the seat's choice each time)."""

    temple: str
    count: int


@dataclass(frozen=True, slots=True)
class ResourceChoice(Task):
    """Take ``count`` resources, one at a time, each of the seat's choice (blue temple)."""

    count: int


@dataclass(frozen=True, slots=True)
class AscensionReward(Task):
    """Choose one ascension reward (RULES.md §5.3)."""


@dataclass(frozen=True, slots=True)
class CalendarAdvance(Task):
    """Advance the light calendar marker once (first ascension of a turn, RULES.md §5.4)."""


@dataclass(frozen=True, slots=True)
class EndTurn(Task):
    """Close ``seat``'s turn: round end, calendar, eclipse countdown (RULES.md §2, §6.1)."""


@dataclass(frozen=True, slots=True)
class StartTurn(Task):
    """Give the turn to ``seat``."""


@dataclass(frozen=True, slots=True)
class Salary(Task):
    """Pay the eclipse salary of ``seat`` (RULES.md §6.2.4): choose how much cocoa to pay."""


@dataclass(frozen=True, slots=True)
class EclipseEnd(Task):
    """After every salary: reset the calendar and neutral workers, or end the game."""


# --- shared task values ---------------------------------------------------------------
#
# The rules schedule these tasks at nearly every decision. Compiled, a task class is a
# native class whose dataclass-generated ``__init__`` runs in the interpreter and sets
# each field through ``object.__setattr__`` (about 2,700 instructions for a seat-only
# task, 4,000 for a board action): as many as the rest of a small step. A task is an
# immutable value, so the rules take the one shared value of each, as the fold does for
# workers (``workers.py``): equal to a new one, so nothing can tell
# (services/games/teotihuacan/tests/test_derived_tables.py). The tables hold only values the rules
# reached (seats, boards, worker ids and step counts of a game: a few hundred at most).

_TAKE_TURN: Final[dict[int, TakeTurn]] = {}
_START_TURN: Final[dict[int, StartTurn]] = {}
_END_TURN: Final[dict[int, EndTurn]] = {}
_BOARD_ACTIONS: Final[dict[tuple[int, int, tuple[int, ...]], BoardAction]] = {}
_POWER_UPS: Final[dict[tuple[int, int, int], PowerUps]] = {}
_TEMPLE_STEPS: Final[dict[tuple[int, str, int], TempleSteps]] = {}


def take_turn_task(seat: int) -> TakeTurn:
    """``TakeTurn(seat=seat)``, the shared value."""
    found = _TAKE_TURN.get(seat)
    if found is None:
        found = _TAKE_TURN[seat] = TakeTurn(seat=seat)
    return found


def start_turn_task(seat: int) -> StartTurn:
    """``StartTurn(seat=seat)``, the shared value."""
    found = _START_TURN.get(seat)
    if found is None:
        found = _START_TURN[seat] = StartTurn(seat=seat)
    return found


def end_turn_task(seat: int) -> EndTurn:
    """``EndTurn(seat=seat)``, the shared value."""
    found = _END_TURN.get(seat)
    if found is None:
        found = _END_TURN[seat] = EndTurn(seat=seat)
    return found


def board_action_task(seat: int, board: int, workers: tuple[int, ...]) -> BoardAction:
    """``BoardAction(seat=seat, board=board, workers=workers)``, the shared value."""
    key = (seat, board, workers)
    found = _BOARD_ACTIONS.get(key)
    if found is None:
        found = _BOARD_ACTIONS[key] = BoardAction(seat=seat, board=board, workers=workers)
    return found


def power_ups_task(seat: int, board: int, count: int) -> PowerUps:
    """``PowerUps(seat=seat, board=board, count=count)``, the shared value."""
    key = (seat, board, count)
    found = _POWER_UPS.get(key)
    if found is None:
        found = _POWER_UPS[key] = PowerUps(seat=seat, board=board, count=count)
    return found


def temple_steps_task(seat: int, temple: str, count: int) -> TempleSteps:
    """``TempleSteps(seat=seat, temple=temple, count=count)``, the shared value."""
    key = (seat, temple, count)
    found = _TEMPLE_STEPS.get(key)
    if found is None:
        found = _TEMPLE_STEPS[key] = TempleSteps(seat=seat, temple=temple, count=count)
    return found


TASK_TYPES: Final[dict[str, type[Task]]] = {}
_KINDS: Final[dict[type[Task], str]] = {}
_LATER_FIELDS: Final[dict[type[Task], dict[str, object]]] = {}


def register_task(
    cls: type[Task], kind: str, later_fields: dict[str, object] | None = None
) -> None:
    """Name the task class ``cls`` ``kind`` in JSON, for :func:`task_from_dict`.

    ``later_fields``: fields added after games were recorded, with their defaults. They
    are left out of the JSON while they hold the default, so the events of a situation the
    field doesn't change (every ``AgendaUpdated`` holding the task) stay as they were.

    A call after the class, not a class attribute or decorator: the rules compile with
    mypyc (``setup.py``), whose native dataclasses take neither a ``ClassVar`` default
    nor a class decorator. Modules register the task kinds they define.
    """
    TASK_TYPES[kind] = cls
    _KINDS[cls] = kind
    if later_fields:
        _LATER_FIELDS[cls] = dict(later_fields)


def kind_of(task: Task) -> str:
    """The JSON name of ``task``'s kind (e.g. ``"take_turn"``)."""
    return _KINDS[type(task)]


for _cls, _kind in (
    (TakeTurn, "take_turn"),
    (BoardAction, "board_action"),
    (PowerUps, "power_ups"),
    (TempleSteps, "temple_steps"),
    (ResourceChoice, "resource_choice"),
    (AscensionReward, "ascension_reward"),
    (CalendarAdvance, "calendar_advance"),
    (EndTurn, "end_turn"),
    (StartTurn, "start_turn"),
    (Salary, "salary"),
    (EclipseEnd, "eclipse_end"),
):
    register_task(_cls, _kind)


AGENDA_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "after_main_action": ("seat", "board"),
    "ascension_reward": ("seat",),
    "board_action": ("seat", "board", "workers"),
    "calendar_advance": ("seat",),
    "choose_building_row": ("seat", "workers"),
    "choose_starting_tiles": ("seat",),
    "choose_technology": ("seat", "workers"),
    "claim_discovery": ("seat", "where", "board", "step", "starting_tile"),
    "decoration_choice": ("seat",),
    "draft_starting_tile": ("seat",),
    "eclipse_end": ("seat",),
    "end_turn": ("seat",),
    "extra_power_up": ("seat", "board"),
    "major_step_choice": ("seat", "temple", "step"),
    "matched_icon_steps": ("seat", "temples"),
    "place_starting_workers": ("seat",),
    "power_ups": ("seat", "board", "count"),
    "pyramid_construction": ("seat", "tiles_left", "placed"),
    "pyramid_track_step": ("seat",),
    "refill_decoration_offer": ("seat",),
    "refill_pyramid_offer": ("seat",),
    "resource_choice": ("seat", "count"),
    "royal_ability": ("seat", "tile", "power", "done", "free"),
    "salary": ("seat",),
    "set_up_seats": ("seat",),
    "start_turn": ("seat",),
    "starting_tile_gains": ("seat",),
    "take_turn": ("seat",),
    "temple_steps": ("seat", "temple", "count"),
    "teotibot_turn": ("seat",),
}
"""The public wire format of an agenda entry (``AgendaUpdated`` v1, docs/events.md):
``{"kind": <kind>, <these fields>}`` per task kind, written here and not reflected from
the task classes, so renaming a class or a field cannot silently change the logs'
schema (services/games/teotihuacan/tests/test_public_log.py checks the classes still match)."""


def task_to_dict(task: Task) -> dict[str, Any]:
    """JSON form: ``{"kind": ..., <AGENDA_FIELDS of the kind>}`` (tuples become lists; a
    later field holding its default is left out, see :func:`register_task`, so agendas
    keep the shape older logs have)."""
    kind = _KINDS[type(task)]
    data: dict[str, Any] = {"kind": kind}
    later = _LATER_FIELDS.get(type(task))
    for name in AGENDA_FIELDS[kind]:
        value = getattr(task, name)
        if later is not None and name in later and later[name] == value:
            continue
        data[name] = list(value) if isinstance(value, tuple) else value
    return data


def task_field_names(cls: type[Task]) -> tuple[str, ...]:
    """The dataclass fields of a task class (to check them against AGENDA_FIELDS)."""
    return tuple(f.name for f in fields(cls))


def task_from_dict(data: dict[str, Any]) -> Task:
    """Inverse of :func:`task_to_dict`. A field missing from ``data`` takes its default, so
    agendas written before a task gained a defaulted field still fold (e.g. ``free`` of
    ``royal_ability``). Raises KeyError for an unknown kind, TypeError for a missing
    required field."""
    kind = data["kind"]
    cls = TASK_TYPES[kind]
    kwargs: dict[str, Any] = {}
    for name in AGENDA_FIELDS[kind]:
        if name not in data:
            continue  # the dataclass default applies; a required field fails in cls()
        value = data[name]
        kwargs[name] = tuple(value) if isinstance(value, list) else value
    return cls(**kwargs)
