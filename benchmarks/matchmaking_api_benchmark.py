"""Matchmaking through the API: many players seeking through two gateways (issue 32).

One ``teoti engine`` (its link open: the table opener creates games through it) and two
``teoti gateway`` processes (each runs a matcher and a table opener, sharing the work
through Redis) on one Redis under a fresh key prefix, every per-client limit off (the
benchmark is one address: harness.UNLIMITED raises the account and lobby quotas). No
bot worker: a table filled with bots opens its game, and nobody needs the bots to move.

This process registers ``--players`` players (default 10,000) through the gateways,
half through each, and gives each a rating drawn as the core benchmark does
(``benchmarks.matchmaking_benchmark.random_terms``: mean 20, sd 8), written into the
rating book's documented hash (a rating otherwise only comes from rated games). Each
player opens its WatchPlayer stream (the typed client's ``watch_player``) on its
gateway, at most ``--opening`` being opened at once (all 10,000 at once made some wait
over 5 s for one of their gateway's 64 Redis connections: UNAVAILABLE), and once every
stream is live (the server answered its opening) the players seek over ``--seconds``
at a steady rate, half through each gateway, with the core benchmark's mix: both
rulesets, 2, 3, 4, 5, 2-4 or 3-5 seats (clipped to what the ruleset seats: for a game of
2 to 4, 5 is 4 and 3-5 is 3-4), half rated, a rating window of 5 points widening by 0.5
a second, one casual seek in four asking for bots after 20 s (the API refuses bots at a
rated seek, so rated ones never ask). At most ``--concurrency`` calls are in flight at
once.

"Request to match found" is timed on the client: from the moment its Seek call was sent
to the moment the player's ``match_found`` notice arrived on its stream (the table
opener posts it once the table's game is open: the player can play from then on).

After ``--settle`` seconds at most for the last seeks, the seeks whose match was not
found are cancelled (atomic against a placement: the matchers place nothing after, so
the checks see final states; these are the seeks still waiting), every other seek is
asked for (GetSeek), every game opened is listed (ListGames) and read (GetGame: its
seats' players). Counts as errors: a player at two tables (two ``match_found`` tables,
or seated in two games), a game whose seats do not hold the players whose seeks name
it, a game no seek names, a seek lost (neither placed nor cancelled at the end), a
placed seek without its notices or its game, a cancelled one with a notice, a notice
repeated, a stream that broke (it is reopened after its last notice, as a client does),
any failed call. Prints min / median / p99 / max of the time to
match, split into seek sent -> table placed (the matchers) and table placed -> notice
arrived (the table openers and the notices), the seeks still waiting, and each service
process's CPU seconds (utime + stime from /proc) from the first seek to the end of the
settle, per placed player: a gateway's figure is the whole process (its matcher, its
table opener, the seeks' calls and 5,000 streams), the matcher is not measured apart.

Run from the repository root: ``python -m benchmarks.matchmaking_api_benchmark
[--players N] [--seconds S] [--redis-url URL]`` (an embedded Redis without one).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from teoti_client import TeotiClient

from benchmarks.harness import (
    CLIENT_CHANNEL_OPTIONS,
    Errors,
    Service,
    key_prefix,
    percentile,
    raise_open_files,
    redis_url,
    split_processes,
)
from benchmarks.matchmaking_benchmark import WINDOW, SeekTerms, random_terms
from benchmarks.peer_benchmark import cpu_seconds
from services.engine.adapters.redis_client import create_redis_client
from services.engine.domain.rulesets import installed_games
from services.matchmaking.redis_pool import PLACED_TTL_S, pool_id
from services.matchmaking.seeks import pool_key
from services.tournament.ratings import DEFAULT_SIGMA
from services.tournament.ratings_book import account_identity

T = TypeVar("T")

STREAMS_OPEN_S = 120.0
"""Upper bound for every player's stream to be live before the seeks start."""
GAME_OPEN_S = 20.0
"""Upper bound, after the settle, for a placed seek's game to be open."""
RESUME_S = 1.0
"""Seconds a broken stream waits before it is reopened."""
LIST_PAGE = 100
"""ListGames page size."""
SEATS = {game.name: (game.min_seats, game.max_seats) for game in installed_games()}
"""Each ruleset's seat counts: the API refuses a seek outside them (the core benchmark's
pool does not check)."""


