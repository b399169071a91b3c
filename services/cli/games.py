"""The game client commands a person plays and watches with: ``teoti demo`` (an all-bot
game, its milestones and scores), ``teoti play`` and ``teoti watch`` (the terminal
table), each against ``--target`` or a server embedded for the run."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from services.cli.errors import EXIT_FAILED, EXIT_OK, UsageError
from services.cli.launchers import redis_url_for
from services.cli.logs import describe
from services.cli.options import (
    DEFAULT_GATEWAY,
    Subparsers,
    add_extra_ruleset,
    json_object,
    registry,
)
from services.engine.domain.clock import fixed_seed, random_seed
from services.engine.domain.ruleset import InvalidOptions, RulesetInfo, info_of
from services.engine.domain.rulesets import RulesetRegistry, default_ruleset
from services.safe_text import printable

if TYPE_CHECKING:
    from services.client import TimeControl

log = structlog.get_logger("teoti")

DEFAULT_WATCH_PACE_S = 0.4
"""Seconds per bot move in ``teoti watch``'s own all-bot game: a 2-seat game in about a minute."""


@contextlib.asynccontextmanager
async def _target(
    args: argparse.Namespace,
    rulesets: RulesetRegistry,
    bot_pause_s: float = 0.0,
    data_dir: Path | None = None,
) -> AsyncIterator[str]:
    """The gateway to talk to: --target, or an embedded server for this run (whose bots
    wait ``bot_pause_s`` before each move; its Redis keeps its data in ``data_dir``, else
    in a temporary folder removed at the end)."""
    if args.target:
        yield str(args.target)
        return
    from services.app import BotSettings, all_in_one

    seeds = fixed_seed(str(args.seed)) if getattr(args, "seed", None) is not None else random_seed
    persist = data_dir is not None
    with redis_url_for(os.environ.get("REDIS_URL"), data_dir, persist=persist) as url:
        async with all_in_one(
            url, "127.0.0.1:0", rulesets, seed_source=seeds, bot=BotSettings(pause_s=bot_pause_s)
        ) as stack:
            yield f"127.0.0.1:{stack.port}"


async def _demo(args: argparse.Namespace) -> int:
    from services.client import SeatInfo, TeotiClient

    rulesets = registry(args.extra_ruleset)
    if args.target and args.seed is not None:
        log.warning("seed_ignored_with_target", reason="the remote server chooses game seeds")
    # Seat counts and the solo mode are the ruleset's own (RulesetInfo), checked here so a
    # bad --players is a usage error before any server starts.
    info = info_of(rulesets.get(args.ruleset))
    options = dict(args.options)
    if args.solo:  # a bot stands in for the person; the others are the solo opponent
        if info.solo is None:
            raise UsageError(f"--solo: {info.title} has no solo mode")
        seats = [SeatInfo("bot", "Person (a bot)")]
        seats += [SeatInfo("bot", info.solo.opponent) for _ in range(info.solo.seats - 1)]
        options = {**options, **info.solo.options}
    else:
        try:
            info.check_seats(args.players)
        except InvalidOptions as error:
            raise UsageError(f"--players: {error.message}") from error
        seats = [SeatInfo("bot", f"Bot {i + 1}") for i in range(args.players)]
    async with _target(args, rulesets) as gateway, TeotiClient(gateway) as client:
        created = await client.create_game(
            seats,
            ruleset=args.ruleset,
            options=options,
            command_id=f"demo:{uuid.uuid4().hex}",
        )
        print(f"game {created.game_id} ({args.ruleset}, {len(seats)} bots) via {gateway}")
        count = 0

        async def follow() -> None:
            nonlocal count
            async for event in client.watch(created.game_id):
                count += 1
                milestone, text = describe(rulesets, args.ruleset, event.to_domain())
                if milestone:
                    print(f"  v{event.version:>5}  {printable(text)}", flush=True)
                elif count % 100 == 0:
                    print(f"  ... {count} events", flush=True)

        await asyncio.wait_for(follow(), args.timeout)
        final = await client.get_game(created.game_id)
    print(f"finished after {final.version} events")
    for place, seat in enumerate(final.ranking, start=1):
        score = final.scores[seat]
        unit = "point" if score == 1 else "points"
        print(f"  {place}. {printable(final.seats[seat].name)} (seat {seat}): {score} {unit}")
    print(f"game id: {created.game_id}")
    return EXIT_OK if final.finished else EXIT_FAILED


def table_seats(info: RulesetInfo, players: int | None, solo: bool) -> tuple[int, bool]:
    """(seat count, whether to ask for the solo mode) of a new ``teoti play``/``watch``
    game, from the ruleset's own RulesetInfo: ``--solo`` (or no ``--players``, when the
    game has a solo mode) plays its solo mode; ``--players N`` must be a seat count of the
    game; without either, the smallest count from 2. Raises UsageError (one line naming
    the game's seat counts) otherwise."""
    if solo:
        if info.solo is None:
            raise UsageError(f"--solo: {info.title} has no solo mode")
        return info.solo.seats, True
    if players is None:
        if info.solo is not None:
            return info.solo.seats, True
        return min(max(info.min_seats, 2), info.max_seats), False
    try:
        info.check_seats(players)
    except InvalidOptions as error:
        raise UsageError(f"--players: {error.message}") from error
    return players, False


