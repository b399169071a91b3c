"""services.engine.transport.proto_convert.add_clocks writes the SeatClock messages clocks_to_proto
makes straight into a reply's repeated field (no message made apart and copied in, issue 16)."""

from __future__ import annotations

from teoti_client.proto import game_service_pb2

from services.engine.domain.timing.seat_clocks import ClockState, SeatClock
from services.engine.domain.timing.time_control import TimeControl
from services.engine.transport.proto_convert import add_clocks, clocks_to_proto

pb = game_service_pb2


def test_added_clocks_are_the_clocks_to_proto() -> None:
    clock = ClockState(
        TimeControl(base_ms=60_000, increment_ms=2_000),
        (
            SeatClock(remaining_ms=41_000, running_since_ms=5, deadline_ms=41_005),
            SeatClock(),  # no base time, not running: fields left unset
            SeatClock(remaining_ms=0),
        ),
        taken_over=frozenset({2}),
        forfeited=(1,),
    )
    added = pb.GetGameResponse()
    add_clocks(added.clocks, clock)
    built = pb.GetGameResponse(clocks=clocks_to_proto(clock))
    assert added.SerializeToString(deterministic=True) == built.SerializeToString(
        deterministic=True
    )
    assert [(c.seat, c.taken_over, c.forfeited) for c in added.clocks] == [
        (0, False, False),
        (1, False, True),
        (2, True, False),
    ]
    assert added.clocks[0].deadline_ms == 41_005 and not added.clocks[1].HasField("remaining_ms")
