"""OpenAI: tool definitions and follow-up messages for Chat Completions and the Responses API.

    >>> tools = chat_definitions(builtin_tools(), strict=True)
    >>> messages += chat_messages(calls, results, text=acc.text)
    >>> input_items += responses_items(calls, results)

The return types are the `openai` SDK's own parameter types (imported for type checkers only),
so passing them to ``client.chat.completions.create(tools=..., messages=...)`` type-checks.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..types import ToolCall, ToolResult, ToolSpec
from ._common import (
    arguments_text,
    compact_arguments_text,
    compact_result_text,
    older_calls,
    pair_results,
    plain,
    strict_schema,
)

if TYPE_CHECKING:
    from openai.types.chat import (
        ChatCompletionAssistantMessageParam,
        ChatCompletionContentPartParam,
        ChatCompletionFunctionToolParam,
        ChatCompletionMessageParam,
        ChatCompletionToolMessageParam,
        ChatCompletionUserMessageParam,
    )
    from openai.types.responses import (
        FunctionToolParam,
        ResponseFunctionCallOutputItemListParam,
        ResponseInputItemParam,
    )

__all__ = [
    "chat_definitions",
    "chat_image_messages",
    "chat_messages",
    "compact_chat",
    "compact_responses",
    "responses_definitions",
    "responses_items",
]


def _parameters(spec: ToolSpec, strict: bool) -> dict[str, object]:
    if strict:
        return strict_schema(spec.parameters)
    schema: dict[str, object] = copy.deepcopy(dict(spec.parameters))
    return schema


def chat_definitions(
    specs: Sequence[ToolSpec], strict: bool = False
) -> list[ChatCompletionFunctionToolParam]:
    """Chat Completions ``tools``; `strict` gives strict-mode schemas (see `strict_schema`)."""
    out: list[ChatCompletionFunctionToolParam] = []
    for spec in specs:
        tool: ChatCompletionFunctionToolParam = {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": _parameters(spec, strict),
            },
        }
        if strict:
            tool["function"]["strict"] = True
        out.append(tool)
    return out


def responses_definitions(
    specs: Sequence[ToolSpec], strict: bool = False
) -> list[FunctionToolParam]:
    """Responses API ``tools`` (function tools); `strict` as for `chat_definitions`."""
    return [
        {
            "type": "function",
            "name": spec.name,
            "description": spec.description,
            "parameters": _parameters(spec, strict),
            "strict": strict,
        }
        for spec in specs
    ]


def chat_messages(
    calls: Sequence[ToolCall], results: Sequence[ToolResult], text: str | None = None
) -> list[ChatCompletionMessageParam]:
    """One assistant message with ``tool_calls``, then one ``tool`` message per call (text
    only, as the API takes it: `chat_image_messages` adds the images as a user message)."""
    pairs = pair_results(calls, results)
    assistant: ChatCompletionAssistantMessageParam = {
        "role": "assistant",
        "content": text or None,
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": arguments_text(call)},
            }
            for call, _ in pairs
        ],
    }
    messages: list[ChatCompletionMessageParam] = [assistant]
    for call, result in pairs:
        reply: ChatCompletionToolMessageParam = {
            "role": "tool",
            "tool_call_id": call.id,
            "content": result.content,
        }
        messages.append(reply)
    return messages


def responses_items(
    calls: Sequence[ToolCall], results: Sequence[ToolResult], text: str | None = None
) -> list[ResponseInputItemParam]:
    """Responses API input items: the ``function_call`` items, then a ``function_call_output``
    for each (with images, its output is a list: ``input_text``, then ``input_image``s)."""
    pairs = pair_results(calls, results)
    items: list[ResponseInputItemParam] = []
    if text:
        items.append({"role": "assistant", "content": text})
    for call, _ in pairs:
        items.append(
            {
                "type": "function_call",
                "call_id": call.id,
                "name": call.name,
                "arguments": arguments_text(call),
            }
        )
    for call, result in pairs:
        items.append(
            {
                "type": "function_call_output",
                "call_id": call.id,
                "output": _responses_output(result),
            }
        )
    return items


def _responses_output(result: ToolResult) -> str | ResponseFunctionCallOutputItemListParam:
    """A ``function_call_output``'s output: the text, or with images a list of an
    ``input_text`` and an ``input_image`` (a data URL) per image."""
    if not result.images:
        return result.content
    output: ResponseFunctionCallOutputItemListParam = [
        {"type": "input_text", "text": result.content}
    ]
    for image in result.images:
        output.append({"type": "input_image", "image_url": image.data_url, "detail": "auto"})
    return output


def chat_image_messages(results: Sequence[ToolResult]) -> list[ChatCompletionUserMessageParam]:
    """The images of `results` as one user message, for Chat Completions (whose ``tool``
    messages carry text only): append it after the ``tool`` messages of `chat_messages`.

        >>> messages += chat_messages(calls, results)
        >>> messages += chat_image_messages(results)   # [] when no result has an image

    The message names each image's call, so the model can tell which read it shows."""
    content: list[ChatCompletionContentPartParam] = []
    for result in results:
        for number, image in enumerate(result.images, 1):
            content.append(
                {
                    "type": "text",
                    "text": f"Image {number} of the result of {result.name or 'the'} call "
                    f"{result.call_id}:",
                }
            )
            content.append(
                {"type": "image_url", "image_url": {"url": image.data_url, "detail": "auto"}}
            )
    if not content:
        return []
    return [{"role": "user", "content": content}]


