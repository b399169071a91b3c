"""An OpenAPI 3.1 description of the web face, generated from the services' descriptors.

Nothing here is written by hand per RPC: paths come from the services' methods, schemas
from their messages (:mod:`services.web.openapi_schemas`: what the face sends, and what
it accepts), in the JSON mapping the face speaks (:func:`services.web.face.to_json`).
The prose of each field is in the .proto files, which the description links to.

A server-streaming method answers with server-sent events. OpenAPI 3.1 has no
``itemSchema`` (3.2 does, and openapi-python-client 0.29 reads only 3.1), so the
``text/event-stream`` schema is each event as tools before 3.2 read it (name, id, data
as JSON text; see :func:`_event_schema`), the media type's ``x-sse-events`` names each
event's data schema, and a component ``<Method>Frame`` (a parsed frame: ``event``,
``id``, ``data`` as JSON) gives generated clients a type. OpenAPI cannot describe a WebSocket:
a request-streaming method (GameService.Play) is listed under ``x-websockets`` with its
frames' schemas, not under ``paths``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from google.protobuf.descriptor import FieldDescriptor, MethodDescriptor, ServiceDescriptor

from services.web.errors import HTTP_STATUS
from services.web.openapi_schemas import (
    SIGNED_DIGITS,
    UNSIGNED_DIGITS,
    SchemaSet,
    ref,
)

STATUS = "google.rpc.Status"
ERROR_INFO = "google.rpc.ErrorInfo"
RETRY_INFO = "google.rpc.RetryInfo"
STREAM_END = "gameserver.web.StreamEnd"
TYPE_PREFIX = "type.googleapis.com/"

ERROR_SCHEMAS: dict[str, Any] = {
    STATUS: {
        "type": "object",
        "description": "A refusal: the google.rpc.Status the gRPC face sends, in protobuf "
        "JSON. `message` is '<reason>: <words>'; `details` holds a google.rpc.ErrorInfo "
        "(its `reason` names the broken rule) and, when waiting helps (RESOURCE_EXHAUSTED, "
        "UNAVAILABLE), a google.rpc.RetryInfo.",
        "properties": {
            "code": {"type": "integer", "description": "the gRPC status code number"},
            "message": {"type": "string"},
            "details": {
                "type": "array",
                "items": {"oneOf": [ref(ERROR_INFO), ref(RETRY_INFO)]},
            },
        },
        "required": ["code", "message", "details"],
    },
    ERROR_INFO: {
        "type": "object",
        "properties": {
            "@type": {"type": "string", "const": TYPE_PREFIX + ERROR_INFO},
            "reason": {"type": "string", "description": "the rule broken, snake_case"},
            "domain": {"type": "string", "description": "gameserver.v1"},
            "metadata": {
                "type": "object",
                "additionalProperties": {"type": "string"},
                "description": "`kind` (the refusal's class) and `message`, among others",
            },
        },
        "required": ["@type", "reason", "domain"],
    },
    RETRY_INFO: {
        "type": "object",
        "properties": {
            "@type": {"type": "string", "const": TYPE_PREFIX + RETRY_INFO},
            "retryDelay": {
                "type": "string",
                "pattern": "^[0-9]+(\\.[0-9]+)?s$",
                "description": "google.protobuf.Duration in JSON: seconds, e.g. '1.500s'",
            },
        },
        "required": ["@type", "retryDelay"],
    },
    STREAM_END: {
        "type": "object",
        "description": "The data of a stream's `end` event: nothing (the stream is over).",
        "properties": {},
        "additionalProperties": False,
    },
}

TIMEOUT_PARAMETER: dict[str, Any] = {
    "name": "x-timeout-ms",
    "in": "header",
    "required": False,
    "description": "The call's deadline in milliseconds (as gRPC's timeout): past it the "
    "call ends with DEADLINE_EXCEEDED (504). Up to 12 digits; anything else is 400, "
    "reason `malformed_timeout`.",
    "schema": {"type": "string", "pattern": "^[0-9]{1,12}$"},
}
LAST_EVENT_ID: dict[str, Any] = {
    "name": "Last-Event-ID",
    "in": "header",
    "required": False,
    "description": "Sent by a reconnecting EventSource: the `id` of the last event it "
    "received. The stream resumes after it (a version, or WatchPlayer's notice id). A "
    "stream that has nothing after it and has ended answers 204, which stops EventSource.",
    "schema": {"type": "string"},
}
RETRY_AFTER: dict[str, Any] = {
    "Retry-After": {
        "description": "Whole seconds to wait before retrying (from the RetryInfo detail).",
        "schema": {"type": "string", "pattern": "^[0-9]+$"},
    }
}
_BOOL_WORDS = "^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)$"
_EXTRA_STATUSES = {404, 405, 413, 415}
"""HTTP statuses the face answers that no gRPC code maps to (besides the table)."""
_WHY: dict[int, str] = {
    400: "INVALID_ARGUMENT, FAILED_PRECONDITION or OUT_OF_RANGE",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED (a wrong token, a page of another origin)",
    404: "NOT_FOUND",
    405: "the HTTP method is not the operation's",
    409: "ALREADY_EXISTS or ABORTED (a stale expected_version)",
    413: "the request is larger than the limit",
    415: "the body is not sent as application/json",
    429: "RESOURCE_EXHAUSTED (a rate limit; Retry-After says when)",
    499: "CANCELLED",
    500: "INTERNAL, UNKNOWN or DATA_LOSS",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE (Retry-After says when)",
    504: "DEADLINE_EXCEEDED (x-timeout-ms passed)",
}


def _summary(name: str) -> str:
    """``CreateGame`` → ``Create game``."""
    words = re.findall(r"[A-Z][a-z0-9]*", name)
    return " ".join([words[0], *(word.lower() for word in words[1:])]) if words else name


def _error_responses() -> dict[str, Any]:
    statuses = sorted(set(HTTP_STATUS.values()) - {200} | _EXTRA_STATUSES)
    responses: dict[str, Any] = {}
    for status in statuses:
        response: dict[str, Any] = {
            "description": f"refused: {_WHY.get(status, 'see google.rpc.Status')}",
            "content": {"application/json": {"schema": ref(STATUS)}},
        }
        if status in (429, 503):
            response["headers"] = RETRY_AFTER
        responses[str(status)] = response
    return responses


def _query_parameter(field: FieldDescriptor) -> dict[str, Any] | None:
    """A GET stream's query parameter for ``field``, or None for a field a query cannot
    carry (messages, repeated fields) or must not (a token: refused in a URL)."""
    if field.is_repeated or field.type == FieldDescriptor.TYPE_MESSAGE:
        return None
    if field.name.endswith("token"):
        return None
    schema: dict[str, Any] = {"type": "string"}
    if field.type == FieldDescriptor.TYPE_BOOL:
        schema["pattern"] = _BOOL_WORDS
    elif field.type == FieldDescriptor.TYPE_ENUM:
        assert field.enum_type is not None  # an enum field names its type
        names = "|".join(value.name for value in field.enum_type.values)
        schema["pattern"] = f"^({names}|-?[0-9]+)$"
    elif field.cpp_type in (FieldDescriptor.CPPTYPE_UINT32, FieldDescriptor.CPPTYPE_UINT64):
        schema["pattern"] = UNSIGNED_DIGITS
    elif field.cpp_type in (FieldDescriptor.CPPTYPE_INT32, FieldDescriptor.CPPTYPE_INT64):
        schema["pattern"] = SIGNED_DIGITS
    return {"name": field.name, "in": "query", "required": False, "schema": schema}


def _stream_reply(method: MethodDescriptor, schemas: SchemaSet) -> dict[str, Any]:
    """The 200 of a server-streaming operation: its events, and a frame component."""
    data = schemas.sent(method.output_type)
    resumes = "after" in method.input_type.fields_by_name
    ident = "the notice id (`notice.id`)" if resumes else "the event's version"
    frame = f"{method.containing_service.full_name}.{method.name}Frame"
    schemas.schemas[frame] = {
        "description": f"One parsed server-sent event of {method.name}.",
        "oneOf": [
            {
                "type": "object",
                "properties": {
                    "event": {"type": "string", "const": "message"},
                    "id": {"type": "string", "description": ident},
                    "data": ref(data),
                },
                "required": ["event", "id", "data"],
            },
            {
                "type": "object",
                "properties": {
                    "event": {"type": "string", "const": "end"},
                    "data": ref(STREAM_END),
                },
                "required": ["event", "data"],
            },
            {
                "type": "object",
                "properties": {"event": {"type": "string", "const": "error"}, "data": ref(STATUS)},
                "required": ["event", "data"],
            },
        ],
    }
    return {
        "description": f"Server-sent events, each `data` one line of JSON: `message` (data: "
        f"{data}, id: {ident}) per response; then `end` (data: {{}}) when the stream is "
        "over, or `error` (data: google.rpc.Status) if it fails after it began. Comments "
        "(`: keepalive`) come every 15 s of silence.",
        "content": {
            "text/event-stream": {
                "schema": _event_schema(data, ident),
                "x-sse-events": {
                    "message": {"id": ident, "data": ref(data)},
                    "end": {"data": ref(STREAM_END)},
                    "error": {"data": ref(STATUS)},
                },
                "x-sse-frame": ref(frame),
            }
        },
    }


def _wire_event(name: str, data: str, ident: str | None) -> dict[str, Any]:
    """One event as the SSE format carries it: its name, id and data as text (JSON)."""
    properties: dict[str, Any] = {
        "event": {"type": "string", "const": name},
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": ref(data),
        },
        "id": {"type": "string", "description": ident or "the last id sent before it"},
        "retry": {"type": "integer"},
    }
    required = ["event", "data", "id"] if ident else ["event", "data"]
    return {"type": "object", "properties": properties, "required": required}


def _event_schema(data: str, ident: str) -> dict[str, Any]:
    """The ``schema`` of a ``text/event-stream`` reply. Before OpenAPI 3.2 (whose
    ``itemSchema`` does this) tools read it as the schema of each event, an object of
    name, id and data (Schemathesis validates every event of a stream against it); a
    client that does not split events gets the stream's text, the last branch, which
    openapi-python-client falls back to (an object-only schema made it crash)."""
    return {
        "description": "one server-sent event (event, id, data as JSON text), or the "
        "whole stream's text for a client that reads it unsplit",
        "anyOf": [
            _wire_event("message", data, ident),
            _wire_event("end", STREAM_END, None),
            _wire_event("error", STATUS, None),
            {"type": "string"},
        ],
    }


def _operation_ids(services: Sequence[ServiceDescriptor]) -> dict[str, str]:
    """operationId per ``<service>/<method>``: the method's name, or
    ``<Service>_<Method>`` where two services share a method name."""
    counts = Counter(method.name for service in services for method in service.methods)
    return {
        f"{service.full_name}/{method.name}": (
            method.name if counts[method.name] == 1 else f"{service.name}_{method.name}"
        )
        for service in services
        for method in service.methods
    }


def openapi(services: Sequence[ServiceDescriptor], protos: str, version: str) -> dict[str, Any]:
    """The OpenAPI document of ``services`` on the web face (docs/web.md, "The API
    contract"); ``protos`` names the .proto files, ``version`` the server's."""
    schemas = SchemaSet()
    schemas.schemas.update(ERROR_SCHEMAS)
    # Sent forms first: a message both sent and accepted keeps its name for the sent one.
    for service in services:
        for method in service.methods:
            schemas.sent(method.output_type)
    ids = _operation_ids(services)
    errors = _error_responses()
    paths: dict[str, Any] = {}
    sockets: dict[str, Any] = {}
    for service in services:
        for method in service.methods:
            path = f"/{service.full_name}/{method.name}"
            request = schemas.accepted(method.input_type)
            if method.client_streaming:
                # No HTTP form (the face refuses it): a WebSocket, services.web.play_socket.
                sockets[path] = {
                    "description": f"WebSocket (ws:// or wss://): each text frame to the "
                    f"server is one {method.input_type.full_name}, each from it one "
                    f"{method.output_type.full_name}, in this document's JSON mapping; seat "
                    "tokens in each message (docs/web.md, 'Play over a WebSocket').",
                    "request": ref(request),
                    "response": ref(schemas.sent(method.output_type)),
                }
                continue
            paths[path] = _path_item(
                method, ids[f"{service.full_name}/{method.name}"], request, schemas, errors
            )
    return {
        "openapi": "3.1.0",
        "info": {
            "title": f"{', '.join(s.full_name for s in services)} (web face)",
            "version": version,
            "description": f"Generated from {protos}; each field's meaning is documented "
            "there (docs/web.md, 'The API contract'). Requests are protobuf JSON: field "
            "names as listed (their lowerCamelCase forms are accepted too), null for a "
            "field's zero, enums by name or number. Replies list every field without "
            "presence; a message, optional or oneof field only when set. Seat tokens: the "
            "request's seat_token field or `Authorization: Bearer <token>`; player "
            "credentials: `Authorization: Player <credential>`. Never a token in a URL.",
        },
        "servers": [{"url": "/", "description": "this web face"}],
        "tags": [
            {
                "name": service.name,
                "description": f"{service.full_name} (proto/{service.file.name})",
            }
            for service in services
        ],
        "paths": paths,
        "x-websockets": sockets,
        "components": {
            "schemas": schemas.schemas,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "a seat token (or an organiser's token)",
                },
                "player": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "Authorization",
                    "description": "`Player <credential>`: a player credential (tpc_...)",
                },
            },
        },
    }


