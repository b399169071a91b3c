"""``teoti tournament ...`` commands: a bot-only demo on an embedded Redis, and create /
join / start / withdraw / list / standings against a running server (TournamentService
over gRPC); ``leaderboard`` (:mod:`.tournament_board`), ``watch``
(:mod:`.tournament_watch`), ``export`` and ``verify`` (:mod:`.tournament_log`) have
modules of their own, and every table people read is made by :mod:`.tournament_text`.

User-facing output goes to stdout; a secret shown once (an organiser or player token)
goes to stderr, so ``TID=$(teoti tournament create ...)`` captures the id alone.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import uuid
from collections.abc import Callable
from typing import Any

import grpc

from services.cli.errors import EXIT_FAILED, EXIT_OK, UsageError
from services.cli.options import DEFAULT_GATEWAY, Subparsers, add_extra_ruleset, registry
from services.cli.tournament_board import add_leaderboard
from services.cli.tournament_log import add_export_verify
from services.cli.tournament_text import list_lines, round_lines, standings_lines
from services.cli.tournament_watch import add_watch
from services.engine.domain.rulesets import default_ruleset
from services.rpc.generated import tournament_service_pb2 as pb
from services.rpc.generated import tournament_service_pb2_grpc as pb_grpc
from services.safe_text import printable

ORGANISER_ENV = "TEOTI_ORGANISER_TOKEN"
CREDENTIAL_ENV = "TEOTI_PLAYER_CREDENTIAL"
"""Default of ``join --credential``: a player account's credential (PlayerService)."""
"""Default of ``--organiser-token``."""
PLAYER_ENV = "TEOTI_PLAYER_TOKEN"
"""Default of ``--token`` (join, withdraw)."""
LIST_PAGE = 100
"""ListTournaments' largest page."""

_FORMATS = {
    "swiss": pb.TOURNAMENT_FORMAT_SWISS,
    "round_robin": pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
    "elimination": pb.TOURNAMENT_FORMAT_ELIMINATION,
}


def tournament_config(args: argparse.Namespace, name: str) -> pb.TournamentConfig:
    """The TournamentConfig named ``name`` of a ``demo`` or ``create`` command's shape
    flags (ruleset, format, table sizes, rounds, clock, timeout policy)."""
    return pb.TournamentConfig(
        name=name,
        ruleset=args.ruleset,
        options_json=args.options,
        format=_FORMATS[args.format],
        min_seats=args.min_table_size or args.table_size,
        max_seats=args.table_size,
        rounds=args.rounds,
        rated=args.rated,
        time_control=pb.TournamentTimeControl(
            base_ms=args.base_ms,
            increment_ms=args.increment_ms,
            move_deadline_ms=args.move_deadline_ms,
        ),
        timeout_policy=args.timeout_policy,
    )


def print_round(round_: Any) -> None:
    """One paired round: its tables (players, game id, places once finished) and byes."""
    for line in round_lines(round_):
        print(line)


def print_standings(tournament: Any) -> None:
    """The standings: elimination's order and columns for an elimination tournament,
    else points and tie-break columns (services.cli.tournament_text)."""
    for line in standings_lines(tournament):
        print(line)


async def _demo(args: argparse.Namespace) -> int:
    from services.app import StoreSettings, all_in_one
    from services.embedded_redis import EmbeddedRedis

    rulesets = registry(args.extra_ruleset)
    # StartTournament's not_enough_players, checked before any Redis, server or
    # tournament is made for a demo that could not start.
    seats = args.min_table_size or args.table_size
    if args.players < seats:
        raise UsageError(f"--players: {args.players} players cannot fill a {seats}-seat table")
    url = os.environ.get("REDIS_URL", "")
    server = None
    if not url:
        # A Unix socket only this OS user can reach (services.embedded_redis).
        server = EmbeddedRedis(persist=False, unix_socket=True).start()
        url = server.url
    try:
        async with (
            # A fresh key prefix: a demo on a shared $REDIS_URL touches nothing else.
            all_in_one(
                url,
                "127.0.0.1:0",
                rulesets,
                store=StoreSettings(key_prefix=f"demo-{uuid.uuid4().hex[:12]}"),
            ) as stack,
            grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel,
        ):
            stub = pb_grpc.TournamentServiceStub(channel)
            return await _run_demo(stub, args)
    finally:
        if server is not None:
            server.stop()