def fit(terms: SeekTerms) -> SeekTerms:
    """``terms`` with the seat range clipped to its ruleset's seats (a game of 2 to 4
    seats: 5 becomes 4, 3-5 becomes 3-4) and bots only at a casual seek (the API refuses
    them at a rated one)."""
    low, high = SEATS[terms.ruleset]
    return replace(
        terms,
        min_seats=min(max(terms.min_seats, low), high),
        max_seats=max(min(terms.max_seats, high), low),
        bots_after_s=None if terms.rated else terms.bots_after_s,
    )


@dataclass
class Player:
    """One benchmark player: account, credential, the gateway it uses, and what it saw."""

    index: int
    player_id: str
    credential: str = field(repr=False)
    client: TeotiClient
    terms: SeekTerms
    seek_id: str = ""
    sent: float = 0.0
    """time.time() when its Seek call was sent (the services' clock: one machine)."""
    found: list[tuple[str, float]] = field(default_factory=list)
    """(table id, time.time() at arrival) of each match_found notice."""
    placed_ms: int = 0
    """When its seek was placed at a table, ms since the epoch (0: not placed)."""
    started: list[str] = field(default_factory=list)
    """Game ids of its game_started notices."""
    live: bool = False
    """Its stream was answered once."""


async def bounded(items: Sequence[T], work: Callable[[T], Awaitable[None]], limit: int) -> None:
    """``work(item)`` for every item, at most ``limit`` at once."""
    gate = asyncio.Semaphore(limit)

    async def one(item: T) -> None:
        async with gate:
            await work(item)

    await asyncio.gather(*(one(item) for item in items))


