"""The three built-in tools: model-facing definitions, handlers, and the text the model sees.

    >>> [spec.name for spec in builtin_tools()]
    ['glob', 'grep', 'read_file']

The handlers call `Workspace` (the Rust engine does every walk, search and read) and format its
typed results. `format_glob`, `format_grep` and `format_read` are public so the CLI can print
exactly what a model would see.
"""

from __future__ import annotations

import functools
import os
from typing import Any

from .errors import InvalidArgumentError
from .limits import DEFAULT_LIMITS, MAX_CONTEXT, MAX_OFFSET, ToolLimits
from .registry import ReadRecord, ToolContext
from .types import ToolOutput, ToolSpec

__all__ = [
    "ENGINE_RESULT_KEY",
    "GLOB_SCHEMA",
    "GREP_SCHEMA",
    "READ_FILE_SCHEMA",
    "builtin_tools",
    "format_glob",
    "format_grep",
    "format_read",
    "glob_description",
    "glob_schema",
    "glob_tool",
    "grep_description",
    "grep_schema",
    "grep_tool",
    "read_file_description",
    "read_file_schema",
    "read_file_tool",
]

# Descriptions and schemas are generated from a `ToolLimits`, so every number a model reads
# (defaults, maxima, line caps) is the one the tool applies.


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
"src/**/*.{{ts,tsx}}", "**/test_*.py", ".github/workflows/*.yml".

Returns matching file paths relative to the workspace root, one per line, sorted by path \
(or newest first with sort="mtime"). At most `limit` paths (default {limits.glob_limit}) per \
call; the result states the exact total and which `offset` shows the next page. An empty \
result says how many files the directory holds."""


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
paths).

Output (output_mode="content", the default): `path:line:text` for each matching line and \
`path-line-text` for context lines, ordered by path then line; "--" separates non-adjacent \
groups. Lines are cut to {limits.grep_line_chars} characters (around the match). \
output_mode="files_with_matches" lists the files; "count" gives `path:count`. At most `limit` \
matches (default {limits.grep_limit}) per call; the result states the exact totals and which \
`offset` shows the next page."""


def read_file_description(limits: ToolLimits = DEFAULT_LIMITS) -> str:
    """The model-facing description of `read_file` under these limits."""
    return f"""\
Read a text file's lines, numbered like `cat -n` (line number, tab, text). Use it after glob or \
grep to see code in context.

Reads `limit` lines (default {limits.read_limit}) starting at line `offset` (1-based, default \
1); the header states the range and the file's total line count, and when more follows the \
result says which `offset` reads on. Lines over {limits.read_line_chars} characters are cut, \
saying how long they were. Binary files are not dumped (the result gives size and type). The \
header names the encoding and line-ending style when they are not plain UTF-8 with LF. Paths \
are relative to the workspace root (absolute paths inside it work too); files outside the root \
or covered by the secrets policy cannot be read. To read a large file, read a range around the \
line grep found."""


#: `ToolResult.meta` key holding the engine's typed result (GlobResult, GrepResult, ReadResult)
#: of a successful call, for front ends that return structured data (MCP, `ripsight --json`).
ENGINE_RESULT_KEY = "engine_result"

def _maximum(value: int | None) -> int:
    assert value is not None, "ToolLimits resolves every maximum"
    return value


def _limit_property(default: int, maximum: int, what: str) -> dict[str, Any]:
    return {
        "type": "integer",
        "minimum": 1,
        "maximum": maximum,
        "default": default,
        "description": f"{what} (1-{maximum}). Default: {default}.",
    }


def _offset_property(first: int, description: str) -> dict[str, Any]:
    """`offset`: where a page starts (`first` is the smallest and default value)."""
    return {
        "type": "integer",
        "minimum": first,
        "maximum": MAX_OFFSET,
        "default": first,
        "description": f"{description} Default: {first}.",
    }


