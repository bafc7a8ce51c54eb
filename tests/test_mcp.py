"""`ripsight mcp` as a real subprocess, driven by the MCP SDK's own stdio client.

Every tool result is compared with what the Python API gives for the same call: the text with
`Registry.execute` in this process, the structured content with `ripsight.to_dict` of the
`Workspace` method's result.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import jsonschema  # installed with the MCP SDK (the [test] extra)
import pytest
from _children import Lines, stop
from _mcp_helpers import SLOW_GREP, RawClient, check_image_answer, make_slow_tree, wire
from _pdfs import text_pdf
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from ripsight import ToolCall, Workspace, _core, default_registry, to_dict
from ripsight.mcp_server import NOTES_FIELD, OUTPUT_SCHEMAS
from ripsight.tools import builtin_tools

pytestmark = pytest.mark.slow  # an MCP server process per test, several seconds each

# A hang guard, not a speed assertion: a broken server must fail the test, not block the run.
SESSION_TIMEOUT = 60.0


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A small repository, plus a file beside it that the server must never read."""
    root = tmp_path / "repo"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "build").mkdir()
    (root / "src" / "app.py").write_text(
        "import os\n\n\ndef main():\n    # TODO: read the config\n    return os.getcwd()\n"
    )
    (root / "src" / "pkg" / "__init__.py").write_text("from .util import helper\n")
    (root / "src" / "pkg" / "util.py").write_text(
        "def helper(x):\n    return x * 2  # TODO tests\n"
    )
    (root / "README.md").write_text("# demo\n\nRun `main()`.\n")
    (root / "build" / "generated.py").write_text("TODO = 'generated'\n")
    (root / ".env").write_text("API_KEY=TODO-secret\n")
    (root / "notes.secret").write_text("TODO private\n")
    (tmp_path / "outside.txt").write_text("TODO outside the root\n")
    (root / "doc.pdf").write_bytes(text_pdf(["First page", "Second page"]))
    return root


def _server(root: Path | None, *flags: str, cwd: Path | None = None) -> StdioServerParameters:
    args = ["-m", "ripsight.cli", "mcp"]
    if root is not None:
        args += ["--root", str(root)]
    return StdioServerParameters(
        command=sys.executable, args=[*args, *flags], cwd=str(cwd) if cwd else None
    )


