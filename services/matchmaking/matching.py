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

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from services.matchmaking.seeks import Seek


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
    same for the same seeks and time, whatever their order: tables ordered by their
    first seat's age. Cost: each seek looks only at the seeks inside its rating window
    (found by bisection in rating order), so a pass is about n log n while windows are
    narrow, n squared only when every window holds every rating.
    """
    by_pool: dict[str, list[Seek]] = {}
    for seek in seeks:
        by_pool.setdefault(seek.pool, []).append(seek)
    tables = [t for pool in sorted(by_pool) for t in _PoolPass(by_pool[pool], now_ms).tables()]
    return sorted(tables, key=lambda t: (t.seeks[0].created_ms, t.seeks[0].seek_id))


class _PoolPass:
    """One pass over one pool's seeks: their windows at ``now_ms`` worked out once."""

    def __init__(self, seeks: Sequence[Seek], now_ms: int) -> None:
        self.now_ms = now_ms
        self.by_age = sorted(seeks, key=lambda s: (s.created_ms, s.seek_id))
        self.by_rating = sorted(seeks, key=lambda s: (s.rating, s.seek_id))
        self.ratings = [s.rating for s in self.by_rating]
        self.half = {s.seek_id: s.window.at(s.waited_s(now_ms)) for s in seeks}
        self.seated: set[str] = set()

    def fits(self, a: Seek, b: Seek) -> bool:
        """:func:`~services.matchmaking.seeks.compatible` for two seeks of this pool."""
        gap = abs(a.rating - b.rating)
        return a.player != b.player and gap <= self.half[a.seek_id] and gap <= self.half[b.seek_id]

    def near(self, anchor: Seek) -> list[Seek]:
        """The free seeks compatible with ``anchor``, closest rating first, then oldest."""
        reach = self.half[anchor.seek_id]
        lo = bisect.bisect_left(self.ratings, anchor.rating - reach)
        hi = bisect.bisect_right(self.ratings, anchor.rating + reach)
        fits = [
            c
            for c in self.by_rating[lo:hi]
            if c.seek_id not in self.seated and c.seek_id != anchor.seek_id and self.fits(anchor, c)
        ]
        return sorted(fits, key=lambda c: (abs(c.rating - anchor.rating), c.created_ms, c.seek_id))

    def tables(self) -> list[Table]:
        """The pass's tables, the oldest free seek choosing first."""
        found: list[Table] = []
        for anchor in self.by_age:
            if anchor.seek_id in self.seated:
                continue
            table = self.human_table(anchor) or self.bot_table(anchor)
            if table is not None:
                found.append(table)
                self.seated.update(s.seek_id for s in table.seeks)
        return found

    def clique(self, anchor: Seek, ordered: Sequence[Seek], size: int) -> list[Seek] | None:
        """``size`` seeks starting with ``anchor``, pairwise compatible and all accepting
        ``size`` seats, taken greedily in ``ordered`` order; None if there are not enough."""
        group = [anchor]
        for candidate in ordered:
            if len(group) == size:
                break
            if candidate.accepts_size(size) and all(self.fits(m, candidate) for m in group):
                group.append(candidate)
        return group if len(group) == size else None

    def human_table(self, anchor: Seek) -> Table | None:
        """The largest all-human table ``anchor`` accepts, or None."""
        ordered = self.near(anchor)
        for size in range(anchor.max_seats, anchor.min_seats - 1, -1):
            if size - 1 > len(ordered):
                continue
            group = self.clique(anchor, ordered, size)
            if group is not None:
                return Table(tuple(_seat_order(group)))
        return None

    def bot_table(self, anchor: Seek) -> Table | None:
        """A table of the humans who waited past their bot time, bots in the other seats."""
        if not anchor.wants_bots(self.now_ms):
            return None
        group = [anchor]
        for candidate in self.near(anchor):
            if not candidate.wants_bots(self.now_ms):
                continue
            sizes = _common_sizes([*group, candidate])
            if sizes and len(group) < max(sizes) and all(self.fits(m, candidate) for m in group):
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
