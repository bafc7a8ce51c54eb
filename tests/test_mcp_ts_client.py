"""`ripsight mcp` driven by a second real client: the MCP TypeScript SDK (npm's
``@modelcontextprotocol/sdk``, pinned in tests/ts_client/package.json), the one most hosts are
built on.

Each test writes a plan for tests/ts_client/drive.mjs (the server command, the client's
capabilities, the calls), runs it with node, and asserts on the JSON it prints, with the
expectations of the Python SDK tests (tests/test_mcp.py, test_mcp_approval.py,
test_mcp_roots.py): the same texts, the same structured results. What the TypeScript client
adds: its Client validates every ``structuredContent`` against the tool's ``outputSchema``
itself (a result that does not match is an error it throws), an ``AbortSignal`` cancels a call,
``onprogress`` asks for progress, and its handlers answer ``elicitation/create`` and
``roots/list``.

The SDK 1.x negotiates the 2025-11-25 protocol at most: an approval reaches the person through
``elicitation/create`` (the 2026-07-28 input request is the Python SDK 2.x's, in
test_mcp_approval.py), and the client's roots are asked with ``roots/list``, also on an older
version a host pins.

node and npm are needed: without them the tests skip, but fail under CI (.ci/run installs
them and runs ``npm ci``); a ``node_modules`` that lacks the pinned SDK is installed here with
``npm ci``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _mcp_helpers import SLOW_GREP, make_slow_tree
from _pdfs import text_pdf
from ripsight import ToolCall, Workspace, default_registry, to_dict
from ripsight.mcp_server import OUTPUT_SCHEMAS
from ripsight.tools import builtin_tools

pytestmark = pytest.mark.slow  # a node process and an MCP server process per test

CLIENT_DIR = Path(__file__).resolve().parent / "ts_client"
PINNED = json.loads((CLIENT_DIR / "package.json").read_text())["dependencies"]
SDK = "@modelcontextprotocol/sdk"
# Hang guards, not speed assertions: a broken server or client must fail the test.
NODE_TIMEOUT = 180
NPM_TIMEOUT = 600
MARKER = "QZX-MCP-APPROVAL-9d41"


def _need(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{tool} is missing; .ci/run installs it (apt-get install nodejs npm)")
        pytest.skip(f"{tool} is not installed: the TypeScript SDK client needs node and npm")
    return found


def _installed_version() -> str | None:
    manifest = CLIENT_DIR / "node_modules" / SDK / "package.json"
    return json.loads(manifest.read_text())["version"] if manifest.is_file() else None


@pytest.fixture(scope="module")
def node() -> str:
    """node, with the pinned SDK installed in tests/ts_client (by ``npm ci`` when it is not)."""
    found = _need("node")
    if _installed_version() != PINNED[SDK]:
        done = subprocess.run(
            [_need("npm"), "ci", "--no-audit", "--no-fund"],
            cwd=CLIENT_DIR,
            capture_output=True,
            text=True,
            timeout=NPM_TIMEOUT,
            check=False,
        )
        if done.returncode != 0:
            pytest.fail(f"npm ci failed in {CLIENT_DIR}:\n{done.stderr[-3000:]}")
    assert _installed_version() == PINNED[SDK]
    return found


def _server(root: Path | None, *flags: str, cwd: Path | None = None) -> dict[str, Any]:
    """The server as test_mcp.py starts it: this Python's ripsight (the checkout's through
    PYTHONPATH, or the installed wheel), inheriting the environment."""
    args = ["-m", "ripsight.cli", "mcp"]
    if root is not None:
        args += ["--root", str(root)]
    return {"command": sys.executable, "args": [*args, *flags], "cwd": str(cwd) if cwd else None}


def drive(
    node: str,
    tmp_path: Path,
    server: dict[str, Any],
    steps: list[dict[str, Any]],
    **client: Any,
) -> dict[str, Any]:
    """Runs drive.mjs with this plan; returns what it printed (the session, a result per step).
    The session itself must have worked: no fatal error, no protocol error, no traceback."""
    errlog = tmp_path / "server-stderr.log"
    plan = {"server": server, "errlog": str(errlog), "client": client, "steps": steps}
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan))
    done = subprocess.run(
        [node, str(CLIENT_DIR / "drive.mjs"), str(plan_file)],
        capture_output=True,
        text=True,
        timeout=NODE_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    output: dict[str, Any] = json.loads(done.stdout)
    assert "fatal" not in output, output["fatal"]
    assert output["errors"] == [], output["errors"]
    assert output["server_info"]["name"] == "ripsight"
    assert "Traceback" not in errlog.read_text(), errlog.read_text()
    return output


def _text(result: dict[str, Any]) -> str:
    assert "error" not in result, result
    content = result["result"]["content"]
    assert len(content) == 1 and content[0]["type"] == "text"
    return str(content[0]["text"])


def _without_timing(data: dict[str, Any]) -> dict[str, Any]:
    """`data` but its timing and its parse-cache accounting (which follows what the process
    answering it parsed before)."""
    history = ("elapsed_ms", "cached", "files_cached")
    return {key: value for key, value in data.items() if key not in history}


#: The largest integer a JavaScript number holds exactly (Number.MAX_SAFE_INTEGER).
MAX_SAFE_INTEGER = 2**53 - 1


def _as_javascript_reads(value: Any) -> Any:
    """`value` as a JavaScript client reads it from JSON: an integer beyond 2^53 becomes the
    nearest double (read_file's ``mtime_ns``, nanoseconds since 1970, is one; see
    `test_read_file_identity_reaches_a_javascript_client_exactly`)."""
    if isinstance(value, dict):
        return {key: _as_javascript_reads(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_javascript_reads(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_SAFE_INTEGER:
        return float(value)
    return value


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
    node: str, tree: Path, tmp_path: Path
) -> None:
    steps: list[dict[str, Any]] = [{"op": "list_tools"}]
    steps += [{"op": "call", "name": name, "arguments": args} for name, args, _ in CALLS]
    cut_step = len(steps)
    steps.append({"op": "call", "name": "grep", "arguments": CUT})
    steps.append({"op": "call", "name": "read_result", "arguments": PAGE, "ref_from": cut_step})
    # --no-index: every answer comes from the cold engine, as the Workspace's below.
    output = drive(node, tmp_path, _server(tree, "--no-index"), steps)
    listed, *results = output["steps"]

    specs = builtin_tools()
    assert [tool["name"] for tool in listed["tools"]] == [spec.name for spec in specs]
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
        assert result["result"]["isError"] is False, _text(result)
        assert _text(result) == expected.content, name
        typed = _as_javascript_reads(to_dict(getattr(ws, method)(**args)))
        structured = _as_javascript_reads(result["result"]["structuredContent"])
        assert _without_timing(structured) == _without_timing(typed), name

    by_call = dict(zip((f"{name} {args}" for name, args, _ in CALLS), results))
    glob = by_call["glob {'pattern': '**/*.py'}"]["result"]["structuredContent"]
    assert glob["paths"] == ["src/app.py", "src/pkg/__init__.py", "src/pkg/util.py"]
    pdf = results[4]["result"]["structuredContent"]
    assert (pdf["page_count"], pdf["pages"][0]["text"]) == (2, "Second page")
    definitions_found = results[6]["result"]["structuredContent"]
    assert definitions_found["total"] == 1
    callers = _text(results[8])
    assert "main" in callers and "src/app.py" in callers

    # The cut grep names a stored result; read_result pages it as the Python API does.
    cut, page = results[-2:]
    assert re.search(r"ref_[0-9a-f]+", _text(cut))
    local = registry.execute(ToolCall("local", "grep", CUT))
    assert _same_ref(_text(cut)) == _same_ref(local.content)
    ref = re.search(r"ref_[0-9a-f]+", local.content)
    assert ref is not None
    local_page = registry.execute(ToolCall("local", "read_result", {"ref": ref.group(), **PAGE}))
    assert not local_page.is_error
    assert page["result"].get("structuredContent") is None  # a page has no typed form
    assert _same_ref(_text(page)) == _same_ref(local_page.content)
    assert "needle 0001" in _text(page)


@pytest.mark.xfail(
    strict=True,
    reason="read_file's structured mtime_ns (nanoseconds since 1970, about 1.8e18) exceeds "
    "2^53: a JavaScript client reads it rounded to the nearest double",
)
def test_read_file_identity_reaches_a_javascript_client_exactly(
    node: str, tree: Path, tmp_path: Path
) -> None:
    steps = [{"op": "call", "name": "read_file", "arguments": {"path": "src/app.py"}}]
    (read,) = drive(node, tmp_path, _server(tree), steps)["steps"]
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
    node: str, tree: Path, tmp_path: Path, name: str, arguments: dict[str, Any]
) -> None:
    # The same call four times: untouched, then altered on its way into the client (a field of
    # another type, a required field missing, no structuredContent at all). The untouched one
    # passes the SDK's check; each altered one is refused by it, so the check is really made.
    steps: list[dict[str, Any]] = [{"op": "list_tools"}]
    for tamper in (None, "wrong_type", "missing_field", "no_structured"):
        steps.append({"op": "call", "name": name, "arguments": arguments, "tamper": tamper})
    _, kept, wrong_type, missing, absent = drive(node, tmp_path, _server(tree), steps)["steps"]
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
    node: str, tree: Path, tmp_path: Path
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
    _, *results = drive(node, tmp_path, _server(tree), steps)["steps"]
    for (name, args), result in zip(calls, results):
        # An error result carries no structuredContent, and the SDK accepts it so.
        assert result["result"]["isError"] is True, (name, result)
        assert result["result"].get("structuredContent") is None
        expected = default_registry(tree).execute(ToolCall("local", name, args))
        assert expected.is_error and _text(result) == expected.content
        assert "TODO outside the root" not in _text(result)
        assert "TODO-secret" not in _text(result)
    assert "Invalid arguments for grep" in _text(results[0])
    assert "did you mean read_file" in _text(results[2]).lower()


def test_concurrent_calls_from_the_sdk_are_all_answered(
    node: str, tree: Path, tmp_path: Path
) -> None:
    calls = [(name, args) for name, args, _ in CALLS] + [("grep", {"pattern": "x", "limit": "x"})]
    gather = {"op": "gather", "calls": [{"name": n, "arguments": a} for n, a in calls]}
    output = drive(node, tmp_path, _server(tree, "--no-index"), [{"op": "list_tools"}, gather])
    results = output["steps"][1]
    registry = default_registry(tree)
    for (name, args), result in zip(calls, results):
        expected = registry.execute(ToolCall("local", name, args))
        assert result["result"]["isError"] is expected.is_error
        assert _text(result) == expected.content
    assert results[-1]["result"]["isError"] is True


# -- cancellation and progress --------------------------------------------------------------------


@pytest.fixture(scope="module")
def slow_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # 80 files, 60 MB: SLOW_GREP takes many seconds on it (about 0.2 s a file on one core).
    return make_slow_tree(tmp_path_factory.mktemp("slow"), files=80)


def test_an_aborted_call_is_cancelled_and_the_server_stops_its_search(
    node: str, slow_tree: Path, tmp_path: Path
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
    aborted, stopped, after = drive(node, tmp_path, _server(slow_tree, *flags), steps)["steps"]
    # The SDK rejects the call with the signal's reason and sends notifications/cancelled.
    assert aborted["error"]["message"].endswith(": the user pressed stop"), aborted
    assert aborted["elapsed_ms"] < aborted["aborted_after_ms"] + 5000
    # The server stopped the search: its thread ended soon after the cancellation (a generous
    # bound; the search alone runs for many seconds), for the client's reason.
    assert float(stopped["match"][1]) < 3000.0, stopped
    assert "the user pressed stop" in stopped["match"][2] or "cancel" in stopped["match"][2]
    # And it goes on serving.
    assert after["result"]["isError"] is False and "d00/f0000.txt" in _text(after)


def test_a_slow_call_sends_progress_to_the_sdk_client(node: str, tmp_path: Path) -> None:
    slow = make_slow_tree(tmp_path / "slow", files=40)
    steps = [
        {"op": "call", "name": "glob", "arguments": {"pattern": "*"}, "progress": True},
        {"op": "call", "name": "grep", "arguments": SLOW_GREP, "progress": True},
    ]
    flags = ("--time-budget", "3", "--no-index")
    quick, slow_call = drive(node, tmp_path, _server(slow, *flags), steps)["steps"]
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