def compact_chat(messages: Iterable[Any], keep_recent: int) -> list[dict[str, Any]]:
    """Chat Completions messages in which every tool turn (an assistant message with
    ``tool_calls``) but the last `keep_recent` has its ``tool`` results in compact form and its
    large arguments clipped. Nothing is removed, so every call keeps its result."""
    out: list[dict[str, Any]] = [plain(m) for m in messages]
    names: dict[str, str] = {}
    turns: list[list[str]] = []
    for message in out:
        calls = message.get("tool_calls") if message.get("role") == "assistant" else None
        if not calls:
            continue
        turns.append([])
        for call in calls:
            if isinstance(call, dict):
                function = call.get("function")
                name = function.get("name", "") if isinstance(function, dict) else ""
                names[str(call.get("id"))] = str(name)
                turns[-1].append(str(call.get("id")))
    older = older_calls(turns, keep_recent)
    for message in out:
        if message.get("role") == "tool" and str(message.get("tool_call_id")) in older:
            call_id = str(message.get("tool_call_id"))
            message["content"] = compact_result_text(
                names.get(call_id, ""), call_id, message.get("content")
            )
        if message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or ():
            function = call.get("function") if isinstance(call, dict) else None
            if str(call.get("id")) in older and isinstance(function, dict):
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    function["arguments"] = compact_arguments_text(arguments)
    return out


_CALL_ITEMS = {"function_call": "arguments", "custom_tool_call": "input"}
_OUTPUT_ITEMS = ("function_call_output", "custom_tool_call_output")


def compact_responses(items: Iterable[Any], keep_recent: int) -> list[dict[str, Any]]:
    """Responses API input items, compacted as `compact_chat` does. A tool turn is a run of
    call items up to the next output item or message (reasoning items do not end it)."""
    out: list[dict[str, Any]] = [plain(item) for item in items]
    names: dict[str, str] = {}
    turns: list[list[str]] = []
    in_turn = False
    for item in out:
        kind = item.get("type")
        if kind in _CALL_ITEMS:
            if not in_turn:
                turns.append([])
                in_turn = True
            names[str(item.get("call_id"))] = str(item.get("name", ""))
            turns[-1].append(str(item.get("call_id")))
        elif kind != "reasoning":
            in_turn = False
    older = older_calls(turns, keep_recent)
    for item in out:
        call_id = str(item.get("call_id"))
        if call_id not in older:
            continue
        if item.get("type") in _OUTPUT_ITEMS:
            item["output"] = compact_result_text(
                names.get(call_id, ""), call_id, item.get("output")
            )
        key = _CALL_ITEMS.get(str(item.get("type")))
        if key is not None and isinstance(item.get(key), str):
            item[key] = compact_arguments_text(item[key])
    return out
