"""`ToolLimits`: the default limits of the tools (SPEC section 5), in one place.

    >>> limits = ToolLimits(grep_limit=20, read_line_chars=300)
    >>> reg = default_registry("/path/to/repo", limits=limits)

The tool definitions are generated from these numbers (schema defaults and maxima, and every
sentence of a description that states a limit), the argument checking fills defaults from those
schemas, and the handlers pass the line caps to the engine: what a model is told is what it
gets. Every default and bound comes from the Rust engine's table (``ripsight._core.LIMITS``).

A limit is a default, not a ceiling the model cannot move: a call may ask for up to the maximum
(``glob_max_limit`` and friends). A maximum left unset is the engine's (glob 1000, grep 500,
read_file 2000 lines) or the default, whichever is larger.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ._core import LIMITS as _ENGINE_LIMITS

__all__ = [
    "APPROVAL_DEADLINE",
    "DEFAULT_LIMITS",
    "HIDING_RULES",
    "INDEX_CACHE_MAX_AGE",
    "INDEX_CACHE_MAX_BYTES",
    "LIMITS",
    "MAX_CONCURRENT_CALLS",
    "MAX_CONTEXT",
    "MAX_DEPTH",
    "MAX_OFFSET",
    "MCP_PROGRESS_AFTER",
    "MCP_ROOTS_WAIT",
    "MCP_TIME_BUDGET",
    "MIN_LINE_CHARS",
    "MIN_RESULT_CHARS",
    "TIME_BUDGET",
    "ToolLimits",
]

#: Every default and bound of the tools' parameters, by name, from the engine.
LIMITS: dict[str, int | float] = dict(_ENGINE_LIMITS)
#: The smallest line cap grep and read_file accept (the engine enforces it too).
MIN_LINE_CHARS = int(LIMITS["min_line_chars"])
#: The smallest result budget: room for a head, a tail and the truncation note.
MIN_RESULT_CHARS = int(LIMITS["min_result_chars"])
#: The largest offset a call may give.
MAX_OFFSET = int(LIMITS["max_offset"])
#: The most context lines grep shows around a match.
MAX_CONTEXT = int(LIMITS["grep_max_context"])
#: The largest `max_depth` grep and glob take.
MAX_DEPTH = int(LIMITS["max_depth"])
#: The ignore rules a result names at most (those that hid the most).
HIDING_RULES = int(LIMITS["hiding_rules"])
#: Definitions of the name a find_references result lists, at most (all are counted).
REFERENCES_DEFINITIONS_LISTED = int(LIMITS["references_definitions_listed"])
#: Seconds one walk or search may take before it answers with what it found, marked incomplete:
#: the library's and the CLI's default (`Workspace(time_budget=...)`).
TIME_BUDGET = float(LIMITS["time_budget_seconds"])
#: The same for `ripsight mcp`: under the 5 s common MCP clients wait for a call.
MCP_TIME_BUDGET = float(LIMITS["mcp_time_budget_seconds"])
#: Seconds an MCP tool call runs before the server sends `notifications/progress` (to a client
#: that asked with a progress token), and between two of them.
MCP_PROGRESS_AFTER = float(LIMITS["mcp_progress_after_seconds"])
#: Seconds an MCP tool call waits for the client's `roots/list` answer.
MCP_ROOTS_WAIT = float(LIMITS["mcp_roots_wait_seconds"])
#: Seconds a call that needs a person's approval waits for the answer before it is refused.
APPROVAL_DEADLINE = float(LIMITS["approval_deadline_seconds"])
#: Seconds after its last use an index file is stale, and the bytes a cache directory's index
#: files may fill, most recently used first: every index file written applies both to its
#: directory, and `ripsight cache --prune` does on demand.
INDEX_CACHE_MAX_AGE = float(LIMITS["index_cache_max_age_seconds"])
INDEX_CACHE_MAX_BYTES = int(LIMITS["index_cache_max_bytes"])
#: Tool calls an MCP server runs at the same time unless told otherwise (a server's bound, not
#: a tool's: it lives here, beside the server's time budget, not in the engine).
MAX_CONCURRENT_CALLS = 8

# Each maximum a call may ask for, the default it may not be below, and the engine's maximum
# it takes when unset (or the default, when that is larger).
_MAXIMA = (
    ("glob_max_limit", "glob_limit", int(LIMITS["glob_max_limit"])),
    ("grep_max_limit", "grep_limit", int(LIMITS["grep_max_limit"])),
    ("read_max_limit", "read_limit", int(LIMITS["read_max_limit"])),
    ("notebook_max_limit", "notebook_limit", int(LIMITS["notebook_max_limit"])),
    ("outline_max_limit", "outline_limit", int(LIMITS["outline_max_limit"])),
    ("definitions_max_limit", "definitions_limit", int(LIMITS["definitions_max_limit"])),
    ("references_max_limit", "references_limit", int(LIMITS["references_max_limit"])),
    ("calls_max_limit", "calls_limit", int(LIMITS["calls_max_limit"])),
)


def _check_int(name: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")


#: The image, notebook and outline bounds (each a whole number from 1).
_WHOLE_FIELDS = (
    "image_max_edge",
    "image_max_pixels",
    "image_max_bytes",
    "image_max_source_bytes",
    "image_max_decode_pixels",
    "notebook_limit",
    "notebook_output_chars",
    "notebook_max_bytes",
    "outline_limit",
    "definitions_limit",
    "references_limit",
    "calls_limit",
    "repo_map_chars",
    "repo_map_definitions",
    "repo_map_max_files",
)


@dataclass(frozen=True, slots=True)
class ToolLimits:
    """The default limits of glob, grep and read_file, and the budget of one result.

    Args:
        glob_limit: paths one glob call returns unless it asks otherwise (default 200).
        grep_limit: matches (or files, in the file modes) one grep call returns (default 50).
        grep_line_chars: each line grep shows is cut to this many characters, around the
            match (default 120, minimum 20).
        read_limit: lines one read_file call returns (default 400).
        read_line_chars: each line read_file shows is cut to this many characters (default
            500, minimum 20).
        max_result_chars: budget of one result's text; longer text is cut in the middle
            (default 8000, minimum 200).
        head_ratio: share of that budget kept from the head (default 0.6, from 0 to 1).
        glob_max_limit, grep_max_limit, read_max_limit: the largest ``limit`` a call may ask
            for (None: 1000, 500 and 2000 lines, or the default when that is larger). An
            explicit maximum below its default is an error.
        image_max_edge, image_max_pixels: a shown image is at most this many pixels on its
            long edge (default 1568) and in all (default 1,150,000); a larger one is scaled
            down, a smaller one passed through untouched.
        image_max_bytes: a shown image's encoded size (default 3,750,000 bytes): the budget of
            a result's images, beside the text budget.
        image_max_source_bytes: image files larger than this are refused unread (default
            50,000,000 bytes).
        image_max_decode_pixels: images whose header declares more pixels are refused before
            decoding (default 25,000,000).
        notebook_limit: cells one read of a notebook returns (default 20; a call may ask for
            up to notebook_max_limit, None: 200 or the default when larger).
        notebook_output_chars: characters of output text shown per notebook cell (default
            2000).
        notebook_max_bytes: notebooks larger than this are refused unread (default 64,000,000
            bytes).
        outline_limit: definitions one outline call returns (default 200; a call may ask for
            up to outline_max_limit, None: 1000 or the default when larger).
        definitions_limit: definitions one find_definitions call returns (default 50; a call
            may ask for up to definitions_max_limit, None: 500 or the default when larger).
        references_limit: references (or callers) one find_references call returns (default
            50; a call may ask for up to references_max_limit, None: 500 or the default when
            larger).
        calls_limit: callees one find_calls call returns (default 100; a call may ask for up
            to calls_max_limit, None: 500 or the default when larger).
        repo_map_chars: characters of one repo_map call's map unless it asks otherwise
            (default 6000, or max_result_chars when that is smaller; a call may ask
            for up to max_result_chars).
        repo_map_definitions: definitions repo_map shows per file at most (default 8).
        repo_map_max_files: source files a map parses without a symbol index (default
            20,000): past it, the shallowest files are ranked, in path order within a depth.

    Invalid values raise ``TypeError`` (not an integer) or ``ValueError`` (out of range).
    """

    glob_limit: int = int(LIMITS["glob_limit"])
    grep_limit: int = int(LIMITS["grep_limit"])
    grep_line_chars: int = int(LIMITS["grep_line_chars"])
    read_limit: int = int(LIMITS["read_limit"])
    read_line_chars: int = int(LIMITS["read_line_chars"])
    max_result_chars: int = int(LIMITS["max_result_chars"])
    head_ratio: float = float(LIMITS["head_ratio"])
    glob_max_limit: int | None = None
    grep_max_limit: int | None = None
    read_max_limit: int | None = None
    image_max_edge: int = int(LIMITS["image_max_edge"])
    image_max_pixels: int = int(LIMITS["image_max_pixels"])
    image_max_bytes: int = int(LIMITS["image_max_bytes"])
    image_max_source_bytes: int = int(LIMITS["image_max_source_bytes"])
    image_max_decode_pixels: int = int(LIMITS["image_max_decode_pixels"])
    notebook_limit: int = int(LIMITS["notebook_limit"])
    notebook_output_chars: int = int(LIMITS["notebook_output_chars"])
    notebook_max_bytes: int = int(LIMITS["notebook_max_bytes"])
    notebook_max_limit: int | None = None
    outline_limit: int = int(LIMITS["outline_limit"])
    outline_max_limit: int | None = None
    definitions_limit: int = int(LIMITS["definitions_limit"])
    definitions_max_limit: int | None = None
    references_limit: int = int(LIMITS["references_limit"])
    references_max_limit: int | None = None
    calls_limit: int = int(LIMITS["calls_limit"])
    calls_max_limit: int | None = None
    repo_map_chars: int = int(LIMITS["repo_map_chars"])
    repo_map_definitions: int = int(LIMITS["repo_map_definitions"])
    repo_map_max_files: int = int(LIMITS["repo_map_max_files"])

    def __post_init__(self) -> None:
        _check_int("glob_limit", self.glob_limit, 1)
        _check_int("grep_limit", self.grep_limit, 1)
        _check_int("read_limit", self.read_limit, 1)
        _check_int("grep_line_chars", self.grep_line_chars, MIN_LINE_CHARS)
        _check_int("read_line_chars", self.read_line_chars, MIN_LINE_CHARS)
        _check_int("max_result_chars", self.max_result_chars, MIN_RESULT_CHARS)
        for name in _WHOLE_FIELDS:
            _check_int(name, getattr(self, name), 1)
        ratio = self.head_ratio
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)):
            raise TypeError(f"head_ratio must be a number, got {type(ratio).__name__} {ratio!r}")
        if not 0.0 <= float(ratio) <= 1.0:
            raise ValueError(f"head_ratio must be between 0 and 1, got {ratio}")
        object.__setattr__(self, "head_ratio", float(ratio))
        for name, default_name, historical in _MAXIMA:
            default = getattr(self, default_name)
            maximum = getattr(self, name)
            if maximum is None:
                object.__setattr__(self, name, max(historical, default))
                continue
            _check_int(name, maximum, 1)
            if maximum < default:
                raise ValueError(
                    f"{name} ({maximum}) is below {default_name} ({default}); a call could not "
                    f"ask for the default. Raise {name} or lower {default_name}."
                )

    def replace(self, **changes: Any) -> ToolLimits:
        """A copy with some values changed (validated again). A maximum that followed its
        default is recomputed unless given."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        for name, default_name, historical in _MAXIMA:
            if name not in changes and values[name] == max(historical, values[default_name]):
                values[name] = None
        values.update(changes)
        return ToolLimits(**values)


#: The SPEC section 5 defaults.
DEFAULT_LIMITS = ToolLimits()