def run_session(
    params: StdioServerParameters,
    body: Callable[[ClientSession], Awaitable[Any]],
    errlog: Path,
) -> Any:
    """Starts the server, initializes a session, runs `body`, shuts down; returns body's value."""

    async def main() -> Any:
        with errlog.open("w") as err:
            async with (
                stdio_client(params, errlog=err) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return await body(session)

    async def guarded() -> Any:
        return await asyncio.wait_for(main(), SESSION_TIMEOUT)

    result = asyncio.run(guarded())
    assert "Traceback" not in errlog.read_text(), errlog.read_text()
    return wire(result)


def _without_timing(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key != "elapsed_ms"}


def _text(result: Any) -> str:
    assert len(result["content"]) == 1 and result["content"][0]["type"] == "text"
    return str(result["content"][0]["text"])


def _expected_text(root: Path, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
    expected = default_registry(root).execute(ToolCall("local", name, arguments))
    return expected.content, expected.is_error


# -- listing -------------------------------------------------------------------------------------


def test_initialize_and_list_tools_match_the_registry(tree: Path, tmp_path: Path) -> None:
    async def body(session: ClientSession) -> Any:
        return await session.list_tools()

    # No --root: the server works in its current directory.
    listed = run_session(_server(None, cwd=tree), body, tmp_path / "err.log")
    tools = {tool["name"]: tool for tool in listed["tools"]}
    definitions = {d["name"]: d for d in default_registry(tree).definitions("mcp")}
    assert sorted(tools) == sorted(definitions) == sorted(spec.name for spec in builtin_tools())
    for name, tool in tools.items():
        definition = definitions[name]
        assert tool["description"] == definition["description"]
        assert tool["inputSchema"] == definition["inputSchema"]
        assert tool["title"] == definition["title"]
        assert tool["annotations"] is not None
        assert tool["annotations"]["readOnlyHint"] is True
        assert tool["annotations"]["destructiveHint"] is False
        assert tool["annotations"]["openWorldHint"] is False
        assert tool.get("outputSchema") == OUTPUT_SCHEMAS.get(name)
        if tool.get("outputSchema") is not None:
            jsonschema.Draft202012Validator.check_schema(tool["outputSchema"])


def test_initialize_reports_server_and_root(tree: Path, tmp_path: Path) -> None:
    async def main() -> Any:
        with (tmp_path / "err.log").open("w") as err:
            async with (
                stdio_client(_server(None, cwd=tree), errlog=err) as (read, write),
                ClientSession(read, write) as session,
            ):
                return await session.initialize()

    init = wire(asyncio.run(asyncio.wait_for(main(), SESSION_TIMEOUT)))
    assert init["serverInfo"]["name"] == "ripsight"
    assert init["capabilities"]["tools"] is not None
    assert str(tree.resolve()) in (init["instructions"] or "")


def _branches(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The alternatives of a union schema (read_file's), else the schema itself."""
    return list(schema.get("anyOf", [schema]))


def _listed(schema: dict[str, Any], value: Any) -> list[str]:
    """The properties `schema` lists, but the server's notes when `value` has none (they are
    there only for a call whose arguments were read as others)."""
    return [name for name in schema["properties"] if name != NOTES_FIELD or name in value]


def _keys_match(schema: dict[str, Any], value: Any, where: str) -> None:
    """Every object in `value` has exactly the properties its schema lists, recursively."""
    if "anyOf" in schema:
        branch = [b for b in schema["anyOf"] if _listed(b, value) == list(value)]
        assert len(branch) == 1, where
        schema = branch[0]
    if schema.get("type") == "object":
        assert list(value) == _listed(schema, value), where
        for name in _listed(schema, value):
            _keys_match(schema["properties"][name], value[name], f"{where}.{name}")
    elif schema.get("type") == "array":
        for i, item in enumerate(value):
            _keys_match(schema["items"], item, f"{where}[{i}]")


def test_output_schemas_describe_every_field_of_to_dict(tree: Path) -> None:
    # The schemas are generated from the engine's declarations; this checks them against what
    # to_dict really returns, every nested object included.
    ws = Workspace(tree)
    results = {
        "glob": [ws.glob("**/*.py", limit=1)],
        "grep": [ws.grep("def", context=1), ws.grep("def", output_mode="count")],
        "read_file": [ws.read_file("src/app.py", limit=2), ws.read_pdf("doc.pdf")],
    }
    for tool, values in results.items():
        for value in values:
            data = to_dict(value)
            jsonschema.validate(data, OUTPUT_SCHEMAS[tool])
            _keys_match(OUTPUT_SCHEMAS[tool], data, tool)
    assert results["grep"][0].lines and results["grep"][1].files
    for schema in OUTPUT_SCHEMAS.values():
        for branch in _branches(schema):
            for name, prop in branch["properties"].items():
                assert prop.get("description"), name


# -- calls ---------------------------------------------------------------------------------------


def test_each_tool_returns_the_model_text_and_the_python_api_result(
    tree: Path, tmp_path: Path
) -> None:
    calls = [
        ("glob", {"pattern": "**/*.py"}),
        ("glob", {"pattern": "*.md"}),
        ("grep", {"pattern": "TODO", "context": 1}),
        ("grep", {"pattern": "todo", "case_insensitive": True, "output_mode": "count"}),
        ("read_file", {"path": "src/app.py", "offset": 2, "limit": 3}),
        ("read_file", {"path": "doc.pdf", "pages": "2"}),
    ]

    async def body(session: ClientSession) -> list[Any]:
        return [await session.call_tool(name, args) for name, args in calls]

    results = run_session(_server(tree), body, tmp_path / "err.log")
    ws = Workspace(tree)
    api = {
        "glob": lambda a: ws.glob(**a),
        "grep": lambda a: ws.grep(**a),
        "read_file": lambda a: ws.read_pdf(**a) if "pages" in a else ws.read_file(**a),
    }
    for (name, args), result in zip(calls, results):
        assert result["isError"] is False, _text(result)
        text, is_error = _expected_text(tree, name, args)
        assert not is_error
        assert _text(result) == text
        expected = to_dict(api[name](dict(args)))
        assert _without_timing(result["structuredContent"]) == _without_timing(expected)
        jsonschema.validate(result["structuredContent"], OUTPUT_SCHEMAS[name])

    glob_paths = results[0]["structuredContent"]["paths"]
    assert glob_paths == [
        "build/generated.py",
        "src/app.py",
        "src/pkg/__init__.py",
        "src/pkg/util.py",
    ]
    grep_paths = {line["path"] for line in results[2]["structuredContent"]["lines"]}
    assert grep_paths == {"build/generated.py", "notes.secret", "src/app.py", "src/pkg/util.py"}
    read = results[4]["structuredContent"]
    assert [line["number"] for line in read["lines"]] == [2, 3, 4]
    assert read["lines"][2]["text"] == "def main():"
    pdf = results[5]["structuredContent"]
    assert (pdf["page_count"], pdf["pages"][0]["number"]) == (2, 2)
    assert pdf["pages"][0]["text"] == "Second page"
    assert _text(results[5]).startswith("doc.pdf: PDF, 2 pages, ")


def test_no_structured_content_serves_the_text_only(tree: Path, tmp_path: Path) -> None:
    calls = [("glob", {"pattern": "**/*.py"}), ("read_file", {"path": "src/app.py"})]

    async def body(session: ClientSession) -> tuple[Any, list[Any]]:
        listed = await session.list_tools()
        return listed, [await session.call_tool(name, args) for name, args in calls]

    params = _server(tree, "--no-structured-content")
    listed, results = run_session(params, body, tmp_path / "err.log")
    assert [t.get("outputSchema") for t in listed["tools"]] == [None] * len(builtin_tools())
    definitions = default_registry(tree).definitions("mcp")
    assert [t["inputSchema"] for t in listed["tools"]] == [d["inputSchema"] for d in definitions]
    for (name, args), result in zip(calls, results):
        assert result["structuredContent"] is None
        text, is_error = _expected_text(tree, name, args)
        assert (result["isError"], _text(result)) == (is_error, text)


def test_the_same_file_read_twice_is_delivered_twice(tree: Path, tmp_path: Path) -> None:
    # The server outlives conversations, so it never answers "already shown".
    async def body(session: ClientSession) -> list[Any]:
        args = {"path": "src/app.py"}
        return [await session.call_tool("read_file", args) for _ in range(2)]

    first, second = run_session(_server(tree), body, tmp_path / "err.log")
    assert _text(first) == _text(second)
    assert "def main():" in _text(second)
    assert second["structuredContent"]["lines"] == first["structuredContent"]["lines"]


def test_a_search_repeated_on_an_unchanged_tree_is_answered_in_full(
    tree: Path, tmp_path: Path
) -> None:
    # Not "same as call N" (a call a new conversation never saw), and never without the typed
    # result its output schema promises: the SDK's client raises on a result that lacks it.
    async def body(session: ClientSession) -> list[Any]:
        args = {"pattern": "TODO", "output_mode": "count"}
        return [await session.call_tool("grep", args) for _ in range(3)]

    results = run_session(_server(tree), body, tmp_path / "err.log")
    assert len({_text(result) for result in results}) == 1
    assert "Same as call" not in _text(results[-1])
    typed = [_without_timing(r["structuredContent"]) for r in results]
    cold = Workspace(tree).grep("TODO", output_mode="count")
    assert typed[0]["total_files"] == cold.total_files and all(t == typed[0] for t in typed)
    assert "structuredContent left out" not in (tmp_path / "err.log").read_text()


def test_bad_arguments_and_unknown_tools_are_error_results_with_guidance(
    tree: Path, tmp_path: Path
) -> None:
    calls = [
        ("grep", {"pattern": "TODO", "limit": "5"}),  # "5" is not an integer: no coercion
        ("read_file", {}),  # required path missing
        ("glob", {"pattern": "*", "sort": "size"}),  # not in the enum
        ("Read", {"path": "src/app.py"}),  # a tool name from another agent
    ]

    async def body(session: ClientSession) -> list[Any]:
        return [await session.call_tool(name, args) for name, args in calls]

    results = run_session(_server(tree), body, tmp_path / "err.log")
    for (name, args), result in zip(calls, results):
        assert result["isError"] is True
        assert result["structuredContent"] is None
        text, is_error = _expected_text(tree, name, args)
        assert is_error and _text(result) == text
    assert "Invalid arguments for grep" in _text(results[0]) and "limit" in _text(results[0])
    assert "path" in _text(results[1])
    assert "did you mean read_file" in _text(results[3]).lower()


def test_bad_regex_is_an_error_result(tree: Path, tmp_path: Path) -> None:
    async def body(session: ClientSession) -> Any:
        return await session.call_tool("grep", {"pattern": "def (main"})

    result = run_session(_server(tree), body, tmp_path / "err.log")
    assert result["isError"] is True
    text, _ = _expected_text(tree, "grep", {"pattern": "def (main"})
    assert _text(result) == text and text


def test_path_escapes_are_refused(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    (tree / "link.txt").symlink_to(outside)
    calls = [
        ("read_file", {"path": "../outside.txt"}),
        ("read_file", {"path": str(outside)}),
        ("read_file", {"path": "link.txt"}),
        ("read_file", {"path": ".env"}),
        ("grep", {"pattern": "TODO", "path": ".."}),
        ("glob", {"pattern": "*", "path": "../"}),
    ]

    async def body(session: ClientSession) -> list[Any]:
        return [await session.call_tool(name, args) for name, args in calls]

    results = run_session(_server(tree), body, tmp_path / "err.log")
    for (name, args), result in zip(calls, results):
        assert result["isError"] is True, (name, args, _text(result))
        assert "TODO outside the root" not in _text(result)
        assert "TODO-secret" not in _text(result)
        text, _ = _expected_text(tree, name, args)
        assert _text(result) == text


def test_ten_concurrent_calls_are_all_answered(tree: Path, tmp_path: Path) -> None:
    calls = [
        ("grep", {"pattern": "TODO"}),
        ("glob", {"pattern": "**/*"}),
        ("read_file", {"path": "src/app.py"}),
        ("grep", {"pattern": "def \\w+", "output_mode": "files_with_matches"}),
        ("glob", {"pattern": "src/**/*.py"}),
        ("read_file", {"path": "README.md", "limit": 1}),
        ("grep", {"pattern": "helper", "literal": True}),
        ("glob", {"pattern": "*.md"}),
        ("read_file", {"path": "src/pkg/util.py", "offset": 2}),
        ("grep", {"pattern": "x", "limit": "many"}),  # an error answered among the others
    ]
    assert len(calls) == 10

    async def body(session: ClientSession) -> list[Any]:
        return await asyncio.gather(*(session.call_tool(name, args) for name, args in calls))

    results = run_session(_server(tree), body, tmp_path / "err.log")
    assert len(results) == 10
    for (name, args), result in zip(calls, results):
        text, is_error = _expected_text(tree, name, args)
        assert result["isError"] is is_error
        assert _text(result) == text
        if not is_error:
            jsonschema.validate(result["structuredContent"], OUTPUT_SCHEMAS[name])
    assert results[-1]["isError"] is True


_RENDEZVOUS_SERVER = """
import sys, threading, anyio
from ripsight import Registry, ToolSpec
from ripsight.mcp_server import serve_stdio

parties = int(sys.argv[1])
barrier = threading.Barrier(parties, timeout=30)

def rendezvous(context, args):
    barrier.wait()  # returns only when `parties` calls are running at the same time
    return "all here"

registry = Registry(None)
registry.register(ToolSpec(
    name="rendezvous",
    description="Waits until all the calls of a test have started.",
    parameters={"type": "object", "properties": {}, "additionalProperties": False},
    handler=rendezvous,
))
anyio.run(lambda: serve_stdio(registry, max_concurrent_calls=parties))
"""


def test_calls_in_flight_together_run_at_the_same_time(tmp_path: Path) -> None:
    # Each call blocks at a barrier that opens only when all ten run at once: a server that
    # served them one by one would break the barrier and answer with errors.
    script = tmp_path / "rendezvous_server.py"
    script.write_text(_RENDEZVOUS_SERVER)
    params = StdioServerParameters(command=sys.executable, args=[str(script), "10"])

    async def body(session: ClientSession) -> list[Any]:
        return await asyncio.gather(*(session.call_tool("rendezvous", {}) for _ in range(10)))

    results = run_session(params, body, tmp_path / "err.log")
    assert [(r["isError"], _text(r)) for r in results] == [(False, "all here")] * 10
    assert all(r["structuredContent"] is None for r in results)


def test_workspace_flags_shape_what_the_server_sees(tree: Path, tmp_path: Path) -> None:
    async def body(session: ClientSession) -> list[Any]:
        return [
            await session.call_tool("glob", {"pattern": "**/*"}),
            await session.call_tool("grep", {"pattern": "TODO"}),
            await session.call_tool("read_file", {"path": "notes.secret"}),
        ]

    flags = ("--exclude-dir", "build", "--deny", "*.secret")
    listed, searched, denied = run_session(_server(tree, *flags), body, tmp_path / "err.log")
    paths = listed["structuredContent"]["paths"]
    assert "src/app.py" in paths
    assert not any(p.startswith("build/") for p in paths)
    assert "notes.secret" not in paths and ".env" not in paths
    found = {line["path"] for line in searched["structuredContent"]["lines"]}
    assert found == {"src/app.py", "src/pkg/util.py"}
    assert denied["isError"] is True and "private" not in _text(denied)

    # Without the flags the same tree shows build/ and notes.secret.
    plain = run_session(
        _server(tree), lambda s: s.call_tool("glob", {"pattern": "**/*"}), tmp_path / "e2"
    )
    assert "build/generated.py" in plain["structuredContent"]["paths"]
    assert "notes.secret" in plain["structuredContent"]["paths"]


# -- bounds: structuredContent and time --------------------------------------------------------


def test_a_500_match_grep_keeps_its_structured_content_within_the_text_budget(
    tmp_path: Path,
) -> None:
    # PydanticAI (and some Claude Code and Codex builds) hand the model structuredContent: a
    # limit=500 grep used to send a 78,000-character dict past the 8,000-character bound.
    root = tmp_path / "repo"
    lines = [f"needle {i:04d} " + "x" * 60 for i in range(600)]
    (root / "src").mkdir(parents=True)
    (root / "src" / "many.txt").write_text("\n".join(lines) + "\n")
    args = {"pattern": "needle", "limit": 500}
    budget = 8000

    async def body(session: ClientSession) -> list[Any]:
        first = await session.call_tool("grep", args)
        page = first.model_dump(by_alias=True)["structuredContent"]
        shown = sum(1 for line in page["lines"] if line["is_match"])
        second = await session.call_tool("grep", {**args, "offset": shown})
        return [first, second]

    first, second = run_session(_server(root), body, tmp_path / "err.log")
    text, is_error = _expected_text(root, "grep", args)
    assert not is_error and first["isError"] is False

    # The text stays the full model-facing answer; the reference naming the stored whole is the
    # server session's own, so only its form is compared.
    def same_ref(t: str) -> str:
        return re.sub(r"ref_[0-9a-f]+", "ref_…", t)

    assert re.search(r"ref_[0-9a-f]+", _text(first))
    assert same_ref(_text(first)) == same_ref(text)
    assert len(text) > budget * 0.9  # the text itself is at its budget, cut in the middle

    page = first["structuredContent"]
    assert len(json.dumps(page, ensure_ascii=False)) <= budget
    assert len(json.dumps(page)) <= budget  # ASCII only here: the same either way
    jsonschema.validate(page, OUTPUT_SCHEMAS["grep"])
    shown = [line for line in page["lines"] if line["is_match"]]
    assert 0 < len(shown) < 500
    assert (page["total_matches"], page["offset"]) == (600, 0)
    assert page["withheld"] == 600 - len(shown)  # paging from the structured copy alone works
    full = to_dict(Workspace(root).grep("needle", limit=500))
    assert page["lines"] == full["lines"][: len(page["lines"])]

    following = second["structuredContent"]
    assert following["offset"] == len(shown)
    assert following["lines"][0]["text"] == lines[len(shown)]
    assert len(json.dumps(following)) <= budget


def test_bound_structured_cuts_at_match_groups_and_keeps_the_counters_true() -> None:
    from ripsight.mcp_server import bound_structured

    lines = []
    for match in range(40):  # each match with one line of context before and after
        for line, is_match in (
            (3 * match + 1, False),
            (3 * match + 2, True),
            (3 * match + 3, False),
        ):
            lines.append(
                {
                    "path": "a.txt",
                    "line": line,
                    "text": "t" * 50,
                    "is_match": is_match,
                    "counted": is_match,
                    "cut": False,
                }
            )
    grep = {
        "pattern": "t",
        "output_mode": "content",
        "lines": lines,
        "files": [],
        "total_matches": 100,
        "total_files": 1,
        "offset": 10,
        "withheld": 50,
        "next_offset": 50,
        "incomplete": False,
    }
    page = bound_structured(grep, 2000)
    assert len(json.dumps(page, ensure_ascii=False)) <= 2000
    kept = page["lines"]
    shown = sum(1 for line in kept if line["is_match"])
    assert 0 < shown < 40 and kept[-1]["is_match"]  # no context of a left-out match remains
    assert kept == lines[: len(kept)]
    assert page["withheld"] == 50 + 40 - shown and page["next_offset"] == 10 + shown
    assert grep["lines"] is lines and len(lines) == 120  # the input is left as it was

    read = {
        "path": "a",
        "lines": [{"number": n, "text": "r" * 80, "cut_from": None} for n in range(5, 105)],
        "offset": 5,
        "next_offset": None,
    }
    page = bound_structured(read, 1500)
    assert len(json.dumps(page, ensure_ascii=False)) <= 1500
    assert page["next_offset"] == page["lines"][-1]["number"] + 1

    small = {"pattern": "x", "paths": ["a"], "total": 1, "offset": 0, "withheld": 0}
    assert bound_structured(small, 200) is small


def test_the_structured_budget_follows_max_result_chars(tree: Path, tmp_path: Path) -> None:
    calls = [("glob", {"pattern": "**/*"}), ("read_file", {"path": "src/app.py"})]

    async def body(session: ClientSession) -> list[Any]:
        return [await session.call_tool(name, args) for name, args in calls]

    # 500: room for a glob result's fixed fields (counts, the ignore accounting) and a few paths.
    glob, read = run_session(_server(tree, "--max-result-chars", "500"), body, tmp_path / "err.log")
    for result in (glob, read):
        assert len(json.dumps(result["structuredContent"], ensure_ascii=False)) <= 500
    full_glob = to_dict(Workspace(tree).glob("**/*"))
    paths = glob["structuredContent"]["paths"]
    assert 0 < len(paths) < len(full_glob["paths"]) and paths == full_glob["paths"][: len(paths)]
    assert glob["structuredContent"]["withheld"] == full_glob["total"] - len(paths)
    lines = read["structuredContent"]["lines"]
    assert 0 < len(lines) < 6
    assert read["structuredContent"]["next_offset"] == lines[-1]["number"] + 1


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

    result = run_session(_server(root), body, tmp_path / "err.log")  # no --time-budget flag
    assert result["isError"] is False, _text(result)
    assert result["structuredContent"]["incomplete"] is True
    assert "incomplete" in _text(result).lower() or "time" in _text(result).lower()
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
        texts = {_text(answer) for answer in answers}
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
    results = run_session(_server(tree, "--log", str(log)), body, tmp_path / "err.log")
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


# -- images and notebooks ------------------------------------------------------------------------


def test_an_image_round_trips_as_image_content_beside_the_text(tmp_path: Path) -> None:
    from _media_corpus import copy_a_real_png

    root = tmp_path / "repo"
    root.mkdir()
    if not copy_a_real_png(root / "logo.png"):
        pytest.skip("no real PNG under /usr/share on this machine")
    (root / "nb.ipynb").write_text(
        '{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": '
        '"markdown", "id": "a", "metadata": {}, "source": "# Title"}]}'
    )

    async def body(session: ClientSession) -> list[Any]:
        return [
            await session.call_tool("read_file", {"path": "logo.png"}),
            await session.call_tool("read_file", {"path": "nb.ipynb"}),
        ]

    image, notebook = run_session(_server(root), body, tmp_path / "err.log")
    check_image_answer(image, root, "logo.png")
    jsonschema.validate(image["structuredContent"], OUTPUT_SCHEMAS["read_file"])
    assert notebook["isError"] is False and "[1] markdown, id a" in _text(notebook)
    jsonschema.validate(notebook["structuredContent"], OUTPUT_SCHEMAS["read_file"])
