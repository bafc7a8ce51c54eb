"""`outline`: one file's definitions in source order (definition, handler, the text the model
sees), and the compact outline `read_file` adds to a page that stops before a file's end."""

from __future__ import annotations

import functools
from typing import Any

from .. import codes
from .._core import OutlineResult
from ..limits import DEFAULT_LIMITS, LIMITS, ToolLimits
from ..names import quote_path
from ..roots import Roots
from ..types import ToolCommand, ToolContext, ToolOutput, ToolSpec
from ..workspace import OUTLINE_LANGUAGES, Workspace
from ._common import (
    ENGINE_RESULT_KEY,
    answer_search,
    limit_property,
    offset_property,
    plural,
    resolved_maximum,
    size_text,
    thousands,
    unquote_paths,
)

__all__ = [
    "OUTLINE_DESCRIPTION",
    "OUTLINE_SCHEMA",
    "format_outline",
    "outline_description",
    "outline_schema",
    "outline_tool",
]

#: Files larger than this get no outline.
OUTLINE_MAX_BYTES = int(LIMITS["outline_max_bytes"])
#: A line longer than this makes a file minified.
OUTLINE_MAX_LINE_BYTES = int(LIMITS["outline_max_line_bytes"])

#: The language names as a model reads them.
_LANGUAGE_NAMES = {
    "python": "Python",
    "javascript": "JavaScript",
    "typescript": "TypeScript",
    "tsx": "TSX",
    "rust": "Rust",
    "go": "Go",
    "c": "C",
    "cpp": "C++",
    "java": "Java",
    "csharp": "C#",
    "ruby": "Ruby",
    "php": "PHP",
    "bash": "shell",
    "markdown": "Markdown",
    "kotlin": "Kotlin",
    "swift": "Swift",
}


def languages_text() -> str:
    """ "Python, JavaScript, ... and Swift": every language with a parser."""
    names = [_LANGUAGE_NAMES.get(language, language) for language in OUTLINE_LANGUAGES]
    names = [name for i, name in enumerate(names) if name not in names[:i]]
    return ", ".join(names[:-1]) + " and " + names[-1]


def outline_description(limits: ToolLimits = DEFAULT_LIMITS) -> str:
    """The model-facing description of `outline` under these limits."""
    return f"""\
List the definitions in one file, in source order: classes, functions, methods, structs, \
enums, traits, interfaces, modules, types and macros (Markdown: headings), each with its \
line range, nested by indentation. Use it to find your way in a long file, then read_file \
with offset at the line you want, instead of reading the whole file page by page.

Languages: {languages_text()}. Files over {size_text(OUTLINE_MAX_BYTES)} or minified ones get \
no outline (the result says why). At most `limit` definitions (default \
{limits.outline_limit}) per call; the result states the exact total and which `offset` shows \
the next page. To find where a name is defined across the tree, use find_definitions."""


def outline_schema(limits: ToolLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """JSON Schema of `outline`'s arguments under these limits."""
    return {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "Path of the file to outline, relative to the workspace root, "
                'e.g. "src/app.py".',
            },
            "limit": limit_property(
                limits.outline_limit,
                resolved_maximum(limits.outline_max_limit),
                "Maximum number of definitions to return",
            ),
            "offset": offset_property(
                0, "Number of definitions to skip, to page through a long outline."
            ),
        },
        "required": ["path"],
        "additionalProperties": False,
    }


#: The definition under the SPEC section 5 defaults.
OUTLINE_DESCRIPTION = outline_description()
OUTLINE_SCHEMA: dict[str, Any] = outline_schema()


def _span(symbol: Any) -> str:
    if symbol.end_line > symbol.line:
        return f"{thousands(symbol.line)}-{thousands(symbol.end_line)}"
    return thousands(symbol.line)


def refusal_text(result: OutlineResult) -> str:
    """Why `result` (a refused `OutlineResult`) has no outline, and what to do instead."""
    path = quote_path(result.path)
    refused = result.refused
    if refused == "no_parser":
        return (
            f"{path} has no outline: no parser reads this kind of file (outlines cover "
            f"{languages_text()}). Read it with read_file, or search it with grep."
        )
    if refused == "binary":
        return f"{path} is a binary file ({size_text(result.size_bytes)}); it has no outline."
    if refused == "too_large":
        return (
            f"{path} has no outline: it has {size_text(result.size_bytes)}, over the "
            f"{size_text(OUTLINE_MAX_BYTES)} outlines read. Search it with grep (for example "
            'pattern="^\\s*(def|class|fn|func|function) ") or read a range with read_file.'
        )
    if refused == "minified":
        return (
            f"{path} has no outline: it looks minified or generated ({result.detail}; outlines "
            f"skip files with lines over {thousands(OUTLINE_MAX_LINE_BYTES)} bytes). Search it "
            "with grep instead."
        )
    if refused in ("busy", "unavailable"):
        return (
            f"{path}: the outline could not be made now ({result.detail}). Call outline "
            "again in a moment, or search the file with grep."
        )
    # timeout, crashed, deadline: the parser gave up on this file.
    return (
        f"{path} has no outline: the parser stopped on this file ({result.detail}); it may be "
        "malformed or built to make parsers work for long. Search it with grep instead."
    )


