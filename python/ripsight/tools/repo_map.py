"""`repo_map`: the files of a tree ranked by how much the rest of it uses them, each with its
most-used definitions (definition, handler, the text the model sees)."""

from __future__ import annotations

import functools
from typing import Any

from .._core import RepoMapResult
from ..limits import DEFAULT_LIMITS, LIMITS, ToolLimits
from ..names import quote_path
from ..roots import Roots
from ..types import ToolCommand, ToolContext, ToolOutput, ToolSpec
from ..workspace import Workspace
from ._common import answer_search, list_arg, plural, skip_note, thousands, unquote_paths
from .outline import languages_text

__all__ = [
    "REPO_MAP_DESCRIPTION",
    "REPO_MAP_SCHEMA",
    "format_repo_map",
    "repo_map_description",
    "repo_map_schema",
    "repo_map_tool",
    "run_repo_map",
]

#: The most focus paths, and names, a call takes (each).
MAX_FOCUS = int(LIMITS["repo_map_focus"])
#: The smallest budget a map takes.
MIN_CHARS = int(LIMITS["repo_map_min_chars"])
#: Source files a map parses at most without a symbol index.
MAX_FILES = int(LIMITS["repo_map_max_files"])
#: Focus entries and unparsed files a note names, at most (the rest are counted).
_NAMED = 5
#: A focus entry or path in a note is cut to this many characters.
_NAME_CHARS = 80


def _default_chars(limits: ToolLimits) -> int:
    """The map's default budget: repo_map_chars, within one result's budget."""
    return min(limits.repo_map_chars, limits.max_result_chars)


def repo_map_description(limits: ToolLimits = DEFAULT_LIMITS) -> str:
    """The model-facing description of `repo_map` under these limits."""
    return f"""\
Map the repository: its source files ranked by how much the rest of the tree uses what they \
define (a PageRank over the graph of files referencing names defined in other files), each \
file followed by its most-used definitions with their lines. Use it first on an unfamiliar \
tree, or on a directory (`path`), to see where the code that matters is before reading files. \
Example: repo_map(path="src", paths=["src/server.py"], names=["handle_request"]) answers

src/http/request.py
  L40 class Request
  L212 function parse_headers
src/server.py
  L18 function handle_request

`paths` (files or directories) and `names` (identifiers) move the ranking toward what you are \
working on. References are bound through includes and imports where those reach a \
definition (with the symbol index), else found by name, without type resolution. The map fits \
`max_chars` characters (default {_default_chars(limits)}); it says how many files and \
definitions were left out. Languages: {languages_text()}."""


def repo_map_schema(limits: ToolLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """JSON Schema of `repo_map`'s arguments under these limits."""
    least = min(MIN_CHARS, limits.max_result_chars)
    return {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "Directory to map, relative to the workspace root. Default: the "
                "workspace root.",
            },
            "paths": {
                "type": ["string", "array"],
                "items": {"type": "string", "minLength": 1},
                "maxItems": MAX_FOCUS,
                "description": "Focus: files (or directories) the task is about; the files "
                "they use rise in the ranking. Default: none.",
            },
            "names": {
                "type": ["string", "array"],
                "items": {"type": "string", "minLength": 1},
                "maxItems": MAX_FOCUS,
                "description": "Focus: identifiers the task is about, e.g. "
                '["parse_args", "HttpClient"]; their definitions and the files using them '
                "rise. Default: none.",
            },
            "max_chars": {
                "type": "integer",
                "minimum": least,
                "maximum": limits.max_result_chars,
                "default": _default_chars(limits),
                "description": "Characters of map at most, header and notes included "
                f"({least}-{limits.max_result_chars}). "
                f"Default: {_default_chars(limits)}.",
            },
        },
        "additionalProperties": False,
    }


#: The definition under the SPEC section 5 defaults.
REPO_MAP_DESCRIPTION = repo_map_description()
REPO_MAP_SCHEMA: dict[str, Any] = repo_map_schema()


def _short(text: str) -> str:
    return text if len(text) <= _NAME_CHARS else text[: _NAME_CHARS - 3] + "..."


def _named(items: list[str], total: int) -> str:
    shown = ", ".join(_short(item) for item in items[:_NAMED])
    more = total - min(len(items), _NAMED)
    return shown + (f" and {thousands(more)} more" if more > 0 else "")


def _notes(result: Any, budget: int, files_left: int, definitions_left: int) -> list[str]:
    """The sentences after the listing: what was left out, and what the map does not cover."""
    notes: list[str] = []
    if files_left or definitions_left:
        parts = []
        if files_left:
            parts.append(plural(files_left, "lower-ranked file"))
        if definitions_left:
            parts.append(plural(definitions_left, "used definition") + " of the files shown")
        notes.append(
            f"Left out to fit {thousands(budget)} characters: "
            + " and ".join(parts)
            + ". Map a directory (path) or raise max_chars for more."
        )
    if result.files_over_cap:
        notes.append(
            f"Partial: {thousands(result.files_listed)} source files, over the "
            f"{thousands(result.max_files)} a map parses without a symbol index; only the "
            f"{thousands(result.max_files)} shallowest are ranked (in path order within a "
            "depth: the same files at every call). Map a directory (path) for a complete map "
            "of it."
        )
    if result.files_not_reached:
        notes.append(
            f"Partial: the time budget ran out with {thousands(result.files_not_reached)} "
            "source files not parsed (the next call reuses the parses made so far). Map a "
            "directory (path), or call again."
        )
    if result.unparsed_total:
        listed = [
            f"{quote_path(item.path)} ({item.refused.replace('_', ' ')})"
            for item in result.unparsed
        ]
        notes.append(
            f"{plural(result.unparsed_total, 'file')} could not be parsed and "
            f"{'is' if result.unparsed_total == 1 else 'are'} not ranked: "
            + _named(listed, result.unparsed_total)
            + "."
        )
    if result.focus_unmatched:
        paths = [quote_path(p) for p in result.focus_unmatched]
        notes.append(
            "No ranked file is or lies under the focus "
            + _named(paths, len(paths))
            + " (paths are relative to the workspace root; only source files are ranked)."
        )
    if result.names_undefined:
        notes.append(
            "No ranked file defines the focus name "
            + _named(list(result.names_undefined), len(result.names_undefined))
            + "."
        )
    return notes