async def _run_demo(stub: Any, args: argparse.Namespace) -> int:
    name = f"{args.ruleset} {args.format} demo"
    created = await stub.CreateTournament(
        pb.CreateTournamentRequest(config=tournament_config(args, name))
    )
    tid = created.tournament.tournament_id
    organiser = created.organiser_token
    print(f"Tournament {tid}: {args.players} bots, {args.rounds} rounds of {args.format}")
    for n in range(args.players):
        await stub.RegisterPlayer(
            pb.RegisterPlayerRequest(
                tournament_id=tid, player=f"bot-{n + 1:03}", bot=True, organiser_token=organiser
            )
        )
    await stub.StartTournament(
        pb.StartTournamentRequest(tournament_id=tid, organiser_token=organiser)
    )
    shown = 0
    while True:
        got = (await stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid))).tournament
        for round_ in got.rounds[shown:]:
            if not round_.finished:
                break
            print_round(round_)
            shown += 1
        if got.status == "finished" and shown == len(got.rounds):
            break
        await asyncio.sleep(0.2)
    print("\nFinal standings")
    print_standings(got)
    verified = await stub.VerifyTournament(pb.VerifyTournamentRequest(tournament_id=tid))
    ok = verified.chain_ok and verified.pairings_ok
    print(
        f"\nLog verification: chain {'ok' if verified.chain_ok else 'BROKEN'} "
        f"({verified.events_checked} events), pairings "
        f"{'ok' if verified.pairings_ok else 'NOT reproduced'} "
        f"({verified.rounds_checked} rounds re-derived from the revealed seed)"
        + (f": {verified.problem}" if verified.problem else "")
    )
    return EXIT_OK if ok else EXIT_FAILED


def _organiser_token(args: argparse.Namespace) -> str:
    """--organiser-token, else $TEOTI_ORGANISER_TOKEN, else "" (create: the server
    generates one)."""
    return str(args.organiser_token or os.environ.get(ORGANISER_ENV, ""))


async def with_stub(args: argparse.Namespace, action: Callable[[Any], Any]) -> int:
    """``action(TournamentServiceStub)`` on a channel to ``args.target``; its exit code."""
    async with grpc.aio.insecure_channel(args.target) as channel:
        result: int = await action(pb_grpc.TournamentServiceStub(channel))
        return result


async def _create(args: argparse.Namespace) -> int:
    async def run(stub: Any) -> int:
        reply = await stub.CreateTournament(
            pb.CreateTournamentRequest(
                config=tournament_config(args, args.name),
                command_id=args.command_id,
                organiser_token=_organiser_token(args),
            )
        )
        # stdout stays the id alone (TID=$(teoti tournament create ...)); the secret goes
        # to the terminal, once: only its hash is kept on the server.
        print(reply.tournament.tournament_id)
        if reply.organiser_token and reply.organiser_token != _organiser_token(args):
            print(
                f"organiser token (start, bots, withdrawals need it; keep it secret):\n"
                f"export {ORGANISER_ENV}={reply.organiser_token}",
                file=sys.stderr,
            )
        return EXIT_OK

    return await with_stub(args, run)


async def _join(args: argparse.Namespace) -> int:
    credential = "" if args.bot else args.credential or os.environ.get(CREDENTIAL_ENV, "")
    if not credential and not args.player:
        raise UsageError("name the player, or enter your player account with --credential")

    async def as_account(stub: Any) -> int:
        reply = await stub.RegisterPlayer(
            pb.RegisterPlayerRequest(tournament_id=args.tournament_id),
            metadata=(("authorization", f"Player {credential}"),),
        )
        print(f"registered ({len(reply.tournament.players)} players): your player account")
        return EXIT_OK

    async def run(stub: Any) -> int:
        # No token: the server generates one and returns it (shown once, below).
        token = "" if args.bot else args.token or os.environ.get(PLAYER_ENV, "")
        reply = await stub.RegisterPlayer(
            pb.RegisterPlayerRequest(
                tournament_id=args.tournament_id,
                player=args.player,
                player_token=token,
                bot=args.bot,
                organiser_token=_organiser_token(args) if args.bot else "",
            )
        )
        print(f"{args.player} registered ({len(reply.tournament.players)} players)")
        if reply.player_token and reply.player_token != token:
            print(
                f"player token of {args.player} (withdrawing needs it; keep it secret):\n"
                f"export {PLAYER_ENV}={reply.player_token}",
                file=sys.stderr,
            )
        return EXIT_OK

    return await with_stub(args, as_account if credential else run)


