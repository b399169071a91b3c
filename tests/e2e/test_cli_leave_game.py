"""A game left by resignation audits offline (issue 32): ``teoti export`` writes its
public log, with SeatResigned and SeatForfeited in it, and ``teoti replay --verify FILE``
checks it from the file alone, the rules of leaving included."""

from __future__ import annotations

from pathlib import Path

from teoti_client import SeatInfo, TeotiClient

from services.app import Stack
from services.engine.domain.rulesets import default_ruleset
from tests.e2e.test_cli import stack, teoti
from tests.e2e.test_cli_export import _lines, published_keys_file

__all__ = ["stack"]  # the fixture, shared with test_cli.py


async def test_a_resigned_game_exports_and_verifies_offline(stack: Stack, tmp_path: Path) -> None:
    target = f"127.0.0.1:{stack.port}"
    async with TeotiClient(target) as client:
        created = await client.create_game(
            [SeatInfo("human", "ann"), SeatInfo("human", "bob")], ruleset=default_ruleset()
        )
        resigned = await client.resign(created.game_id, 1, created.seat_tokens[1])
    assert resigned.outcome == "game_ended" and resigned.finished
    exported = tmp_path / "game.jsonl"
    code, out = await teoti("export", created.game_id, "--target", target, "-o", str(exported))
    assert code == 0, out
    types = [str(line.get("type")) for line in _lines(exported)]
    assert "SeatResigned" in types and "SeedRevealed" in types

    keys = await published_keys_file(target, tmp_path / "keys.json")
    code, out = await teoti("replay", str(exported), "--verify", "--public-key", keys)

    assert code == 0, out
    assert "verify: OK" in out and "seat 1 resigned (the game ended)" in out
    assert "ranking [0, 1]" in out
