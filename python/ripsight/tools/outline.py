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
    line, end_line = symbol.line, symbol.end_line
    return f"{line:,}-{end_line:,}" if end_line > line else f"{line:,}"


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
    # Each symbol's fields read once (each read of an engine record's field makes an object).
    rows = [(_span(s), s.depth, s.kind, s.name) for s in result.symbols]
    width = max(len(span) for span, _, _, _ in rows)
    lines += [f"{span:>{width}}  {'  ' * depth}{kind} {name}" for span, depth, kind, name in rows]
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


#: The one-letter kinds of the compact outline's shorter forms (the header lists those used).
KIND_LETTERS = {
    "class": "c",
    "interface": "i",
    "trait": "t",
    "struct": "s",
    "union": "u",
    "enum": "e",
    "type": "T",
    "impl": "I",
    "module": "n",
    "function": "f",
    "method": "m",
    "macro": "M",
    "heading": "h",
}
#: Width of a row of the compact outline's shorter forms.
_ROW_CHARS = 100


def compact_outline(result: OutlineResult, budget: int) -> str | None:
    """The outline `read_file` adds to a page that stops before the end of a file, within
    `budget` characters, or None (no outline, or none fits).

    Deterministic, the most definitions first and then the most detail: every definition in
    the first form that fits: one per row (line, kind, name); else names with their lines,
    several to a row, children in parentheses after their container, the kind as a letter
    where it changes; else names only, each row after the line of its first name. Else the top
    level and as many nested ones as fit (the shallowest first, in source order), in the form
    that shows the most; else the first top-level names that fit. The header says how many are
    left out."""
    if result.refused is not None or not result.symbols:
        return None
    symbols = [(s.line, int(s.depth), str(s.kind), str(s.name)) for s in result.symbols]
    total = result.total
    for form in (_rows, _with_lines, _grouped):
        text = form(symbols, total)
        if len(text) <= budget:
            return text
    # The top level, and as many nested ones (the shallowest first, in source order) as fit,
    # in the form that shows the most of them.
    order = sorted(range(len(symbols)), key=lambda i: (symbols[i][1], i))
    shallowest = min(s[1] for s in symbols)
    top = sum(1 for s in symbols if s[1] == shallowest)
    best: tuple[int, str] | None = None
    for form in (_rows, _with_lines, _grouped):
        low, high = top, len(order)
        if len(form(_first(symbols, order, low), total)) > budget:
            continue
        while low < high:
            middle = (low + high + 1) // 2
            if len(form(_first(symbols, order, middle), total)) <= budget:
                low = middle
            else:
                high = middle - 1
        if best is None or low > best[0]:
            best = (low, form(_first(symbols, order, low), total))
    if best is not None:
        return best[1]
    # Not even the top level: its first names that fit.
    for count in range(top - 1, 0, -1):
        text = _grouped(_first(symbols, order, count), total)
        if len(text) <= budget:
            return text
    return None


def _first(
    symbols: list[tuple[int, int, str, str]], order: list[int], count: int
) -> list[tuple[int, int, str, str]]:
    """The first `count` symbols of `order`, in source order."""
    return [symbols[i] for i in sorted(order[:count])]


def _left_out(total: int, chosen: list[tuple[int, int, str, str]]) -> str:
    left = total - len(chosen)
    return f"; {thousands(left)} nested or later ones not shown" if left else ""


def _rows(chosen: list[tuple[int, int, str, str]], total: int) -> str:
    """One definition a row: line, kind, name, nesting by indentation."""
    head = (
        f"Outline ({plural(total, 'definition')}; line, kind, name; call outline for line "
        f"ranges{_left_out(total, chosen)}):"
    )
    rows = [f"{line:>6,}  {'  ' * depth}{kind} {name}" for line, depth, kind, name in chosen]
    return "\n".join([head, *rows])


