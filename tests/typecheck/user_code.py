"""What a user writes: ripsight's definitions and messages passed straight to the SDKs.

Never run, only type-checked: tests/test_definitions.py runs `mypy --strict` on this file.
"""

from __future__ import annotations

from anthropic import Anthropic
from openai import OpenAI
from openai.types.chat import ChatCompletionMessageParam
from openai.types.responses import ResponseInputItemParam
from ripsight import (
    ToolCall,
    anthropic_messages,
    compact_history,
    default_registry,
    openai_chat_messages,
    openai_responses_items,
)


def chat(client: OpenAI) -> None:
    reg = default_registry(".")
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": "find TODOs"}]
    response = client.chat.completions.create(
        model="gpt-5", messages=messages, tools=reg.definitions("openai", strict=True)
    )
    calls = [ToolCall.from_any(c) for c in response.choices[0].message.tool_calls or ()]
    messages += openai_chat_messages(calls, reg.execute_many(calls))
    client.chat.completions.create(
        model="gpt-5",
        messages=compact_history(messages, provider="openai"),
        tools=reg.definitions("openai"),
    )


def responses(client: OpenAI) -> None:
    reg = default_registry(".")
    items: list[ResponseInputItemParam] = [{"role": "user", "content": "find TODOs"}]
    response = client.responses.create(
        model="gpt-5", input=items, tools=reg.definitions("openai-responses", strict=True)
    )
    calls = [ToolCall.from_any(i) for i in response.output if i.type == "function_call"]
    items += openai_responses_items(calls, reg.execute_many(calls))
    client.responses.create(model="gpt-5", input=items, tools=reg.definitions("openai-responses"))


def claude(client: Anthropic) -> None:
    reg = default_registry(".")
    message = client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=1024,
        messages=[{"role": "user", "content": "find TODOs"}],
        tools=reg.definitions("anthropic"),
    )
    calls = [ToolCall.from_any(b) for b in message.content if b.type == "tool_use"]
    follow = anthropic_messages(calls, reg.execute_many(calls))
    client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=1024,
        messages=follow,
        tools=reg.definitions("anthropic"),
    )
