"""JSON Schemas of protobuf messages as the web face reads and writes them.

Two forms per message, because the face reads more than it writes (protobuf's JSON
mapping, ``json_format``):

- **Sent** (responses, stream events): what :func:`services.web.face.to_json` prints.
  Every field without presence (scalars, enums, repeated fields, maps) is always present
  and so ``required``; a message field, an ``optional`` scalar or a ``oneof`` member is
  present only when set (left out, never ``null``). Enums are their names; 64-bit
  integers are JSON numbers when exact (up to 2^53), else decimal strings.
- **Accepted** (requests): what ``json_format.Parse`` takes and the face does not refuse.
  No field is required (absent means its zero); ``null`` means the zero too; enums by
  name or by number (any int32: proto3 enums are open); integers as numbers or decimal
  strings, within their type's range; unknown properties are refused
  (``additionalProperties: false``). lowerCamelCase aliases of field names are accepted
  too (docs/web.md) but not listed, so generated clients have one name per field.

A message reached from both a request and a response has its sent form under its full
name and its accepted form under ``<full name>Input``; one reached from requests only
keeps its full name.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

INT32 = (-(2**31), 2**31 - 1)
UINT32 = (0, 2**32 - 1)
INT64 = (-(2**63), 2**63 - 1)
UINT64 = (0, 2**64 - 1)
SIGNED_DIGITS = "^-?[0-9]+$"
"""A decimal integer as a string (how int64 is sent past 2^53, and may be sent)."""
UNSIGNED_DIGITS = "^[0-9]+$"
_SIGNED = {
    FieldDescriptor.TYPE_INT32: INT32,
    FieldDescriptor.TYPE_SINT32: INT32,
    FieldDescriptor.TYPE_SFIXED32: INT32,
    FieldDescriptor.TYPE_UINT32: UINT32,
    FieldDescriptor.TYPE_FIXED32: UINT32,
    FieldDescriptor.TYPE_INT64: INT64,
    FieldDescriptor.TYPE_SINT64: INT64,
    FieldDescriptor.TYPE_SFIXED64: INT64,
    FieldDescriptor.TYPE_UINT64: UINT64,
    FieldDescriptor.TYPE_FIXED64: UINT64,
}
"""Integer field types and their (minimum, maximum)."""
_SIXTY_FOUR = {
    FieldDescriptor.TYPE_INT64,
    FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_SFIXED64,
    FieldDescriptor.TYPE_UINT64,
    FieldDescriptor.TYPE_FIXED64,
}
_OTHER_SCALARS: dict[int, dict[str, Any]] = {
    FieldDescriptor.TYPE_DOUBLE: {"type": "number", "format": "double"},
    FieldDescriptor.TYPE_FLOAT: {"type": "number", "format": "float"},
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BYTES: {"type": "string", "contentEncoding": "base64"},
}
INPUT_SUFFIX = "Input"
ANY = "google.protobuf.Any"
ANY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "google.protobuf.Any in protobuf's JSON mapping: `@type` "
    "(type.googleapis.com/<message name>) and that message's fields beside it, e.g. a "
    "PlayError's google.rpc.ErrorInfo (reason, domain, metadata) as in google.rpc.Status",
    "properties": {"@type": {"type": "string"}},
    "required": ["@type"],
    "additionalProperties": True,
}
"""Any is not its proto fields (type_url, value) on the wire: json_format writes the
packed message's fields under its ``@type``, the one form of it a client reads."""


def ref(name: str) -> dict[str, Any]:
    """A reference to ``#/components/schemas/<name>``."""
    return {"$ref": f"#/components/schemas/{name}"}


def integer_schema(field_type: int, sent: bool) -> dict[str, Any]:
    """An integer field: a number within the type's range, or (64-bit when sent; any
    width when accepted) a decimal string."""
    low, high = _SIGNED[field_type]
    wide = field_type in _SIXTY_FOUR
    name = ("int64" if low else "uint64") if wide else ("int32" if low else "uint32")
    number: dict[str, Any] = {"type": "integer", "format": name, "minimum": low, "maximum": high}
    if sent and not wide:
        return number
    digits = SIGNED_DIGITS if low else UNSIGNED_DIGITS
    return {"anyOf": [number, {"type": "string", "pattern": digits}]}