async def _start(args: argparse.Namespace) -> int:
    async def run(stub: Any) -> int:
        reply = await stub.StartTournament(
            pb.StartTournamentRequest(
                tournament_id=args.tournament_id, organiser_token=_organiser_token(args)
            )
        )
        print_round(reply.tournament.rounds[-1])
        return EXIT_OK

    return await with_stub(args, run)


async def _standings(args: argparse.Namespace) -> int:
    async def run(stub: Any) -> int:
        got = await stub.GetTournament(pb.GetTournamentRequest(tournament_id=args.tournament_id))
        tournament = got.tournament
        name = printable(tournament.config.name)  # old logs may hold terminal escapes
        print(f"{name} ({tournament.status}), {len(tournament.rounds)} rounds")
        for round_ in tournament.rounds:
            print_round(round_)
        print_standings(tournament)
        return EXIT_OK

    return await with_stub(args, run)


async def _withdraw(args: argparse.Namespace) -> int:
    # The player's own token first; the organiser's withdraws anyone (bots included).
    token = args.token or ("" if args.organiser_token else os.environ.get(PLAYER_ENV, ""))
    organiser = "" if token else _organiser_token(args)
    if not token and not organiser:
        raise UsageError(
            f"withdrawing needs the player's token (--token or ${PLAYER_ENV}) or the "
            f"organiser's (--organiser-token or ${ORGANISER_ENV})"
        )

    async def run(stub: Any) -> int:
        reply = await stub.WithdrawPlayer(
            pb.WithdrawPlayerRequest(
                tournament_id=args.tournament_id,
                player=args.player,
                player_token=token,
                organiser_token=organiser,
            )
        )
        tournament = reply.tournament
        left = sum(1 for p in tournament.players if not p.withdrawn)
        print(f"{printable(args.player)} withdrew ({left} player{'' if left == 1 else 's'} left)")
        if tournament.status == "running":
            print(
                "a table of theirs still playing is settled by the tournament's timeout "
                f"policy ({tournament.config.timeout_policy or 'forfeit'})"
            )
        return EXIT_OK

    return await with_stub(args, run)


async def _list(args: argparse.Namespace) -> int:
    async def run(stub: Any) -> int:
        found: list[Any] = []
        token = ""
        while len(found) < args.limit:
            reply = await stub.ListTournaments(
                pb.ListTournamentsRequest(
                    page_size=min(LIST_PAGE, args.limit - len(found)), page_token=token
                )
            )
            found += list(reply.tournaments)
            token = reply.next_page_token
            if not token:
                break
        for line in list_lines(found):
            print(line)
        if token:
            print(f"(the first {len(found)}, oldest first; --limit shows more)")
        return EXIT_OK

    if not 1 <= args.limit <= MAX_LIST:
        raise UsageError(f"--limit is 1 to {MAX_LIST}, got {args.limit}")
    return await with_stub(args, run)


MAX_LIST = 10_000
"""The most tournaments ``list`` reads (100 pages)."""


