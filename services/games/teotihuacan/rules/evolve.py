"""``evolve(state, event)``: the one way a Teotihuacan state changes.

Each event type has one small pure handler. Handlers trust the event (the rules checked
it when deciding); they never draw randomness (RULES.md D7) and never raise for a
well-formed event. Unknown event types raise KeyError so a corrupt log is never skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from services.engine.domain.ruleset import DomainEvent

from .components import PALACE, TEMPLES
from .frozen import replace, with_field, with_fields, with_item, with_player
from .public_setup import state_from_setup, upcast_setup
from .state import GameState, Player, Worker
from .tasks import task_from_dict
from .workers import worker

Payload = Mapping[str, Any]
Handler = Callable[[GameState, Payload], GameState]
EventHandler = Callable[[GameState, DomainEvent], GameState]

_HANDLERS: Final[dict[str, Handler]] = {}
_EVENT_HANDLERS: Final[dict[str, EventHandler]] = {}


def handles(event_type: str) -> Callable[[Handler], Handler]:
    """Register the handler of ``event_type``."""

    def register(fn: Handler) -> Handler:
        _HANDLERS[event_type] = fn
        return fn

    return register


def handles_sealed(event_type: str) -> Callable[[EventHandler], EventHandler]:
    """Register the handler of ``event_type``, an event with sealed parts: it gets the
    whole event, whose ``sealed`` values are present only when the folder knows them
    (else it folds placeholders, see ``public_setup``)."""

    def register(fn: EventHandler) -> EventHandler:
        _EVENT_HANDLERS[event_type] = fn
        return fn

    return register


def evolve(state: GameState | None, event: DomainEvent) -> GameState:
    """Fold ``event`` (at its current schema version) into ``state``; ``state`` is None
    only for ``GameSetUp``.

    Raises:
        KeyError: unknown event type.
        ValueError: an event other than GameSetUp on an empty state.
    """
    if state is None:
        if event.type != "GameSetUp":
            raise ValueError(f"the first event must be GameSetUp, not {event.type}")
        return state_from_setup(upcast_setup(event))
    return fold(state, event)


def fold(state: GameState, event: DomainEvent) -> GameState:
    """:func:`evolve` for a state that exists (the rules' own events while deciding).

    Raises:
        KeyError: unknown event type.
    """
    kind = event.type  # read once: an attribute of an interpreted class, compiled or not
    special = _EVENT_HANDLERS.get(kind)
    if special is not None:
        return special(state, event)
    return _HANDLERS[kind](state, event.payload)


def fold_built(
    state: GameState, event: DomainEvent, event_type: str, payload: Payload
) -> GameState:
    """:func:`fold` for an event the caller has just built from ``event_type`` and
    ``payload`` (its own ``type`` and ``payload``), which spares reading them back from the
    event: attributes of the interpreted ``DomainEvent``, a generic look-up each from
    compiled code.

    Raises:
        KeyError: unknown event type.
    """
    special = _EVENT_HANDLERS.get(event_type)
    if special is not None:
        return special(state, event)
    return _HANDLERS[event_type](state, payload)


def known_event_types() -> frozenset[str]:
    """Every event type evolve understands."""
    return frozenset(_HANDLERS) | frozenset(_EVENT_HANDLERS) | {"GameSetUp"}


def _player(state: GameState, payload: Payload) -> Player:
    return state.players[payload["seat"]]


def _with_worker(player: Player, worker_id: int, new: Worker) -> Player:
    return with_field(player, "workers", with_item(player.workers, worker_id, new))


@handles_sealed("GameSetUp")
def _game_set_up(state: GameState, event: DomainEvent) -> GameState:
    return state_from_setup(upcast_setup(event))


@handles("TurnStarted")
def _turn_started(state: GameState, payload: Payload) -> GameState:
    seat = payload["seat"]
    players = state.players
    player = players[seat]
    if player.ascended_this_turn or player.active_effects or player.new_technologies:
        player = replace(player, ascended_this_turn=False, active_effects=(), new_technologies=())
        players = with_item(players, seat, player)
    # else: the seat's turn markers are already clear (the usual case): keep the player
    return with_fields(state, {"players": players, "current": seat, "phase": "turn"})


@handles("WorkersUnlocked")
def _workers_unlocked(state: GameState, payload: Payload) -> GameState:
    player = _player(state, payload)
    workers = tuple(worker(w.board, w.power) for w in player.workers)  # unlocked, space -1
    return with_player(state, payload["seat"], with_field(player, "workers", workers))


@handles("WorkerMoved")
def _worker_moved(state: GameState, payload: Payload) -> GameState:
    player = _player(state, payload)
    worker_id = payload["worker"]
    moved_worker = player.workers[worker_id]
    moved = worker(payload["to_board"], moved_worker.power, moved_worker.locked, moved_worker.space)
    return with_player(state, payload["seat"], _with_worker(player, worker_id, moved))


@handles("GoodsChanged")
def _goods_changed(state: GameState, payload: Payload) -> GameState:
    player = _player(state, payload)
    changes = {good: getattr(player, good) + delta for good, delta in payload["delta"].items()}
    if "vp" in changes:
        changes["vp"] = max(0, changes["vp"])
    return with_player(state, payload["seat"], with_fields(player, changes))


@handles("WorkerLocked")
def _worker_locked(state: GameState, payload: Payload) -> GameState:
    player = _player(state, payload)
    worker_id = payload["worker"]
    locked = worker(payload["board"], player.workers[worker_id].power, True, payload["space"])
    return with_player(state, payload["seat"], _with_worker(player, worker_id, locked))


@handles("WorkerDisplaced")
def _worker_displaced(state: GameState, payload: Payload) -> GameState:
    player = _player(state, payload)
    worker_id = payload["worker"]
    freed = worker(player.workers[worker_id].board, player.workers[worker_id].power)
    return with_player(state, payload["seat"], _with_worker(player, worker_id, freed))


@handles("TempleAdvanced")
def _temple_advanced(state: GameState, payload: Payload) -> GameState:
    player = _player(state, payload)
    steps = list(player.temples)
    steps[TEMPLES.index(payload["temple"])] = payload["step"]
    temples = (steps[0], steps[1], steps[2])
    return with_player(state, payload["seat"], replace(player, temples=temples))


@handles("WorkerPoweredUp")
def _worker_powered_up(state: GameState, payload: Payload) -> GameState:
    player = _player(state, payload)
    worker_id = payload["worker"]
    old = player.workers[worker_id]
    powered = worker(old.board, payload["power"], old.locked, old.space)
    return with_player(state, payload["seat"], _with_worker(player, worker_id, powered))


@handles("WorkerAscended")
def _worker_ascended(state: GameState, payload: Payload) -> GameState:
    player = _player(state, payload)
    worker_id = payload["worker"]
    returned = worker(PALACE, 1)
    player = replace(_with_worker(player, worker_id, returned), ascended_this_turn=True)
    return with_player(state, payload["seat"], player)


@handles("FourthWorkerJoined")
def _fourth_worker_joined(state: GameState, payload: Payload) -> GameState:
    player = _player(state, payload)
    joined = worker(PALACE, payload["power"])
    return with_player(state, payload["seat"], _with_worker(player, payload["worker"], joined))


@handles("TechnologyAcquired")
def _technology_acquired(state: GameState, payload: Payload) -> GameState:
    player = _player(state, payload)
    player = replace(
        player,
        technologies=(*player.technologies, payload["slot"]),
        new_technologies=(*player.new_technologies, payload["slot"]),
        gold=player.gold - payload["gold_paid"],
    )
    return with_player(state, payload["seat"], player)


@handles("DiscoveryEffectUsed")
def _discovery_effect_used(state: GameState, payload: Payload) -> GameState:
    player = _player(state, payload)
    effects = list(player.active_effects)
    effects.remove(payload["effect"])
    return with_player(state, payload["seat"], replace(player, active_effects=tuple(effects)))


@handles("AvenueAdvanced")
def _avenue_advanced(state: GameState, payload: Payload) -> GameState:
    player = replace(_player(state, payload), avenue=payload["step"])
    return with_player(state, payload["seat"], player)


@handles("PyramidTrackAdvanced")
def _pyramid_track_advanced(state: GameState, payload: Payload) -> GameState:
    player = replace(_player(state, payload), pyramid=payload["step"])
    return with_player(state, payload["seat"], player)


@handles("CalendarAdvanced")
def _calendar_advanced(state: GameState, payload: Payload) -> GameState:
    return replace(state, light=payload["light"])


@handles("EclipseTriggered")
def _eclipse_triggered(state: GameState, payload: Payload) -> GameState:
    return replace(
        state,
        eclipse_countdown=payload["countdown"],
        final_eclipse=state.final_eclipse or payload["final"],
    )


@handles("RoundEnded")
def _round_ended(state: GameState, payload: Payload) -> GameState:
    return replace(state, round=payload["round"], eclipse_countdown=payload["eclipse_countdown"])


@handles("EclipseScored")
def _eclipse_scored(state: GameState, payload: Payload) -> GameState:
    players = list(state.players)
    for line in payload["scores"]:
        seat = line["seat"]
        players[seat] = replace(players[seat], vp=players[seat].vp + line["total"], pyramid=0)
    return replace(state, players=tuple(players), eclipses=payload["eclipse"], phase="eclipse")


@handles("SalaryPaid")
def _salary_paid(state: GameState, payload: Payload) -> GameState:
    player = _player(state, payload)
    player = replace(
        player,
        cocoa=player.cocoa - payload["paid"],
        vp=max(0, player.vp - payload["vp_lost"]),
    )
    return with_player(state, payload["seat"], player)


@handles("EclipseEnded")
def _eclipse_ended(state: GameState, payload: Payload) -> GameState:
    return replace(
        state, light=payload["light"], dark=payload["dark"], phase="turn", eclipse_countdown=0
    )


@handles("NeutralWorkersPlaced")
def _neutral_workers_placed(state: GameState, payload: Payload) -> GameState:
    placed = tuple((colour, board) for colour, board in payload["workers"])
    return replace(state, neutral_workers=placed)


@handles("TempleBonusScored")
def _temple_bonus_scored(state: GameState, payload: Payload) -> GameState:
    player = _player(state, payload)
    return with_player(state, payload["seat"], replace(player, vp=player.vp + payload["vp"]))


@handles("GameEnded")
def _game_ended(state: GameState, payload: Payload) -> GameState:
    return replace(
        state,
        phase="ended",
        final_scores=tuple(payload["final_scores"]),
        ranking=tuple(payload["ranking"]),
        agenda=(),
    )


@handles("AgendaUpdated")
def _agenda_updated(state: GameState, payload: Payload) -> GameState:
    return replace(state, agenda=tuple(task_from_dict(dict(t)) for t in payload["agenda"]))
