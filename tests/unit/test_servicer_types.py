"""The gRPC servicers implement every RPC of their service with its generated messages.

The servicers do not subclass the generated ``*Servicer`` bases: protoc writes no type
stub for the ``_pb2_grpc`` modules, so mypy sees those bases as Any (and ``--strict``
refuses subclassing Any). Their methods are annotated with the messages of the
``_pb2`` modules instead, which mypy checks against their ``.pyi`` stubs; this test
holds those annotations to the proto: every RPC has its method, taking the RPC's
request type and answering its response type (in the iterator, for a stream).
"""

from __future__ import annotations

import typing
from typing import Any

import pytest
from google.protobuf.descriptor import ServiceDescriptor
from teoti_client.proto import game_service_pb2

from services.gateway.servicer import GameServicer
from services.gateway.tournament_servicer import TournamentServicer
from services.rpc.generated import tournament_service_pb2

SERVICES = [
    (GameServicer, game_service_pb2.DESCRIPTOR.services_by_name["GameService"]),
    (TournamentServicer, tournament_service_pb2.DESCRIPTOR.services_by_name["TournamentService"]),
]


def _named(annotation: Any) -> set[str]:
    """The full names of the protobuf message classes in ``annotation`` (a class, a
    union, an iterator of them ...)."""
    names = set()
    descriptor = getattr(annotation, "DESCRIPTOR", None)
    if descriptor is not None:
        names.add(descriptor.full_name)
    for argument in typing.get_args(annotation):
        names |= _named(argument)
    return names


@pytest.mark.parametrize(
    ("servicer", "service"), SERVICES, ids=[service.name for _, service in SERVICES]
)
def test_every_rpc_is_a_method_typed_with_its_messages(
    servicer: type, service: ServiceDescriptor
) -> None:
    for method in service.methods:
        hints = typing.get_type_hints(getattr(servicer, method.name))
        parameters = [h for name, h in hints.items() if name not in ("context", "return")]
        assert len(parameters) == 1, (method.name, hints)
        assert method.input_type.full_name in _named(parameters[0]), (method.name, hints)
        answered = _named(hints["return"])
        if method.server_streaming and not answered:
            assert hints["return"] is type(None), (method.name, hints)  # writes to context
        else:
            assert method.output_type.full_name in answered, (method.name, hints)
