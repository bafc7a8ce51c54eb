"""The protocol's value types: a tool's definition, a call the model made, and its result.

    >>> call = ToolCall(id="call_1", name="grep", arguments='{"pattern": "TODO"}')
    >>> call.name
    'grep'

All three are frozen, slotted dataclasses: cheap, hashable where their fields are, and safe to
share between the threads of a parallel batch.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .registry import ToolContext

__all__ = ["Handler", "ToolCall", "ToolOutput", "ToolResult", "ToolSpec"]

@dataclass(frozen=True, slots=True)
class ToolOutput:
    """What a handler may return instead of a plain string: the text plus private metadata.

    `meta` goes to `ToolResult.meta` (never to the model); `is_error` marks a result the model
    should treat as a failed call.
    """

    text: str
    meta: Mapping[str, Any] = field(default_factory=dict)
    is_error: bool = False


#: A tool's function: receives the execution context and the checked arguments (defaults filled
#: in, unknown keys dropped) and returns the text the model sees, or a `ToolOutput`.
Handler = Callable[["ToolContext", dict[str, Any]], str | ToolOutput]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool: its model-facing definition and the function that runs it.

    Args:
        name: a verb_noun name, identical in every export format (``read_file``).
        description: written for the model: what the tool is for, syntax with examples, limits.
        parameters: JSON Schema of the arguments (an object schema, every property described,
            ``additionalProperties: false``); it drives both the exported definitions and the
            argument checking.
        handler: the function, see `Handler`.
        read_only: the tool changes nothing (exported as MCP's ``readOnlyHint``).
        concurrency_safe: calls may run in parallel threads within one batch.
        title: a human-readable name for MCP clients.
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    handler: Handler
    read_only: bool = True
    concurrency_safe: bool = True
    title: str | None = None


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call as the model produced it.

    Args:
        id: the provider's call id (``call_...``, ``toolu_...``); echoed in the result.
        name: the tool the model asked for, possibly one that does not exist.
        arguments: the raw JSON text of the arguments (as streamed), or an already parsed
            mapping (Anthropic's ``input``).
        incomplete: set by `ToolCallAccumulator` when the stream ended before the arguments
            were complete; such a call is answered with an error, never run on a guess.
    """

    id: str
    name: str
    arguments: str | Mapping[str, Any] = "{}"
    incomplete: bool = False

    @classmethod
    def from_any(cls, value: Any) -> ToolCall:
        """Builds a call from a dict or an SDK object of any supported provider.

        Accepts ``{"id", "name", "arguments"}`` dicts, OpenAI chat tool calls (``function`` with
        ``name``/``arguments``), OpenAI Responses ``function_call`` items (``call_id``) and
        Anthropic ``tool_use`` blocks (``input``).

            >>> ToolCall.from_any({"id": "toolu_1", "name": "glob", "input": {"pattern": "*"}}).name
            'glob'
        """
        if isinstance(value, ToolCall):
            return value
        if hasattr(value, "model_dump"):
            value = value.model_dump()
        if not isinstance(value, Mapping):
            raise TypeError(f"cannot make a ToolCall from {type(value).__name__}")
        function = value.get("function")
        if isinstance(function, Mapping):
            name = function.get("name")
            arguments = function.get("arguments")
        else:
            name = value.get("name")
            arguments = value.get("arguments")
            if arguments is None and "input" in value:
                arguments = value.get("input")
        call_id = value.get("call_id") or value.get("id") or ""
        if arguments is None:
            arguments = "{}"
        if not isinstance(arguments, (str, Mapping)):
            arguments = str(arguments)
        return cls(id=str(call_id), name=str(name or ""), arguments=arguments)


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The answer to one call.

    Attributes:
        call_id: the id of the call this answers.
        content: the text the model sees (already bounded by middle truncation).
        is_error: the call failed; `content` says why and what to do instead.
        name: the tool's name as called.
        meta: facts for the application, never shown to the model: ``duration_ms``,
            ``truncated``, ``original_chars``, ``ignored_arguments``, ``error_type`` ...
    """

    call_id: str
    content: str
    is_error: bool = False
    name: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict)
