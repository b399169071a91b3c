"""RatingService on both faces against a real all-in-one stack and Redis (issue 32,
docs/ratings.md): two player accounts play a rated game to the end (one over gRPC with
the typed client, one over the web face), the director hands the finished game to the
rater, and the leaderboard and a player's rating and history read the same over gRPC
and HTTP (OpenAPI lists them); a rated game with a bot seat is refused on both faces;
the players' inboxes hold game_finished with the rating change."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import grpc
import pytest
from teoti_client import InvalidArgument, SeatInfo, TeotiClient

from services.notices.inbox import RedisInbox
from services.notices.notice import NoticeKind
from tests.web.conftest import StackFactory

BASE = "/gameserver.v1.RatingService"
LOG_LINE = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}")
"""A log line in printed output: it starts with its timestamp."""
CLIENT_README = Path(__file__).resolve().parents[2] / "clients" / "python" / "README.md"
JSON = {"content-type": "application/json"}


def _as(credential: str) -> dict[str, str]:
    return {"authorization": f"Player {credential}", "content-type": "application/json"}


async def _rated_once(client: TeotiClient, ruleset: str, total: int) -> Any:
    """The leaderboard once ``total`` players are rated (the director rates finished
    games in the background: wait for it, without a speed target)."""
    for _ in range(400):
        board = await client.rating_leaderboard(ruleset)
        if board.total >= total:
            return board
        await asyncio.sleep(0.05)
    pytest.fail(f"{ruleset}: {total} players never rated")


async def test_a_rated_game_over_both_faces_moves_the_leaderboard(served: StackFactory) -> None:
    async with served() as (stack, http):
        async with TeotiClient(f"127.0.0.1:{stack.port}") as client:
            ann = await client.register_player("Ann")
            bob_reply = await http.post(
                "/gameserver.v1.PlayerService/RegisterPlayer", json={"name": "Bob"}, headers=JSON
            )
            bob = bob_reply.json()
            bob_id, bob_credential = bob["player"]["player_id"], bob["credential"]

            # A rated game with a bot seat is refused on both faces, naming the rule.
            with pytest.raises(InvalidArgument) as refused:
                await client.create_game(
                    [SeatInfo("human", "", bind_to_caller=True), SeatInfo("bot", "Robo")],
                    ruleset="nim",
                    credential=ann.credential,
                    rated=True,
                )
            assert "rated_game_seats" in str(refused.value)
            web_refused = await http.post(
                "/gameserver.v1.GameService/CreateGame",
                json={
                    "ruleset": "nim",
                    "rated": True,
                    "seats": [
                        {"kind": "SEAT_KIND_HUMAN", "bind_to_caller": True},
                        {"kind": "SEAT_KIND_BOT", "name": "Robo"},
                    ],
                },
                headers=_as(bob_credential),
            )
            assert web_refused.status_code == 400
            assert web_refused.json()["details"][0]["reason"] == "rated_game_seats"

            created = await client.create_game(
                [SeatInfo("human", "", bind_to_caller=True), SeatInfo("human", "", open=True)],
                ruleset="nim",
                credential=ann.credential,
                rated=True,
            )
            game_id = created.game_id
            joined = await http.post(
                "/gameserver.v1.GameService/JoinGame",
                json={"game_id": game_id, "seat": 1, "name": ""},
                headers=_as(bob_credential),
            )
            assert joined.status_code == 200, joined.text
            view = await client.get_game(game_id)
            assert view.rated and view.seats[1].player == bob_id

            # Ann over gRPC, Bob over HTTP, one stone at a time until someone wins.
            while not (view := await client.get_game(game_id)).finished:
                [seat] = view.seats_to_act
                if seat == 0:
                    await client.submit_action(game_id, 0, ann.credential, {"take": 1})
                else:
                    moved = await http.post(
                        "/gameserver.v1.GameService/SubmitAction",
                        json={"game_id": game_id, "seat": 1, "action_json": '{"take": 1}'},
                        headers=_as(bob_credential),
                    )
                    assert moved.status_code == 200, moved.text
            winner = view.ranking[0]
            winner_id = (ann.player.player_id, bob_id)[winner]

            board = await _rated_once(client, "nim", 2)
            assert [p.rank for p in board.players] == [1, 2] and board.next_page_token == ""
            top = board.players[0]
            assert top.player_id == winner_id and top.rating.games == 1
            assert top.rating.mu > 25.0 > board.players[1].rating.mu
            assert top.name == ("Ann", "Bob")[winner] and not top.bot

            web_board = await http.post(
                f"{BASE}/GetRatingLeaderboard", json={"ruleset": "nim"}, headers=JSON
            )
            assert web_board.status_code == 200, web_board.text
            rows = web_board.json()["players"]
            assert [(r["rank"], r["player_id"], r["name"]) for r in rows] == [
                (p.rank, p.player_id, p.name) for p in board.players
            ]
            assert rows[0]["rating"]["rating"] == top.rating.rating
            # TournamentService's board names tournament players only: no account rows.
            tournament_board = await http.post(
                "/gameserver.v1.TournamentService/GetLeaderboard",
                json={"ruleset": "nim"},
                headers=JSON,
            )
            assert tournament_board.status_code == 200
            assert tournament_board.json().get("rows", []) == []

            page = await client.rating_leaderboard("nim", page_size=1)
            assert [p.player_id for p in page.players] == [winner_id] and page.total == 2
            rest = await client.rating_leaderboard("nim", 1, page.next_page_token)
            assert rest.players[0].rank == 2 and rest.next_page_token == ""

            mine = await client.player_rating(winner_id, "nim")
            assert mine.rating == top.rating
            [entry] = mine.history
            assert (entry.game_id, entry.place) == (game_id, 1)
            assert entry.before.games == 0 and entry.after == top.rating and entry.finished_at
            web_mine = await http.post(
                f"{BASE}/GetPlayerRating",
                json={"player_id": winner_id, "ruleset": "nim"},
                headers=JSON,
            )
            assert web_mine.json()["history"][0]["game_id"] == game_id

            # Refusals name their rule.
            for request, reason in (
                ({"ruleset": "no-such-game"}, "unknown_ruleset"),
                ({"ruleset": "nim", "page_size": 201}, "page_size"),
                ({"ruleset": "nim", "page_token": "x"}, "page_token"),
            ):
                bad = await http.post(f"{BASE}/GetRatingLeaderboard", json=request, headers=JSON)
                assert bad.status_code == 400 and bad.json()["details"][0]["reason"] == reason
            unknown = await http.post(
                f"{BASE}/GetPlayerRating",
                json={"player_id": "nobody", "ruleset": "nim"},
                headers=JSON,
            )
            assert unknown.status_code == 404

        # Each seated player was told, with the change of the rating shown.
        inbox = RedisInbox(stack.store.client, stack.store.keys.prefix)
        for player_id, seat in ((ann.player.player_id, 0), (bob_id, 1)):
            [notice] = [
                n for n in await inbox.since(player_id) if n.kind is NoticeKind.GAME_FINISHED
            ]
            assert notice.data["seat"] == seat and notice.data["game_id"] == game_id
            assert notice.data["rating_change"]["games"] == 1


async def test_the_openapi_document_lists_rating_service(served: StackFactory) -> None:
    async with served() as (stack, http):
        paths = (await http.get("/openapi.json")).json()["paths"]
        for method in ("GetRatingLeaderboard", "GetPlayerRating"):
            assert f"{BASE}/{method}" in paths
        async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
            from teoti_client.proto import rating_service_pb2 as pb
            from teoti_client.proto import rating_service_pb2_grpc as pb_grpc

            empty = await pb_grpc.RatingServiceStub(channel).GetRatingLeaderboard(
                pb.GetRatingLeaderboardRequest(ruleset="nim")
            )
            assert list(empty.players) == [] and empty.total == 0


async def test_the_client_readme_ratings_example_runs_as_written(
    served: StackFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    match = re.search(r"```python ratings\n(.*?)```", CLIENT_README.read_text("utf-8"), re.S)
    assert match is not None, "the client README shows ratings"
    namespace: dict[str, Any] = {}
    exec(compile(match.group(1), str(CLIENT_README), "exec"), namespace)
    async with served() as (stack, _http), TeotiClient(f"127.0.0.1:{stack.port}") as client:
        ann = await client.register_player("Ann")
        bob = await client.register_player("Bob")
        game_id = await namespace["rated_game"](client, ann.credential, bob.credential)
        await _rated_once(client, "nim", 2)
        capsys.readouterr()
        await namespace["show_ratings"](client, ann.player.player_id)
    # Log lines start with their date; a game id (hex) may start with "20" too (CI met one).
    printed = [line for line in capsys.readouterr().out.splitlines() if not LOG_LINE.match(line)]
    assert [line.split()[0] for line in printed[:2]] == ["1", "2"]
    assert {line.split()[1] for line in printed[:2]} == {"Ann", "Bob"}
    assert printed[2].startswith(f"{game_id} ") and "->" in printed[2]
