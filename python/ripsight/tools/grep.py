"""`grep`: search file contents with a regex (definition, handler, the text the model sees)."""

from __future__ import annotations

import functools
from typing import Any

from ..limits import DEFAULT_LIMITS, MAX_CONTEXT, ToolLimits
from ..names import quote_path
from ..types import ToolContext, ToolOutput, ToolSpec
from ..workspace import Workspace
from ._common import (
    answer_search,
    limit_property,
    offset_property,
    plural,
    resolved_maximum,
    skip_note,
    thousands,
    unquote_paths,
)

__all__ = [
    "GREP_DESCRIPTION",
    "GREP_SCHEMA",
    "format_grep",
    "grep_description",
    "grep_schema",
    "grep_tool",
    "run_grep",
]


def _page_header(totals: str, result: Any, shown: int, total: int, entries: str) -> str:
    """The line before a page of `shown` entries out of `total`: the totals, and which entries
    the page holds (or that its offset is past the end)."""
    if shown == 0:
        return f"{totals}, but offset={result.offset} is past the end; use an offset below {total}."
    if result.offset or result.withheld:
        first, last = thousands(result.offset + 1), thousands(result.offset + shown)
        return f"{totals}; showing {entries} {first}-{last}:"
    return f"{totals}:"


#: Characters of a pattern a result repeats (a pattern can be megabytes long).
_PATTERN_ECHO_CHARS = 200


def _shown_pattern(pattern: str) -> str:
    """The pattern in quotes, cut to `_PATTERN_ECHO_CHARS` characters with its length said."""
    if len(pattern) <= _PATTERN_ECHO_CHARS:
        return f'"{pattern}"'
    return f'"{pattern[:_PATTERN_ECHO_CHARS]}…" ({thousands(len(pattern))} characters)'


def _candidates_skipped(skipped: Any) -> int:
    """Files the search would have searched but passed over (skip counts other than the
    directories pruned by name)."""
    fields = ("binary", "denied", "unreadable", "special", "too_large", "line_too_long")
    return sum(int(getattr(skipped, field, 0)) for field in fields)


def grep_description(limits: ToolLimits = DEFAULT_LIMITS) -> str:
    """The model-facing description of `grep` under these limits."""
    return f"""\
Search file contents with a regular expression (Rust regex syntax, like ripgrep; linear time). \
Use it to find where something is defined or used. Ignore-aware like ripgrep; binary files are \
skipped and counted.

Examples: pattern="def parse_args", pattern="TODO|FIXME", pattern="fn \\w+_test", \
pattern="import (os|sys)". Escape regex characters such as ( [ . * + ? {{ | \\ or pass \
literal=true to search for the exact text. Narrow with `path` (a directory or file) and `glob` \
(file filter like ripgrep's -g: "*.py" matches file names at any depth, "src/**/*.rs" matches \
paths; a list such as ["*.ts", "!*.test.ts"] applies each in turn, the last match deciding).

Output (output_mode="content", the default): `path:line:text` for each matching line and \
`path-line-text` for context lines (context=2 shows 2 lines around each match; \
before_context=5 or after_context=10, like ripgrep's -B and -A, set one side), ordered by path \
then line; "--" separates non-adjacent groups. Lines are cut to {limits.grep_line_chars} characters (around the match). \
output_mode="files_with_matches" lists the files; "count" gives `path:count`. At most `limit` \
matches (default {limits.grep_limit}) per call; the result states the exact totals and which \
`offset` shows the next page."""


