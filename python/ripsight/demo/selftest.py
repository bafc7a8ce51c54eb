"""`ripsight demo --selftest`: named checks of an installed ripsight, on the demo's run and on
small calls of their own, ending with ``N passed, M failed``.

The tests under tests/ assert these behaviours one by one; this is the check a user of a wheel
(which ships no tests) can run. The checks raise `CheckFailed`, never ``assert``, so they also
check under ``python -O``.
"""

from __future__ import annotations

import io
import random
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from ..registry import Registry, default_registry
from ..streaming import ToolCallAccumulator
from ..tools import builtin_tools
from ..types import ToolCall, ToolSpec
from .model import DemoReport
from .repo import make_demo_repo
from .streams import openai_chat_chunks

__all__ = ["CHECKS", "CheckFailed", "run_selftest"]


class CheckFailed(Exception):
    """A check of the selftest found what it checks missing."""


def expect(condition: object, message: object = "check failed") -> None:
    """Fails the check (`CheckFailed` with `message`) unless `condition` holds."""
    if not condition:
        raise CheckFailed(str(message))


def _check_walk_order(report: DemoReport) -> None:
    names = [c.name for c in report.calls]
    expected = ["glob", "grep", "Read", "grep", "read_file", "read_file", "read_file"]
    expect(names == expected, f"call order {names}, expected {expected}")
    expect(len(report.results) == len(report.calls), "not one result per call")
    expect([r.call_id for r in report.results] == [c.id for c in report.calls], "ids differ")


def _check_interleaved(_: DemoReport) -> None:
    rng = random.Random(3)
    calls = [
        ("call_a", "grep", '{"pattern": "caf\\u00e9 \\"quoted\\" \\\\ end", "context": 2}'),
        ("call_b", "read_file", '{"path": "src/\u00e9t\u00e9.py", "offset": 10}'),
    ]
    acc = ToolCallAccumulator()
    for chunk in openai_chat_chunks(calls, rng, first_index=1, interleave=True):
        acc.feed(chunk)
    merged = acc.drain()
    got = [(c.id, c.name, c.arguments) for c in merged]
    expect(got == list(calls), f"merged {got}")


def _check_truncation(_: DemoReport) -> None:
    registry = Registry()
    registry.register(
        ToolSpec(
            name="echo_big",
            description="Returns 20,000 characters.",
            parameters={"type": "object", "properties": {}, "additionalProperties": False},
            handler=lambda ctx, args: "HEAD-START " + "x" * 19_980 + " TAIL-END",
        )
    )
    result = registry.execute(ToolCall("call_big", "echo_big", "{}"))
    expect(result.meta["original_chars"] == 20_000, result.meta)
    expect(len(result.content) <= 8000, f"{len(result.content)} characters fed back")
    expect(result.content.startswith("HEAD-START"), "head lost")
    expect(result.content.endswith("TAIL-END"), "tail lost")
    expect(result.meta["truncated"] is True, "truncation not recorded in meta")


def _check_unknown_tool(report: DemoReport) -> None:
    result = next(r for c, r in zip(report.calls, report.results) if c.name == "Read")
    expect(result.is_error, "unknown tool not an error")
    expect(
        result.content
        == (
            "There is no tool named Read. Did you mean read_file? "
            "Available tools: find_calls, find_definitions, find_references, glob, grep, outline, read_file, read_result, repo_map."
        ),
        result.content,
    )


def _check_malformed(report: DemoReport) -> None:
    result = report.results[4]
    expect(result.is_error and result.meta.get("error_type") == "malformed_json", result.meta)
    expect("line 1, column" in result.content and "Nothing was run" in result.content)


def _check_cut_off(_: DemoReport) -> None:
    chunks = openai_chat_chunks(
        [("call_cut", "grep", '{"pattern": "TODO", "path": "src"}')],
        random.Random(5),
        finish_reason=None,
    )
    acc = ToolCallAccumulator()
    for chunk in chunks[:-2]:
        acc.feed(chunk)
    (call,) = acc.drain()
    expect(call.incomplete, "cut-off call not marked incomplete")
    registry = Registry()
    for spec in builtin_tools():
        registry.register(spec)
    result = registry.execute(call)
    expect(result.is_error and result.call_id == "call_cut", result)
    expect("stream ended before the arguments" in result.content, result.content)


def _check_outside_root(_: DemoReport) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        make_demo_repo(Path(tmp) / "shop")
        (Path(tmp) / "secret.txt").write_text("outside\n")
        registry = default_registry(Path(tmp) / "shop")
        result = registry.execute(ToolCall("call_out", "read_file", '{"path": "../secret.txt"}'))
        expect(result.is_error and result.meta.get("error_type") == "outside_root", result)
        expect("outside the workspace root" in result.content, result.content)


def _check_definitions(_: DemoReport) -> None:
    registry = default_registry(".")
    for fmt in ("openai", "openai-responses", "anthropic", "mcp"):
        tools = registry.definitions(fmt)
        expect(
            len(tools) == len(registry.names) == len(builtin_tools()), f"{fmt}: {len(tools)} tools"
        )


def _check_loop_ends(report: DemoReport) -> None:
    expect(report.exit_code == 0, f"loop ended without a conclusion: {report.answer!r}")
    expect("line 15 is `return price * percent / 100`" in report.answer, report.answer)


CHECKS: list[tuple[str, Callable[[DemoReport], None]]] = [
    ("walk order glob -> grep -> read_file, one result per call", _check_walk_order),
    ("interleaved fragments from index 1 merge into two calls", _check_interleaved),
    ("20,000-character result truncated, both ends kept", _check_truncation),
    ("unknown tool answered with the closest name", _check_unknown_tool),
    ("malformed arguments answered with where the JSON broke", _check_malformed),
    ("stream cut off mid-arguments gives an error, not a repair", _check_cut_off),
    ("path outside the root refused", _check_outside_root),
    ("definitions exported in four formats", _check_definitions),
    ("loop ends cleanly with a conclusion", _check_loop_ends),
]


def run_selftest(run_demo: Callable[..., DemoReport], out: TextIO) -> int:
    """Runs the demo quietly (`run_demo`), then every check; the last line is
    ``N passed, M failed``."""
    try:
        report = run_demo(out=io.StringIO())
    except Exception:  # noqa: BLE001 - reported as failed checks below
        report = DemoReport(answer=traceback.format_exc(limit=3))
    passed = failed = 0
    for name, check in CHECKS:
        try:
            check(report)
        except Exception as error:  # noqa: BLE001
            failed += 1
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
            print(f"FAIL  {name}: {reason[:300]}", file=out)
        else:
            passed += 1
            print(f"ok    {name}", file=out)
    print(f"{passed} passed, {failed} failed", file=out)
    return 0 if failed == 0 else 1
