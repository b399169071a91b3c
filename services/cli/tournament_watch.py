"""``teoti tournament watch``: a tournament's log as it grows, as lines for people
(registrations, each round's pairings, each table's places, the standings after every
round as they were then and, for a rated tournament, its players' ratings with the
change since the previous round for rounds that finish while watching), until the
tournament finishes or Ctrl-C.

Resumable: every line starts with its event's version, and ``--after-version N``
starts after it (WatchTournament's cursor). A dropped connection is resumed from the
last version shown, :data:`RETRIES` times at most, then the command gives up (exit 1).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

import grpc

from services.cli.errors import EXIT_OK, UsageError
from services.cli.options import DEFAULT_GATEWAY
from services.cli.tournament_log import read_log, stored_event
from services.cli.tournament_text import (
    clip,
    leaderboard_lines,
    ordinal_text,
    rating_value,
    round_lines,
    standings_lines,
)
from services.gateway.tournament_servicer import tournament_to_proto
from services.rpc.generated import tournament_service_pb2 as pb
from services.rpc.generated import tournament_service_pb2_grpc as pb_grpc
from services.safe_text import printable
from services.tournament.aggregate import TournamentState, fold

RETRIES = 5
"""Reconnections in a row after a lost connection before ``watch`` gives up."""

BOARD_LIMIT = 500
"""Leaderboard rows read to find a rated tournament's players (GetLeaderboard's most)."""

BOT_PREFIX = "bot:"
"""A bot player is rated as ``bot:<name>`` (RegisterPlayerRequest.player)."""


class Watcher:
    """Turns a tournament's events into lines. It folds every event from version 1
    (services.tournament.aggregate.fold), so the standings after a round are those of
    that moment, also when the round is history; ratings are only known now, so they
    are shown for rounds that finish while watching, each with its change since the
    ratings shown before (or since the watch started)."""

    def __init__(self, stub: Any, tournament: Any) -> None:
        self._stub = stub
        self._tid = tournament.tournament_id
        self._ruleset = tournament.config.ruleset
        self._rated = tournament.config.rated
        self._live_after = tournament.version
        self._state: TournamentState | None = None
        self._shown: dict[str, int] = {}

    async def start(self, after_version: int) -> None:
        """Fold the events up to ``after_version`` (not shown) and read the ratings the
        first live round's changes are measured from."""
        if after_version > 0:
            self._state = fold(await read_log(self._stub, self._tid, after_version))
        if self._rated:
            self._shown = {r.player: rating_value(r.ordinal) for r in await self._board()}

    async def lines(self, event: Any) -> list[str]:
        """Fold one TournamentEvent and return its lines (``v<version>  ...`` first)."""
        self._state = fold([stored_event(event)], self._state)
        payload = json.loads(event.payload_json)
        head = f"v{event.version:<5} "
        kind = event.type
        if kind == "TournamentCreated":
            config = payload.get("config", {})
            return [
                f"{head}created: {printable(str(config.get('name', '')))} "
                f"({printable(str(config.get('ruleset', '')))}, {config.get('format', '')}, "
                f"{config.get('rounds', '?')} rounds)"
            ]
        if kind == "PlayerRegistered":
            return [f"{head}{clip(str(payload['player']), 40)} registered ({payload['kind']})"]
        if kind == "PlayerWithdrew":
            return [f"{head}{clip(str(payload['player']), 40)} withdrew"]
        if kind == "TournamentStarted":
            return [f"{head}started with {len(payload.get('entrants', []))} players"]
        if kind == "RoundPaired":
            paired = tournament_to_proto(self._state).rounds[-1]
            return [f"{head}paired:", *round_lines(paired)]
        if kind == "TableFinished":
            return [f"{head}{self._finished_table(payload)}"]
        if kind == "RoundFinished":
            lines = [f"{head}round {payload['round']} finished", "Standings"]
            lines += standings_lines(tournament_to_proto(self._state))
            if self._rated and event.version > self._live_after:
                lines += await self._ratings()
            return lines
        if kind == "TournamentFinished":
            tournament = tournament_to_proto(self._state)
            return [f"{head}tournament finished", "Final standings", *standings_lines(tournament)]
        if kind == "SeedRevealed":
            return [f"{head}seed revealed; check: teoti tournament verify {self._tid}"]
        return [f"{head}{printable(kind)}"]

    def _finished_table(self, payload: dict[str, Any]) -> str:
        number, table = int(payload["round"]), int(payload["table"])
        assert self._state is not None  # folded in lines()
        seated = [t for r in self._state.rounds if r.number == number for t in r.pairing.tables]
        players = next((list(t.players) for t in seated if t.number == table), [])
        places = [int(p) for p in payload.get("places", [])]
        result = ", ".join(
            f"{ordinal_text(place)} {clip(name, 18)}"
            for place, name in sorted(zip(places, players, strict=False))
        )
        forfeited = payload.get("forfeited") or []
        if forfeited:
            result += f" (forfeited: {', '.join(clip(str(p), 18) for p in forfeited)})"
        return f"round {number} table {table} finished: {result}"

    async def _board(self) -> list[Any]:
        """Leaderboard rows of this tournament's players (bots as ``bot:<name>``)."""
        entrants = self._state.entrants if self._state is not None else ()
        names = {f"{BOT_PREFIX}{e.player}" if e.kind == "bot" else e.player for e in entrants}
        reply = await self._stub.GetLeaderboard(
            pb.GetLeaderboardRequest(ruleset=self._ruleset, limit=BOARD_LIMIT)
        )
        return [row for row in reply.rows if row.player in names]

    async def _ratings(self) -> list[str]:
        """The players' ratings now, with the change since the ratings shown before."""
        rows = await self._board()
        before, self._shown = self._shown, {r.player: rating_value(r.ordinal) for r in rows}
        return leaderboard_lines(self._ruleset, rows, before)


