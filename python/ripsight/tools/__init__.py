"""The built-in tools: `glob`, `grep`, `read_file`, `outline`, `find_definitions`, and
`read_result` for stored results.

    >>> [spec.name for spec in builtin_tools()]
    ['find_definitions', 'find_references', 'glob', 'grep', 'outline', 'read_file', 'read_result']

Each tool is one module holding its model-facing definition (generated from a `ToolLimits`), its
handler (the Rust engine does every walk, search and read) and the text the model sees.
`format_glob`, `format_grep` and `format_read` are public so the CLI prints exactly that text.
"""

from __future__ import annotations

from ..limits import DEFAULT_LIMITS, ToolLimits
from ..types import ToolSpec
from ._common import ENGINE_RESULT_KEY, MAX_OFFSET
from .definitions import (
    FIND_DEFINITIONS_DESCRIPTION,
    FIND_DEFINITIONS_SCHEMA,
    find_definitions_description,
    find_definitions_schema,
    find_definitions_tool,
    format_definitions,
)
from .glob import (
    GLOB_DESCRIPTION,
    GLOB_SCHEMA,
    format_glob,
    glob_description,
    glob_schema,
    glob_tool,
)
from .grep import (
    GREP_DESCRIPTION,
    GREP_SCHEMA,
    format_grep,
    grep_description,
    grep_schema,
    grep_tool,
)
from .outline import (
    OUTLINE_DESCRIPTION,
    OUTLINE_SCHEMA,
    format_outline,
    outline_description,
    outline_schema,
    outline_tool,
)
from .read_file import (
    READ_FILE_DESCRIPTION,
    READ_FILE_SCHEMA,
    format_read,
    read_file_description,
    read_file_schema,
    read_file_tool,
)
from .read_result import READ_RESULT_SCHEMA, read_result_tool
from .references import (
    FIND_REFERENCES_DESCRIPTION,
    FIND_REFERENCES_SCHEMA,
    find_references_description,
    find_references_schema,
    find_references_tool,
    format_references,
)

__all__ = [
    "ENGINE_RESULT_KEY",
    "FIND_DEFINITIONS_DESCRIPTION",
    "FIND_DEFINITIONS_SCHEMA",
    "FIND_REFERENCES_DESCRIPTION",
    "FIND_REFERENCES_SCHEMA",
    "GLOB_DESCRIPTION",
    "GLOB_SCHEMA",
    "GREP_DESCRIPTION",
    "GREP_SCHEMA",
    "MAX_OFFSET",
    "OUTLINE_DESCRIPTION",
    "OUTLINE_SCHEMA",
    "READ_FILE_DESCRIPTION",
    "READ_FILE_SCHEMA",
    "READ_RESULT_SCHEMA",
    "builtin_tools",
    "find_definitions_description",
    "find_definitions_schema",
    "find_definitions_tool",
    "find_references_description",
    "find_references_schema",
    "find_references_tool",
    "format_definitions",
    "format_glob",
    "format_grep",
    "format_outline",
    "format_read",
    "format_references",
    "glob_description",
    "glob_schema",
    "glob_tool",
    "grep_description",
    "grep_schema",
    "grep_tool",
    "outline_description",
    "outline_schema",
    "outline_tool",
    "read_file_description",
    "read_file_schema",
    "read_file_tool",
    "read_result_tool",
]


def builtin_tools(limits: ToolLimits = DEFAULT_LIMITS) -> list[ToolSpec]:
    """The built-in read-only tools, in name order, their definitions generated from `limits`:
    the file tools and `read_result` (which reads results stored by reference)."""
    return [
        find_definitions_tool(limits),
        find_references_tool(limits),
        glob_tool(limits),
        grep_tool(limits),
        outline_tool(limits),
        read_file_tool(limits),
        read_result_tool(),
    ]
