"""An OpenAPI 3.1 description of the web face, generated from the service descriptor.

Nothing here is written by hand per RPC: paths come from the service's methods, schemas
from their messages (fields, repeated, maps, enums, nested messages), in the same JSON
mapping the face speaks (:func:`services.web.face.to_json`). The prose of each field is
in the .proto file, which the description links to. OpenAPI cannot describe a WebSocket:
a request-streaming method (GameService.Play) is listed under ``x-websockets`` with its
frames' schemas, not under ``paths``.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import (
    Descriptor,
    EnumDescriptor,
    FieldDescriptor,
    ServiceDescriptor,
)

from services.web.errors import HTTP_STATUS

_SCALARS: dict[int, dict[str, Any]] = {
    FieldDescriptor.TYPE_DOUBLE: {"type": "number"},
    FieldDescriptor.TYPE_FLOAT: {"type": "number"},
    FieldDescriptor.TYPE_INT64: {"type": ["integer", "string"], "format": "int64"},
    FieldDescriptor.TYPE_UINT64: {"type": ["integer", "string"], "format": "uint64"},
    FieldDescriptor.TYPE_SINT64: {"type": ["integer", "string"], "format": "int64"},
    FieldDescriptor.TYPE_FIXED64: {"type": ["integer", "string"], "format": "uint64"},
    FieldDescriptor.TYPE_SFIXED64: {"type": ["integer", "string"], "format": "int64"},
    FieldDescriptor.TYPE_INT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_SINT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_SFIXED32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_UINT32: {"type": "integer", "format": "uint32"},
    FieldDescriptor.TYPE_FIXED32: {"type": "integer", "format": "uint32"},
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BYTES: {"type": "string", "contentEncoding": "base64"},
}

STATUS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "google.rpc.Status in protobuf JSON: code (gRPC code number), message, "
    "and details, among them a google.rpc.ErrorInfo whose reason names the broken rule.",
    "properties": {
        "code": {"type": "integer"},
        "message": {"type": "string"},
        "details": {"type": "array", "items": {"type": "object"}},
    },
}


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


def _field_schema(field: FieldDescriptor, schemas: dict[str, Any]) -> dict[str, Any]:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        entry = field.message_type
        assert entry is not None  # a message field always names its type
        if entry.GetOptions().map_entry:
            value = _field_schema(entry.fields_by_name["value"], schemas)
            return {"type": "object", "additionalProperties": value}
        _add_message(entry, schemas)
        item = _ref(entry.full_name)
    elif field.type == FieldDescriptor.TYPE_ENUM:
        enum = field.enum_type
        assert enum is not None  # an enum field always names its type
        _add_enum(enum, schemas)
        item = _ref(enum.full_name)
    else:
        item = dict(_SCALARS[field.type])
    if field.is_repeated:
        return {"type": "array", "items": item}
    return item


def _add_enum(enum: EnumDescriptor, schemas: dict[str, Any]) -> None:
    if enum.full_name not in schemas:
        schemas[enum.full_name] = {
            "type": ["string", "integer"],
            "enum": [value.name for value in enum.values],
        }


def _add_message(message: Descriptor, schemas: dict[str, Any]) -> None:
    if message.full_name in schemas:
        return
    schemas[message.full_name] = {}  # placed first: recursive messages end here
    properties = {field.name: _field_schema(field, schemas) for field in message.fields}
    schemas[message.full_name] = {"type": "object", "properties": properties}


def _resume_id(method: Any) -> str:
    """What a stream's SSE ``id`` is (what ``Last-Event-ID`` resumes after)."""
    if "after" in method.input_type.fields_by_name:
        return "the notice id, which `Last-Event-ID` resumes after"
    return "the event version"


def openapi(service: ServiceDescriptor, proto_path: str, version: str) -> dict[str, Any]:
    """The OpenAPI document of ``service`` on the web face (see docs/web.md)."""
    schemas: dict[str, Any] = {"google.rpc.Status": STATUS_SCHEMA}
    paths: dict[str, Any] = {}
    errors = {
        str(code): {
            "description": "refused (google.rpc.Status)",
            "content": {"application/json": {"schema": _ref("google.rpc.Status")}},
        }
        for code in sorted(set(HTTP_STATUS.values()) - {200} | {404, 405, 413})
    }
    sockets: dict[str, Any] = {}
    for method in service.methods:
        if method.client_streaming:
            # No HTTP form (the face refuses it): a WebSocket, services.web.play_socket.
            _add_message(method.input_type, schemas)
            _add_message(method.output_type, schemas)
            sockets[f"/{service.full_name}/{method.name}"] = {
                "description": f"WebSocket (ws:// or wss://): each text frame to the server "
                f"is one {method.input_type.full_name}, each from it one "
                f"{method.output_type.full_name}, in this document's JSON mapping; seat "
                "tokens in each message (docs/web.md, 'Play over a WebSocket').",
                "request": _ref(method.input_type.full_name),
                "response": _ref(method.output_type.full_name),
            }
            continue
        _add_message(method.input_type, schemas)
        _add_message(method.output_type, schemas)
        path = f"/{service.full_name}/{method.name}"
        body = {
            "required": False,
            "content": {"application/json": {"schema": _ref(method.input_type.full_name)}},
        }
        security: list[dict[str, list[str]]] = [{}, {"bearer": []}]
        if method.server_streaming:
            ok = {
                "description": "server-sent events: `message` (data: "
                f"{method.output_type.full_name} JSON, id: {_resume_id(method)}), then `end`, "
                "or `error` (data: google.rpc.Status)",
                "content": {"text/event-stream": {"schema": _ref(method.output_type.full_name)}},
            }
            params = [
                {"name": field.name, "in": "query", "required": False, "schema": {"type": "string"}}
                for field in method.input_type.fields
            ]
            paths[path] = {
                "post": {
                    "operationId": method.name,
                    "requestBody": body,
                    "responses": {"200": ok, **errors},
                    "security": security,
                },
                "get": {
                    "operationId": f"{method.name}Get",
                    "parameters": params,
                    "responses": {"200": ok, **errors},
                    "security": security,
                },
            }
        else:
            ok = {
                "description": method.output_type.full_name,
                "content": {"application/json": {"schema": _ref(method.output_type.full_name)}},
            }
            paths[path] = {
                "post": {
                    "operationId": method.name,
                    "requestBody": body,
                    "responses": {"200": ok, **errors},
                    "security": security,
                }
            }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": f"{service.full_name} (web face)",
            "version": version,
            "description": f"Generated from {proto_path}; each field's meaning is "
            "documented there. Seat tokens: the request's seat_token field or "
            "`Authorization: Bearer <token>`.",
        },
        "paths": paths,
        "x-websockets": sockets,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
