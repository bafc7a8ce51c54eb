"""Helpers of the tests that drive `ripsight mcp` with the MCP TypeScript SDK's clients: a node
project under tests/ per client package (`Project`: its package.json pins the package, its
drive.mjs runs a plan), node with that package installed (by ``npm ci`` when missing), and
`drive`, which runs the project's drive.mjs on a plan and returns what it printed.

- tests/ts_client: ``@modelcontextprotocol/sdk`` 1.x (tests/test_mcp_ts_client.py);
- tests/ts_client2: ``@modelcontextprotocol/client`` 2.x, on the 2026-07-28 protocol
  (tests/test_mcp_ts_client2.py).

Kept free of MCP SDK imports, as _mcp_helpers.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from _mcp_helpers import APPROVAL_MARKER, check_session_rule_for_grep

TESTS = Path(__file__).resolve().parent
# Hang guards, not speed assertions: a broken server or client must fail the test.
NODE_TIMEOUT = 180
NPM_TIMEOUT = 600


@dataclass(frozen=True)
class Project:
    """A node project in tests/`name`: its package.json pins `package`, which runs on node
    `node_major` or later; its drive.mjs takes a plan file and prints one JSON object."""

    name: str
    package: str
    node_major: int

    @property
    def dir(self) -> Path:
        return TESTS / self.name

    @property
    def pinned(self) -> str:
        manifest = json.loads((self.dir / "package.json").read_text())
        return str(manifest["dependencies"][self.package])

    def installed(self) -> str | None:
        manifest = self.dir / "node_modules" / self.package / "package.json"
        return json.loads(manifest.read_text())["version"] if manifest.is_file() else None


SDK_1 = Project("ts_client", "@modelcontextprotocol/sdk", 18)
CLIENT_2 = Project("ts_client2", "@modelcontextprotocol/client", 20)


@dataclass(frozen=True)
class Node:
    """node, and the project whose pinned package is installed for it."""

    path: str
    project: Project


def _missing(what: str) -> None:
    """Skips, but fails under CI, where .ci/run provides node, npm and the packages."""
    if os.environ.get("CI"):
        pytest.fail(f"{what}; .ci/run installs node and npm and runs npm ci")
    pytest.skip(f"{what}: the TypeScript SDK clients need node and npm")


def _need(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        _missing(f"{tool} is missing")
    assert found is not None
    return found


def _node_major(node: str) -> int:
    done = subprocess.run(
        [node, "--version"], capture_output=True, text=True, timeout=60, check=True
    )
    found = re.match(r"v(\d+)\.", done.stdout.strip())
    assert found, done.stdout
    return int(found.group(1))


def node_with_sdk(project: Project) -> Node:
    """node, with `project`'s pinned package installed (by ``npm ci`` when it is not). Without
    node or npm, or with a node older than the package needs, the test skips, but fails under
    CI; a failed ``npm ci`` fails it."""
    found = _need("node")
    major = _node_major(found)
    if major < project.node_major:
        _missing(f"node {major} is too old for {project.package} (it needs {project.node_major})")
    if project.installed() != project.pinned:
        done = subprocess.run(
            [_need("npm"), "ci", "--no-audit", "--no-fund"],
            cwd=project.dir,
            capture_output=True,
            text=True,
            timeout=NPM_TIMEOUT,
            check=False,
        )
        if done.returncode != 0:
            pytest.fail(f"npm ci failed in {project.dir}:\n{done.stderr[-3000:]}")
    assert project.installed() == project.pinned
    return Node(found, project)


def asking(root: Path, log: Path, *flags: str) -> dict[str, Any]:
    """The server with an ask rule on private/** (`make_private_tree`), logging to `log`."""
    return serve(root, "--no-index", "--log", str(log), "--ask", "private/**", *flags)


def steps_of(*named: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Call steps of a plan, one per (tool name, arguments)."""
    return [{"op": "call", "name": name, "arguments": args} for name, args in named]


#: The approval tests' reads: a free file; a file under the ask rule; the same input again
#: (approved before); another input on it (asked again). `check_asked_reads` checks them.
ASKED_READS = steps_of(
    ("read_file", {"path": "src/app.py"}),
    ("read_file", {"path": "private/notes.txt"}),
    ("read_file", {"path": "private/notes.txt"}),
    ("read_file", {"path": "private/notes.txt", "offset": 1, "limit": 5}),
)
#: Two greps under private/ (the person allows the first for the session), then read_file on a
#: file there (another tool: asked again). `check_session_calls` checks them.
SESSION_CALLS = steps_of(
    ("grep", {"pattern": "QZX", "path": "private"}),
    ("grep", {"pattern": "more", "path": "private"}),
    ("read_file", {"path": "private/more.txt"}),
)


def check_asked_reads(results: list[dict[str, Any]]) -> None:
    """Every read of `ASKED_READS` ran (the person allowed each question once)."""
    free, asked, again, other = (answer_of(result) for result in results)
    assert not free[1] and "def main" in free[0]
    assert not asked[1] and APPROVAL_MARKER in asked[0], asked
    assert not again[1] and APPROVAL_MARKER in again[0]
    assert not other[1] and APPROVAL_MARKER in other[0]


def check_session_calls(results: list[dict[str, Any]], log: Path) -> None:
    """`SESSION_CALLS` answered after *allow for this session*, then *deny*: both greps ran,
    the second under the session rule, and the read was refused."""
    first, second, read = (answer_of(result) for result in results)
    assert not first[1] and not second[1] and APPROVAL_MARKER in second[0]
    assert read[1] and "read_file was not run" in read[0]
    check_session_rule_for_grep(log)


def text_of(result: dict[str, Any]) -> str:
    """The one text block of a call step's result (which must not be a thrown error)."""
    assert "error" not in result, result
    content = result["result"]["content"]
    assert len(content) == 1 and content[0]["type"] == "text"
    return str(content[0]["text"])


def answer_of(result: dict[str, Any]) -> tuple[str, bool]:
    """A call step's text and whether the result is an error result."""
    return text_of(result), bool(result["result"].get("isError"))


def records(log: Path) -> list[dict[str, Any]]:
    """The server's operation log (--log), one record a line."""
    return [json.loads(line) for line in log.read_text().splitlines()]


def without_timing(data: dict[str, Any]) -> dict[str, Any]:
    """`data` but its timing and its parse-cache accounting (which follows what the process
    answering it parsed before)."""
    history = ("elapsed_ms", "cached", "files_cached")
    return {key: value for key, value in data.items() if key not in history}


#: The largest integer a JavaScript number holds exactly (Number.MAX_SAFE_INTEGER).
MAX_SAFE_INTEGER = 2**53 - 1


def as_javascript_reads(value: Any) -> Any:
    """`value` as a JavaScript client reads it from JSON: an integer beyond 2^53 becomes the
    nearest double (read_file's ``mtime_ns``, nanoseconds since 1970, is one; see
    test_mcp_ts_client.py's `test_read_file_identity_reaches_a_javascript_client_exactly`)."""
    if isinstance(value, dict):
        return {key: as_javascript_reads(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_javascript_reads(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_SAFE_INTEGER:
        return float(value)
    return value


def serve(root: Path | None, *flags: str, cwd: Path | None = None) -> dict[str, Any]:
    """The server as the Python SDK tests start it (`_mcp_helpers.server_params`): this Python's
    ripsight (the checkout's through PYTHONPATH, or the installed wheel), inheriting the
    environment."""
    args = ["-m", "ripsight.cli", "mcp"]
    if root is not None:
        args += ["--root", str(root)]
    return {"command": sys.executable, "args": [*args, *flags], "cwd": str(cwd) if cwd else None}


def drive(
    node: Node,
    tmp_path: Path,
    server: dict[str, Any],
    steps: list[dict[str, Any]],
    protocol_errors: list[str] | None = None,
    crossing: str | None = None,
    **client: Any,
) -> dict[str, Any]:
    """Runs the project's drive.mjs with this plan; returns what it printed (the session, a
    result per step). The session itself must have worked: no fatal error, no traceback, and no
    protocol error the client reported but those of `protocol_errors`, and those that start with
    `crossing` (a notification the server sent before a cancellation reached it, which the
    protocol says a receiver must expect and may ignore)."""
    errlog = tmp_path / "server-stderr.log"
    plan = {"server": server, "errlog": str(errlog), "client": client, "steps": steps}
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan))
    done = subprocess.run(
        [node.path, str(node.project.dir / "drive.mjs"), str(plan_file)],
        capture_output=True,
        text=True,
        timeout=NODE_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    output: dict[str, Any] = json.loads(done.stdout)
    assert "fatal" not in output, output["fatal"]
    errors = [e for e in output["errors"] if not (crossing and e.startswith(crossing))]
    assert errors == (protocol_errors or []), output["errors"]
    assert output["server_info"]["name"] == "ripsight"
    assert "Traceback" not in errlog.read_text(), errlog.read_text()
    return output
