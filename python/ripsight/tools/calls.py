"""`find_calls`: what a definition calls, the names called in its body (definition, handler,
the text the model sees).

Its own tool rather than a `find_references` argument: "who uses X" and "what does X call"
are two decisions a model makes at different moments (before changing X; to understand X
without reading it whole), and they take different arguments (roles and grouping there; the
definition's kind here) and give different answers (uses of one name; the names of many)."""

from __future__ import annotations

import functools
from typing import Any

from .._core import CallsResult
from ..limits import DEFAULT_LIMITS, ToolLimits
from ..names import quote_path
from ..roots import Roots
from ..types import ToolCommand, ToolContext, ToolOutput, ToolSpec
from ..workspace import SYMBOL_KINDS, Workspace
from ._common import (
    answer_search,
    candidates_text,
    limit_property,
    list_arg,
    offset_property,
    plural,
    resolved_maximum,
    skip_note,
    thousands,
    unquote_paths,
)
from .outline import languages_text

__all__ = [
    "FIND_CALLS_DESCRIPTION",
    "FIND_CALLS_SCHEMA",
    "find_calls_description",
    "find_calls_schema",
    "find_calls_tool",
    "format_calls",
    "run_find_calls",
]


def find_calls_description(limits: ToolLimits = DEFAULT_LIMITS) -> str:
    """The model-facing description of `find_calls` under these limits."""
    return f"""\
Find what a function (or method, class...) calls, without reading it: for each definition of \
the name, the names called in its body (nested functions and closures included), each once \
with its number of calls, its first call as `line:col: <line>`, and the line where the same \
file defines that name, when it does. Calls are found BY NAME, with no type resolution: \
`obj.close()` is a call to `close`, whichever `close` that is; use find_definitions on a \
callee to see where it is defined. A name defined in several places has each definition's \
calls listed apart; narrow with `path` (a file or directory), `glob` and `kind` (of the \
definition). Examples: name="parse_args" (what parse_args calls); name="run", kind="method", \
path="src/jobs.py" (the method run of that file). For who calls a name, use find_references \
with role="call", group_by="caller". \
Languages: {languages_text()}. At most `limit` callees (default {limits.calls_limit}) per \
call, by path, definition and first call; the result states the exact totals and which \
`offset` shows the next page."""


