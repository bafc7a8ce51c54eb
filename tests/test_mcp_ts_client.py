"""`ripsight mcp` driven by a second real client: the MCP TypeScript SDK (npm's
``@modelcontextprotocol/sdk``, pinned in tests/ts_client/package.json), the one most hosts are
built on.

Each test writes a plan for tests/ts_client/drive.mjs (the server command, the client's
capabilities, the calls), runs it with node, and asserts on the JSON it prints, with the
expectations of the Python SDK tests (tests/test_mcp.py, test_mcp_long_calls.py,
test_mcp_approval.py, test_mcp_roots.py): the same texts, the same structured results. What
the TypeScript client adds: its Client validates every ``structuredContent`` against the tool's
``outputSchema`` itself (a result that does not match is an error it throws), an
``AbortSignal`` cancels a call, ``onprogress`` asks for progress, and its handlers answer
``elicitation/create`` and ``roots/list``.

The SDK 1.x negotiates the 2025-11-25 protocol at most: an approval reaches the person through
``elicitation/create`` (the 2026-07-28 input request is the Python SDK 2.x's, in
test_mcp_approval.py), and the client's roots are asked with ``roots/list``, also on an older
version a host pins.

node and npm are needed: without them the tests skip, but fail under CI (.ci/run installs
them and runs ``npm ci``); a ``node_modules`` that lacks the pinned SDK is installed here with
``npm ci``.
"""

from __future__ import annotations

import importlib.metadata
import json
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
    check_image_answer,
    check_question_names_the_call,
    check_refused_by_the_person,
    check_told_how_to_allow,
    make_private_tree,
    make_roots,
    make_slow_tree,
)
from _pdfs import text_pdf
from _ts_client import (
    ASKED_READS,
    MAX_SAFE_INTEGER,
    SDK_1,
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
    text_of,
    without_timing,
)
from ripsight import ToolCall, Workspace, default_registry, to_dict
from ripsight.mcp_server import _SDK_HAS_DECORATORS, OUTPUT_SCHEMAS
from ripsight.tools import builtin_tools

pytestmark = pytest.mark.slow  # a node process and an MCP server process per test

MARKER = APPROVAL_MARKER
SDK_MAJOR = int(importlib.metadata.version("mcp").split(".")[0])  # the server's MCP SDK


@pytest.fixture(scope="module")
def node() -> Node:
    return node_with_sdk(SDK_1)


def _same_ref(text: str) -> str:
    """`text` with its stored-result references as one form (each session names its own)."""
    return re.sub(r"ref_[0-9a-f]+", "ref_…", text)


