"""The pipeline of SPEC §3, effects and concurrency: a tool's effect class, and which calls of
a batch run in parallel (decided from each call's arguments, in sync and async batches)."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from _pipeline_helpers import EMPTY
from ripsight import Registry, ToolCall, ToolSpec


def test_effect_classes() -> None:
    assert ToolSpec("a", "", EMPTY, lambda c, a: "").read_only
    spec = ToolSpec("b", "", EMPTY, lambda c, a: "", effect="consequential")
    assert not spec.read_only
    reg = Registry()
    reg.register(spec)
    annotations = reg.definitions("mcp")[0]["annotations"]
    assert annotations["readOnlyHint"] is False and annotations["destructiveHint"] is True
    with pytest.raises(ValueError, match="effect must be one of"):
        ToolSpec("c", "", EMPTY, lambda c, a: "", effect="delete")  # type: ignore[arg-type]


def test_v1_read_only_flag_still_works() -> None:
    handler = lambda c, a: ""
    old_style = ToolSpec("w", "", EMPTY, handler, False, False, "Writes")  # v1 positional order
    assert (old_style.effect, old_style.read_only, old_style.title) == ("write", False, "Writes")
    assert ToolSpec("r", "", EMPTY, handler).read_only is True
    assert ToolSpec("c", "", EMPTY, handler, effect="consequential").read_only is False
    with pytest.raises(ValueError, match="contradicts"):
        ToolSpec("x", "", EMPTY, handler, read_only=True, effect="write")


def concurrency_registry() -> tuple[Registry, list[tuple[str, str, float]]]:
    """`work` is safe to run in parallel when its `n` is below 100; each call sleeps 50 ms and
    records when it started and ended."""
    events: list[tuple[str, str, float]] = []
    lock = threading.Lock()

    def work(ctx: Any, args: dict[str, Any]) -> str:
        with lock:
            events.append((ctx.call_id, "start", time.monotonic()))
        time.sleep(0.05)
        with lock:
            events.append((ctx.call_id, "end", time.monotonic()))
        return "done"

    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    reg = Registry(max_workers=8)
    reg.register(
        ToolSpec(
            "work", "", schema, work, effect="write", concurrency_safe=lambda args: args["n"] < 100
        )
    )
    return reg, events


def intervals(events: list[tuple[str, str, float]]) -> dict[str, tuple[float, float]]:
    starts = {c: t for c, kind, t in events if kind == "start"}
    return {c: (starts[c], t) for c, kind, t in events if kind == "end"}


def overlaps(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def test_concurrency_is_decided_from_the_arguments() -> None:
    reg, events = concurrency_registry()
    calls = [
        ToolCall("a", "work", '{"n": 1}'),
        ToolCall("b", "work", '{"n": 2}'),
        ToolCall("big", "work", '{"n": 500}'),
        ToolCall("c", "work", '{"n": 3}'),
        ToolCall("d", "work", '{"n": 4}'),
    ]
    assert [reg.is_concurrency_safe(c) for c in calls] == [True, True, False, True, True]
    results = reg.execute_many(calls)
    assert [r.call_id for r in results] == ["a", "b", "big", "c", "d"]
    spans = intervals(events)
    assert overlaps(spans["a"], spans["b"]) and overlaps(spans["c"], spans["d"])
    assert spans["b"][1] <= spans["big"][0] and spans["big"][1] <= spans["c"][0]
    reg.close()


def test_calls_whose_arguments_do_not_parse_run_alone() -> None:
    reg, _events = concurrency_registry()
    calls = [
        ToolCall("a", "work", '{"n": 1}'),
        ToolCall("bad", "work", '{"n": '),
        ToolCall("b", "work", '{"n": "x"}'),
        ToolCall("c", "work", '{"n": 2}'),
    ]
    assert [reg.is_concurrency_safe(c) for c in calls] == [True, False, False, True]
    results = reg.execute_many(calls)
    assert [r.meta["code"] for r in results] == ["ok", "malformed_json", "invalid_arguments", "ok"]
    reg.close()


def test_a_raising_safety_function_means_unsafe() -> None:
    def unsure(args: dict[str, Any]) -> bool:
        raise KeyError("n")

    spec = ToolSpec("x", "", EMPTY, lambda c, a: "", concurrency_safe=unsure)
    assert spec.is_concurrency_safe({}) is False
    assert ToolSpec("y", "", EMPTY, lambda c, a: "").is_concurrency_safe(None) is False


def test_async_batches_respect_concurrency_too() -> None:
    reg, events = concurrency_registry()
    calls = [
        ToolCall("a", "work", '{"n": 1}'),
        ToolCall("b", "work", '{"n": 2}'),
        ToolCall("big", "work", '{"n": 500}'),
        ToolCall("c", "work", '{"n": 3}'),
    ]
    results = asyncio.run(reg.aexecute_many(calls))
    assert [r.call_id for r in results] == ["a", "b", "big", "c"]
    spans = intervals(events)
    assert overlaps(spans["a"], spans["b"])
    assert spans["b"][1] <= spans["big"][0] and spans["big"][1] <= spans["c"][0]
    assert len(reg.log.records()) == 4
