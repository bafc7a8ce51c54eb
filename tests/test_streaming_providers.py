"""ToolCallAccumulator, each provider's own events: the objects of the OpenAI, Anthropic and
Responses SDKs, blocks and items that are not calls, and recorded streams read through the SDK
clients themselves."""

from __future__ import annotations

import random

import orjson
import pytest
from _stream_helpers import GLOB_ARGS, GREP_ARGS, READ_ARGS, chunk, merged
from pydantic import TypeAdapter
from ripsight import ToolCallAccumulator
from ripsight.demo import anthropic_events, openai_chat_chunks, responses_events

# -- SDK objects ---------------------------------------------------------------------------------


def test_openai_chat_sdk_chunks():
    from openai.types.chat import ChatCompletionChunk

    calls = [("call_a", "grep", GREP_ARGS), ("call_b", "read_file", READ_ARGS)]
    raw = openai_chat_chunks(calls, random.Random(1), first_index=1, interleave=True, text="Hm.")
    objects = [ChatCompletionChunk.model_validate(c) for c in raw]
    acc = ToolCallAccumulator()
    for obj in objects:
        acc.feed(obj)
    assert acc.text == "Hm." and acc.finish_reason == "tool_calls"
    assert [(c.id, c.name, c.arguments) for c in acc.drain()] == calls


def test_anthropic_sdk_events_constructed_directly():
    from anthropic.types import (
        InputJSONDelta,
        RawContentBlockDeltaEvent,
        RawContentBlockStartEvent,
        RawContentBlockStopEvent,
        RawMessageStopEvent,
        TextBlock,
        TextDelta,
        ToolUseBlock,
    )

    events = [
        RawContentBlockStartEvent(
            type="content_block_start", index=0, content_block=TextBlock(type="text", text="")
        ),
        RawContentBlockDeltaEvent(
            type="content_block_delta", index=0, delta=TextDelta(type="text_delta", text="Looking.")
        ),
        RawContentBlockStopEvent(type="content_block_stop", index=0),
        RawContentBlockStartEvent(
            type="content_block_start",
            index=1,
            content_block=ToolUseBlock(type="tool_use", id="toolu_1", name="grep", input={}),
        ),
        RawContentBlockDeltaEvent(
            type="content_block_delta",
            index=1,
            delta=InputJSONDelta(type="input_json_delta", partial_json=GREP_ARGS[:12]),
        ),
        RawContentBlockDeltaEvent(
            type="content_block_delta",
            index=1,
            delta=InputJSONDelta(type="input_json_delta", partial_json=""),
        ),
        RawContentBlockDeltaEvent(
            type="content_block_delta",
            index=1,
            delta=InputJSONDelta(type="input_json_delta", partial_json=GREP_ARGS[12:]),
        ),
        RawContentBlockStopEvent(type="content_block_stop", index=1),
        RawMessageStopEvent(type="message_stop"),
    ]
    acc = ToolCallAccumulator()
    for event in events:
        acc.feed(event)
    assert acc.text == "Looking."
    assert [(c.id, c.name, c.arguments) for c in acc.drain()] == [("toolu_1", "grep", GREP_ARGS)]


def test_anthropic_stream_validated_by_sdk_union():
    from anthropic.types import RawMessageStreamEvent

    adapter = TypeAdapter(RawMessageStreamEvent)
    calls = [("toolu_a", "grep", GREP_ARGS), ("toolu_b", "read_file", READ_ARGS)]
    events = [
        adapter.validate_python(e)
        for e in anthropic_events(calls, random.Random(2), text="Let me look.")
    ]
    acc = ToolCallAccumulator()
    for event in events:
        acc.feed(event)
    assert acc.finish_reason == "tool_use" and acc.is_tool_turn
    assert [(c.id, c.name, c.arguments) for c in acc.drain()] == calls


def test_anthropic_tool_without_input_deltas_uses_the_start_input():
    events = [
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {
                "type": "tool_use",
                "id": "toolu_x",
                "name": "glob",
                "input": {"pattern": "*"},
            },
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "message_stop"},
    ]
    assert merged(events) == [("toolu_x", "glob", '{"pattern":"*"}')]


