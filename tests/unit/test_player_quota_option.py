"""``--accounts-per-hour`` (issue 32): PlayerService's registrations and credential
creations per address come from the command line (or $TEOTI_ACCOUNTS_PER_HOUR)."""

from __future__ import annotations

import argparse

import pytest

from services.cli.service_options import add_limit_options, gateway_settings
from services.rpc.limits import DEFAULT_ACCOUNTS_PER_HOUR, RateLimited


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    add_limit_options(parser)
    return parser


def test_the_default_and_the_flag() -> None:
    assert gateway_settings(_parser().parse_args([])).accounts_per_hour == DEFAULT_ACCOUNTS_PER_HOUR
    settings = gateway_settings(_parser().parse_args(["--accounts-per-hour", "1"]))
    quota = settings.limits().accounts
    quota.admit("ipv4:10.0.0.1:1234")  # the burst
    for _ in range(20):
        try:
            quota.admit("ipv4:10.0.0.1:1234")
        except RateLimited:
            break
    else:
        pytest.fail("an hourly quota of 1 admitted 21 registrations at once")
    quota.admit("ipv4:10.0.0.2:1234")  # another address has its own


def test_the_environment_sets_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEOTI_ACCOUNTS_PER_HOUR", "7")
    assert gateway_settings(_parser().parse_args([])).accounts_per_hour == 7
