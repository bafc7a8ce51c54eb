"""The command line speaks its own flags everywhere: every help text of every command, and the
hints, notes and errors each command prints, name commands and flags, never the model's tool
names or ``name=value`` arguments. One vocabulary of reference roles; file types as the help
shows them."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest
from _cli_helpers import run_ripsight
from ripsight.cli import TOOL_COMMANDS, build_parser
from ripsight.tools import builtin_tools

#: The tools whose command has another name: their names are the model's, never the CLI's.
RENAMED = sorted(spec.name for spec in builtin_tools() if spec.name not in TOOL_COMMANDS)
#: Every argument name a tool has that no English sentence uses (snake case): the model's.
SNAKE = sorted(
    {
        name
        for spec in builtin_tools()
        for name in spec.parameters.get("properties", {})
        if "_" in name
    }
)
MODEL_SIDE = re.compile(
    rf"\b(?:{'|'.join(RENAMED)})\b"  # a tool named as the model calls it
    rf"|(?<![\w-])(?:{'|'.join(SNAKE)})\b"  # an argument named as in the schema
    r'|\b[a-z_]+=(?:true|false|"|\[|\d)'  # name=value
    r"|\b[Cc]all (?:again|glob|grep|outline)\b"  # a call, not a command
    r"|\bthe next call\b"
)


def model_side(text: str) -> list[str]:
    return [m[0] for m in MODEL_SIDE.finditer(text)]


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_the_pattern_finds_what_it_must() -> None:
    for said in (
        "Call read_file with an offset",
        "set literal=true",
        'with match="prefix"',
        "raise max_chars",
        "find_definitions finds",
        "call again",
        "call grep again",
    ):
        assert model_side(said), said
    assert not model_side("run ripsight defs -F --max-chars 9 (PATH); pass --no-outline")


@pytest.mark.parametrize("command", sorted(_subparsers(build_parser())))
def test_every_help_text_speaks_the_command_lines_words(command: str) -> None:
    parser = _subparsers(build_parser())[command]
    text = " ".join(parser.format_help().split())
    if command in ("mcp", "tools", "demo"):
        # These are about the tools themselves: they name them as the model does.
        text = re.sub(rf"\b(?:{'|'.join(RENAMED)})\b", "", text)
    # A tool's command says once which tool it runs ("(the find_definitions tool)").
    text = re.sub(r"\(the [a-z_]+ tool\)", "", text)
    assert model_side(text) == [], text


# -- every hint of every command ---------------------------------------------------------------


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("vocabulary")
    (root / "src").mkdir()
    body = "".join(f"    total = total + {n}\n" for n in range(500))
    (root / "src" / "long.py").write_text(
        f"def first():\n    total = 0\n{body}    return total\n\n\ndef second():\n"
        "    return first()\n\n\nclass Holder:\n    def method(self):\n        return second()\n"
    )
    (root / "src" / "app.py").write_text(
        "from long import first, second\n\n\ndef main():\n    first()\n    second()\n"
        "    return first()\n\n\ndef other():\n    return main()\n"
    )
    (root / "README.md").write_text("# Title\n\nSome words.\n\n## Part\n\nMore words.\n")
    return root


#: (command line, what each run must show) for the paging, empty, error and partial sentences
#: of every command; the issue's reports first.
HINTS: list[tuple[list[str], str]] = [
    (["read", "src/long.py", "--offset", "99999"], "offset"),
    (["defs", "(", "--match", "regex"], "--match exact"),
    (["map", "--max-chars", "300"], "--max-chars"),
    (["calls", "main"], "calls"),
    (["outline", "README.md"], "README"),
    (["map", "--max-chars", "1"], "--max-chars"),
    (["read", "src/long.py", "--limit", "3"], "ripsight outline"),
    (["read", "src/long.py"], "Outline"),
    (["read", "src/nope.py"], "does not exist"),
    (["read", "src"], "directory"),
    (["read", "src/long.py", "--limit", "0"], "--limit"),
    (["defs", "first", "--limit", "1", "-k", "function"], "first"),
    (["defs", "nothing_here_at_all"], "No definition"),
    (["defs", "fir", "--match", "prefix"], "first"),
    (["refs", "first", "--limit", "1"], "--offset"),
    (["refs", "first", "-r", "call", "--group-by", "caller"], "caller"),
    (["refs", "nothing_here_at_all"], "No reference"),
    (["calls", "nothing_here_at_all"], "No definition"),
    (["calls", "main", "--limit", "1"], "--offset"),
    (["outline", "src/long.py", "--limit", "1"], "--offset"),
    (["outline", "src/nope.py"], "does not exist"),
    (["grep", "total", "--limit", "1"], "--offset"),
    (["grep", "foo\\"], "foo\\"),
    (["grep", "def", "-t", "java"], "type"),
    (["grep", "nothing_here_at_all"], "No matches"),
    (["grep", "def", "-l", "--limit", "1"], "--offset"),
    (["grep", "x", "-C", "-1"], "ripsight grep"),
    (["glob", "*.py"], "top level"),
    (["glob", "**/*.py", "--limit", "1"], "--offset"),
    (["glob", "*.rs"], "No files"),
    (["map", "-p", "nowhere", "-n", "nothing_defined"], "nowhere"),
]


def _run(tree: Path, argv: list[str]) -> str:
    done = run_ripsight(*argv, "--root", str(tree), timeout=120)
    return done.stdout + done.stderr


@pytest.mark.parametrize(("argv", "expected"), HINTS, ids=[" ".join(a) for a, _ in HINTS])
def test_every_hint_speaks_the_command_lines_words(
    tree: Path, argv: list[str], expected: str
) -> None:
    text = _run(tree, argv)
    assert expected in text, text
    assert model_side(text) == [], text
    assert "\n- " not in text and ": - " not in text, text  # no stray list bullet


def test_a_validation_error_is_one_line_naming_the_command(tree: Path) -> None:
    text = _run(tree, ["map", "--max-chars", "1"])
    assert text.startswith("ripsight map: ") and text.count("\n") == 1, text
    assert "--max-chars" in text and "repo_map" not in text


def test_a_trailing_backslash_is_named_in_the_users_pattern(tree: Path) -> None:
    text = _run(tree, ["grep", "foo\\"])
    assert "(?:" not in text and "unclosed group" not in text, text
    assert "foo\\" in text and "escape" in text, text


def test_a_type_no_file_has_says_so(tree: Path) -> None:
    text = _run(tree, ["grep", "def", "-t", "java"])
    assert "No file in scope is of type java." in text, text
    assert "Every file in scope was skipped" not in text


# -- one vocabulary of roles -------------------------------------------------------------------


def test_the_roles_are_named_alike_in_summary_rows_filter_and_schema(tree: Path) -> None:
    from ripsight.workspace import REFERENCE_ROLES

    schema = next(s for s in builtin_tools() if s.name == "find_references").parameters
    assert list(schema["properties"]["role"]["items"]["enum"]) == list(REFERENCE_ROLES)
    text = _run(tree, ["refs", "first"])
    summary = re.search(r"all roles: ([^)]*)\)", text)
    assert summary, text
    named = {re.sub(r"s$", "", part.split(" ", 1)[1]) for part in summary[1].split(", ")}
    assert named <= set(REFERENCE_ROLES), named
    rows = {line.split(" ")[1] for line in text.splitlines() if re.match(r"\S+:\d+:\d+ ", line)}
    assert rows and rows <= set(REFERENCE_ROLES), rows
    for role in REFERENCE_ROLES:  # every name the summary and rows use is a filter
        assert "invalid choice" not in _run(tree, ["refs", "first", "-r", role])


# -- file types as the help shows them ---------------------------------------------------------


@pytest.mark.parametrize("command", ["grep", "glob"])
def test_types_are_taken_as_the_help_shows_them(tree: Path, command: str) -> None:
    help_text = _subparsers(build_parser())[command].format_help()
    assert '["ts", "js"]' in help_text and "Repeat -t for several" in help_text
    pattern = "def" if command == "grep" else "**/*"
    listed = _run(tree, [command, pattern, "-t", '["py", "md"]', "--json"])
    repeated = _run(tree, [command, pattern, "-t", "py", "-t", "md", "--json"])
    timeless = lambda text: re.sub(r'"elapsed_ms":[0-9.e+-]+', "", text)
    assert timeless(listed) == timeless(repeated) and "long.py" in listed, listed
    bad = _run(tree, [command, pattern, "-t", '["py", 3]'])
    assert "JSON list of strings" in bad


def test_type_list_prints_as_rg_does() -> None:
    from ripsight.file_types import FILE_TYPES

    done = run_ripsight("grep", "--type-list")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(FILE_TYPES)
    assert f"py: {', '.join(FILE_TYPES['py'])}" in lines
    assert lines == sorted(lines, key=lambda line: line.split(":")[0])


def test_mcp_help_names_every_tool_it_serves() -> None:
    text = " ".join(_subparsers(build_parser())["mcp"].format_help().split())
    names = [spec.name for spec in builtin_tools()]
    assert f"Serve the {len(names)} tools (" in text
    for name in names:
        assert name in text


def test_glob_and_grep_name_where_they_searched_alike(tree: Path) -> None:
    listed = _run(tree, ["glob", "*.py", "src"])
    found = _run(tree, ["grep", "def", "src", "-l"])
    assert listed.startswith('2 files match "*.py" under src:'), listed
    assert found.startswith('2 files match "def" under src '), found
