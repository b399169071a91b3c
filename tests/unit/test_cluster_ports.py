"""The embedded Redis Cluster's node ports: out of the kernel's ephemeral range, and a node
whose port another process took meanwhile is started again on another port."""

from __future__ import annotations

import socket

import pytest

from services import embedded_redis
from services.embedded_redis import CLUSTER_PORTS, EmbeddedRedisCluster, free_cluster_port

EPHEMERAL_START = 32768  # Linux's default net.ipv4.ip_local_port_range starts here


def test_node_and_bus_ports_stay_below_the_ephemeral_range() -> None:
    assert CLUSTER_PORTS.stop - 1 + 10000 < EPHEMERAL_START
    for _ in range(200):
        port = free_cluster_port()
        assert port in CLUSTER_PORTS
        assert port + 10000 < EPHEMERAL_START


def test_a_node_whose_port_was_taken_starts_on_another(monkeypatch: pytest.MonkeyPatch) -> None:
    # Another process binds the port between the check and the node's own bind: the node
    # exits at once ("Address already in use") and must come up on a fresh port.
    squatter = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    squatter.bind(("127.0.0.1", 0))
    squatter.listen()
    taken_port = squatter.getsockname()[1]
    real = embedded_redis.free_cluster_port
    picks: list[int] = []

    def first_pick_is_taken(taken: set[int] | None = None) -> int:
        port = taken_port if not picks else real(taken)
        picks.append(port)
        return port

    monkeypatch.setattr(embedded_redis, "free_cluster_port", first_pick_is_taken)
    try:
        with EmbeddedRedisCluster(masters=3) as cluster:
            assert picks[0] == taken_port
            assert taken_port not in cluster.ports
            assert len(set(cluster.ports)) == 3
            # One retry, then the three nodes' own ports; more only if another process on
            # the machine (a second cluster) took a port between a pick and its bind.
            assert len(picks) >= 4 and set(cluster.ports) <= set(picks[1:])
    finally:
        squatter.close()
