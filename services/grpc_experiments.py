"""gRPC core's experiments for this project's processes: the EventEngine listener and
client turned off unless the operator says otherwise.

gRPC (1.85) accepts and serves connections through its EventEngine by default: a message
read from a socket is handed from EventEngine threads to the completion queue that
grpc.aio's poller thread waits on, and from there to the asyncio loop. With the
``event_engine_listener`` and ``event_engine_client`` experiments off, the poller thread
does the socket work itself (gRPC's long-standing iomgr path), one thread hand-off fewer
per message. Measured with benchmarks/peer_benchmark.py (docs/performance.md, issue 16,
eighth round): server CPU per move x 0.83-0.88 and p50 latency x 0.74-0.87 (medians at
1, 10 and 100 matches, serve and split).

gRPC reads ``GRPC_EXPERIMENTS`` once, when ``grpc`` is first imported, so the processes'
entry points run this before anything imports grpc: :func:`services.cli.main` (the
``teoti`` console script and ``python -m services.cli``), the benchmark drivers' package
and the test suite's. Importing :mod:`services` sets nothing (a library user's or a
test's environment is its own). An operator's
own ``GRPC_EXPERIMENTS`` is left as it is; ``GRPC_EXPERIMENTS=`` (empty) keeps gRPC's
defaults. The switch is gRPC's documented one for these rollouts
(``GRPC_EXPERIMENTS="-event_engine_listener"``); a later gRPC that no longer knows an
experiment logs "Unknown experiment" once and runs as it would without it.

The same entry points turn gRPC's fork support off (``GRPC_ENABLE_FORK_SUPPORT=false``,
unless the operator set it). These processes fork only to exec another program (the
embedded redis-server); with fork support on, gRPC's at-fork handler restarts its epoll
poller in that child, which then aborts on the descriptors the child closes before exec
(grpc/grpc#43055, since grpcio 1.81). CI saw it once: an embedded Redis "exited early
(status -6)" with gRPC's "epoll_wait error: Bad file descriptor" in its log.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

GRPC_EXPERIMENTS_DEFAULT = "-event_engine_listener,-event_engine_client"
"""The experiments this project's processes run gRPC with unless ``GRPC_EXPERIMENTS``
is set (gRPC's syntax: comma-separated names, ``-`` turns one off)."""


GRPC_FORK_SUPPORT_DEFAULT = "false"
"""``GRPC_ENABLE_FORK_SUPPORT`` unless set: off (see the module doc)."""


def apply_default(environ: MutableMapping[str, str] = os.environ) -> str:
    """Set ``GRPC_EXPERIMENTS`` in ``environ`` to :data:`GRPC_EXPERIMENTS_DEFAULT` and
    ``GRPC_ENABLE_FORK_SUPPORT`` to :data:`GRPC_FORK_SUPPORT_DEFAULT`, each if absent;
    returns the experiments gRPC will read. Has an effect on gRPC only before ``grpc`` is
    imported in this process (and on child processes)."""
    environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", GRPC_FORK_SUPPORT_DEFAULT)
    return environ.setdefault("GRPC_EXPERIMENTS", GRPC_EXPERIMENTS_DEFAULT)