# -- every tool, validated by the SDK -------------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A small Python project (definitions, references and calls between two files), a PDF, a
    file long enough to be cut, and files the server must not show."""
    root = tmp_path / "repo"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "app.py").write_text(
        "import os\n\nfrom pkg.util import helper\n\n\n"
        "def main():\n    # TODO: read the config\n    return helper(os.getcwd())\n"
    )
    (root / "src" / "pkg" / "__init__.py").write_text("from .util import helper\n")
    (root / "src" / "pkg" / "util.py").write_text(
        "def helper(x):\n    return twice(x)  # TODO tests\n\n\ndef twice(x):\n    return x * 2\n"
    )
    (root / "README.md").write_text("# demo\n\nRun `main()`.\n")
    (root / "doc.pdf").write_bytes(text_pdf(["First page", "Second page"]))
    (root / "many.txt").write_text("".join(f"needle {i:04d} {'y' * 60}\n" for i in range(600)))
    (root / ".env").write_text("API_KEY=TODO-secret\n")
    (tmp_path / "outside.txt").write_text("TODO outside the root\n")
    return root


#: One call of every tool the server lists (read_result comes after, on a cut result), each
#: with the Workspace method whose typed result its structuredContent is.
CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("glob", {"pattern": "**/*.py"}, "glob"),
    ("grep", {"pattern": "TODO", "context": 1}, "grep"),
    ("grep", {"pattern": "todo", "case_insensitive": True, "output_mode": "count"}, "grep"),
    ("read_file", {"path": "src/app.py", "offset": 2, "limit": 3}, "read_file"),
    ("read_file", {"path": "doc.pdf", "pages": "2"}, "read_pdf"),
    ("outline", {"path": "src/pkg/util.py"}, "outline"),
    ("find_definitions", {"name": "helper"}, "definitions"),
    ("find_references", {"name": "helper"}, "references"),
    ("find_references", {"name": "helper", "role": "call", "group_by": "caller"}, "references"),
    ("find_calls", {"name": "helper"}, "calls"),
    ("repo_map", {"max_chars": 2000}, "repo_map"),
]
#: A grep whose text is cut (600 matches), then read_result on the reference the cut names.
CUT = {"pattern": "needle", "limit": 500}
PAGE = {"offset": 3, "limit": 4}


def test_every_tool_answers_the_sdk_client_with_the_python_api_result(
    node: Node, tree: Path, tmp_path: Path
) -> None:
    steps: list[dict[str, Any]] = [{"op": "list_tools"}]
    steps += [{"op": "call", "name": name, "arguments": args} for name, args, _ in CALLS]
    cut_step = len(steps)
    steps.append({"op": "call", "name": "grep", "arguments": CUT})
    steps.append({"op": "call", "name": "read_result", "arguments": PAGE, "ref_from": cut_step})
    # --no-index: every answer comes from the cold engine, as the Workspace's below.
    output = drive(node, tmp_path, serve(tree, "--no-index"), steps)
    listed, *results = output["steps"]

    specs = builtin_tools()
    assert [tool["name"] for tool in listed["tools"]] == [spec.name for spec in specs]
    if SDK_MAJOR >= 2:  # the SDK 1.x's server has no description in serverInfo
        description = output["server_info"]["description"]
        assert all(spec.name in description for spec in specs), description
    assert {name for name, _, _ in CALLS} | {"read_result"} == {spec.name for spec in specs}
    definitions = {d["name"]: d for d in default_registry(tree).definitions("mcp")}
    for tool in listed["tools"]:
        assert tool["inputSchema"] == definitions[tool["name"]]["inputSchema"]
        assert tool.get("outputSchema") == OUTPUT_SCHEMAS.get(tool["name"])
    # The SDK compiled a validator for each tool with an outputSchema (every tool but
    # read_result), and checked each structuredContent below with it: callTool would have
    # thrown on a mismatch (the next test shows it does).
    assert (
        listed["validated"]
        == sorted(OUTPUT_SCHEMAS)
        == [spec.name for spec in specs if spec.output_schema is not None]
    )
    assert "read_result" not in listed["validated"]

    ws = Workspace(tree)
    registry = default_registry(tree)
    for (name, args, method), result in zip(CALLS, results):
        expected = registry.execute(ToolCall("local", name, args))
        assert result["result"]["isError"] is False, text_of(result)
        assert text_of(result) == expected.content, name
        typed = as_javascript_reads(to_dict(getattr(ws, method)(**args)))
        structured = as_javascript_reads(result["result"]["structuredContent"])
        assert without_timing(structured) == without_timing(typed), name

    by_call = dict(zip((f"{name} {args}" for name, args, _ in CALLS), results))
    glob = by_call["glob {'pattern': '**/*.py'}"]["result"]["structuredContent"]
    assert glob["paths"] == ["src/app.py", "src/pkg/__init__.py", "src/pkg/util.py"]
    pdf = results[4]["result"]["structuredContent"]
    assert (pdf["page_count"], pdf["pages"][0]["text"]) == (2, "Second page")
    definitions_found = results[6]["result"]["structuredContent"]
    assert definitions_found["total"] == 1
    callers = text_of(results[8])
    assert "main" in callers and "src/app.py" in callers

    # The cut grep names a stored result; read_result pages it as the Python API does.
    cut, page = results[-2:]
    assert re.search(r"ref_[0-9a-f]+", text_of(cut))
    local = registry.execute(ToolCall("local", "grep", CUT))
    assert _same_ref(text_of(cut)) == _same_ref(local.content)
    ref = re.search(r"ref_[0-9a-f]+", local.content)
    assert ref is not None
    local_page = registry.execute(ToolCall("local", "read_result", {"ref": ref.group(), **PAGE}))
    assert not local_page.is_error
    assert page["result"].get("structuredContent") is None  # a page has no typed form
    assert _same_ref(text_of(page)) == _same_ref(local_page.content)
    assert "needle 0001" in text_of(page)


@pytest.mark.xfail(
    strict=True,
    reason="read_file's structured mtime_ns (nanoseconds since 1970, about 1.8e18) exceeds "
    "2^53: a JavaScript client reads it rounded to the nearest double",
)
def test_read_file_identity_reaches_a_javascript_client_exactly(
    node: Node, tree: Path, tmp_path: Path
) -> None:
    steps = [{"op": "call", "name": "read_file", "arguments": {"path": "src/app.py"}}]
    (read,) = drive(node, tmp_path, serve(tree), steps)["steps"]
    structured = read["result"]["structuredContent"]
    expected = to_dict(Workspace(tree).read_file("src/app.py"))
    assert expected["mtime_ns"] > MAX_SAFE_INTEGER  # a file written now
    assert (structured["dev"], structured["inode"]) == (expected["dev"], expected["inode"])
    assert structured["mtime_ns"] == expected["mtime_ns"]


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("grep", {"pattern": "TODO"}),
        ("read_file", {"path": "src/app.py"}),  # a union schema (text, PDF, image...)
        ("find_references", {"name": "helper"}),
    ],
)
def test_the_sdk_refuses_a_structured_result_that_breaks_the_output_schema(
    node: Node, tree: Path, tmp_path: Path, name: str, arguments: dict[str, Any]
) -> None:
    # The same call four times: untouched, then altered on its way into the client (a field of
    # another type, a required field missing, no structuredContent at all). The untouched one
    # passes the SDK's check; each altered one is refused by it, so the check is really made.
    steps: list[dict[str, Any]] = [{"op": "list_tools"}]
    for tamper in (None, "wrong_type", "missing_field", "no_structured"):
        steps.append({"op": "call", "name": name, "arguments": arguments, "tamper": tamper})
    _, kept, wrong_type, missing, absent = drive(node, tmp_path, serve(tree), steps)["steps"]
    assert kept["result"]["isError"] is False and kept["result"]["structuredContent"]
    for refused in (wrong_type, missing):
        assert refused["error"]["code"] == -32602, refused
        assert (
            "Structured content does not match the tool's output schema"
            in (refused["error"]["message"])
        )
    assert "must have required property" in missing["error"]["message"]
    assert absent["error"]["code"] == -32600
    assert (
        "has an output schema but did not return structured content" in (absent["error"]["message"])
    )


def test_bad_calls_are_error_results_with_the_registry_text(
    node: Node, tree: Path, tmp_path: Path
) -> None:
    calls = [
        ("grep", {"pattern": "TODO", "limit": "5"}),  # "5" is not an integer: no coercion
        ("read_file", {}),  # required path missing
        ("Read", {"path": "src/app.py"}),  # a tool name from another agent
        ("read_file", {"path": "../outside.txt"}),
        ("read_file", {"path": ".env"}),
        ("grep", {"pattern": "def (main"}),
    ]
    steps = [{"op": "list_tools"}]
    steps += [{"op": "call", "name": name, "arguments": args} for name, args in calls]
    _, *results = drive(node, tmp_path, serve(tree), steps)["steps"]
    for (name, args), result in zip(calls, results):
        # An error result carries no structuredContent, and the SDK accepts it so.
        assert result["result"]["isError"] is True, (name, result)
        assert result["result"].get("structuredContent") is None
        expected = default_registry(tree).execute(ToolCall("local", name, args))
        assert expected.is_error and text_of(result) == expected.content
        assert "TODO outside the root" not in text_of(result)
        assert "TODO-secret" not in text_of(result)
    assert "Invalid arguments for grep" in text_of(results[0])
    assert "did you mean read_file" in text_of(results[2]).lower()


def test_concurrent_calls_from_the_sdk_are_all_answered(
    node: Node, tree: Path, tmp_path: Path
) -> None:
    calls = [(name, args) for name, args, _ in CALLS] + [("grep", {"pattern": "x", "limit": "x"})]
    gather = {"op": "gather", "calls": [{"name": n, "arguments": a} for n, a in calls]}
    output = drive(node, tmp_path, serve(tree, "--no-index"), [{"op": "list_tools"}, gather])
    results = output["steps"][1]
    registry = default_registry(tree)
    for (name, args), result in zip(calls, results):
        expected = registry.execute(ToolCall("local", name, args))
        assert result["result"]["isError"] is expected.is_error
        assert text_of(result) == expected.content
    assert results[-1]["result"]["isError"] is True


def test_an_image_reaches_the_sdk_as_image_content_beside_the_text(
    node: Node, tmp_path: Path
) -> None:
    from _media_corpus import copy_a_real_png

    root = tmp_path / "repo"
    root.mkdir()
    if not copy_a_real_png(root / "logo.png"):
        pytest.skip("no real PNG under /usr/share on this machine")
    steps = [
        {"op": "list_tools"},
        {"op": "call", "name": "read_file", "arguments": {"path": "logo.png"}},
    ]
    _, image = drive(node, tmp_path, serve(root), steps)["steps"]
    check_image_answer(image["result"], root, "logo.png")  # its structured copy checked by the SDK


# -- cancellation, progress and the client's log level --------------------------------------------------------------------


@pytest.fixture(scope="module")
def slow_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # 80 files, 60 MB: SLOW_GREP takes many seconds on it (about 0.2 s a file on one core).
    return make_slow_tree(tmp_path_factory.mktemp("slow"), files=80)


def test_an_aborted_call_is_cancelled_and_the_server_stops_its_search(
    node: Node, slow_tree: Path, tmp_path: Path
) -> None:
    # A budget far beyond the test's patience: only the cancellation can stop the search early.
    flags = ("--time-budget", "600", "--log-level", "debug", "--no-index")
    steps = [
        {
            "op": "call",
            "name": "grep",
            "arguments": SLOW_GREP,
            "abort_on_log": r"ripsight\.mcp: grep running",
            "abort_delay_ms": 300,
        },
        {"op": "wait_log", "pattern": r"grep stopped ([\d.]+) ms after it was cancelled \((.*)\)"},
        {"op": "call", "name": "glob", "arguments": {"pattern": "d00/*"}},
    ]
    # The Python SDK 1.x's server answers a cancelled request anyway (an error "Request
    # cancelled", which the protocol says not to send); the SDK's client reports the answer it
    # no longer waits for. The SDK 2.x's server sends none.
    late = []
    if SDK_MAJOR < 2:
        answer = {"jsonrpc": "2.0", "id": 1, "error": {"code": 0, "message": "Request cancelled"}}
        sent = json.dumps(answer, separators=(",", ":"))
        late = [f"Received a response for an unknown message ID: {sent}"]
    server = serve(slow_tree, *flags)
    aborted, stopped, after = drive(node, tmp_path, server, steps, late)["steps"]
    # The SDK rejects the call with the signal's reason and sends notifications/cancelled.
    assert aborted["error"]["message"].endswith(": the user pressed stop"), aborted
    assert aborted["elapsed_ms"] < aborted["aborted_after_ms"] + 5000
    # The server stopped the search: its thread ended soon after the cancellation (a generous
    # bound; the search alone runs for many seconds), for the client's reason.
    assert float(stopped["match"][1]) < 3000.0, stopped
    assert "the user pressed stop" in stopped["match"][2] or "cancel" in stopped["match"][2]
    # And it goes on serving.
    assert after["result"]["isError"] is False and "d00/f0000.txt" in text_of(after)


def test_a_slow_call_sends_progress_to_the_sdk_client(node: Node, tmp_path: Path) -> None:
    slow = make_slow_tree(tmp_path / "slow", files=40)
    steps = [
        {"op": "call", "name": "glob", "arguments": {"pattern": "*"}, "progress": True},
        {"op": "call", "name": "grep", "arguments": SLOW_GREP, "progress": True},
    ]
    flags = ("--time-budget", "3", "--no-index")
    quick, slow_call = drive(node, tmp_path, serve(slow, *flags), steps)["steps"]
    assert quick["progress"] == []  # a call under the threshold sends none
    assert slow_call["result"]["structuredContent"]["incomplete"] is True
    seen = slow_call["progress"]
    assert len(seen) >= 2, seen
    values = [item["value"] for item in seen]
    assert values == sorted(values) and values[0] >= 0.5
    assert all(item["message"].startswith("grep running for") for item in seen)
    searched = [
        int(found.group(1).replace(",", ""))
        for item in seen
        if (found := re.search(r"([\d,]+) files searched so far", item["message"]))
    ]
    assert searched and searched == sorted(searched) and searched[-1] <= 40, seen


def test_the_sdk_client_sets_the_log_level(node: Node, tree: Path, tmp_path: Path) -> None:
    glob = {"op": "call", "name": "glob", "arguments": {"pattern": "*"}}
    steps = [
        glob,  # nothing before the client sets a level
        {"op": "set_log_level", "level": "info"},
        glob,
        {"op": "set_log_level", "level": "error"},
        glob,
    ]
    logs = drive(node, tmp_path, serve(tree), steps)["logs"]
    assert len(logs) == 1, logs
    assert logs[0]["level"] == "info"
    assert logs[0]["data"].startswith("glob answered in")


# -- approvals: elicitation/create, answered by the SDK's elicitation handler ---------------------


@pytest.fixture
def private_tree(tmp_path: Path) -> Path:
    return make_private_tree(tmp_path / "repo")


def test_an_accepted_question_runs_the_call_once(
    node: Node, private_tree: Path, tmp_path: Path
) -> None:
    log = tmp_path / "ops.jsonl"
    person = {"answers": [ALLOW_ONCE, ALLOW_ONCE]}
    output = drive(node, tmp_path, asking(private_tree, log), ASKED_READS, elicitation=person)
    check_asked_reads(output["steps"])
    questions = output["questions"]
    assert len(questions) == 2
    check_question_names_the_call(questions[0])
    approvals = [r["approval"] for r in records(log) if r["approval"]]
    assert [(a["decision"], a["decided_by"]) for a in approvals] == [
        ("allowed", "callback"),
        ("allowed", "approved_before"),
        ("allowed", "callback"),
    ]
    assert MARKER not in log.read_text()


@pytest.mark.parametrize(("answer", "says"), REFUSALS, ids=REFUSAL_IDS)
def test_a_declined_or_cancelled_question_refuses_the_call(
    node: Node, private_tree: Path, tmp_path: Path, answer: dict[str, Any], says: str
) -> None:
    log = tmp_path / "ops.jsonl"
    steps = steps_of(("grep", {"pattern": "QZX", "path": "private"}))
    output = drive(
        node, tmp_path, asking(private_tree, log), steps, elicitation={"answers": [answer]}
    )
    text, is_error = answer_of(output["steps"][0])
    check_refused_by_the_person(text, is_error, says, log)


def test_allowed_for_the_session_covers_the_tool_on_that_path(
    node: Node, private_tree: Path, tmp_path: Path
) -> None:
    log = tmp_path / "ops.jsonl"
    person = {"answers": [ALLOW_SESSION, DENY]}
    output = drive(node, tmp_path, asking(private_tree, log), SESSION_CALLS, elicitation=person)
    check_session_calls(output["steps"], log)
    assert len(output["questions"]) == 2


def test_a_client_without_elicitation_is_told_how_to_allow_the_call(
    node: Node, private_tree: Path, tmp_path: Path
) -> None:
    log = tmp_path / "ops.jsonl"
    steps = steps_of(("read_file", {"path": "private/notes.txt"}))
    output = drive(node, tmp_path, asking(private_tree, log), steps)  # no elicitation
    text, is_error = answer_of(output["steps"][0])
    check_told_how_to_allow(text, is_error, log)


def test_a_person_who_does_not_answer_in_time_is_a_refusal(
    node: Node, private_tree: Path, tmp_path: Path
) -> None:
    log = tmp_path / "ops.jsonl"
    steps = steps_of(("read_file", {"path": "private/notes.txt"}))
    server = asking(private_tree, log, "--approval-deadline", "0.5")
    person = {"answers": [ALLOW_ONCE], "delay_ms": 3000}
    text, is_error = answer_of(drive(node, tmp_path, server, steps, elicitation=person)["steps"][0])
    assert is_error and "and no answer came within 0.5 s, so it is refused." in text, text
    assert records(log)[-1]["approval"]["decided_by"] == "deadline"


def test_a_call_waiting_for_the_person_holds_no_slot(
    node: Node, private_tree: Path, tmp_path: Path
) -> None:
    # The TypeScript client answers other results while its elicitation handler waits (the
    # Python SDK 1.x's does not). The person answers once the other call was answered: with one
    # slot, a waiting call that held it would keep the other from running, and the person
    # would give up (deny) after 20 s.
    log = tmp_path / "ops.jsonl"
    gather = {
        "op": "gather",
        "calls": [
            {"name": "read_file", "arguments": {"path": "private/notes.txt"}},
            {"name": "read_file", "arguments": {"path": "src/app.py"}, "delay_ms": 300},
        ],
    }
    server = asking(private_tree, log, "--max-concurrent-calls", "1")
    person = {"answers": [ALLOW_ONCE], "wait_answered": 1, "answer_late": DENY}
    output = drive(node, tmp_path, server, [gather], elicitation=person)
    asked, free = (answer_of(result) for result in output["steps"][0])
    assert not free[1] and "def main" in free[0]
    assert not asked[1] and MARKER in asked[0], asked


# -- the client's roots, on the SDK's protocol version and on older ones --------------------------


@pytest.fixture
def roots(tmp_path: Path) -> list[Path]:
    return make_roots(tmp_path)


def _uris(*paths: Path) -> list[str]:
    return [path.resolve().as_uri() for path in paths]


@pytest.mark.parametrize("version", [None, "2025-06-18", "2025-03-26", "2024-11-05"])
def test_the_clients_roots_are_served_and_follow_its_changes(
    node: Node, roots: list[Path], tmp_path: Path, version: str | None
) -> None:
    # None: the SDK's own version (its latest, 2025-11-25); the others as a host pinned to an
    # older protocol offers them. The server has no --root: it serves the client's roots.
    web, api, docs = roots
    grep = {"op": "call", "name": "grep", "arguments": {"pattern": "TODO"}}
    steps = [
        grep,
        {"op": "set_roots", "roots": _uris(api, docs)},  # web removed, docs added
        grep,
        {"op": "call", "name": "read_file", "arguments": {"path": "web/src/main.txt"}},
        {"op": "set_roots", "roots": _uris(docs)},  # one root: paths as with --root
        {"op": "call", "name": "glob", "arguments": {"pattern": "**/*"}},
    ]
    server = serve(None, "--no-index", cwd=tmp_path)
    output = drive(node, tmp_path, server, steps, roots=_uris(web, api), protocol_version=version)
    assert output["protocol_version"] == (version or "2025-11-25")
    before, _, after, gone, _, alone = output["steps"]
    assert text_of(before).splitlines()[1:] == [
        "web/src/main.txt:1:TODO in web",
        "api/src/main.txt:1:TODO in api",
    ]
    assert text_of(after).splitlines()[1:] == [
        "api/src/main.txt:1:TODO in api",
        "docs/src/main.txt:1:TODO docs",
    ]
    assert "not found" in text_of(gone) and "api/, docs/" in text_of(gone)
    assert text_of(alone).splitlines()[1:] == ["src/main.txt"]
    assert output["roots_asked"] == 3  # once after initialize, once per change


@pytest.mark.skipif(_SDK_HAS_DECORATORS, reason="SDK 1.x: asked before the first request")
def test_the_roots_are_asked_right_after_initialize(
    node: Node, roots: list[Path], tmp_path: Path
) -> None:
    steps = [{"op": "wait_roots"}, {"op": "call", "name": "glob", "arguments": {"pattern": "**/*"}}]
    server = serve(None, "--no-index", cwd=tmp_path)
    output = drive(node, tmp_path, server, steps, roots=_uris(roots[0]))
    waited, listed = output["steps"]
    assert waited["asked"] == 1  # asked before any request was sent
    assert text_of(listed).splitlines()[1:] == ["src/main.txt"]
    assert output["roots_asked"] == 1  # the call used the roots already asked


def test_a_client_root_that_cannot_be_opened_is_told_to_the_model(
    node: Node, roots: list[Path], tmp_path: Path
) -> None:
    missing = tmp_path / "gone"
    a_file = roots[1] / "src" / "main.txt"
    steps = [{"op": "call", "name": "grep", "arguments": {"pattern": "TODO"}}]
    server = serve(None, "--no-index", cwd=tmp_path)
    output = drive(node, tmp_path, server, steps, roots=_uris(roots[0], missing, a_file))
    text = text_of(output["steps"][0])
    assert "web/src/main.txt:1:TODO in web" in text
    assert str(missing) in text and str(a_file) in text and "Not served: " in text


def test_roots_given_on_the_command_line_are_kept(
    node: Node, roots: list[Path], tmp_path: Path
) -> None:
    steps = [{"op": "call", "name": "glob", "arguments": {"pattern": "**/*"}}]
    server = serve(None, "--no-index", str(roots[1]))
    output = drive(node, tmp_path, server, steps, roots=_uris(roots[0]))
    listed = text_of(output["steps"][0])
    assert listed.splitlines()[1:] == ["src/main.txt"] and "api" not in listed
    assert output["roots_asked"] == 0


def test_a_text_only_client_gets_no_output_schema_and_no_structured_content(
    node: Node, roots: list[Path], tmp_path: Path
) -> None:
    # Claude Code hands its model the structured copy alone: the server sends it the text.
    steps = [{"op": "list_tools"}, {"op": "call", "name": "grep", "arguments": {"pattern": "TODO"}}]
    output = drive(node, tmp_path, serve(roots[0]), steps, name="claude-code")
    listed, result = output["steps"]
    assert all(tool.get("outputSchema") is None for tool in listed["tools"])
    assert listed["validated"] == []
    assert result["result"].get("structuredContent") is None
    assert "TODO in web" in text_of(result)
