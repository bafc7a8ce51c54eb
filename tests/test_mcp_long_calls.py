"""`ripsight mcp` on calls that take long, driven by the MCP SDK's stdio client and by hand:
the time budget that answers a slow search before the client gives up, and cancellation (a call
the client cancels or leaves stops its search, each call with its own engine token).
"""

from __future__ import annotations

import asyncio
import inspect
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from _mcp_helpers import (
    SLOW_GREP,
    RawClient,
    make_slow_tree,
    run_session,
    server_params,
    text_of,
    wire,
)
from mcp import ClientSession
from ripsight import _core

pytestmark = pytest.mark.slow  # an MCP server process per test, several seconds each


# -- the time budget ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def slow_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_slow_tree(tmp_path_factory.mktemp("slow"))


def test_the_default_time_budget_answers_a_slow_search_within_five_seconds(
    slow_tree: Path, tmp_path: Path
) -> None:
    # The OpenAI Agents SDK waits 5 s for a call by default; a partial answer marked incomplete
    # must arrive before that, not a client-side timeout.
    root = slow_tree
    timings: list[float] = []

    async def body(session: ClientSession) -> Any:
        started = time.perf_counter()
        result = await session.call_tool("grep", SLOW_GREP)
        timings.append(time.perf_counter() - started)
        return result

    result = run_session(server_params(root), body, tmp_path / "err.log")  # no --time-budget flag
    assert result["isError"] is False, text_of(result)
    assert result["structuredContent"]["incomplete"] is True
    assert "incomplete" in text_of(result).lower() or "time" in text_of(result).lower()
    assert timings[0] < 5.0, timings


def test_the_time_budget_defaults_are_stated_once_in_the_engine() -> None:
    from ripsight import Workspace, cli, limits, mcp_server

    assert _core.LIMITS["mcp_time_budget_seconds"] == 4.0
    assert _core.LIMITS["time_budget_seconds"] == 10.0
    assert mcp_server.DEFAULT_TIME_BUDGET == limits.MCP_TIME_BUDGET == 4.0
    assert limits.TIME_BUDGET == 10.0
    assert inspect.signature(Workspace).parameters["time_budget"].default == 10.0
    assert cli.build_parser().parse_args(["mcp"]).time_budget == 4.0
    # A tool command's flag is unset unless given (a cold map takes a longer one), and the
    # workspace gets the engine's default.
    grep = cli.build_parser().parse_args(["grep", "x"])
    assert grep.time_budget is None
    assert cli.options.workspace_options(grep)["time_budget"] == 10.0


# -- cancellation --------------------------------------------------------------------------------

#: How soon a cancelled call must stop, by the server's own log line: a generous bound for a
#: shared, loaded machine (the search alone runs for many seconds); how fast is a benchmark's
#: matter.
STOPPED_WITHIN_MS = 1000.0


def _slow_server(root: Path) -> RawClient:
    # A budget far beyond the test's patience: only cancellation can stop the search early.
    client = RawClient(
        [
            sys.executable,
            "-m",
            "ripsight.cli",
            "mcp",
            "--root",
            str(root),
            "--time-budget",
            "600",
            "--log-level",
            "debug",
        ]
    )
    client.initialize()
    client.send(
        {"id": 1, "method": "tools/call", "params": {"name": "grep", "arguments": SLOW_GREP}}
    )
    client.wait_for_log(r"ripsight\.mcp: grep running", timeout=30)
    time.sleep(0.3)  # well inside the search, which takes many seconds
    return client


def test_a_call_the_client_cancels_stops_its_search_promptly(slow_tree: Path) -> None:
    client = _slow_server(slow_tree)
    try:
        client.send(
            {
                "method": "notifications/cancelled",
                "params": {"requestId": 1, "reason": "the user pressed stop"},
            }
        )
        stopped = client.wait_for_log(r"grep stopped ([\d.]+) ms after it was cancelled", 30)
        assert float(stopped.group(1)) < STOPPED_WITHIN_MS, stopped.group(0)
        # The server goes on serving.
        client.send(
            {
                "id": 2,
                "method": "tools/call",
                "params": {"name": "glob", "arguments": {"pattern": "d00/*"}},
            }
        )
        answer = client.response(2)["result"]
        assert answer["isError"] is False and "d00/f0000.txt" in answer["content"][0]["text"]
    finally:
        client.close()


