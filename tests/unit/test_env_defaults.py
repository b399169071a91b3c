"""Defaults from the environment: a malformed value is a clean usage error naming the
variable, never a traceback; an empty one means the built-in default."""

from __future__ import annotations

import pytest

from services.cli.commands import build_parser
from services.env_defaults import env_number
from services.rpc.limits import DEFAULT_RATE


@pytest.mark.parametrize(
    ("name", "value", "kind"),
    [
        ("TEOTI_WEB_PORT", "80a", "an integer"),
        ("TEOTI_REDIS_POOL_SIZE", "1.5", "an integer"),
        ("TEOTI_RATE_LIMIT", "fast", "a number"),
        ("TEOTI_TIMEKEEPER_INTERVAL", "0,5", "a number"),
    ],
)
def test_a_malformed_value_is_a_usage_error_naming_the_variable(
    name: str,
    value: str,
    kind: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as exited:
        build_parser()
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err == f"teoti: error: ${name} is {value!r}, which is not {kind}\n"


def test_set_values_become_the_defaults_and_empty_ones_leave_the_built_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TEOTI_WEB_PORT", "8181")
    monkeypatch.setenv("TEOTI_RATE_LIMIT", " ")
    args = build_parser().parse_args(["serve"])
    assert args.web_port == 8181
    assert args.rate_limit == DEFAULT_RATE
    assert env_number("TEOTI_WEB_PORT", int, 0) == 8181


@pytest.mark.parametrize("value", ["nan", "inf", "-Infinity", "1e999"])
def test_a_value_that_is_not_a_finite_number_is_a_usage_error(
    value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """float() takes 'nan' and 'inf': TEOTI_TIMEKEEPER_INTERVAL=nan made the timekeeper
    pass without pause (a wait of NaN seconds times out at once) and =inf stopped it
    after one pass (no game's clock ever ran out again), both silently."""
    monkeypatch.setenv("TEOTI_TIMEKEEPER_INTERVAL", value)
    with pytest.raises(SystemExit) as exited:
        build_parser()
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err == f"teoti: error: $TEOTI_TIMEKEEPER_INTERVAL is {value!r}, which is not a number\n"