def test_anthropic_sdk_derived_events_are_not_counted_twice():
    events = anthropic_events([("toolu_a", "grep", GREP_ARGS)], random.Random(4))
    with_derived = []
    for event in events:
        with_derived.append(event)
        if event["type"] == "content_block_delta":
            with_derived.append(
                {
                    "type": "input_json",
                    "partial_json": event["delta"]["partial_json"],
                    "snapshot": {},
                }
            )
    assert merged(with_derived) == [("toolu_a", "grep", GREP_ARGS)]


def test_anthropic_cut_off_stream():
    events = anthropic_events([("toolu_a", "grep", GREP_ARGS)], random.Random(4))
    cut = [e for e in events if e["type"] in ("message_start", "content_block_start")]
    cut += [e for e in events if e["type"] == "content_block_delta"][:2]
    acc = ToolCallAccumulator()
    for event in cut:
        acc.feed(event)
    (call,) = acc.drain()
    assert call.incomplete and call.id == "toolu_a"


def test_responses_sdk_events():
    from openai.types.responses import ResponseStreamEvent

    adapter = TypeAdapter(ResponseStreamEvent)
    calls = [("call_r1", "grep", GREP_ARGS), ("call_r2", "glob", GLOB_ARGS)]
    raw = responses_events(calls, random.Random(3))
    raw[-1] = {
        "type": "response.completed",
        "sequence_number": raw[-1]["sequence_number"],
        "response": {
            "id": "resp",
            "object": "response",
            "created_at": 0,
            "model": "m",
            "output": [],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "status": "completed",
        },
    }
    objects = []
    for event in raw:
        try:
            objects.append(adapter.validate_python(event))
        except Exception:  # noqa: BLE001 - the completed event's Response may need more fields
            assert event["type"] == "response.completed"
            objects.append(event)
    assert sum(not isinstance(o, dict) for o in objects) >= len(raw) - 1
    acc = ToolCallAccumulator()
    for obj in objects:
        acc.feed(obj)
    assert acc.finish_reason == "completed"
    assert [(c.id, c.name, c.arguments) for c in acc.drain()] == calls


def test_responses_deltas_matched_by_item_id_only():
    events = [
        {
            "type": "response.output_item.added",
            "output_index": 3,
            "item": {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "grep",
                "arguments": "",
            },
        },
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_1",
            "delta": GREP_ARGS[:8],
        },
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_1",
            "delta": GREP_ARGS[8:],
        },
        {"type": "response.completed", "response": {}},
    ]
    assert merged(events) == [("call_1", "grep", GREP_ARGS)]


def test_responses_done_event_is_authoritative():
    events = [
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "grep",
                "arguments": "",
            },
        },
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 0,
            "item_id": "fc_1",
            "delta": GREP_ARGS[:8],
        },
        {
            "type": "response.function_call_arguments.done",
            "output_index": 0,
            "item_id": "fc_1",
            "arguments": GREP_ARGS,
        },
    ]
    assert merged(events) == [("call_1", "grep", GREP_ARGS)]


def test_anthropic_server_tool_and_thinking_blocks_are_not_calls():
    events = [
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "hmm"},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {
                "type": "server_tool_use",
                "id": "srvtoolu_1",
                "name": "web_search",
                "input": {},
            },
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": '{"query": "x"}'},
        },
        {"type": "content_block_stop", "index": 1},
        {
            "type": "content_block_start",
            "index": 2,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "grep", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 2,
            "delta": {"type": "input_json_delta", "partial_json": GREP_ARGS},
        },
        {"type": "content_block_stop", "index": 2},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}},
        {"type": "message_stop"},
    ]
    assert merged(events) == [("toolu_1", "grep", GREP_ARGS)]


def test_responses_non_function_items_are_ignored():
    events = [
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "reasoning", "id": "rs_1", "summary": []},
        },
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []},
        },
        {
            "type": "response.output_text.delta",
            "output_index": 1,
            "item_id": "msg_1",
            "content_index": 0,
            "delta": "Searching.",
        },
        {
            "type": "response.output_item.added",
            "output_index": 2,
            "item": {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "grep",
                "arguments": "",
            },
        },
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 2,
            "item_id": "fc_1",
            "delta": GREP_ARGS,
        },
        {"type": "response.completed", "response": {}},
    ]
    acc = ToolCallAccumulator()
    acc.feed_many(events)
    assert acc.text == "Searching."
    assert [(c.id, c.arguments) for c in acc.drain()] == [("call_1", GREP_ARGS)]