def _text(result: Any, path: str | None, budget: int, files: list[tuple[Any, list[Any]]]) -> str:
    """The map's text with these files and definitions of the result shown."""
    where = f" of {quote_path(path.rstrip('/'))}" if path else ""
    ranked = result.files_ranked
    shown_definitions = sum(len(defs) for _, defs in files)
    files_left = ranked - len(files)
    # Used definitions of the files shown that are not shown (files left out count as files).
    definitions_left = sum(max(0, f.used_definitions - len(defs)) for f, defs in files)
    lines: list[str] = []
    if ranked == 0:
        lines.append(
            f"No source files to map{where} ({thousands(result.files_listed)} source files "
            f"found, {thousands(result.files_parsed)} parsed)."
        )
    else:
        head = (
            f"Map{where}: {plural(ranked, 'file')} ranked by how much the other files use "
            "their definitions ("
            + (
                "references bound through includes and imports, else found by name)"
                if result.bound
                else "references found by name)"
            )
        )
        if files_left and files:
            head += (
                f"; the top {thousands(len(files))} with {plural(shown_definitions, 'definition')}"
            )
        elif files_left:
            head += "; none fits"
        lines.append(head + ":")
        for found, definitions in files:
            lines.append(quote_path(found.path))
            lines.extend(f"  {definition}" for definition in definitions)
    lines.extend(_notes(result, budget, files_left, definitions_left))
    note = skip_note(result.skipped, include_binary=False, nothing_found=ranked == 0)
    if note:
        lines.append(note)
    return "\n".join(lines)


def format_repo_map(result: Any, path: str | None = None, max_chars: int | None = None) -> str:
    """The text a model sees for a `Workspace.repo_map` result, at most `max_chars` characters
    (default: the result's own budget): the engine fits its listing to the budget, and the
    header and notes take the last files' and definitions' room when they need it."""
    budget = result.max_chars if max_chars is None else max_chars
    files: list[tuple[Any, list[Any]]] = [(f, list(f.definitions)) for f in result.files]
    text = _text(result, path, budget, files)
    while len(text) > budget and files:
        found, definitions = files[-1]
        if len(definitions) > 1:
            files[-1] = (found, definitions[:-1])
        else:
            files.pop()
        text = _text(result, path, budget, files)
    return text[:budget]


def run_repo_map(
    context: ToolContext, args: dict[str, Any], limits: ToolLimits = DEFAULT_LIMITS
) -> ToolOutput:
    """Handler of `repo_map`."""
    paths = list_arg(args.get("paths"))
    names = list_arg(args.get("names"))
    max_chars = args["max_chars"]

    def search(workspace: Workspace | Roots) -> Any:
        return workspace.repo_map(
            path=args.get("path") or None,
            paths=paths,
            names=names,
            max_chars=max_chars,
            definitions_per_file=limits.repo_map_definitions,
            max_files=limits.repo_map_max_files,
            cancel=context.cancel,
        )

    def describe(result: Any) -> tuple[str, int]:
        return format_repo_map(result, args.get("path"), max_chars), result.files_ranked

    return answer_search(context, "repo_map", args, search, describe)


def repo_map_tool(limits: ToolLimits = DEFAULT_LIMITS) -> ToolSpec:
    """`repo_map`, its definition generated from `limits`."""
    return ToolSpec(
        name="repo_map",
        description=repo_map_description(limits),
        parameters=repo_map_schema(limits),
        handler=functools.partial(run_repo_map, limits=limits),
        title="Map the repository: its most-used files and definitions",
        prepare=unquote_paths,
        results=(RepoMapResult,),
        paging={"files": "rank"},
        command=ToolCommand(
            name="map",
            help="map the repository: files ranked by use, with their most-used definitions",
            description="Rank the source files under a directory by how much the other files "
            "use what they define (a PageRank over the references, bound through includes and "
            "imports with the symbol index, else found by name), list each "
            "with its most-used definitions within a character budget, and print what a model "
            "would see (the repo_map tool).",
            epilog="exit status: 0 files mapped, 1 none, 2 usage or input error (one line on "
            "stderr)",
            positionals=("path",),
            short={"paths": "-p", "names": "-n"},
            found="files_ranked",
        ),
    )


#: This module's tool (`ripsight.tools.builtin_tools` finds the built-in tools by this name).
TOOL = repo_map_tool
