"""`ripsight mcp` with several roots: positional roots, the client's roots (``roots/list``, added
and removed mid-session), progress notifications, the client's log level, text-only clients.

Driven by the official SDK's stdio client, on whichever major is installed (.ci/run runs this
file again under SDK 1.x).
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from _mcp_helpers import SLOW_GREP, make_roots, make_slow_tree, wire
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from ripsight.mcp_server import _SDK_HAS_DECORATORS

pytestmark = pytest.mark.slow  # an MCP server process per test

# A hang guard, not a speed assertion.
SESSION_TIMEOUT = 60.0


def _server(*args: str, cwd: Path | None = None) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "ripsight.cli", "mcp", "--no-index", *args],
        cwd=str(cwd) if cwd else None,
        env=dict(os.environ),
    )


def _session(
    params: StdioServerParameters,
    body: Callable[[ClientSession], Awaitable[Any]],
    errlog: Path,
    **client: Any,
) -> Any:
    async def main() -> Any:
        with errlog.open("w") as err:
            async with (
                stdio_client(params, errlog=err) as (read, write),
                ClientSession(read, write, **client) as session,
            ):
                await session.initialize()
                return await body(session)

    async def guarded() -> Any:
        return await asyncio.wait_for(main(), SESSION_TIMEOUT)

    result = asyncio.run(guarded())
    assert "Traceback" not in errlog.read_text(), errlog.read_text()
    return result


def _text(result: Any) -> str:
    return str(wire(result)["content"][0]["text"])


@pytest.fixture
def roots(tmp_path: Path) -> list[Path]:
    return make_roots(tmp_path)


def _uri(path: Path) -> str:
    return path.resolve().as_uri()


def test_positional_roots_are_served_together(roots, tmp_path):
    web, api, _ = roots
    missing = tmp_path / "missing"

    async def body(session: ClientSession) -> tuple[str, str, str]:
        found = await session.call_tool("grep", {"pattern": "TODO"})
        read = await session.call_tool("read_file", {"path": "api/src/main.txt"})
        listed = await session.call_tool("glob", {"pattern": "**/*", "path": "web"})
        return _text(found), _text(read), _text(listed)

    found, read, listed = _session(
        _server(str(web), str(api), str(missing)), body, tmp_path / "err.log"
    )
    assert found.splitlines()[1:3] == [
        "web/src/main.txt:1:TODO in web",
        "api/src/main.txt:1:TODO in api",
    ]
    assert f"Not served: the root {str(missing)!r} is not served" in found
    assert "TODO in api" in read
    assert listed.splitlines()[1:2] == ["web/src/main.txt"]
    assert "does not exist." in listed and "exist.." not in listed
    assert "missing" in (tmp_path / "err.log").read_text()  # logged too


def test_root_flag_and_positional_roots_combine(roots, tmp_path):
    web, api, _ = roots

    async def body(session: ClientSession) -> str:
        return _text(await session.call_tool("glob", {"pattern": "**/*"}))

    listed = _session(_server("--root", str(web), str(api)), body, tmp_path / "err.log")
    assert listed.splitlines()[1:] == ["web/src/main.txt", "api/src/main.txt"]


def test_one_positional_root_is_served_as_with_root(roots, tmp_path):
    async def body(session: ClientSession) -> str:
        return _text(await session.call_tool("glob", {"pattern": "**/*"}))

    listed = _session(_server(str(roots[1])), body, tmp_path / "err.log")
    assert listed.splitlines()[1:] == ["src/main.txt"]


def test_the_clients_roots_are_served_and_follow_its_changes(roots, tmp_path):
    web, api, docs = roots
    declared = [web, api]
    asked: list[int] = []

    async def list_roots(context: Any) -> types.ListRootsResult:
        asked.append(1)
        return types.ListRootsResult(roots=[types.Root(uri=_uri(p)) for p in declared])

    async def body(session: ClientSession) -> list[str]:
        texts = [_text(await session.call_tool("grep", {"pattern": "TODO"}))]
        declared[:] = [api, docs]  # web removed, docs added
        await session.send_roots_list_changed()
        texts.append(_text(await session.call_tool("grep", {"pattern": "TODO"})))
        texts.append(_text(await session.call_tool("read_file", {"path": "web/src/main.txt"})))
        declared[:] = [docs]  # one root: paths as with --root
        await session.send_roots_list_changed()
        texts.append(_text(await session.call_tool("glob", {"pattern": "**/*"})))
        return texts

    before, after, gone, alone = _session(
        _server(cwd=tmp_path), body, tmp_path / "err.log", list_roots_callback=list_roots
    )
    assert before.splitlines()[1:] == [
        "web/src/main.txt:1:TODO in web",
        "api/src/main.txt:1:TODO in api",
    ]
    assert after.splitlines()[1:] == [
        "api/src/main.txt:1:TODO in api",
        "docs/src/main.txt:1:TODO docs",
    ]
    assert "not found" in gone and "api/, docs/" in gone
    assert alone.splitlines()[1:] == ["src/main.txt"]
    assert len(asked) == 3  # once after initialize, once per change


@pytest.mark.skipif(_SDK_HAS_DECORATORS, reason="SDK 1.x: asked before the first request")
def test_the_roots_are_asked_right_after_initialize(roots, tmp_path):
    asked: list[float] = []

    async def list_roots(context: Any) -> types.ListRootsResult:
        asked.append(1)
        return types.ListRootsResult(roots=[types.Root(uri=_uri(roots[0]))])

    async def body(session: ClientSession) -> int:
        for _ in range(100):  # up to 10 s, no request sent
            if asked:
                break
            await asyncio.sleep(0.1)
        seen = len(asked)
        listed = _text(await session.call_tool("glob", {"pattern": "**/*"}))
        assert listed.splitlines()[1:] == ["src/main.txt"]
        return seen

    seen = _session(_server(cwd=tmp_path), body, tmp_path / "e", list_roots_callback=list_roots)
    assert seen == 1
    assert len(asked) == 1  # the call used the roots already asked


def test_a_client_without_roots_gets_the_working_directory(roots, tmp_path):
    async def body(session: ClientSession) -> str:
        return _text(await session.call_tool("glob", {"pattern": "**/*"}))

    listed = _session(_server(cwd=roots[2]), body, tmp_path / "err.log")
    assert listed.splitlines()[1:] == ["src/main.txt"]


def test_a_client_root_that_cannot_be_opened_is_told_to_the_model(roots, tmp_path):
    missing = tmp_path / "gone"
    a_file = roots[1] / "src" / "main.txt"

    async def list_roots(context: Any) -> types.ListRootsResult:
        uris = [_uri(roots[0]), _uri(missing), _uri(a_file)]
        return types.ListRootsResult(roots=[types.Root(uri=u) for u in uris])

    async def body(session: ClientSession) -> str:
        return _text(await session.call_tool("grep", {"pattern": "TODO"}))

    text = _session(
        _server(cwd=tmp_path), body, tmp_path / "err.log", list_roots_callback=list_roots
    )
    assert "web/src/main.txt:1:TODO in web" in text
    assert str(missing) in text and str(a_file) in text and "Not served: " in text


def test_roots_given_on_the_command_line_are_kept(roots, tmp_path):
    asked: list[int] = []

    async def list_roots(context: Any) -> types.ListRootsResult:
        asked.append(1)
        return types.ListRootsResult(roots=[types.Root(uri=_uri(roots[0]))])

    async def body(session: ClientSession) -> str:
        return _text(await session.call_tool("glob", {"pattern": "**/*"}))

    listed = _session(
        _server(str(roots[1])), body, tmp_path / "err.log", list_roots_callback=list_roots
    )
    assert listed.splitlines()[1:] == ["src/main.txt"] and "api" not in listed
    assert asked == []


def test_a_slow_call_sends_progress_to_a_client_that_asked(tmp_path):
    slow = make_slow_tree(tmp_path / "slow", files=40)
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen.append((value, total, message))

    async def body(session: ClientSession) -> Any:
        await session.call_tool("glob", {"pattern": "*"}, progress_callback=progress)
        quick_seen = len(seen)
        await session.call_tool("grep", SLOW_GREP, progress_callback=progress)
        return quick_seen

    quick_seen = _session(_server("--root", str(slow), "--time-budget", "3"), body, tmp_path / "e")
    assert quick_seen == 0  # a call under the threshold sends none
    assert len(seen) >= 2
    values = [value for value, _, _ in seen]
    assert values == sorted(values) and values[0] >= 0.5
    assert all(message and message.startswith("grep running for") for _, _, message in seen)
    # The engine counts the files searched on the call's token while the search runs.
    searched = [
        int(found.group(1).replace(",", ""))
        for _, _, message in seen
        if (found := re.search(r"([\d,]+) files searched so far", message or ""))
    ]
    assert searched and searched == sorted(searched) and searched[-1] <= 40, seen


def test_the_client_sets_the_log_level(roots, tmp_path):
    messages: list[Any] = []

    async def on_log(params: Any) -> None:
        messages.append(wire(params))

    async def body(session: ClientSession) -> None:
        await session.call_tool("glob", {"pattern": "*"})
        assert messages == []  # nothing before the client sets a level
        await session.set_logging_level("info")
        await session.call_tool("glob", {"pattern": "*"})
        await session.set_logging_level("error")
        await session.call_tool("glob", {"pattern": "*"})

    _session(_server(str(roots[0])), body, tmp_path / "err.log", logging_callback=on_log)
    assert len(messages) == 1
    assert messages[0]["level"] == "info"
    assert messages[0]["data"].startswith("glob answered in")


def test_a_text_only_client_gets_no_structured_content(roots, tmp_path):
    async def body(session: ClientSession) -> tuple[Any, Any]:
        tools = await session.list_tools()
        result = await session.call_tool("grep", {"pattern": "TODO"})
        return wire(tools), wire(result)

    info = types.Implementation(name="claude-code", version="2.1.0")
    tools, result = _session(_server(str(roots[0])), body, tmp_path / "e", client_info=info)
    assert all(tool.get("outputSchema") is None for tool in tools["tools"])
    assert result.get("structuredContent") is None
    assert "TODO in web" in result["content"][0]["text"]
    other = types.Implementation(name="some-client", version="1")
    tools, result = _session(_server(str(roots[0])), body, tmp_path / "e", client_info=other)
    assert all(tool.get("outputSchema") for tool in tools["tools"] if tool["name"] != "read_result")
    assert result["structuredContent"]["total_matches"] == 1


class _FakeSession:
    """A server session on one protocol version, whose client declares `roots`."""

    def __init__(self, version: str, roots: list[Path]) -> None:
        self.protocol_version = version
        self.roots = roots
        self.asked = 0
        self.logs: list[tuple[str, str]] = []

    def check_client_capability(self, capability: Any) -> bool:
        return True

    async def list_roots(self) -> types.ListRootsResult:
        self.asked += 1
        return types.ListRootsResult(roots=[types.Root(uri=_uri(p)) for p in self.roots])

    async def send_log_message(self, level: str, data: str, **options: Any) -> None:
        self.logs.append((level, data))


def test_roots_and_logging_only_on_the_versions_that_have_them(roots, tmp_path):
    import anyio
    from ripsight import Workspace, default_registry
    from ripsight.mcp_session import ClientLog, ClientRoots

    registry = default_registry(tmp_path)
    served = ClientRoots(registry, Workspace)
    log = ClientLog()
    log.set_level("debug")
    modern = _FakeSession("2026-07-28", roots[:2])
    anyio.run(served.refresh, modern)
    anyio.run(log.send, modern, "info", "glob answered")
    assert modern.asked == 0 and modern.logs == []
    assert registry.workspace.root == str(tmp_path.resolve())
    older = _FakeSession("2025-11-25", roots[:2])
    served.changed()
    anyio.run(served.refresh, older)
    anyio.run(served.refresh, older)  # unchanged: not asked again
    anyio.run(log.send, older, "info", "glob answered")
    assert older.asked == 1 and older.logs == [("info", "glob answered")]
    assert registry.workspace.names == ("web", "api")
    first = registry.workspace.workspaces["api"]
    older.roots = [roots[1]]  # web goes; api stays open, the same workspace
    served.changed()
    anyio.run(served.refresh, older)
    assert registry.workspace is first
    served.close()


def test_root_dot_confines_read_file_as_any_root(tmp_path):
    """`ripsight mcp --root .` started inside the tree (the spelling issue 37 found not
    confining on the command line): an absolute path, a ../ path and a link leading out are
    refused; a file inside is read."""
    tree, out = tmp_path / "tree", tmp_path / "out"
    (tree / "src").mkdir(parents=True)
    out.mkdir()
    marker = "OUTSIDE_MARKER_5c1e"
    (tree / "src" / "inside.txt").write_text("inside the root\n")
    (tmp_path / "outside.txt").write_text(f"{marker}\n")
    (out / "secret.txt").write_text(f"{marker}\n")
    (tree / "link.txt").symlink_to(out / "secret.txt")
    (tree / "dirlink").symlink_to(out, target_is_directory=True)
    outside = ["/etc/hostname", str(tmp_path / "outside.txt"), "../outside.txt", "link.txt"]
    outside += ["dirlink/secret.txt"]
    # The server runs this checkout's package, its index in the session's cache directory.
    env = {k: os.environ[k] for k in ("PYTHONPATH", "XDG_CACHE_HOME") if k in os.environ}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ripsight", "mcp", "--root", "."],
        cwd=str(tree),
        env=env,
    )

    async def body(session: ClientSession) -> list[tuple[str, bool, str]]:
        results = []
        for path in [*outside, "src/inside.txt"]:
            result = await session.call_tool("read_file", {"path": path})
            results.append((path, bool(wire(result).get("isError")), _text(result)))
        return results

    *refused, inside = _session(params, body, tmp_path / "err.log")
    for path, is_error, text in refused:
        assert is_error, (path, text)
        assert marker not in text and "inside the root" not in text, (path, text)
        assert "outside" in text, (path, text)
    assert inside[1] is False and "inside the root" in inside[2], inside
