"""`read_result`: pages through a result that was too long for one answer and stored whole.

When a result exceeds the budget, the registry keeps its head and tail, stores the whole text in
the session under a ``ref_...`` reference, and names that reference in the cut. This tool shows
it in lines (a line over the store's row width counts as one line per that many characters).

The page's text follows the header line verbatim: ``meta["page_chars"]`` characters after the
first newline, so concatenating the pages rebuilds the stored result exactly.
"""

from __future__ import annotations

import re
from typing import Any

from .. import codes
from ..limits import DEFAULT_LIMITS, ToolLimits
from ..types import ToolContext, ToolOutput, ToolSpec
from ._common import MAX_OFFSET, offset_property, plural, thousands

__all__ = [
    "READ_RESULT_SCHEMA",
    "read_result_tool",
]

#: A numbered line of a file as `read_file` shows it (`    12\ttext`).
_NUMBERED = re.compile(r"^ *(\d+)\t", re.MULTILINE)

READ_RESULT_DEFAULT_LIMIT = 200
READ_RESULT_MAX_LIMIT = 2000
# Room left in a page for the header and the closing sentence.
_FRAME_CHARS = 400

#: The one answer for a reference this conversation cannot read: never stored here (made up, or
#: from another conversation), expired, or evicted. The three are not told apart.
UNKNOWN_REFERENCE = (
    "No stored result has this reference in this conversation (stored results expire). "
    "Run the original call again, narrowed with its path, glob or offset arguments if it was "
    "long."
)

READ_RESULT_DESCRIPTION = f"""\
Read a stored result that was too long to show whole. When a result is cut in the middle, the \
cut names a reference (ref_ followed by hex digits); pass it as `ref` to read the cut lines. \
Reads `limit` lines (default {READ_RESULT_DEFAULT_LIMIT}) starting at line `offset` (1-based), \
fewer when they would not fit one result; the header states the range, and when more follows \
the result says which `offset` reads on. Line numbers count the original result's lines, \
its first line as 1. The lines are shown exactly as the original result \
had them. References belong to this conversation and expire."""

READ_RESULT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ref": {
            "type": "string",
            "minLength": 1,
            "description": 'The reference named in a cut result, e.g. "ref_3fa2c1d09b7e4a51c2d8".',
        },
        "offset": offset_property(1, "1-based number of the first line to read."),
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": READ_RESULT_MAX_LIMIT,
            "default": READ_RESULT_DEFAULT_LIMIT,
            "description": f"Maximum number of lines to read (1-{READ_RESULT_MAX_LIMIT}). "
            f"Default: {READ_RESULT_DEFAULT_LIMIT}.",
        },
    },
    "required": ["ref"],
    "additionalProperties": False,
}


def run_read_result(context: ToolContext, args: dict[str, Any]) -> ToolOutput:
    """Handler of `read_result`."""
    ref = str(args["ref"]).strip()
    offset = min(int(args["offset"]), MAX_OFFSET)
    entry = context.session.references.get(ref)
    if entry is None:
        return ToolOutput(UNKNOWN_REFERENCE, is_error=True, code=codes.UNKNOWN_REF)
    rows = len(entry.rows)
    if offset > rows:
        return ToolOutput(
            f"{ref} has {thousands(rows)} line{'s' if rows != 1 else ''}; offset {thousands(offset)} is past "
            f"the end. Call read_result with an offset from 1 to {thousands(rows)}.",
            meta={"page_of": ref, "rows": rows},
            code=codes.PAST_END,
        )
    room = max(1, context.max_result_chars - _FRAME_CHARS)
    body, first, last = entry.page(offset, int(args["limit"]), room)
    # The numbers are the original result's lines (its first line, the tool's header, is 1),
    # as the cut named them; the lines may carry numbers of their own (a file's), and the
    # header says which these are.
    header = (
        f"{ref}: lines {thousands(first)}-{thousands(last)} of the original result's "
        f"{plural(rows, 'line')}, counted from its first line "
        f"({thousands(len(entry.text))} characters in all)"
    )
    # A read's lines carry the file's numbers, one off from the result's (its header is its
    # line 1): say which the page shows, so neither is taken for the other.
    numbers = [int(m[1]) for m in _NUMBERED.finditer(body)]
    if numbers:
        header += (
            f"; the numbers in them are the file's own, lines {thousands(numbers[0])}-"
            f"{thousands(numbers[-1])}"
        )
    header += "."
    text = f"{header}\n{body}"
    next_offset = last + 1 if last < rows else None
    if next_offset is not None:
        text += ("" if body.endswith("\n") else "\n") + (
            f'More lines follow: call read_result with ref="{ref}" and offset={next_offset}.'
        )
    meta = {
        "page_of": ref,
        "first": first,
        "last": last,
        "rows": rows,
        "next_offset": next_offset,
        "page_chars": len(body),
    }
    return ToolOutput(text, meta=meta)


def read_result_tool(limits: ToolLimits = DEFAULT_LIMITS) -> ToolSpec:
    """`read_result`: pages through results stored by reference (its definition is the same
    under every `limits`: the pages fit the budget the registry applies)."""
    del limits
    return ToolSpec(
        name="read_result",
        description=READ_RESULT_DESCRIPTION,
        parameters=READ_RESULT_SCHEMA,
        handler=run_read_result,
        title="Read a stored result",
    )


#: This module's tool (`ripsight.tools.builtin_tools` finds the built-in tools by this name).
TOOL = read_result_tool
