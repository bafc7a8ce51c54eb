"""What the provider modules share: pairing calls with results, argument forms, strict schemas."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from ..types import ToolCall, ToolResult
from ..validation import ArgumentsError, parse_arguments

__all__ = ["arguments_object", "arguments_text", "pair_results", "strict_schema"]

# Keywords OpenAI's strict mode (Structured Outputs) does not accept; the descriptions state the
# defaults and lengths in words, and `Registry.execute` still checks them against the full schema.
_STRICT_UNSUPPORTED = ("default", "minLength", "maxLength", "examples", "title")


def arguments_text(call: ToolCall) -> str:
    """The call's arguments as JSON text (as the provider transmitted them when they were text)."""
    if isinstance(call.arguments, str):
        return call.arguments
    return orjson.dumps(dict(call.arguments)).decode()


def arguments_object(call: ToolCall) -> dict[str, Any]:
    """The call's arguments as an object ({} when they do not parse)."""
    try:
        value, _ = parse_arguments(call.arguments)
    except ArgumentsError:
        return {}
    return value


def pair_results(
    calls: Sequence[ToolCall], results: Sequence[ToolResult]
) -> list[tuple[ToolCall, ToolResult]]:
    """Each call with its result (by call id, else by position); a missing one becomes an error."""
    by_id: dict[str, list[ToolResult]] = {}
    for result in results:
        by_id.setdefault(result.call_id, []).append(result)
    pairs: list[tuple[ToolCall, ToolResult]] = []
    for position, call in enumerate(calls):
        matching = by_id.get(call.id)
        if matching:
            result = matching.pop(0)
        elif position < len(results) and results[position].call_id in ("", None):
            result = results[position]
        else:
            result = ToolResult(
                call_id=call.id,
                content="This call was not run (no result was produced for it). Call it again.",
                is_error=True,
                name=call.name,
                meta={"error_type": "missing_result", "code": "missing_result"},
            )
        pairs.append((call, result))
    return pairs


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, str):
        if kind != "null":
            schema["type"] = [kind, "null"]
    elif isinstance(kind, list):
        if "null" not in kind:
            schema["type"] = [*kind, "null"]
    else:
        return {"anyOf": [schema, {"type": "null"}]}
    enum = schema.get("enum")
    if isinstance(enum, list) and None not in enum:
        schema["enum"] = [*enum, None]
    return schema


def _strict(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _strict(v) for k, v in schema.items() if k not in _STRICT_UNSUPPORTED}
    properties = out.get("properties")
    if out.get("type") == "object" or isinstance(properties, dict):
        properties = properties if isinstance(properties, dict) else {}
        required = set(out.get("required", ()))
        out["properties"] = {
            name: (prop if name in required else _nullable(prop))
            for name, prop in properties.items()
        }
        out["required"] = list(properties)
        out["additionalProperties"] = False
    return out


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """`schema` in the form OpenAI's strict mode accepts.

    Every property is required, the optional ones nullable (a model sends null for "not given",
    which `Registry.execute` treats as absent), ``additionalProperties`` is false on every
    object, and keywords strict mode rejects (``default``, ``minLength`` ...) are left out.

        >>> strict_schema({"type": "object", "properties": {"n": {"type": "integer",
        ...     "default": 5}}, "required": []})["properties"]["n"]
        {'type': ['integer', 'null']}
    """
    result: dict[str, Any] = _strict(copy.deepcopy(dict(schema)))
    return result