def glob_schema(limits: ToolLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """JSON Schema of `glob`'s arguments under these limits."""
    return {
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "minLength": 1,
                "description": 'Glob pattern matched against paths relative to `path`, e.g. '
                '"**/*.py", "src/**/*.{ts,tsx}", "*.md". `*` never crosses "/"; use `**/` to '
                "match at any depth.",
            },
            "path": {
                "type": "string",
                "description": "Directory to search in, relative to the workspace root. "
                "Default: the workspace root.",
            },
            "limit": _limit_property(
                limits.glob_limit,
                _maximum(limits.glob_max_limit),
                "Maximum number of paths to return",
            ),
            "offset": _offset_property(
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


def grep_schema(limits: ToolLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """JSON Schema of `grep`'s arguments under these limits."""
    return {
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "minLength": 1,
                "description": 'Regular expression (Rust regex syntax) to search for, e.g. '
                '"def main", "TODO|FIXME", "class \\w+Error". With literal=true: the exact '
                "text.",
            },
            "path": {
                "type": "string",
                "description": "File or directory to search, relative to the workspace root. "
                "Default: the workspace root.",
            },
            "glob": {
                "type": "string",
                "description": 'Only search files matching this glob, like ripgrep\'s -g: '
                '"*.py" matches file names at any depth, "src/**/*.rs" matches paths. Default: '
                "all files.",
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
                f"(0-{MAX_CONTEXT}). Default: 0.",
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
            "limit": _limit_property(
                limits.grep_limit,
                _maximum(limits.grep_max_limit),
                "Maximum number of matches (or files, in the file modes) to return",
            ),
            "offset": _offset_property(
                0, "Number of matches (or files) to skip, to page through a large result."
            ),
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }


def read_file_schema(limits: ToolLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """JSON Schema of `read_file`'s arguments under these limits."""
    return {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "minLength": 1,
                "description": 'Path of the file to read, relative to the workspace root, e.g. '
                '"src/app.py".',
            },
            "offset": _offset_property(1, "1-based number of the first line to read."),
            "limit": _limit_property(
                limits.read_limit,
                _maximum(limits.read_max_limit),
                "Maximum number of lines to read",
            ),
        },
        "required": ["path"],
        "additionalProperties": False,
    }


#: The definitions under the SPEC section 5 defaults (what `default_registry(root)` exports).
GLOB_DESCRIPTION = glob_description()
GREP_DESCRIPTION = grep_description()
READ_FILE_DESCRIPTION = read_file_description()
GLOB_SCHEMA: dict[str, Any] = glob_schema()
GREP_SCHEMA: dict[str, Any] = grep_schema()
READ_FILE_SCHEMA: dict[str, Any] = read_file_schema()


# -- formatting ----------------------------------------------------------------------------------


def _n(value: int) -> str:
    return f"{value:,}"


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{_n(count)} {word if count == 1 else (plural or word + 's')}"


def _where(searched: str | None) -> str:
    searched = (searched or "").strip("/")
    return "the workspace root" if searched in ("", ".") else f"{searched}/"


def _size(size: int) -> str:
    if size < 10 * 1024:
        return _plural(size, "byte")
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor:
            return f"{size / factor:.1f} {unit}, {_n(size)} bytes"
    return _plural(size, "byte")  # pragma: no cover


def _skip_parts(skipped: Any, include_binary: bool) -> list[str]:
    parts: list[str] = []
    if include_binary and getattr(skipped, "binary", 0):
        parts.append(_plural(skipped.binary, "binary file"))
    if getattr(skipped, "denied", 0):
        parts.append(f"{_plural(skipped.denied, 'file')} denied by the secrets policy")
    if getattr(skipped, "unreadable", 0):
        parts.append(f"{_plural(skipped.unreadable, 'unreadable entry', 'unreadable entries')}")
    if getattr(skipped, "special", 0):
        parts.append(f"{_plural(skipped.special, 'special file')} (FIFO, socket, device)")
    if getattr(skipped, "too_large", 0):
        parts.append(f"{_plural(skipped.too_large, 'file')} too large to search")
    if getattr(skipped, "line_too_long", 0):
        parts.append(f"{_plural(skipped.line_too_long, 'file')} with a line too long to search")
    if getattr(skipped, "outside_root", 0):
        parts.append(f"{_plural(skipped.outside_root, 'symlink')} pointing outside the root")
    return parts


def _skip_note(skipped: Any, include_binary: bool, nothing_found: bool) -> str | None:
    parts = _skip_parts(skipped, include_binary)
    ignored = getattr(skipped, "ignored", 0)
    if nothing_found and ignored:
        # The engine counts pruned skip-set directories here (files hidden by ignore files
        # are dropped inside the walker, uncounted).
        parts.append(
            f"{_plural(ignored, 'directory', 'directories')} skipped by name (such as .git and "
            "node_modules)"
        )
    if not parts:
        return None
    return "Skipped: " + ", ".join(parts) + "."


def format_glob(result: Any, sort: str = "path") -> str:
    """The text a model sees for a `Workspace.glob` result."""
    pattern = result.pattern
    where = _where(result.searched)
    shown = len(result.paths)
    total = result.total
    lines: list[str] = []
    order = " (newest first)" if sort == "mtime" else ""
    if total == 0:
        header = f'No files match "{pattern}" in {where}'
        if result.files_in_scope is not None:
            held = result.files_in_scope
            header += f", which holds {_plural(held, 'file') if held else 'no files'}"
        lines.append(header + ".")
    elif shown == 0:
        lines.append(
            f'{_plural(total, "file")} {"matches" if total == 1 else "match"} "{pattern}" in '
            f"{where}, but offset={result.offset} is past the end; use an offset below {total}."
        )
    elif shown == total:
        lines.append(
            f'{_plural(total, "file")} {"matches" if total == 1 else "match"} "{pattern}" in '
            f"{where}{order}:"
        )
    else:
        first = result.offset + 1
        last = result.offset + shown
        lines.append(
            f'{_plural(total, "file")} match "{pattern}" in {where}; showing '
            f"{_n(first)}-{_n(last)}{order}:"
        )
    lines.extend(result.paths)
    if result.next_offset is not None:
        lines.append(
            f"{_n(result.withheld)} more not shown: call glob again with "
            f"offset={result.next_offset} for the next page."
        )
    if result.anywhere_pattern and result.anywhere_total:
        lines.append(
            f'Note: "*" never crosses "/", so "{pattern}" only matches at the top level of '
            f'{where}; "{result.anywhere_pattern}" matches '
            f"{_plural(result.anywhere_total, 'file')} at any depth."
        )
    if result.incomplete:
        lines.append(
            "Incomplete: the time budget ran out before the walk finished, so the list and the "
            f"total cover only part of {where}. Narrow the search with a more specific pattern "
            "or path."
        )
    note = _skip_note(result.skipped, include_binary=False, nothing_found=total == 0)
    if note:
        lines.append(note)
    return "\n".join(lines)


def format_grep(
    result: Any,
    *,
    context: int = 0,
    path: str | None = None,
    glob: str | None = None,
    case_insensitive: bool = False,
    line_chars: int = DEFAULT_LIMITS.grep_line_chars,
    read_line_chars: int = DEFAULT_LIMITS.read_line_chars,
) -> str:
    """The text a model sees for a `Workspace.grep` result.

    `line_chars` is the cap the search applied and `read_line_chars` read_file's, for the note
    on cut lines.
    """
    pattern = f'"{result.pattern}"'
    scope = ""
    if path:
        scope += f" under {path.rstrip('/')}"
    if glob:
        scope += f' in files matching "{glob}"'
    searched = f"{_plural(result.files_searched, 'file')} searched"
    mode = result.output_mode
    lines: list[str] = []
    matches = result.total_matches
    files = result.total_files
    nothing = matches == 0
    if nothing:
        text = f"No matches for {pattern}{scope} ({searched})."
        if result.files_searched == 0 and not result.incomplete:
            text += " No file was searched: check path and glob."
        if not case_insensitive and any(c.isalpha() for c in result.pattern):
            text += " The search is case-sensitive; pass case_insensitive=true to ignore case."
        lines.append(text)
    elif mode == "content":
        shown = sum(1 for line in result.lines if line.is_match)
        totals = (
            f"{_plural(matches, 'match', 'matches')} in {_plural(files, 'file')} for "
            f"{pattern}{scope} ({searched})"
        )
        if shown == 0:
            lines.append(
                f"{totals}, but offset={result.offset} is past the end; use an offset below "
                f"{matches}."
            )
        elif result.offset or result.withheld:
            lines.append(
                f"{totals}; showing matches {_n(result.offset + 1)}-"
                f"{_n(result.offset + shown)}:"
            )
        else:
            lines.append(f"{totals}:")
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
            lines.append(f"{line.path}{sep}{line.line}{sep}{line.text}")
            cut += bool(line.cut)
            previous = (line.path, line.line)
        if result.next_offset is not None:
            lines.append(
                f"{_plural(result.withheld, 'more match', 'more matches')} not shown: call grep again with "
                f"offset={result.next_offset} for the next page, or narrow the search with "
                "path or glob."
            )
        if cut:
            lines.append(
                f"{_plural(cut, 'line')} longer than {_n(line_chars)} characters "
                f"{'is' if cut == 1 else 'are'} shown in part (around the match); read_file "
                f"shows up to {_n(read_line_chars)} characters per line."
            )
    else:
        shown = len(result.files)
        entry = "files" if mode == "files_with_matches" else "counts"
        totals = (
            f"{_plural(files, 'file')} {'matches' if files == 1 else 'match'} {pattern}{scope} "
            f"({_plural(matches, 'matching line')}, {searched})"
        )
        if shown == 0:
            lines.append(
                f"{totals}, but offset={result.offset} is past the end; use an offset below "
                f"{files}."
            )
        elif result.offset or result.withheld:
            lines.append(
                f"{totals}; showing {entry} {_n(result.offset + 1)}-{_n(result.offset + shown)}:"
            )
        else:
            lines.append(f"{totals}:")
        for item in result.files:
            lines.append(item.path if mode == "files_with_matches" else f"{item.path}:{item.count}")
        if result.next_offset is not None:
            lines.append(
                f"{_plural(result.withheld, 'more file')} not shown: call grep again with "
                f"offset={result.next_offset} for the next page."
            )
    if result.incomplete:
        lines.append(
            f"Incomplete: the time budget ran out after {searched}, so there may be more "
            "matches and the totals are lower bounds. Narrow the search with path or glob."
        )
    note = _skip_note(result.skipped, include_binary=True, nothing_found=nothing)
    if note:
        lines.append(note)
    return "\n".join(lines)


_ENCODING_NAMES = {
    "utf-8-bom": "UTF-8 with BOM",
    "utf-16le": "UTF-16LE (with BOM)",
    "utf-16be": "UTF-16BE (with BOM)",
    "utf-8-lossy": "not valid UTF-8; invalid bytes are shown as U+FFFD",
}


def format_read(result: Any) -> str:
    """The text a model sees for a `Workspace.read_file` result."""
    path = result.path
    if result.kind == "empty":
        return f"{path} is empty (0 bytes)."
    if result.kind == "binary":
        kind = f"{result.binary_type}, " if result.binary_type else ""
        return (
            f"{path} is a binary file ({kind}{_size(result.size_bytes)}); its content is not "
            "shown. Use grep or glob to find related text files."
        )
    about = "about " if result.total_lines_estimated else ""
    estimated = " (estimated from the file size)" if result.total_lines_estimated else ""
    total = f"{about}{_plural(result.total_lines, 'line')}"
    if not result.lines:
        return (
            f"{path}: offset {result.offset} is past the end: the file has {total}{estimated}. "
            f"Call read_file with an offset from 1 to {_n(result.total_lines)}."
        )
    first = result.lines[0].number
    last = result.lines[-1].number
    span = f"line {_n(first)}" if first == last else f"lines {_n(first)}-{_n(last)}"
    lines = [f"{path}: {span} of {about}{_n(result.total_lines)}{estimated}."]
    details: list[str] = []
    if result.encoding not in ("utf-8", "", None):
        details.append(f"Encoding: {_ENCODING_NAMES.get(result.encoding, result.encoding)}.")
    if result.line_ending in ("CRLF", "CR"):
        details.append(f"Line endings: {result.line_ending}.")
    elif result.line_ending == "mixed":
        details.append("Line endings: mixed (LF and CRLF).")
    if details:
        lines.append(" ".join(details))
    width = max(6, len(str(last)))
    for line in result.lines:
        text = line.text
        if line.cut_from is not None:
            text += f" [... line cut at {_n(len(line.text))} of {_n(line.cut_from)} characters]"
        lines.append(f"{line.number:>{width}}\t{text}")
    if result.next_offset is not None:
        lines.append(
            f"More lines follow: call read_file with offset={result.next_offset} to read on."
        )
    return "\n".join(lines)


# -- handlers ------------------------------------------------------------------------------------


def _check_paths(args: dict[str, Any]) -> None:
    for key in ("path", "glob", "pattern"):
        value = args.get(key)
        if isinstance(value, str) and "\x00" in value:
            raise InvalidArgumentError(
                f"{key} contains a NUL character (\\0), which no file name or pattern can "
                f"hold; remove it and call the tool again."
            )


def _workspace(context: ToolContext) -> Any:
    if context.workspace is None:
        raise InvalidArgumentError(
            "this registry has no workspace, so tools cannot run; create it with "
            "default_registry(root)"
        )
    return context.workspace


def run_glob(context: ToolContext, args: dict[str, Any]) -> ToolOutput:
    """Handler of `glob`."""
    _check_paths(args)
    result = _workspace(context).glob(
        args["pattern"],
        path=args.get("path") or None,
        limit=args["limit"],
        offset=args["offset"],
        sort=args["sort"],
    )
    return ToolOutput(format_glob(result, sort=args["sort"]), meta={ENGINE_RESULT_KEY: result})


def run_grep(
    context: ToolContext, args: dict[str, Any], limits: ToolLimits = DEFAULT_LIMITS
) -> ToolOutput:
    """Handler of `grep`; lines are cut to `limits.grep_line_chars`."""
    _check_paths(args)
    result = _workspace(context).grep(
        args["pattern"],
        path=args.get("path") or None,
        glob=args.get("glob") or None,
        literal=args["literal"],
        case_insensitive=args["case_insensitive"],
        context=args["context"],
        multiline=args["multiline"],
        output_mode=args["output_mode"],
        limit=args["limit"],
        offset=args["offset"],
        max_line_chars=limits.grep_line_chars,
    )
    text = format_grep(
        result,
        context=args["context"],
        path=args.get("path"),
        glob=args.get("glob"),
        case_insensitive=args["case_insensitive"],
        line_chars=limits.grep_line_chars,
        read_line_chars=limits.read_line_chars,
    )
    return ToolOutput(text, meta={ENGINE_RESULT_KEY: result})


def _read_key(root: str, path: str) -> str:
    return os.path.realpath(os.path.join(root, path))


def run_read_file(
    context: ToolContext, args: dict[str, Any], limits: ToolLimits = DEFAULT_LIMITS
) -> str | ToolOutput:
    """Handler of `read_file`: returns a short notice for an unchanged range already delivered.

    Lines are cut to `limits.read_line_chars`.
    """
    _check_paths(args)
    workspace = _workspace(context)
    path, offset, limit = args["path"], args["offset"], args["limit"]
    key = _read_key(workspace.root, path)
    earlier = context.read_state.lookup(key, offset, limit)
    if earlier is not None:
        last = min(offset + limit - 1, earlier.total_lines)
        return ToolOutput(
            f"Already shown: {path} lines {_n(offset)}-{_n(last)} are part of the result of "
            f"your earlier read_file call (id {earlier.call_id}), and the file has not changed "
            "since, so the text is not repeated. Use that result, or call read_file with "
            "another offset to see other lines.",
            meta={"read_state": "unchanged", "earlier_call_id": earlier.call_id},
        )
    stamp = context.read_state.stamp(key)
    result = workspace.read_file(
        path, offset=offset, limit=limit, max_line_chars=limits.read_line_chars
    )
    text = format_read(result)
    meta: dict[str, Any] = {ENGINE_RESULT_KEY: result}
    if result.kind == "text" and result.lines and stamp is not None:
        record = ReadRecord(
            call_id=context.call_id,
            first=result.lines[0].number,
            last=result.lines[-1].number,
            total_lines=result.total_lines,
            stamp=stamp,
        )
        meta["_read_record"] = (key, record)
    return ToolOutput(text, meta=meta)


def glob_tool(limits: ToolLimits = DEFAULT_LIMITS) -> ToolSpec:
    """`glob`, its definition generated from `limits`."""
    return ToolSpec(
        name="glob",
        description=glob_description(limits),
        parameters=glob_schema(limits),
        handler=run_glob,
        title="Find files by pattern",
    )


def grep_tool(limits: ToolLimits = DEFAULT_LIMITS) -> ToolSpec:
    """`grep`, its definition and line cap generated from `limits`."""
    return ToolSpec(
        name="grep",
        description=grep_description(limits),
        parameters=grep_schema(limits),
        handler=functools.partial(run_grep, limits=limits),
        title="Search file contents",
    )


def read_file_tool(limits: ToolLimits = DEFAULT_LIMITS) -> ToolSpec:
    """`read_file`, its definition and line cap generated from `limits`."""
    return ToolSpec(
        name="read_file",
        description=read_file_description(limits),
        parameters=read_file_schema(limits),
        handler=functools.partial(run_read_file, limits=limits),
        title="Read a file",
    )


def builtin_tools(limits: ToolLimits = DEFAULT_LIMITS) -> list[ToolSpec]:
    """The three read-only tools, in name order, their definitions generated from `limits`."""
    return [glob_tool(limits), grep_tool(limits), read_file_tool(limits)]
