"""How many tables of which sizes seat a field, and who sits out.

Pure arithmetic shared by every format: as many ``max_seats`` tables as possible, the
remainder spread evenly into smaller tables within ``[min_seats, max_seats]``; byes only
when no split seats everyone (then as few byes as possible).
"""

from __future__ import annotations

from services.tournament.model import PairingError, TableSize

__all__ = ["split_field", "table_sizes"]


def table_sizes(players: int, size: TableSize) -> list[int] | None:
    """Table sizes (largest first) seating exactly ``players``, or None if none exists.

    Prefers the most ``max_seats`` tables; the rest go into the fewest smaller tables whose
    sizes differ by at most one (e.g. 10 players, 3..4 seats -> [4, 3, 3]).
    """
    if players <= 0:
        return []
    big = size.max_seats
    for full in range(players // big, -1, -1):
        rest = players - full * big
        if rest == 0:
            return [big] * full
        small_max = big - 1
        if small_max < size.min_seats:
            continue
        count = -(-rest // small_max)  # fewest tables that can hold the rest
        low, extra = divmod(rest, count)
        if low >= size.min_seats:
            return [big] * full + [low + 1] * extra + [low] * (count - extra)
    return None


def split_field(players: int, size: TableSize) -> tuple[list[int], int]:
    """Table sizes and the number of byes for a field of ``players``.

    Returns ``(sizes, byes)`` with ``sum(sizes) + byes == players`` and ``byes`` minimal.

    Raises:
        PairingError: ``"too_few_players"`` if fewer than ``min_seats`` players remain.
    """
    for byes in range(players + 1):
        sizes = table_sizes(players - byes, size)
        if sizes:
            return sizes, byes
    raise PairingError(
        "too_few_players",
        f"{players} players cannot fill a table of at least {size.min_seats} seats",
    )
