"""`grep`: search file contents with a regex (definition, handler, the text the model sees)."""

from __future__ import annotations

import functools
from typing import Any, cast

from .._core import GrepResult, SkipCounts
from ..limits import DEFAULT_LIMITS, MAX_CONTEXT, ToolLimits
from ..names import quote_path
from ..roots import Roots
from ..types import ToolCommand, ToolContext, ToolOutput, ToolSpec, result_schema
from ..workspace import Workspace
from ._common import (
    answer_search,
    check_types,
    engine_default,
    flag_property,
    hidden_note,
    include_ignored_property,
    json_text,
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
)

__all__ = [
    "GREP_DESCRIPTION",
    "GREP_SCHEMA",
    "format_grep",
    "grep_description",
    "grep_schema",
    "grep_tool",
]


def _page_header(totals: str, result: GrepResult, shown: int, total: int, entries: str) -> str:
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


def _candidates_skipped(skipped: SkipCounts) -> int:
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
literal=true to search for the exact text. Narrow with `path` (a directory or file), `glob` \
(file filter like ripgrep's -g: "*.py" matches file names at any depth, "src/**/*.rs" matches \
paths; a list such as ["*.ts", "!*.test.ts"] applies each in turn, the last match deciding), \
`type` (ripgrep's file types: type="py", type=["ts", "js"]; type_not="md" leaves some out) and \
`max_depth` (max_depth=1: only the files directly in `path`). max_count=1 shows the first \
match of each file; invert_match=true the lines that do NOT match. Files hidden by .gitignore \
and other ignore files are skipped and counted; include_ignored=true searches them too.

