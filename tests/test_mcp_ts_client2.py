"""`ripsight mcp` driven by the MCP TypeScript SDK's next major: npm's
``@modelcontextprotocol/client`` (2.x, pinned in tests/ts_client2/package.json), connected on
the 2026-07-28 protocol.

On that version a server sends the client no requests of its own: an approval that needs the
person (``--ask``) answers the tools/call with an input request (an ``input_required`` result
holding an elicitation form), and the client fulfils it through the handler it registered for
``elicitation/create``, then calls again with the answer and the server's ``requestState``, all
inside one ``callTool()``. tests/test_mcp_ts_client.py drives the SDK 1.x
(``@modelcontextprotocol/sdk``, elicitation/create on 2025-11-25); the expectations here are
those of test_mcp_approval.py's input-request runs, which the Python SDK 2.x's Client drives.

The server must speak 2026-07-28: under the MCP Python SDK 1.x this file skips. node 20 or
later and npm are needed: without them the tests skip, but fail under CI (.ci/run runs
``npm ci --prefix tests/ts_client2``).
"""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path
from typing import Any

import pytest
from _mcp_helpers import (
    ALLOW_ONCE,
    ALLOW_SESSION,
    APPROVAL_MARKER,
    DENY,
    REFUSAL_IDS,
    REFUSALS,
    SLOW_GREP,
    check_question_names_the_call,
    check_refused_by_the_person,
    check_told_how_to_allow,
    make_private_tree,
    make_slow_tree,
)
from _ts_client import (
    ASKED_READS,
    CLIENT_2,
    SESSION_CALLS,
    Node,
    answer_of,
    as_javascript_reads,
    asking,
    check_asked_reads,
    check_session_calls,
    drive,
    node_with_sdk,
    records,
    serve,
    steps_of,
    without_timing,
)
from ripsight import Workspace, default_registry, to_dict
from ripsight.mcp_server import OUTPUT_SCHEMAS
from ripsight.tools import builtin_tools

SDK_MAJOR = int(importlib.metadata.version("mcp").split(".")[0])  # the server's MCP SDK
pytestmark = [
    pytest.mark.slow,  # a node process and an MCP server process per test
    pytest.mark.skipif(SDK_MAJOR < 2, reason="the server speaks 2026-07-28 with the MCP SDK 2.x"),
]

MARKER = APPROVAL_MARKER
VERSION = "2026-07-28"


@pytest.fixture(scope="module")
def node() -> Node:
    return node_with_sdk(CLIENT_2)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_private_tree(tmp_path / "repo")


def _session(
    node: Node, tmp_path: Path, server: dict[str, Any], steps: list[dict[str, Any]], **client: Any
) -> dict[str, Any]:
    """Runs the steps with the client pinned to 2026-07-28; returns the output, checked to be
    a session on that version in which the server sent the client no request of its own."""
    output = drive(node, tmp_path, server, steps, pin=VERSION, **client)
    assert output["protocol_version"] == VERSION
    assert output["wire"]["server_requests"] == 0, output["wire"]
    return output


def test_tools_and_structured_results_on_2026_07_28(node: Node, tree: Path, tmp_path: Path) -> None:
    grep = {"pattern": "def", "path": "src", "context": 1}
    read = {"path": "src/app.py", "offset": 1, "limit": 2}
    steps = [{"op": "list_tools"}, *steps_of(("grep", grep), ("read_file", read))]
    # The same calls altered on their way into the client: its own check must refuse them.
    steps += [{**steps[1], "tamper": "wrong_type"}, {**steps[2], "tamper": "no_structured"}]
    output = _session(node, tmp_path, serve(tree, "--no-index"), steps)
    listed, *results, wrong_type, no_structured = output["steps"]
    assert wrong_type["error"]["message"].startswith(
        "Structured content does not match the tool's output schema: "
    ), wrong_type
    assert no_structured["error"]["message"] == (
        "Tool read_file has an output schema but did not return structured content"
    ), no_structured
    specs = builtin_tools()
    assert [tool["name"] for tool in listed["tools"]] == [spec.name for spec in specs]
    definitions = {d["name"]: d for d in default_registry(tree).definitions("mcp")}
    for tool in listed["tools"]:
        assert tool["inputSchema"] == definitions[tool["name"]]["inputSchema"]
        assert tool.get("outputSchema") == OUTPUT_SCHEMAS.get(tool["name"])
    # callTool() checked each structuredContent against the outputSchema listed above (it
    # throws on a mismatch); each equals the Python API's typed result.
    ws = Workspace(tree)
    for result, typed in zip(results, (ws.grep(**grep), ws.read_file(**read))):
        assert result["result"]["isError"] is False, result
        structured = as_javascript_reads(result["result"]["structuredContent"])
        assert without_timing(structured) == without_timing(as_javascript_reads(to_dict(typed)))
    assert results[0]["result"]["structuredContent"]["total_matches"] == 1
    assert [line["number"] for line in results[1]["result"]["structuredContent"]["lines"]] == [1, 2]
    assert output["wire"]["input_required"] == 0


