"""The third answer of a policy, *ask* (issue 28): the host's `approve` callback, what it decides
for the call and for the session, the refusals when nobody answers, the operation log's record of
each, and batches whose asking calls hold no worker slot."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from ripsight import (
    DEFAULT_LIMITS,
    ApprovalRequest,
    Ask,
    CancelToken,
    Decision,
    OperationLog,
    PatternError,
    Registry,
    Rule,
    ToolCall,
    ToolResult,
    Workspace,
    default_registry,
)
from ripsight.approval import ApprovalMemory
from ripsight.tools import builtin_tools

MARKER = "QZX-APPROVAL-CONTENT-51c2"
# A hang guard for the threads these tests start and wait for, not a speed assertion.
WAIT = 10.0


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for folder in ("src", "docs", "private"):
        (root / folder).mkdir(parents=True)
    (root / "src" / "app.py").write_text(f"def main():\n    return '{MARKER}'\n")
    (root / "docs" / "a.md").write_text(f"# A\n{MARKER} one\n{MARKER} two\n")
    (root / "docs" / "b.md").write_text(f"# B\n{MARKER}\n")
    (root / "private" / "notes.txt").write_text(f"{MARKER} private\n")
    return root


def outside_src(tool: str, arguments: dict[str, Any]) -> Ask | None:
    """Asks for every call whose path is not under src/."""
    path = str(arguments.get("path") or ".")
    return None if path.startswith("src") else Ask(f"{tool} of {path}, outside src/")


def read(call_id: str, path: str, **more: Any) -> ToolCall:
    return ToolCall(call_id, "read_file", orjson.dumps({"path": path, **more}).decode())


def record(reg: Registry, call_id: str) -> dict[str, Any]:
    found = [r for r in reg.log.records() if r["call_id"] == call_id]
    assert len(found) == 1, found
    return found[0]


def no_file_content(reg: Registry) -> None:
    assert MARKER not in orjson.dumps(reg.log.records()).decode()


class Recorder:
    """An `approve` callback answering from a list, recording each request."""

    def __init__(self, *answers: Decision | bool) -> None:
        self.answers = list(answers)
        self.requests: list[ApprovalRequest] = []

    def __call__(self, request: ApprovalRequest) -> Decision | bool:
        self.requests.append(request)
        return self.answers.pop(0)


# -- the callback's answers ---------------------------------------------------------------------


def test_an_approved_call_runs_and_the_callback_saw_the_exact_call(tree: Path) -> None:
    approve = Recorder(Decision.allow())
    reg = default_registry(tree, policy=outside_src, approve=approve)
    result = reg.execute(read("c1", "docs/a.md"))
    assert not result.is_error and MARKER in result.content, result.content
    [request] = approve.requests
    # The arguments the tool uses, as the policy saw them: checked, defaults filled in.
    assert (request.tool, request.call_id) == ("read_file", "c1")
    assert request.arguments["path"] == "docs/a.md"
    assert request.arguments["offset"] == 1
    assert request.reason == "read_file of docs/a.md, outside src/"
    with pytest.raises(TypeError):
        request.arguments["path"] = "src/app.py"  # type: ignore[index]
    entry = record(reg, "c1")
    assert (entry["status"], entry["code"]) == ("done", "ok")
    assert entry["approval"]["decision"] == "allowed"
    assert entry["approval"]["decided_by"] == "callback"
    assert entry["approval"]["reason"] == request.reason
    assert entry["approval"]["wait_ms"] >= 0
    assert result.meta["approval"] == entry["approval"]
    no_file_content(reg)


def test_a_call_the_policy_allows_asks_nobody(tree: Path) -> None:
    approve = Recorder()
    reg = default_registry(tree, policy=outside_src, approve=approve)
    result = reg.execute(read("c1", "src/app.py"))
    assert not result.is_error and approve.requests == []
    assert record(reg, "c1")["approval"] is None


def test_a_declined_call_is_refused_with_the_reason_and_the_message(tree: Path) -> None:
    reg = default_registry(
        tree, policy=outside_src, approve=Recorder(Decision.deny("Not the private notes"))
    )
    result = reg.execute(read("c1", "private/notes.txt"))
    assert result.is_error and result.meta["code"] == "not_approved"
    assert result.content == (
        "read_file was not run: it needs a person's approval (read_file of private/notes.txt, "
        "outside src/), and it was not given: Not the private notes. Do not repeat the call "
        "unchanged: go on without it, or ask the user."
    )
    assert MARKER not in result.content
    entry = record(reg, "c1")
    assert (entry["status"], entry["outcome"], entry["code"]) == (
        "denied",
        "failure",
        "not_approved",
    )
    assert entry["approval"]["decision"] == "denied"
    assert entry["approval"]["decided_by"] == "callback"
    assert entry["approval"]["message"] == "Not the private notes"
    no_file_content(reg)


def test_true_and_false_are_allow_and_deny(tree: Path) -> None:
    reg = default_registry(tree, policy=outside_src, approve=Recorder(True, False))
    assert not reg.execute(read("c1", "docs/a.md")).is_error
    assert reg.execute(read("c2", "docs/b.md")).meta["code"] == "not_approved"


def test_no_answer_within_the_deadline_is_a_refusal(tree: Path) -> None:
    release = threading.Event()

    def approve(request: ApprovalRequest) -> Decision:
        release.wait(WAIT)  # a person who never answers
        return Decision.allow()

    reg = default_registry(tree, policy=outside_src, approve=approve, approval_deadline=0.3)
    started = time.perf_counter()
    result = reg.execute(read("c1", "docs/a.md"))
    waited = time.perf_counter() - started
    release.set()
    assert result.meta["code"] == "not_approved"
    assert "and no answer came within 0.3 s, so it is refused." in result.content
    assert 0.3 <= waited < WAIT
    entry = record(reg, "c1")
    assert entry["approval"]["decided_by"] == "deadline"
    assert entry["approval"]["decision"] == "denied"
    assert entry["approval"]["wait_ms"] >= 300


def test_cancelling_a_call_that_waits_ends_the_wait(tree: Path) -> None:
    release = threading.Event()

    def approve(request: ApprovalRequest) -> Decision:
        release.wait(WAIT)
        return Decision.allow()

    reg = default_registry(tree, policy=outside_src, approve=approve)
    token = CancelToken()
    timer = threading.Timer(0.2, token.cancel)
    timer.start()
    started = time.perf_counter()
    result = reg.execute(read("c1", "docs/a.md"), cancel=token)
    waited = time.perf_counter() - started
    release.set()
    timer.join(WAIT)
    assert waited < WAIT
    assert (result.meta["code"], result.is_error) == ("cancelled", True)
    assert result.content.endswith("and it was cancelled while it waited.")
    entry = record(reg, "c1")
    assert (entry["status"], entry["approval"]["decided_by"]) == ("cancelled", "cancelled")


def test_a_callback_that_raises_or_answers_nonsense_refuses_the_call(tree: Path) -> None:
    def broken(request: ApprovalRequest) -> Decision:
        raise ConnectionError("approval service down")

    reg = default_registry(tree, policy=outside_src, approve=broken)
    result = reg.execute(read("c1", "docs/a.md"))
    assert result.meta["code"] == "not_approved"
    assert "and asking for it failed, so it is refused." in result.content
    assert "approval service down" not in result.content
    approval = record(reg, "c1")["approval"]
    assert approval["decided_by"] == "callback_error"
    assert approval["error"] == "ConnectionError: approval service down"

    reg = default_registry(tree, policy=outside_src, approve=lambda request: "yes")
    assert reg.execute(read("c2", "docs/a.md")).meta["code"] == "not_approved"
    assert record(reg, "c2")["approval"]["decided_by"] == "callback_error"


def test_without_a_callback_an_ask_is_a_refusal_that_says_so(tree: Path) -> None:
    reg = default_registry(tree, policy=outside_src)
    result = reg.execute(read("c1", "docs/a.md"))
    assert result.meta["code"] == "not_approved"
    assert result.content.startswith(
        "read_file was not run: it needs a person's approval (read_file of docs/a.md, outside "
        "src/), and this application has no way to ask for it, so it is refused."
    )
    assert record(reg, "c1")["approval"]["decided_by"] == "no_callback"


def test_an_async_callback_is_awaited_and_under_aexecute_on_the_callers_loop(tree: Path) -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def approve(request: ApprovalRequest) -> Decision:
        await asyncio.sleep(0.01)
        loops.append(asyncio.get_running_loop())
        return Decision.allow()

    reg = default_registry(tree, policy=outside_src, approve=approve)
    assert not reg.execute(read("c1", "docs/a.md")).is_error  # no loop: one of its own

    async def main() -> tuple[ToolResult, asyncio.AbstractEventLoop]:
        return await reg.aexecute(read("c2", "docs/b.md")), asyncio.get_running_loop()

    result, caller = asyncio.run(asyncio.wait_for(main(), WAIT))
    assert not result.is_error, result.content
    assert loops[1] is caller and loops[0] is not caller
    assert record(reg, "c2")["approval"]["decided_by"] == "callback"


def test_an_async_callback_past_the_deadline_is_cancelled(tree: Path) -> None:
    outcome: list[str] = []

    async def approve(request: ApprovalRequest) -> Decision:
        try:
            await asyncio.sleep(WAIT)
        except asyncio.CancelledError:
            outcome.append("cancelled")
            raise
        outcome.append("ran on")
        return Decision.allow()

    reg = default_registry(tree, policy=outside_src, approve=approve, approval_deadline=0.2)

    async def main() -> ToolResult:
        result = await reg.aexecute(read("c1", "docs/a.md"))
        for _ in range(100):  # the callback sees its cancellation within a poll or two
            if outcome:
                break
            await asyncio.sleep(0.02)
        return result

    result = asyncio.run(asyncio.wait_for(main(), WAIT))
    assert result.meta["code"] == "not_approved"
    assert record(reg, "c1")["approval"]["decided_by"] == "deadline"
    assert outcome == ["cancelled"]


def test_the_before_hook_may_ask_too(tree: Path) -> None:
    def before(tool: str, arguments: dict[str, Any]) -> Ask | None:
        return Ask("grep of the whole tree") if tool == "grep" else None

    approve = Recorder(Decision.deny())
    reg = default_registry(tree, before=before, approve=approve)
    result = reg.execute(ToolCall("c1", "grep", '{"pattern": "QZX"}'))
    assert result.meta["code"] == "not_approved", result.content
    assert approve.requests[0].reason == "grep of the whole tree"
    assert not reg.execute(read("c2", "src/app.py")).is_error


def test_a_question_put_elsewhere_refuses_now_and_asks_again_next_time(tree: Path) -> None:
    approve = Recorder(Decision.later("Asked in the review queue."), Decision.allow())
    reg = default_registry(tree, policy=outside_src, approve=approve)
    first = reg.execute(read("c1", "docs/a.md"))
    assert first.meta["code"] == "approval_pending"
    assert "Call read_file again with the same arguments once they have answered." in (
        first.content
    )
    assert record(reg, "c1")["approval"]["decision"] == "asked_later"
    assert not reg.execute(read("c2", "docs/a.md")).is_error
    assert len(approve.requests) == 2


# -- what the session remembers -----------------------------------------------------------------


def test_an_approval_is_for_exactly_the_input_approved(tree: Path) -> None:
    approve = Recorder(Decision.allow(), Decision.allow())
    reg = default_registry(tree, policy=outside_src, approve=approve)
    assert not reg.execute(read("c1", "docs/a.md", offset=2)).is_error
    # The same input again: no question.
    assert not reg.execute(read("c2", "docs/a.md", offset=2)).is_error
    assert record(reg, "c2")["approval"]["decided_by"] == "approved_before"
    assert len(approve.requests) == 1
    # Any argument changed: asked again.
    assert not reg.execute(read("c3", "docs/a.md", offset=3)).is_error
    assert len(approve.requests) == 2
    assert approve.requests[1].arguments["offset"] == 3
    assert record(reg, "c3")["approval"]["decided_by"] == "callback"
    # A new conversation forgets it.
    reg.reset_session()
    reg.approve = Recorder(Decision.deny())
    assert reg.execute(read("c4", "docs/a.md", offset=2)).meta["code"] == "not_approved"


def test_a_session_rule_covers_what_it_states_and_nothing_else(tree: Path) -> None:
    approve = Recorder(Decision.allow(Rule(tool="read_file", path="docs")), Decision.deny())
    reg = default_registry(tree, policy=outside_src, approve=approve)
    assert not reg.execute(read("c1", "docs/a.md")).is_error
    # Covered: another file under docs/, no question.
    assert not reg.execute(read("c2", "docs/b.md", limit=5)).is_error
    approval = record(reg, "c2")["approval"]
    assert (approval["decided_by"], approval["decision"]) == ("session_rule", "allowed")
    assert approval["rule"] == {"tool": "read_file", "path": "docs"}
    # Not covered: another directory, and another tool on docs/.
    assert reg.execute(read("c3", "private/notes.txt")).meta["code"] == "not_approved"
    assert len(approve.requests) == 2
    reg.approve = Recorder(Decision.allow())
    assert not reg.execute(ToolCall("c4", "grep", '{"pattern": "QZX", "path": "docs"}')).is_error
    assert record(reg, "c4")["approval"]["decided_by"] == "callback"


def test_a_session_rule_may_deny_by_glob(tree: Path) -> None:
    approve = Recorder(Decision.deny("No private files.", Rule(glob="private/**")))
    reg = default_registry(tree, policy=outside_src, approve=approve)
    assert reg.execute(read("c1", "private/notes.txt")).meta["code"] == "not_approved"
    second = reg.execute(read("c2", "private/other.txt"))
    assert "and such calls were declined for this session." in second.content
    approval = record(reg, "c2")["approval"]
    assert (approval["decided_by"], approval["decision"]) == ("session_rule", "denied")
    assert approval["rule"] == {"glob": "private/**"}
    assert len(approve.requests) == 1


def test_rules_read_paths_as_the_deny_rules_do() -> None:
    assert Rule(path="docs").covers("read_file", {"path": "./docs/a.md"})
    assert not Rule(path="docs").covers("read_file", {"path": "docs2/a.md"})
    assert Rule(path=".").covers("grep", {"path": None})
    assert not Rule(path="docs").covers("grep", {"path": None})
    assert Rule(glob="*.PDF").covers("read_file", {"path": "a/b/report.pdf"})
    assert not Rule(tool="glob").covers("grep", {"path": "x"})
    with pytest.raises(ValueError, match="not both"):
        Rule(path="docs", glob="*.md")
    with pytest.raises(PatternError):
        Rule(glob="a[")


def test_the_memory_is_thread_safe_and_clears() -> None:
    memory = ApprovalMemory()
    for i in range(50):
        memory.remember("read_file", {"path": f"f{i}"}, Decision.allow())
    assert memory.lookup("read_file", {"path": "f7"}) is not None
    memory.clear()
    assert memory.lookup("read_file", {"path": "f7"}) is None


# -- batches ------------------------------------------------------------------------------------


def test_calls_waiting_for_approval_hold_no_worker_slot_and_keep_their_order(tree: Path) -> None:
    others_done = threading.Event()
    finished: list[str] = []
    lock = threading.Lock()

    def after(tool: str, arguments: dict[str, Any], result: ToolResult) -> None:
        with lock:
            finished.append(result.call_id)
            if {"c1", "c3", "c5"} <= set(finished):
                others_done.set()

    def approve(request: ApprovalRequest) -> Decision:
        # Answers only once every call that needs no approval ran: with one worker slot, a
        # waiting call that held it would keep them from running, and this would time out.
        answered = others_done.wait(WAIT)
        return Decision.allow() if answered else Decision.deny("the others never ran")

    reg = Registry(Workspace(tree), max_workers=1, policy=outside_src, after=after, approve=approve)
    for spec in builtin_tools(DEFAULT_LIMITS):
        reg.register(spec)
    calls = [
        ToolCall("c1", "grep", '{"pattern": "QZX", "path": "src"}'),
        read("c2", "docs/a.md"),
        ToolCall("c3", "glob", '{"pattern": "*.py", "path": "src"}'),
        read("c4", "docs/b.md"),
        read("c5", "src/app.py"),
    ]
    with reg:
        results = reg.execute_many(calls)
    assert [r.call_id for r in results] == ["c1", "c2", "c3", "c4", "c5"]
    assert all(not r.is_error for r in results), [r.content for r in results]
    assert finished.index("c2") > finished.index("c1")
    for call_id in ("c2", "c4"):
        assert record(reg, call_id)["approval"]["decision"] == "allowed"

    async def main() -> list[ToolResult]:
        others_done.clear()
        finished.clear()
        reg.reset_session()
        return await reg.aexecute_many(calls)

    with reg:
        results = asyncio.run(asyncio.wait_for(main(), 3 * WAIT))
    assert [r.call_id for r in results] == ["c1", "c2", "c3", "c4", "c5"]
    assert all(not r.is_error for r in results), [r.content for r in results]


# -- the durable sinks --------------------------------------------------------------------------


def test_the_sqlite_and_jsonl_sinks_keep_the_approval(tree: Path, tmp_path: Path) -> None:
    db, jsonl = tmp_path / "ops.db", tmp_path / "ops.jsonl"
    # A database written before approvals existed gains the column.
    with sqlite3.connect(db) as old:
        old.execute(
            "CREATE TABLE operations (op_id TEXT PRIMARY KEY, call_id TEXT, tool TEXT, "
            "status TEXT, outcome TEXT, code TEXT, started_at REAL, duration_ms REAL, "
            "model_chars INTEGER, input TEXT, output TEXT)"
        )
    old.close()
    for log in (OperationLog(sqlite=db), OperationLog(jsonl=jsonl)):
        reg = default_registry(tree, log=log, policy=outside_src, approve=Recorder(False, True))
        reg.execute(read("c1", "private/notes.txt"))
        reg.execute(read("c2", "src/app.py"))
        log.close()
        assert log.sink_errors == 0, log.last_sink_error
    with sqlite3.connect(db) as con:
        rows = dict(con.execute("SELECT call_id, approval FROM operations").fetchall())
    con.close()
    assert orjson.loads(rows["c1"])["decision"] == "denied"
    assert rows["c2"] is None
    lines = [orjson.loads(line) for line in jsonl.read_bytes().splitlines()]
    assert lines[0]["approval"]["decided_by"] == "callback" and lines[1]["approval"] is None
    assert MARKER not in db.read_bytes().decode("latin-1") + jsonl.read_text()
