"""The JSON value types a request may use, checked before protobuf's parser sees them.

``json_format.Parse`` takes more than its mapping promises: an enum from a float
(truncated), a bool or a numeric string; an integer from ``"1e3"`` or ``"+5"``; a double
from a string. The OpenAPI document (:mod:`services.web.openapi_schemas`, accepted
form) states what the face takes, and this check makes the face take exactly that, so
a client generated from the document and the server agree. Field names, unknown
fields, duplicates and ranges of digit strings are left to the parser, which refuses
them itself.
"""

from __future__ import annotations

import re
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from services.web.openapi_schemas import INT32, INT64, UINT32, UINT64

_RANGES = {
    FieldDescriptor.CPPTYPE_INT32: INT32,
    FieldDescriptor.CPPTYPE_UINT32: UINT32,
    FieldDescriptor.CPPTYPE_INT64: INT64,
    FieldDescriptor.CPPTYPE_UINT64: UINT64,
}
_DIGITS = re.compile(r"-?[0-9]+")
_NUMBERS = {FieldDescriptor.CPPTYPE_DOUBLE, FieldDescriptor.CPPTYPE_FLOAT}


def request_problem(value: Any, message: Descriptor, path: str = "") -> str | None:
    """Why ``value`` (parsed JSON) is not an accepted ``message``, or None if its
    values have the types the document states (see the module's docstring)."""
    if not isinstance(value, dict):
        return f"{path or 'the request'} must be a JSON object"
    for key, item in value.items():
        field = message.fields_by_name.get(key) or message.fields_by_camelcase_name.get(key)
        if field is None or item is None:  # unknown: the parser refuses; null: the zero
            continue
        where = f"{path}.{field.name}" if path else field.name
        if problem := _field_problem(field, item, where):
            return problem
    return None


def _field_problem(field: FieldDescriptor, value: Any, where: str) -> str | None:
    entry = field.message_type
    if entry is not None and entry.GetOptions().map_entry:
        if not isinstance(value, dict):
            return f"{where} must be a JSON object"
        inner = entry.fields_by_name["value"]
        for key, item in value.items():
            if problem := _value_problem(inner, item, f"{where}[{key!r}]"):
                return problem
        return None
    if field.is_repeated:
        if not isinstance(value, list):
            return f"{where} must be a JSON array"
        for index, item in enumerate(value):
            if problem := _value_problem(field, item, f"{where}[{index}]"):
                return problem
        return None
    return _value_problem(field, value, where)


def _value_problem(field: FieldDescriptor, value: Any, where: str) -> str | None:
    """One value of ``field`` (an element of a repeated one: null is not one)."""
    kind = field.cpp_type
    if kind == FieldDescriptor.CPPTYPE_MESSAGE:
        assert field.message_type is not None  # a message field names its type
        return request_problem(value, field.message_type, where)
    if kind == FieldDescriptor.CPPTYPE_ENUM:
        assert field.enum_type is not None  # an enum field names its type
        if isinstance(value, str) and value in field.enum_type.values_by_name:
            return None
        if _whole(value) and INT32[0] <= value <= INT32[1]:
            return None
        names = ", ".join(field.enum_type.values_by_name)
        return f"{where} must be one of {names[:200]}, or an int32 number"
    if kind in _RANGES:
        if _whole(value) or (isinstance(value, str) and _DIGITS.fullmatch(value)):
            return None  # the parser refuses a value out of the type's range
        return f"{where} must be an integer (a JSON number, or a string of digits)"
    if kind in _NUMBERS:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return None
        return f"{where} must be a JSON number"
    if kind == FieldDescriptor.CPPTYPE_BOOL:
        return None if isinstance(value, bool) else f"{where} must be true or false"
    return None if isinstance(value, str) else f"{where} must be a string"


def _whole(value: Any) -> bool:
    """A JSON integer: an int, or a float with no fraction (``1.0``), never a bool."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
