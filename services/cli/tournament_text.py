"""Tournaments as people read them: rounds, standings, leaderboards and the tournament
list as lines of text at most 80 columns wide (names clipped, escapes made visible by
:func:`services.safe_text.printable`).

Ratings are shown as openskill's conservative display value, the ``ordinal`` the server
sorts by (mu - 3 sigma: 0 for a new player), rounded to an integer; never mu and sigma.
A change is the difference of the two rounded values, so a column reads as the
difference of the ratings shown (``+2``, ``-1``, ``0``; ``new`` for a player not in
the earlier table).

Every function returns lines (the commands print them), so tests read exact text.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from services.safe_text import printable

NAME_WIDTH = 18
"""Columns of a player's name in a table; longer names end in an ellipsis."""

ELIMINATION = 3
"""TOURNAMENT_FORMAT_ELIMINATION (the proto enum's number)."""


def clip(text: str, width: int) -> str:
    """``printable(text)`` cut to ``width`` columns, the last one an ellipsis when cut."""
    shown = printable(text)
    return shown if len(shown) <= width else shown[: width - 1] + "\u2026"


def ordinal_text(place: int) -> str:
    """1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


def rating_value(ordinal: float) -> int:
    """The rating shown: the conservative ordinal rounded to an integer."""
    return round(ordinal)


def change_text(now: int, before: int | None) -> str:
    """``+12``, ``-8``, ``0``, or ``new`` when there was no earlier rating."""
    if before is None:
        return "new"
    return f"{now - before:+d}" if now != before else "0"


def round_lines(round_: Any) -> list[str]:
    """One paired round: its tables (players in seat order, game id, places once
    finished) and byes."""
    lines = [f"Round {round_.round}: {len(round_.tables)} tables"]
    for table in round_.tables:
        if table.places:
            by_place = sorted(zip(table.places, table.players, strict=False))
            players = ", ".join(
                f"{ordinal_text(place)} {clip(name, NAME_WIDTH)}" for place, name in by_place
            )
        else:
            players = ", ".join(clip(p, NAME_WIDTH) for p in table.players) + " (playing)"
        lines.append(f"  table {table.table:>3}  game {table.game_id}")
        lines += textwrap.wrap(players, 80, initial_indent=" " * 13, subsequent_indent=" " * 13)
    if round_.byes:
        lines.append(f"  byes: {', '.join(clip(p, NAME_WIDTH) for p in round_.byes)}")
    return lines


def standings_lines(tournament: Any) -> list[str]:
    """The standings: elimination's own columns for an elimination tournament
    (:func:`elimination_lines`), else points and the tie-break columns."""
    if tournament.config.format == ELIMINATION:
        return elimination_lines(tournament.standings)
    return swiss_lines(list(tournament.tiebreaks), tournament.standings)


SHORT_TIEBREAKS = {"sonneborn_berger": "s-berger", "table_points": "table pts"}
"""Tie-break headers shortened when the full names would not fit in 80 columns."""


def swiss_lines(tiebreaks: Sequence[str], rows: Sequence[Any]) -> list[str]:
    """Rank, player, games played, points, then each tie-break column (as wide as its
    name, at least 8; the names in SHORT_TIEBREAKS shortened when the full ones would
    pass 80 columns), values to two decimals; a withdrawn player marked ``(w)``."""
    names = list(tiebreaks)
    if 39 + sum(2 + max(len(n), 8) for n in names) > 80:
        names = [SHORT_TIEBREAKS.get(n, n) for n in names]
    widths = [max(len(n), 8) for n in names]
    header = f"{'rank':>4}  {'player':<{NAME_WIDTH}}  {'games':>5}  {'points':>6}"
    header += "".join(f"  {n:>{w}}" for n, w in zip(names, widths, strict=True))
    lines = [header]
    for row in rows:
        name = clip(row.player, NAME_WIDTH - 4) + (" (w)" if row.withdrawn else "")
        line = f"{row.rank:>4}  {name:<{NAME_WIDTH}}  {row.rounds_played:>5}  {row.points:>6.1f}"
        line += "".join(
            f"  {value:>{w}.2f}" for value, w in zip(row.tiebreaks, widths, strict=False)
        )
        lines.append(line)
    return lines


def elimination_result(row: Any) -> str:
    """How far an elimination player went, in words: ``final table, 1st``, ``out in
    round 2 (3rd at the table)``, ``withdrew in round 1 (2nd at the table)``, ``still
    in``, ``not seated``."""
    place = f"{ordinal_text(row.place_in_round)} at the table" if row.place_in_round else "a bye"
    if row.eliminated_in_round:
        how = "withdrew" if row.withdrawn else "out"
        return f"{how} in round {row.eliminated_in_round} ({place})"
    if not row.round_reached:
        return "not seated"
    if row.place_in_round and not row.withdrawn:
        return f"final table, {ordinal_text(row.place_in_round)}"
    return "still in"


def elimination_lines(rows: Sequence[Any]) -> list[str]:
    """Rank, player, the round reached and the result (:func:`elimination_result`), in
    the server's elimination order (round reached, still in before out, place)."""
    lines = [f"{'rank':>4}  {'player':<{NAME_WIDTH}}  {'round':>5}  result"]
    for row in rows:
        lines.append(
            f"{row.rank:>4}  {clip(row.player, NAME_WIDTH):<{NAME_WIDTH}}  "
            f"{row.round_reached:>5}  {elimination_result(row)}"
        )
    return lines


def leaderboard_lines(
    ruleset: str, rows: Sequence[Any], before: Mapping[str, int] | None = None
) -> list[str]:
    """A ruleset's leaderboard: rank, player, rating (rounded ordinal), games played and,
    given ``before`` (player -> rating shown in an earlier table), the change since."""
    lines = [f"Leaderboard of {clip(ruleset, 40)} (rating: mu - 3 sigma, rounded)"]
    header = f"{'rank':>4}  {'player':<{NAME_WIDTH * 2}}  {'rating':>6}  {'games':>5}"
    lines.append(header + (f"  {'change':>6}" if before is not None else ""))
    if not rows:
        lines.append("  (no rated games yet)")
    for row in rows:
        rating = rating_value(row.ordinal)
        line = (
            f"{row.rank:>4}  {clip(row.player, NAME_WIDTH * 2):<{NAME_WIDTH * 2}}  "
            f"{rating:>6}  {row.games:>5}"
        )
        if before is not None:
            line += f"  {change_text(rating, before.get(row.player)):>6}"
        lines.append(line)
    return lines


def list_lines(summaries: Sequence[Any]) -> list[str]:
    """The tournament list: id, name, ruleset, status, players, rounds paired."""
    lines = [f"{'id':<20} {'name':<19} {'ruleset':<11} {'status':<11} {'players':>7} {'rounds':>6}"]
    if not summaries:
        lines.append("  (no tournaments)")
    for s in summaries:
        lines.append(
            f"{clip(s.tournament_id, 20):<20} {clip(s.name, 19):<19} "
            f"{clip(s.ruleset, 11):<11} {s.status:<11} {s.players:>7} {s.rounds_paired:>6}"
        )
    return lines
