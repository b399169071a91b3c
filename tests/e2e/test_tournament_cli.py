"""``teoti tournament demo`` end to end: a bot-only Swiss on an embedded Redis prints
every round, the final standings and the log's verification, and exits 0."""

from __future__ import annotations

import pytest

from services.cli import commands, main


def test_tournament_demo_prints_rounds_standings_and_verification(
    capsys: pytest.CaptureFixture[str], redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REDIS_URL", redis_url)  # the session's Redis, not a second one
    # Its JSON log handler would outlive this test's captured stderr and break later logs.
    monkeypatch.setattr(commands, "configure_logging", lambda level: None)
    code = main(
        [
            "tournament",
            "demo",
            "--extra-ruleset",
            "nim=tests.nim:NimRuleset",
            "--ruleset",
            "nim",
            "--players",
            "7",
            "--table-size",
            "3",
            "--min-table-size",
            "2",
            "--rounds",
            "2",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "Round 1:" in out and "Round 2:" in out
    assert "Final standings" in out
    assert out.count("bot-00") >= 7
    assert "chain ok" in out and "pairings ok (2 rounds" in out
