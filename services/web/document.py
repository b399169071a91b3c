"""The OpenAPI document of the whole web face, without a server.

``python -m services.web.document`` prints what ``teoti serve`` answers at
``/openapi.json`` (every service the full stack serves, in its order), so clients can
be generated from a checkout: clients/web's ``npm run gen:api`` reads the copy committed
at clients/web/openapi.json, and tests/web/test_web_openapi.py checks that copy equals
the served document.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from google.protobuf.descriptor import ServiceDescriptor
from teoti_client.proto import (
    game_service_pb2,
    lobby_service_pb2,
    player_service_pb2,
    rating_service_pb2,
)

from services.rpc.generated import tournament_service_pb2
from services.web.openapi import openapi
from services.web.server import WebSettings


def served_services() -> list[ServiceDescriptor]:
    """The services ``teoti serve`` puts on the web face, in the order it adds them
    (services.web.gateway.start_game_web)."""
    return [
        game_service_pb2.DESCRIPTOR.services_by_name["GameService"],
        tournament_service_pb2.DESCRIPTOR.services_by_name["TournamentService"],
        player_service_pb2.DESCRIPTOR.services_by_name["PlayerService"],
        rating_service_pb2.DESCRIPTOR.services_by_name["RatingService"],
        lobby_service_pb2.DESCRIPTOR.services_by_name["LobbyService"],
    ]


def document() -> dict[str, Any]:
    """The document, as services.web.server.build_app makes it for those services."""
    services = served_services()
    protos = ", ".join(dict.fromkeys(f"proto/{service.file.name}" for service in services))
    return openapi(services, protos, WebSettings().version)


def main() -> None:
    """Print the document (JSON, two-space indent) on standard output."""
    sys.stdout.write(json.dumps(document(), indent=2) + "\n")


if __name__ == "__main__":
    main()
