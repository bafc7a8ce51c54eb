"""What the provider modules share: pairing calls with results, argument forms, strict schemas."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from ..types import ToolCall, ToolResult
from ..validation import ArgumentsError, parse_arguments

__all__ = [
    "LARGE_ARGUMENTS_CHARS",
    "arguments_object",
    "arguments_text",
    "compact_arguments_object",
    "compact_arguments_text",
    "compact_result_text",
    "older_calls",
    "pair_results",
    "plain",
    "strict_schema",
    "text_of",
]

# Keywords OpenAI's strict mode (Structured Outputs) does not accept; the descriptions state the
# defaults and lengths in words, and `Registry.execute` still checks them against the full schema.
_STRICT_UNSUPPORTED = ("default", "minLength", "maxLength")


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
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _STRICT_UNSUPPORTED:
            continue
        if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            out[key] = {name: _strict(sub) for name, sub in value.items()}
        elif key in ("items", "not") and isinstance(value, dict):
            out[key] = _strict(value)
        elif key in ("anyOf", "allOf", "oneOf", "prefixItems") and isinstance(value, list):
            out[key] = [_strict(sub) for sub in value]
        else:
            out[key] = copy.deepcopy(value)
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
    result: dict[str, Any] = _strict(dict(schema))
    return result


# -- transcript compaction ----------------------------------------------------------------------

#: Arguments longer than this (as JSON text) are compacted in older calls.
LARGE_ARGUMENTS_CHARS = 400
#: Longest string value kept in compacted arguments.
ARGUMENT_VALUE_CHARS = 120
_COMPACTED = "[compacted:"
_REF = re.compile(r"\bref_[0-9a-f]{8,}\b")


def text_of(content: Any) -> str:
    """The text of a message content: a string, or the text parts of a list of parts/blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        parts: list[str] = []
        for part in content:
            if isinstance(part, Mapping):
                text = part.get("text")
                if isinstance(text, str):
                    parts.append(text)
                elif part.get("type") not in (None, "text", "input_text", "output_text"):
                    parts.append(f"[{part.get('type')}]")
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(parts)
    return "" if content is None else str(content)


def compact_result_text(tool: str, call_id: str, content: Any) -> str:
    """The compact form of an older tool result: its size and first line (for the tools of this
    package, a summary such as "12 matches in 3 files for ..."), and any stored reference."""
    text = text_of(content)
    if text.startswith(_COMPACTED):
        return text
    lines = text.count("\n") + 1 if text else 0
    first = text.split("\n", 1)[0].strip()
    if len(first) > 160:
        first = first[:157] + "..."
    refs = sorted(set(_REF.findall(text)))
    stored = f"; whole result stored as {', '.join(refs[:3])}" if refs else ""
    head = f"; it began: {first}" if first else ""
    return (
        f"{_COMPACTED} the result of {tool or 'a tool'} call {call_id} "
        f"({len(text):,} characters, {lines:,} lines) was shown earlier and is left out here"
        f"{stored}{head}]"
    )


def _clip(value: Any, depth: int = 0) -> Any:
    if isinstance(value, str):
        if len(value) > ARGUMENT_VALUE_CHARS:
            return value[:ARGUMENT_VALUE_CHARS] + f"... [{len(value):,} characters]"
        return value
    if depth < 4 and isinstance(value, Mapping):
        return {str(k): _clip(v, depth + 1) for k, v in value.items()}
    if depth < 4 and isinstance(value, (list, tuple)):
        clipped = [_clip(v, depth + 1) for v in list(value)[:20]]
        if len(value) > 20:
            clipped.append(f"... [{len(value):,} items]")
        return clipped
    return value


def compact_arguments_object(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments with long string values clipped (saying how long they were)."""
    clipped: dict[str, Any] = _clip(dict(arguments))
    return clipped


def compact_arguments_text(arguments: str) -> str:
    """JSON argument text over `LARGE_ARGUMENTS_CHARS` in compact form (still JSON when it was)."""
    if len(arguments) <= LARGE_ARGUMENTS_CHARS:
        return arguments
    try:
        value = orjson.loads(arguments)
    except orjson.JSONDecodeError:
        return arguments[:LARGE_ARGUMENTS_CHARS] + f"... [{len(arguments):,} characters]"
    if isinstance(value, Mapping):
        return orjson.dumps(compact_arguments_object(value)).decode()
    return orjson.dumps(_clip(value)).decode()


def older_calls(turns: Sequence[Sequence[str]], keep_recent: int) -> set[str]:
    """The call ids of every tool turn but the last `keep_recent`."""
    kept = max(0, len(turns) - keep_recent)
    return {call_id for turn in turns[:kept] for call_id in turn}


def plain(value: Any) -> Any:
    """A message or item as plain data (SDK objects dumped, containers copied)."""
    if hasattr(value, "model_dump"):
        return plain(value.model_dump(exclude_none=True))
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value
