"""The pipeline of SPEC §3: one operation per call, whatever exit the call takes; policy, hooks,
effect classes and concurrency; sinks that fail or fill up; 32 threads at once."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
from _protocol_helpers import FakeWorkspace, grep_result, registry_with
from ripsight import (
    OperationLog,
    Registry,
    ToolCall,
    ToolOutput,
    ToolResult,
    ToolSpec,
    default_registry,
)

EMPTY: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
# Planted in every file of the tree; no log record may ever hold it.
MARKER = "QZX-FILE-CONTENT-7f3e9a"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(
        "".join(f"line {i} {MARKER} needle\n" for i in range(1, 40))
    )
    (root / "src" / "big.txt").write_text(
        "".join(f"{MARKER} row {i} {'x' * 80}\n" for i in range(3000))
    )
    (root / ".env").write_text(f"API_KEY={MARKER}\n")
    (root / "blob.bin").write_bytes(b"\x00\x01" + MARKER.encode() + b"\x00" * 50)
    (root / "empty.txt").write_text("")
    return root


def only_record(reg: Registry, call_id: str) -> dict[str, Any]:
    records = [r for r in reg.log.records() if r["call_id"] == call_id]
    assert len(records) == 1, records
    return records[0]


def check(
    reg: Registry, call: Any, status: str, outcome: str, code: str, call_id: str = "c1"
) -> ToolResult:
    result = reg.execute(call)
    record = only_record(reg, call_id)
    assert (record["status"], record["outcome"], record["code"]) == (status, outcome, code), (
        record,
        result.content,
    )
    assert result.meta["code"] == code
    assert record["model_chars"] == len(result.content)
    assert record["duration_ms"] >= 0
    assert result.is_error is (outcome == "failure")
    return result


# -- every exit, exactly one operation --------------------------------------------------------


def test_success_empty_and_partial_exits(tree: Path) -> None:
    reg = default_registry(tree)
    check(reg, ToolCall("c1", "grep", '{"pattern": "needle"}'), "done", "success", "ok")
    check(
        reg, ToolCall("c2", "grep", '{"pattern": "absent_zz"}'), "done", "empty", "no_match", "c2"
    )
    check(
        reg, ToolCall("c3", "glob", '{"pattern": "*.nothing"}'), "done", "empty", "no_match", "c3"
    )
    check(
        reg,
        ToolCall("c4", "read_file", '{"path": "empty.txt"}'),
        "done",
        "empty",
        "empty_file",
        "c4",
    )
    check(
        reg, ToolCall("c5", "read_file", '{"path": "blob.bin"}'), "done", "partial", "binary", "c5"
    )
    check(
        reg,
        ToolCall("c6", "read_file", '{"path": "src/app.py", "offset": 500}'),
        "done",
        "empty",
        "past_end",
        "c6",
    )
    big = check(
        reg,
        ToolCall("c7", "read_file", '{"path": "src/big.txt", "limit": 2000}'),
        "done",
        "partial",
        "truncated",
        "c7",
    )
    assert big.meta["truncated"] and big.meta["ref"].startswith("ref_")
    assert only_record(reg, "c7")["output"]["ref"] == big.meta["ref"]
    again = check(
        reg, ToolCall("c8", "read_file", '{"path": "src/app.py"}'), "done", "success", "ok", "c8"
    )
    assert not again.meta["truncated"]
    check(
        reg,
        ToolCall("c9", "read_file", '{"path": "src/app.py"}'),
        "done",
        "success",
        "unchanged",
        "c9",
    )
    assert len(reg.log.records()) == 9


def test_time_budget_is_a_partial_outcome(tmp_path: Path) -> None:
    fake = FakeWorkspace(tmp_path)
    fake.grep = lambda pattern, **kw: grep_result(  # type: ignore[method-assign]
        pattern=pattern, incomplete=True, files_searched=3
    )
    reg = registry_with(fake)
    check(reg, ToolCall("c1", "grep", '{"pattern": "x"}'), "done", "partial", "time_budget")


def test_contract_errors(tree: Path) -> None:
    reg = default_registry(tree)
    check(reg, ToolCall("c1", "Read", "{}"), "contract_error", "failure", "unknown_tool")
    check(
        reg,
        ToolCall("c2", "grep", '{"pattern": '),
        "contract_error",
        "failure",
        "malformed_json",
        "c2",
    )
    check(
        reg,
        ToolCall("c3", "grep", '{"pattern": 5, "limit": "x"}'),
        "contract_error",
        "failure",
        "invalid_arguments",
        "c3",
    )
    check(
        reg,
        ToolCall("c4", "grep", "[1, 2]"),
        "contract_error",
        "failure",
        "invalid_arguments",
        "c4",
    )
    check(
        reg,
        ToolCall("c5", "grep", '{"pat', incomplete=True),
        "contract_error",
        "failure",
        "incomplete_arguments",
        "c5",
    )
    result = reg.execute(42)
    assert result.is_error and result.meta["code"] == "invalid_call"
    assert [r["code"] for r in reg.log.records()][-1] == "invalid_call"


def test_engine_errors_are_runtime_errors(tree: Path) -> None:
    reg = default_registry(tree)
    check(
        reg,
        ToolCall("c1", "read_file", '{"path": "nope.py"}'),
        "runtime_error",
        "failure",
        "not_found",
    )
    check(
        reg,
        ToolCall("c2", "read_file", '{"path": "../outside.txt"}'),
        "runtime_error",
        "failure",
        "outside_root",
        "c2",
    )
    check(
        reg,
        ToolCall("c3", "read_file", '{"path": ".env"}'),
        "runtime_error",
        "failure",
        "denied",
        "c3",
    )
    check(
        reg,
        ToolCall("c4", "grep", '{"pattern": "("}'),
        "runtime_error",
        "failure",
        "invalid_pattern",
        "c4",
    )


def test_host_tool_exits() -> None:
    def boom(ctx: Any, args: dict[str, Any]) -> str:
        raise ValueError("host bug")

    reg = Registry()
    reg.register(ToolSpec("boom", "", EMPTY, boom, effect="write"))
    reg.register(ToolSpec("soft", "", EMPTY, lambda c, a: ToolOutput("nope", is_error=True)))
    reg.register(
        ToolSpec(
            "coded", "", EMPTY, lambda c, a: ToolOutput("gone", is_error=True, code="not_found")
        )
    )
    reg.register(ToolSpec("fine", "", EMPTY, lambda c, a: "done!"))
    check(reg, ToolCall("c1", "boom", "{}"), "runtime_error", "failure", "internal")
    check(reg, ToolCall("c2", "soft", "{}"), "done", "failure", "tool_error", "c2")
    check(reg, ToolCall("c3", "coded", "{}"), "done", "failure", "not_found", "c3")
    check(reg, ToolCall("c4", "fine", "{}"), "done", "success", "ok", "c4")


def test_cancelled_calls_are_recorded_and_raise(tmp_path: Path) -> None:
    fake = FakeWorkspace(tmp_path)
    fake.fail_with = KeyboardInterrupt()
    reg = registry_with(fake)
    with pytest.raises(KeyboardInterrupt):
        reg.execute(ToolCall("c1", "grep", '{"pattern": "x"}'))
    record = only_record(reg, "c1")
    assert (record["status"], record["outcome"], record["code"]) == (
        "cancelled",
        "failure",
        "cancelled",
    )


def test_the_operation_is_inserted_before_validation() -> None:
    seen: list[list[dict[str, Any]]] = []
    reg = Registry()

    def spy(ctx: Any, args: dict[str, Any]) -> str:
        seen.append(reg.log.records())
        return "ok"

    reg.register(ToolSpec("spy", "", EMPTY, spy))
    reg.execute(ToolCall("c1", "spy", "{}"))
    assert [(r["call_id"], r["tool"], r["status"]) for r in seen[0]] == [("c1", "spy", "running")]
    assert reg.log.records()[0]["status"] == "done"


# -- policy and hooks -------------------------------------------------------------------------


def test_policy_sees_checked_arguments_and_denies_with_its_reason(tree: Path) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    def policy(tool: str, arguments: dict[str, Any]) -> str | None:
        asked.append((tool, dict(arguments)))
        return "src/ is off limits" if arguments.get("path", "").startswith("src") else None

    reg = default_registry(tree, policy=policy)
    denied = check(
        reg,
        ToolCall("c1", "read_file", '{"path": "src/app.py", "offset": null}'),
        "denied",
        "failure",
        "denied",
    )
    assert denied.content == (
        "read_file was not run: the application's policy denies this call: src/ is off limits"
    )
    assert asked[0] == ("read_file", {"path": "src/app.py", "offset": 1, "limit": 400})
    assert MARKER not in denied.content
    check(reg, ToolCall("c2", "glob", '{"pattern": "*"}'), "done", "success", "ok", "c2")
    # Invalid calls never reach the policy.
    reg.execute(ToolCall("c3", "grep", '{"pattern": 3}'))
    assert [tool for tool, _ in asked] == ["read_file", "glob"]


def test_policy_sees_the_path_the_tool_will_use_not_its_quoted_form(tree: Path) -> None:
    # Results show an odd name quoted ("two\\nlines.txt"); the model passes that form back.
    # The policy must judge the name the tool opens, so a rule on it cannot be dodged.
    (tree / "two\nlines.txt").write_text("secret plan\n")
    asked: list[tuple[str, Any]] = []

    def policy(tool: str, arguments: dict[str, Any]) -> str | None:
        asked.append((tool, arguments.get("path")))
        return "no plans" if "\n" in str(arguments.get("path")) else None

    reg = default_registry(tree, policy=policy)
    for name, arguments in [
        ("read_file", {"path": '"two\\nlines.txt"'}),
        ("grep", {"pattern": "plan", "path": '"two\\nlines.txt"'}),
        ("glob", {"pattern": "*", "path": '"two\\nlines.txt"'}),
    ]:
        result = reg.execute(ToolCall("c", name, json.dumps(arguments)))
        assert result.meta["code"] == "denied", result.content
        assert "policy denies this call: no plans" in result.content, result.content
        assert asked[-1] == (name, "two\nlines.txt")


def test_a_failing_policy_refuses_the_call(tree: Path) -> None:
    def policy(tool: str, arguments: dict[str, Any]) -> str | None:
        raise RuntimeError("policy service down")

    reg = default_registry(tree, policy=policy)
    result = check(
        reg, ToolCall("c1", "glob", '{"pattern": "*"}'), "denied", "failure", "policy_error"
    )
    assert "policy check failed (RuntimeError)" in result.content


def test_hook_failures_become_results(tree: Path) -> None:
    ran: list[str] = []

    def before(tool: str, arguments: dict[str, Any]) -> None:
        if tool == "grep":
            raise OSError("audit log full")
        ran.append(tool)

    def after(tool: str, arguments: dict[str, Any], result: ToolResult) -> ToolResult | None:
        if tool == "read_file":
            raise RuntimeError("after failed")
        return ToolResult(
            result.call_id,
            result.content + "\n[reviewed]",
            result.is_error,
            result.name,
            result.meta,
        )

    reg = default_registry(tree, before=before, after=after)
    first = check(
        reg,
        ToolCall("c1", "grep", '{"pattern": "needle"}'),
        "runtime_error",
        "failure",
        "hook_failed",
    )
    assert first.content.startswith("grep was not run: a check before it failed (OSError)")
    second = check(
        reg,
        ToolCall("c2", "read_file", '{"path": "src/app.py"}'),
        "runtime_error",
        "failure",
        "hook_failed",
        "c2",
    )
    assert second.content.startswith("read_file ran, but a check after it failed")
    assert MARKER not in second.content
    third = check(
        reg, ToolCall("c3", "glob", '{"pattern": "**/*.py"}'), "done", "success", "ok", "c3"
    )
    assert third.content.endswith("\n[reviewed]")
    assert ran == ["read_file", "glob"]


# -- the log holds compact forms only ---------------------------------------------------------


def test_no_log_record_holds_file_content(tree: Path, tmp_path: Path) -> None:
    jsonl, db = tmp_path / "ops.jsonl", tmp_path / "ops.db"
    log = OperationLog(jsonl=jsonl, sqlite=db)
    reg = default_registry(tree, log=log)
    calls = [
        ("grep", {"pattern": "QZX-FILE-CONTENT-7f3e\\w+"}),
        ("grep", {"pattern": "needle", "output_mode": "count"}),
        ("grep", {"pattern": "row", "limit": 500, "context": 2}),
        ("glob", {"pattern": "**/*"}),
        ("read_file", {"path": "src/app.py"}),
        ("read_file", {"path": "src/big.txt", "limit": 2000}),
        ("read_file", {"path": ".env"}),
        ("read_file", {"path": "blob.bin"}),
        ("grep", {"pattern": "API_KEY", "path": ".env"}),
    ]
    results = [
        reg.execute(ToolCall(f"c{i}", n, orjson.dumps(a).decode()))
        for i, (n, a) in enumerate(calls)
    ]
    refs = [r.meta["ref"] for r in results if r.meta.get("ref")]
    assert refs, "a result over the budget was stored by reference"
    page = reg.execute(ToolCall("page", "read_result", orjson.dumps({"ref": refs[0]}).decode()))
    assert MARKER in page.content and any(MARKER in r.content for r in results)
    log.close()

    dumped = orjson.dumps(reg.log.records()).decode()
    assert MARKER not in dumped
    assert MARKER not in jsonl.read_text()
    rows = sqlite3.connect(db).execute("SELECT * FROM operations").fetchall()
    assert len(rows) == len(calls) + 1
    assert MARKER not in repr(rows)
    # Sizes and counts are kept.
    grep_record = next(r for r in reg.log.records() if r["call_id"] == "c0")
    assert grep_record["output"]["total_matches"] == 3039
    assert grep_record["input"] == {"pattern": "QZX-FILE-CONTENT-7f3e\\w+"}


def test_long_and_secret_arguments_are_compacted() -> None:
    reg = Registry()
    schema = {
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "api_key": {"type": "string"},
            "note": {"type": "string"},
        },
    }
    reg.register(ToolSpec("send", "", schema, lambda c, a: "sent", effect="consequential"))
    reg.execute(
        ToolCall(
            "c1",
            "send",
            orjson.dumps(
                {
                    "text": "y" * 5000,
                    "api_key": "hunter2",
                    "note": "token sk-abcdefghijklmnopqrstuvwx inside",
                }
            ).decode(),
        )
    )
    record = only_record(reg, "c1")
    assert record["input"]["text"] == "y" * 200 + "... [5,000 characters]"
    assert record["input"]["api_key"] == "[redacted]"
    assert record["input"]["note"] == "[redacted]"
    assert "hunter2" not in orjson.dumps(record).decode()
    # Text that never parsed is kept as its length only.
    reg.execute(ToolCall("c2", "send", '{"api_key": "hunter2", '))
    assert only_record(reg, "c2")["input"] == {"_unparsed_chars": 23}


# -- sinks ------------------------------------------------------------------------------------


class RaisingSink:
    def write(self, record: Any) -> None:
        raise OSError("disk full")

    def close(self) -> None:
        raise OSError("still full")


def test_a_failing_sink_never_changes_a_result(tree: Path, tmp_path: Path) -> None:
    log = OperationLog(jsonl=tmp_path / "missing-dir" / "ops.jsonl")
    log._sinks.append(RaisingSink())
    with_log = default_registry(tree, log=log)
    without = default_registry(tree)
    for i, (name, args) in enumerate(
        [
            ("grep", '{"pattern": "needle"}'),
            ("glob", '{"x": 1}'),
            ("nope", "{}"),
            ("read_file", '{"path": "src/app.py"}'),
        ]
    ):
        a = with_log.execute(ToolCall(f"c{i}", name, args))
        b = without.execute(ToolCall(f"c{i}", name, args))
        assert (a.content, a.is_error, a.meta["code"]) == (b.content, b.is_error, b.meta["code"])
    assert log.sink_errors == 8  # two sinks, four calls
    assert len(log.records()) == 4
    log.close()


def test_a_full_ring_keeps_the_newest_and_the_sinks_keep_all(tmp_path: Path) -> None:
    log = OperationLog(capacity=5, jsonl=tmp_path / "ops.jsonl")
    reg = Registry(log=log)
    reg.register(ToolSpec("ok", "", EMPTY, lambda c, a: "fine"))
    for i in range(50):
        reg.execute(ToolCall(f"c{i}", "ok", "{}"))
    assert [r["call_id"] for r in log.records()] == [f"c{i}" for i in range(45, 50)]
    lines = [json.loads(line) for line in (tmp_path / "ops.jsonl").read_text().splitlines()]
    assert [r["call_id"] for r in lines] == [f"c{i}" for i in range(50)]


def test_32_threads_one_record_per_call(tmp_path: Path) -> None:
    log = OperationLog(capacity=100_000, jsonl=tmp_path / "ops.jsonl", sqlite=tmp_path / "ops.db")
    reg = Registry(log=log)
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    reg.register(ToolSpec("echo", "", schema, lambda c, a: f"n={a.get('n')}"))
    reg.register(ToolSpec("fail", "", EMPTY, lambda c, a: 1 / 0))  # type: ignore[arg-type, misc]
    barrier = threading.Barrier(32, timeout=60)
    per_thread = 40

    def worker(t: int) -> None:
        barrier.wait(timeout=60)
        for i in range(per_thread):
            kind = i % 4
            call_id = f"t{t}-{i}"
            if kind == 0:
                reg.execute(ToolCall(call_id, "echo", f'{{"n": {i}}}'))
            elif kind == 1:
                reg.execute(ToolCall(call_id, "fail", "{}"))
            elif kind == 2:
                reg.execute(ToolCall(call_id, "echo", "{bad json"))
            else:
                reg.execute(ToolCall(call_id, "missing", "{}"))

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(32)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    log.close()
    expected = {f"t{t}-{i}" for t in range(32) for i in range(per_thread)}
    ring = [r["call_id"] for r in log.records()]
    assert len(ring) == len(expected) and set(ring) == expected
    jsonl = [json.loads(x)["call_id"] for x in (tmp_path / "ops.jsonl").read_text().splitlines()]
    assert len(jsonl) == len(expected) and set(jsonl) == expected
    rows = (
        sqlite3.connect(tmp_path / "ops.db")
        .execute("SELECT call_id, status, code FROM operations")
        .fetchall()
    )
    assert len(rows) == len(expected) and {r[0] for r in rows} == expected
    codes = {r[2] for r in rows}
    assert codes == {"ok", "internal", "malformed_json", "unknown_tool"}
    assert all(r["status"] != "running" for r in log.records())


def test_records_read_back_from_each_sink_agree(tree: Path, tmp_path: Path) -> None:
    log = OperationLog(jsonl=tmp_path / "ops.jsonl", sqlite=tmp_path / "ops.db")
    reg = default_registry(tree, log=log)
    for i, args in enumerate(['{"pattern": "needle"}', '{"pattern": "("}', '{"pattern": 1}']):
        reg.execute(ToolCall(f"c{i}", "grep", args))
    log.close()
    ring = [(r["call_id"], r["tool"], r["status"], r["outcome"], r["code"]) for r in log.records()]
    lines = [json.loads(x) for x in (tmp_path / "ops.jsonl").read_text().splitlines()]
    assert [(r["call_id"], r["tool"], r["status"], r["outcome"], r["code"]) for r in lines] == ring
    db = sqlite3.connect(tmp_path / "ops.db")
    rows = db.execute(
        "SELECT call_id, tool, status, outcome, code, input FROM operations ORDER BY started_at"
    ).fetchall()
    assert [tuple(r[:5]) for r in rows] == ring
    assert json.loads(rows[0][5]) == {"pattern": "needle"}


# -- effects and concurrency ------------------------------------------------------------------


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


def test_v1_read_only_flag_still_works() -> None:
    handler = lambda c, a: ""
    old_style = ToolSpec("w", "", EMPTY, handler, False, False, "Writes")  # v1 positional order
    assert (old_style.effect, old_style.read_only, old_style.title) == ("write", False, "Writes")
    assert ToolSpec("r", "", EMPTY, handler).read_only is True
    assert ToolSpec("c", "", EMPTY, handler, effect="consequential").read_only is False
    with pytest.raises(ValueError, match="contradicts"):
        ToolSpec("x", "", EMPTY, handler, read_only=True, effect="write")


def test_records_read_as_dicts_and_attributes(tmp_path: Path) -> None:
    reg = Registry()
    reg.register(ToolSpec("ok", "", EMPTY, lambda c, a: "fine"))
    reg.execute(ToolCall("c1", "ok", "{}"))
    record = reg.log.records()[0]
    assert record["status"] == record.status == "done"
    assert (record.call_id, record.tool, record.outcome, record.code) == (
        "c1",
        "ok",
        "success",
        "ok",
    )
    assert json.loads(orjson.dumps(record))["code"] == "ok"
    with pytest.raises(AttributeError):
        _ = record.nothing


def test_an_unopenable_database_is_a_failing_sink(tmp_path: Path) -> None:
    log = OperationLog(sqlite=tmp_path / "no" / "such" / "dir" / "ops.db")
    reg = Registry(log=log)
    reg.register(ToolSpec("ok", "", EMPTY, lambda c, a: "fine"))
    assert reg.execute(ToolCall("c1", "ok", "{}")).content == "fine"
    assert log.sink_errors == 1 and "OperationalError" in (log.last_sink_error or "")
    assert [r.code for r in log.records()] == ["ok"]


class IdentityWorkspace(FakeWorkspace):
    """A stand-in whose reads carry the engine's identity of the opened file (dev, inode,
    mtime_ns) and which can identify a file without reading it, as the engine can."""

    def __init__(self, root: Path, identify: bool) -> None:
        super().__init__(root)
        self.mtime_ns = 1000
        if not identify:
            self.identify = None  # type: ignore[assignment]

    def _stamp(self, target: Any, path: str) -> Any:
        target.path, target.dev, target.inode, target.mtime_ns = path, 1, 42, self.mtime_ns
        return target

    def identify(self, path: str, cancel: Any = None) -> Any:  # type: ignore[no-redef]
        self._record("identify", path)
        size = os.path.getsize(os.path.join(self.root, path))
        return self._stamp(SimpleNamespace(size=size), path)

    def read_file(self, path: str, **kwargs: Any) -> Any:
        result = super().read_file(path, **kwargs)
        result.size_bytes = os.path.getsize(os.path.join(self.root, path))
        return self._stamp(result, path)


@pytest.mark.parametrize("identify", [True, False])
def test_the_read_state_uses_the_engines_identity(tmp_path: Path, identify: bool) -> None:
    (tmp_path / "a.py").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    fake = IdentityWorkspace(tmp_path, identify)
    reg = registry_with(fake)
    reg.execute(ToolCall("c1", "read_file", '{"path": "a.py"}'))
    again = reg.execute(ToolCall("c2", "read_file", '{"path": "a.py", "offset": 3, "limit": 2}'))
    assert again.meta["code"] == "unchanged"
    assert again.content.startswith(
        "Already shown: a.py lines 3-4 are part of the result of "
        "your earlier read_file call (id c1)"
    )
    fake.mtime_ns = 2000  # touched: same bytes, a new modification time
    fresh = reg.execute(ToolCall("c3", "read_file", '{"path": "a.py"}'))
    assert fresh.meta["code"] == "ok" and "line 10" in fresh.content
    assert "(id c3)" in reg.execute(ToolCall("c4", "read_file", '{"path": "a.py"}')).content
    reads = [c[0] for c in fake.calls]
    if identify:  # an unchanged identity answers without reading
        assert reads == ["identify", "read_file", "identify", "identify", "read_file", "identify"]
    else:
        assert reads == ["read_file"] * 4


def test_python_touches_no_file_for_a_model_given_path(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import builtins
    import os

    reg = default_registry(tree)

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"Python touched the filesystem: {args!r}")

    for module, name in [
        (os, "stat"),
        (os, "lstat"),
        (os.path, "realpath"),
        (os, "open"),
        (builtins, "open"),
        (os.path, "exists"),
        (os, "scandir"),
    ]:
        monkeypatch.setattr(module, name, refuse)
    first = reg.execute(ToolCall("c1", "read_file", '{"path": "src/app.py"}'))
    again = reg.execute(ToolCall("c2", "read_file", '{"path": "src/app.py"}'))
    listed = reg.execute(ToolCall("c3", "glob", '{"pattern": "**/*"}'))
    found = reg.execute(ToolCall("c4", "grep", '{"pattern": "needle", "limit": 500}'))
    monkeypatch.undo()
    assert first.meta["code"] == "ok" and again.meta["code"] == "unchanged"
    assert listed.meta["code"] == "ok" and found.meta["code"] == "ok"


def test_an_engine_cancellation_is_a_cancelled_operation() -> None:
    # The engine's own class decides the code (its `kind`), not a class's name.
    from ripsight.errors import CancelledError

    def cancelled(ctx: Any, args: dict[str, Any]) -> str:
        raise CancelledError("the call was cancelled")

    reg = Registry()
    reg.register(ToolSpec("slow", "", EMPTY, cancelled))
    result = check(reg, ToolCall("c1", "slow", "{}"), "cancelled", "failure", "cancelled")
    assert result.is_error


def test_an_after_hooks_replacement_is_bounded_too() -> None:
    def after(tool: str, arguments: dict[str, Any], result: ToolResult) -> ToolResult:
        return ToolResult(result.call_id, "R" * 50_000, False, result.name, {})

    reg = Registry(after=after)
    reg.register(ToolSpec("ok", "", EMPTY, lambda c, a: "fine"))
    result = reg.execute(ToolCall("c1", "ok", "{}"))
    assert len(result.content) <= 8000 and result.meta["truncated"]
    assert result.meta["code"] == "ok" and only_record(reg, "c1")["model_chars"] == len(
        result.content
    )
