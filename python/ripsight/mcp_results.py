"""The structured copy of `ripsight mcp`'s results: each tool's ``outputSchema`` (the shape of
`ripsight.to_dict` of its typed result) and the ``structuredContent`` of a call, held to the
text's budget.

    >>> page = bound_structured(to_dict(workspace.grep("TODO", limit=500)), 8000)
    >>> len(json.dumps(page)) <= 8000
    True

A client that hands the model the structured copy instead of the text (`ripsight.mcp_clients`)
still gets a bounded page that says where the rest is, and the text's notes on the arguments.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Mapping
from typing import Any

from mcp import types

from .limits import DEFAULT_LIMITS, ToolLimits
from .registry import Registry
from .tools import ENGINE_RESULT_KEY, builtin_tools
from .types import PAGE_COUNTERS, PageBy, ToolResult, ToolSpec
from .workspace import to_dict

__all__ = [
    "NOTES_FIELD",
    "OUTPUT_SCHEMAS",
    "bound_structured",
    "call_result",
    "output_schema",
    "output_schemas",
    "tool_definitions",
]

logger = logging.getLogger("ripsight.mcp")

# -- output schemas: the JSON shape of `ripsight.to_dict(result)` ---------------------------------

#: What the server adds to the description of the field that says where paging goes on: it
#: holds the structured copy to the text's budget (`bound_structured`).
_KEPT_OUT = " (also those left out to keep this structured copy within the result budget)"


def _branches(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The alternatives of a union schema (read_file's), else the schema itself."""
    return list(schema.get("anyOf", [schema]))


#: The field the server adds to the structured copy of a call whose arguments were read as
#: others or dropped: the text's notes on it, which the typed result does not hold.
NOTES_FIELD = "notes"

_NOTES_SCHEMA = {
    "type": "array",
    "items": {"type": "string"},
    "description": "Notes on the call's arguments: those read as other arguments or ignored "
    "(absent when none were).",
}


def output_schema(spec: ToolSpec) -> dict[str, Any] | None:
    """The ``outputSchema`` of a tool: the shape of `ripsight.to_dict` of its typed result
    (`ToolSpec.output_schema`, generated from the engine's one declaration of each result:
    field names, types and descriptions), each paging counter saying that it also counts what
    the server leaves out, and the server's `NOTES_FIELD`; None for a tool without a typed
    result."""
    if spec.output_schema is None:
        return None
    schema = copy.deepcopy(dict(spec.output_schema))
    for branch in _branches(schema):
        properties = branch.get("properties", {})
        properties[NOTES_FIELD] = copy.deepcopy(_NOTES_SCHEMA)
        counters = {PAGE_COUNTERS[by] for key, by in spec.paging.items() if key in properties}
        for counter in sorted(counters):
            if counter in properties:
                prop = properties[counter]
                prop["description"] = prop["description"].rstrip(".") + _KEPT_OUT + "."
    return schema


def output_schemas(limits: ToolLimits = DEFAULT_LIMITS) -> dict[str, dict[str, Any]]:
    """``outputSchema`` of each built-in tool that has one (see `output_schema`), with the
    line caps `limits` sets."""
    schemas = {spec.name: output_schema(spec) for spec in builtin_tools(limits)}
    return {name: schema for name, schema in schemas.items() if schema is not None}


OUTPUT_SCHEMAS: dict[str, dict[str, Any]] = output_schemas()


def tool_definitions(registry: Registry, structured: bool = True) -> list[dict[str, Any]]:
    """The registry's MCP definitions, each with its ``outputSchema`` (unless `structured` is
    False) when it has one."""
    tools = registry.definitions("mcp")
    for tool in tools if structured else ():
        spec = registry.get(tool["name"])
        schema = output_schema(spec) if spec is not None else None
        if schema is not None:
            tool["outputSchema"] = schema
    return tools


# -- structuredContent within the result budget --------------------------------------------------


def _json_chars(data: dict[str, Any]) -> int:
    # As `json.dumps` writes it by default, with ", " and ": ": the longer of the usual forms.
    return len(json.dumps(data, ensure_ascii=False))


