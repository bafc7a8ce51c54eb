"""`glob`: find files by name pattern (definition, handler, and the text the model sees)."""

from __future__ import annotations

from typing import Any, cast

from .._core import GlobResult
from ..limits import DEFAULT_LIMITS, ToolLimits
from ..names import quote_path
from ..roots import Roots
from ..types import ToolCommand, ToolContext, ToolOutput, ToolSpec
from ..workspace import Workspace
from ._common import (
    answer_search,
    check_types,
    hidden_note,
    include_ignored_property,
    limit_property,
    max_depth_property,
    offset_property,
    path_ignored_note,
    plural,
    resolved_maximum,
    skip_note,
    strings_property,
    thousands,
    unquote_paths,
    where_text,
)

__all__ = [
    "GLOB_DESCRIPTION",
    "GLOB_SCHEMA",
    "format_glob",
    "glob_description",
    "glob_schema",
    "glob_tool",
]


def glob_description(limits: ToolLimits = DEFAULT_LIMITS) -> str:
    """The model-facing description of `glob` under these limits."""
    return f"""\
Find files by name pattern. Use it to discover a project's layout or to locate files before \
reading or searching them. Ignore-aware like ripgrep (.gitignore, .ignore, .ripsightignore); \
hidden files are included; skip-set directories such as .git and node_modules are left out.

Pattern syntax: `**` matches across directories, `*` within one directory level (it never \
crosses "/"), `?` one character, `{{a,b}}` alternatives, `[abc]` a character class. The pattern \
is matched against paths relative to `path`.
Examples: "**/*.py" (Python files at any depth), "*.md" (top level only), \
"src/**/*.{{ts,tsx}}", "**/test_*.py", ".github/workflows/*.yml". A list applies each pattern \
in turn, the last that matches deciding, a leading ! excluding: ["**/*.ts", "!**/*.test.ts"]. \
type="rust" keeps ripgrep's file types, max_depth=1 only the files directly in `path`; \
include_ignored=true lists what .gitignore and other ignore files hide (counted otherwise).

Returns matching file paths relative to the workspace root, one per line, sorted by path \
(or newest first with sort="mtime"). At most `limit` paths (default {limits.glob_limit}) per \
call; the result states the exact total and which `offset` shows the next page. An empty \
result says how many files the directory holds."""