def add_tournament(sub: Subparsers) -> None:
    """Add ``teoti tournament {demo,create,join,start,withdraw,standings,list,
    leaderboard,watch,export,verify}`` to ``sub``."""
    tournament = sub.add_parser(
        "tournament",
        help="host, follow and audit tournaments",
        description="Host tournaments (create, join, start, withdraw), follow them "
        "(list, standings, watch, leaderboard) and audit them (export, verify). Commands "
        "that change a tournament take the organiser's or a player's token from a flag or "
        "$TEOTI_ORGANISER_TOKEN / $TEOTI_PLAYER_TOKEN; output for people goes to stdout, "
        "a token shown once to stderr.",
    )
    commands = tournament.add_subparsers(dest="tournament_command", required=True)

    def shape(p: argparse.ArgumentParser) -> None:
        p.add_argument("--ruleset", default=default_ruleset())
        p.add_argument("--options", default="", help="ruleset options as a JSON object")
        p.add_argument("--format", choices=sorted(_FORMATS), default="swiss")
        p.add_argument("--table-size", type=int, default=2, help="seats per table (preferred)")
        p.add_argument("--min-table-size", type=int, default=0, help="default: --table-size")
        p.add_argument("--rounds", type=int, default=3)
        p.add_argument("--rated", action="store_true")
        p.add_argument(
            "--base-ms",
            type=int,
            default=0,
            help="clock of every table: each seat's thinking time in ms (0: no live clock)",
        )
        p.add_argument(
            "--increment-ms", type=int, default=0, help="ms added after each move (with --base-ms)"
        )
        p.add_argument(
            "--move-deadline-ms",
            type=int,
            default=0,
            help="correspondence deadline of each move in ms (0: none)",
        )
        p.add_argument(
            "--timeout-policy",
            choices=["forfeit", "bot_takeover"],
            default="forfeit",
            help="what a seat out of time gets: ranked last, or a bot plays it "
            "(needs a ruleset bot); default %(default)s",
        )

    def target(p: argparse.ArgumentParser) -> None:
        p.add_argument("--target", default=DEFAULT_GATEWAY, metavar="HOST:PORT")

    def organiser(p: argparse.ArgumentParser, what: str) -> None:
        p.add_argument("--organiser-token", default="", help=f"{what} (default ${ORGANISER_ENV})")

    demo = commands.add_parser("demo", help="a bot-only tournament on an embedded Redis")
    shape(demo)
    demo.add_argument("--players", type=int, default=16)
    add_extra_ruleset(demo)
    demo.set_defaults(run=_demo)

    create = commands.add_parser("create", help="create a tournament; prints its id")
    create.add_argument("name")
    create.add_argument("--command-id", default="", help="idempotency key")
    shape(create)
    organiser(create, "organiser token to choose; empty: the server makes one, shown once")
    target(create)
    create.set_defaults(run=_create)

    join = commands.add_parser("join", help="register a player")
    join.add_argument("tournament_id")
    join.add_argument("player", nargs="?", default="", help="the player's name")
    join.add_argument(
        "--credential",
        default="",
        help="enter your player account instead (its name, no player token; default "
        f"${CREDENTIAL_ENV}): its tables are played with the same credential",
    )
    join.add_argument(
        "--token",
        default="",
        help="player token (default $TEOTI_PLAYER_TOKEN; neither: the server makes one, "
        "shown once)",
    )
    join.add_argument("--bot", action="store_true", help="register a bot player (organiser)")
    organiser(join, "the organiser token, needed with --bot")
    target(join)
    join.set_defaults(run=_join)

    start = commands.add_parser("start", help="close registration and pair round 1")
    start.add_argument("tournament_id")
    organiser(start, "the organiser token")
    target(start)
    start.set_defaults(run=_start)

    withdraw = commands.add_parser(
        "withdraw",
        help="withdraw a player (their token, or the organiser's for anyone)",
        description="Withdraw PLAYER: not paired from the next round on; results so far "
        "stay. A table of theirs still playing is settled now by the tournament's timeout "
        "policy. Needs the player's token (--token, else $TEOTI_PLAYER_TOKEN) or, for any "
        "player and bots, the organiser's (--organiser-token, else $TEOTI_ORGANISER_TOKEN; "
        "the player's token is tried first).",
    )
    withdraw.add_argument("tournament_id")
    withdraw.add_argument("player")
    withdraw.add_argument("--token", default="", help=f"the player's token (default ${PLAYER_ENV})")
    organiser(withdraw, "the organiser token: withdraws any player")
    target(withdraw)
    withdraw.set_defaults(run=_withdraw)

    standings = commands.add_parser(
        "standings",
        help="rounds, tables and standings",
        description="Every round's tables with their places, then the standings: points "
        "and tie-breaks, or for an elimination tournament how far each player went (round "
        "reached, out in round N, final table place).",
    )
    standings.add_argument("tournament_id")
    target(standings)
    standings.set_defaults(run=_standings)

    listing = commands.add_parser(
        "list", help="tournaments on the server, oldest first (id, status, players)"
    )
    listing.add_argument("--limit", type=int, default=50, help="most to show (default 50)")
    target(listing)
    listing.set_defaults(run=_list)

    add_leaderboard(commands)
    add_watch(commands)
    add_export_verify(commands)
