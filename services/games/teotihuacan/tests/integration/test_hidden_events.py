"""Hidden information enters the public log only as salted commitments (RULES.md §1.2.4
starting tiles; docs/events.md "Commitments"): every reader gets the same events, whose
hashes verify from what they show; a seat's own view shows it its own secrets; the
reveal opens each commitment; and a spectator who tries every candidate secret against
what it sees recovers nothing."""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from teoti_client.proto import game_service_pb2, game_service_pb2_grpc

from services.app import StoreSettings, all_in_one
from services.engine.domain.audit import audit_log
from services.engine.domain.chain import verify_chain
from services.engine.domain.commitments import opens
from services.engine.domain.records import canonical_json
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.transport.proto_convert import event_from_proto
from services.games.teotihuacan.rules.components import components

TOKENS = ("ann-secret-0123456789abcdef", "bob-secret-0123456789abcdef")


@pytest.fixture
async def stub(redis_url: str, key_prefix: str, registry: RulesetRegistry) -> AsyncIterator[Any]:
    async with (
        all_in_one(redis_url, store=StoreSettings(key_prefix), registry=registry) as stack,
        grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel,
    ):
        yield game_service_pb2_grpc.GameServiceStub(channel)


async def _events(stub: Any, game_id: str, seat: int | None = None) -> list[Any]:
    pb = game_service_pb2
    request = pb.ListEventsRequest(game_id=game_id)
    if seat is not None:
        request.seat = seat
        request.seat_token = TOKENS[seat]
    return list((await stub.ListEvents(request)).events)


async def _view(stub: Any, game_id: str, seat: int | None = None) -> dict[str, Any]:
    pb = game_service_pb2
    request = pb.GetGameRequest(game_id=game_id)
    if seat is not None:
        request.seat = seat
        request.seat_token = TOKENS[seat]
    return dict(json.loads((await stub.GetGame(request)).state_json))


async def _choose(stub: Any, game_id: str, seat: int) -> list[int]:
    pb = game_service_pb2
    own = await stub.ListLegalActions(
        pb.ListLegalActionsRequest(game_id=game_id, seat=seat, seat_token=TOKENS[seat])
    )
    choice = own.actions[0].action_json
    await stub.SubmitAction(
        pb.SubmitActionRequest(
            game_id=game_id, seat=seat, seat_token=TOKENS[seat], action_json=choice
        )
    )
    return list(json.loads(choice)["tiles"])


def _candidates_recovering(commitment: str, candidates: list[Any]) -> list[Any]:
    """Every candidate a spectator can confirm from what it sees: the commitment re-hashed
    over the value alone, or with the nonces it could guess (empty, all zeros)."""
    found = []
    for value in candidates:
        text = canonical_json(value).encode()
        guesses = {
            hashlib.sha256(text).hexdigest(),
            hashlib.sha256(bytes(32) + text).hexdigest(),
            hashlib.sha256(bytes(16) + text).hexdigest(),
        }
        if commitment in guesses:
            found.append(value)
    return found


async def test_secret_starting_tiles_are_committed_shown_to_their_seat_and_revealed(
    stub: Any, registry: RulesetRegistry
) -> None:
    pb = game_service_pb2
    seats = [
        pb.Seat(kind=pb.SEAT_KIND_HUMAN, name=n, token=t) for n, t in zip("ab", TOKENS, strict=True)
    ]
    created = await stub.CreateGame(
        pb.CreateGameRequest(
            ruleset="teotihuacan", seats=seats, options_json='{"first_game": false}'
        )
    )
    game = created.game_id
    own_hand = (await _view(stub, game, 0))["players"][0]["starting_tiles"]
    assert len(own_hand) == 4
    chosen = await _choose(stub, game, 0)

    public = await _events(stub, game)
    # Every reader gets the very same events, and they chain as shown: nothing redacted.
    for seat in (0, 1):
        assert [e.SerializeToString() for e in await _events(stub, game, seat)] == [
            e.SerializeToString() for e in public
        ]
    stored = [event_from_proto(e) for e in public]
    assert verify_chain(stored).ok and not any(e.redacted for e in public)
    assert audit_log(game, stored, registry).ok

    by_type = {e.type: json.loads(e.payload_json) for e in public}
    setup = by_type["GameSetUp"]
    assert "state" not in setup and "discovery_supply" not in setup
    assert [p["starting_tiles_dealt"] for p in setup["players"]] == [4, 4]
    assert set(setup["sealed"]) == {"discovery_bag", "starting_hand:0", "starting_hand:1"}
    assert setup["sealed"]["starting_hand:0"]["seats"] == [0]
    choice = by_type["StartingTilesChosen"]
    assert choice == {
        "seat": 0,
        "sealed": {
            "choice:0": {"commitment": choice["sealed"]["choice:0"]["commitment"], "seats": [0]}
        },
    }

    # A spectator tries every pair of starting tiles (and every hand): nothing matches.
    tiles = range(len(components().raw["starting_tiles"]))
    pairs = [list(p) for p in itertools.permutations(tiles, 2)]
    assert _candidates_recovering(choice["sealed"]["choice:0"]["commitment"], pairs) == []
    hands = [{"tiles": list(h), "discoveries": []} for h in itertools.permutations(own_hand, 4)]
    for seat in (0, 1):
        digest = setup["sealed"][f"starting_hand:{seat}"]["commitment"]
        assert _candidates_recovering(digest, hands) == []

    # Views: a seat sees its own choice; the other seat and the public do not.
    assert (await _view(stub, game, 0))["players"][0]["chosen_starting_tiles"] == chosen
    assert (await _view(stub, game, 1))["players"][0]["chosen_starting_tiles"] == []
    assert (await _view(stub, game))["players"][0]["starting_tiles"] == []
    assert (await _view(stub, game, 1))["players"][0]["starting_tiles"] == []

    # Once both chose, the choices are revealed and each reveal opens its commitment.
    await _choose(stub, game, 1)
    events = await _events(stub, game)
    stored = [event_from_proto(e) for e in events]
    report = audit_log(game, stored, registry)
    assert report.ok and report.reveals_verified == 2, report.problems
    reveal = next(json.loads(e.payload_json) for e in events if e.type == "SecretsRevealed")
    opened = {s["id"]: s for s in reveal["secrets"]}
    assert opened["choice:0"]["value"] == chosen
    commitment = choice["sealed"]["choice:0"]["commitment"]
    assert opens(commitment, chosen, opened["choice:0"]["nonce"])
    assert len(bytes.fromhex(opened["choice:0"]["nonce"])) * 8 >= 128
    revealed = next(json.loads(e.payload_json) for e in events if e.type == "StartingTilesRevealed")
    assert revealed["choices"]["0"] == chosen
    assert (await stub.VerifyGame(pb.VerifyGameRequest(game_id=game))).ok

    with pytest.raises(grpc.aio.AioRpcError) as refused:
        request = pb.ListEventsRequest(game_id=game, seat=0, seat_token=TOKENS[1])
        await stub.ListEvents(request)
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
