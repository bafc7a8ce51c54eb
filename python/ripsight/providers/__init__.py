"""Provider formats: tool definitions, follow-up messages and transcript compaction, per API.

    >>> definitions(builtin_tools(), "anthropic")[0]["name"]
    'glob'
    >>> messages += follow_up("openai", calls, results, text=acc.text)

One module per provider (`openai`, `anthropic`, `mcp`); this package maps format names to them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..types import ToolCall, ToolResult, ToolSpec
from . import anthropic, mcp, openai
from ._common import pair_results, strict_schema

__all__ = [
    "FORMATS",
    "anthropic_messages",
    "compact_history",
    "definitions",
    "follow_up",
    "normalise_format",
    "openai_chat_image_messages",
    "openai_chat_messages",
    "openai_responses_items",
    "pair_results",
    "strict_schema",
]

#: The definition formats `Registry.definitions` exports.
FORMATS = ("openai", "openai-responses", "anthropic", "mcp")
_FORMAT_ALIASES = {
    "openai-chat": "openai",
    "chat": "openai",
    "responses": "openai-responses",
    "openai_responses": "openai-responses",
    "claude": "anthropic",
}

openai_chat_messages = openai.chat_messages
openai_chat_image_messages = openai.chat_image_messages
openai_responses_items = openai.responses_items
anthropic_messages = anthropic.messages_for


def normalise_format(fmt: str) -> str:
    """The canonical name of a format ("chat" -> "openai", "claude" -> "anthropic", ...)."""
    key = str(fmt).strip().lower()
    key = _FORMAT_ALIASES.get(key, key)
    if key not in FORMATS:
        raise ValueError(f"unknown definition format {fmt!r}; use one of: {', '.join(FORMATS)}")
    return key


def definitions(specs: Sequence[ToolSpec], fmt: str, strict: bool = False) -> list[Any]:
    """Definitions of `specs` for one API (see `Registry.definitions`)."""
    key = normalise_format(fmt)
    if strict and key not in ("openai", "openai-responses"):
        raise ValueError(f"strict=True applies to the OpenAI formats only, not {fmt!r}")
    if key == "openai":
        return openai.chat_definitions(specs, strict=strict)
    if key == "openai-responses":
        return openai.responses_definitions(specs, strict=strict)
    if key == "anthropic":
        return anthropic.definitions(specs)
    return mcp.definitions(specs)


def follow_up(
    fmt: str,
    calls: Sequence[ToolCall | Mapping[str, Any]],
    results: Sequence[ToolResult],
    text: str | None = None,
) -> list[Any]:
    """The follow-up messages for ``fmt`` = "openai", "openai-responses" or "anthropic"."""
    key = _FORMAT_ALIASES.get(str(fmt).strip().lower(), str(fmt).strip().lower())
    parsed = [ToolCall.from_any(c) for c in calls]
    if key == "openai":
        return openai.chat_messages(parsed, results, text)
    if key == "openai-responses":
        return openai.responses_items(parsed, results, text)
    if key == "anthropic":
        return anthropic.messages_for(parsed, results, text)
    raise ValueError(f"unknown format {fmt!r}; use one of: openai, openai-responses, anthropic")


def compact_history(
    messages: Sequence[Any], provider: str = "openai", keep_recent: int = 4
) -> list[Any]:
    """A copy of a transcript with older tool results (and large old arguments) compacted.

    The last `keep_recent` tool turns (a model message with its calls, and their results) stay
    verbatim; in each older turn every result becomes one line saying which call it answered,
    how long it was, how it began (for this package's tools, the summary line) and any
    ``ref_...`` it named, and arguments over 400 characters are clipped. Every call keeps its result and nothing else changes, so
    the transcript stays valid for the provider. `provider`: "openai" (Chat Completions
    messages), "openai-responses" (Responses input items) or "anthropic" (Messages API); SDK
    objects in `messages` come back as plain dicts.

        >>> messages = compact_history(messages, provider="anthropic", keep_recent=4)
    """
    if isinstance(keep_recent, bool) or not isinstance(keep_recent, int) or keep_recent < 0:
        raise ValueError(f"keep_recent must be a whole number from 0, got {keep_recent!r}")
    key = normalise_format(provider)
    if key == "openai":
        return openai.compact_chat(messages, keep_recent)
    if key == "openai-responses":
        return openai.compact_responses(messages, keep_recent)
    if key == "anthropic":
        return anthropic.compact(messages, keep_recent)
    raise ValueError(
        f"compact_history works on openai, openai-responses and anthropic transcripts, not "
        f"{provider!r}"
    )