# -- recorded SSE streams through the SDK clients themselves (httpx mock transport, no network) ----


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def sse_body(events, with_event_names: bool) -> bytes:
    out = []
    for event in events:
        if with_event_names:
            out.append(f"event: {event['type']}\n")
        out.append("data: " + orjson.dumps(event).decode() + "\n\n")
    return "".join(out).encode()


def mock_client(body: bytes):
    # The SDKs here are built on httpx2 (older releases on httpx): use whichever they import.
    httpx = pytest.importorskip("httpx2") if _has("httpx2") else pytest.importorskip("httpx")

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    return httpx.Client(transport=httpx.MockTransport(handler))


def test_openai_chat_stream_through_the_sdk_client():
    import openai

    calls = [("call_a", "grep", GREP_ARGS), ("call_b", "read_file", READ_ARGS)]
    chunks = openai_chat_chunks(calls, random.Random(21), first_index=1, interleave=True)
    body = sse_body(chunks, with_event_names=False) + b"data: [DONE]\n\n"
    client = openai.OpenAI(api_key="test", base_url="http://mock/v1", http_client=mock_client(body))
    stream = client.chat.completions.create(model="m", messages=[], stream=True)
    acc = ToolCallAccumulator()
    for sdk_chunk in stream:
        acc.feed(sdk_chunk)
    assert [(c.id, c.name, c.arguments) for c in acc.drain()] == calls


def test_anthropic_stream_through_the_sdk_client():
    import anthropic

    calls = [("toolu_a", "grep", GREP_ARGS), ("toolu_b", "glob", GLOB_ARGS)]
    events = anthropic_events(calls, random.Random(22), text="Looking.")
    client = anthropic.Anthropic(
        api_key="test",
        base_url="http://mock",
        http_client=mock_client(sse_body(events, with_event_names=True)),
    )
    stream = client.messages.create(model="m", max_tokens=10, messages=[], stream=True)
    acc = ToolCallAccumulator()
    for sdk_event in stream:
        acc.feed(sdk_event)
    assert acc.text == "Looking." and acc.finish_reason == "tool_use"
    assert [(c.id, c.name, c.arguments) for c in acc.drain()] == calls


def test_responses_stream_through_the_sdk_client():
    import openai

    calls = [("call_r", "read_file", READ_ARGS)]
    events = responses_events(calls, random.Random(23))[:-1]  # without response.completed
    client = openai.OpenAI(
        api_key="test",
        base_url="http://mock/v1",
        http_client=mock_client(sse_body(events, with_event_names=True)),
    )
    stream = client.responses.create(model="m", input="hi", stream=True)
    acc = ToolCallAccumulator()
    for sdk_event in stream:
        acc.feed(sdk_event)
    assert [(c.id, c.name, c.arguments) for c in acc.drain()] == calls


def test_openai_stream_helper_events():
    """`client.chat.completions.stream()` yields ChunkEvents plus derived events."""
    from openai.lib.streaming.chat import ChunkEvent, FunctionToolCallArgumentsDeltaEvent
    from openai.types.chat import ChatCompletionChunk

    calls = [("call_h", "grep", GREP_ARGS)]
    events = []
    for raw in openai_chat_chunks(calls, random.Random(9)):
        events.append(
            ChunkEvent.model_construct(
                type="chunk", chunk=ChatCompletionChunk.model_validate(raw), snapshot=None
            )
        )
        events.append(
            FunctionToolCallArgumentsDeltaEvent(
                type="tool_calls.function.arguments.delta",
                name="grep",
                index=0,
                arguments="ignored",
                parsed_arguments=None,
                arguments_delta="ignored",
            )
        )
    events.append({"type": "chunk", "chunk": chunk(finish="tool_calls"), "snapshot": {}})
    assert merged(events) == calls