def play_clock(args: argparse.Namespace) -> TimeControl | None:
    """The clock of ``teoti play``'s new game from its flags; None without any. Raises
    UsageError for a clock that cannot work (bot takeover without time to take back a
    seat) or one given with --join/--resume (a clock is the new game's)."""
    from services.client import TimeControl

    if args.timeout_policy == "bot_takeover" and not (args.increment_ms or args.move_deadline_ms):
        # With a base time alone, a seat a bot took over comes back with no time left.
        raise UsageError(
            "--timeout-policy bot_takeover needs --increment-ms (with --base-ms) or "
            "--move-deadline-ms, so a seat taken back has time to move"
        )
    if not (args.base_ms or args.increment_ms or args.move_deadline_ms):
        return None
    if args.join or args.resume:
        raise UsageError("a clock is chosen when the game is created, not with --join/--resume")
    return TimeControl(args.base_ms, args.increment_ms, args.move_deadline_ms, args.timeout_policy)


async def _play(args: argparse.Namespace) -> int:
    from services.tui import launch, saved_seats

    rulesets = registry(args.extra_ruleset)
    # A new game's seats are the ruleset's own (usage errors before any server starts);
    # a game joined or resumed has its seats already.
    info = None if args.join or args.resume else info_of(rulesets.get(args.ruleset))
    players, solo = table_seats(info, args.players, args.solo) if info else (2, False)
    time_control = play_clock(args)  # usage errors before any server or file
    launch.log_to_file(Path(args.log_file), args.log_level)
    seats_file = Path(args.seats_file)
    data_dir = Path(args.data_dir)
    if args.resume:
        saved = saved_seats.load(seats_file).get(args.resume)
        if saved is None:
            raise UsageError(
                f"no saved seat for game {args.resume} in {seats_file}; join it with "
                "--join GAME_ID --seat N --token TOKEN"
            )
        args.join, args.seat, args.token = saved.game_id, saved.seat, saved.token
        args.name = saved.name or args.name
        if not args.target and saved.target != saved_seats.EMBEDDED:
            args.target = saved.target
        if saved.data_dir:
            data_dir = Path(saved.data_dir)
    elif args.join and not args.target:  # a game to join lives on a running server
        args.target = DEFAULT_GATEWAY
    where = args.target or saved_seats.EMBEDDED

    def keep(game_id: str, seat: int, token: str) -> None:
        saved = saved_seats.SavedSeat(game_id, seat, token, args.name, where, str(data_dir))
        saved_seats.save(saved, seats_file)

    async with _target(args, rulesets, data_dir=data_dir) as gateway:
        played = await launch.play(
            gateway,
            name=args.name,
            players=players,
            solo=solo,
            join=args.join,
            token=args.token,
            seat=args.seat,
            options=args.options,
            on_seat=keep,
            ruleset=args.ruleset,
            info=info,
            registry=rulesets,
            time_control=time_control,
        )
    _print_left_game(played, where, seats_file)
    return EXIT_OK


def _print_left_game(played: Any, where: str, seats_file: Path) -> None:
    """What a person needs after quitting ``teoti play``: the game, seat, token, standing
    and the exact command that continues it."""
    state = "finished" if played.finished else "left running"
    you = printable(played.name)
    print(f"game {played.game_id} ({state}); you are seat {played.seat} ({you})")
    for name, score in played.scores:
        print(f"  {printable(name)}: {score} {played.score_unit}")
    print(f"seat token: {played.token}  (kept in {seats_file}, readable by you only)")
    if not played.finished:
        print(f"resume: teoti play --resume {played.game_id}")
        if where != "embedded":
            print(
                f"  or from anywhere: teoti play --target {where} --join {played.game_id} "
                f"--seat {played.seat} --token {played.token}"
            )


async def _watch(args: argparse.Namespace) -> int:
    from services.tui import launch

    rulesets = registry(args.extra_ruleset)
    players = args.players
    if not args.game_id:  # a new all-bot game: seat counts are the ruleset's own
        info = info_of(rulesets.get(args.ruleset))
        players, _ = table_seats(info, args.players, solo=False)
    launch.log_to_file(Path(args.log_file), args.log_level)
    if args.game_id and not args.target:
        args.target = DEFAULT_GATEWAY
    if args.target and args.pace != DEFAULT_WATCH_PACE_S:
        log.warning("pace_ignored_with_target", reason="the server's bots play at its speed")
    async with _target(args, rulesets, args.pace) as gateway:
        code: int = await launch.watch(gateway, args.game_id, players or 2, args.ruleset, rulesets)
        return code


