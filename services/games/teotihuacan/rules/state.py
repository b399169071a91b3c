"""Frozen game state of Teotihuacan and its JSON form.

The state is only ever changed by :func:`evolve` folding an event; every field is an
immutable value so a state can be shared, cached and compared freely.
Seat indices are the order seats were created in; ``turn_order`` says who plays when.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from services.engine.domain.rules_support.frozen import with_field

from .components import TEMPLES
from .options import GameOptions
from .tasks import Task, task_from_dict, task_to_dict

NOT_IN_PLAY = 0
"""``Worker.board`` of the waiting 4th die (RULES.md §1.2.2)."""


@dataclass(frozen=True, slots=True)
class Worker:
    """One die of a seat (RULES.md vocabulary: worker, power, locked).

    Attributes:
        board: printed number of the board it stands on (1..8); 0 while not in play.
        power: 1..5.
        locked: True while on a worship space.
        space: worship space index on its board while locked, else -1.
    """

    board: int
    power: int
    locked: bool = False
    space: int = -1

    @property
    def in_play(self) -> bool:
        """False for the waiting 4th die."""
        return self.board != NOT_IN_PLAY


@dataclass(frozen=True)
class Player:
    """Everything one seat owns and where its markers stand.

    Attributes:
        cocoa, wood, stone, gold: amounts in hand (never negative).
        vp: score (never below 0, RULES.md §6.2.4).
        avenue: Avenue of the Dead step 0..9.
        pyramid: Pyramid track step 0..10.
        temples: steps on the blue, red and green temples (0..11).
        workers: the seat's 4 dice; index is the worker id.
        technologies: technology slots (0..5 of the technology board) with this seat's marker.
        discoveries: unused discovery tile ids; used_discoveries: flipped ones.
        masks: mask discovery tiles kept for every eclipse (tile ids).
        ascended_this_turn: whether the calendar already advanced for an ascension this turn.
        active_effects: effects of discovery tiles flipped this turn, not yet used up.
        new_technologies: technology slots acquired this turn (no effect yet, D10).
        starting_tiles: starting tiles dealt (standard setup; hidden from other seats).
        chosen_starting_tiles: the secret choice, until revealed.
    """

    cocoa: int = 0
    wood: int = 0
    stone: int = 0
    gold: int = 0
    vp: int = 0
    avenue: int = 0
    pyramid: int = 0
    temples: tuple[int, int, int] = (0, 0, 0)
    workers: tuple[Worker, ...] = ()
    technologies: tuple[int, ...] = ()
    discoveries: tuple[int, ...] = ()
    used_discoveries: tuple[int, ...] = ()
    masks: tuple[int, ...] = ()
    ascended_this_turn: bool = False
    active_effects: tuple[str, ...] = ()
    new_technologies: tuple[int, ...] = ()
    starting_tiles: tuple[int, ...] = ()
    chosen_starting_tiles: tuple[int, ...] = ()

    def amount(self, good: str) -> int:
        """Amount of ``good`` (cocoa, wood, stone, gold or vp)."""
        value: int = getattr(self, good)
        return value

    def temple(self, temple: str) -> int:
        """Step on ``temple`` (blue, red, green)."""
        return self.temples[TEMPLES.index(temple)]

    def workers_in_play(self) -> tuple[Worker, ...]:
        """Workers on the rondel (not the waiting 4th die)."""
        return tuple(w for w in self.workers if w.in_play)


# Dict-backed (no slots), like Player: folding copies the state for nearly every event, and
# frozen.replace copies a __dict__ in C instead of ~35 slot reads and writes in Python.
@dataclass(frozen=True)
class GameState:
    """The whole game (public and hidden parts) at one version.

    Attributes:
        options: the game options.
        players: one :class:`Player` per seat index.
        turn_order: seat indices in turn order (first seat first).
        current: seat whose turn it is.
        rondel: board numbers at rondel positions 1..8 (index 0 is position 1).
        neutral_workers: (colour, board) of each neutral worker; colours start after the seats.
        light, dark: calendar markers.
        eclipses: eclipses scored so far.
        eclipse_countdown: round ends still to play before a triggered eclipse (0: none pending).
        final_eclipse: the pending or next eclipse ends the game (pyramid completed).
        round: rounds completed.
        buildings_taken: buildings that left the row (sets the Avenue value).
        technologies: technology ids on the board, slots 0-2 top row, 3-5 bottom row.
        royal_tiles: royal tile ids at the Palace worship spaces 0-2.
        temple_bonus: temple bonus tile ids of the blue, red, green temples.
        pyramid_tiles: placed pyramid tiles as (level 1-4, row, column, tile id, rotation 0-3).
        pyramid_offer: pyramid tile ids face up; pyramid_supply: tile ids still in the bag.
        decorations: placed decorations as (side, step 1-4, tile id).
        decoration_offer, decoration_supply: face-up decoration tiles and the bag.
        nobles_rows: buildings placed on the top, middle and bottom rows of Nobles (6).
        nobles_built: per row (top, middle, bottom), the occupied space indices (0 = the
            leftmost), ascending. Seats fill a row from the left, but Teotibot may build on a
            row's lowest-VP space further right (RULES.md §8), leaving empty spaces before it.
        discovery_supply: discovery tile ids still in the bag.
        worship_discoveries: discovery tile at each board's worship area, indexed by
            printed board number (index 0 unused; -1: none).
        avenue_discoveries: discovery tiles on each Avenue step (index = step).
        temple_discoveries: per temple (blue, red, green), per step, the discovery tiles there.
        starting_tile_offer: face-up starting tiles of the draft variant.
        starting_tile_discoveries: discovery tile dealt with each starting tile, indexed by
            starting tile id (-1: none); hidden from other seats until the tile is revealed.
        agenda: pending tasks, last = next to resolve (empty: the current seat starts its turn).
        phase: ``"turn"`` while seats play, ``"eclipse"`` during salaries, ``"ended"``.
        final_scores: final VP per seat once ended; ranking: seats winner first.
        teotibot_tiles: solo (RULES.md §8): Teotibot's action pyramid, the action tile at
            positions 1-6 (index 0 = position 1 at the top); teotibot_set_aside: the 7th tile.
        teotibot_directions: the two direction tiles' visible sides, top of the stack first.
        discarded_discoveries: discovery tiles discarded by Teotibot's Worship tile.
    """

    options: GameOptions
    players: tuple[Player, ...]
    turn_order: tuple[int, ...]
    current: int
    rondel: tuple[int, ...]
    neutral_workers: tuple[tuple[int, int], ...] = ()
    light: int = 0
    dark: int = 10
    eclipses: int = 0
    eclipse_countdown: int = 0
    final_eclipse: bool = False
    round: int = 0
    buildings_taken: int = 0
    technologies: tuple[int, ...] = ()
    royal_tiles: tuple[int, ...] = ()
    temple_bonus: tuple[int, ...] = ()
    pyramid_tiles: tuple[tuple[int, int, int, int, int], ...] = ()
    pyramid_offer: tuple[int, ...] = ()
    pyramid_supply: tuple[int, ...] = ()
    decorations: tuple[tuple[str, int, int], ...] = ()
    decoration_offer: tuple[int, ...] = ()
    decoration_supply: tuple[int, ...] = ()
    nobles_rows: tuple[int, int, int] = (0, 0, 0)
    nobles_built: tuple[tuple[int, ...], ...] = ((), (), ())
    discovery_supply: tuple[int, ...] = ()
    worship_discoveries: tuple[int, ...] = ()
    avenue_discoveries: tuple[tuple[int, ...], ...] = ()
    temple_discoveries: tuple[tuple[tuple[int, ...], ...], ...] = ()
    starting_tile_offer: tuple[int, ...] = ()
    starting_tile_discoveries: tuple[int, ...] = ()
    agenda: tuple[Task, ...] = ()
    phase: str = "turn"
    final_scores: tuple[int, ...] = ()
    ranking: tuple[int, ...] = ()
    teotibot_tiles: tuple[str, ...] = ()
    teotibot_set_aside: str = ""
    teotibot_directions: tuple[str, ...] = ()
    discarded_discoveries: tuple[int, ...] = ()

    @property
    def seat_count(self) -> int:
        """Number of seats."""
        return len(self.players)

    @property
    def last_seat(self) -> int:
        """The seat that plays last in each round."""
        return self.turn_order[-1]

    def position(self, board: int) -> int:
        """Rondel position (1..8) of the board with printed number ``board``."""
        return self.rondel.index(board) + 1

    def board_at(self, position: int) -> int:
        """Printed board number at rondel position ``position`` (wraps, 1 follows 8)."""
        return self.rondel[(position - 1) % len(self.rondel)]

    def with_player(self, seat: int, player: Player) -> GameState:
        """Copy with seat ``seat`` replaced (the rules call ``frozen.with_player``)."""
        players = self.players
        return with_field(self, "players", (*players[:seat], player, *players[seat + 1 :]))

    def with_agenda(self, agenda: tuple[Task, ...]) -> GameState:
        """Copy with the pending tasks replaced (the rules call ``frozen.with_agenda``)."""
        return with_field(self, "agenda", agenda)

    def worship_occupant(self, board: int, space: int) -> tuple[int, int] | None:
        """(seat, worker id) locked on a worship space, or None if it is empty."""
        for seat, player in enumerate(self.players):
            for worker_id, worker in enumerate(player.workers):
                if worker.locked and worker.board == board and worker.space == space:
                    return seat, worker_id
        return None

    def unlocked_colours_on(self, board: int) -> set[int]:
        """Colours (seats, then neutral colours) with an unlocked worker on ``board``."""
        colours = {
            seat
            for seat, player in enumerate(self.players)
            for worker in player.workers
            if worker.board == board and not worker.locked
        }
        colours.update(colour for colour, at in self.neutral_workers if at == board)
        return colours


# --- JSON form ---------------------------------------------------------------------------


def _player_to_dict(player: Player) -> dict[str, Any]:
    data = {f.name: _json(getattr(player, f.name)) for f in fields(Player) if f.name != "workers"}
    data["workers"] = [
        {"board": w.board, "power": w.power, "locked": w.locked, "space": w.space}
        for w in player.workers
    ]
    return data


def _player_from_dict(data: dict[str, Any]) -> Player:
    values = {
        f.name: _frozen(data[f.name])
        for f in fields(Player)
        if f.name != "workers" and f.name in data
    }
    return Player(workers=tuple(Worker(**w) for w in data.get("workers", ())), **values)


def _json(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_json(v) for v in value]
    return value


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


_SPECIAL_FIELDS = frozenset({"options", "players", "agenda"})


def _gapless_nobles(rows: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """``nobles_built`` of rows holding ``rows`` buildings each, filled from the left."""
    return tuple(tuple(range(n)) for n in rows)


def state_to_dict(state: GameState) -> dict[str, Any]:
    """JSON-safe dict of the whole state (hidden parts included).

    ``nobles_built`` is written only when a row has a gap (Teotibot built right of an
    empty space); otherwise ``nobles_rows`` says it all, and the dict (``GameSetUp``'s
    payload, snapshots) stays as before the field existed: an old game's setup events
    still re-derive exactly (VerifyGame).
    """
    data: dict[str, Any] = {
        "options": state.options.model_dump(),
        "players": [_player_to_dict(p) for p in state.players],
        "agenda": [task_to_dict(t) for t in state.agenda],
    }
    for f in fields(GameState):
        if f.name not in _SPECIAL_FIELDS:
            data[f.name] = _json(getattr(state, f.name))
    if state.nobles_built == _gapless_nobles(state.nobles_rows):
        del data["nobles_built"]
    return data


def state_from_dict(data: dict[str, Any]) -> GameState:
    """Inverse of :func:`state_to_dict`; missing newer fields take their defaults, except
    ``nobles_built``: without it the rows have no gaps (as in every state written before
    the field existed) and it follows from ``nobles_rows``."""
    values: dict[str, Any] = {
        f.name: _frozen(data[f.name])
        for f in fields(GameState)
        if f.name not in _SPECIAL_FIELDS and f.name in data
    }
    if "nobles_built" not in values and "nobles_rows" in values:
        values["nobles_built"] = _gapless_nobles(values["nobles_rows"])
    return GameState(
        options=GameOptions.model_validate(data.get("options", {})),
        players=tuple(_player_from_dict(p) for p in data["players"]),
        agenda=tuple(task_from_dict(t) for t in data.get("agenda", ())),
        **values,
    )