def glob_schema(limits: ToolLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """JSON Schema of `glob`'s arguments under these limits."""
    return {
        "type": "object",
        "properties": {
            "pattern": {
                **strings_property(
                    "Glob pattern matched against paths relative to `path`, e.g. "
                    '"**/*.py", "src/**/*.{ts,tsx}", "*.md". `*` never crosses "/"; use `**/` '
                    "to match at any depth. Or a list of patterns applied in order, the last "
                    "that matches deciding, a leading ! excluding (also what lies below a "
                    'directory it matches), e.g. ["**/*.py", "!**/test_*.py"].'
                ),
                "minLength": 1,
                "minItems": 1,
            },
            "path": {
                "type": "string",
                "description": "Directory to search in, relative to the workspace root. "
                "Default: the workspace root.",
            },
            "type": strings_property(
                "Only list files of this file type, or these types, like ripgrep's -t "
                '(names as rg --type-list gives them), e.g. "py", "rust", ["ts", "js"], "md". '
                "Default: all types."
            ),
            "max_depth": max_depth_property("list"),
            "include_ignored": include_ignored_property("list", "glob"),
            "limit": limit_property(
                limits.glob_limit,
                resolved_maximum(limits.glob_max_limit),
                "Maximum number of paths to return",
            ),
            "offset": offset_property(
                0, "Number of matching paths to skip, to page through a large result."
            ),
            "sort": {
                "type": "string",
                "enum": ["path", "mtime"],
                "default": "path",
                "description": 'Order of the paths: "path" (alphabetical) or "mtime" (most '
                'recently modified first). Default: "path".',
            },
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }


#: The definition under the SPEC section 5 defaults.
GLOB_DESCRIPTION = glob_description()
GLOB_SCHEMA: dict[str, Any] = glob_schema()


def format_glob(result: GlobResult, sort: str = "path", path: str | None = None) -> str:
    """The text a model sees for a `Workspace.glob` result (`path`: the call's)."""
    pattern = '", "'.join([result.pattern, *result.more_patterns])
    where = where_text(result.searched)
    # As grep says it: "under src" (the workspace root is "in" itself).
    at = "in the workspace root" if where == "the workspace root" else f"under {where.rstrip('/')}"
    shown = len(result.paths)
    total = result.total
    lines: list[str] = []
    order = " (newest first)" if sort == "mtime" else ""
    if total == 0:
        header = f'No files match "{pattern}" {at}'
        if result.files_in_scope is not None:
            held = result.files_in_scope
            header += f", which holds {plural(held, 'file') if held else 'no files'}"
        lines.append(header + ".")
    elif shown == 0:
        lines.append(
            f'{plural(total, "file")} {"matches" if total == 1 else "match"} "{pattern}" '
            f"{at}, but offset={result.offset} is past the end; use an offset below {total}."
        )
    elif shown == total:
        lines.append(
            f'{plural(total, "file")} {"matches" if total == 1 else "match"} "{pattern}" '
            f"{at}{order}:"
        )
    else:
        first = result.offset + 1
        last = result.offset + shown
        lines.append(
            f'{plural(total, "file")} match "{pattern}" {at}; showing '
            f"{thousands(first)}-{thousands(last)}{order}:"
        )
    lines.extend(quote_path(path) for path in result.paths)
    if result.next_offset is not None:
        lines.append(
            f"{thousands(result.withheld)} more not shown: call glob again with "
            f"offset={result.next_offset} for the next page."
        )
    if result.anywhere_pattern and result.anywhere_total:
        lines.append(
            f'Note: "*" never crosses "/", so "{pattern}" only matches at the top level of '
            f'{where}; "{result.anywhere_pattern}" matches '
            f"{plural(result.anywhere_total, 'file')} at any depth."
        )
    if result.incomplete:
        lines.append(
            "Incomplete: the time budget ran out before the walk finished, so the list and the "
            f"total cover only part of {where}. Narrow the search with a more specific pattern "
            "or path."
        )
    ignored_path = result.path_ignored_by
    if ignored_path is not None:
        lines.append(path_ignored_note(path or result.searched, ignored_path, "listed"))
    if total == 0 or ignored_path is not None:
        hidden = hidden_note(result.skipped, result.hidden_by, "list")
        if hidden:
            lines.append(hidden)
    note = skip_note(result.skipped, include_binary=False, nothing_found=total == 0)
    if note:
        lines.append(note)
    return "\n".join(lines)


def run_glob(context: ToolContext, args: dict[str, Any]) -> ToolOutput:
    """Handler of `glob`."""

    def search(workspace: Workspace | Roots) -> GlobResult:
        # A result merged from several roots (`merged.Record`) has the same fields.
        return cast(
            GlobResult,
            workspace.glob(
                args["pattern"],
                path=args.get("path") or None,
                limit=args["limit"],
                offset=args["offset"],
                sort=args["sort"],
                cancel=context.cancel,
                type=args.get("type"),
                max_depth=args.get("max_depth"),
                include_ignored=args["include_ignored"],
            ),
        )

    def describe(result: GlobResult) -> tuple[str, int]:
        return format_glob(result, sort=args["sort"], path=args.get("path")), result.total

    return answer_search(context, "glob", args, search, describe)


def glob_tool(limits: ToolLimits = DEFAULT_LIMITS) -> ToolSpec:
    """`glob`, its definition generated from `limits`."""
    return ToolSpec(
        name="glob",
        description=glob_description(limits),
        parameters=glob_schema(limits),
        handler=run_glob,
        title="Find files by pattern",
        prepare=unquote_paths,
        check=check_types,
        results=(GlobResult,),
        paging={"paths": "count"},
        command=ToolCommand(
            name="glob",
            help="find files by name pattern",
            description="Find files by glob pattern and print what a model would see. "
            '"**" crosses directories, "*" does not: "**/*.py" is every Python file, "*.py" '
            "only the top level.",
            epilog="exit status: 0 files found, 1 no file matches, 2 usage or input error "
            "(one line on stderr)",
            positionals=("pattern", "path"),
            short={"type": "-t", "max_depth": "-d", "include_ignored": "--no-ignore"},
            limit_flags=("--glob-limit",),
            found="total",
        ),
    )


#: This module's tool (`ripsight.tools.builtin_tools` finds the built-in tools by this name).
TOOL = glob_tool
