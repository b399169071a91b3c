"""The OpenAPI document is the contract client authors generate from (issue 33, "The API
contract"): it equals the committed copy the TypeScript types come from, the face takes
exactly the requests it describes, a finished stream's reconnect gets 204, Schemathesis
finds nothing with all its checks, and a Python client generated from it plays a game and
follows its stream. All against real servers on a real Redis."""

from __future__ import annotations

import asyncio
import importlib
import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from services.web.document import document
from tests.web.conftest import StackFactory
from tests.web_serve import ROOT, Served, sse_frames, teoti_serve

SERVICE = "/gameserver.v1.GameService/"
JSON = {"content-type": "application/json"}
COMMITTED = ROOT / "clients" / "web" / "openapi.json"
ANN = "ann-secret-0123456789abcdef"
BOB = "bob-secret-0123456789abcdef"
SCHEMATHESIS_EXAMPLES = 10
"""Cases per operation and phase: about 3,300 requests, 45 s on two busy cores."""
SCHEMATHESIS_CONFIG = """
# Every method also refuses what a schema cannot state (a name's length, a limit's range,
# an unknown ruleset, a seat count) with INVALID_ARGUMENT or FAILED_PRECONDITION, both
# HTTP 400 in the gRPC-to-HTTP table: schema-valid requests may get 400 with a reason.
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429"]

# A finished game to watch: its stream's every event is checked against the schema
# (generated ids only reach 404).
[[operations]]
include-name-regex = "WatchGame"
parameters = {{ game_id = "{game}" }}
"""


@pytest.fixture
def serve(redis_url: str) -> Iterator[Served]:
    """A real ``teoti serve`` of its own for each slow test: Schemathesis's thousands of
    requests leave the address rate-limited, which a test run after it on the same
    server met as ``rate_limited`` (2 runs in 3)."""
    with teoti_serve(redis_url, f"openapi-{uuid.uuid4().hex[:10]}") as server:
        yield server


async def bot_game(http: httpx.AsyncClient) -> str:
    """A nim game of two bots, played to its end; its id."""
    bot = {"kind": "SEAT_KIND_BOT", "name": "bot"}
    created = await http.post(
        SERVICE + "CreateGame", json={"ruleset": "nim", "seats": [bot, bot]}, headers=JSON
    )
    assert created.status_code == 200, created.text
    game = str(created.json()["game_id"])
    for _ in range(200):  # bots play in the background: poll the public status
        got = (await http.post(SERVICE + "GetGame", json={"game_id": game}, headers=JSON)).json()
        if got["finished"]:
            return game
        await asyncio.sleep(0.05)
    raise AssertionError(f"the bots never finished: {got}")


async def test_the_served_document_is_the_committed_one(served: StackFactory) -> None:
    """clients/web/openapi.json (what `npm run gen:api` reads) is what the face serves;
    regenerate it with `python -m services.web.document > clients/web/openapi.json`."""
    async with served() as (_, http):
        served_document = (await http.get("/openapi.json")).json()
    assert served_document == document()
    assert json.loads(COMMITTED.read_text()) == served_document, (
        "clients/web/openapi.json is stale: python -m services.web.document > "
        "clients/web/openapi.json, then npm run gen:api in clients/web"
    )


