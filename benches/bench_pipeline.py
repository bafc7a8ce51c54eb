"""What the protocol pipeline itself costs a call (SPEC §3: operation log, lookup, argument
checking, policy, classification, bounding), measured on a host tool that does no work, beside
calling that tool's handler directly; and a grep through the registry beside `Workspace.grep`."""

from __future__ import annotations

from typing import Any

import pytest
from ripsight import Registry, ToolCall, ToolSpec, Workspace, default_registry
from ripsight import bench as sb

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": False}


def echo(ctx: Any, args: dict[str, Any]) -> str:
    return f"n={args['n']}"


@pytest.mark.parametrize("way", ["handler", "Registry.execute", "default_registry execute"])
def test_pipeline_overhead(benchmark, way: str, tmp_path) -> None:
    """The registry's own cost: a tool that does nothing, in a bare registry and in the one
    `default_registry` makes (a workspace, the built-in tools beside it, the session)."""
    reg = default_registry(tmp_path) if way.startswith("default") else Registry()
    reg.register(ToolSpec("echo", "", SCHEMA, echo))
    call = ToolCall("c1", "echo", '{"n": 7}')
    if way == "handler":
        run = lambda: echo(None, {"n": 7})
    else:
        run = lambda: reg.execute(call).content
    assert run() == "n=7"
    benchmark.group = "pipeline overhead (a host tool doing nothing)"
    benchmark.extra_info["tool"] = way
    assert benchmark(run) == "n=7"


@pytest.fixture(scope="module")
def small() -> str:
    return sb.small_repo(300)


@pytest.mark.parametrize("way", ["Workspace.grep", "Registry.execute"])
def test_pipeline_grep(benchmark, small: str, way: str) -> None:
    ws = Workspace(small)
    want = ws.grep(sb.RARE_LITERAL, literal=True).total_matches
    assert want > 0
    if way == "Workspace.grep":
        run = lambda: ws.grep(sb.RARE_LITERAL, literal=True).total_matches
    else:
        reg = default_registry(ws)
        call = ToolCall("c1", "grep", f'{{"pattern": "{sb.RARE_LITERAL}", "literal": true}}')
        run = lambda: reg.execute(call).meta["engine_result"].total_matches
    assert run() == want
    benchmark.group = "per-call grep of a rare literal [small], with and without the pipeline"
    benchmark.extra_info["tool"] = way
    assert benchmark(run) == want
