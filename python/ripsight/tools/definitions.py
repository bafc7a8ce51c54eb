"""`find_definitions`: where a name is defined across the tree (definition, handler, the text
the model sees)."""

from __future__ import annotations

import functools
from typing import Any, cast

from .._core import DefinitionsResult
from ..limits import DEFAULT_LIMITS, ToolLimits
from ..names import quote_path
from ..roots import Roots
from ..types import ToolCommand, ToolContext, ToolOutput, ToolSpec
from ..workspace import SYMBOL_KINDS, Workspace
from ._common import (
    answer_search,
    candidates_text,
    limit_property,
    offset_property,
    plural,
    resolved_maximum,
    skip_note,
    thousands,
    unquote_paths,
)
from .outline import languages_text

__all__ = [
    "FIND_DEFINITIONS_DESCRIPTION",
    "FIND_DEFINITIONS_SCHEMA",
    "find_definitions_description",
    "find_definitions_schema",
    "find_definitions_tool",
    "format_definitions",
]

_MATCH_WORDS = {"exact": "named", "prefix": "whose name starts with", "regex": "whose name matches"}


def find_definitions_description(limits: ToolLimits = DEFAULT_LIMITS) -> str:
    """The model-facing description of `find_definitions` under these limits."""
    return f"""\
Find where a name is defined: the classes, functions, methods, structs, enums, traits, \
interfaces, modules, types, macros (and Markdown headings) with that name, across the \
workspace. Each result is `path:line kind name`; read the definition with read_file \
(offset a few lines before that line). Faster and more precise than grepping for "def name" \
or "function name", and it does not list the places a name is only used.

The name is matched exactly by default; match="prefix" finds names starting with it, \
match="regex" names a Rust regex matches (anchor with ^ and $). Narrow with `kind` (e.g. \
"class", or ["function", "method"]), `path` and `glob` (as grep's). Languages: \
{languages_text()}. At most `limit` definitions (default {limits.definitions_limit}) per call, \
ordered by path then line; the result states the exact total and which `offset` shows the \
next page."""