def _page(data: dict[str, Any], key: str, by: PageBy, keep: int) -> dict[str, Any]:
    """`data` with only the first `keep` entries of its list `key`, its counters (``withheld``,
    ``next_offset``, ``next_page``) saying so, as `by` says they page."""
    entries = data[key]
    page = dict(data)
    page[key] = entries[:keep]
    if keep >= len(entries):
        return page
    if by == "count":  # glob; grep's files_with_matches and count modes; outline; definitions
        page["withheld"] = data["withheld"] + len(entries) - keep
        page["next_offset"] = data["offset"] + keep
    elif by == "matches":  # grep content mode: only counted matches are entries
        page["withheld"] = data["withheld"] + sum(1 for line in entries[keep:] if line["counted"])
        page["next_offset"] = data["offset"] + sum(1 for line in entries[:keep] if line["counted"])
    elif by == "page":  # read_file on a PDF: read on from the first page left out
        page["next_page"] = entries[keep]["number"]
    elif by == "rank":  # repo_map: the lower-ranked files left out are counted
        page["files_left"] = data["files_left"] + len(entries) - keep
    else:  # read_file: read on at the first line (or notebook cell) left out
        page["next_offset"] = entries[keep]["number"]
    return page


def _grep_cut_points(lines: list[dict[str, Any]]) -> list[int]:
    # Cut right after a match line: no context line of a left-out match stays behind.
    return [0] + [i + 1 for i, line in enumerate(lines) if line["counted"]]


def _paging_of(data: dict[str, Any]) -> Mapping[str, PageBy]:
    """The paging of the built-in tool whose typed result `data` is: the first whose output
    schema has a branch with every field of `data`."""
    fields = set(data)
    for spec in builtin_tools():
        schema = spec.output_schema
        if schema is not None and any(
            fields <= set(branch.get("properties", ())) for branch in _branches(dict(schema))
        ):
            return spec.paging
    return {}


def bound_structured(
    data: dict[str, Any], budget: int, paging: Mapping[str, PageBy] | None = None
) -> dict[str, Any]:
    """The structured copy of a result (`ripsight.to_dict` of the engine's result) held to the
    text's budget: its JSON is at most `budget` characters.

    A longer page keeps its first entries (of the first list `paging` names that has any:
    paths, files, symbols, definitions, matching lines with their context, read lines, cells
    or pages) and says in its counters where the rest is (``withheld`` and ``next_offset``, or
    for read_file the ``next_offset`` or ``next_page`` of the first entry left out), so paging
    from the structured copy alone finds everything. A page that cannot fit even with no
    entries has its echoed ``pattern`` cut. `paging` is the tool's (`ToolSpec.paging`);
    default: that of the built-in tool whose result `data` is.
    """
    if _json_chars(data) <= budget:
        return data
    if paging is None:
        paging = _paging_of(data)
    key = next((k for k in paging if data.get(k)), None)
    if key is None:
        page = dict(data)
    else:
        by = paging[key]
        entries = data[key]
        points = _grep_cut_points(entries) if by == "matches" else list(range(len(entries) + 1))
        # Binary search for the most entries that fit: the size grows with the entries kept.
        low, high = 0, len(points) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if _json_chars(_page(data, key, by, points[middle])) <= budget:
                low = middle
            else:
                high = middle - 1
        page = _page(data, key, by, points[low])
    over = _json_chars(page) - budget
    if over > 0 and isinstance(page.get("pattern"), str):
        page["pattern"] = page["pattern"][: max(0, len(page["pattern"]) - over - 1)]
    return page


def call_result(
    result: ToolResult, spec: ToolSpec | None, structured_content: bool, budget: int
) -> types.CallToolResult:
    structured: dict[str, Any] | None = None
    if structured_content and not result.is_error and spec is not None:
        engine_result = result.meta.get(ENGINE_RESULT_KEY)
        if engine_result is not None:
            try:
                data = to_dict(engine_result)
                note = result.meta.get("argument_note")
                if note:  # the text says it; a client that shows only this copy must too
                    data[NOTES_FIELD] = str(note).splitlines()
                structured = bound_structured(data, budget, spec.paging)
            except Exception:  # the text still answers the call
                logger.exception("%s: the typed result could not be converted", result.name)
        elif spec.output_schema is not None:
            logger.warning("%s returned no typed result; structuredContent left out", result.name)
    # Validated from the wire form: the field names differ between SDK 1.x and 2.x models.
    content: list[dict[str, Any]] = [{"type": "text", "text": result.content}]
    content += [
        {"type": "image", "data": image.base64, "mimeType": image.media_type}
        for image in result.images
    ]
    return types.CallToolResult.model_validate(
        {
            "content": content,
            "structuredContent": structured,
            "isError": result.is_error,
        }
    )
