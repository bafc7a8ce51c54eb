"""`ripsight mcp` as a real subprocess, driven by the MCP SDK's own stdio client.

Every tool result is compared with what the Python API gives for the same call: the text with
`Registry.execute` in this process, the structured content with `ripsight.to_dict` of the
`Workspace` method's result.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema  # installed with the MCP SDK (the [test] extra)
import pytest
from _mcp_helpers import (
    SESSION_TIMEOUT,
    check_image_answer,
    expected_text,
    make_demo_tree,
    run_session,
    server_params,
    text_of,
    wire,
    without_timing,
)
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from ripsight import Workspace, default_registry, to_dict
from ripsight.mcp_server import NOTES_FIELD, OUTPUT_SCHEMAS
from ripsight.tools import builtin_tools

pytestmark = pytest.mark.slow  # an MCP server process per test, several seconds each


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A small repository, plus a file beside it that the server must never read."""
    return make_demo_tree(tmp_path)


# -- listing -------------------------------------------------------------------------------------


def test_initialize_and_list_tools_match_the_registry(tree: Path, tmp_path: Path) -> None:
    async def body(session: ClientSession) -> Any:
        return await session.list_tools()

    # No --root: the server works in its current directory.
    listed = run_session(server_params(None, cwd=tree), body, tmp_path / "err.log")
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
                stdio_client(server_params(None, cwd=tree), errlog=err) as (read, write),
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

    results = run_session(server_params(tree), body, tmp_path / "err.log")
    ws = Workspace(tree)
    api = {
        "glob": lambda a: ws.glob(**a),
        "grep": lambda a: ws.grep(**a),
        "read_file": lambda a: ws.read_pdf(**a) if "pages" in a else ws.read_file(**a),
    }
    for (name, args), result in zip(calls, results):
        assert result["isError"] is False, text_of(result)
        text, is_error = expected_text(tree, name, args)
        assert not is_error
        assert text_of(result) == text
        expected = to_dict(api[name](dict(args)))
        assert without_timing(result["structuredContent"]) == without_timing(expected)
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
    assert text_of(results[5]).startswith("doc.pdf: PDF, 2 pages, ")


def test_no_structured_content_serves_the_text_only(tree: Path, tmp_path: Path) -> None:
    calls = [("glob", {"pattern": "**/*.py"}), ("read_file", {"path": "src/app.py"})]

    async def body(session: ClientSession) -> tuple[Any, list[Any]]:
        listed = await session.list_tools()
        return listed, [await session.call_tool(name, args) for name, args in calls]

    params = server_params(tree, "--no-structured-content")
    listed, results = run_session(params, body, tmp_path / "err.log")
    assert [t.get("outputSchema") for t in listed["tools"]] == [None] * len(builtin_tools())
    definitions = default_registry(tree).definitions("mcp")
    assert [t["inputSchema"] for t in listed["tools"]] == [d["inputSchema"] for d in definitions]
    for (name, args), result in zip(calls, results):
        assert result["structuredContent"] is None
        text, is_error = expected_text(tree, name, args)
        assert (result["isError"], text_of(result)) == (is_error, text)


def test_the_same_file_read_twice_is_delivered_twice(tree: Path, tmp_path: Path) -> None:
    # The server outlives conversations, so it never answers "already shown".
    async def body(session: ClientSession) -> list[Any]:
        args = {"path": "src/app.py"}
        return [await session.call_tool("read_file", args) for _ in range(2)]

    first, second = run_session(server_params(tree), body, tmp_path / "err.log")
    assert text_of(first) == text_of(second)
    assert "def main():" in text_of(second)
    assert second["structuredContent"]["lines"] == first["structuredContent"]["lines"]


def test_a_search_repeated_on_an_unchanged_tree_is_answered_in_full(
    tree: Path, tmp_path: Path
) -> None:
    # Not "same as call N" (a call a new conversation never saw), and never without the typed
    # result its output schema promises: the SDK's client raises on a result that lacks it.
    async def body(session: ClientSession) -> list[Any]:
        args = {"pattern": "TODO", "output_mode": "count"}
        return [await session.call_tool("grep", args) for _ in range(3)]

    results = run_session(server_params(tree), body, tmp_path / "err.log")
    assert len({text_of(result) for result in results}) == 1
    assert "Same as call" not in text_of(results[-1])
    typed = [without_timing(r["structuredContent"]) for r in results]
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

    results = run_session(server_params(tree), body, tmp_path / "err.log")
    for (name, args), result in zip(calls, results):
        assert result["isError"] is True
        assert result["structuredContent"] is None
        text, is_error = expected_text(tree, name, args)
        assert is_error and text_of(result) == text
    assert "Invalid arguments for grep" in text_of(results[0]) and "limit" in text_of(results[0])
    assert "path" in text_of(results[1])
    assert "did you mean read_file" in text_of(results[3]).lower()


