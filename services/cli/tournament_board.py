"""``teoti tournament leaderboard``: a ruleset's ratings as people read them (rank,
rating, games played; services.cli.tournament_text), and the change since an earlier
table kept with ``--save FILE`` and given back with ``--since FILE``.

The saved file is ``{"ruleset": NAME, "ratings": {player: rating shown}}``: the rounded
values, so a change is the difference of two ratings a person saw.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

import grpc

from services.cli.errors import EXIT_OK, UsageError
from services.cli.options import DEFAULT_GATEWAY
from services.cli.tournament_text import leaderboard_lines, rating_value
from services.rpc.generated import tournament_service_pb2 as pb
from services.rpc.generated import tournament_service_pb2_grpc as pb_grpc


async def _leaderboard(args: argparse.Namespace) -> int:
    # The earlier table first: a bad --since is refused before the server is asked.
    before = _read_board(args.since) if args.since else None

    async with grpc.aio.insecure_channel(args.target) as channel:
        stub = pb_grpc.TournamentServiceStub(channel)
        reply = await stub.GetLeaderboard(
            pb.GetLeaderboardRequest(ruleset=args.ruleset, limit=args.limit)
        )
    rows = list(reply.rows)
    for line in leaderboard_lines(args.ruleset or "the default ruleset", rows, before):
        print(line)
    if args.save:
        shown = {row.player: rating_value(row.ordinal) for row in rows}
        text = json.dumps({"ruleset": args.ruleset, "ratings": shown}, sort_keys=True)
        await asyncio.to_thread(Path(args.save).write_text, text + "\n", "utf-8")
    return EXIT_OK


def _read_board(path: str) -> dict[str, int]:
    """The ratings a ``leaderboard --save FILE`` wrote. Raises UsageError, OSError."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    ratings = data.get("ratings") if isinstance(data, dict) else None
    if not isinstance(ratings, dict) or not all(isinstance(v, int) for v in ratings.values()):
        raise UsageError(f"{path} is not a file leaderboard --save wrote")
    return {str(player): int(value) for player, value in ratings.items()}


def add_leaderboard(commands: Any) -> None:
    """Add ``leaderboard`` to ``teoti tournament``'s subcommands."""
    board = commands.add_parser(
        "leaderboard",
        help="a ruleset's ratings: rank, rating, games played",
        description="The ratings of a ruleset's players, best first. A rating is openskill's "
        "conservative estimate mu - 3 sigma (0 for a new player), the value the board is "
        "sorted by, rounded to an integer. --save FILE keeps this table's ratings; a later "
        "--since FILE adds each player's change since then (+12, -8, new).",
    )
    board.add_argument("--ruleset", default="", help="default: the server's default ruleset")
    board.add_argument("--limit", type=int, default=20, help="rows, 1 to 500 (default 20)")
    board.add_argument("--save", metavar="FILE", help="write the ratings shown to FILE")
    board.add_argument("--since", metavar="FILE", help="show the change since FILE (--save)")
    board.add_argument("--target", default=DEFAULT_GATEWAY, metavar="HOST:PORT")
    board.set_defaults(run=_leaderboard)
