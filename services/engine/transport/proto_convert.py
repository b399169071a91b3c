"""Conversions between proto messages and domain values (JSON text, seats, events)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from teoti_client.proto import game_service_pb2 as pb

from services.engine.domain.errors import InvalidArgument
from services.engine.domain.game_seats import (
    SeatKind,
    SeatSpec,
    check_client_token,
    check_seat_name,
    hash_token,
    new_token,
)
from services.engine.domain.records import EventMetadata, StoredEvent, canonical_json
from services.engine.domain.timing.seat_clocks import ClockState
from services.engine.domain.timing.time_control import (
    TimeControl,
    TimeControlInvalid,
    TimeoutPolicy,
)

_KIND_TO_PROTO = {SeatKind.HUMAN: pb.SEAT_KIND_HUMAN, SeatKind.BOT: pb.SEAT_KIND_BOT}
_PROTO_TO_KIND: dict[int, SeatKind] = {int(v): k for k, v in _KIND_TO_PROTO.items()}


_PLAIN_TEXT = 1024
"""Longest JSON text (characters) whose encoding check parse_object may skip: it nests
at most 512 deep, well inside what the encoder can follow."""


def parse_object(text: str, what: str) -> dict[str, Any]:
    """Decode a JSON object (empty text: {}). Raises InvalidArgument naming ``what``."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
        if not (len(text) <= _PLAIN_TEXT and text.isascii() and "\\u" not in text):
            # A lone surrogate (an escape, \\ud800, or a web frame's raw one) decodes to
            # text no UTF-8 store or reply can carry, and nesting may be too deep to
            # encode: refuse them here, not deep in the engine. Short ASCII text with
            # no \\u escape can hold neither: its encoding is skipped (one a move, issue 16).
            canonical_json(value).encode("utf-8")
    except RecursionError as exc:  # Python's own wording would leak to the client
        raise InvalidArgument(f"{what} is nested too deeply") from exc
    except ValueError as exc:  # JSONDecodeError, huge ints, surrogates
        raise InvalidArgument(f"{what} is not valid JSON: {str(exc)[:120]}") from exc
    if not isinstance(value, dict):
        raise InvalidArgument(f"{what} must be a JSON object")
    return value


def _kind(index: int, seat: Any) -> SeatKind:
    kind = _PROTO_TO_KIND.get(int(seat.kind))
    if kind is None:
        raise InvalidArgument(f"seat {index}: kind must be HUMAN or BOT")
    return kind


class BindToCallerInvalid(InvalidArgument):
    """``bind_to_caller`` on a bot or an open seat (INVALID_ARGUMENT, reason
    ``bind_to_caller_invalid``): only a human seat taken now can be the caller's."""

    rule = "bind_to_caller_invalid"


def seats_with_tokens(
    seats: Sequence[Any], caller: str = "", caller_name: str = ""
) -> tuple[list[SeatSpec], dict[int, str]]:
    """SeatSpecs from public ``Seat`` messages, and the token of each claimed human seat.

    A human seat gets its client-chosen ``token`` (at least 128 bits' worth, see
    ``game_seats.check_client_token``) or a fresh one; an ``open`` seat gets none. A
    seat marked ``bind_to_caller`` is bound to the player ``caller`` (the id of the
    player whose credential the gateway checked; its name ``caller_name`` if the seat
    has none) and gets a token only if it chose one. A ``player`` the client wrote into
    a Seat is ignored: only the gateway binds players. Raises InvalidArgument for an
    unspecified kind, a bot seat with a token, a weak token, or a name with control
    characters or too long (``name_invalid``), BindToCallerInvalid (a bot or open seat
    marked, or no caller).
    """
    specs: list[SeatSpec] = []
    tokens: dict[int, str] = {}
    for index, seat in enumerate(seats):
        kind = _kind(index, seat)
        check_seat_name(seat.name)
        if seat.bind_to_caller:
            if kind is SeatKind.BOT or seat.open or not caller:
                raise BindToCallerInvalid(
                    f"seat {index}: bind_to_caller needs a human seat that is not open, and "
                    "the call's 'authorization: Player <credential>'"
                )
            token_hash = ""
            if seat.token:
                tokens[index] = check_client_token(seat.token)
                token_hash = hash_token(tokens[index])
            # A bound seat shows its player's name, whatever the request named it.
            specs.append(SeatSpec(kind, caller_name or seat.name, token_hash, player=caller))
        elif kind is SeatKind.BOT:
            if seat.token or seat.open:
                raise InvalidArgument(f"seat {index}: a bot seat has no token and is not open")
            specs.append(SeatSpec(kind, seat.name))
        elif seat.open:
            specs.append(SeatSpec(kind, seat.name))
        else:
            token = check_client_token(seat.token) if seat.token else new_token()
            tokens[index] = token
            specs.append(SeatSpec(kind, seat.name, hash_token(token)))
    return specs, tokens


def seats_from_engine_proto(seats: Sequence[Any]) -> list[SeatSpec]:
    """SeatSpecs from the engine's ``Seat`` messages (kind, name, token_hash, player)."""
    return [
        SeatSpec(_kind(i, seat), seat.name, seat.token_hash, player=seat.player)
        for i, seat in enumerate(seats)
    ]


def seats_to_proto(seats: Sequence[SeatSpec], *, token_hashes: bool = False) -> list[pb.Seat]:
    """``Seat`` messages from SeatSpecs; never tokens, and token hashes only when
    ``token_hashes`` (the gateway's requests to the engine, which binds them to seats in
    service-only storage; GameService replies never show them)."""
    return [
        pb.Seat(
            kind=_KIND_TO_PROTO[s.kind],
            name=s.name,
            token_hash=s.token_hash if token_hashes else "",
            open=s.is_open,
            player=s.player,
        )
        for s in seats
    ]


