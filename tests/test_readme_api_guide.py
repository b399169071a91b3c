"""The README's API guide is true: its grpcurl requests, its replies and its Python code.

- Each grpcurl example's ``-d`` JSON parses into its method's request message, exactly
  as grpcurl would (protobuf JSON mapping).
- Each reply the README shows (a ``# {`` ... ``# }`` block after a call) is what grpcurl
  prints: the proto's field names (``game_id``, not ``gameId``), zero values left out,
  two-space indent. grpcurl runs against a real server when it is on PATH; it is
  packaged neither by Debian, npm nor PyPI for this machine, so otherwise the real
  replies are printed with protobuf's own JSON printer given grpcurl's options
  (:func:`grpcurl_json`) and compared with the README's.
- The Python client snippets (README and clients/python/README.md) run as written.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from teoti_client.proto import game_service_pb2 as pb
from teoti_client.proto import game_service_pb2_grpc as pb_grpc

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
CLIENT_README = REPO / "clients" / "python" / "README.md"
CALL = re.compile(r"grpcurl (?P<flags>.*?)\s+\S+:\d+\s+gameserver\.v1\.GameService/(?P<rpc>\w+)")
SERVICE = pb.DESCRIPTOR.services_by_name["GameService"]


def _guide() -> str:
    return README.read_text("utf-8")


def _examples() -> list[tuple[str, str]]:
    """(method, request JSON) for every grpcurl call with a body in the README."""
    text = _guide().replace("\\\n", " ")
    calls = []
    for match in CALL.finditer(text.replace("\n  ", " ")):
        body = re.search(r"-d '(.*?)'", match.group("flags"), re.S)
        calls.append((match.group("rpc"), body.group(1) if body else "{}"))
    return calls


def _shown_replies() -> list[tuple[str, dict[str, Any]]]:
    """(method, reply) for every ``# {`` ... ``# }`` block right after a grpcurl call."""
    replies = []
    last_rpc = ""
    lines = _guide().splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        rpc = re.search(r"gameserver\.v1\.GameService/(\w+)", line)
        if rpc and not line.startswith("#"):
            last_rpc = rpc.group(1)
        if line == "# {":
            block = []
            while lines[index] != "# }":
                block.append(lines[index][2:])
                index += 1
            block.append("}")
            replies.append((last_rpc, json.loads("\n".join(block))))
        index += 1
    return replies


def grpcurl_json(message: Message) -> str:
    """``message`` as grpcurl prints it: proto field names, no zero values, indent 2."""
    return json_format.MessageToJson(message, preserving_proto_field_name=True, indent=2)


def _shape(value: Any) -> Any:
    """The keys and nesting of a JSON value, with its leaves reduced to their type."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(item) for item in value]
    return type(value).__name__


def test_the_guide_has_examples() -> None:
    methods = {method for method, _ in _examples()}
    assert {"CreateGame", "GetGame", "SubmitAction", "WatchGame", "VerifyGame"} <= methods
    assert {method for method, _ in _shown_replies()} == {"CreateGame", "JoinGame"}


@pytest.mark.parametrize(("method", "body"), _examples())
def test_example_request_parses_into_the_rpc_request(method: str, body: str) -> None:
    rpc = SERVICE.methods_by_name[method]
    request_class = getattr(pb, rpc.input_type.name)
    data = json.loads(body.replace('"<one action_json>"', '"{}"'))
    json_format.ParseDict(data, request_class())


@pytest.mark.parametrize(("method", "reply"), _shown_replies())
def test_shown_reply_uses_proto_names_and_omits_zero_values(
    method: str, reply: dict[str, Any]
) -> None:
    response_class = getattr(pb, SERVICE.methods_by_name[method].output_type.name)
    # Parsing accepts both spellings; printing it back with grpcurl's options must give
    # the README's text exactly, so no camelCase name and no zero value survives.
    message = json_format.ParseDict(reply, response_class())
    assert json.loads(grpcurl_json(message)) == reply
    assert not re.search(r'"[a-z]+[A-Z]\w*":', json.dumps(reply))


def test_reflection_serves_no_json_names() -> None:
    # Why grpcurl prints proto names: server reflection sends each file's descriptor as
    # protoc serialized it for Python, without json_name, and grpcurl's JSON printer
    # (protoreflect's dynamic messages) falls back to the field's own name when a
    # descriptor has none.
    from google.protobuf import descriptor_pb2

    file = descriptor_pb2.FileDescriptorProto.FromString(pb.DESCRIPTOR.serialized_pb)
    fields = [field for message in file.message_type for field in message.field]
    assert fields and not any(field.HasField("json_name") for field in fields)


async def _replies_of_a_real_server(port: int) -> dict[str, Message]:
    """The CreateGame and JoinGame replies of the README's own requests, as messages."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.GameServiceStub(channel)
        created = await stub.CreateGame(
            json_format.ParseDict(_request("CreateGame", 0), pb.CreateGameRequest())
        )
        lobby = await stub.CreateGame(
            json_format.ParseDict(_request("CreateGame", 1), pb.CreateGameRequest())
        )
        join = _request("JoinGame", 0) | {"game_id": lobby.game_id}
        joined = await stub.JoinGame(json_format.ParseDict(join, pb.JoinGameRequest()))
    return {"CreateGame": created, "JoinGame": joined}


def _request(method: str, nth: int) -> dict[str, Any]:
    """The ``nth`` README request body of ``method`` as a dict."""
    bodies = [body for rpc, body in _examples() if rpc == method]
    return dict(json.loads(bodies[nth]))


