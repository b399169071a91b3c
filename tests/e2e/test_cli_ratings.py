"""``teoti ratings`` against a running stack (issue 32, docs/ratings.md): rated games
between player accounts, then the leaderboard as people read it (rank, name, rating
rounded, games), a player's history, and ``verify`` recomputing the server's ratings
from ``teoti export`` files (OK), catching a tampered file and a missing one (exit 1)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from teoti_client import SeatInfo, TeotiClient

from services.app import Stack
from tests.e2e.test_cli import stack, teoti

__all__ = ["stack"]  # the fixture, shared with test_cli.py

NIM = "nim=tests.nim:NimRuleset"


async def _play_rated(client: TeotiClient, first: str, second: str) -> str:
    """A rated nim game: ``first`` creates it, ``second`` joins, one stone at a time."""
    created = await client.create_game(
        [SeatInfo("human", "", bind_to_caller=True), SeatInfo("human", "", open=True)],
        ruleset="nim",
        credential=first,
        rated=True,
    )
    game_id = created.game_id
    await client.join_game(game_id, 1, "", credential=second)
    while not (view := await client.get_game(game_id)).finished:
        [seat] = view.seats_to_act
        await client.submit_action(game_id, seat, (first, second)[seat], {"take": 1})
    return game_id


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_leaderboard_player_and_verify(stack: Stack, tmp_path: Path) -> None:
    target = f"127.0.0.1:{stack.port}"
    async with TeotiClient(target) as client:
        ann = await client.register_player("Ann")
        bob = await client.register_player("Bob", bot=True)
        games = [
            await _play_rated(client, ann.credential, bob.credential),
            await _play_rated(client, bob.credential, ann.credential),
            await _play_rated(client, ann.credential, bob.credential),
        ]
        for _ in range(400):  # the director rates in the background: wait, no speed target
            board = await client.rating_leaderboard("nim")
            if board.total == 2 and board.players[0].rating.games == 3:
                break
            await asyncio.sleep(0.05)
        top = board.players[0]

    code, out = await teoti("ratings", "leaderboard", "--ruleset", "nim", "--target", target)
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0] == "Leaderboard of nim (rating: mu - 3 sigma, rounded)"
    first = lines[2].split()
    assert first[0] == "1" and first[-1] == "3" and first[-2] == str(top.rating.rating)
    assert {"Ann", "Bob (bot)"} == {" ".join(line.split()[1:-2]) for line in lines[2:4]}

    code, out = await teoti(
        "ratings", "player", ann.player.player_id, "--ruleset", "nim", "--target", target
    )
    assert code == 0, out
    assert out.startswith("Ann in nim: rating ") and "after 3 rated games" in out
    assert all(f"game {g}" in out for g in games)

    files = []
    for game_id in games:
        path = tmp_path / f"{game_id}.jsonl"
        code, out = await teoti(
            "export", game_id, "--target", target, "-o", str(path), "--extra-ruleset", NIM
        )
        assert code == 0, out
        files.append(str(path))
    verify = ("ratings", "verify", "--ruleset", "nim", "--target", target, "--extra-ruleset", NIM)
    code, out = await teoti(*verify, *files)
    assert code == 0, out
    assert "3 rated games of nim replayed" in out and "OK: 2 players' ratings" in out

    # One move of the first game changed in its file: caught, and both players named.
    lines = (await asyncio.to_thread(Path(files[0]).read_text, "utf-8")).splitlines()
    index = next(i for i, line in enumerate(lines) if '"StonesTaken"' in line)
    event = json.loads(lines[index])
    event["payload"]["count"] += 1
    lines[index] = json.dumps(event)
    tampered = tmp_path / "tampered.jsonl"
    await asyncio.to_thread(tampered.write_text, "\n".join(lines) + "\n", "utf-8")
    code, out = await teoti(*verify, str(tampered), *files[1:])
    assert code == 1, out
    assert f"FAILED game {games[0]}" in out
    assert f"player:{ann.player.player_id}" in out and f"player:{bob.player.player_id}" in out

    # A rated game left out of the export: the ratings differ.
    code, out = await teoti(*verify, *files[1:])
    assert code == 1 and "FAILED player:" in out, out
