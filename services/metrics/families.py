"""Every metric of the service, on prometheus_client's default registry.

Names follow Prometheus's conventions (``_total`` counters, ``_seconds`` histograms, base
units). Labels are bounded by construction: a face (``grpc``, ``web``, ``link``), a method
from the service's fixed list, a gRPC status code name, a refusal reason from a fixed
set, a ruleset or outcome name; never a game id, a player, an address or a client's text.

Module-level objects, as prometheus_client intends: one process serves one registry, and
each counter only ever grows, so tests read differences (tests/e2e/test_metrics.py). They
are :mod:`services.metrics.cheap`'s, not prometheus_client's own classes: a move crosses
several of them.
"""

from __future__ import annotations

from services.metrics.cheap import Level, Tally, Timings

LATENCY_BUCKETS = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
)
"""Call latency buckets, seconds: a move takes 1-3 ms of server time (issue 16), a read
less; 10 s is the clients' default deadline."""

REQUESTS = Tally(
    "teoti_requests",
    "Calls answered, by face (grpc, web, link: the engine link), method and gRPC status "
    "code name (OK, INVALID_ARGUMENT, ...); a stream is counted when it ends",
    ["face", "method", "code"],
)
LATENCY = Timings(
    "teoti_request_duration_seconds",
    "Time from a unary call's arrival to its answer, by face and method",
    ["face", "method"],
    LATENCY_BUCKETS,
)
STREAMS_OPEN = Level(
    "teoti_streams_open",
    "Streams held open now (WatchGame, WatchPlayer, Play, the engine link's batches), by "
    "face and method",
    ["face", "method"],
)
REFUSALS = Tally(
    "teoti_limit_refusals",
    "Calls refused by a limit, by reason (rate_limited, too_many_watchers, "
    "too_many_play_streams, too_many_streams, watch_too_slow)",
    ["reason"],
)
REDIS_ROUND_TRIPS = Timings(
    "teoti_redis_round_trip_seconds",
    "Round trips of the engine's script lane (the appends' EVALSHA batches): time from "
    "write to the last reply",
    (),
    LATENCY_BUCKETS,
)
REDIS_ERRORS = Tally(
    "teoti_redis_errors",
    "Failed round trips of the engine's script lane (connection lost or deadline passed)",
)
BOT_TURNS = Tally(
    "teoti_bot_turns",
    "Turn requests the bot worker handled, by outcome (played, stale, not_to_act, ...)",
    ["outcome"],
)
BOT_TURN_SECONDS = Timings(
    "teoti_bot_turn_seconds",
    "Time from a turn request's publication (its stream entry id) to the bot's move being appended",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)
BOT_DEAD_LETTERED = Tally(
    "teoti_bot_dead_lettered",
    "Turn requests this process moved to a dead-letter stream",
)

CLOCKS_FLAGGED = Tally(
    "teoti_clocks_flagged",
    "Seats whose clock ran out, timed out by this process's timekeeper",
)
WEBHOOK_DELIVERIES = Tally(
    "teoti_webhook_deliveries",
    "Notices this process sent to players' webhooks, by outcome (delivered: answered 2xx; "
    "failed: a try that failed, to be retried; dropped: given up after every retry)",
    ["outcome"],
)
TOURNAMENT_ROUNDS = Tally(
    "teoti_tournament_rounds_opened",
    "Tournament rounds this process paired and opened (their games created)",
)
TOURNAMENT_TABLES = Tally(
    "teoti_tournament_tables",
    "Tournament tables this process opened (event=opened) or recorded finished (event=finished)",
    ["event"],
)

ENGINE_TALLIES = {
    "moves_appended": "Moves (SubmitAction commands) appended to a game's log",
    "events_appended": "Events those moves appended",
    "append_conflicts": "Appends of a move refused because the log had moved on "
    "(another writer, a stale snapshot or a stale expected version)",
    "append_retries": "Moves decided again on a fresh load after a conflict",
}
"""The engine's counters (services.engine.domain.tallies.EngineTallies field names), each
exposed as ``teoti_engine_<name>_total`` by :class:`services.metrics.samplers.Tallies`."""
