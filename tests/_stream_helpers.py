"""Shared helpers of the stream tests (tests/test_streaming_*.py): tool-call arguments, chat
completion chunks and their fragments written by hand, and the calls a stream merges into."""

from __future__ import annotations

from ripsight import ToolCallAccumulator

GREP_ARGS = '{"pattern": "def main", "path": "src", "context": 2}'
READ_ARGS = '{"path": "src/app.py", "offset": 10, "limit": 40}'
GLOB_ARGS = '{"pattern": "**/*.py"}'


def chunk(tool_calls=None, finish=None, content=None):
    delta = {}
    if tool_calls is not None:
        delta["tool_calls"] = tool_calls
    if content is not None:
        delta["content"] = content
    return {
        "id": "x",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def frag(index=None, id=None, name=None, arguments=None):
    fragment = {}
    if index is not None:
        fragment["index"] = index
    if id is not None:
        fragment["id"] = id
    function = {}
    if name is not None:
        function["name"] = name
    if arguments is not None:
        function["arguments"] = arguments
    if function:
        fragment["function"] = function
    return fragment


def merged(events) -> list[tuple[str, str, str]]:
    acc = ToolCallAccumulator()
    for event in events:
        acc.feed(event)
    return [(c.id, c.name, c.arguments) for c in acc.drain()]
