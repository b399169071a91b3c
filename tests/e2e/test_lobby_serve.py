"""The lobby end to end against a real ``teoti serve`` (issue 32): a person and a bot
account seek, are matched into one game with both seats bound to them, play it to the
end with their player credentials alone, and play it again (a rematch); then the server
stops cleanly on SIGTERM with its matcher and table opener running. No credential
reaches the server's log."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from teoti_client import TeotiClient

from tests.serve_process import serving

WAIT_S = 30.0
"""Upper bound for the matcher and the opener to act (never reached when they work)."""


async def _game_of_seek(client: TeotiClient, credential: str, seek_id: str) -> str:
    async with asyncio.timeout(WAIT_S):
        while True:
            state = await client.get_seek(credential, seek_id)
            if state.game_id:
                return state.game_id
            await asyncio.sleep(0.05)


async def _game_of_table(client: TeotiClient, credential: str, table_id: str) -> str:
    async with asyncio.timeout(WAIT_S):
        while True:
            table = await client.get_table(credential, table_id)
            if table.game_id:
                return table.game_id
            await asyncio.sleep(0.05)


async def _play_out(client: TeotiClient, game_id: str, credentials: dict[str, str]) -> None:
    game = await client.get_game(game_id)
    while not game.finished:
        seat = game.seats_to_act[0]
        credential = credentials[game.seats[seat].player]
        moves = await client.legal_actions(game_id, seat, credential)
        await client.submit_action(game_id, seat, credential, moves[0].action)
        game = await client.get_game(game_id)


async def test_a_person_and_a_bot_account_meet_play_and_play_again(tmp_path: Path) -> None:
    with serving(tmp_path / "data", tmp_path / "serve.log") as served:
        async with TeotiClient(f"127.0.0.1:{served.port}") as client:
            ann = await client.register_player("Ann")
            bot = await client.register_player("Robo", bot=True)
            credentials = {
                ann.player.player_id: ann.credential,
                bot.player.player_id: bot.credential,
            }
            tickets = [
                await client.seek(p.credential, "nim", min_seats=2, max_seats=3) for p in (ann, bot)
            ]
            game_id = await _game_of_seek(client, ann.credential, tickets[0].seek_id)
            assert await _game_of_seek(client, bot.credential, tickets[1].seek_id) == game_id
            game = await client.get_game(game_id)
            assert [s.player for s in game.seats] == [ann.player.player_id, bot.player.player_id]
            await _play_out(client, game_id, credentials)

            offered = await client.offer_rematch(bot.credential, game_id)
            accepted = await client.accept_rematch(ann.credential, game_id)
            assert accepted.status == "accepted"
            rematch_id = await _game_of_table(client, ann.credential, offered.table_id)
            assert rematch_id != game_id
            await _play_out(client, rematch_id, credentials)
            assert (await client.get_game(rematch_id)).finished
        served.process.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(served.process.wait, 60) == 0
    logged = (tmp_path / "serve.log").read_text()
    assert "table_opened" in logged
    assert ann.credential not in logged and bot.credential not in logged
