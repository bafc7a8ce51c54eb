"""`ripsight mcp` as a process: the protocol stream spoken by hand, a clean shutdown, two
servers sharing one index, the command line (help, a missing SDK, a missing root) and the
operation log it writes.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from _children import Lines, stop
from _mcp_helpers import (
    SESSION_TIMEOUT,
    make_demo_tree,
    run_session,
    server_params,
    text_of,
    wire,
)
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from ripsight import Workspace
from ripsight.tools import builtin_tools

pytestmark = pytest.mark.slow  # an MCP server process per test, several seconds each


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A small repository, plus a file beside it that the server must never read."""
    return make_demo_tree(tmp_path)


# -- the process ---------------------------------------------------------------------------------


def _rpc(process: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()


def _read_response(lines: Lines[bytes], request_id: int, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        line = lines.next(max(0.0, deadline - time.monotonic()))
        assert line, "the server closed stdout before answering"
        message = json.loads(line)  # stdout carries nothing but JSON-RPC
        if message.get("id") == request_id:
            return message  # type: ignore[no-any-return]


def test_clean_shutdown_and_a_clean_protocol_stream(tree: Path, tmp_path: Path) -> None:
    """A client speaking the 2025-06-18 handshake by hand; stderr gets the logs, stdout only
    JSON-RPC; closing stdin ends the server with status 0."""
    stderr_path = tmp_path / "stderr.log"
    with stderr_path.open("wb") as stderr:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "ripsight.cli",
                "mcp",
                "--root",
                str(tree),
                "--log-level",
                "info",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
        assert process.stdout is not None
        lines = Lines(process.stdout)
        try:
            _rpc(
                process,
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "hand-written", "version": "0"},
                    },
                },
            )
            init = _read_response(lines, 1)
            assert init["result"]["serverInfo"]["name"] == "ripsight"
            assert init["result"]["protocolVersion"] == "2025-06-18"
            _rpc(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            _rpc(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
            listed = _read_response(lines, 2)
            specs = builtin_tools()
            assert [t["name"] for t in listed["result"]["tools"]] == [s.name for s in specs]
            # read_result answers in text only: a page of a stored result has no typed form.
            assert [("outputSchema" in t) for t in listed["result"]["tools"]] == [
                s.output_schema is not None for s in specs
            ]
            by_name = {t["name"]: t for t in listed["result"]["tools"]}
            assert "outputSchema" not in by_name["read_result"]
            _rpc(
                process,
                {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "method": "tools/call",
                    "params": {"name": "edit_file", "arguments": {"path": "x"}},
                },
            )
            called = _read_response(lines, 3)["result"]
            assert called["isError"] is True
            assert "no tool named edit_file" in called["content"][0]["text"]
            assert process.stdin is not None
            process.stdin.close()
            assert process.wait(timeout=30) == 0
            for line in lines.rest(timeout=30):
                json.loads(line)
        finally:
            stop(process)
    log = stderr_path.read_text()
    assert "Traceback" not in log
    assert "ripsight-mcp INFO" in log and "edit_file failed" in log


def _servers_of(root: Path) -> list[int]:
    """The pids of the `ripsight mcp` processes serving `root` (read from /proc)."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"mcp" in argv and str(root).encode() in argv:
            pids.append(int(entry.name))
    return pids


def _maps(pid: int, suffix: str) -> set[str]:
    """The files ending in `suffix` that process `pid` has mapped."""
    lines = Path(f"/proc/{pid}/maps").read_text().splitlines()
    return {line.split()[-1] for line in lines if line.endswith(suffix)}


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc")
def test_two_servers_on_one_tree_build_once_share_the_file_and_see_each_edit(
    tmp_path: Path,
) -> None:
    # Issue 17, as agents run it: two sessions, each with its own `ripsight mcp` on the same
    # tree (the index on, by default in the user's cache). One file is built, both map it,
    # both answer as the cold engine, and an edit is seen by both at their next call.
    root = tmp_path / "repo"
    for i in range(300):
        (root / f"d{i % 12}").mkdir(parents=True, exist_ok=True)
        (root / f"d{i % 12}" / f"f{i}.py").write_text(f"def alpha_{i}():\n    return {i}\n")
    cache = tmp_path / "cache"
    environment = dict(os.environ, XDG_CACHE_HOME=str(cache))
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ripsight.cli", "mcp", "--root", str(root)],
        env=environment,
    )
    grep = {"pattern": "alpha_1\\d\\b", "output_mode": "files_with_matches", "limit": 500}

    async def main() -> dict[str, Any]:
        with (tmp_path / "a.log").open("w") as err_a, (tmp_path / "b.log").open("w") as err_b:
            async with (
                stdio_client(params, errlog=err_a) as (read_a, write_a),
                ClientSession(read_a, write_a) as a,
                stdio_client(params, errlog=err_b) as (read_b, write_b),
                ClientSession(read_b, write_b) as b,
            ):
                await a.initialize()
                await b.initialize()
                # Both map the one file once it is written (the other answers cold until then).
                deadline = time.monotonic() + 60
                while True:
                    pids = _servers_of(root)
                    mapped = [_maps(pid, ".rsidx") for pid in pids]
                    if len(pids) == 2 and all(mapped) and mapped[0] == mapped[1]:
                        break
                    assert time.monotonic() < deadline, (pids, mapped)
                    await a.call_tool("grep", grep)
                    await b.call_tool("grep", grep)
                    await asyncio.sleep(0.2)
                before = [await a.call_tool("grep", grep), await b.call_tool("grep", grep)]
                cold_before = Workspace(root).grep(**grep).total_files
                (root / "d3" / "new.py").write_text("alpha_15 = 1\n")
                after = [await a.call_tool("grep", grep), await b.call_tool("grep", grep)]
                cold_after = Workspace(root).grep(**grep).total_files
                return {
                    "mapped": mapped[0],
                    "answers": [
                        (wire(before), cold_before, False),
                        (wire(after), cold_after, True),
                    ],
                }

    result = asyncio.run(asyncio.wait_for(main(), SESSION_TIMEOUT))
    for log in ("a.log", "b.log"):
        assert "Traceback" not in (tmp_path / log).read_text()
    files = sorted(cache.rglob("*.rsidx"))
    assert len(files) == 1 and result["mapped"] == {str(files[0])}
    for answers, cold, new_file in result["answers"]:
        texts = {text_of(answer) for answer in answers}
        assert len(texts) == 1, texts
        for answer in answers:
            assert answer["structuredContent"]["total_files"] == cold
        assert ("d3/new.py" in texts.pop()) is new_file


def test_mcp_help_documents_the_configuration() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ripsight.cli", "mcp", "--help"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0
    for flag in (
        "--root",
        "--exclude-dir",
        "--no-default-excludes",
        "--deny",
        "--time-budget",
        "--max-result-chars",
        "--log-level",
        "ripsight[mcp]",
    ):
        assert flag in done.stdout


def test_missing_sdk_gives_a_clear_message(tmp_path: Path) -> None:
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "mcp.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'mcp'\", name='mcp')\n"
    )
    env = dict(os.environ, PYTHONPATH=str(shadow))
    done = subprocess.run(
        [sys.executable, "-m", "ripsight.cli", "mcp", "--root", str(tmp_path)],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "pip install 'ripsight[mcp]'" in lines[0]


def test_a_missing_root_is_a_one_line_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ripsight.cli", "mcp", "--root", str(tmp_path / "nope")],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert "nope" in done.stderr


@pytest.mark.parametrize("name", ["ops.jsonl", "ops.db"])
def test_log_flag_records_every_call(tree: Path, tmp_path: Path, name: str) -> None:

    async def body(session: ClientSession) -> list[Any]:
        return [
            await session.call_tool("grep", {"pattern": "TODO"}),
            await session.call_tool("read_file", {"path": "nope.txt"}),
            await session.call_tool("Read", {}),
        ]

    log = tmp_path / name
    results = run_session(server_params(tree, "--log", str(log)), body, tmp_path / "err.log")
    assert [r["isError"] for r in results] == [False, True, True]
    if name.endswith(".jsonl"):
        records = [json.loads(line) for line in log.read_text().splitlines()]
        rows = [(r["tool"], r["status"], r["code"]) for r in records]
    else:
        rows = (
            sqlite3.connect(log)
            .execute("SELECT tool, status, code FROM operations ORDER BY started_at")
            .fetchall()
        )
    assert rows == [
        ("grep", "done", "ok"),
        ("read_file", "runtime_error", "not_found"),
        ("Read", "contract_error", "unknown_tool"),
    ]