def add_seats(target: Any, seats: Sequence[SeatSpec], *, token_hashes: bool = False) -> None:
    """Append to ``target``, a repeated ``Seat`` field of a message being built, the
    messages :func:`seats_to_proto` makes (the same fields), each written in place: a
    message made apart is copied when it goes into a field, which cost more than the
    rest of a move's view (issue 16)."""
    add = target.add
    for s in seats:
        add(
            kind=_KIND_TO_PROTO[s.kind],
            name=s.name,
            token_hash=s.token_hash if token_hashes else "",
            open=s.is_open,
            player=s.player,
        )


def event_to_proto(event: StoredEvent, description: str = "") -> pb.Event:
    """An ``Event`` message from a stored event (payload as canonical JSON), exactly as
    stored and hash-chained: hidden parts are only commitments, so ``redacted`` is never
    set (it is kept in the proto for older clients). ``description`` is the event in
    words (:func:`services.engine.domain.event_words.describe_event`), sent by public
    reads only: it is in no hash (issue 33)."""
    return pb.Event(
        description=description,
        version=event.version,
        type=event.type,
        schema_version=event.schema_version,
        payload_json=canonical_json(dict(event.payload)),
        metadata=pb.EventMetadata(
            command_id=event.metadata.command_id,
            seat=event.metadata.seat,
            recorded_at=event.metadata.recorded_at,
        ),
        hash=event.hash,
    )


def add_events(into: Any, events: Iterable[StoredEvent]) -> None:
    """Append ``events`` to ``into`` (a repeated ``Event`` field), each as
    :func:`event_to_proto` makes it but built in its place: an engine reply's events are
    not built apart and copied in (issue 16)."""
    for event in events:
        added = into.add()
        added.version = event.version
        added.type = event.type
        added.schema_version = event.schema_version
        added.payload_json = canonical_json(dict(event.payload))
        # Assigning a field, even its default, makes the metadata present, as a copy was.
        metadata = added.metadata
        metadata.command_id = event.metadata.command_id
        metadata.seat = event.metadata.seat
        metadata.recorded_at = event.metadata.recorded_at
        added.hash = event.hash


def event_from_proto(event: pb.Event) -> StoredEvent:
    """Inverse of :func:`event_to_proto`."""
    return StoredEvent(
        event.version,
        event.type,
        event.schema_version,
        json.loads(event.payload_json),
        EventMetadata(event.metadata.command_id, event.metadata.seat, event.metadata.recorded_at),
        event.hash,
    )


_POLICY_FROM_PROTO: dict[int, TimeoutPolicy] = {
    pb.TIMEOUT_POLICY_UNSPECIFIED: TimeoutPolicy.BOT_TAKEOVER,
    pb.TIMEOUT_POLICY_BOT_TAKEOVER: TimeoutPolicy.BOT_TAKEOVER,
    pb.TIMEOUT_POLICY_FORFEIT: TimeoutPolicy.FORFEIT,
}
_POLICY_TO_PROTO = {
    TimeoutPolicy.BOT_TAKEOVER: pb.TIMEOUT_POLICY_BOT_TAKEOVER,
    TimeoutPolicy.FORFEIT: pb.TIMEOUT_POLICY_FORFEIT,
}


def time_control_from_proto(request: Any) -> TimeControl | None:
    """The ``time_control`` of a CreateGame request (public or engine), None if unset.

    Raises TimeControlInvalid for an unknown timeout policy; the figures are checked by
    the engine (``TimeControl.check``) against the ruleset.
    """
    if not request.HasField("time_control"):
        return None
    message = request.time_control
    policy = _POLICY_FROM_PROTO.get(int(message.timeout_policy))
    if policy is None:
        raise TimeControlInvalid(f"unknown timeout_policy {int(message.timeout_policy)}")
    return TimeControl(
        int(message.base_ms), int(message.increment_ms), int(message.move_deadline_ms), policy
    )


def time_control_to_proto(control: TimeControl) -> pb.TimeControl:
    """Inverse of :func:`time_control_from_proto` for a set time control."""
    return pb.TimeControl(
        base_ms=control.base_ms,
        increment_ms=control.increment_ms,
        move_deadline_ms=control.move_deadline_ms,
        timeout_policy=_POLICY_TO_PROTO[control.policy],
    )


def add_clocks(target: Any, clock: ClockState) -> None:
    """Append to ``target``, a repeated ``SeatClock`` field of a message being built, the
    messages :func:`clocks_to_proto` makes, each written in place (not made apart and
    copied in, issue 16)."""
    add = target.add
    for seat, c in enumerate(clock.clocks):
        add(
            seat=seat,
            remaining_ms=c.remaining_ms,
            deadline_ms=c.deadline_ms,
            taken_over=seat in clock.taken_over,
            forfeited=seat in clock.forfeited,
        )


def clocks_to_proto(clock: ClockState) -> list[pb.SeatClock]:
    """Each seat's clock as GetGame shows it."""
    return [
        pb.SeatClock(
            seat=seat,
            remaining_ms=c.remaining_ms,
            deadline_ms=c.deadline_ms,
            taken_over=seat in clock.taken_over,
            forfeited=seat in clock.forfeited,
        )
        for seat, c in enumerate(clock.clocks)
    ]