def test_an_accepted_input_request_runs_the_call_once(
    node: Node, tree: Path, tmp_path: Path
) -> None:
    log = tmp_path / "ops.jsonl"
    person = {"answers": [ALLOW_ONCE, ALLOW_ONCE]}
    output = _session(node, tmp_path, asking(tree, log), ASKED_READS, elicitation=person)
    check_asked_reads(output["steps"])
    # Two input requests crossed the wire, each answered by the elicitation handler, whose
    # form offers the three choices.
    assert output["wire"]["input_required"] == 2
    questions = output["questions"]
    assert len(questions) == 2
    check_question_names_the_call(questions[0]["message"])
    choices = questions[0]["requestedSchema"]["properties"]["decision"]["enum"]
    assert choices == ["allow once", "allow for this session", "deny"]
    approvals = [r["approval"] for r in records(log) if r["approval"]]
    # Each question first answers with the input request, then the call runs on the retry.
    assert [(a["decision"], a["decided_by"]) for a in approvals] == [
        ("asked_later", "callback"),
        ("allowed", "callback"),
        ("allowed", "approved_before"),
        ("asked_later", "callback"),
        ("allowed", "callback"),
    ]
    assert MARKER not in log.read_text()


@pytest.mark.parametrize(("answer", "says"), REFUSALS, ids=REFUSAL_IDS)
def test_a_declined_or_cancelled_input_request_refuses_the_call(
    node: Node, tree: Path, tmp_path: Path, answer: dict[str, Any], says: str
) -> None:
    log = tmp_path / "ops.jsonl"
    steps = steps_of(("grep", {"pattern": "QZX", "path": "private"}))
    output = _session(node, tmp_path, asking(tree, log), steps, elicitation={"answers": [answer]})
    text, is_error = answer_of(output["steps"][0])
    check_refused_by_the_person(text, is_error, says, log)
    assert output["wire"]["input_required"] == 1


def test_allowed_for_the_session_covers_the_tool_on_that_path(
    node: Node, tree: Path, tmp_path: Path
) -> None:
    log = tmp_path / "ops.jsonl"
    person = {"answers": [ALLOW_SESSION, DENY]}
    output = _session(node, tmp_path, asking(tree, log), SESSION_CALLS, elicitation=person)
    check_session_calls(output["steps"], log)
    assert len(output["questions"]) == 2
    assert output["wire"]["input_required"] == 2  # the second grep was not asked


def test_a_client_without_elicitation_is_told_how_to_allow_the_call(
    node: Node, tree: Path, tmp_path: Path
) -> None:
    log = tmp_path / "ops.jsonl"
    steps = steps_of(("read_file", {"path": "private/notes.txt"}))
    output = _session(node, tmp_path, asking(tree, log), steps)  # no elicitation declared
    text, is_error = answer_of(output["steps"][0])
    check_told_how_to_allow(text, is_error, log)
    assert output["wire"]["input_required"] == 0