def test_a_call_whose_client_leaves_stops_its_search_promptly(slow_tree: Path) -> None:
    client = _slow_server(slow_tree)
    try:
        assert client.process.stdin is not None
        client.process.stdin.close()
        closed_at = time.perf_counter()
        stopped = client.wait_for_log(
            r"grep stopped ([\d.]+) ms after it was cancelled \(the client closed stdin\)", 30
        )
        assert float(stopped.group(1)) < STOPPED_WITHIN_MS, stopped.group(0)
        assert client.process.wait(timeout=30) == 0
        # A hang guard on the whole exit, interpreter shutdown included; the search alone
        # would run for many seconds.
        assert time.perf_counter() - closed_at < 5.0
    finally:
        client.close()


_WAITING_SERVER = """
import logging, sys, threading, anyio
from ripsight import Registry, ToolSpec, _core, mcp_server

class Token:  # stands in for the engine's CancelToken: records the cancel
    def __init__(self):
        self.cancelled = threading.Event()
    def cancel(self):
        self.cancelled.set()

_core.CancelToken = Token  # the server makes one per call

def wait(context, args):
    token = context.cancel  # the token of the MCP call this is
    return "stopped by its token" if token.cancelled.wait(60) else "never cancelled"

logging.basicConfig(stream=sys.stderr, level=logging.DEBUG)
registry = Registry(None)
registry.register(ToolSpec(
    name="wait",
    description="Runs until its call is cancelled.",
    parameters={"type": "object", "properties": {}, "additionalProperties": False},
    handler=wait,
))
anyio.run(lambda: mcp_server.serve_stdio(registry))
"""


def _waiting_server(tmp_path: Path) -> RawClient:
    script = tmp_path / "waiting_server.py"
    script.write_text(_WAITING_SERVER)
    client = RawClient([sys.executable, str(script)])
    client.initialize()
    client.send({"id": 1, "method": "tools/call", "params": {"name": "wait", "arguments": {}}})
    client.wait_for_log(r"ripsight\.mcp:wait running", timeout=30)
    return client


def test_notifications_cancelled_reaches_the_token_of_its_call(tmp_path: Path) -> None:
    # The server's half of cancellation, with a stand-in token: the engine's half is tested
    # above once the engine has CancelToken.
    client = _waiting_server(tmp_path)
    try:
        client.send({"id": 2, "method": "tools/call", "params": {"name": "wait", "arguments": {}}})
        client.wait_for_log(r"ripsight\.mcp:wait running", timeout=30)
        client.send({"method": "notifications/cancelled", "params": {"requestId": 1}})
        stopped = client.wait_for_log(r"wait stopped ([\d.]+) ms after it was cancelled", 30)
        assert float(stopped.group(1)) < STOPPED_WITHIN_MS
        # Only call 1 was cancelled: call 2 still waits, and stops when stdin closes.
        with pytest.raises(AssertionError):
            client.wait_for_log(r"wait stopped", timeout=1.0)
        assert client.process.stdin is not None
        client.process.stdin.close()
        client.wait_for_log(r"wait stopped ([\d.]+) ms after .*the client closed stdin", 30)
        assert client.process.wait(timeout=30) == 0
    finally:
        client.close()


def test_closing_stdin_reaches_the_token_of_every_call_in_flight(tmp_path: Path) -> None:
    client = _waiting_server(tmp_path)
    try:
        assert client.process.stdin is not None
        client.process.stdin.close()
        stopped = client.wait_for_log(
            r"wait stopped ([\d.]+) ms after it was cancelled \(the client closed stdin\)", 30
        )
        assert float(stopped.group(1)) < STOPPED_WITHIN_MS
        assert client.process.wait(timeout=30) == 0
        assert "Traceback" not in "".join(client.stderr_seen)
    finally:
        client.close()


def test_each_call_hands_its_tool_its_own_token() -> None:
    # The wiring the two tests above rely on, checked without the engine: each MCP call's tool
    # gets a token of its own in its context, which the built-in tools pass to the engine.
    from ripsight import Registry, ToolSpec, mcp_server

    seen: list[Any] = []

    def record(context: Any, args: dict[str, Any]) -> str:
        seen.append(context.cancel)
        return "ok"

    registry = Registry(None)
    registry.register(ToolSpec("record", "", {"type": "object", "properties": {}}, record))
    tools = mcp_server._Tools(registry, max_concurrent_calls=2, structured_content=False)

    async def two_calls() -> None:
        for request_id in (1, 2):
            reply = await tools.call(request_id, "record", {})
            assert wire(reply)["isError"] is False

    asyncio.run(two_calls())
    assert len(seen) == 2 and all(isinstance(token, _core.CancelToken) for token in seen)
    assert seen[0] is not seen[1]