def _pieces(
    chosen: list[tuple[int, int, str, str]], with_lines: bool
) -> tuple[list[tuple[int, str]], list[str]]:
    """The definitions as (line, text) pieces in source order: a name (``f name 120`` with
    `with_lines`), its kind's letter when it differs from the previous sibling's, children in
    parentheses after their container; a name repeated among its siblings without children of
    its own (a function under two ``#ifdef`` branches) is shown once (with each line:
    ``name 120/164``). Also the kinds whose letters appear, in order."""
    pieces: list[tuple[int, str]] = []
    kinds: list[str] = []
    # Per open level: the previous sibling's kind, and the piece of each sibling's name.
    kind_before: list[str] = []
    seen: list[dict[tuple[str, str], int]] = []
    # Per open level: whether a parenthesis opened it (not for a first definition nested
    # deeper than the ones after it).
    parenthesised: list[bool] = []
    base = min(depth for _, depth, _, _ in chosen)

    def close(levels: int) -> None:
        at, text = pieces[-1]
        pieces[-1] = (at, text + ")" * sum(parenthesised[-levels:]))
        del kind_before[-levels:], seen[-levels:], parenthesised[-levels:]

    for index, (line, depth, kind, name) in enumerate(chosen):
        level = depth - base
        if len(seen) > level + 1:
            close(len(seen) - level - 1)
        opening = max(0, level + 1 - len(seen))
        kind_before.extend([""] * opening)
        seen.extend({} for _ in range(opening))
        parenthesised.extend([bool(pieces)] * opening)
        has_children = index + 1 < len(chosen) and chosen[index + 1][1] > depth
        earlier = seen[level].get((kind, name))
        if earlier is not None and not opening and not has_children:
            if with_lines:
                at, text = pieces[earlier]
                cut = len(text.rstrip(")"))
                pieces[earlier] = (at, f"{text[:cut]}/{line}{text[cut:]}")
            continue
        text = name
        if kind_before[level] != kind:
            text = f"{KIND_LETTERS.get(kind, kind)} {name}"
            if kind not in kinds:
                kinds.append(kind)
        kind_before[level] = kind
        if with_lines:
            text += f" {line}"
        if opening and pieces:
            text = "(" * opening + text
        seen[level][(kind, name)] = len(pieces)
        pieces.append((line, text))
    if len(seen) > 1:
        close(len(seen) - 1)
    return pieces, kinds


def _legend(kinds: list[str]) -> str:
    return ", ".join(f"{KIND_LETTERS.get(kind, kind)} {kind}" for kind in kinds)


def _with_lines(chosen: list[tuple[int, int, str, str]], total: int) -> str:
    """Names with their lines, several to a row."""
    pieces, kinds = _pieces(chosen, with_lines=True)
    head = (
        f"Outline ({plural(total, 'definition')}: name line, (children), kind letter where it "
        f"changes: {_legend(kinds)}; call outline for ranges{_left_out(total, chosen)}):"
    )
    rows, row = [head], ""
    for _, text in pieces:
        if row and len(row) + len(text) + 2 > _ROW_CHARS:
            rows.append(row + ",")
            row = ""
        # A container's children follow it without a comma: "Tree 50 (m insert 52, ...)".
        row = (f"{row} {text}" if text.startswith("(") else f"{row}, {text}") if row else text
    rows.append(row)
    return "\n".join(rows)


def _grouped(chosen: list[tuple[int, int, str, str]], total: int) -> str:
    """Names only, each row after the line of its first name."""
    pieces, kinds = _pieces(chosen, with_lines=False)
    head = (
        f"Outline ({plural(total, 'definition')}: each row's first line, then names, "
        f"(children), kind letter where it changes: {_legend(kinds)}; call outline for lines"
        f"{_left_out(total, chosen)}):"
    )
    rows, row = [head], ""
    for line, text in pieces:
        if row and len(row) + len(text) + 1 > _ROW_CHARS:
            rows.append(row)
            row = ""
        row = f"{row} {text}" if row else f"{line:>6,}  {text}"
    rows.append(row)
    return "\n".join(rows)


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