@pytest.fixture
async def server_port(redis_url: str, key_prefix: str) -> AsyncIterator[int]:
    from services.app import StoreSettings, all_in_one

    async with all_in_one(redis_url, store=StoreSettings(key_prefix)) as stack:
        yield stack.port


async def test_shown_replies_have_the_shape_of_real_replies(server_port: int) -> None:
    real = await _replies_of_a_real_server(server_port)
    for method, shown in _shown_replies():
        printed = json.loads(grpcurl_json(real[method]))
        assert _shape(printed) == _shape(shown), method
    create = json.loads(grpcurl_json(real["CreateGame"]))
    # seat 0: a zero value, left out
    assert create["seat_tokens"] == [{"token": "ann-secret-0123456789abcdef"}]
    assert json.loads(grpcurl_json(real["JoinGame"]))["seat_token"]["seat"] == 1


async def test_grpcurl_prints_what_the_guide_shows(server_port: int) -> None:
    grpcurl = shutil.which("grpcurl")
    if grpcurl is None:
        pytest.skip(
            "grpcurl is not on PATH (no Debian, npm or PyPI package ships it here); "
            "test_shown_replies_have_the_shape_of_real_replies checks the same format "
            "with protobuf's printer and grpcurl's options"
        )
    body = json.dumps(_request("CreateGame", 0))
    command = [
        grpcurl,
        "-plaintext",
        "-d",
        body,
        f"127.0.0.1:{server_port}",
        "gameserver.v1.GameService/CreateGame",
    ]
    result = await asyncio.to_thread(
        subprocess.run, command, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    shown = dict(_shown_replies())["CreateGame"]
    assert _shape(json.loads(result.stdout)) == _shape(shown)


def _python_snippet(readme: Path) -> str:
    """A README's Python client example."""
    match = re.search(r"```python\n(.*?)```", readme.read_text("utf-8"), re.S)
    assert match is not None, f"{readme} shows the Python client"
    return match.group(1)


def test_both_readmes_show_the_same_client_example() -> None:
    assert _python_snippet(README) == _python_snippet(CLIENT_README)
    assert "from teoti_client import" in _python_snippet(README)


@pytest.mark.parametrize("readme", [README, CLIENT_README], ids=["README", "client-README"])
async def test_the_python_client_example_runs_as_written(
    readme: Path, server_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _python_snippet(readme).replace("127.0.0.1:50051", f"127.0.0.1:{server_port}")
    code = code.replace("asyncio.run(main())", "")  # we are inside the test's loop
    namespace: dict[str, object] = {}
    exec(compile(code, str(readme), "exec"), namespace)
    await namespace["main"]()  # type: ignore[operator]
    assert "True" in capsys.readouterr().out.splitlines()  # verify(...).ok printed


def _players_snippet() -> str:
    """The client README's PlayerService example (its ``python players`` block)."""
    match = re.search(r"```python players\n(.*?)```", CLIENT_README.read_text("utf-8"), re.S)
    assert match is not None, "the client README shows player accounts"
    return match.group(1)


async def test_the_player_example_runs_as_written(
    server_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _players_snippet().replace("127.0.0.1:50051", f"127.0.0.1:{server_port}")
    code = code.replace("asyncio.run(main())", "")  # we are inside the test's loop
    namespace: dict[str, object] = {}
    exec(compile(code, str(CLIENT_README), "exec"), namespace)
    await namespace["main"]()  # type: ignore[operator]
    printed = capsys.readouterr().out.splitlines()  # the server's log lines among them
    shown = [
        line
        for line in printed
        if line in {"['laptop', 'phone']", "player_credential_invalid", "True"}
    ]
    assert shown == ["['laptop', 'phone']", "player_credential_invalid", "True"]


async def test_the_player_stream_example_runs_as_written(
    server_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    match = re.search(r"```python player-stream\n(.*?)```", CLIENT_README.read_text("utf-8"), re.S)
    assert match is not None, "the client README shows a player's stream"
    code = match.group(1).replace("127.0.0.1:50051", f"127.0.0.1:{server_port}")
    code = code.replace("asyncio.run(main())", "")  # we are inside the test's loop
    namespace: dict[str, object] = {}
    exec(compile(code, str(CLIENT_README), "exec"), namespace)
    await asyncio.wait_for(namespace["main"](), 20)  # type: ignore[arg-type]
    printed = capsys.readouterr().out.splitlines()  # the server's log lines among them
    shown = [line for line in printed if line in {"your_turn True", "True", "False"}]
    assert shown == ["your_turn True", "True", "True"]


async def test_the_lobby_example_runs_as_written(
    server_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """The client README's LobbyService example (its ``python lobby`` block): a table
    filled by two players opens their game; two seekers are placed in one game."""
    match = re.search(r"```python lobby\n(.*?)```", CLIENT_README.read_text("utf-8"), re.S)
    assert match is not None, "the client README shows the lobby"
    code = match.group(1).replace("127.0.0.1:50051", f"127.0.0.1:{server_port}")
    code = code.replace("asyncio.run(main())", "")  # we are inside the test's loop
    namespace: dict[str, object] = {}
    exec(compile(code, str(CLIENT_README), "exec"), namespace)
    await asyncio.wait_for(namespace["main"](), 60)  # type: ignore[operator]
    printed = capsys.readouterr().out.splitlines()  # the server's log lines among them
    shown = [line for line in printed if line in {"['Ann', 'Bob']", "True"}]
    assert shown == ["['Ann', 'Bob']", "True"]
