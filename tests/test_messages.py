"""Follow-up message builders, validated by each SDK's own parameter types."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter
from ripsight import (
    ToolCall,
    ToolResult,
    anthropic_messages,
    follow_up,
    openai_chat_messages,
    openai_responses_items,
)

CALLS = [
    ToolCall("call_1", "grep", '{"pattern": "TODO"}'),
    ToolCall("call_2", "Read", '{"path": "a.py"}'),
    ToolCall("call_3", "read_file", '{"path": "a.py", '),
]
RESULTS = [
    ToolResult(
        "call_1", '1 match in 1 file for "TODO" (1 file searched):\na.py:1:# TODO', name="grep"
    ),
    ToolResult("call_2", "There is no tool named Read. Did you mean read_file?", True, "Read"),
    ToolResult("call_3", "read_file: The arguments are not valid JSON: ...", True, "read_file"),
]


def test_openai_chat_messages():
    from openai.types.chat import (
        ChatCompletionAssistantMessageParam,
        ChatCompletionToolMessageParam,
    )

    messages = openai_chat_messages(CALLS, RESULTS, text="Let me search.")
    assert len(messages) == 4
    TypeAdapter(ChatCompletionAssistantMessageParam).validate_python(messages[0])
    for message in messages[1:]:
        TypeAdapter(ChatCompletionToolMessageParam).validate_python(message)
    assert messages[0]["content"] == "Let me search."
    assert [tc["id"] for tc in messages[0]["tool_calls"]] == ["call_1", "call_2", "call_3"]
    assert messages[0]["tool_calls"][2]["function"]["arguments"] == '{"path": "a.py", '
    assert [(m["tool_call_id"], m["content"]) for m in messages[1:]] == [
        (r.call_id, r.content) for r in RESULTS
    ]


def test_openai_responses_items():
    from openai.types.responses import ResponseInputItemParam

    items = openai_responses_items(CALLS, RESULTS)
    adapter = TypeAdapter(ResponseInputItemParam)
    for item in items:
        adapter.validate_python(item)
    assert [i["type"] for i in items] == ["function_call"] * 3 + ["function_call_output"] * 3
    assert [i["call_id"] for i in items[3:]] == ["call_1", "call_2", "call_3"]
    assert items[4]["output"] == RESULTS[1].content


def test_anthropic_messages():
    from anthropic.types import MessageParam

    messages = anthropic_messages(CALLS, RESULTS, text="Searching.")
    adapter = TypeAdapter(MessageParam)
    for message in messages:
        adapter.validate_python(message)
    assistant, user = messages
    assert assistant["content"][0] == {"type": "text", "text": "Searching."}
    assert [b["input"] for b in assistant["content"][1:]] == [
        {"pattern": "TODO"},
        {"path": "a.py"},
        {},
    ]
    assert [(b["tool_use_id"], b.get("is_error", False)) for b in user["content"]] == [
        ("call_1", False),
        ("call_2", True),
        ("call_3", True),
    ]


def test_results_are_paired_by_id_and_missing_ones_become_errors():
    shuffled = [RESULTS[2], RESULTS[0]]
    messages = openai_chat_messages(CALLS, shuffled)
    assert [m["tool_call_id"] for m in messages[1:]] == ["call_1", "call_2", "call_3"]
    assert messages[2]["content"] == (
        "This call was not run (no result was produced for it). Call it again."
    )
    assert messages[3]["content"] == RESULTS[2].content


def test_follow_up_dispatch_and_dict_calls():
    calls = [{"id": "toolu_1", "name": "glob", "input": {"pattern": "*"}}]
    results = [ToolResult("toolu_1", "a.py")]
    assert follow_up("anthropic", calls, results)[0]["content"][0]["input"] == {"pattern": "*"}
    assert follow_up("openai", calls, results)[0]["tool_calls"][0]["function"]["arguments"] == (
        '{"pattern":"*"}'
    )
    with pytest.raises(ValueError, match="unknown format"):
        follow_up("gemini", calls, results)
