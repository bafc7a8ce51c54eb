"""What was not searched, accounted for in the model's text (asserted exactly): when a grep or
glob finds nothing, or the path the model gave is ignored, the text names the ignore rules
that hid the most (`file:line: rule`, at most three) and how to include them; the typed
result carries the counts and the rules, and the warm workspace says the same."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest
from ripsight import ToolCall, Workspace, default_registry


@pytest.fixture
def repo(make_tree) -> Path:
    """A repository whose every `needle` lies in a file ignore rules hide."""
    return make_tree(
        {
            ".gitignore": "# build output\nbuild/\n\n*.log\n",
            "src/.gitignore": "generated_*.rs\n",
            "src/main.rs": "fn main() {}\n",
            "src/generated_api.rs": "needle\n",
            "build/a.txt": "needle\n",
            "build/deep/c.txt": "needle\n",
            "app.log": "needle\n",
            "err.log": "needle\n",
        },
        git=True,
    )


def call(root: Path, tool: str, index: bool = False, **arguments: object) -> str:
    registry = default_registry(root, index=index)
    if index:
        assert registry.workspace is not None and registry.workspace.wait_index(30)
    result = registry.execute(ToolCall("c1", tool, orjson.dumps(arguments).decode()))
    return result.content


HIDDEN = (
    "Hidden by ignore rules: 4 files and directories, most by .gitignore:4: *.log (2), "
    ".gitignore:2: build/ (1), src/.gitignore:1: generated_*.rs (1)."
)


def test_a_grep_that_finds_nothing_names_the_rules_that_hid_the_matches(repo: Path) -> None:
    assert call(repo, "grep", pattern="needle") == (
        'No matches for "needle" (3 files searched). The search is case-sensitive; pass '
        "case_insensitive=true to ignore case.\n"
        f"{HIDDEN} Pass include_ignored=true to search them too.\n"
        "Skipped: 1 directory skipped by name (excluded directories: version control, dependencies, build output)."
    )
    assert call(repo, "grep", pattern="needle", include_ignored=True, output_mode="count") == (
        '5 files match "needle" (5 matching lines, 8 files searched):\n'
        "app.log:1\nbuild/a.txt:1\nbuild/deep/c.txt:1\nerr.log:1\nsrc/generated_api.rs:1"
    )


def test_a_glob_that_finds_nothing_names_them_too(repo: Path) -> None:
    assert call(repo, "glob", pattern="**/*.txt") == (
        'No files match "**/*.txt" in the workspace root, which holds 3 files.\n'
        f"{HIDDEN} Pass include_ignored=true to list them too.\n"
        "Skipped: 1 directory skipped by name (excluded directories: version control, dependencies, build output)."
    )


def test_a_search_that_finds_something_does_not_list_the_rules(repo: Path) -> None:
    text = call(repo, "grep", pattern="fn main")
    assert text == '1 match in 1 file for "fn main" (3 files searched):\nsrc/main.rs:1:fn main() {}'


def test_only_the_rules_below_a_path_are_named(repo: Path) -> None:
    assert call(repo, "grep", pattern="needle", path="src") == (
        'No matches for "needle" under src (2 files searched). The search is case-sensitive; '
        "pass case_insensitive=true to ignore case.\n"
        "Hidden by ignore rules: 1 file or directory, most by src/.gitignore:1: "
        "generated_*.rs (1). Pass include_ignored=true to search them too."
    )


def test_a_path_that_ignore_rules_hide_is_searched_and_the_rule_named(repo: Path) -> None:
    assert call(repo, "grep", pattern="needle", path="build/deep") == (
        '1 match in 1 file for "needle" under build/deep (1 file searched):\n'
        "build/deep/c.txt:1:needle\n"
        "Note: build/deep is hidden by the ignore rule .gitignore:2: build/, so a search of "
        "the whole tree skips it; it was searched because path names it."
    )
    assert call(repo, "grep", pattern="zzz", path="app.log") == (
        'No matches for "zzz" under app.log (1 file searched). The search is case-sensitive; '
        "pass case_insensitive=true to ignore case.\n"
        "Note: app.log is hidden by the ignore rule .gitignore:4: *.log, so a search of the "
        "whole tree skips it; it was searched because path names it."
    )
    assert call(repo, "glob", pattern="**/*", path="build") == (
        '2 files match "**/*" under build:\nbuild/a.txt\nbuild/deep/c.txt\n'
        "Note: build is hidden by the ignore rule .gitignore:2: build/, so a search of the "
        "whole tree skips it; it was listed because path names it."
    )


def test_the_typed_result_carries_the_counts_and_the_rules(repo: Path) -> None:
    result = Workspace(repo).grep("needle", path="build")
    assert result.skipped.ignored_by_rules == 0
    assert result.path_ignored_by is not None
    assert result.path_ignored_by.to_dict() == {
        "file": ".gitignore",
        "line": 2,
        "rule": "build/",
        "hidden": 1,
    }
    whole = Workspace(repo).glob("**/*").to_dict()
    assert whole["skipped"]["ignored_by_rules"] == 4
    assert [(r["file"], r["line"], r["hidden"]) for r in whole["hidden_by"]] == [
        (".gitignore", 4, 2),
        (".gitignore", 2, 1),
        ("src/.gitignore", 1, 1),
    ]
    assert whole["path_ignored_by"] is None


def test_odd_ignore_file_names_are_quoted(make_tree) -> None:
    root = make_tree({"v:12/.ignore": "*.tmp\n", "v:12/x.tmp": "needle\n"})
    assert call(root, "grep", pattern="needle").splitlines()[1] == (
        'Hidden by ignore rules: 1 file or directory, most by "v:12/.ignore":1: *.tmp (1). '
        "Pass include_ignored=true to search them too."
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the index watches with inotify")
def test_the_warm_workspace_says_the_same(repo: Path) -> None:
    for tool, arguments in [
        ("grep", {"pattern": "needle"}),
        ("grep", {"pattern": "needle", "path": "src"}),
        ("glob", {"pattern": "**/*.txt"}),
        ("grep", {"pattern": "needle", "max_depth": 1}),
    ]:
        assert call(repo, tool, index=True, **arguments) == call(repo, tool, **arguments)
