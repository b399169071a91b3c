"""The metrics endpoint of one process: Prometheus's text exposition at ``/metrics`` on
a port of its own (docs/operations.md "Metrics"), never on the public gRPC or web port.

prometheus_client's own server, in a thread: a scrape never waits for the event loop,
and a loop busy with moves never delays a scrape (the samplers that need the loop ask it
with a bounded wait, :mod:`services.metrics.samplers`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from wsgiref.simple_server import WSGIServer

import structlog
from prometheus_client import REGISTRY, start_http_server
from prometheus_client.registry import Collector

log = structlog.get_logger(__name__)

METRICS_PORTS = {
    "serve": 9460,
    "engine": 9461,
    "gateway": 9462,
    "bot": 9463,
    "director": 9464,
}
"""The port each command's ``/metrics`` listens on in deploy/k8s and docs/operations.md
(``--metrics-port`` / ``$TEOTI_METRICS_PORT``; a process started by hand serves none
unless asked, so two of them on one machine never fight over a port)."""


@dataclass(frozen=True)
class MetricsAddress:
    """Where a process serves ``/metrics``: ``host`` and ``port`` (0: a free port)."""

    host: str
    port: int


class MetricsPortInUse(OSError):
    """The metrics port is taken (``teoti`` prints it as one line and exits 1)."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(f"cannot serve metrics on {host}:{port}: the address is in use")


class MetricsEndpoint:
    """A running ``/metrics``: ``port`` it listens on; :meth:`close` stops it and
    unregisters the collectors it was given."""

    def __init__(
        self, server: WSGIServer, thread: threading.Thread, collectors: list[Collector]
    ) -> None:
        self._server = server
        self._thread = thread
        self._collectors = collectors
        self.port: int = server.server_port

    def close(self) -> None:
        """Stop serving (waits for a scrape in progress) and drop the collectors."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
        for collector in self._collectors:
            REGISTRY.unregister(collector)


def start_metrics(host: str, port: int, collectors: Iterable[Collector] = ()) -> MetricsEndpoint:
    """Serve every registered metric and ``collectors`` (registered here, unregistered by
    :meth:`MetricsEndpoint.close`) at ``http://host:port/metrics``; port 0 is not "off"
    here but a free port (tests). Raises MetricsPortInUse."""
    bare = host.strip("[]")
    try:
        server, thread = start_http_server(port, bare)
    except OSError as error:
        raise MetricsPortInUse(host, port) from error
    registered: list[Collector] = []
    try:
        for collector in collectors:
            REGISTRY.register(collector)
            registered.append(collector)
    except BaseException:
        MetricsEndpoint(server, thread, registered).close()
        raise
    log.info("metrics_serving", host=bare, port=server.server_port, path="/metrics")
    return MetricsEndpoint(server, thread, registered)