def add_demo(sub: Subparsers) -> None:
    """``teoti demo``: an all-bot game, its milestones and final scores."""
    demo = sub.add_parser("demo", help="play an all-bot game and print its progress and scores")
    demo.add_argument("--target", metavar="HOST:PORT", help="gateway to use (default: embedded)")
    demo.add_argument(
        "--players", type=int, default=2, help="seats, all bots (the ruleset says how many)"
    )
    demo.add_argument("--seed", help="game seed (embedded server only)")
    demo.add_argument("--ruleset", default=default_ruleset())
    demo.add_argument(
        "--options", type=json_object, default={}, help="ruleset options as a JSON object"
    )
    demo.add_argument(
        "--solo", action="store_true", help="a solo game against Teotibot (a bot plays the human)"
    )
    demo.add_argument("--timeout", type=float, default=600.0, help="seconds before giving up")
    add_extra_ruleset(demo)
    demo.set_defaults(run=_demo)


def add_play(sub: Subparsers) -> None:
    """``teoti play``: a seat at the full-screen terminal table."""
    play = sub.add_parser(
        "play",
        help="play on a full-screen terminal table",
        description="Play on a full-screen terminal table. Keys: arrows and Enter choose, "
        "b/s/l switch views, e shows the last scoring, R resigns (after a yes/no), q quits.",
    )
    play.add_argument(
        "--target",
        metavar="HOST:PORT",
        help="gateway (default: an embedded server; 127.0.0.1:50051 with --join)",
    )
    mode = play.add_mutually_exclusive_group()
    play.add_argument(
        "--ruleset",
        default=default_ruleset(),
        help=f"game of a new game (default {default_ruleset()}; --extra-ruleset adds more)",
    )
    mode.add_argument(
        "--solo",
        action="store_true",
        help="you against the game's own solo opponent (the default when it has one)",
    )
    mode.add_argument("--join", metavar="GAME_ID", help="play a seat of an existing game")
    mode.add_argument(
        "--players",
        type=int,
        help="you plus bot seats, not solo (the game says how many it seats)",
    )
    mode.add_argument(
        "--resume",
        metavar="GAME_ID",
        help="continue a game you played here (its seat token is in --seats-file)",
    )
    play.add_argument(
        "--token", default="", help="your seat token (with --join; default: a new one, shown)"
    )
    play.add_argument("--seat", type=int, help="open seat to claim (with --join)")
    play.add_argument("--name", default="Player", help="your name at the table")
    play.add_argument("--seed", help="game seed (embedded server only)")
    play.add_argument(
        "--options", type=json_object, default={}, help="game options as a JSON object"
    )
    play.add_argument(
        "--base-ms", type=int, default=0, help="your clock: thinking time in ms (0: none)"
    )
    play.add_argument(
        "--increment-ms", type=int, default=0, help="ms added after each of your moves"
    )
    play.add_argument(
        "--move-deadline-ms", type=int, default=0, help="deadline of each move in ms (0: none)"
    )
    play.add_argument(
        "--timeout-policy",
        choices=["forfeit", "bot_takeover"],
        default="forfeit",
        help="out of time: you are ranked last, or a bot plays your seat until your next "
        "move (needs increment or a move deadline); default %(default)s",
    )
    play.add_argument(
        "--data-dir",
        default=".teoti/play",
        help="the embedded server's Redis data folder (kept, so games can be resumed)",
    )
    play.add_argument(
        "--seats-file",
        default=".teoti/seats.json",
        help="where your seat tokens are kept (mode 0600)",
    )
    play.add_argument("--log-file", default=".teoti/tui.log", help="where server logs go")
    add_extra_ruleset(play)
    play.set_defaults(run=_play)


def add_watch(sub: Subparsers) -> None:
    """``teoti watch``: a game live on the terminal table (a new all-bot one by default)."""
    watch = sub.add_parser("watch", help="watch a game live on the terminal table")
    watch.add_argument("game_id", nargs="?", help="game to watch (default: a new all-bot game)")
    watch.add_argument(
        "--target",
        metavar="HOST:PORT",
        help="gateway (default: 127.0.0.1:50051 with a GAME_ID; without one, an embedded "
        "server for a new all-bot game)",
    )
    watch.add_argument("--ruleset", default=default_ruleset(), help="game of a new all-bot game")
    watch.add_argument(
        "--players", type=int, help="seats of a new all-bot game (the game says how many)"
    )
    watch.add_argument("--seed", help="game seed (embedded server only)")
    watch.add_argument(
        "--pace",
        type=float,
        default=DEFAULT_WATCH_PACE_S,
        metavar="SECONDS",
        help="embedded server only: each bot move waits this long, so you can follow "
        f"the game (default {DEFAULT_WATCH_PACE_S}; 0: full speed)",
    )
    watch.add_argument("--log-file", default=".teoti/tui.log", help="where server logs go")
    add_extra_ruleset(watch)
    watch.set_defaults(run=_watch)
