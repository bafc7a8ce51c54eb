"""`ripsight glob|grep|read` through a real subprocess: --json equals the Python API, exit codes."""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest
from _cli_helpers import run_ripsight
from ripsight import ToolCall, ToolSpec, Workspace, default_registry, to_dict
from ripsight.cli import TOOL_COMMANDS, add_tool_parser
from ripsight.cli.hints import CommandWords
from ripsight.tools import builtin_tools


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "vendor").mkdir()
    (root / "src" / "app.py").write_text(
        "import os\n\n\ndef main():\n    # TODO: read the config\n    return os.getcwd()\n"
    )
    (root / "src" / "pkg" / "util.py").write_text(
        "def helper(x):\n    return x * 2  # todo tests\n"
    )
    (root / "src" / "pkg" / "notes.txt").write_text("TODO (x) literal parens\n")
    (root / "README.md").write_text("# demo\n\nRun `main()`.\n")
    (root / "vendor" / "lib.py").write_text("# TODO vendored\n")
    (root / ".env").write_text("TOKEN=TODO-secret\n")
    (tmp_path / "outside.txt").write_text("TODO outside\n")
    return root


def ripsight(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run_ripsight(*args, cwd=cwd)


def _json(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.stdout.count("\n") == 1, "--json prints exactly one line"
    return orjson.loads(done.stdout)


def _without_timing(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key != "elapsed_ms"}


def _model_text(root: Path, name: str, arguments: dict[str, Any]) -> str:
    result = default_registry(root).execute(ToolCall("cli", name, arguments))
    assert not result.is_error, result.content
    return result.content


def _one_line_error(done: subprocess.CompletedProcess[str], command: str) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"ripsight {command}: ")
    return lines[0]


# -- --json is the Python API's result ----------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "api_args"),
    [
        (["**/*.py"], {"pattern": "**/*.py"}),
        (["*.py", "src"], {"pattern": "*.py", "path": "src"}),
        (["**/*", "--limit", "2", "--offset", "1"], {"pattern": "**/*", "limit": 2, "offset": 1}),
        (["**/*.py", "--sort", "mtime"], {"pattern": "**/*.py", "sort": "mtime"}),
    ],
)
def test_glob_json_equals_the_python_api(
    tree: Path, argv: list[str], api_args: dict[str, Any]
) -> None:
    done = ripsight("glob", *argv, "--json", "--root", str(tree))
    assert done.returncode == 0, done.stderr
    expected = to_dict(Workspace(tree).glob(**api_args))
    assert _without_timing(_json(done)) == _without_timing(expected)


@pytest.mark.parametrize(
    ("argv", "api_args"),
    [
        (["TODO"], {"pattern": "TODO"}),
        (["todo", "-i", "-C", "1"], {"pattern": "todo", "case_insensitive": True, "context": 1}),
        (["(x)", "-F"], {"pattern": "(x)", "literal": True}),
        (["def \\w+", "src", "-g", "*.py"], {"pattern": "def \\w+", "path": "src", "glob": "*.py"}),
        (["TODO", "-l"], {"pattern": "TODO", "output_mode": "files_with_matches"}),
        (["o", "--count", "--limit", "2"], {"pattern": "o", "output_mode": "count", "limit": 2}),
        (["main\\(\\):\\n +#", "-U"], {"pattern": "main\\(\\):\\n +#", "multiline": True}),
    ],
)
def test_grep_json_equals_the_python_api(
    tree: Path, argv: list[str], api_args: dict[str, Any]
) -> None:
    done = ripsight("grep", *argv, "--json", "--root", str(tree))
    assert done.returncode == 0, done.stderr
    expected = to_dict(Workspace(tree).grep(**api_args))
    assert expected["total_matches"] > 0
    assert _without_timing(_json(done)) == _without_timing(expected)


def test_read_json_equals_the_python_api(tree: Path) -> None:
    done = ripsight(
        "read", "src/app.py", "--offset", "4", "--limit", "2", "--json", "--root", str(tree)
    )
    assert done.returncode == 0, done.stderr
    data = _json(done)
    assert data == to_dict(Workspace(tree).read_file("src/app.py", offset=4, limit=2))
    assert [line["text"] for line in data["lines"]] == [
        "def main():",
        "    # TODO: read the config",
    ]


