"""`find_definitions`: where a name is defined across the tree (definition, handler, the text
the model sees)."""

from __future__ import annotations

import functools
from typing import Any

from .._core import DefinitionsResult
from ..limits import DEFAULT_LIMITS, ToolLimits
from ..names import quote_path
from ..types import ToolContext, ToolOutput, ToolSpec
from ..workspace import SYMBOL_KINDS
from . import _navigation as nav
from ._common import (
    limit_property,
    list_arg,
    offset_property,
    plural,
    resolved_maximum,
    skip_note,
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
    return nav.schema(
        'The name to find, e.g. "parse_args", "HttpClient"; with match="prefix" the start of '
        'names, with match="regex" a Rust regex.',
        {
            "match": {
                "type": "string",
                "enum": ["exact", "prefix", "regex"],
                "default": "exact",
                "description": 'How names are matched: "exact" (the whole name, case-'
                'sensitive), "prefix" (names starting with it), "regex" (names the regex '
                'matches, e.g. "^test_" or "(?i)handler$"). Default: "exact".',
            },
            "kind": nav.choices_property(
                SYMBOL_KINDS, "Only definitions of this kind, or these kinds", "every kind"
            ),
            "path": nav.path_property(),
            "glob": nav.glob_property(),
            "limit": limit_property(
                limits.definitions_limit,
                resolved_maximum(limits.definitions_max_limit),
                "Maximum number of definitions to return",
            ),
            "offset": offset_property(
                0, "Number of definitions to skip, to page through a large result."
            ),
        },
    )


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
    where = nav.under(path)
    total, shown = result.total, len(result.definitions)
    candidates = nav.candidates_text(result, "text")
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
        lines.append(nav.page_head(head, result, shown, total))
        for found in result.definitions:
            inside = f" (in {found.container})" if found.container else ""
            lines.append(f"{quote_path(found.path)}:{found.line} {found.kind} {found.name}{inside}")
        if result.next_offset is not None:
            lines.append(
                f"{plural(result.withheld, 'more definition')} not shown: call find_definitions "
                f"again with offset={result.next_offset} for the next page, or narrow it with "
                "kind, path or glob."
            )
    if result.unparsed_total:
        lines.append(
            f"{plural(result.unparsed_total, 'file')} that contain the text "
            f"{'has' if result.unparsed_total == 1 else 'have'} no outline, so definitions "
            f"there are not listed: {nav.unparsed_list(result)}. grep them for the name."
        )
    if result.incomplete:
        lines.append(nav.incomplete_note("definitions", "path, glob or a more specific name"))
    note = skip_note(result.skipped, include_binary=False, nothing_found=total == 0)
    if note:
        lines.append(note)
    return "\n".join(lines)


def run_find_definitions(
    context: ToolContext, args: dict[str, Any], limits: ToolLimits = DEFAULT_LIMITS
) -> ToolOutput:
    """Handler of `find_definitions`."""

    def describe(result: DefinitionsResult) -> tuple[str, int]:
        kinds = list_arg(args.get("kind"))
        return format_definitions(result, args.get("path"), kinds), result.total

    return nav.answer_by_name(context, "find_definitions", args, FIND_DEFINITIONS_SCHEMA, describe)


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
        command=nav.command(
            "defs",
            "definitions",
            "find where a name is defined",
            "Find the definitions of a name across the tree (path:line kind name) and print "
            "what a model would see (the find_definitions tool).",
            {"glob": "-g", "kind": "-k"},
        ),
    )


#: This module's tool (`ripsight.tools.builtin_tools` finds the built-in tools by this name).
TOOL = find_definitions_tool