def grep_schema(limits: ToolLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """JSON Schema of `grep`'s arguments under these limits."""
    return {
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "minLength": 1,
                "description": "Regular expression (Rust regex syntax) to search for, e.g. "
                '"def main", "TODO|FIXME", "class \\w+Error". With literal=true: the exact '
                "text.",
            },
            "path": {
                "type": "string",
                "description": "File or directory to search, relative to the workspace root. "
                "Default: the workspace root.",
            },
            "glob": {
                "type": ["string", "array"],
                "items": {"type": "string", "minLength": 1},
                "description": "Only search files matching this glob, or these globs, like "
                'ripgrep\'s -g: "*.py" matches file names at any depth, "src/**/*.rs" '
                "matches paths, a leading / anchors at the workspace root, a leading ! excludes "
                '(directories too: "!tests/"). In a list the last glob that matches decides, '
                'e.g. ["*.py", "!test_*.py"]. Default: all files.',
            },
            "literal": {
                "type": "boolean",
                "default": False,
                "description": "Treat the pattern as plain text, not a regex. Default: false.",
            },
            "case_insensitive": {
                "type": "boolean",
                "default": False,
                "description": "Ignore upper/lower case. Default: false.",
            },
            "context": {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_CONTEXT,
                "default": 0,
                "description": "Lines of context to show before and after each match "
                f"(0-{MAX_CONTEXT}), like ripgrep's -C. Default: 0.",
            },
            "before_context": {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_CONTEXT,
                "description": "Lines of context to show before each match, like ripgrep's -B "
                "(overrides context on that side), e.g. 5 to see the lines leading to a call. "
                "Default: context.",
            },
            "after_context": {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_CONTEXT,
                "description": "Lines of context to show after each match, like ripgrep's -A "
                "(overrides context on that side), e.g. 10 to see a function's body after its "
                "signature. Default: context.",
            },
            "multiline": {
                "type": "boolean",
                "default": False,
                "description": "Let a match span several lines (write \\n in the pattern for "
                "a line break). Default: false.",
            },
            "output_mode": {
                "type": "string",
                "enum": ["content", "files_with_matches", "count"],
                "default": "content",
                "description": '"content": matching lines as path:line:text; '
                '"files_with_matches": only the paths of files that match; "count": matches '
                'per file as path:count. Default: "content".',
            },
            "limit": limit_property(
                limits.grep_limit,
                resolved_maximum(limits.grep_max_limit),
                "Maximum number of matches (or files, in the file modes) to return",
            ),
            "offset": offset_property(
                0, "Number of matches (or files) to skip, to page through a large result."
            ),
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }


#: The definition under the SPEC section 5 defaults.
GREP_DESCRIPTION = grep_description()
GREP_SCHEMA: dict[str, Any] = grep_schema()


