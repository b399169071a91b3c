"""``teoti ratings``: ratings outside tournaments as people read them (docs/ratings.md).

- ``leaderboard --ruleset X``: rank, player, rating (mu - 3 sigma rounded), games played,
  in the tournament tables' style (services.cli.tournament_text).
- ``player PLAYER_ID --ruleset X``: a player's rating and the rated games that made it.
- ``verify FILE... --ruleset X``: recompute the ruleset's ratings from exported game logs
  (``teoti export`` files) and compare them with the server's (services.ratings.audit).
  Exit 1 if a log fails its audit or a rating differs.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from teoti_client import Leaderboard, RatedPlayer

from services.cli.errors import EXIT_FAILED, EXIT_OK
from services.cli.options import DEFAULT_GATEWAY, Subparsers, add_extra_ruleset, registry
from services.cli.tournament_text import clip, leaderboard_lines, ordinal_text
from services.client import TeotiClient
from services.engine.adapters.log_files import read_public_log
from services.ratings.audit import compare, recompute
from services.tournament.ratings import Rating
from services.tournament.ratings_book import account_identity

PAGE = 200
"""Rows asked for per page (RatingService's most)."""


@dataclass(frozen=True, slots=True)
class _Row:
    """A leaderboard row in the shape leaderboard_lines reads."""

    rank: int
    player: str
    ordinal: float
    games: int


def board_rows(players: Sequence[RatedPlayer]) -> list[_Row]:
    """Rows to print: the player's display name (``(bot)`` after a bot's) and the
    rating shown by the server."""
    return [
        _Row(p.rank, f"{p.name} (bot)" if p.bot else p.name, p.rating.rating, p.rating.games)
        for p in players
    ]


async def _pages(client: TeotiClient, ruleset: str, limit: int) -> list[RatedPlayer]:
    """Up to ``limit`` rows of the leaderboard (every row if ``limit`` <= 0)."""
    rows: list[RatedPlayer] = []
    token = ""
    while True:
        size = PAGE if limit <= 0 else min(PAGE, limit - len(rows))
        page: Leaderboard = await client.rating_leaderboard(ruleset, size, token)
        rows += page.players
        token = page.next_page_token
        if not token or (limit > 0 and len(rows) >= limit):
            return rows


async def _leaderboard(args: argparse.Namespace) -> int:
    async with TeotiClient(args.target) as client:
        rows = await _pages(client, args.ruleset, args.limit)
    for line in leaderboard_lines(args.ruleset, board_rows(rows)):
        print(line)
    return EXIT_OK


async def _player(args: argparse.Namespace) -> int:
    async with TeotiClient(args.target) as client:
        found = await client.player_rating(args.player_id, args.ruleset, args.limit)
    who = f"{found.name} (bot)" if found.bot else found.name
    print(
        f"{clip(who, 40)} in {clip(args.ruleset, 30)}: rating {found.rating.rating} after "
        f"{found.rating.games} rated games"
    )
    for entry in found.history:
        change = entry.after.rating - entry.before.rating
        print(
            f"  {entry.finished_at[:19]}  {ordinal_text(entry.place):>4}  "
            f"{entry.before.rating:>5} -> {entry.after.rating:<5} ({change:+d})  "
            f"game {entry.game_id}"
        )
    if not found.history:
        print("  (no rated games yet)")
    return EXIT_OK


async def _verify(args: argparse.Namespace) -> int:
    rulesets = registry(args.extra_ruleset)
    logs = [await asyncio.to_thread(read_public_log, Path(path)) for path in args.files]
    again = recompute(logs, rulesets, args.ruleset)
    async with TeotiClient(args.target) as client:
        rows = await _pages(client, args.ruleset, 0)
    service = {
        account_identity(p.player_id): Rating(p.rating.mu, p.rating.sigma, p.rating.games)
        for p in rows
        if p.player_id
    }
    print(
        f"{len(logs)} logs: {len(again.games)} rated games of {args.ruleset} replayed "
        f"(by the time each ended, then game id), {len(again.skipped)} not rated"
    )
    problems = [*again.problems, *compare(again.ratings, service)]
    if problems:
        for problem in problems:
            print(f"FAILED {problem}")
        return EXIT_FAILED
    print(f"OK: {len(again.ratings)} players' ratings recomputed from the logs match the server")
    return EXIT_OK


def add_ratings(sub: Subparsers) -> None:
    """Add ``teoti ratings {leaderboard,player,verify}`` to ``sub``."""
    ratings = sub.add_parser(
        "ratings",
        help="ratings outside tournaments: leaderboards, players, audit",
        description="Ratings of rated games outside tournaments and rated tournaments' "
        "tables (one book). A rating is openskill's conservative estimate mu - 3 sigma "
        "(0 for a new player), rounded to an integer.",
    )
    commands = ratings.add_subparsers(dest="ratings_command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--ruleset", required=True, help="the ruleset whose ratings to read")
        p.add_argument("--target", default=DEFAULT_GATEWAY, metavar="HOST:PORT")

    board = commands.add_parser("leaderboard", help="rank, player, rating, games played")
    common(board)
    board.add_argument("--limit", type=int, default=20, help="rows (0: all; default 20)")
    board.set_defaults(run=_leaderboard)

    player = commands.add_parser("player", help="a player's rating and rated games")
    player.add_argument("player_id", help="the player account's id")
    common(player)
    player.add_argument("--limit", type=int, default=20, help="games shown (1 to 200)")
    player.set_defaults(run=_player)

    verify = commands.add_parser(
        "verify",
        help="recompute ratings from exported game logs and compare with the server's",
        description="Audit each exported game log (teoti export), replay the rated "
        "finished games of --ruleset through openskill in the order they ended (then by "
        "game id), from every player at the default rating, and compare each player "
        "account's rating with the server's. Give every rated game of the ruleset: a "
        "missing one shows as a difference. Exit 1 on any problem.",
    )
    verify.add_argument("files", nargs="+", metavar="FILE", help="exported game logs")
    common(verify)
    add_extra_ruleset(verify)
    verify.set_defaults(run=_verify)
