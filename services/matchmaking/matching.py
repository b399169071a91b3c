"""Which waiting seeks sit down together: the matchmaker's decision, pure and deterministic.

:func:`propose_tables` looks at one pool's waiting seeks at one moment and proposes
disjoint tables. Oldest seek first (the one that has waited longest is served first),
it takes the largest table size it accepts for which enough compatible seeks wait,
choosing the closest ratings (then the oldest seeks) among them; every two seeks at a
table are compatible (:func:`services.matchmaking.seeks.compatible`) and the size is in
every seat range there. A seek nobody fits stays waiting and its window widens.

Bots: a seek that has waited past its ``bots_after_s`` may sit down with bots in the
empty seats, with the humans of its pool who have waited past theirs too, at the
smallest table size every one of them accepts (the fewest bots that make a table).

The result only proposes: the Redis pool (services.matchmaking.redis_pool) places a
table atomically, so two matchers proposing at once never seat one seek twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from services.matchmaking.seeks import Seek, compatible


@dataclass(frozen=True, slots=True)
class Table:
    """A proposed table: the seeks seated (oldest first) and the bots filling the rest.

    Attributes:
        seeks: the seeks seated, in seat order (the oldest seek first).
        bots: empty seats a bot takes (0 unless every seek here waited past
            ``bots_after_s``).
    """

    seeks: tuple[Seek, ...]
    bots: int = 0

    @property
    def seats(self) -> int:
        """The table's size: humans plus bots."""
        return len(self.seeks) + self.bots

    @property
    def pool(self) -> str:
        """The pool every seek here waited in."""
        return self.seeks[0].pool


def propose_tables(seeks: Iterable[Seek], now_ms: int) -> list[Table]:
    """Disjoint tables for the waiting ``seeks`` at ``now_ms`` (see the module doc).

    Seeks of several pools may be given; each table is of one pool. The result is the
    same for the same seeks and time, whatever their order.
    """
    waiting = sorted(seeks, key=lambda s: (s.created_ms, s.seek_id))
    seated: set[str] = set()
    tables: list[Table] = []
    for anchor in waiting:
        if anchor.seek_id in seated:
            continue
        free = [s for s in waiting if s.seek_id not in seated and s.seek_id != anchor.seek_id]
        table = _human_table(anchor, free, now_ms) or _bot_table(anchor, free, now_ms)
        if table is not None:
            tables.append(table)
            seated.update(s.seek_id for s in table.seeks)
    return tables


def _closest(anchor: Seek, candidates: Sequence[Seek], now_ms: int) -> list[Seek]:
    """The candidates compatible with ``anchor``, closest rating first, then oldest."""
    fits = [c for c in candidates if compatible(anchor, c, now_ms)]
    return sorted(fits, key=lambda c: (abs(c.rating - anchor.rating), c.created_ms, c.seek_id))


def _clique(anchor: Seek, ordered: Sequence[Seek], size: int, now_ms: int) -> list[Seek] | None:
    """``size`` seeks starting with ``anchor``, pairwise compatible and all accepting
    ``size`` seats, taken greedily in ``ordered`` order; None if there are not enough."""
    group = [anchor]
    seen_players = {anchor.player}
    for candidate in ordered:
        if len(group) == size:
            break
        if (
            candidate.accepts_size(size)
            and candidate.player not in seen_players
            and all(compatible(member, candidate, now_ms) for member in group)
        ):
            group.append(candidate)
            seen_players.add(candidate.player)
    return group if len(group) == size else None


def _human_table(anchor: Seek, free: Sequence[Seek], now_ms: int) -> Table | None:
    """The largest all-human table ``anchor`` accepts, or None."""
    ordered = _closest(anchor, free, now_ms)
    for size in range(anchor.max_seats, anchor.min_seats - 1, -1):
        group = _clique(anchor, ordered, size, now_ms)
        if group is not None:
            return Table(tuple(_seat_order(group)))
    return None


def _bot_table(anchor: Seek, free: Sequence[Seek], now_ms: int) -> Table | None:
    """A table of the humans who waited past their bot time, bots in the other seats."""
    if not anchor.wants_bots(now_ms):
        return None
    ordered = _closest(anchor, [s for s in free if s.wants_bots(now_ms)], now_ms)
    group = [anchor]
    for candidate in ordered:
        sizes = _common_sizes([*group, candidate])
        if (
            sizes
            and len(group) < max(sizes)
            and candidate.player not in {m.player for m in group}
            and all(compatible(member, candidate, now_ms) for member in group)
        ):
            group.append(candidate)
    sizes = [n for n in _common_sizes(group) if n >= len(group)]
    if not sizes:
        return None
    seats = min(sizes)
    return Table(tuple(_seat_order(group)), bots=seats - len(group))


def _common_sizes(group: Sequence[Seek]) -> list[int]:
    """Table sizes every seek of ``group`` accepts, ascending."""
    low = max(s.min_seats for s in group)
    high = min(s.max_seats for s in group)
    return list(range(low, high + 1))


def _seat_order(group: Sequence[Seek]) -> list[Seek]:
    """Seats in waiting order (the oldest seek first); the game's own setup decides who
    starts."""
    return sorted(group, key=lambda s: (s.created_ms, s.seek_id))