def test_bad_regex_is_an_error_result(tree: Path, tmp_path: Path) -> None:
    async def body(session: ClientSession) -> Any:
        return await session.call_tool("grep", {"pattern": "def (main"})

    result = run_session(server_params(tree), body, tmp_path / "err.log")
    assert result["isError"] is True
    text, _ = expected_text(tree, "grep", {"pattern": "def (main"})
    assert text_of(result) == text and text


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

    results = run_session(server_params(tree), body, tmp_path / "err.log")
    for (name, args), result in zip(calls, results):
        assert result["isError"] is True, (name, args, text_of(result))
        assert "TODO outside the root" not in text_of(result)
        assert "TODO-secret" not in text_of(result)
        text, _ = expected_text(tree, name, args)
        assert text_of(result) == text


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

    results = run_session(server_params(tree), body, tmp_path / "err.log")
    assert len(results) == 10
    for (name, args), result in zip(calls, results):
        text, is_error = expected_text(tree, name, args)
        assert result["isError"] is is_error
        assert text_of(result) == text
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
    assert [(r["isError"], text_of(r)) for r in results] == [(False, "all here")] * 10
    assert all(r["structuredContent"] is None for r in results)


def test_workspace_flags_shape_what_the_server_sees(tree: Path, tmp_path: Path) -> None:
    async def body(session: ClientSession) -> list[Any]:
        return [
            await session.call_tool("glob", {"pattern": "**/*"}),
            await session.call_tool("grep", {"pattern": "TODO"}),
            await session.call_tool("read_file", {"path": "notes.secret"}),
        ]

    flags = ("--exclude-dir", "build", "--deny", "*.secret")
    listed, searched, denied = run_session(server_params(tree, *flags), body, tmp_path / "err.log")
    paths = listed["structuredContent"]["paths"]
    assert "src/app.py" in paths
    assert not any(p.startswith("build/") for p in paths)
    assert "notes.secret" not in paths and ".env" not in paths
    found = {line["path"] for line in searched["structuredContent"]["lines"]}
    assert found == {"src/app.py", "src/pkg/util.py"}
    assert denied["isError"] is True and "private" not in text_of(denied)

    # Without the flags the same tree shows build/ and notes.secret.
    plain = run_session(
        server_params(tree), lambda s: s.call_tool("glob", {"pattern": "**/*"}), tmp_path / "e2"
    )
    assert "build/generated.py" in plain["structuredContent"]["paths"]
    assert "notes.secret" in plain["structuredContent"]["paths"]


# -- bounds: structuredContent ---------------------------------------------------------------


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

    first, second = run_session(server_params(root), body, tmp_path / "err.log")
    text, is_error = expected_text(root, "grep", args)
    assert not is_error and first["isError"] is False

    # The text stays the full model-facing answer; the reference naming the stored whole is the
    # server session's own, so only its form is compared.
    def same_ref(t: str) -> str:
        return re.sub(r"ref_[0-9a-f]+", "ref_…", t)

    assert re.search(r"ref_[0-9a-f]+", text_of(first))
    assert same_ref(text_of(first)) == same_ref(text)
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
    glob, read = run_session(
        server_params(tree, "--max-result-chars", "500"), body, tmp_path / "err.log"
    )
    for result in (glob, read):
        assert len(json.dumps(result["structuredContent"], ensure_ascii=False)) <= 500
    full_glob = to_dict(Workspace(tree).glob("**/*"))
    paths = glob["structuredContent"]["paths"]
    assert 0 < len(paths) < len(full_glob["paths"]) and paths == full_glob["paths"][: len(paths)]
    assert glob["structuredContent"]["withheld"] == full_glob["total"] - len(paths)
    lines = read["structuredContent"]["lines"]
    assert 0 < len(lines) < 6
    assert read["structuredContent"]["next_offset"] == lines[-1]["number"] + 1


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

    image, notebook = run_session(server_params(root), body, tmp_path / "err.log")
    check_image_answer(image, root, "logo.png")
    jsonschema.validate(image["structuredContent"], OUTPUT_SCHEMAS["read_file"])
    assert notebook["isError"] is False and "[1] markdown, id a" in text_of(notebook)
    jsonschema.validate(notebook["structuredContent"], OUTPUT_SCHEMAS["read_file"])