def _path_item(
    method: MethodDescriptor,
    operation_id: str,
    request: str,
    schemas: SchemaSet,
    errors: dict[str, Any],
) -> dict[str, Any]:
    """The POST (and, for a stream, GET) operations of one method."""
    service = method.containing_service
    common: dict[str, Any] = {
        "tags": [service.name],
        "summary": _summary(method.name),
        "description": f"{service.full_name}.{method.name} "
        f"(proto/{service.file.name}); request {method.input_type.full_name}, "
        f"reply {method.output_type.full_name}.",
        "security": [{}, {"bearer": []}, {"player": []}],
    }
    if method.server_streaming:
        ok = _stream_reply(method, schemas)
    else:
        ok = {
            "description": method.output_type.full_name,
            "content": {"application/json": {"schema": ref(schemas.sent(method.output_type))}},
        }
    post = {
        **common,
        "operationId": operation_id,
        "parameters": [TIMEOUT_PARAMETER],
        "requestBody": {
            "required": True,
            "description": "the request as JSON, sent as `Content-Type: application/json` "
            "(an empty body with that type is the empty request)",
            "content": {"application/json": {"schema": ref(request)}},
        },
        "responses": {"200": ok, **errors},
    }
    if not method.server_streaming:
        return {"post": post}
    params = [p for field in method.input_type.fields if (p := _query_parameter(field)) is not None]
    get = {
        **common,
        "operationId": f"{operation_id}Get",
        "description": common["description"] + " For EventSource: the request's fields as "
        "query parameters (no token: send it in the Authorization header).",
        "parameters": [*params, LAST_EVENT_ID, TIMEOUT_PARAMETER],
        "responses": {
            "200": ok,
            "204": {
                "description": "a reconnect (Last-Event-ID) to a stream that has ended: "
                "nothing more will come (EventSource stops on 204)"
            },
            **errors,
        },
    }
    return {"post": post, "get": get}