def test_the_document_states_what_is_sent_and_accepted() -> None:
    """Replies require their fields without presence; requests refuse unknown ones;
    streams are described per event; errors are typed."""
    spec = document()
    schemas = spec["components"]["schemas"]
    reply = schemas["gameserver.v1.GetGameResponse"]
    assert {"game_id", "version", "finished", "seats_to_act"} <= set(reply["required"])
    assert "result" not in reply["required"]  # a message field: present only when set
    request = schemas["gameserver.v1.SubmitActionRequest"]
    assert request["additionalProperties"] is False and "required" not in request
    seat = request["properties"]["seat"]["anyOf"]
    assert {"type": "null"} in seat
    version = schemas["gameserver.v1.Event"]["properties"]["version"]["anyOf"]
    assert {"type": "string", "pattern": "^-?[0-9]+$"} in version
    enum = schemas["gameserver.v1.SeatKindInput"]["anyOf"]
    assert enum[0]["enum"][1] == "SEAT_KIND_HUMAN" and enum[1]["type"] == "integer"
    status = schemas["google.rpc.Status"]
    assert status["required"] == ["code", "message", "details"]
    watch = spec["paths"][SERVICE + "WatchGame"]
    ok = watch["get"]["responses"]["200"]["content"]["text/event-stream"]
    assert set(ok["x-sse-events"]) == {"message", "end", "error"}
    # Each event as tools before OpenAPI 3.2 read it, or the whole text (never one JSON).
    events = ok["schema"]["anyOf"]
    assert [e.get("properties", {}).get("event", {}).get("const") for e in events] == [
        "message",
        "end",
        "error",
        None,
    ]
    assert events[0]["properties"]["data"]["contentSchema"] == {
        "$ref": "#/components/schemas/gameserver.v1.WatchGameResponse"
    }
    assert events[-1] == {"type": "string"}
    assert "204" in watch["get"]["responses"]
    names = [p["name"] for p in watch["get"]["parameters"]]
    assert "Last-Event-ID" in names and "x-timeout-ms" in names and "seat_token" not in names
    too_many = spec["paths"][SERVICE + "SubmitAction"]["post"]["responses"]["429"]
    assert "Retry-After" in too_many["headers"]
    ids = [op["operationId"] for item in spec["paths"].values() for op in item.values()]
    assert len(ids) == len(set(ids))
    assert all(
        op.get("summary") and op.get("tags") for i in spec["paths"].values() for op in i.values()
    )


async def test_the_face_takes_what_the_document_describes(served: StackFactory) -> None:
    """Enums by name or number, integers as digit strings, null as the zero; protobuf's
    extra leniency (a float enum, a bool enum, a string double) is refused with its path."""
    async with served() as (_, http):

        async def list_games(body: dict[str, Any]) -> httpx.Response:
            return await http.post(SERVICE + "ListGames", json=body, headers=JSON)

        for accepted in (
            {"status": "GAME_STATUS_FILTER_OPEN"},
            {"status": 1},
            {"status": None, "page_size": "5"},
            {"pageSize": 5},
        ):
            reply = await list_games(accepted)
            assert reply.status_code == 200, (accepted, reply.text)
            assert set(reply.json()) == {"games", "next_page_token"}
        for refused, words in (
            ({"status": 2.5e-42}, "status must be one of"),
            ({"status": True}, "status must be one of"),
            ({"page_size": "1e3"}, "page_size must be an integer"),
            ({"page_size": True}, "page_size must be an integer"),
            ({"ruleset": 5}, "ruleset must be a string"),
            ({"surprise": 1}, "surprise"),
        ):
            reply = await list_games(refused)
            assert reply.status_code == 400, (refused, reply.text)
            assert words in reply.json()["message"], reply.text
        created = await http.post(
            SERVICE + "CreateGame",
            json={"ruleset": "nim", "seats": [{"kind": "SEAT_KIND_BOT", "name": 7}]},
            headers=JSON,
        )
        assert "seats[0].name must be a string" in created.json()["message"]
        doubled = await http.get(SERVICE + "WatchGame", params=[("game_id", "a"), ("game_id", "b")])
        assert doubled.status_code == 400 and "more than once" in doubled.text


async def test_a_reconnect_past_a_finished_stream_gets_204(served: StackFactory) -> None:
    """EventSource reconnects after `end` with the last id it saw: 204 stops it, where
    200 and `end` again would go round for ever. An earlier id still resumes."""
    async with served() as (_, http):
        game = await bot_game(http)
        url = SERVICE + "WatchGame"
        async with http.stream("GET", url, params={"game_id": game}) as stream:
            frames = [frame async for frame in sse_frames(stream)]
        assert frames[-1][0] == "end" and frames[-2][0] == "message"
        last = frames[-2][2]
        assert last is not None and int(last) == frames[-2][1]["event"]["version"]
        finished = await http.get(url, params={"game_id": game}, headers={"last-event-id": last})
        assert finished.status_code == 204 and finished.content == b""
        earlier = str(int(last) - 1)
        async with http.stream(
            "GET", url, params={"game_id": game}, headers={"last-event-id": earlier}
        ) as stream:
            again = [frame async for frame in sse_frames(stream)]
        assert [(event, ident) for event, _, ident in again] == [("message", last), ("end", None)]