async def register(
    clients: list[list[TeotiClient]], count: int, limit: int, errors: Errors
) -> list[Player]:
    """``count`` players, player ``n`` through gateway ``n % 2`` on one of its clients,
    each with its seek's terms drawn (seeded: every run asks the same)."""
    rng = random.Random(7)
    terms = [fit(random_terms(rng)) for _ in range(count)]
    tag = f"mm{random.randrange(10**6)}"
    made: list[Player] = []

    async def one(n: int) -> None:
        gateway = clients[n % len(clients)]
        client = gateway[(n // len(clients)) % len(gateway)]
        try:
            reply = await client.register_player(f"{tag}-{n}")
        except Exception as exc:
            errors.add("register", exc)
            return
        made.append(Player(n, reply.player.player_id, reply.credential, client, terms[n]))

    await bounded(range(count), one, limit)
    return sorted(made, key=lambda p: p.index)


async def seed_ratings(url: str, prefix: str, players: list[Player]) -> None:
    """Give each player its drawn rating in its seek's ruleset (ordinal = rating: mu is
    rating + 3 sigma), in the rating book's hash (services.tournament.ratings_book's
    documented layout ``<prefix>:{ratings:<ruleset>}:players``)."""
    client = create_redis_client(url)
    try:
        pipe = client.pipeline(transaction=False)
        for player in players:
            rating = {
                "games": 1,
                "mu": player.terms.rating + 3 * DEFAULT_SIGMA,
                "sigma": DEFAULT_SIGMA,
            }
            pipe.hset(
                f"{prefix}:{{ratings:{player.terms.ruleset}}}:players",
                account_identity(player.player_id),
                json.dumps(rating, sort_keys=True),
            )
        await pipe.execute()
    finally:
        await client.aclose()


async def watch(
    player: Player, opening: asyncio.Semaphore, live: Callable[[], None], errors: Errors
) -> None:
    """The player's stream: note each match_found and game_started as it arrives. It
    takes a slot of ``opening`` until the server answered its opening (``live()`` the
    first time). A stream that breaks is an error, and is reopened after the last notice
    seen, as a client resumes, so what it would have carried still arrives."""
    after = ""
    while True:
        await opening.acquire()
        holding = True

        def opened() -> None:
            nonlocal holding
            if holding:
                holding = False
                opening.release()
            if not player.live:
                player.live = True
                live()

        try:
            stream = player.client.watch_player(player.credential, after, opened=opened)
            async for notice in stream:
                after = notice.notice_id
                if notice.kind == "match_found":
                    player.found.append((str(notice.data["table_id"]), time.time()))
                elif notice.kind == "game_started":
                    player.started.append(str(notice.data["game_id"]))
            return
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            errors.add("stream", exc)
        finally:
            if holding:
                opening.release()
        await asyncio.sleep(RESUME_S)  # back off before reopening, as a client would


async def open_streams(
    players: list[Player], opening: int, errors: Errors
) -> list[asyncio.Task[None]]:
    """Every player's stream, at most ``opening`` being opened at once; returned once
    each is live (at most STREAMS_OPEN_S)."""
    live = 0
    all_live = asyncio.Event()

    def one_more() -> None:
        nonlocal live
        live += 1
        if live >= len(players):
            all_live.set()

    gate = asyncio.Semaphore(opening)
    tasks = [asyncio.create_task(watch(p, gate, one_more, errors)) for p in players]
    if not players:
        return tasks
    try:
        async with asyncio.timeout(STREAMS_OPEN_S):
            await all_live.wait()
    except TimeoutError:
        errors.add("streams", RuntimeError(f"{live} of {len(players)} live in {STREAMS_OPEN_S} s"))
    return tasks


async def seek_all(players: list[Player], seconds: float, limit: int, errors: Errors) -> float:
    """Every player seeks once, player n due at ``seconds * n / len(players)``, at most
    ``limit`` calls in flight; returns the largest lateness of a send (s)."""
    gate = asyncio.Semaphore(limit)
    start = time.time()
    late = 0.0

    async def one(player: Player, due: float) -> None:
        nonlocal late
        async with gate:
            player.sent = time.time()
            late = max(late, player.sent - due)
            terms = player.terms
            try:
                ticket = await player.client.seek(
                    player.credential,
                    terms.ruleset,
                    terms.min_seats,
                    terms.max_seats,
                    terms.rated,
                    window=(WINDOW.base, WINDOW.widen_per_s, WINDOW.limit),
                    bots_after_s=terms.bots_after_s,
                )
            except Exception as exc:
                errors.add("seek", exc)
                return
            player.seek_id = ticket.seek_id

    tasks = []
    for n, player in enumerate(players):
        due = start + seconds * n / len(players)
        await asyncio.sleep(max(0.0, due - time.time()))
        tasks.append(asyncio.create_task(one(player, due)))
    await asyncio.gather(*tasks)
    return late


async def settle(players: list[Player], seconds: float) -> None:
    """Wait until every seek's match was found, or ``seconds`` passed (a seek nobody
    compatible joined waits on). Polls counts the stream tasks update."""
    deadline = time.monotonic() + seconds
    sought = [p for p in players if p.seek_id]
    while time.monotonic() < deadline and any(not p.found for p in sought):  # noqa: ASYNC110
        await asyncio.sleep(0.5)


async def placements(url: str, prefix: str, players: list[Player]) -> None:
    """Note when each seek was placed, to split the time to match into matching and
    opening. The pool's ``tables`` entries are deleted once opened, so it is read from
    the seek's ``placed:<seek>`` key (services.matchmaking.redis_pool's documented
    layout), set with an expiry of PLACED_TTL_S when the table was placed: placed at
    (Redis's TIME + the key's PTTL) - PLACED_TTL_S, to the millisecond. Read-only."""
    client = create_redis_client(url)
    sought = [p for p in players if p.seek_id]
    try:
        for first in range(0, len(sought), 1000):
            chunk = sought[first : first + 1000]
            pipe = client.pipeline(transaction=False)
            pipe.time()
            for player in chunk:
                pool = pool_id(pool_key(player.terms.ruleset, player.terms.rated, ""))
                pipe.pttl(f"{prefix}:{{mm:{pool}}}:placed:{player.seek_id}")
            now, *ttls = await pipe.execute()
            now_ms = int(now[0]) * 1000 + int(now[1]) // 1000
            for player, ttl in zip(chunk, ttls, strict=True):
                if int(ttl) > 0:  # -2: never placed (still waiting)
                    player.placed_ms = now_ms + int(ttl) - PLACED_TTL_S * 1000
    finally:
        await client.aclose()


async def finish(players: list[Player], limit: int, errors: Errors) -> dict[int, tuple[str, str, str]]:  # fmt: skip
    """Where every seek ended: (status, table id, game id) by player index. The seeks
    whose match was not found are cancelled first (atomic against a placement, so the
    matchers place nothing after this: the checks below see final states); a cancel
    too late answers the table. A placed seek is then asked for (GetSeek) until its
    game is open and its notices arrived (at most GAME_OPEN_S)."""
    states: dict[int, tuple[str, str, str]] = {}
    sought = [p for p in players if p.seek_id]

    async def cancel(player: Player) -> None:
        try:
            status, _table = await player.client.cancel_seek(player.credential, player.seek_id)
        except Exception as exc:
            errors.add("cancel", exc)  # NOT_FOUND: the seek was lost
            states[player.index] = ("lost", "", "")
            return
        if status == "cancelled":
            states[player.index] = ("cancelled", "", "")

    async def settled(player: Player) -> None:
        try:
            async with asyncio.timeout(GAME_OPEN_S):
                while True:
                    got = await player.client.get_seek(player.credential, player.seek_id)
                    if got.status != "placed" or (got.game_id and player.started):
                        break
                    await asyncio.sleep(0.2)  # placed: its game and notices come soon
            states[player.index] = (got.status, got.table_id, got.game_id)
        except Exception as exc:
            errors.add("get seek", exc)

    await bounded([p for p in sought if not p.found], cancel, limit)
    await bounded([p for p in sought if p.index not in states], settled, limit)
    return states


async def account(players: list[Player], limit: int, errors: Errors) -> tuple[int, int, int]:
    """Check every seek, game and notice (see the module doc). Returns (players placed,
    seeks still waiting at the end (then cancelled), tables)."""
    states = await finish(players, limit, errors)
    sought = [p for p in players if p.seek_id]
    placed = [p for p in sought if states.get(p.index, ("",))[0] == "placed"]
    waiting = [p for p in sought if states.get(p.index, ("",))[0] == "cancelled"]
    for player in sought:
        status, table_id, game_id = states.get(player.index, ("unknown", "", ""))
        tables = {t for t, _ in player.found}
        if len(tables) > 1:
            errors.add("two tables", RuntimeError(f"{player.player_id}: {sorted(tables)}"))
        if len(player.found) > len(tables) or len(player.started) > len(set(player.started)):
            arrived = [round(at - player.sent, 1) for _, at in player.found]
            errors.add("notice repeated", RuntimeError(f"{player.player_id} at {arrived} s"))
        if status == "placed":
            if not game_id:
                errors.add("game not open", RuntimeError(player.seek_id))
            if tables != {table_id}:
                errors.add("match_found", RuntimeError(f"{player.seek_id}: {tables} {table_id}"))
            if set(player.started) != {game_id}:
                errors.add("game_started", RuntimeError(f"{player.seek_id}: {player.started}"))
        elif status == "cancelled":
            if tables or player.started:
                errors.add(
                    "notice of a cancelled seek",
                    RuntimeError(
                        f"{player.seek_id} of {player.player_id}: tables {sorted(tables)}, "
                        f"games {player.started}, placed at {player.placed_ms} ms"
                    ),
                )
        elif status not in ("unknown", "lost"):  # counted where its call failed
            errors.add("lost", RuntimeError(f"{player.seek_id}: {status}"))

    # Every game opened (listed) and every game a seek names, read: nobody seated in two,
    # each seek's game seats exactly the players whose seeks name it, no game without one.
    expected: dict[str, set[str]] = {}
    for player in placed:
        expected.setdefault(states[player.index][2], set()).add(player.player_id)
    client = players[0].client
    listed: set[str] = set()
    token = ""
    while True:
        try:
            page, token = await client.list_games(LIST_PAGE, token)
        except Exception as exc:
            errors.add("list games", exc)
            break
        listed.update(page)
        if not token:
            break
    seated: dict[str, list[str]] = {}

    async def seats(game_id: str) -> None:
        try:
            game = await client.get_game(game_id)
        except Exception as exc:
            errors.add("get game", exc)
            return
        humans = {s.player for s in game.seats if s.player}
        for player_id in humans:
            seated.setdefault(player_id, []).append(game_id)
        if game_id not in expected:
            errors.add("game without a seek", RuntimeError(f"{game_id} seats {sorted(humans)}"))
        elif humans != expected[game_id]:
            errors.add("seats", RuntimeError(f"{game_id}: {humans} != {expected[game_id]}"))

    await bounded(sorted(listed | set(expected)), seats, limit)
    for player_id, games in seated.items():
        if len(games) > 1:
            errors.add("seated twice", RuntimeError(f"{player_id} in {sorted(games)}"))

    return len(placed), len(waiting), len(expected)


def process_cpu(processes: dict[str, Service]) -> dict[str, float]:
    """Each running process's CPU seconds so far (utime + stime, every thread)."""
    used = {}
    for name, service in processes.items():
        assert service.process is not None
        used[name] = cpu_seconds([service.process.pid])
    return used


async def run(args: argparse.Namespace, url: str) -> int:
    errors = Errors()
    async with split_processes(url, "mmapi", gateways=2) as (engine, gateways):
        clients = [
            [
                TeotiClient(g.target, channel_options=CLIENT_CHANNEL_OPTIONS, play_stream=False)
                for _ in range(args.channels)
            ]
            for g in gateways
        ]
        streams: list[asyncio.Task[None]] = []
        try:
            t0 = time.perf_counter()
            players = await register(clients, args.players, args.concurrency, errors)
            await seed_ratings(url, key_prefix(engine), players)
            print(f"registered {len(players)} players in {time.perf_counter() - t0:.1f} s")
            t0 = time.perf_counter()
            streams = await open_streams(players, args.opening, errors)
            print(f"{len(players)} player streams live in {time.perf_counter() - t0:.1f} s")
            processes = {"engine": engine} | {f"gateway-{i}": g for i, g in enumerate(gateways)}
            cpu0 = process_cpu(processes)
            late = await seek_all(players, args.seconds, args.concurrency, errors)
            await settle(players, args.settle)
            # Up to here: the accounting's own calls below are not the matchmaking's.
            cpu = {k: v - cpu0[k] for k, v in process_cpu(processes).items()}
            await placements(url, key_prefix(engine), players)
            placed, waiting, tables = await account(players, args.concurrency, errors)
        finally:
            for task in streams:
                task.cancel()
            await asyncio.gather(*streams, return_exceptions=True)
            for gateway in clients:
                for client in gateway:
                    await client.close()
    timed = [p for p in players if p.found and p.seek_id]
    print(
        f"players: {len(players)} seeking over {args.seconds:.0f} s through 2 gateways, "
        f"at most {args.concurrency} calls in flight (latest send {late * 1000:.0f} ms late)"
    )
    print(f"tables opened: {tables}, players placed: {placed}, still waiting: {waiting}")
    print("load average (1, 5, 15 min) at the end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    for label, samples in (
        ("seek sent -> match_found arrived", [p.found[0][1] - p.sent for p in timed]),
        (
            "  of which seek sent -> table placed",
            [p.placed_ms / 1000 - p.sent for p in timed if p.placed_ms],
        ),
        (
            "  and table placed -> match_found arrived",
            [p.found[0][1] - p.placed_ms / 1000 for p in timed if p.placed_ms],
        ),
    ):
        if samples:
            print(
                f"{label} (ms): min {min(samples) * 1000:.0f} / median "
                f"{statistics.median(samples) * 1000:.0f} / p99 {percentile(samples, 99):.0f}"
                f" / max {max(samples) * 1000:.0f}"
            )
    for name, used in cpu.items():
        per = f"{used / placed * 1e6:.0f} µs" if placed else "n/a"
        print(f"  {name}: CPU {used:.2f} s from the first seek to the end, per placed player {per}")
    errors.report()
    return 1 if errors.total else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (None: the command line), run, and return the exit status: 1 if
    any error was counted."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=120.0, help="arrival window")
    parser.add_argument("--settle", type=float, default=30.0, help="seconds to wait after")
    parser.add_argument("--concurrency", type=int, default=64, help="calls in flight")
    parser.add_argument("--channels", type=int, default=8, help="connections per gateway")
    parser.add_argument("--opening", type=int, default=500, help="streams opened at once")
    parser.add_argument("--redis-url", default=None)
    args = parser.parse_args(argv)
    if not math.isfinite(args.seconds) or args.seconds < 0 or args.players < 1:
        parser.error("--players must be at least 1 and --seconds finite and >= 0")
    raise_open_files()
    with redis_url(args.redis_url) as url:
        return asyncio.run(run(args, url))


if __name__ == "__main__":
    raise SystemExit(main())
