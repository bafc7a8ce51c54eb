"""Helpers of tests/test_mcp_ts_client.py: node with the MCP TypeScript SDK pinned in
tests/ts_client (installed by ``npm ci`` when missing), and `drive`, which runs
tests/ts_client/drive.mjs on a plan and returns what it printed.

Kept free of MCP SDK imports, as _mcp_helpers.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

CLIENT_DIR = Path(__file__).resolve().parent / "ts_client"
PINNED = json.loads((CLIENT_DIR / "package.json").read_text())["dependencies"]
SDK = "@modelcontextprotocol/sdk"
# Hang guards, not speed assertions: a broken server or client must fail the test.
NODE_TIMEOUT = 180
NPM_TIMEOUT = 600


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


def node_with_sdk() -> str:
    """node, with the pinned SDK installed in tests/ts_client (by ``npm ci`` when it is not).
    Without node or npm the test skips, but fails under CI; a failed ``npm ci`` fails it."""
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


def serve(root: Path | None, *flags: str, cwd: Path | None = None) -> dict[str, Any]:
    """The server as the Python SDK tests start it (`_mcp_helpers.server_params`): this Python's
    ripsight (the checkout's through PYTHONPATH, or the installed wheel), inheriting the
    environment."""
    args = ["-m", "ripsight.cli", "mcp"]
    if root is not None:
        args += ["--root", str(root)]
    return {"command": sys.executable, "args": [*args, *flags], "cwd": str(cwd) if cwd else None}


def drive(
    node: str,
    tmp_path: Path,
    server: dict[str, Any],
    steps: list[dict[str, Any]],
    protocol_errors: list[str] | None = None,
    **client: Any,
) -> dict[str, Any]:
    """Runs drive.mjs with this plan; returns what it printed (the session, a result per step).
    The session itself must have worked: no fatal error, no traceback, and no protocol error
    the client reported but those of `protocol_errors`."""
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
    assert output["errors"] == (protocol_errors or []), output["errors"]
    assert output["server_info"]["name"] == "ripsight"
    assert "Traceback" not in errlog.read_text(), errlog.read_text()
    return output