class SchemaSet:
    """The component schemas of the messages a document names, in both forms.

    ``sent(descriptor)`` / ``accepted(descriptor)`` add a message (and everything it
    reaches) and return the name to reference. Call every ``sent`` first: a name taken
    by a sent form makes the accepted form of the same message ``<name>Input``.
    """

    def __init__(self) -> None:
        self.schemas: dict[str, Any] = {}
        self._sent: set[str] = set()
        self._accepted: dict[str, str] = {}
        self._accepted_enums: dict[str, str] = {}

    def sent(self, message: Descriptor) -> str:
        """The sent form of ``message``; returns its component name."""
        name = message.full_name
        if name not in self._sent:
            self._sent.add(name)
            self.schemas[name] = {}  # placed first: a recursive message ends here
            self.schemas[name] = self._object(message, sent=True)
        return name

    def accepted(self, message: Descriptor) -> str:
        """The accepted form of ``message``; returns its component name."""
        if message.full_name in self._accepted:
            return self._accepted[message.full_name]
        name = message.full_name
        if name in self._sent:
            name += INPUT_SUFFIX
        self._accepted[message.full_name] = name
        self.schemas[name] = {}
        self.schemas[name] = self._object(message, sent=False)
        return name

    def _object(self, message: Descriptor, sent: bool) -> dict[str, Any]:
        properties = {field.name: self._field(field, sent) for field in message.fields}
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if sent:
            required = [field.name for field in message.fields if not field.has_presence]
            if required:
                schema["required"] = required
        else:
            schema["additionalProperties"] = False
        return schema

    def _field(self, field: FieldDescriptor, sent: bool) -> dict[str, Any]:
        entry = field.message_type
        if entry is not None and entry.GetOptions().map_entry:
            value = self._single(entry.fields_by_name["value"], sent)
            schema: dict[str, Any] = {"type": "object", "additionalProperties": value}
        elif field.is_repeated:
            schema = {"type": "array", "items": self._single(field, sent)}
        else:
            schema = self._single(field, sent)
        if sent:
            return schema
        return {"anyOf": [schema, {"type": "null"}]}  # null: the field's zero

    def _single(self, field: FieldDescriptor, sent: bool) -> dict[str, Any]:
        """One value of ``field`` (an element, for a repeated field)."""
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            assert field.message_type is not None  # a message field names its type
            if field.message_type.full_name == ANY:
                self.schemas.setdefault(ANY, ANY_SCHEMA)
                return ref(ANY)
            return ref(self.sent(field.message_type) if sent else self.accepted(field.message_type))
        if field.type == FieldDescriptor.TYPE_ENUM:
            assert field.enum_type is not None  # an enum field names its type
            return ref(self._enum(field.enum_type, sent))
        if field.type in _SIGNED:
            return integer_schema(field.type, sent)
        return dict(_OTHER_SCALARS[field.type])

    def _enum(self, enum: EnumDescriptor, sent: bool) -> str:
        names = [value.name for value in enum.values]
        if sent:
            self.schemas.setdefault(enum.full_name, {"type": "string", "enum": names})
            return enum.full_name
        if enum.full_name in self._accepted_enums:
            return self._accepted_enums[enum.full_name]
        name = enum.full_name
        if name in self.schemas:  # its sent form
            name += INPUT_SUFFIX
        self._accepted_enums[enum.full_name] = name
        low, high = INT32
        self.schemas[name] = {
            "description": f"{enum.full_name} by name, or by number (any int32: proto3 "
            "enums are open; a number no value has is refused by the method that reads "
            "it, if it cares)",
            "anyOf": [
                {"type": "string", "enum": names},
                {"type": "integer", "minimum": low, "maximum": high},
            ],
        }
        return name
