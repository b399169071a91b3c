"""The README's grpcurl examples name real RPCs and send requests the proto accepts.

grpcurl itself is not packaged for this machine, so each example's ``-d`` JSON is parsed
into the method's request message exactly as grpcurl would (protobuf JSON mapping).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from google.protobuf import json_format

from services.rpc.stubs import load_stubs

README = Path(__file__).resolve().parents[1] / "README.md"
CALL = re.compile(r"grpcurl (?P<flags>.*?)\s+\S+:\d+\s+teotihuacan\.v1\.GameService/(?P<rpc>\w+)")


def _examples() -> list[tuple[str, str]]:
    """(method, request JSON) for every grpcurl call with a body in the README."""
    text = README.read_text("utf-8").replace("\\\n", " ")
    calls = []
    for match in CALL.finditer(text.replace("\n  ", " ")):
        body = re.search(r"-d '(.*?)'", match.group("flags"), re.S)
        calls.append((match.group("rpc"), body.group(1) if body else "{}"))
    return calls


def test_the_guide_has_examples() -> None:
    methods = {method for method, _ in _examples()}
    assert {"CreateGame", "GetGame", "SubmitAction", "WatchGame", "VerifyGame"} <= methods


@pytest.mark.parametrize(("method", "body"), _examples())
def test_example_request_parses_into_the_rpc_request(method: str, body: str) -> None:
    pb = load_stubs().game_pb2
    service = pb.DESCRIPTOR.services_by_name["GameService"]
    rpc = service.methods_by_name[method]
    request_class = getattr(pb, rpc.input_type.name)
    data = json.loads(body.replace('"<one actionJson>"', '"{}"'))
    json_format.ParseDict(data, request_class())


def _python_snippet() -> str:
    """The README's Python client example."""
    text = README.read_text("utf-8")
    match = re.search(r"```python\n(.*?)```", text, re.S)
    assert match is not None, "the README shows the Python client"
    return match.group(1)


async def test_the_python_client_example_runs_as_written(
    redis_url: str, key_prefix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from services.app import all_in_one

    async with all_in_one(redis_url, key_prefix=key_prefix) as stack:
        code = _python_snippet().replace("127.0.0.1:50051", f"127.0.0.1:{stack.port}")
        code = code.replace("asyncio.run(main())", "")  # we are inside the test's loop
        namespace: dict[str, object] = {}
        exec(compile(code, "README.md", "exec"), namespace)
        await namespace["main"]()  # type: ignore[operator]
    assert "True" in capsys.readouterr().out.splitlines()  # verify(...).ok printed
