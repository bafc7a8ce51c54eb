"""Tool lookup by name: the aliases models trained on other agents use, "did you mean", and the
sentence a model gets for a tool that does not exist.

    >>> suggest_tool("Read", ["glob", "grep", "read_file"])
    'read_file'
    >>> unknown_tool_message("edit_file", ["glob", "grep"])
    'There is no tool named edit_file. These tools are read-only: ...'
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from .validation import closest_name

__all__ = ["TOOL_ALIASES", "suggest_tool", "unknown_tool_message"]

#: Tool names that models trained on other agents use for ours.
TOOL_ALIASES: dict[str, tuple[str, ...]] = {
    "read_file": (
        "read",
        "view",
        "cat",
        "open",
        "open_file",
        "view_file",
        "readfile",
        "read_files",
        "get_file",
        "file_read",
        "show_file",
        "str_replace_based_edit_tool",
        "read_many_files",
        "fetch_file",
        "get_file_contents",
    ),
    "grep": (
        "grep_search",
        "search_file_content",
        "search",
        "rg",
        "ripgrep",
        "search_files",
        "find_in_files",
        "search_code",
        "code_search",
        "codebase_search",
        "search_text",
        "text_search",
        "grep_tool",
        "file_search_content",
    ),
    "glob": (
        "list_files",
        "find",
        "find_files",
        "ls",
        "list_dir",
        "list_directory",
        "glob_search",
        "file_search",
        "find_file",
        "list",
        "dir",
        "tree",
        "find_by_name",
        "search_files_by_name",
        "glob_files",
        "listdir",
    ),
}

# Words in the names of tools that change things: a call of one is told the tools are read-only
# rather than pointed at a read tool whose name happens to be close.
_WRITE_VERBS = (
    "edit",
    "write",
    "create",
    "delete",
    "remove",
    "replace",
    "apply",
    "patch",
    "run",
    "bash",
    "exec",
    "shell",
    "command",
    "move",
    "rename",
    "insert",
    "update",
    "save",
    "mkdir",
    "terminal",
    "execute",
)
# Namespaces some models put before a tool's name.
_PREFIXES = ("functions.", "tools.", "default_api.", "ripsight.")


def suggest_tool(name: str, names: Sequence[str]) -> str | None:
    """The tool of `names` a call of `name` most likely meant, or None."""
    normalised = name.strip().lower().replace("-", "_").replace(" ", "_")
    for prefix in _PREFIXES:
        normalised = normalised.removeprefix(prefix)
    for candidate in names:
        if candidate.lower() == normalised:
            return candidate
    for target, aliases in TOOL_ALIASES.items():
        if target in names and normalised in aliases:
            return target
    if any(verb in normalised for verb in _WRITE_VERBS):
        return None
    return closest_name(normalised, names)


def unknown_tool_message(name: str, names: Sequence[str]) -> str:
    """The sentence a model gets when it calls `name`, which is none of `names`."""
    available = ", ".join(names) or "(none)"
    if not name.strip():
        return (
            f"The tool call has no tool name, so nothing was run. Available tools: "
            f"{available}. Call one of them by name."
        )
    suggestion = suggest_tool(name, names)
    if not name.isprintable() or len(name) > 80:
        # Control characters or a page of text: quoted, and cut (JSON escapes show them).
        name = orjson.dumps(name if len(name) <= 80 else name[:77] + "...").decode()
    if suggestion:
        return (
            f"There is no tool named {name}. Did you mean {suggestion}? "
            f"Available tools: {available}."
        )
    lowered = name.lower()
    if any(verb in lowered for verb in _WRITE_VERBS):
        return (
            f"There is no tool named {name}. These tools are read-only: they can find, "
            f"search and read files but cannot change files or run commands. "
            f"Available tools: {available}."
        )
    return f"There is no tool named {name}. Available tools: {available}."