def test_an_answer_counts_only_under_the_state_issued_with_its_question(
    node: Node, tree: Path, tmp_path: Path
) -> None:
    # The SDK's manual mode hands the input request back to the driver, which answers "allow
    # once" under a requestState the server never issued, under another question's state, and
    # under a state already spent: each time the server asks again and shows nothing. The
    # answer under the state just issued runs the call.
    log = tmp_path / "ops.jsonl"
    notes, more = {"path": "private/notes.txt"}, {"path": "private/more.txt"}

    def read(arguments: dict[str, Any], **answer: Any) -> dict[str, Any]:
        extra = {**answer, "answer": ALLOW_ONCE} if answer else {}
        return {"name": "read_file", "arguments": arguments, **extra}

    manual = {
        "op": "manual",
        "calls": [
            read(notes),  # 0: asked
            read(notes, state_from="forged", keys_from=0),  # 1: a forged state: asked again
            read(more),  # 2: asked
            read(more, state_from=1, keys_from=1),  # 3: notes' state and answer: asked again
            read(notes, state_from=1, keys_from=1),  # 4: that state again, spent: asked again
            read(notes, state_from=4, keys_from=4),  # 5: the state just issued: runs
            read(more, state_from=2, keys_from=2),  # 6: more's own, unspent: runs
        ],
    }
    person = {"answers": []}  # the handler is not called in manual mode
    output = _session(node, tmp_path, asking(tree, log), [manual], elicitation=person)
    answers = output["steps"][0]["answers"]
    kinds = [answer["resultType"] for answer in answers]
    assert kinds == ["input_required"] * 5 + ["complete"] * 2, answers
    assert all(MARKER not in str(answer) for answer in answers[:5])
    assert answers[0]["keys"] == answers[1]["keys"] == answers[4]["keys"] != answers[2]["keys"]
    assert answers[3]["keys"] == answers[2]["keys"]
    assert MARKER in answers[5]["text"] and "notes" in answers[5]["text"]
    assert MARKER in answers[6]["text"] and "more" in answers[6]["text"]
    assert output["questions"] == []
    codes = [record["code"] for record in records(log)]
    assert codes == ["approval_pending"] * 5 + ["ok"] * 2


@pytest.mark.parametrize(
    ("negotiation", "version", "input_required", "server_requests"),
    [("auto", VERSION, 1, 0), ("legacy", "2025-11-25", 0, 1)],
)
def test_the_same_handler_answers_on_the_version_the_client_negotiates(
    node: Node,
    tree: Path,
    tmp_path: Path,
    negotiation: str,
    version: str,
    input_required: int,
    server_requests: int,
) -> None:
    # Unpinned, the client probes (auto) and finds 2026-07-28, where the question comes as an
    # input request; or (legacy, its default) runs the 2025 handshake, where the server sends
    # elicitation/create. The one handler answers both.
    log = tmp_path / "ops.jsonl"
    steps = steps_of(("read_file", {"path": "private/notes.txt"}))
    person = {"answers": [ALLOW_ONCE]}
    server = asking(tree, log)
    output = drive(node, tmp_path, server, steps, negotiation=negotiation, elicitation=person)
    assert output["protocol_version"] == version
    assert output["wire"] == {"input_required": input_required, "server_requests": server_requests}
    text, is_error = answer_of(output["steps"][0])
    assert not is_error and MARKER in text
    check_question_names_the_call(output["questions"][0]["message"])


def test_progress_and_cancellation_on_2026_07_28(node: Node, tmp_path: Path) -> None:
    # A budget far beyond the test's patience: only the cancellation can stop the search early.
    # 160 files: SLOW_GREP takes several seconds on them even on an idle machine (about 0.05 s
    # a file a core), so the abort at 2.5 s always meets a running search.
    slow = make_slow_tree(tmp_path / "slow", files=160)
    server = serve(slow, "--time-budget", "600", "--no-index", "--log-level", "debug")
    grep = {"op": "call", "name": "grep", "arguments": SLOW_GREP}
    steps = [
        {**grep, "progress": True, "abort_after_ms": 2500},
        {"op": "sleep", "ms": 1000},  # the session stays open while the server stops
        *steps_of(("glob", {"pattern": "d00/*"})),
    ]
    # A progress notification the server sent while the cancellation was on its way arrives after
    # the client forgot the token; the client reports it, and the protocol allows it.
    late = (
        'Received a progress notification for an unknown token: {"method":"notifications/progress"'
    )
    aborted, _, after = _session(node, tmp_path, server, steps, crossing=late)["steps"]
    # The AbortSignal rejects the call with its reason (the SDK names the error REQUEST_TIMEOUT).
    assert "error" in aborted, aborted
    assert aborted["error"]["message"] == "the user pressed stop", aborted
    seen = aborted["progress"]
    assert len(seen) >= 2, seen
    values = [item["value"] for item in seen]
    assert values == sorted(values) and values[0] >= 0.5
    assert all(item["message"].startswith("grep running for") for item in seen)
    # The server stopped the search when the client cancelled it, before the session ended.
    errlog = (tmp_path / "server-stderr.log").read_text()
    stopped = re.search(r"grep stopped ([\d.]+) ms after it was cancelled \((.*)\)", errlog)
    assert stopped and float(stopped.group(1)) < 3000.0, errlog[-2000:]
    assert stopped.group(2) != "the client closed stdin"
    assert "stdin closed; 0 call(s) in flight cancelled" in errlog
    assert not answer_of(after)[1] and "d00/f0000.txt" in answer_of(after)[0]
