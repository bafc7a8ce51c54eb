"""The pipeline of SPEC §3, its exits: one operation per call, whatever exit the call takes;
the application's policy and hooks; the read state that answers an unchanged re-read."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from _pipeline_helpers import EMPTY, MARKER, check, only_record, planted_tree
from _protocol_helpers import FakeWorkspace, grep_result, registry_with
from ripsight import Registry, ToolCall, ToolOutput, ToolResult, ToolSpec, default_registry


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return planted_tree(tmp_path)


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


def test_an_engine_cancellation_is_a_cancelled_operation() -> None:
    # The engine's own class decides the code (its `kind`), not a class's name.
    from ripsight.errors import CancelledError

    def cancelled(ctx: Any, args: dict[str, Any]) -> str:
        raise CancelledError("the call was cancelled")

    reg = Registry()
    reg.register(ToolSpec("slow", "", EMPTY, cancelled))
    result = check(reg, ToolCall("c1", "slow", "{}"), "cancelled", "failure", "cancelled")
    assert result.is_error


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


# -- the read state ---------------------------------------------------------------------------


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