def find_calls_schema(limits: ToolLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """JSON Schema of `find_calls`' arguments under these limits."""
    kinds = list(SYMBOL_KINDS)
    return {
        "type": "object",
        "properties": {
            "name": {
                "type": "string",
                "minLength": 1,
                "description": "The name of the definition whose calls to list, matched whole "
                'and case-sensitively, e.g. "parse_args", "do_sys_open", "HttpClient".',
            },
            "kind": {
                "type": ["string", "array"],
                "items": {"type": "string", "enum": kinds},
                "description": "Only definitions of this kind, or these kinds: "
                + ", ".join(kinds)
                + ". Default: every kind.",
            },
            "path": {
                "type": "string",
                "description": "File or directory holding the definition, relative to the "
                "workspace root. Default: the workspace root.",
            },
            "glob": {
                "type": ["string", "array"],
                "items": {"type": "string", "minLength": 1},
                "description": "Only search files matching this glob, or these globs, as "
                'grep\'s glob: "*.py", "src/**/*.ts", ["*.c", "!*_test.c"]. Default: all files.',
            },
            "limit": limit_property(
                limits.calls_limit,
                resolved_maximum(limits.calls_max_limit),
                "Maximum number of callees to return",
            ),
            "offset": offset_property(
                0, "Number of callees to skip, to page through a large result."
            ),
        },
        "required": ["name"],
        "additionalProperties": False,
    }


#: The definition under the SPEC section 5 defaults.
FIND_CALLS_DESCRIPTION = find_calls_description()
FIND_CALLS_SCHEMA: dict[str, Any] = find_calls_schema()


def _definition_text(found: Any) -> str:
    definition = found.definition
    inside = f" (in {definition.container})" if definition.container else ""
    return (
        f"{quote_path(definition.path)}:{definition.line} {definition.kind} "
        f"{definition.name}{inside}"
    )


def _callee_text(callee: Any) -> str:
    here = f" (defined here at line {callee.defined_line})" if callee.defined_line else ""
    return (
        f"  {callee.name} — {plural(callee.count, 'call')}, first at "
        f"{callee.first_line}:{callee.first_column}{here}: {callee.text.strip()}"
    )


def format_calls(result: Any, path: str | None = None, kinds: list[str] | None = None) -> str:
    """The text a model sees for a `Workspace.calls` result."""
    what = f'"{result.name}"'
    if kinds:
        what += f" of kind {' or '.join(kinds)}"
    where = f" under {quote_path(path.rstrip('/'))}" if path else ""
    candidates = candidates_text(result.candidate_files, result.files_searched, "the name")
    total, shown = result.total, len(result.calls)
    lines: list[str] = []
    places = result.definitions_total
    if places == 0:
        lines.append(
            f"No definition of {what}{where} ({candidates}). find_calls looks into a "
            "definition's body; find_definitions finds where a name is defined, "
            "find_references where it is used."
        )
    elif total == 0:
        lines.append(
            f"{what}{where} is defined in {plural(places, 'place')}, and no call is made in "
            f"{'its body' if places == 1 else 'their bodies'} ({candidates}):"
        )
        lines.extend(f"  {_definition_text(found)}" for found in result.definitions)
    else:
        head = (
            f"{plural(total, 'callee')} ({plural(result.calls_total, 'call')}) in the "
            f"{'body' if places == 1 else 'bodies'} of {what}{where}, defined in "
            f"{plural(places, 'place')}; found by name without type resolution ({candidates})"
        )
        if shown == 0:
            lines.append(
                f"{head}, but offset={result.offset} is past the end; use an offset below {total}."
            )
        else:
            if shown < total:
                head += (
                    f"; showing {thousands(result.offset + 1)}-{thousands(result.offset + shown)}"
                )
            lines.append(head + ":")
            listed = {(d.definition.path, d.definition.line): d for d in result.definitions}
            at = None
            for callee in result.calls:
                if (callee.path, callee.caller_line) != at:
                    at = (callee.path, callee.caller_line)
                    found = listed.get(at)
                    lines.append(
                        f"{_definition_text(found)} — {plural(found.callees, 'callee')}, "
                        f"{plural(found.calls, 'call')}:"
                        if found is not None
                        else f"{quote_path(callee.path)}:{callee.caller_line} {result.name}:"
                    )
                lines.append(_callee_text(callee))
            empty = [found for found in result.definitions if found.calls == 0]
            if empty:
                lines.append(
                    "No calls in: " + ", ".join(_definition_text(found) for found in empty) + "."
                )
        if result.next_offset is not None:
            lines.append(
                f"{plural(result.withheld, 'more callee')} not shown: call find_calls again "
                f"with offset={result.next_offset} for the next page, or narrow it with kind, "
                "path or glob."
            )
    more = places - len(result.definitions)
    if more:
        lines.append(f"{plural(more, 'more definition')} of the name not described above.")
    if result.files_cut:
        lines.append(
            f"{plural(result.files_cut, 'file')} held more references than one file's parse "
            "keeps; the calls past that point in those files are not counted."
        )
    if result.unparsed_total:
        listed_files = ", ".join(
            f"{quote_path(item.path)} ({item.refused.replace('_', ' ')})"
            for item in result.unparsed
        )
        rest = result.unparsed_total - len(result.unparsed)
        listed_files += f" and {thousands(rest)} more" if rest else ""
        lines.append(
            f"{plural(result.unparsed_total, 'file')} that contain the name could not be "
            f"parsed, so definitions there are not looked into: {listed_files}. read_file "
            "them instead."
        )
    if result.incomplete:
        lines.append(
            "Incomplete: the time budget ran out before every candidate file was searched and "
            "parsed, so there may be more definitions. Narrow the search with path or glob."
        )
    note = skip_note(result.skipped, include_binary=False, nothing_found=places == 0)
    if note:
        lines.append(note)
    return "\n".join(lines)


def run_find_calls(
    context: ToolContext, args: dict[str, Any], limits: ToolLimits = DEFAULT_LIMITS
) -> ToolOutput:
    """Handler of `find_calls`."""
    kinds = list_arg(args.get("kind"))

    def search(workspace: Workspace | Roots) -> Any:
        return workspace.calls(
            args["name"],
            path=args.get("path") or None,
            glob=args.get("glob") or None,
            kind=kinds,
            limit=args["limit"],
            offset=args["offset"],
            cancel=context.cancel,
        )

    def describe(result: Any) -> tuple[str, int]:
        return format_calls(result, args.get("path"), kinds), result.total

    return answer_search(context, "find_calls", args, search, describe)


def find_calls_tool(limits: ToolLimits = DEFAULT_LIMITS) -> ToolSpec:
    """`find_calls`, its definition generated from `limits`."""
    return ToolSpec(
        name="find_calls",
        description=find_calls_description(limits),
        parameters=find_calls_schema(limits),
        handler=functools.partial(run_find_calls, limits=limits),
        title="Find what a definition calls",
        prepare=unquote_paths,
        results=(CallsResult,),
        paging={"calls": "count"},
        command=ToolCommand(
            name="calls",
            help="find what a definition calls",
            description="List the names called in the body of each definition of a name, each "
            "once with its count and first call, found by name without type resolution, and "
            "print what a model would see (the find_calls tool).",
            epilog="exit status: 0 calls found, 1 none, 2 usage or input error (one line on "
            "stderr)",
            positionals=("name", "path"),
            short={"glob": "-g", "kind": "-k"},
            found="total",
        ),
    )


#: This module's tool (`ripsight.tools.builtin_tools` finds the built-in tools by this name).
TOOL = find_calls_tool