async def _watch(args: argparse.Namespace) -> int:
    version = max(args.after_version, 0)
    try:
        async with grpc.aio.insecure_channel(args.target) as channel:
            stub = pb_grpc.TournamentServiceStub(channel)
            reply = await stub.GetTournament(
                pb.GetTournamentRequest(tournament_id=args.tournament_id)
            )
            tournament = reply.tournament
            if version > tournament.version:
                raise UsageError(
                    f"--after-version {version} is past the tournament's log "
                    f"(version {tournament.version})"
                )
            print(
                f'Watching "{printable(tournament.config.name)}" ({tournament.status}, '
                f"version {tournament.version}) after version {version}; Ctrl-C stops"
            )
            watcher = Watcher(stub, tournament)
            await watcher.start(version)
            failures = 0
            while True:
                request = pb.WatchTournamentRequest(
                    tournament_id=args.tournament_id, after_version=version
                )
                try:
                    async for message in stub.WatchTournament(request):
                        for line in await watcher.lines(message.event):
                            print(line, flush=True)
                        version = message.event.version
                        failures = 0
                    break  # the server ends the stream once the tournament has finished
                except grpc.aio.AioRpcError as error:
                    if error.code() != grpc.StatusCode.UNAVAILABLE or failures >= RETRIES:
                        raise
                    failures += 1
                    print(
                        f"connection lost ({error.details()}); resuming after version "
                        f"{version} (attempt {failures} of {RETRIES})",
                        file=sys.stderr,
                    )
                    await asyncio.sleep(min(2.0**failures, 10.0))
    except asyncio.CancelledError:  # Ctrl-C
        print(
            f"stopped after version {version}: resume with "
            f"teoti tournament watch {args.tournament_id} --after-version {version}",
            file=sys.stderr,
        )
        raise
    print(f"the tournament has finished (version {version})")
    return EXIT_OK


def add_watch(commands: Any) -> None:
    """Add ``watch`` to ``teoti tournament``'s subcommands."""
    watch = commands.add_parser(
        "watch",
        help="follow a tournament: pairings, results, standings, until it finishes",
        description="Print the tournament's events as they happen: registrations, each "
        "round's pairings, each table's places, the standings after every round and, for "
        "a rated tournament, its players' ratings with the change since the previous "
        "round. Ends when the tournament finishes; Ctrl-C stops (exit 130). Every line "
        "starts with its event's version: --after-version resumes after it.",
    )
    watch.add_argument("tournament_id")
    watch.add_argument(
        "--after-version",
        type=int,
        default=0,
        metavar="N",
        help="start after this event version (0: from the start)",
    )
    watch.add_argument("--target", default=DEFAULT_GATEWAY, metavar="HOST:PORT")
    watch.set_defaults(run=_watch)
