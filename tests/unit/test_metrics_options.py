"""``--metrics-port`` / ``--metrics-host`` of the service commands (issue 34): off unless
asked, bound to the process's host by default, and a taken port refused before the
service starts (as the other ports are)."""

from __future__ import annotations

import socket

import pytest

from services.cli import service_options as opts
from services.cli.commands import build_parser
from services.metrics.exposition import MetricsAddress
from services.rpc.server import AddressInUse


def test_metrics_are_off_unless_a_port_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(opts.METRICS_PORT_ENV, raising=False)
    for command in (["serve"], ["engine"], ["gateway"], ["bot"], ["director"]):
        assert opts.metrics_address(build_parser().parse_args(command)) is None, command


def test_the_metrics_host_is_the_process_host_unless_given() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    args = build_parser().parse_args(
        ["gateway", "--host", "127.0.0.1", "--metrics-port", str(free)]
    )
    assert opts.metrics_address(args) == MetricsAddress("127.0.0.1", free)
    bot = build_parser().parse_args(["bot", "--metrics-port", str(free)])
    assert opts.metrics_address(bot) == MetricsAddress("0.0.0.0", free)
    elsewhere = build_parser().parse_args(
        ["engine", "--metrics-host", "127.0.0.1", "--host", "0.0.0.0", "--metrics-port", "9461"]
    )
    assert elsewhere.metrics_host == "127.0.0.1"


def test_a_taken_metrics_port_is_refused_before_anything_starts() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        args = build_parser().parse_args(["serve", "--metrics-port", str(port)])
        with pytest.raises(AddressInUse):
            opts.metrics_address(args)


def test_the_port_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(opts.METRICS_PORT_ENV, "9462")
    assert build_parser().parse_args(["gateway"]).metrics_port == 9462
