"""`compact_history` on 30-tool-turn transcripts in each provider's shape: valid for the SDK's
own parameter types before and after, recent turns verbatim, every call kept with its result."""

from __future__ import annotations

import copy
import json
import typing
from pathlib import Path
from typing import Any

import orjson
import pytest
from pydantic import TypeAdapter
from ripsight import ToolCall, compact_history, default_registry, follow_up

TURNS = 30
KEEP = 4
LONG_PATTERN = "|".join(f"identifier_number_{i}" for i in range(40))  # ~900 characters


def materialize(value: Any) -> Any:
    """Pydantic validates Iterable fields lazily; walking them forces the validation."""
    if isinstance(value, dict):
        return {k: materialize(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [materialize(v) for v in value]
    if hasattr(value, "__next__"):
        return [materialize(v) for v in value]
    return value


def check_with(adapter: TypeAdapter[Any], value: Any) -> None:
    # The adapter must outlive the lazy iterators it returns.
    materialize(adapter.validate_python(value))


def validate(kind: str, messages: list[Any]) -> None:
    """Validates a transcript with the provider SDK's own parameter types."""
    if kind == "openai":
        from openai.types.chat import ChatCompletionMessageParam

        check_with(TypeAdapter(list[ChatCompletionMessageParam]), messages)
    elif kind == "anthropic":
        from anthropic.types import MessageParam

        check_with(TypeAdapter(list[MessageParam]), messages)
    else:
        from openai.types.responses import (
            EasyInputMessageParam,
            ResponseFunctionToolCallParam,
            ResponseInputItemParam,
        )
        from openai.types.responses.response_input_item_param import FunctionCallOutput

        check_with(TypeAdapter(list[ResponseInputItemParam]), messages)
        # The union accepts loose dicts; each item must also be the exact type it claims.
        by_type = {
            "function_call": ResponseFunctionToolCallParam,
            "function_call_output": FunctionCallOutput,
        }
        for item in messages:
            item_type = by_type.get(item.get("type"), EasyInputMessageParam)
            check_with(TypeAdapter(list[item_type]), [item])  # type: ignore[valid-type]


@pytest.mark.slow
def test_the_validation_rejects_broken_transcripts() -> None:
    from pydantic import ValidationError

    broken = {
        "openai": [{"role": "tool", "content": "x"}],
        "openai-responses": [{"type": "function_call_output", "call_id": "c", "output": 5}],
        "anthropic": [{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}],
    }
    for kind, messages in broken.items():
        with pytest.raises(ValidationError):
            validate(kind, messages)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("compaction")
    (root / "src").mkdir()
    for i in range(12):
        (root / "src" / f"mod{i}.py").write_text(
            "".join(
                f"def identifier_number_{j}(x):\n    return x + {j}  # TODO\n"
                for j in range(i * 5, i * 5 + 60)
            )
        )
    return root


def tool_turns(tree: Path) -> list[tuple[list[ToolCall], list[Any]]]:
    """30 tool turns of real calls and results (some with two calls, some with long arguments)."""
    reg = default_registry(tree)
    turns = []
    for t in range(TURNS):
        calls = [
            ToolCall(
                f"call_{t}_0",
                "grep",
                orjson.dumps(
                    {"pattern": LONG_PATTERN if t % 3 == 0 else f"identifier_number_{t}\\b"}
                ).decode(),
            )
        ]
        if t % 2:
            calls.append(
                ToolCall(
                    f"call_{t}_1",
                    "read_file",
                    orjson.dumps(
                        {"path": f"src/mod{t % 12}.py", "offset": 1 + t, "limit": 80}
                    ).decode(),
                )
            )
        turns.append((calls, reg.execute_many(calls)))
    return turns


def transcript(kind: str, turns: list[tuple[list[ToolCall], list[Any]]]) -> list[Any]:
    messages: list[Any] = []
    if kind == "openai":
        messages.append({"role": "system", "content": "You explore code."})
    messages.append({"role": "user", "content": "Where is identifier_number_7 used?"})
    for i, (calls, results) in enumerate(turns):
        messages += follow_up(kind, calls, results, text=f"Looking ({i})." if i % 4 == 0 else None)
        if i % 7 == 6:
            messages.append({"role": "user", "content": "Keep going."})
    final = "It is defined in src/mod1.py."
    if kind == "anthropic":
        messages.append({"role": "assistant", "content": [{"type": "text", "text": final}]})
    else:
        messages.append({"role": "assistant", "content": final})
    return messages


def pairs(kind: str, messages: list[Any]) -> list[tuple[str, str, int, int]]:
    """(call id, tool name, position of the call, position of its result) for every call."""
    calls: dict[str, tuple[str, int]] = {}
    results: dict[str, int] = {}
    for i, m in enumerate(messages):
        if kind == "openai":
            for c in m.get("tool_calls") or ():
                calls[c["id"]] = (c["function"]["name"], i)
            if m.get("role") == "tool":
                assert m["tool_call_id"] not in results
                results[m["tool_call_id"]] = i
        elif kind == "openai-responses":
            if m.get("type") == "function_call":
                calls[m["call_id"]] = (m["name"], i)
            if m.get("type") == "function_call_output":
                assert m["call_id"] not in results
                results[m["call_id"]] = i
        else:
            for b in m["content"] if isinstance(m["content"], list) else ():
                if b["type"] == "tool_use":
                    calls[b["id"]] = (b["name"], i)
                if b["type"] == "tool_result":
                    assert b["tool_use_id"] not in results
                    results[b["tool_use_id"]] = i
    assert set(calls) == set(results)
    out = [(cid, name, pos, results[cid]) for cid, (name, pos) in calls.items()]
    for _, _, call_pos, result_pos in out:
        assert result_pos > call_pos
        if kind == "anthropic":
            assert result_pos == call_pos + 1  # results in the very next (user) message
    return sorted(out, key=lambda p: p[3])


def result_texts(kind: str, messages: list[Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for m in messages:
        if kind == "openai" and m.get("role") == "tool":
            found[m["tool_call_id"]] = m["content"]
        elif kind == "openai-responses" and m.get("type") == "function_call_output":
            found[m["call_id"]] = m["output"]
        elif kind == "anthropic" and isinstance(m["content"], list):
            for b in m["content"]:
                if b["type"] == "tool_result":
                    found[b["tool_use_id"]] = b["content"]
    return found


def arguments_of(kind: str, messages: list[Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for m in messages:
        if kind == "openai":
            for c in m.get("tool_calls") or ():
                found[c["id"]] = json.loads(c["function"]["arguments"])
        elif kind == "openai-responses" and m.get("type") == "function_call":
            found[m["call_id"]] = json.loads(m["arguments"])
        elif kind == "anthropic" and isinstance(m["content"], list):
            for b in m["content"]:
                if b["type"] == "tool_use":
                    found[b["id"]] = b["input"]
    return found


@pytest.mark.parametrize("kind", ["openai", "openai-responses", "anthropic"])
def test_compaction_of_30_tool_turns(kind: str, tree: Path) -> None:
    messages = transcript(kind, tool_turns(tree))
    original = copy.deepcopy(messages)
    validate(kind, messages)
    before = pairs(kind, messages)
    assert len(before) == 45

    compacted = compact_history(messages, provider=kind, keep_recent=KEEP)
    assert messages == original, "the input is not changed"
    validate(kind, compacted)
    after = pairs(kind, compacted)
    assert after == before, "every call keeps its result, in place"
    assert len(compacted) == len(messages)

    old_texts, new_texts = result_texts(kind, messages), result_texts(kind, compacted)
    # The last KEEP tool turns (turn t made call_t_0 and, for odd t, call_t_1) stay verbatim.
    recent = [cid for cid, *_ in before if int(cid.split("_")[1]) >= TURNS - KEEP]
    older = [(cid, name) for cid, name, *_ in before if int(cid.split("_")[1]) < TURNS - KEEP]
    assert len(recent) == 6 and len(older) == 39
    for cid in recent:
        assert new_texts[cid] == old_texts[cid]
    for cid, name in older:
        text = new_texts[cid]
        assert isinstance(text, str) and text.startswith(
            f"[compacted: the result of {name} call {cid} ("
        )
        first_line = old_texts[cid].split("\n", 1)[0]
        assert first_line[:100] in text
        assert len(text) < 400
    # Large arguments of older calls are clipped (still JSON); recent ones are untouched.
    old_args, new_args = arguments_of(kind, messages), arguments_of(kind, compacted)
    for cid, _ in older:
        if old_args[cid].get("pattern") == LONG_PATTERN:
            assert (
                new_args[cid]["pattern"]
                == LONG_PATTERN[:120] + f"... [{len(LONG_PATTERN)} characters]"
            )
        else:
            assert new_args[cid] == old_args[cid]
    for cid in recent:
        assert new_args[cid] == old_args[cid]
    # Everything that is not a tool result or a call is as it was.
    size = len(orjson.dumps(messages))
    assert len(orjson.dumps(compacted)) < size / 3
    # Compacting again changes nothing; keeping everything changes nothing.
    assert compact_history(compacted, provider=kind, keep_recent=KEEP) == compacted
    assert compact_history(messages, provider=kind, keep_recent=1000) == messages


def test_sdk_objects_come_back_as_valid_dicts(tree: Path) -> None:
    from anthropic.types import Message
    from openai.types.chat import ChatCompletionMessage

    reg = default_registry(tree)
    call = ToolCall("call_1", "glob", '{"pattern": "**/*.py"}')
    result = reg.execute(call)
    assistant = ChatCompletionMessage.model_validate(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "glob", "arguments": call.arguments},
                }
            ],
        }
    )
    messages = [
        {"role": "user", "content": "list"},
        assistant,
        {"role": "tool", "tool_call_id": "call_1", "content": result.content},
    ]
    compacted = compact_history(messages, provider="openai", keep_recent=0)
    validate("openai", compacted)
    assert compacted[2]["content"].startswith("[compacted: the result of glob call call_1 (")
    assert "12 files match" in compacted[2]["content"]

    reply = Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "glob",
                    "input": {"pattern": "**/*.py"},
                }
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )
    history = [
        {"role": "user", "content": "list"},
        {"role": "assistant", "content": reply.content},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": [{"type": "text", "text": result.content}],
                }
            ],
        },
    ]
    compacted = compact_history(history, provider="anthropic", keep_recent=0)
    validate("anthropic", compacted)
    assert compacted[2]["content"][0]["content"].startswith("[compacted: the result of glob call")


