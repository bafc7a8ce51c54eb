"""Simulated provider streams: a model's tool calls as OpenAI chat chunks, Anthropic events and
OpenAI Responses events, cut into random pieces as a network would."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

__all__ = ["anthropic_events", "openai_chat_chunks", "responses_events"]


def _pieces(text: str, rng: random.Random, smallest: int = 1, largest: int = 9) -> list[str]:
    pieces, i = [], 0
    while i < len(text):
        step = rng.randint(smallest, largest)
        pieces.append(text[i : i + step])
        i += step
    return pieces or [""]


def openai_chat_chunks(
    calls: Sequence[tuple[str, str, str]],
    rng: random.Random,
    *,
    first_index: int = 0,
    interleave: bool = False,
    text: str | None = None,
    finish_reason: str | None = "tool_calls",
) -> list[dict[str, Any]]:
    """Chat Completions chunks for `calls` = (id, name, arguments); id and name only come first."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-demo",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": "scripted-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    chunks = [chunk({"role": "assistant", "content": text or None})]
    queues: list[list[dict[str, Any]]] = []
    for n, (call_id, name, arguments) in enumerate(calls):
        index = first_index + n
        pieces = _pieces(arguments, rng)
        queue = [
            {
                "index": index,
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": ""},
            }
        ]
        queue += [{"index": index, "function": {"arguments": p}} for p in pieces]
        queues.append(queue)
    if interleave:
        while any(queues):
            queue = rng.choice([q for q in queues if q])
            chunks.append(chunk({"tool_calls": [queue.pop(0)]}))
    else:
        for queue in queues:
            chunks += [chunk({"tool_calls": [fragment]}) for fragment in queue]
    if finish_reason is not None:
        chunks.append(chunk({}, finish_reason))
    return chunks


def anthropic_events(
    calls: Sequence[tuple[str, str, str]], rng: random.Random, *, text: str | None = None
) -> list[dict[str, Any]]:
    """Anthropic Messages stream events: a text block, then one tool_use block per call."""
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_demo",
                "type": "message",
                "role": "assistant",
                "content": [],
                "model": "scripted-model",
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 0, "output_tokens": 0},
            },
        }
    ]
    index = 0
    if text:
        events += [
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text},
            },
            {"type": "content_block_stop", "index": 0},
        ]
        index = 1
    for call_id, name, arguments in calls:
        events.append(
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}},
            }
        )
        for piece in _pieces(arguments, rng):
            events.append(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": piece},
                }
            )
        events.append({"type": "content_block_stop", "index": index})
        index += 1
    events += [
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 42},
        },
        {"type": "message_stop"},
    ]
    return events


def responses_events(
    calls: Sequence[tuple[str, str, str]], rng: random.Random
) -> list[dict[str, Any]]:
    """OpenAI Responses stream events for function calls (added, deltas, done, completed)."""
    events: list[dict[str, Any]] = []
    seq = 0

    def add(event: dict[str, Any]) -> None:
        nonlocal seq
        event["sequence_number"] = seq
        seq += 1
        events.append(event)

    for output_index, (call_id, name, arguments) in enumerate(calls):
        item_id = f"fc_demo_{output_index}"
        item = {
            "type": "function_call",
            "id": item_id,
            "call_id": call_id,
            "name": name,
            "arguments": "",
            "status": "in_progress",
        }
        add({"type": "response.output_item.added", "output_index": output_index, "item": item})
        for piece in _pieces(arguments, rng):
            add(
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": item_id,
                    "output_index": output_index,
                    "delta": piece,
                }
            )
        add(
            {
                "type": "response.function_call_arguments.done",
                "item_id": item_id,
                "output_index": output_index,
                "arguments": arguments,
            }
        )
        add(
            {
                "type": "response.output_item.done",
                "output_index": output_index,
                "item": dict(item, arguments=arguments, status="completed"),
            }
        )
    add({"type": "response.completed", "response": {"id": "resp_demo", "status": "completed"}})
    return events
