"""What the built-in tools share: schema pieces, number and size wording, skip notes, checks.

Descriptions and schemas are generated from a `ToolLimits`, so every number a model reads
(defaults, maxima, line caps) is the one the tool applies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import orjson

from .. import codes
from .._core import KEYWORDS, IgnoreRule, SkipCounts
from ..errors import InvalidArgumentError
from ..file_types import unknown_types
from ..limits import MAX_DEPTH
from ..limits import MAX_OFFSET as _MAX_OFFSET
from ..names import quote_path, unquote_path
from ..roots import Roots
from ..types import ToolContext, ToolOutput, ToolResult
from ..workspace import Workspace

__all__ = ["ENGINE_RESULT_KEY", "MAX_OFFSET"]

#: `ToolResult.meta` key holding the engine's typed result (GlobResult, GrepResult, ReadResult)
#: of a successful call, for front ends that return structured data (MCP, `ripsight --json`).
ENGINE_RESULT_KEY = "engine_result"

#: Upper bound of every `offset` (far beyond any real file or result, inside 64 bits), from the
#: engine's table of limits.
MAX_OFFSET = _MAX_OFFSET


def resolved_maximum(value: int | None) -> int:
    assert value is not None, "ToolLimits resolves every maximum"
    return value


def limit_property(default: int, maximum: int, what: str) -> dict[str, Any]:
    return {
        "type": "integer",
        "minimum": 1,
        "maximum": maximum,
        "default": default,
        "description": f"{what} (1-{maximum}). Default: {default}.",
    }


def offset_property(first: int, description: str) -> dict[str, Any]:
    """`offset`: where a page starts (`first` is the smallest and default value)."""
    return {
        "type": "integer",
        "minimum": first,
        "maximum": MAX_OFFSET,
        "default": first,
        "description": f"{description} Default: {first}.",
    }


def strings_property(description: str) -> dict[str, Any]:
    """An argument that takes one string or a list of them (rg's repeated -g, -t)."""
    return {
        "type": ["string", "array"],
        "items": {"type": "string", "minLength": 1},
        "description": description,
    }


def max_depth_property(what: str) -> dict[str, Any]:
    """`max_depth`, as ripgrep's --max-depth; `what` is the tool's verb ("search", "list")."""
    return {
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_DEPTH,
        "description": f"{what.capitalize()} at most this many directory levels below path, "
        "like ripgrep's --max-depth: 1 means only the files directly in path, 2 also those "
        "one directory down. Default: no limit.",
    }


def engine_default(call: str, name: str) -> Any:
    """The default of the engine call's keyword `name`, as the binding declares it once
    (`_core.KEYWORDS`): a schema states it, never a copy of it."""
    return KEYWORDS[call][name][1]


def json_text(value: Any) -> str:
    """A default as a model reads it in a description: JSON (``false``, ``0``)."""
    return orjson.dumps(value).decode()


def flag_property(call: str, name: str, description: str) -> dict[str, Any]:
    """A boolean argument of the engine call `call`, its default stated from the engine's."""
    default = engine_default(call, name)
    return {
        "type": "boolean",
        "default": default,
        "description": f"{description} Default: {json_text(default)}.",
    }


def include_ignored_property(what: str, call: str) -> dict[str, Any]:
    """`include_ignored`, as ripgrep's --no-ignore; `what` is the tool's verb, `call` the
    engine call whose default it states."""
    default = engine_default(call, "include_ignored")
    return {
        "type": "boolean",
        "default": default,
        "description": f"Also {what} files that .gitignore, .ignore and .ripsightignore hide, "
        "like ripgrep's --no-ignore (directories such as .git and node_modules, and files "
        f"denied as secrets, stay out). Default: {json_text(default)}.",
    }


def check_types(args: dict[str, Any]) -> list[str]:
    """grep's and glob's `type` and `type_not`: each name one of ripgrep's file types (the
    tools' `ToolSpec.check`)."""
    problems: list[str] = []
    for key in ("type", "type_not"):
        value = args.get(key)
        names = [value] if isinstance(value, str) else value
        if isinstance(names, list):
            found = unknown_types(n for n in names if isinstance(n, str))
            problems.extend(f'"{key}": {problem}.' for problem in found)
    return problems


def rule_text(rule: IgnoreRule) -> str:
    """An ignore rule as a model is shown it: `file:line: rule` (`.gitignore:12: build/`)."""
    return f"{quote_path(rule.file)}:{rule.line}: {rule.rule}"


def hidden_note(
    skipped: SkipCounts, hidden_by: Sequence[IgnoreRule] | None, verb: str
) -> str | None:
    """What ignore rules hid from a walk, the rules that hid the most and how to include them
    (`verb`: "search" or "list"); None when they hid nothing."""
    count = int(getattr(skipped, "ignored_by_rules", 0))
    if not count:
        return None
    rules = ", ".join(f"{rule_text(r)} ({thousands(r.hidden)})" for r in hidden_by or ())
    most = f", most by {rules}" if rules else ""
    return (
        f"Hidden by ignore rules: {plural(count, 'file or directory', 'files and directories')}"
        f"{most}. Pass include_ignored=true to {verb} them too."
    )


def path_ignored_note(path: str, rule: IgnoreRule, done: str) -> str:
    """The note for a `path` that ignore rules hide (`done`: "searched" or "listed")."""
    return (
        f"Note: {quote_path(path.rstrip('/') or '.')} is hidden by the ignore rule "
        f"{rule_text(rule)}, so a search of the whole tree skips it; it was {done} because "
        "path names it."
    )


def thousands(value: int) -> str:
    return f"{value:,}"


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{thousands(count)} {word if count == 1 else (many or word + 's')}"


def candidates_text(candidates: int, searched: int, what: str) -> str:
    """How many files hold the name (`what`: "the name", "the text"), and where they came from:
    the files searched (cold), or the symbol index (more candidates than files searched: those
    are only the files changed since it was written)."""
    if candidates > searched:
        changed = f" and {plural(searched, 'changed file')} searched" if searched else ""
        return f"{plural(candidates, 'file')} containing {what}, from the symbol index{changed}"
    if not searched:
        return f"no file contains {what}"
    return f"{plural(candidates, 'file')} containing {what}, of {thousands(searched)} searched"


def where_text(searched: str | None) -> str:
    searched = (searched or "").strip("/")
    return "the workspace root" if searched in ("", ".") else quote_path(f"{searched}/")


def size_text(size: int) -> str:
    if size < 10 * 1024:
        return plural(size, "byte")
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor:
            return f"{size / factor:.1f} {unit}, {thousands(size)} bytes"
    return plural(size, "byte")  # pragma: no cover


#: Each skip count the engine reports, with the words that name it: the count's field, the
#: singular and plural nouns, and what follows them.
_SKIP_WORDS = (
    ("binary", "binary file", "binary files", ""),
    ("denied", "file", "files", " denied by the secrets policy"),
    ("unreadable", "unreadable entry", "unreadable entries", ""),
    ("special", "special file", "special files", " (FIFO, socket, device)"),
    ("too_large", "file", "files", " too large to search"),
    ("line_too_long", "file", "files", " with a line too long to search"),
    ("outside_root", "symlink", "symlinks", " pointing outside the root"),
    ("symlink", "symlink", "symlinks", " not followed (pass one as path to look inside)"),
)


def _skip_parts(skipped: SkipCounts, include_binary: bool) -> list[str]:
    parts: list[str] = []
    for field, one, many, rest in _SKIP_WORDS:
        count = int(getattr(skipped, field, 0))
        if count and (include_binary or field != "binary"):
            parts.append(plural(count, one, many) + rest)
    return parts


def skip_note(skipped: SkipCounts, include_binary: bool, nothing_found: bool) -> str | None:
    parts = _skip_parts(skipped, include_binary)
    ignored = getattr(skipped, "ignored", 0)
    if nothing_found and ignored:
        # The engine counts pruned skip-set directories here (files hidden by ignore files
        # are counted apart: `hidden_note`).
        parts.append(
            f"{plural(ignored, 'directory', 'directories')} skipped by name (excluded "
            "directories: version control, dependencies, build output)"
        )
    if not parts:
        return None
    return "Skipped: " + ", ".join(parts) + "."


def list_arg(value: Any) -> list[str]:
    """An argument that takes one string or a list of them, as a list (None: empty)."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def unquote_paths(args: dict[str, Any]) -> None:
    """Turns a quoted `path` (as results show odd names) back into the name: the built-in
    tools' `ToolSpec.prepare`, run before the host's policy."""
    if isinstance(args.get("path"), str):
        args["path"] = unquote_path(args["path"])


def check_paths(args: dict[str, Any]) -> None:
    """Refuses NULs in a path or pattern (after `unquote_paths`: an escape can make one)."""
    for key in ("path", "glob", "pattern", "type", "type_not"):
        value = args.get(key)
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, str) and "\x00" in v for v in values):
            raise InvalidArgumentError(
                f"{key} contains a NUL character (\\0), which no file name or pattern can "
                f"hold; remove it and call the tool again."
            )


def workspace_of(context: ToolContext) -> Workspace | Roots:
    if context.workspace is None:
        raise InvalidArgumentError(
            "this registry has no workspace, so tools cannot run; create it with "
            "default_registry(root)"
        )
    return context.workspace


# -- repeated calls on an unchanged tree ---------------------------------------------------------


def revision_of(workspace: Any) -> int | None:
    """The tree revision the workspace reports (the warm index), or None when it has none."""
    revision = getattr(workspace, "revision", None)
    if isinstance(revision, bool) or not isinstance(revision, int):
        return None
    return revision


def _repeat_key(args: dict[str, Any]) -> str:
    return orjson.dumps(args, option=orjson.OPT_SORT_KEYS).decode()


def same_as_earlier(
    context: ToolContext, tool: str, args: dict[str, Any], revision: int | None
) -> ToolOutput | None:
    """The short answer to a call this session already answered on the same tree revision."""
    if revision is None:
        return None
    earlier = context.session.repeats.lookup(tool, _repeat_key(args), revision)
    if earlier is None:
        return None
    call_id, ref = earlier
    stored = (
        f' Its whole result is stored as {ref} (call read_result with ref="{ref}" to page it).'
        if ref
        else ""
    )
    return ToolOutput(
        f"Same as call {call_id}: the files have not changed since that call, so {tool} with "
        f"these arguments gives the same result, which is not repeated.{stored} Use that "
        f"result, or call {tool} with other arguments.",
        meta={"same_as": call_id, "revision": revision},
        code=codes.SAME_AS,
    )


def _remember_answer(
    context: ToolContext, tool: str, args: dict[str, Any], revision: int | None, workspace: Any
) -> Callable[[ToolResult], None] | None:
    """An `on_delivered` callback that remembers this call's answer for `revision`, provided the
    tree did not change while the call ran."""
    if revision is None or revision_of(workspace) != revision:
        return None
    repeats, key, call_id = context.session.repeats, _repeat_key(args), context.call_id

    def delivered(answer: ToolResult) -> None:
        ref = answer.meta.get("ref")
        repeats.record(tool, key, revision, call_id, ref if isinstance(ref, str) else None)

    return delivered


#: A search tool's typed result (`GrepResult`, `GlobResult`...).
Result = TypeVar("Result")


def answer_search(
    context: ToolContext,
    tool: str,
    args: dict[str, Any],
    search: Callable[[Workspace | Roots], Result],
    describe: Callable[[Result], tuple[str, int]],
) -> ToolOutput:
    """Runs a search tool's call: checks the path, answers "same as call X" for a repeat on an
    unchanged tree revision, else runs `search` on the workspace and turns its result into the
    model's text and the total that decides the code (`describe`)."""
    check_paths(args)
    workspace = workspace_of(context)
    revision = revision_of(workspace)
    earlier = same_as_earlier(context, tool, args, revision)
    if earlier is not None:
        return earlier
    result = search(workspace)
    text, total = describe(result)
    if isinstance(workspace, Roots) and workspace.problems:
        text += "\nNot served: " + "; ".join(workspace.problems) + "."
    return ToolOutput(
        text,
        meta={ENGINE_RESULT_KEY: result},
        on_delivered=_remember_answer(context, tool, args, revision, workspace),
        code=result_code(result, total),
    )


def result_code(result: Any, total: int) -> str:
    """The machine code of a search's answer: time_budget (cut short), no_match, or ok."""
    if getattr(result, "incomplete", False):
        return codes.TIME_BUDGET
    return codes.NO_MATCH if total == 0 else codes.OK