# -- text mode is what the model sees -----------------------------------------------------------


def test_text_output_is_what_the_model_sees(tree: Path) -> None:
    cases = [
        (["glob", "**/*.py"], "glob", {"pattern": "**/*.py"}),
        (["grep", "TODO", "-C", "1"], "grep", {"pattern": "TODO", "context": 1}),
        (["read", "src/app.py", "--limit", "3"], "read_file", {"path": "src/app.py", "limit": 3}),
    ]
    for argv, tool, arguments in cases:
        # The default root is the current directory.
        done = ripsight(*argv, cwd=tree)
        assert done.returncode == 0, done.stderr
        # The same text, its advice in the command's words (tests/test_cli_words.py).
        expected = (
            _model_text(tree, tool, arguments)
            .replace("call read_file with offset=4", "run the command again with --offset 4")
            .replace('call outline with path="src/app.py"', "run ripsight outline src/app.py")
        )
        assert done.stdout == expected + "\n"
        assert done.stderr == ""


def test_workspace_flags(tree: Path) -> None:
    plain = _json(ripsight("grep", "TODO", "-l", "--json", "--root", str(tree)))
    paths = [f["path"] for f in plain["files"]]
    assert "vendor/lib.py" in paths and ".env" not in paths
    narrowed = _json(
        ripsight(
            "grep",
            "TODO",
            "-l",
            "--json",
            "--root",
            str(tree),
            "--exclude-dir",
            "vendor",
            "--deny",
            "*.txt",
        )
    )
    assert [f["path"] for f in narrowed["files"]] == ["src/app.py"]


def test_options_may_follow_the_positionals(tree: Path) -> None:
    first = _json(ripsight("grep", "-l", "-i", "todo", "src", "--json", "--root", str(tree)))
    after = _json(ripsight("grep", "todo", "src", "-l", "--json", "-i", "--root", str(tree)))
    assert _without_timing(after) == _without_timing(first)
    assert [f["path"] for f in first["files"]] == [
        "src/app.py",
        "src/pkg/notes.txt",
        "src/pkg/util.py",
    ]
    # After "--" a pattern may start with a dash.
    dashed = ripsight("grep", "-F", "--json", "--root", str(tree), "--", "-secret")
    assert dashed.returncode == 1 and _json(dashed)["pattern"] == "-secret"


# -- exit codes -----------------------------------------------------------------------------------


def test_no_match_exits_1_and_still_explains(tree: Path) -> None:
    done = ripsight("grep", "no_such_text_anywhere", "--root", str(tree))
    assert done.returncode == 1
    assert done.stdout.startswith('No matches for "no_such_text_anywhere"')
    assert done.stderr == ""

    done = ripsight("grep", "no_such_text_anywhere", "--json", "--root", str(tree))
    assert done.returncode == 1
    assert _json(done)["total_matches"] == 0

    done = ripsight("glob", "**/*.rs", "--json", "--root", str(tree))
    assert done.returncode == 1
    assert _json(done)["total"] == 0 and _json(done)["paths"] == []


def test_offset_past_the_end_is_not_a_no_match(tree: Path) -> None:
    # Results exist (total > 0), this page is empty: 0, not 1.
    done = ripsight("glob", "**/*.py", "--offset", "50", "--root", str(tree))
    assert done.returncode == 0
    assert "past the end" in done.stdout


def test_bad_regex_exits_2_with_one_line(tree: Path) -> None:
    for extra in ([], ["--json"]):
        done = ripsight("grep", "def (main", *extra, "--root", str(tree))
        line = _one_line_error(done, "grep")
        assert "regex" in line.lower() or "pattern" in line.lower()


def test_input_errors_exit_2_with_one_line(tree: Path, tmp_path: Path) -> None:
    cases = [
        (["read", "src/missing.py"], "read"),
        (["read", "../outside.txt"], "read"),
        (["read", str(tmp_path / "outside.txt")], "read"),
        (["read", ".env"], "read"),
        (["read", "src"], "read"),
        (["grep", "TODO", ".."], "grep"),
        (["glob", "*", "../"], "glob"),
        (["glob", "*", "no_such_dir"], "glob"),
    ]
    for argv, command in cases:
        done = ripsight(*argv, "--root", str(tree))
        line = _one_line_error(done, command)
        assert "TODO" not in line, line  # nothing of the refused file leaks