def find_definitions_schema(limits: ToolLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """JSON Schema of `find_definitions`' arguments under these limits."""
    kinds = list(SYMBOL_KINDS)
    return {
        "type": "object",
        "properties": {
            "name": {
                "type": "string",
                "minLength": 1,
                "description": 'The name to find, e.g. "parse_args", "HttpClient"; with '
                'match="prefix" the start of names, with match="regex" a Rust regex.',
            },
            "match": {
                "type": "string",
                "enum": ["exact", "prefix", "regex"],
                "default": "exact",
                "description": 'How names are matched: "exact" (the whole name, case-'
                'sensitive), "prefix" (names starting with it), "regex" (names the regex '
                'matches, e.g. "^test_" or "(?i)handler$"). Default: "exact".',
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
                "description": "File or directory to search, relative to the workspace root. "
                "Default: the workspace root.",
            },
            "glob": {
                "type": ["string", "array"],
                "items": {"type": "string", "minLength": 1},
                "description": "Only search files matching this glob, or these globs, as "
                'grep\'s glob: "*.py", "src/**/*.ts", ["*.c", "!*_test.c"]. Default: all files.',
            },
            "limit": limit_property(
                limits.definitions_limit,
                resolved_maximum(limits.definitions_max_limit),
                "Maximum number of definitions to return",
            ),
            "offset": offset_property(
                0, "Number of definitions to skip, to page through a large result."
            ),
        },
        "required": ["name"],
        "additionalProperties": False,
    }


#: The definition under the SPEC section 5 defaults.
FIND_DEFINITIONS_DESCRIPTION = find_definitions_description()
FIND_DEFINITIONS_SCHEMA: dict[str, Any] = find_definitions_schema()


def _quoted(name: str) -> str:
    return f'"{name[:200]}…"' if len(name) > 200 else f'"{name}"'


def format_definitions(
    result: DefinitionsResult, path: str | None = None, kinds: list[str] | None = None
) -> str:
    """The text a model sees for a `Workspace.definitions` result."""
    what = f"{_MATCH_WORDS.get(result.matching, 'named')} {_quoted(result.name)}"
    if kinds:
        what = f"of kind {' or '.join(kinds)} {what}"
    where = f" under {quote_path(path.rstrip('/'))}" if path else ""
    total, shown = result.total, len(result.definitions)
    candidates = candidates_text(result.candidate_files, result.files_searched, "the text")
    lines: list[str] = []
    if total == 0:
        lines.append(f"No definition {what}{where} ({candidates}).")
        if result.candidate_files and not result.unparsed_total:
            lines.append(
                "The files that contain the text use it without defining it as outlines see "
                "definitions (it may come from a macro, an assignment, an import or another "
                "language); grep for it to see where it appears."
            )
        elif not result.candidate_files:
            lines.append(
                "No file with a parser contains the text"
                + ("; names are case-sensitive." if result.matching == "exact" else ".")
            )
    else:
        head = f"{plural(total, 'definition')} {what}{where} ({candidates})"
        if shown == 0:
            lines.append(
                f"{head}, but offset={result.offset} is past the end; use an offset below {total}."
            )
        else:
            if shown < total:
                first = thousands(result.offset + 1)
                head += f"; showing {first}-{thousands(result.offset + shown)}"
            lines.append(head + ":")
            for found in result.definitions:
                inside = f" (in {found.container})" if found.container else ""
                lines.append(
                    f"{quote_path(found.path)}:{found.line} {found.kind} {found.name}{inside}"
                )
        if result.next_offset is not None:
            lines.append(
                f"{plural(result.withheld, 'more definition')} not shown: call find_definitions "
                f"again with offset={result.next_offset} for the next page, or narrow it with "
                "kind, path or glob."
            )
    if result.unparsed_total:
        listed = ", ".join(
            f"{quote_path(item.path)} ({item.refused.replace('_', ' ')})"
            for item in result.unparsed
        )
        more = result.unparsed_total - len(result.unparsed)
        listed += f" and {thousands(more)} more" if more else ""
        lines.append(
            f"{plural(result.unparsed_total, 'file')} that contain the text "
            f"{'has' if result.unparsed_total == 1 else 'have'} no outline, so definitions "
            f"there are not listed: {listed}. grep them for the name."
        )
    if result.incomplete:
        lines.append(
            "Incomplete: the time budget ran out before every candidate file was searched and "
            "parsed, so there may be more definitions. Narrow the search with path, glob or a "
            "more specific name."
        )
    note = skip_note(result.skipped, include_binary=False, nothing_found=total == 0)
    if note:
        lines.append(note)
    return "\n".join(lines)


def _kinds_arg(kind: Any) -> list[str]:
    if kind is None:
        return []
    return [kind] if isinstance(kind, str) else list(kind)


def run_find_definitions(
    context: ToolContext, args: dict[str, Any], limits: ToolLimits = DEFAULT_LIMITS
) -> ToolOutput:
    """Handler of `find_definitions`."""
    kinds = _kinds_arg(args.get("kind"))

    def search(workspace: Workspace | Roots) -> DefinitionsResult:
        # A result merged from several roots (`merged.Record`) has the same fields.
        return cast(
            DefinitionsResult,
            workspace.definitions(
                args["name"],
                match=args["match"],
                path=args.get("path") or None,
                glob=args.get("glob") or None,
                kind=kinds,
                limit=args["limit"],
                offset=args["offset"],
                cancel=context.cancel,
            ),
        )

    def describe(result: DefinitionsResult) -> tuple[str, int]:
        return format_definitions(result, args.get("path"), kinds), result.total

    return answer_search(context, "find_definitions", args, search, describe)


def find_definitions_tool(limits: ToolLimits = DEFAULT_LIMITS) -> ToolSpec:
    """`find_definitions`, its definition generated from `limits`."""
    return ToolSpec(
        name="find_definitions",
        description=find_definitions_description(limits),
        parameters=find_definitions_schema(limits),
        handler=functools.partial(run_find_definitions, limits=limits),
        title="Find where a name is defined",
        prepare=unquote_paths,
        results=(DefinitionsResult,),
        paging={"definitions": "count"},
        command=ToolCommand(
            name="defs",
            help="find where a name is defined",
            description="Find the definitions of a name across the tree (path:line kind name) "
            "and print what a model would see (the find_definitions tool).",
            epilog="exit status: 0 definitions found, 1 none, 2 usage or input error (one line "
            "on stderr)",
            positionals=("name", "path"),
            short={"glob": "-g", "kind": "-k"},
            found="total",
        ),
    )


#: This module's tool (`ripsight.tools.builtin_tools` finds the built-in tools by this name).
TOOL = find_definitions_tool
