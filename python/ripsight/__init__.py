"""ripsight: fast, bounded, read-only glob, grep and read_file tools for LLM coding agents.

>>> from ripsight import Workspace
>>> Workspace(".").grep("fn main", glob="*.rs").total_matches
"""

from __future__ import annotations

from ._core import __version__
from ._core import truncate_middle as _truncate_middle
from .approval import ApprovalRequest, Ask, Decision, Rule
from .errors import (
    CancelledError,
    DeniedError,
    EngineError,
    InvalidArgumentError,
    IsADirectoryPathError,
    NotADirectoryPathError,
    OutsideRootError,
    PathNotFoundError,
    PatternError,
    RipsightError,
    SpecialFileError,
    UnreadableError,
)
from .limits import DEFAULT_LIMITS, ToolLimits
from .oplog import OperationLog
from .providers import (
    anthropic_messages,
    compact_history,
    follow_up,
    openai_chat_image_messages,
    openai_chat_messages,
    openai_responses_items,
)
from .registry import Registry, default_registry
from .roots import Roots
from .session import Session
from .streaming import ToolCallAccumulator
from .types import ImagePart, ToolCall, ToolContext, ToolOutput, ToolResult, ToolSpec
from .workspace import DEFAULT_DENY_GLOBS, DEFAULT_EXCLUDE_DIRS, CancelToken, Workspace, to_dict


def truncate_middle(text: str, max_chars: int = 8000, head_ratio: float = 0.6) -> str:
    """Keeps the first `head_ratio` of `max_chars` and the rest from the end, cutting the middle.

    The inserted note says how many characters were cut, of how many, and how to see them.
    Counts characters, never splits one, O(n).

        >>> len(truncate_middle("x" * 20_000)) <= 8000
        True
    """
    return _truncate_middle(text, max_chars, head_ratio)[0]


__all__ = [
    "DEFAULT_DENY_GLOBS",
    "DEFAULT_EXCLUDE_DIRS",
    "DEFAULT_LIMITS",
    "ApprovalRequest",
    "Ask",
    "CancelToken",
    "CancelledError",
    "Decision",
    "DeniedError",
    "EngineError",
    "ImagePart",
    "InvalidArgumentError",
    "IsADirectoryPathError",
    "NotADirectoryPathError",
    "OperationLog",
    "OutsideRootError",
    "PathNotFoundError",
    "PatternError",
    # protocol layer
    "Registry",
    "RipsightError",
    "Roots",
    "Rule",
    "Session",
    "SpecialFileError",
    "ToolCall",
    "ToolCallAccumulator",
    "ToolContext",
    "ToolLimits",
    "ToolOutput",
    "ToolResult",
    "ToolSpec",
    "UnreadableError",
    "Workspace",
    "__version__",
    "anthropic_messages",
    "compact_history",
    "default_registry",
    "follow_up",
    "openai_chat_image_messages",
    "openai_chat_messages",
    "openai_responses_items",
    "to_dict",
    "truncate_middle",
]