def test_invalid_options_exit_2_with_one_line(tree: Path) -> None:
    # Checked before any engine call, so these hold in every build.
    for argv, command in [
        (["grep", "TODO", "--limit", "0"], "grep"),
        (["grep", "TODO", "--context", "99"], "grep"),
        (["glob", "*", "--limit", "5000"], "glob"),
        (["read", "src/app.py", "--offset", "0"], "read"),
    ]:
        line = _one_line_error(ripsight(*argv, "--root", str(tree)), command)
        assert "nothing was run" in line


def test_missing_root_exits_2_with_one_line(tmp_path: Path) -> None:
    line = _one_line_error(ripsight("glob", "*", "--root", str(tmp_path / "nope")), "glob")
    assert "--root" in line and "nope" in line


def test_usage_errors_exit_2() -> None:
    for argv in (
        ["glob"],
        ["grep", "x", "--limit", "many"],
        ["read"],
        ["grep", "x", "-l", "-c"],
        ["frobnicate"],
    ):
        done = ripsight(*argv)
        assert done.returncode == 2, argv
        assert done.stdout == ""
        assert "usage:" in done.stderr


def test_help_lists_the_commands() -> None:
    done = ripsight("--help")
    assert done.returncode == 0
    for command in ("glob", "grep", "read", "mcp", "tools", "demo"):
        assert command in done.stdout
    for command in ("glob", "grep", "read"):
        sub = ripsight(command, "--help")
        assert sub.returncode == 0 and "--json" in sub.stdout and "exit status" in sub.stdout


# -- the flags are the tools' schemas -----------------------------------------------------------


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Each destination's own action: the first (a shortcut such as -l, added after the option
    it sets, shares its destination)."""
    options: dict[str, argparse.Action] = {}
    for action in parser._actions:
        options.setdefault(action.dest, action)
    return options


@pytest.mark.parametrize("command", sorted(TOOL_COMMANDS))
def test_every_schema_property_is_an_argument_of_its_command(command: str) -> None:
    spec = next(s for s in builtin_tools() if s.name == TOOL_COMMANDS[command].tool)
    properties = {s.name: tuple(s.parameters["properties"]) for s in builtin_tools()}
    words = CommandWords(command, TOOL_COMMANDS, properties)
    sub = argparse.ArgumentParser().add_subparsers()
    options = _options(add_tool_parser(sub, command, spec))
    for name, prop in spec.parameters["properties"].items():
        action = options[name]
        if name in TOOL_COMMANDS[command].positionals:
            assert not action.option_strings
            continue
        assert "--" + name.replace("_", "-") in action.option_strings
        # The schema's description, in the command's words (tests/test_cli_vocabulary.py).
        described = words.line(" ".join(prop["description"].split()))
        assert action.help and described.replace("%", "%%") in action.help
        if "enum" in prop:
            assert list(action.choices or ()) == prop["enum"]


def test_a_property_added_to_a_schema_is_a_flag_without_a_cli_edit(tree: Path) -> None:
    grep = next(s for s in builtin_tools() if s.name == "grep")
    schema = dict(grep.parameters)
    schema["properties"] = {
        **schema["properties"],
        "before_context": {"type": "integer", "minimum": 0, "description": "Lines before (100%)."},
        "invert_match": {"type": "boolean", "description": "Lines that do not match."},
        "type": {"type": "string", "enum": ["py", "rust"], "description": "A file type."},
        "globs": {"type": "array", "items": {"type": "string"}, "description": "Globs."},
    }
    spec = ToolSpec("grep", grep.description, schema, grep.handler)
    sub = argparse.ArgumentParser().add_subparsers()
    parser = add_tool_parser(sub, "grep", spec)
    args = parser.parse_args(
        [
            "x",
            "--before-context",
            "2",
            "--invert-match",
            "--type",
            "py",
            "--globs",
            "a",
            "--globs",
            "b",
        ]
    )
    assert (args.before_context, args.invert_match, args.type, args.globs) == (
        2,
        True,
        "py",
        ["a", "b"],
    )
    unset = parser.parse_args(["x"])
    assert unset.invert_match is None and unset.before_context is None  # left out of the call
    with pytest.raises(SystemExit):
        parser.parse_args(["x", "--type", "go"])
