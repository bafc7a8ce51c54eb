"""The MCP client snippets of docs/mcp-clients.md, run as printed against `ripsight mcp` (no
model is called): each lists the tools and calls one.

- OpenAI Agents SDK, LangChain (langchain-mcp-adapters), PydanticAI: the Python programs of the
  page run with the real package; each skips when its package is missing (`pip install
  'ripsight[clients]'` installs them; .ci/run does, under the MCP SDK 1.x and 2.x).
- Claude Desktop, Claude Code, Codex, Gemini CLI have no Python package: the command and
  arguments of their configuration on the page start the server, driven by the MCP SDK client.

Also: the Agents SDK's default 5 s call timeout on a search that outlasts it, and what the model
gets from PydanticAI (the structured copy) for a 500-match grep.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from _mcp_helpers import SLOW_GREP, make_slow_tree, wire
from ripsight.tools import builtin_tools

pytestmark = pytest.mark.slow  # agent frameworks' clients against a server process

REPO = Path(__file__).resolve().parent.parent
CLIENTS = (REPO / "docs" / "mcp-clients.md").read_text()

#: The server's tools as the clients list them: the registry's, in name order.
TOOL_NAMES = str([spec.name for spec in builtin_tools()])


def _block(heading: str, language: str) -> str:
    """The first ```language block after the heading `heading` of docs/mcp-clients.md."""
    start = CLIENTS.index(f"\n{heading}\n")
    match = re.compile(rf"```{language}\n(.*?)```", re.DOTALL).search(CLIENTS, start)
    assert match is not None, f"no {language} block after {heading}"
    return match.group(1)


def _ripsight() -> str:
    """The `ripsight` command installed beside the running Python."""
    found = shutil.which("ripsight", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip("no ripsight console script beside this Python")
    return found


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    # TODO: wire the clients\n")
    return root


def _run_snippet(heading: str, root: Path, tmp_path: Path) -> str:
    code = _block(heading, "python").replace("/path/to/repo", str(root))
    script = tmp_path / "snippet.py"
    script.write_text(code)
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(_ripsight()).parent), env.get("PATH", "")])
    # The frameworks hand the server a few variables of their own choosing, HOME among them:
    # its index files go to this HOME's cache, not the user's.
    env["HOME"] = str(tmp_path / "home")
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_openai_agents_snippet(repo: Path, tmp_path: Path) -> None:
    pytest.importorskip("agents.mcp")
    out = _run_snippet("## OpenAI Agents SDK", repo, tmp_path).splitlines()
    assert out[0] == TOOL_NAMES
    assert out[1].startswith('1 match in 1 file for "TODO"')
    assert "src/app.py:2:    # TODO: wire the clients" in out


def test_langchain_snippet(repo: Path, tmp_path: Path) -> None:
    pytest.importorskip("langchain_mcp_adapters.client")
    out = _run_snippet("## LangChain (langchain-mcp-adapters)", repo, tmp_path)
    assert out.splitlines()[0] == TOOL_NAMES
    assert "src/app.py:2:    # TODO: wire the clients" in out  # the text, as content


def test_pydantic_ai_snippet(repo: Path, tmp_path: Path) -> None:
    pytest.importorskip("pydantic_ai.mcp")
    pytest.importorskip("fastmcp.client.transports")
    out = _run_snippet("## PydanticAI", repo, tmp_path).splitlines()
    assert out[0] == TOOL_NAMES
    assert "'total_matches': 1" in out[1]  # PydanticAI returns the structured copy
    assert "'text': '    # TODO: wire the clients'" in out[1]


# -- what the frameworks hand the model -----------------------------------------------------------


def _server_args(root: Path, *flags: str) -> list[str]:
    return ["-m", "ripsight.cli", "mcp", "--root", str(root), *flags]


def test_pydantic_ai_gets_a_bounded_dict_for_a_500_match_grep(tmp_path: Path) -> None:
    pytest.importorskip("pydantic_ai.mcp")
    from fastmcp.client.transports import StdioTransport
    from pydantic_ai.mcp import MCPToolset

    root = tmp_path / "repo"
    root.mkdir()
    (root / "many.txt").write_text("".join(f"needle {i:04d} {'y' * 60}\n" for i in range(600)))

    async def main() -> Any:
        transport = StdioTransport(
            command=sys.executable, args=_server_args(root), env=dict(os.environ)
        )
        toolset = MCPToolset(transport)
        async with toolset:
            return await toolset.direct_call_tool("grep", {"pattern": "needle", "limit": 500})

    handed = asyncio.run(asyncio.wait_for(main(), 120))
    assert isinstance(handed, dict)  # what PydanticAI gives the model
    assert len(json.dumps(handed, ensure_ascii=False)) <= 8000
    shown = sum(1 for line in handed["lines"] if line["is_match"])
    assert handed["total_matches"] == 600 and handed["withheld"] == 600 - shown > 0


def test_langchain_gets_the_text_and_keeps_the_data_as_artifact(repo: Path) -> None:
    pytest.importorskip("langchain_mcp_adapters.client")
    from langchain_mcp_adapters.client import MultiServerMCPClient

    async def main() -> Any:
        client = MultiServerMCPClient(
            {
                "ripsight": {
                    "transport": "stdio",
                    "command": sys.executable,
                    "args": _server_args(repo),
                }
            }
        )
        grep = next(tool for tool in await client.get_tools() if tool.name == "grep")
        return await grep.ainvoke(
            {"type": "tool_call", "id": "call_1", "name": "grep", "args": {"pattern": "TODO"}}
        )

    message = asyncio.run(asyncio.wait_for(main(), 120))
    text = "".join(block["text"] for block in message.content if block.get("type") == "text")
    assert text.startswith('1 match in 1 file for "TODO"')
    artifact = message.artifact["structured_content"]
    assert artifact["total_matches"] == 1 and artifact["lines"][0]["path"] == "src/app.py"


def test_openai_agents_default_timeout_gets_a_partial_answer(tmp_path: Path) -> None:
    # The Agents SDK gives up after 5 s by default; the server's 4 s budget answers first.
    pytest.importorskip("agents.mcp")
    from agents.mcp import MCPServerStdio

    root = make_slow_tree(tmp_path / "slow")

    async def main() -> tuple[Any, float]:
        params = {"command": sys.executable, "args": _server_args(root), "env": dict(os.environ)}
        async with MCPServerStdio(params=params, name="ripsight") as server:  # default timeout
            started = time.perf_counter()
            result = await server.call_tool("grep", SLOW_GREP)
            return result, time.perf_counter() - started

    result, elapsed = asyncio.run(main())
    answer = wire(result)
    assert answer["isError"] is False
    assert answer["structuredContent"]["incomplete"] is True
    assert elapsed < 5.0


# -- the configurations of clients without a Python package ----------------------------------------


def _configured_server(heading: str, root: Path) -> tuple[str, list[str], Path | None]:
    """command, args and working directory of the configuration under `heading`."""
    if heading == "## Codex":
        tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
        entry = tomllib.loads(_block(heading, "toml"))["mcp_servers"]["ripsight"]
    else:
        entry = json.loads(_block(heading, "json"))["mcpServers"]["ripsight"]
    args = [arg.replace("/absolute/path/to/repo", str(root)) for arg in entry["args"]]
    # Claude Code's .mcp.json has no --root: Claude Code starts the server in the project.
    cwd = None if "--root" in args else root
    return entry["command"], args, cwd


@pytest.mark.parametrize(
    "heading", ["## Claude Desktop", "## Claude Code", "## Codex", "## Gemini CLI"]
)
def test_client_configuration_starts_a_working_server(
    heading: str, repo: Path, tmp_path: Path
) -> None:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    command, args, cwd = _configured_server(heading, repo)
    assert command in ("ripsight", "/absolute/path/to/ripsight")
    params = StdioServerParameters(
        command=_ripsight(), args=args, cwd=str(cwd) if cwd else None, env=dict(os.environ)
    )

    async def main() -> tuple[Any, Any]:
        with (tmp_path / "err.log").open("w") as err:
            async with (
                stdio_client(params, errlog=err) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return await session.list_tools(), await session.call_tool(
                    "grep", {"pattern": "TODO"}
                )

    listed, called = wire(asyncio.run(asyncio.wait_for(main(), 120)))
    assert str([tool["name"] for tool in listed["tools"]]) == TOOL_NAMES
    assert "src/app.py:2:    # TODO: wire the clients" in called["content"][0]["text"]
    structured = "--no-structured-content" not in args
    assert (called["structuredContent"] is not None) is structured
    # read_result pages a stored text: it has no typed form, so never an output schema.
    assert [tool.get("outputSchema") is not None for tool in listed["tools"]] == [
        structured and spec.output_schema is not None for spec in builtin_tools()
    ]
