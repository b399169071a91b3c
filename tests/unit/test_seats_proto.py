"""services.engine.transport.proto_convert.add_seats writes the Seat messages seats_to_proto makes
straight into a reply's repeated field (issue 16: building them apart and copying them in cost
more than the rest of a move's view)."""

from __future__ import annotations

import pytest
from teoti_client.proto import game_service_pb2

from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.transport.proto_convert import add_seats, seats_to_proto

pb = game_service_pb2
SEATS = (
    SeatSpec(SeatKind.HUMAN, "ann", "a" * 64),
    SeatSpec(SeatKind.HUMAN, ""),  # open
    SeatSpec(SeatKind.BOT, "bot"),
    SeatSpec(SeatKind.HUMAN, "bob", "b" * 64, claimed=True),
)


@pytest.mark.parametrize("token_hashes", [False, True])
def test_added_seats_are_the_seats_to_proto(token_hashes: bool) -> None:
    added = pb.GetGameResponse()
    add_seats(added.seats, SEATS, token_hashes=token_hashes)
    built = pb.GetGameResponse(seats=seats_to_proto(SEATS, token_hashes=token_hashes))
    assert added.SerializeToString(deterministic=True) == built.SerializeToString(
        deterministic=True
    )
    assert [seat.open for seat in added.seats] == [False, True, False, False]
    assert added.seats[0].token_hash == ("a" * 64 if token_hashes else "")