def format_grep(
    result: Any,
    *,
    context: int = 0,
    path: str | None = None,
    glob: str | list[str] | None = None,
    case_insensitive: bool = False,
    line_chars: int = DEFAULT_LIMITS.grep_line_chars,
    read_line_chars: int = DEFAULT_LIMITS.read_line_chars,
) -> str:
    """The text a model sees for a `Workspace.grep` result.

    `line_chars` is the cap the search applied and `read_line_chars` read_file's, for the note
    on cut lines.
    """
    pattern = _shown_pattern(result.pattern)
    scope = ""
    if path:
        scope += f" under {quote_path(path.rstrip('/'))}"
    globs = [glob] if isinstance(glob, str) else list(glob or [])
    if globs:
        scope += " in files matching " + ", ".join(f'"{g}"' for g in globs)
    searched = f"{plural(result.files_searched, 'file')} searched"
    mode = result.output_mode
    lines: list[str] = []
    matches = result.total_matches
    files = result.total_files
    nothing = matches == 0
    if nothing:
        text = f"No matches for {pattern}{scope} ({searched})."
        if result.files_searched == 0 and not result.incomplete:
            if _candidates_skipped(result.skipped):
                text += " Every file in scope was skipped (see below)."
            else:
                text += " No file was searched: check path and glob."
        if not case_insensitive and any(c.isalpha() for c in result.pattern):
            text += " The search is case-sensitive; pass case_insensitive=true to ignore case."
        lines.append(text)
    elif mode == "content":
        shown = sum(1 for line in result.lines if line.is_match)
        totals = (
            f"{plural(matches, 'match', 'matches')} in {plural(files, 'file')} for "
            f"{pattern}{scope} ({searched})"
        )
        lines.append(_page_header(totals, result, shown, matches, "matches"))
        previous: tuple[str, int] | None = None
        cut = 0
        for line in result.lines:
            if (
                context > 0
                and previous is not None
                and (line.path != previous[0] or line.line != previous[1] + 1)
            ):
                lines.append("--")
            sep = ":" if line.is_match else "-"
            lines.append(f"{quote_path(line.path)}{sep}{line.line}{sep}{line.text}")
            cut += bool(line.cut)
            previous = (line.path, line.line)
        if result.next_offset is not None:
            lines.append(
                f"{plural(result.withheld, 'more match', 'more matches')} not shown: call grep again with "
                f"offset={result.next_offset} for the next page, or narrow the search with "
                "path or glob."
            )
        if cut:
            lines.append(
                f"{plural(cut, 'line')} longer than {thousands(line_chars)} characters "
                f"{'is' if cut == 1 else 'are'} shown in part (around the match); read_file "
                f"shows up to {thousands(read_line_chars)} characters per line."
            )
    else:
        shown = len(result.files)
        entry = "files" if mode == "files_with_matches" else "counts"
        totals = (
            f"{plural(files, 'file')} {'matches' if files == 1 else 'match'} {pattern}{scope} "
            f"({plural(matches, 'matching line')}, {searched})"
        )
        lines.append(_page_header(totals, result, shown, files, entry))
        for item in result.files:
            shown_path = quote_path(item.path)
            lines.append(
                shown_path if mode == "files_with_matches" else f"{shown_path}:{item.count}"
            )
        if result.next_offset is not None:
            lines.append(
                f"{plural(result.withheld, 'more file')} not shown: call grep again with "
                f"offset={result.next_offset} for the next page."
            )
    if result.withheld_key_blocks:
        lines.append(
            f"Withheld: {plural(result.withheld_key_lines, 'line')} of "
            f"{plural(result.withheld_key_blocks, 'private-key block')} in these files; the "
            "secrets policy never shows key material, and matches inside it are not counted."
        )
    if result.incomplete:
        lines.append(
            f"Incomplete: the time budget ran out after {searched}, so there may be more "
            "matches and the totals are lower bounds. Narrow the search with path or glob."
        )
    note = skip_note(result.skipped, include_binary=True, nothing_found=nothing)
    if note:
        lines.append(note)
    return "\n".join(lines)


def run_grep(
    context: ToolContext, args: dict[str, Any], limits: ToolLimits = DEFAULT_LIMITS
) -> ToolOutput:
    """Handler of `grep`; lines are cut to `limits.grep_line_chars`."""

    def search(workspace: Workspace) -> Any:
        return workspace.grep(
            args["pattern"],
            path=args.get("path") or None,
            glob=args.get("glob") or None,
            literal=args["literal"],
            case_insensitive=args["case_insensitive"],
            context=args["context"],
            before_context=args.get("before_context"),
            after_context=args.get("after_context"),
            multiline=args["multiline"],
            output_mode=args["output_mode"],
            limit=args["limit"],
            offset=args["offset"],
            max_line_chars=limits.grep_line_chars,
            cancel=context.cancel,
        )

    def describe(result: Any) -> tuple[str, int]:
        sides = (args.get("before_context"), args.get("after_context"))
        text = format_grep(
            result,
            context=max(args["context"] if side is None else side for side in sides),
            path=args.get("path"),
            glob=args.get("glob"),
            case_insensitive=args["case_insensitive"],
            line_chars=limits.grep_line_chars,
            read_line_chars=limits.read_line_chars,
        )
        return text, result.total_matches

    return answer_search(context, "grep", args, search, describe)


def grep_tool(limits: ToolLimits = DEFAULT_LIMITS) -> ToolSpec:
    """`grep`, its definition and line cap generated from `limits`."""
    return ToolSpec(
        name="grep",
        description=grep_description(limits),
        parameters=grep_schema(limits),
        handler=functools.partial(run_grep, limits=limits),
        title="Search file contents",
        prepare=unquote_paths,
    )
