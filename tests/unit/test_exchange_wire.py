"""An ExchangeBatches message written as its bytes (each answer serialized once, framed as
an element of the repeated field) is the batch message's own serialization."""

from __future__ import annotations

import pytest

from services.engine.transport.exchange_server import (
    BATCH_FIELD,
    repeated_field,
)
from services.rpc.generated import engine_service_pb2 as pb


def answer(request_id: int, payload_bytes: int) -> pb.EngineServiceExchangeResponse:
    response = pb.EngineServiceExchangeResponse(request_id=request_id)
    response.submit_action.version = request_id
    event = response.submit_action.events.add(version=request_id, type="Took")
    event.payload_json = "x" * payload_bytes
    return response


# Lengths either side of each varint boundary of the element's length (127/128, 16383/16384).
@pytest.mark.parametrize("sizes", [[0], [100], [110, 0, 20_000], [16_360, 16_370, 3]])
def test_framed_answers_are_the_batch_message(sizes: list[int]) -> None:
    answers = [answer(i + 1, size) for i, size in enumerate(sizes)]
    framed = b"".join(repeated_field(BATCH_FIELD, a.SerializeToString()) for a in answers)
    batch = pb.EngineServiceExchangeBatchesResponse(responses=answers)
    assert framed == batch.SerializeToString()
    assert list(pb.EngineServiceExchangeBatchesResponse.FromString(framed).responses) == answers