Output (output_mode="content", the default): `path:line:text` for each matching line and \
`path-line-text` for context lines (context=2 shows 2 lines around each match; \
before_context=5 or after_context=10, like ripgrep's -B and -A, set one side), ordered by path \
then line; "--" separates non-adjacent groups. Lines are cut to {limits.grep_line_chars} characters (around the match). \
output_mode="files_with_matches" lists the files; "count" gives `path:count`; \
"files_without_match" lists the files searched that do not match. At most `limit` matches \
(default {limits.grep_limit}) per call; the result states the exact totals and which `offset` \
shows the next page."""


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
            "glob": strings_property(
                "Only search files matching this glob, or these globs, like ripgrep's -g: "
                '"*.py" matches file names at any depth, "src/**/*.rs" matches paths, a leading '
                "/ anchors at the workspace root, a leading ! excludes (directories too: "
                '"!tests/"). In a list the last glob that matches decides, e.g. ["*.py", '
                '"!test_*.py"]. Default: all files.'
            ),
            "type": strings_property(
                "Only search files of this file type, or these types, like ripgrep's -t "
                '(names as rg --type-list gives them), e.g. "py", "rust", ["ts", "js"], "md", '
                '"json", "yaml", "sh", "cpp", "java", "go". A file that glob names is searched '
                "whatever its type, as in ripgrep. Default: all types."
            ),
            "type_not": strings_property(
                "Do not search files of this file type, or these types, like ripgrep's -T, "
                'e.g. "md" or ["json", "lock"]. Default: none left out.'
            ),
            "literal": flag_property(
                "grep", "literal", "Treat the pattern as plain text, not a regex."
            ),
            "case_insensitive": flag_property(
                "grep", "case_insensitive", "Ignore upper/lower case."
            ),
            "context": {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_CONTEXT,
                "default": engine_default("grep", "context"),
                "description": "Lines of context to show before and after each match "
                f"(0-{MAX_CONTEXT}), like ripgrep's -C. Default: "
                f"{json_text(engine_default('grep', 'context'))}.",
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
            "multiline": flag_property(
                "grep",
                "multiline",
                "Let a match span several lines (write \\n in the pattern for a line break).",
            ),
            "max_count": {
                "type": "integer",
                "minimum": 0,
                "description": "Stop searching a file after this many matching lines (matches, "
                "with multiline=true), like ripgrep's -m, e.g. 1 for the first match of each "
                "file; 0 searches nothing, as rg -m 0. Default: no limit.",
            },
            "invert_match": flag_property(
                "grep",
                "invert_match",
                "Show the lines that do NOT match the pattern, like ripgrep's -v (counted, paged "
                "and shown with context as matches are).",
            ),
            "max_depth": max_depth_property("search"),
            "include_ignored": include_ignored_property("search", "grep"),
            "output_mode": {
                "type": "string",
                "enum": ["content", "files_with_matches", "count", "files_without_match"],
                "default": "content",
                "description": '"content": matching lines as path:line:text; '
                '"files_with_matches": only the paths of files that match; "count": matches '
                'per file as path:count; "files_without_match": the paths of files searched '
                'that do not match, like ripgrep\'s --files-without-match. Default: "content".',
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


def _listed(value: str | list[str] | None) -> list[str]:
    return [value] if isinstance(value, str) else list(value or [])


def _scope(
    path: str | None,
    glob: str | list[str] | None,
    types: list[str],
    types_not: list[str],
    max_depth: int | None,
) -> str:
    """Where a search looked, as a clause of its header."""
    scope = ""
    if path:
        scope += f" under {quote_path(path.rstrip('/'))}"
    globs = _listed(glob)
    if globs:
        scope += " in files matching " + ", ".join(f'"{g}"' for g in globs)
    if types:
        scope += (" of type " if globs else " in files of type ") + ", ".join(types)
    if types_not:
        scope += " excluding type " + ", ".join(types_not)
    if max_depth is not None:
        scope += f" at most {plural(max_depth, 'level')} deep"
    return scope


def _nothing_found(
    result: GrepResult,
    pattern: str,
    scope: str,
    searched: str,
    invert: bool,
    filters: list[str],
    types: list[str] | None = None,
) -> str:
    """The first line of a search that found nothing (`types`: those the call named)."""
    if invert:
        text = f"No line fails to match {pattern}{scope} ({searched})."
    else:
        text = f"No matches for {pattern}{scope} ({searched})."
    if result.files_searched == 0 and not result.incomplete:
        if types:
            # The type filter leaves nothing whatever else was skipped: say that first.
            text += f" No file in scope is of type {' or '.join(types)}."
        elif _candidates_skipped(result.skipped):
            text += " Every file in scope was skipped (see below)."
        elif result.skipped.ignored_by_rules:
            text += " Ignore rules hid every file in scope (see below)."
        else:
            text += f" No file was searched: check {' and '.join(filters)}."
    return text


def _files_without_match(
    result: GrepResult, pattern: str, scope: str, searched: str, invert: bool, lines: list[str]
) -> int:
    """The lines of a files_without_match page; returns its entries' total."""
    total = int(result.files_searched - result.total_files)
    if total == 0:
        has = "has a line not matching" if invert else "matches"
        lines.append(f"Every file searched {has} {pattern}{scope} ({searched}).")
        return total
    if invert:
        totals = f"In {plural(total, 'file')} every line matches {pattern}{scope} ({searched})"
    else:
        verb = "does" if total == 1 else "do"
        totals = f"{plural(total, 'file')} {verb} not match {pattern}{scope} ({searched})"
    lines.append(_page_header(totals, result, len(result.files), total, "files"))
    lines.extend(quote_path(item.path) for item in result.files)
    if result.next_offset is not None:
        lines.append(
            f"{plural(result.withheld, 'more file')} not shown: call grep again with "
            f"offset={result.next_offset} for the next page."
        )
    return total


def format_grep(
    result: GrepResult,
    *,
    context: int = 0,
    path: str | None = None,
    glob: str | list[str] | None = None,
    case_insensitive: bool = False,
    line_chars: int = DEFAULT_LIMITS.grep_line_chars,
    read_line_chars: int = DEFAULT_LIMITS.read_line_chars,
    type: str | list[str] | None = None,
    type_not: str | list[str] | None = None,
    max_depth: int | None = None,
    max_count: int | None = None,
    invert_match: bool = False,
) -> str:
    """The text a model sees for a `Workspace.grep` result.

    `line_chars` is the cap the search applied and `read_line_chars` read_file's, for the note
    on cut lines; the other arguments are the call's, which the text names.
    """
    pattern = _shown_pattern(result.pattern)
    types, types_not = _listed(type), _listed(type_not)
    scope = _scope(path, glob, types, types_not, max_depth)
    if max_count == 0:
        return (
            f"No matches for {pattern}{scope}: max_count=0 asks for no match per file, so "
            "nothing was searched (as rg -m 0). Call grep without max_count to search, or "
            "with max_count=1 for the first match of each file."
        )
    searched = f"{plural(result.files_searched, 'file')} searched"
    if max_count is not None:
        searched += f", at most {plural(max_count, 'match', 'matches')} per file"
    invert = invert_match
    mode = result.output_mode
    lines: list[str] = []
    matches = result.total_matches
    files = result.total_files
    entries = matches
    if mode == "files_without_match":
        entries = _files_without_match(result, pattern, scope, searched, invert, lines)
    elif matches == 0:
        filters = ["path", "glob", *(["type"] if types or types_not else [])]
        filters += ["max_depth"] if max_depth is not None else []
        text = _nothing_found(result, pattern, scope, searched, invert, filters, types)
        if not (case_insensitive or invert) and any(c.isalpha() for c in result.pattern):
            text += " The search is case-sensitive; pass case_insensitive=true to ignore case."
        lines.append(text)
    elif mode == "content":
        shown = sum(1 for line in result.lines if line.counted)
        if invert:
            totals = (
                f"{plural(matches, 'line')} not matching {pattern} in "
                f"{plural(files, 'file')}{scope} ({searched})"
            )
        else:
            totals = (
                f"{plural(matches, 'match', 'matches')} in {plural(files, 'file')} for "
                f"{pattern}{scope} ({searched})"
            )
        lines.append(_page_header(totals, result, shown, matches, "lines" if invert else "matches"))
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
            more = (
                plural(result.withheld, "more line")
                if invert
                else plural(result.withheld, "more match", "more matches")
            )
            lines.append(
                f"{more} not shown: call grep again with "
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
        if invert:
            totals = (
                f"{plural(files, 'file')} {'has' if files == 1 else 'have'} lines not matching "
                f"{pattern}{scope} ({plural(matches, 'such line')}, {searched})"
            )
        else:
            totals = (
                f"{plural(files, 'file')} {'matches' if files == 1 else 'match'} "
                f"{pattern}{scope} ({plural(matches, 'matching line')}, {searched})"
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
    nothing = entries == 0
    if result.withheld_key_blocks:
        blocks = result.withheld_key_blocks
        block = "a private-key block" if blocks == 1 else f"{blocks} private-key blocks"
        lines.append(
            f"Withheld: {plural(result.withheld_key_lines, 'line')} of {block} in "
            f"{plural(result.withheld_key_files, 'file')} "
            f"{'was' if result.withheld_key_lines == 1 else 'were'} not searched; the secrets "
            "policy never shows key material, so text inside it is neither matched nor counted."
        )
    if result.incomplete:
        lines.append(
            f"Incomplete: the time budget ran out after {searched}, so there may be more "
            "matches and the totals are lower bounds. Narrow the search with path or glob."
        )
    ignored_path = result.path_ignored_by
    if ignored_path is not None:
        lines.append(path_ignored_note(path or "", ignored_path, "searched"))
    if nothing or ignored_path is not None:
        hidden = hidden_note(result.skipped, result.hidden_by, "search")
        if hidden:
            lines.append(hidden)
    note = skip_note(result.skipped, include_binary=True, nothing_found=nothing)
    if note:
        lines.append(note)
    return "\n".join(lines)


def run_grep(
    context: ToolContext, args: dict[str, Any], limits: ToolLimits = DEFAULT_LIMITS
) -> ToolOutput:
    """Handler of `grep`; lines are cut to `limits.grep_line_chars`."""

    def search(workspace: Workspace | Roots) -> GrepResult:
        # A result merged from several roots (`merged.Record`) has the same fields.
        return cast(
            GrepResult,
            workspace.grep(
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
                type=args.get("type"),
                type_not=args.get("type_not"),
                max_count=args.get("max_count"),
                invert_match=args["invert_match"],
                max_depth=args.get("max_depth"),
                include_ignored=args["include_ignored"],
            ),
        )

    def describe(result: GrepResult) -> tuple[str, int]:
        sides = (args.get("before_context"), args.get("after_context"))
        text = format_grep(
            result,
            context=max(args["context"] if side is None else side for side in sides),
            path=args.get("path"),
            glob=args.get("glob"),
            case_insensitive=args["case_insensitive"],
            line_chars=limits.grep_line_chars,
            read_line_chars=limits.read_line_chars,
            type=args.get("type"),
            type_not=args.get("type_not"),
            max_depth=args.get("max_depth"),
            max_count=args.get("max_count"),
            invert_match=args["invert_match"],
        )
        if result.output_mode == "files_without_match":
            return text, result.files_searched - result.total_files
        return text, result.total_matches

    return answer_search(context, "grep", args, search, describe)


def grep_tool(limits: ToolLimits = DEFAULT_LIMITS) -> ToolSpec:
    """`grep`, its definition and line cap generated from `limits`."""
    results = (GrepResult,)
    schema = result_schema(results)
    assert schema is not None
    text = schema["properties"]["lines"]["items"]["properties"]["text"]
    text["description"] = (
        f"The line, cut to {limits.grep_line_chars} characters around the match (cut parts are "
        "replaced by …)."
    )
    return ToolSpec(
        name="grep",
        description=grep_description(limits),
        parameters=grep_schema(limits),
        handler=functools.partial(run_grep, limits=limits),
        title="Search file contents",
        prepare=unquote_paths,
        check=check_types,
        results=results,
        output_schema=schema,
        paging={"lines": "matches", "files": "count"},
        command=ToolCommand(
            name="grep",
            help="search file contents with a regex",
            description="Search file contents with a Rust regex (ripgrep syntax) and print "
            "what a model would see: path:line:text, ordered by path then line.",
            epilog="exit status: 0 matches found, 1 no match, 2 usage or input error such as "
            "an invalid regex (one line on stderr)",
            positionals=("pattern", "path"),
            short={
                "glob": "-g",
                "literal": "-F",
                "case_insensitive": "-i",
                "context": "-C",
                "before_context": "-B",
                "after_context": "-A",
                "multiline": "-U",
                "type": "-t",
                "type_not": "-T",
                "max_count": "-m",
                "invert_match": "-v",
                "max_depth": "-d",
                "include_ignored": "--no-ignore",
            },
            shortcuts={
                "output_mode": (
                    ("-l", "--files-with-matches", "files_with_matches"),
                    ("-c", "--count", "count"),
                    ("", "--files-without-match", "files_without_match"),
                )
            },
            limit_flags=("--grep-limit", "--grep-line-chars"),
            found="total_matches",
        ),
    )


#: This module's tool (`ripsight.tools.builtin_tools` finds the built-in tools by this name).
TOOL = grep_tool