def test_references_named_in_a_result_survive_compaction(tree: Path) -> None:
    reg = default_registry(tree)
    call = ToolCall("call_1", "grep", '{"pattern": "TODO", "limit": 500}')
    result = reg.execute(call)
    assert result.meta.get("ref")
    messages = follow_up("openai", [call], [result])
    compacted = compact_history(messages, provider="openai", keep_recent=0)
    assert f"whole result stored as {result.meta['ref']}" in compacted[1]["content"]


def test_keep_recent_counts_tool_turns(tree: Path) -> None:
    turns = tool_turns(tree)[:3]  # turn 1 has two calls
    for kind in ("openai", "openai-responses", "anthropic"):
        messages = transcript(kind, turns)
        texts = result_texts(kind, compact_history(messages, provider=kind, keep_recent=2))
        compacted = sorted(
            cid for cid, text in texts.items() if str(text).startswith("[compacted:")
        )
        assert compacted == ["call_0_0"], (kind, compacted)
        texts = result_texts(kind, compact_history(messages, provider=kind, keep_recent=0))
        assert all(str(t).startswith("[compacted:") for t in texts.values())


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="keep_recent"):
        compact_history([], provider="openai", keep_recent=-1)
    with pytest.raises(ValueError, match="not 'mcp'"):
        compact_history([], provider="mcp")
    assert typing.get_type_hints(compact_history)["return"] == list[Any]
