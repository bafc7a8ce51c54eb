"""grep's and glob's ripgrep options through the Python layers: the typed API, the tool
definitions, argument checking (file type names with a did-you-mean), the model's text
(asserted exactly), the CLI's flags and the MCP definitions. What the options find is the
engine's (cargo tests, and real rg in test_rg_options.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from ripsight import ToolCall, Workspace, default_registry
from ripsight.errors import InvalidArgumentError
from ripsight.file_types import FILE_TYPES, unknown_types
from ripsight.limits import LIMITS, MAX_DEPTH
from ripsight.tools import builtin_tools


@pytest.fixture
def tree(make_tree) -> Path:
    return make_tree(
        {
            "a.py": "needle\nplain\n",
            "b.rs": "needle\n",
            "c.md": "text\n",
            "src/d.py": "needle one\nneedle two\nneedle three\n",
            "src/deep/e.py": "needle\n",
            "empty.txt": "",
        }
    )


def call(root: Path, tool: str, **arguments: object) -> str:
    result = default_registry(root).execute(ToolCall("c1", tool, orjson.dumps(arguments).decode()))
    return result.content


# -- the typed API ------------------------------------------------------------------------------


def test_the_typed_api_takes_every_option_by_its_rg_name(tree: Path) -> None:
    ws = Workspace(tree)
    result = ws.grep(
        "needle",
        type="py",
        type_not=["md"],
        max_count=1,
        max_depth=2,
        include_ignored=True,
        output_mode="count",
    )
    assert [(f.path, f.count) for f in result.files] == [("a.py", 1), ("src/d.py", 1)]
    inverted = ws.grep("needle", invert_match=True, type="py", output_mode="count")
    assert [(f.path, f.count) for f in inverted.files] == [("a.py", 1)]
    without = ws.grep("needle", output_mode="files_without_match")
    assert [f.path for f in without.files] == ["c.md", "empty.txt"]
    assert (without.files_searched, without.total_files) == (6, 4)
    listed = ws.glob(["**/*.py", "!src/deep/"], max_depth=2, type="python")
    assert listed.paths == ["a.py", "src/d.py"]
    assert (listed.pattern, listed.more_patterns) == ("**/*.py", ["!src/deep/"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"type": "pyhton"}, 'type: "pyhton" is not a file type (did you mean "python"?)'),
        ({"type_not": ["rs"]}, 'type_not: "rs" is not a file type (did you mean "rust"?)'),
        (
            {"type": ["javascript", "zzqq"]},
            (
                'type: "javascript" is not a file type (did you mean "js"?); "zzqq" is not a '
                "file type (file types are named like py, rust, js, ts, go, c, cpp, java, md, "
                "json)"
            ),
        ),
        ({"type": 3}, "type must be a string or a list of strings, got int 3"),
        ({"max_count": -1}, "max_count must be at least 0, got -1"),
        ({"max_depth": -1}, "max_depth must be at least 0, got -1"),
    ],
)
def test_the_typed_api_refuses_bad_options_with_a_sentence(
    tree: Path, kwargs: dict, message: str
) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        Workspace(tree).grep("needle", **kwargs)
    assert str(info.value) == message


def test_file_types_are_the_engines_and_all_names_every_type() -> None:
    assert FILE_TYPES["rust"] == ("*.rs",)
    assert unknown_types(["all", "py", "md"]) == []
    assert unknown_types([".rs", "*.tsx"]) == [
        '".rs" is not a file type (did you mean "rust"?)',
        '"*.tsx" is not a file type (did you mean "ts"?)',
    ]


# -- definitions --------------------------------------------------------------------------------


def _spec(name: str):
    return next(s for s in builtin_tools() if s.name == name)


def test_the_definitions_name_each_option_with_an_example() -> None:
    grep = _spec("grep")
    props = grep.parameters["properties"]
    for name in ("type", "type_not", "max_count", "invert_match", "max_depth", "include_ignored"):
        assert name in props, name
        assert "ripgrep's" in props[name]["description"], name
    assert props["output_mode"]["enum"][-1] == "files_without_match"
    assert props["max_depth"]["maximum"] == MAX_DEPTH == LIMITS["max_depth"]
    for example in ('type="py"', "type_not=", "max_count=1", "invert_match=true", "max_depth=1"):
        assert example in grep.description, example
    assert "include_ignored=true" in grep.description
    glob = _spec("glob").parameters["properties"]
    assert glob["pattern"]["type"] == ["string", "array"]
    assert glob["pattern"]["minItems"] == 1
    assert {"type", "max_depth", "include_ignored"} <= set(glob)
    assert "type_not" not in glob


def test_every_definition_format_carries_the_new_arguments() -> None:
    registry = default_registry(".")
    for provider in ("openai", "openai-responses", "anthropic", "mcp"):
        text = orjson.dumps(registry.definitions(provider)).decode()
        for name in ("type_not", "max_count", "invert_match", "max_depth", "include_ignored"):
            assert f'"{name}"' in text, (provider, name)
    strict = orjson.dumps(registry.definitions("openai", strict=True)).decode()
    assert '"include_ignored"' in strict


# -- the model's text ---------------------------------------------------------------------------


def test_files_without_match_text(tree: Path) -> None:
    assert call(tree, "grep", pattern="needle", output_mode="files_without_match") == (
        '2 files do not match "needle" (6 files searched):\nc.md\nempty.txt'
    )
    assert call(
        tree, "grep", pattern="needle", output_mode="files_without_match", limit=1, offset=1
    ) == ('2 files do not match "needle" (6 files searched); showing files 2-2:\nempty.txt')
    assert call(tree, "grep", pattern="needle", path="src", output_mode="files_without_match") == (
        'Every file searched matches "needle" under src (2 files searched).'
    )


def test_inverted_search_text(tree: Path) -> None:
    assert call(tree, "grep", pattern="needle", invert_match=True, path="a.py") == (
        '1 line not matching "needle" in 1 file under a.py (1 file searched):\na.py:2:plain'
    )
    assert call(
        tree, "grep", pattern="needle", invert_match=True, output_mode="files_with_matches"
    ) == ('2 files have lines not matching "needle" (2 such lines, 6 files searched):\na.py\nc.md')
    assert call(tree, "grep", pattern=".*", invert_match=True, type="py") == (
        'No line fails to match ".*" in files of type py (3 files searched).'
    )


def test_max_count_type_and_depth_are_named_in_the_header(tree: Path) -> None:
    text = call(
        tree,
        "grep",
        pattern="needle",
        max_count=1,
        type=["py", "rust"],
        type_not="md",
        max_depth=2,
        output_mode="count",
    )
    assert text == (
        '3 files match "needle" in files of type py, rust excluding type md at most 2 levels '
        "deep (3 matching lines, 3 files searched, at most 1 match per file):\n"
        "a.py:1\nb.rs:1\nsrc/d.py:1"
    )
    assert call(tree, "grep", pattern="needle", glob="*.md", type="py", max_depth=1) == (
        'No matches for "needle" in files matching "*.md" of type py at most 1 level deep '
        "(1 file searched). The search is case-sensitive; pass case_insensitive=true to "
        "ignore case."
    )


def test_nothing_searched_names_the_filters_that_were_given(tree: Path) -> None:
    assert call(tree, "grep", pattern="needle", type="go") == (
        'No matches for "needle" in files of type go (0 files searched). No file in scope is '
        "of type go. The search is case-sensitive; pass case_insensitive=true to ignore case."
    )


def test_unknown_types_are_invalid_arguments_with_the_schemas_problems(tree: Path) -> None:
    result = default_registry(tree).execute(
        ToolCall("c1", "grep", '{"pattern": "x", "type": ["pyhton", "py"], "limit": "5"}')
    )
    assert result.is_error and result.meta["code"] == "invalid_arguments"
    assert result.content == (
        "Invalid arguments for grep (2 problems); nothing was run:\n"
        '- "limit" must be an integer, got the string "5" (write it without quotes: 5).\n'
        '- "type": "pyhton" is not a file type (did you mean "python"?).\n'
        "Fix the arguments and call grep again."
    )
    result = default_registry(tree).execute(ToolCall("c2", "glob", '{"pattern": []}'))
    assert result.content == (
        "Invalid arguments for glob (1 problem); nothing was run:\n"
        '- "pattern" must hold at least 1 item.\n'
        "Fix the arguments and call glob again."
    )


def test_a_glob_list_with_a_type_and_a_depth(tree: Path) -> None:
    assert call(tree, "glob", pattern=["**/*", "!**/*.md"], type="py", max_depth=2) == (
        '2 files match "**/*", "!**/*.md" in the workspace root:\na.py\nsrc/d.py'
    )


def test_a_trailing_slash_on_a_file_says_how_to_read_it(tree: Path) -> None:
    assert call(tree, "read_file", path="src/d.py/") == (
        'src/d.py/ is a file, not a directory. A trailing "/" names a directory; to read the '
        'file, pass path="src/d.py".'
    )


# -- the CLI and the MCP server -----------------------------------------------------------------


def ripsight(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ripsight.cli", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_the_cli_takes_rgs_flags(tree: Path) -> None:
    done = ripsight(
        "grep", "needle", "-t", "py", "-T", "rust", "-m", "1", "-d", "2", "-c", "--json",
        "--root", str(tree),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    expected = Workspace(tree).grep(
        "needle", type="py", type_not="rust", max_count=1, max_depth=2, output_mode="count"
    )
    got = orjson.loads(done.stdout)
    assert got["files"] == [f.to_dict() for f in expected.files]
    done = ripsight("grep", "needle", "-v", "--files-without-match", "--root", str(tree))
    # An empty file has no line that fails to match.
    assert done.stdout == (
        'In 4 files every line matches "needle" (6 files searched):\n'
        "b.rs\nempty.txt\nsrc/d.py\nsrc/deep/e.py\n"
    ), done.stderr
    done = ripsight("grep", "needle", "--no-ignore", "-A", "1", "-B", "0", "--root", str(tree))
    assert done.returncode == 0 and "src/d.py-2-needle two" not in done.stdout
    done = ripsight("glob", "**/*", "-t", "py", "-d", "1", "--no-ignore", "--root", str(tree))
    assert done.stdout == '1 file matches "**/*" in the workspace root:\na.py\n', done.stderr


def test_the_mcp_output_schemas_carry_the_accounting() -> None:
    from ripsight import _core

    for cls in (_core.GrepResult, _core.GlobResult):
        props = cls.SCHEMA["properties"]
        assert props["hidden_by"]["items"]["properties"]["rule"]["type"] == "string"
        assert "path_ignored_by" in props
    assert "ignored_by_rules" in _core.SkipCounts.SCHEMA["properties"]
