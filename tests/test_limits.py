"""Configurable limits: `ToolLimits` drives the definitions, the defaults, the caps and the flags.

One object, one truth: whatever limits a registry, a CLI call or an MCP server is given, the
definitions a model reads state those numbers and the tools apply them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from _mcp_helpers import run_session, server_params, text_of
from mcp import ClientSession
from ripsight import DEFAULT_LIMITS, ToolCall, ToolLimits, Workspace, default_registry
from ripsight.errors import InvalidArgumentError
from ripsight.mcp_server import OUTPUT_SCHEMAS, output_schemas
from ripsight.registry import FORMATS, Registry
from ripsight.tools import GREP_SCHEMA, builtin_tools

LONG = "x" * 150 + " TODO " + "y" * 144  # 300 characters, the match past any small cut


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    for i in range(12):
        (root / "src" / f"m{i:02}.py").write_text(f"# TODO item {i}\nvalue = {i}\n")
    (root / "long.txt").write_text(LONG + "\nshort line\n")
    return root


# -- ToolLimits ---------------------------------------------------------------------------------


def test_defaults_are_the_spec_section_5_numbers() -> None:
    limits = ToolLimits()
    assert limits == DEFAULT_LIMITS
    assert (limits.glob_limit, limits.grep_limit, limits.grep_line_chars) == (200, 50, 120)
    assert (limits.read_limit, limits.read_line_chars) == (400, 500)
    assert (limits.max_result_chars, limits.head_ratio) == (8000, 0.6)
    assert (limits.glob_max_limit, limits.grep_max_limit, limits.read_max_limit) == (
        1000,
        500,
        2000,
    )


def test_engine_defaults_agree_with_tool_limits(tree: Path) -> None:
    # The raw engine calls without max_line_chars cut where ToolLimits says they do.
    (tree / "wide.txt").write_text("z" * 650 + " TODO\n")
    ws = Workspace(tree)
    raw = ws._engine.read_file("wide.txt", offset=1, limit=1)
    assert raw.lines[0].cut_from == 655
    assert len(raw.lines[0].text) == DEFAULT_LIMITS.read_line_chars
    found = ws._engine.grep(
        "TODO",
        path="wide.txt",
        glob=None,
        literal=False,
        case_insensitive=False,
        context=0,
        multiline=False,
        output_mode="content",
        limit=5,
        offset=0,
    )
    assert found.matches[0].cut
    assert len(found.matches[0].text) <= DEFAULT_LIMITS.grep_line_chars
    assert found.matches[0].text == ws.grep("TODO", path="wide.txt").matches[0].text
    assert (
        found.matches[0].text != ws.grep("TODO", path="wide.txt", max_line_chars=60).matches[0].text
    )


def test_a_maximum_follows_a_larger_default_and_keeps_a_smaller_one() -> None:
    limits = ToolLimits(glob_limit=1500, grep_limit=20, read_limit=3000)
    assert limits.glob_max_limit == 1500
    assert limits.grep_max_limit == 500
    assert limits.read_max_limit == 3000
    assert ToolLimits(grep_max_limit=80).grep_max_limit == 80
    # replace() recomputes a maximum that followed its default
    assert limits.replace(glob_limit=100).glob_max_limit == 1000


@pytest.mark.parametrize(
    ("changes", "error", "words"),
    [
        ({"glob_limit": 0}, ValueError, "glob_limit must be at least 1, got 0"),
        ({"grep_limit": -5}, ValueError, "grep_limit must be at least 1, got -5"),
        ({"read_limit": 0}, ValueError, "read_limit must be at least 1"),
        ({"grep_line_chars": 5}, ValueError, "grep_line_chars must be at least 20, got 5"),
        ({"read_line_chars": 0}, ValueError, "read_line_chars must be at least 20"),
        ({"max_result_chars": 10}, ValueError, "max_result_chars must be at least 200"),
        ({"head_ratio": 2}, ValueError, "head_ratio must be between 0 and 1, got 2"),
        ({"head_ratio": -0.1}, ValueError, "head_ratio must be between 0 and 1"),
        ({"head_ratio": "half"}, TypeError, "head_ratio must be a number"),
        ({"grep_limit": "5"}, TypeError, "grep_limit must be an integer, got str '5'"),
        ({"read_limit": True}, TypeError, "read_limit must be an integer"),
        ({"grep_limit": 2.5}, TypeError, "grep_limit must be an integer"),
        ({"grep_limit": 100, "grep_max_limit": 50}, ValueError, "grep_max_limit (50) is below"),
        ({"glob_max_limit": 0}, ValueError, "glob_max_limit must be at least 1"),
    ],
)
def test_invalid_limits_are_refused_with_a_clear_error(
    changes: dict[str, Any], error: type[Exception], words: str
) -> None:
    with pytest.raises(error) as info:
        ToolLimits(**changes)
    assert words in str(info.value)


def test_registry_rejects_bad_limits_and_keeps_the_shorthands(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="limits must be a ToolLimits"):
        Registry(limits={"grep_limit": 5})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="head_ratio"):
        default_registry(tmp_path, head_ratio=2)
    reg = default_registry(
        tmp_path, limits=ToolLimits(grep_limit=7), max_result_chars=500, head_ratio=0.5
    )
    assert reg.limits == ToolLimits(grep_limit=7, max_result_chars=500, head_ratio=0.5)
    assert (reg.max_result_chars, reg.head_ratio) == (500, 0.5)
    assert reg.get("grep").parameters["properties"]["limit"]["default"] == 7


# -- definitions ---------------------------------------------------------------------------------

CUSTOM = ToolLimits(
    glob_limit=1500, grep_limit=5, grep_line_chars=64, read_limit=30, read_line_chars=80
)


def _parts(definition: dict[str, Any], fmt: str) -> tuple[str, str, dict[str, Any]]:
    if fmt == "openai":
        function = definition["function"]
        return function["name"], function["description"], function["parameters"]
    if fmt == "openai-responses":
        return definition["name"], definition["description"], definition["parameters"]
    if fmt == "anthropic":
        return definition["name"], definition["description"], definition["input_schema"]
    return definition["name"], definition["description"], definition["inputSchema"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_definitions_in_every_format_state_the_custom_limits(tmp_path: Path, fmt: str) -> None:
    reg = default_registry(tmp_path, limits=CUSTOM)
    found = {}
    for definition in reg.definitions(fmt):
        name, description, schema = _parts(definition, fmt)
        found[name] = (description, schema["properties"].get("limit"))
    glob_text, glob_limit = found["glob"]
    grep_text, grep_limit = found["grep"]
    read_text, read_limit = found["read_file"]

    assert "(default 1500)" in glob_text and "(default 200)" not in glob_text
    assert (glob_limit["default"], glob_limit["maximum"]) == (1500, 1500)
    assert glob_limit["description"] == "Maximum number of paths to return (1-1500). Default: 1500."

    assert "(default 5)" in grep_text and "cut to 64 characters" in grep_text
    assert "120" not in grep_text and "(default 50)" not in grep_text
    assert (grep_limit["default"], grep_limit["maximum"]) == (5, 500)
    assert grep_limit["description"].endswith("(1-500). Default: 5.")

    assert "(default 30)" in read_text and "over 80 characters" in read_text
    assert "500" not in read_text and "400" not in read_text
    assert (read_limit["default"], read_limit["maximum"]) == (30, 2000)


def test_default_definitions_are_unchanged_by_the_generator(tmp_path: Path) -> None:
    # The generated defaults are the module constants other code and tests rely on.
    assert default_registry(tmp_path).get("grep").parameters == GREP_SCHEMA
    assert [s.parameters for s in builtin_tools()] == [
        s.parameters for s in builtin_tools(ToolLimits())
    ]


def test_validation_fills_the_configured_defaults(tree: Path) -> None:
    reg = default_registry(tree, limits=CUSTOM)
    result = reg.execute(ToolCall("c1", "read_file", {"path": "src/m00.py"}))
    assert not result.is_error
    # a call may ask for the larger configured maximum, not more
    ok = reg.execute(ToolCall("c2", "glob", {"pattern": "**/*", "limit": 1500}))
    assert not ok.is_error, ok.content
    refused = reg.execute(ToolCall("c3", "glob", {"pattern": "**/*", "limit": 1501}))
    assert refused.is_error and "1500" in refused.content


# -- the tools apply them -----------------------------------------------------------------------


def test_grep_limit_5_returns_5_matches_and_says_the_next_offset(tree: Path) -> None:
    reg = default_registry(tree, limits=ToolLimits(grep_limit=5))
    result = reg.execute(ToolCall("c1", "grep", {"pattern": "TODO", "glob": "*.py"}))
    assert not result.is_error, result.content
    engine = result.meta["engine_result"]
    assert len(engine.matches) == 5 and engine.total_matches == 12 and engine.withheld == 7
    lines = result.content.splitlines()
    assert lines[0].endswith("showing matches 1-5:")
    assert sum(1 for line in lines if line.startswith("src/m")) == 5
    assert "7 more matches not shown: call grep again with offset=5" in result.content
    # an explicit limit still wins over the default
    six = reg.execute(ToolCall("c2", "grep", {"pattern": "TODO", "glob": "*.py", "limit": 6}))
    assert len(six.meta["engine_result"].matches) == 6


def test_glob_limit_applies_by_default(tree: Path) -> None:
    reg = default_registry(tree, limits=ToolLimits(glob_limit=3))
    result = reg.execute(ToolCall("c1", "glob", {"pattern": "**/*.py"}))
    assert result.meta["engine_result"].paths == ["src/m00.py", "src/m01.py", "src/m02.py"]
    assert "offset=3" in result.content


def test_read_line_cap_80_cuts_lines_at_80_with_the_note(tree: Path) -> None:
    reg = default_registry(tree, limits=ToolLimits(read_line_chars=80, read_limit=1))
    result = reg.execute(ToolCall("c1", "read_file", {"path": "long.txt"}))
    assert not result.is_error, result.content
    line = result.meta["engine_result"].lines[0]
    assert line.cut_from == 300 and len(line.text) == 80
    assert line.text == LONG[:80]
    assert f"     1\t{LONG[:80]} [... line cut at 80 of 300 characters]" in result.content
    assert "offset=2" in result.content  # read_limit 1: the next line follows


def test_grep_line_cap_cuts_around_the_match_and_says_so(tree: Path) -> None:
    reg = default_registry(tree, limits=ToolLimits(grep_line_chars=40, read_line_chars=90))
    result = reg.execute(ToolCall("c1", "grep", {"pattern": "TODO", "path": "long.txt"}))
    line = result.meta["engine_result"].matches[0]
    assert line.cut and len(line.text) <= 40 and "TODO" in line.text
    assert (
        "1 line longer than 40 characters is shown in part (around the match); read_file "
        "shows up to 90 characters per line." in result.content
    )
    default = default_registry(tree).execute(
        ToolCall("c2", "grep", {"pattern": "TODO", "path": "long.txt"})
    )
    assert "longer than 120 characters" in default.content and "500 characters" in default.content


def test_result_budget_from_limits(tree: Path) -> None:
    reg = default_registry(tree, limits=ToolLimits(max_result_chars=300))
    result = reg.execute(ToolCall("c1", "grep", {"pattern": "TODO"}))
    assert result.meta["truncated"] and len(result.content) <= 300


def test_workspace_and_engine_refuse_a_tiny_line_cap(tree: Path) -> None:
    ws = Workspace(tree)
    with pytest.raises(InvalidArgumentError, match="max_line_chars must be at least 20"):
        ws.read_file("long.txt", max_line_chars=0)
    with pytest.raises(InvalidArgumentError, match="max_line_chars must be at least 20"):
        ws.grep("TODO", max_line_chars=5)
    # The check is the engine's (the typed API passes the value through): the raw binding's
    # callers get the same.
    for call in (
        lambda: ws._engine.read_file("long.txt", offset=1, limit=1, max_line_chars=19),
        lambda: ws._engine.grep(
            "TODO",
            path=None,
            glob=None,
            literal=False,
            case_insensitive=False,
            context=0,
            multiline=False,
            output_mode="content",
            limit=5,
            offset=0,
            max_line_chars=3,
        ),
    ):
        with pytest.raises(InvalidArgumentError) as info:
            call()
        assert "max_line_chars must be at least 20, got " in str(info.value)
    assert ws.grep("TODO", path="long.txt", max_line_chars=20).matches[0].text.count("TODO") == 1


# -- CLI -----------------------------------------------------------------------------------------


def ripsight(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ripsight.cli", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_cli_limit_flags(tree: Path) -> None:
    root = ("--root", str(tree))
    grep = ripsight("grep", "TODO", "-g", "*.py", "--grep-limit", "3", "--json", *root)
    assert grep.returncode == 0, grep.stderr
    data = orjson.loads(grep.stdout)
    assert len(data["lines"]) == 3 and data["withheld"] == 9

    glob = ripsight("glob", "**/*.py", "--glob-limit", "2", *root)
    assert glob.returncode == 0, glob.stderr
    assert "run the command again with --offset 2" in glob.stdout

    read = ripsight("read", "long.txt", "--read-line-chars", "80", "--read-limit", "1", *root)
    assert read.returncode == 0, read.stderr
    assert "[... line cut at 80 of 300 characters]" in read.stdout
    assert "--offset 2" in read.stdout

    cut = ripsight("grep", "TODO", "long.txt", "--grep-line-chars", "40", *root)
    assert "longer than 40 characters" in cut.stdout

    small = ripsight("grep", "TODO", "--max-result-chars", "250", *root)
    assert small.returncode == 0 and len(small.stdout) <= 251


def test_cli_tools_prints_definitions_under_the_flags() -> None:
    done = ripsight("tools", "-f", "anthropic", "--grep-limit", "7", "--read-line-chars", "90")
    assert done.returncode == 0, done.stderr
    tools = {tool["name"]: tool for tool in orjson.loads(done.stdout)}
    assert tools["grep"]["input_schema"]["properties"]["limit"]["default"] == 7
    assert "over 90 characters" in tools["read_file"]["description"]


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["grep", "x", "--grep-limit", "0"], "--grep-limit: must be at least 1, got 0"),
        (["glob", "*", "--glob-limit", "-3"], "--glob-limit: must be at least 1, got -3"),
        (["read", "a", "--read-line-chars", "5"], "--read-line-chars: must be at least 20"),
        (["grep", "x", "--grep-line-chars", "many"], "expected a whole number, got 'many'"),
        (["mcp", "--head-ratio", "2"], "--head-ratio: must be from 0 to 1, got 2"),
        (["mcp", "--max-result-chars", "10"], "--max-result-chars: must be at least 200"),
        (["tools", "--read-limit", "0"], "--read-limit: must be at least 1"),
    ],
)
def test_cli_invalid_limits_exit_2_with_a_clear_error(argv: list[str], words: str) -> None:
    done = ripsight(*argv)
    assert done.returncode == 2
    assert done.stdout == ""
    assert words in done.stderr


def test_cli_flags_apply_only_where_they_mean_something() -> None:
    assert ripsight("glob", "*", "--read-limit", "5").returncode == 2
    assert ripsight("read", "a", "--grep-limit", "5").returncode == 2


def test_help_documents_the_limit_flags_with_defaults() -> None:
    helps = {
        command: ripsight(command, "--help").stdout
        for command in ("mcp", "glob", "grep", "read", "tools")
    }
    mcp = " ".join(helps["mcp"].split())
    for flag, default in (
        ("--glob-limit", "200"),
        ("--grep-limit", "50"),
        ("--grep-line-chars", "120"),
        ("--read-limit", "400"),
        ("--read-line-chars", "500"),
        ("--max-result-chars", "8000"),
        ("--head-ratio", "0.6"),
    ):
        assert flag in mcp and f"(default: {default}" in mcp, flag
        assert flag in helps["tools"]
    assert "--glob-limit" in helps["glob"] and "--grep-limit" not in helps["glob"]
    assert "--grep-line-chars" in helps["grep"] and "--read-limit" not in helps["grep"]
    assert "--read-line-chars" in helps["read"] and "--glob-limit" not in helps["read"]


# -- MCP -----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_mcp_server_with_grep_limit_3_lists_and_applies_it(tree: Path, tmp_path: Path) -> None:
    async def body(session: ClientSession) -> Any:
        listed = await session.list_tools()
        called = await session.call_tool("grep", {"pattern": "TODO", "glob": "*.py"})
        return listed, called

    listed, called = run_session(
        server_params(tree, "--grep-limit", "3", "--read-line-chars", "80"),
        body,
        tmp_path / "err.log",
    )
    tools = {tool["name"]: tool for tool in listed["tools"]}
    limits = ToolLimits(grep_limit=3, read_line_chars=80)
    expected = {d["name"]: d for d in default_registry(tree, limits=limits).definitions("mcp")}
    assert tools["grep"]["inputSchema"]["properties"]["limit"]["default"] == 3
    assert "(default 3)" in (tools["grep"]["description"] or "")
    for name, tool in tools.items():
        assert tool["inputSchema"] == expected[name]["inputSchema"]
        assert tool["description"] == expected[name]["description"]
        assert tool["outputSchema"] == output_schemas(limits).get(name)
    assert tools["read_file"]["outputSchema"] != OUTPUT_SCHEMAS["read_file"]  # "cut to 80"

    assert called["isError"] is False, text_of(called)
    assert len(called["structuredContent"]["lines"]) == 3
    assert called["structuredContent"]["total_matches"] == 12
    assert "call grep again with offset=3" in text_of(called)