def format_outline(result: OutlineResult) -> str:
    """The text a model sees for a `Workspace.outline` result."""
    if result.refused is not None:
        return refusal_text(result)
    path = quote_path(result.path)
    language = result.language or ""  # None only with `refused`
    language = _LANGUAGE_NAMES.get(language, language)
    total, shown = result.total, len(result.symbols)
    if total == 0:
        return f"{path} ({language}) defines nothing an outline lists."
    head = f"{path} ({language}): {plural(total, 'definition')}"
    if shown == 0:
        return f"{head}, but offset={result.offset} is past the end; use an offset below {total}."
    if shown < total:
        first, last = thousands(result.offset + 1), thousands(result.offset + shown)
        head += f"; showing {first}-{last}"
    lines = [head + " (line range, kind, name; nesting by indentation):"]
    width = max(len(_span(symbol)) for symbol in result.symbols)
    for symbol in result.symbols:
        indent = "  " * int(symbol.depth)
        lines.append(f"{_span(symbol):>{width}}  {indent}{symbol.kind} {symbol.name}")
    if result.next_offset is not None:
        lines.append(
            f"{plural(result.withheld, 'more definition')} not shown: call outline again with "
            f"offset={result.next_offset} for the next page."
        )
    if result.has_errors:
        lines.append(
            "Note: the parser met text it could not parse; definitions near it may be missing."
        )
    return "\n".join(lines)


def compact_outline(result: OutlineResult, budget: int) -> str | None:
    """The outline `read_file` adds to a page that stops before the end of a file, within
    `budget` characters, or None (no outline, or none fits). Deterministic: every definition
    when all fit; else those nested at most one level, else only the top level; else the first
    top-level ones that fit, with the number left out."""
    if result.refused is not None or not result.symbols:
        return None
    symbols = list(result.symbols)
    head = (
        f"Outline ({plural(result.total, 'definition')}; line, kind, name; call outline for "
        "line ranges"
    )

    def render(chosen: list[Any], left_out: int) -> str:
        tail = f"; {thousands(left_out)} nested or later ones not shown):" if left_out else "):"
        rows = [head + tail]
        rows += [f"{thousands(s.line):>6}  {'  ' * int(s.depth)}{s.kind} {s.name}" for s in chosen]
        return "\n".join(rows)

    everything = result.total
    for depth in (None, 1, 0):
        chosen = [s for s in symbols if depth is None or int(s.depth) <= depth]
        text = render(chosen, everything - len(chosen))
        if len(text) <= budget:
            return text
    top = [s for s in symbols if int(s.depth) == 0]
    while top:
        top.pop()
        text = render(top, everything - len(top))
        if len(text) <= budget and top:
            return text
    return None


def run_outline(
    context: ToolContext, args: dict[str, Any], limits: ToolLimits = DEFAULT_LIMITS
) -> ToolOutput:
    """Handler of `outline`."""

    def search(workspace: Workspace | Roots) -> OutlineResult:
        return workspace.outline(
            args["path"], offset=args["offset"], limit=args["limit"], cancel=context.cancel
        )

    def describe(result: OutlineResult) -> tuple[str, int]:
        return format_outline(result), result.total

    output = answer_search(context, "outline", args, search, describe)
    result = output.meta.get(ENGINE_RESULT_KEY)
    if result is not None and result.refused is not None:
        failed = result.refused not in ("no_parser", "binary", "too_large", "minified")
        return ToolOutput(
            output.text,
            meta={**output.meta, "refused": result.refused},
            code=codes.PARSE_FAILED if failed else codes.NO_OUTLINE,
            on_delivered=None if failed else output.on_delivered,
        )
    return output


def outline_tool(limits: ToolLimits = DEFAULT_LIMITS) -> ToolSpec:
    """`outline`, its definition generated from `limits`."""
    return ToolSpec(
        name="outline",
        description=outline_description(limits),
        parameters=outline_schema(limits),
        handler=functools.partial(run_outline, limits=limits),
        title="Outline a file",
        prepare=unquote_paths,
        results=(OutlineResult,),
        paging={"symbols": "count"},
        command=ToolCommand(
            name="outline",
            help="list a file's definitions",
            description="List one file's definitions (classes, functions, methods... Markdown "
            "headings) in source order with their line ranges, and print what a model would "
            "see (the outline tool).",
            epilog="exit status: 0 outline shown (also: a file without one, said in the text), "
            "2 usage or input error such as a missing file (one line on stderr)",
            positionals=("path",),
        ),
    )


#: This module's tool (`ripsight.tools.builtin_tools` finds the built-in tools by this name).
TOOL = outline_tool