async def _finished_game(web: str) -> str:
    async with httpx.AsyncClient(base_url=web, timeout=20) as http:
        return await bot_game(http)


def _schemathesis() -> Path:
    binary = Path(sys.executable).with_name("st")
    if not binary.exists():
        pytest.skip("Schemathesis is in the dev extra: pip install -e '.[dev]'")
    return binary


@pytest.mark.slow
def test_schemathesis_finds_nothing_with_all_checks(serve: Served, tmp_path: Path) -> None:
    """Every operation, every check (status codes, content types, headers, response
    schemas, each server-sent event of a finished game's WatchGame, schema-violating
    requests refused, valid ones accepted, unsupported methods...), coverage, fuzzing
    and stateful phases, a fixed seed: 0 failures."""
    game = asyncio.run(_finished_game(serve.web))
    (tmp_path / "schemathesis.toml").write_text(SCHEMATHESIS_CONFIG.format(game=game))
    run = subprocess.run(
        [
            str(_schemathesis()),
            "run",
            f"{serve.web}/openapi.json",
            "--checks",
            "all",
            "--max-examples",
            str(SCHEMATHESIS_EXAMPLES),
            "--seed",
            "1",
            "--generation-database",
            "none",
            "--request-timeout",
            "10",
            "--no-color",
        ],
        cwd=tmp_path,  # its config file, and its report folder, stay there
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    summary = run.stdout[run.stdout.rfind("SUMMARY") :]
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "Tested: 49" in summary or "Tested:" in summary, summary
    assert "failures" not in summary.splitlines()[-1], summary


@pytest.mark.slow
def test_a_generated_python_client_plays_and_follows_the_stream(
    serve: Served, tmp_path: Path
) -> None:
    """openapi-python-client generates a package from /openapi.json; with it two seats
    play nim to the end (CreateGame, ListLegalActions, SubmitAction, GetGame), the
    generated WatchGame call reads the finished stream, and its events parse into the
    generated WatchGameResponse model while a live stream is followed."""
    spec = tmp_path / "openapi.json"
    spec.write_text(httpx.get(f"{serve.web}/openapi.json").text)
    (tmp_path / "config.yaml").write_text("post_hooks: []\n")  # no formatter needed
    generator = Path(sys.executable).with_name("openapi-python-client")
    if not generator.exists():
        pytest.skip("openapi-python-client is in the dev extra: pip install -e '.[dev]'")
    subprocess.run(
        [
            str(generator),
            "generate",
            "--path",
            str(spec),
            "--meta",
            "none",
            "--output-path",
            str(tmp_path / "teoti_web"),
            "--config",
            str(tmp_path / "config.yaml"),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    sys.path.insert(0, str(tmp_path))
    try:
        _play_with_generated_client(serve)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.split(".")[0] == "teoti_web"]:
            del sys.modules[name]


def _play_with_generated_client(serve: Served) -> None:
    client_module = importlib.import_module("teoti_web")
    api = "teoti_web.api.game_service."
    create_game = importlib.import_module(api + "create_game")
    list_legal_actions = importlib.import_module(api + "list_legal_actions")
    submit_action = importlib.import_module(api + "submit_action")
    get_game = importlib.import_module(api + "get_game")
    watch_game_get = importlib.import_module(api + "watch_game_get")
    models = importlib.import_module("teoti_web.models")

    client = client_module.Client(base_url=serve.web, raise_on_unexpected_status=True)
    human = models.GameserverV1SeatKindInputType0.SEAT_KIND_HUMAN
    seats = [
        models.GameserverV1SeatInput(kind=human, name=name, token=token)
        for name, token in (("ann", ANN), ("bob", BOB))
    ]
    created = create_game.sync(
        client=client, body=models.GameserverV1CreateGameRequest(ruleset="nim", seats=seats)
    )
    assert isinstance(created, models.GameserverV1CreateGameResponse), created
    game = created.game_id
    tokens = {0: ANN, 1: BOB}

    followed: list[Any] = []
    with client.get_httpx_client().stream(
        "GET", "/gameserver.v1.GameService/WatchGame", params={"game_id": game}, timeout=30
    ) as live:
        assert live.headers["content-type"].startswith("text/event-stream")
        lines = live.iter_lines()
        state = models.GameserverV1GetGameResponse
        while True:
            now = get_game.sync(client=client, body=models.GameserverV1GetGameRequest(game_id=game))
            assert isinstance(now, state), now
            if now.finished:
                break
            (seat,) = now.seats_to_act
            token = tokens[seat]
            legal = list_legal_actions.sync(
                client=client,
                body=models.GameserverV1ListLegalActionsRequest(
                    game_id=game, seat=seat, seat_token=token
                ),
            )
            assert isinstance(legal, models.GameserverV1ListLegalActionsResponse), legal
            moved = submit_action.sync(
                client=client,
                body=models.GameserverV1SubmitActionRequest(
                    game_id=game,
                    seat=seat,
                    seat_token=token,
                    action_json=legal.actions[-1].action_json,
                    command_id=uuid.uuid4().hex,
                ),
            )
            assert isinstance(moved, models.GameserverV1SubmitActionResponse), moved
            # The live stream brings the move's events: read up to the new version.
            while not followed or int(followed[-1].event.version) < int(moved.version):
                followed.extend(_next_messages(lines, models))
        while True:
            frames = _next_messages(lines, models, until_end=True)
            followed.extend(frames)
            if not frames:
                break
    assert [int(r.event.version) for r in followed] == list(range(1, len(followed) + 1))
    assert "GameWon" in [r.event.type_ for r in followed]

    # The generated call itself reads a finished stream as text, not as JSON (it
    # crashed on the old document): its frames are the same events.
    finished = watch_game_get.sync_detailed(client=client, game_id=game)
    assert finished.status_code == 200 and isinstance(finished.parsed, str)
    messages = [
        models.GameserverV1WatchGameResponse.from_dict(json.loads(line[6:]))
        for line in finished.parsed.splitlines()
        if line.startswith('data: {"event"')
    ]
    assert [m.event.version for m in messages] == [r.event.version for r in followed]
    # An EventSource reconnecting past the end: 204, which the generated call knows.
    last = str(messages[-1].event.version)
    again = watch_game_get.sync_detailed(client=client, game_id=game, last_event_id=last)
    assert again.status_code == 204


def _next_messages(lines: Iterator[str], models: Any, until_end: bool = False) -> list[Any]:
    """The `message` events up to the next blank line (one frame), as generated models;
    [] at `end`."""
    event, data = "message", ""
    for line in lines:
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            data = line[6:]
        elif line == "" and data:
            if event == "end":
                return []
            assert event == "message", (event, data)
            return [models.GameserverV1WatchGameResponse.from_dict(json.loads(data))]
    assert until_end, "the stream closed before its end event"
    return []


async def test_last_event_id_resumes_a_tournament_stream(served: StackFactory) -> None:
    """A reconnecting EventSource on WatchTournament resumes after its Last-Event-ID
    (``after_version``), where it used to start again from the first event."""
    tournaments = "/gameserver.v1.TournamentService/"
    async with served() as (_, http):
        config = {"name": "cup", "ruleset": "nim", "min_seats": 2, "max_seats": 2, "rounds": 1}
        created = await http.post(
            tournaments + "CreateTournament", json={"config": config}, headers=JSON
        )
        assert created.status_code == 200, created.text
        tid = created.json()["tournament"]["tournament_id"]
        for name in ("ann", "bob"):
            joined = await http.post(
                tournaments + "RegisterPlayer",
                json={
                    "tournament_id": tid,
                    "player": name,
                    "bot": True,
                    "organiser_token": created.json()["organiser_token"],
                },
                headers=JSON,
            )
            assert joined.status_code == 200, joined.text

        async def first_id(last: str | None) -> str | None:
            headers = {"last-event-id": last} if last else {}
            url = tournaments + "WatchTournament"
            async with http.stream("GET", url, params={"tournament_id": tid}, headers=headers) as s:
                async for _, data, ident in sse_frames(s):
                    assert ident == str(data["event"]["version"])
                    return ident
            return None

        assert await first_id(None) == "1"
        assert await first_id("1") == "2"
