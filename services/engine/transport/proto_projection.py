"""A seat's view of a game as GameService shows it: the GetGame projection and the
ListLegalActions list, written into messages the caller owns.

The gateway answers GetGame, ListLegalActions, WatchGame ``with_view`` and a
SubmitAction ``return_view`` with these; the engine writes the same two into its
SubmitAction answer when a gateway asks for them (EngineService ``return_view``), so a
gateway of the split deployment answers a move without folding its events a second time
(issue 16). One code path for both keeps the two answers byte-identical.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer
from teoti_client.proto import game_service_pb2 as pb

from services.engine.domain.game import GameSnapshot
from services.engine.domain.records import canonical_json
from services.engine.transport.proto_convert import add_clocks, add_seats, time_control_to_proto


def add_game_view(
    into: pb.GetGameResponse, snapshot: GameSnapshot, seat: int | None
) -> pb.GetGameResponse:
    """Write ``seat``'s view of ``snapshot`` (the public one for None) into ``into``, an
    empty ``gameserver.v1.GetGameResponse`` (often a reply's own field, so nothing is
    copied afterwards); returns ``into``.

    The state is ``ruleset.view(state, seat)`` as canonical JSON: a seat sees its own
    hidden information and nobody else's (RULES.md's hidden-information rules are the
    ruleset's). Seats, clocks and the result are the snapshot's.
    """
    ruleset = snapshot.ruleset
    into.SetInParent()  # present even if every field is its default, as a copy was
    into.game_id = snapshot.game_id
    into.ruleset = snapshot.ruleset_name
    into.version = snapshot.version
    into.state_json = canonical_json(ruleset.view(snapshot.state, seat))
    add_seats(into.seats, snapshot.seats)
    into.seats_to_act.extend(snapshot.seats_to_act())
    into.finished = snapshot.is_terminal()
    into.scores.extend(ruleset.scores(snapshot.state))
    into.head_hash = snapshot.head_hash
    into.seed_commitment = snapshot.seed_commitment
    into.revealed_seed = snapshot.revealed_seed or ""
    into.rated = snapshot.rated
    if snapshot.clock is not None:
        into.time_control.CopyFrom(time_control_to_proto(snapshot.clock.control))
        add_clocks(into.clocks, snapshot.clock)
    control = snapshot.control
    if control.forfeited or control.taken_over or control.resigned:  # someone left
        into.seats_resigned.extend(sorted(control.resigned))
        into.seats_out.extend(control.forfeited)
        into.seats_played_by_bot.extend(sorted(control.bot_controlled()))
    result = snapshot.result()  # seats out ranked last
    if result is not None:
        into.result.scores.extend(result.scores)
        into.result.ranking.extend(result.ranking)
    return into


def add_legal_actions(
    target: RepeatedCompositeFieldContainer[pb.LegalAction], snapshot: GameSnapshot, seat: int
) -> None:
    """Append ``seat``'s legal actions on ``snapshot`` to ``target``, a repeated
    ``gameserver.v1.LegalAction`` field, each written in place (canonical JSON and the
    ruleset's description); none once the game has ended.

    A ruleset may name an action better knowing where it is played: if it has
    ``describe_action_at(state, seat, action)`` (optional, see Ruleset.describe_action)
    that gives the description ("Move worker 1 from Forest to Alchemy"), else
    ``describe_action(action)`` does."""
    if snapshot.is_terminal():
        return
    ruleset = snapshot.ruleset
    state = snapshot.state
    add = target.add
    at: Callable[[Any, int, Mapping[str, Any]], str] | None = getattr(
        ruleset, "describe_action_at", None
    )
    for action in ruleset.legal_actions(state, seat):
        words = at(state, seat, action) if at else ruleset.describe_action(action)
        add(action_json=canonical_json(dict(action)), description=words)
