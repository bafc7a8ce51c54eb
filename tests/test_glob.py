"""glob through `ripsight.Workspace`: syntax, order, paging, hints, ignore/deny rules, bounds."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from ripsight import Workspace
from ripsight.errors import (
    NotADirectoryPathError,
    OutsideRootError,
    PathNotFoundError,
    PatternError,
    model_text,
)

SYNTAX_TREE = {
    "a.py": "",
    "b.py": "",
    "a1.txt": "",
    "a2.txt": "",
    "a10.txt": "",
    "x.ts": "",
    "x.tsx": "",
    "x.js": "",
    "src/m.c": "",
    "src/m.h": "",
    "src/m.o": "",
    "src/deep/er/z.py": "",
    "src/deep/y.py": "",
    "tests/test_a.py": "",
}


@pytest.fixture
def syntax_ws(make_tree) -> Workspace:
    return Workspace(make_tree(SYNTAX_TREE))


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("*.py", ["a.py", "b.py"]),
        ("**/*.py", ["a.py", "b.py", "src/deep/er/z.py", "src/deep/y.py", "tests/test_a.py"]),
        ("src/**/*.py", ["src/deep/er/z.py", "src/deep/y.py"]),
        ("src/*/*.py", ["src/deep/y.py"]),
        ("src/**", ["src/deep/er/z.py", "src/deep/y.py", "src/m.c", "src/m.h", "src/m.o"]),
        ("a?.txt", ["a1.txt", "a2.txt"]),
        ("a??.txt", ["a10.txt"]),
        ("*.{ts,tsx}", ["x.ts", "x.tsx"]),
        ("src/m.[ch]", ["src/m.c", "src/m.h"]),
        ("src/m.[!ch]", ["src/m.o"]),
        ("**/test_*.py", ["tests/test_a.py"]),
        ("./*.js", ["x.js"]),
        ("src/", ["src/deep/er/z.py", "src/deep/y.py", "src/m.c", "src/m.h", "src/m.o"]),
        ("*.rs", []),
        # `**.py` is read as the `**/*.py` it is a slip for.
        ("**.py", ["a.py", "b.py", "src/deep/er/z.py", "src/deep/y.py", "tests/test_a.py"]),
    ],
)
def test_glob_syntax(syntax_ws: Workspace, pattern: str, expected: list[str]) -> None:
    result = syntax_ws.glob(pattern, limit=None)
    assert result.paths == expected
    assert result.total == len(expected)


def test_star_never_crosses_a_slash(syntax_ws: Workspace) -> None:
    assert "src/deep/y.py" not in syntax_ws.glob("src/*.py", limit=None).paths
    assert syntax_ws.glob("*", limit=None).paths == sorted(p for p in SYNTAX_TREE if "/" not in p)


def test_invalid_glob_raises_pattern_error_with_help(syntax_ws: Workspace) -> None:
    with pytest.raises(PatternError) as info:
        syntax_ws.glob("src/[ab")
    assert "**/*.py" in model_text(info.value)
    with pytest.raises(PatternError):
        syntax_ws.glob("")


def test_path_scopes_the_search_and_results_stay_root_relative(syntax_ws: Workspace) -> None:
    result = syntax_ws.glob("*.py", path="src/deep")
    assert result.paths == ["src/deep/y.py"]
    assert result.searched == "src/deep"
    assert syntax_ws.glob("**/*.py", path="src").paths == ["src/deep/er/z.py", "src/deep/y.py"]
    absolute = os.path.join(syntax_ws.root, "src")
    assert syntax_ws.glob("*.c", path=absolute).paths == ["src/m.c"]


def test_sort_by_mtime_newest_first_ties_by_path(make_tree) -> None:
    root = make_tree({"old.txt": "", "new.txt": "", "tie_b.txt": "", "tie_a.txt": ""})
    now = time.time()
    for name, age in [("old.txt", 500), ("new.txt", 10), ("tie_a.txt", 100), ("tie_b.txt", 100)]:
        os.utime(root / name, (now - age, now - age))
    ws = Workspace(root)
    assert ws.glob("*.txt", sort="mtime").paths == ["new.txt", "tie_a.txt", "tie_b.txt", "old.txt"]
    assert ws.glob("*.txt", sort="path").paths == ["new.txt", "old.txt", "tie_a.txt", "tie_b.txt"]
    page = ws.glob("*.txt", sort="mtime", limit=2, offset=1)
    assert page.paths == ["tie_a.txt", "tie_b.txt"]
    assert (page.total, page.withheld) == (4, 1)


def test_paging_with_limit_offset_and_withheld(make_tree) -> None:
    names = [f"f{i:03d}.txt" for i in range(250)]
    ws = Workspace(make_tree({n: "" for n in names}))
    first = ws.glob("*.txt")
    assert first.paths == names[:200]
    assert (first.total, first.offset, first.withheld) == (250, 0, 50)
    second = ws.glob("*.txt", offset=200)
    assert second.paths == names[200:]
    assert (second.total, second.offset, second.withheld) == (250, 200, 0)
    middle = ws.glob("*.txt", limit=7, offset=10)
    assert middle.paths == names[10:17]
    assert middle.withheld == 250 - 17
    past = ws.glob("*.txt", offset=1000)
    assert past.paths == [] and past.total == 250 and past.withheld == 0
    assert ws.glob("*.txt", limit=None).paths == names


def test_empty_result_reports_files_in_scope(syntax_ws: Workspace) -> None:
    result = syntax_ws.glob("*.go")
    assert result.paths == []
    assert result.files_in_scope == len(SYNTAX_TREE)
    assert syntax_ws.glob("*.go", path="src").files_in_scope == 5
    assert syntax_ws.glob("*.py").files_in_scope is None


def test_anywhere_hint_for_slash_free_pattern_that_found_little(make_tree) -> None:
    files = {f"pkg/m{i}.rs": "" for i in range(30)}
    files["top.rs"] = ""
    ws = Workspace(make_tree(files))
    result = ws.glob("*.rs")
    assert result.paths == ["top.rs"]
    assert (result.anywhere_pattern, result.anywhere_total) == ("**/*.rs", 31)
    # A pattern with a slash, or one that finds nothing more anywhere, gets no hint.
    assert ws.glob("pkg/*.rs").anywhere_pattern is None
    assert ws.glob("top.*").anywhere_pattern is None
    none_here = ws.glob("*.rs", path="pkg")
    assert none_here.total == 30 and none_here.anywhere_pattern is None


def test_anywhere_hint_not_given_when_pattern_found_enough(make_tree) -> None:
    files = {f"m{i}.rs": "" for i in range(6)}
    files.update({f"deep/n{i}.rs": "" for i in range(50)})
    result = Workspace(make_tree(files)).glob("*.rs")
    assert result.total == 6
    assert result.anywhere_pattern is None


def test_literal_leading_directory_prunes_the_walk(make_tree) -> None:
    root = make_tree(
        {
            "src/a.rs": "",
            "src/x/b.rs": "",
            "other/c.rs": "",
            "vendor/d.rs": "",
            ".ignore": "vendor/\n",
        }
    )
    ws = Workspace(root)
    pruned = ws.glob("src/**/*.rs")
    assert pruned.paths == ["src/a.rs", "src/x/b.rs"]
    assert pruned.searched == "src"
    # Pruning never changes the answer: an ignored leading directory stays ignored.
    ignored = ws.glob("vendor/**/*.rs")
    assert ignored.paths == [] and ignored.searched == ""
    # A missing leading directory: an empty answer counting the whole search directory.
    missing = ws.glob("nope/**/*.rs")
    assert missing.paths == [] and missing.files_in_scope == 4  # vendor/d.rs is ignored


def test_ignore_rules_inside_git(rich_tree: Path, rich_facts) -> None:
    result = Workspace(rich_tree).glob("**/*", limit=None)
    assert set(result.paths) == rich_facts.listed_in_git
    assert result.paths == sorted(result.paths)
    # node_modules and .git are pruned skip-set directories.
    assert result.skipped.ignored == 2
    # links/: src_link, outside, outside_file.txt and loop, none followed.
    assert (result.skipped.symlink, result.skipped.outside_root) == (4, 0)
    assert (result.skipped.denied, result.skipped.unreadable) == (2, 0)


def test_gitignore_ignored_outside_git_but_dot_ignore_applies(
    rich_tree_no_git: Path, rich_facts
) -> None:
    result = Workspace(rich_tree_no_git).glob("**/*", limit=None)
    assert set(result.paths) == rich_facts.listed_in_git | rich_facts.gitignored
    assert "scratch/notes.txt" not in result.paths


def test_root_gitignore_star_outside_git_hides_nothing(make_tree) -> None:
    # Debian's kernel tarball ships a root .gitignore of `/*`.
    root = make_tree({".gitignore": "/*\n", "kernel/sched.c": "", "Makefile": ""})
    assert Workspace(root).glob("**/*").paths == [".gitignore", "Makefile", "kernel/sched.c"]
    (root / ".git").mkdir()
    assert Workspace(root).glob("**/*").paths == []


def test_ripsightignore_reincludes_and_respect_ignore_files_off(rich_tree: Path) -> None:
    ws = Workspace(rich_tree)
    assert ws.glob("generated/*").paths == ["generated/api.py", "generated/keep.py"]
    everything = Workspace(rich_tree, respect_ignore_files=False).glob("**/*", limit=None)
    assert {"generated/junk.py", "scratch/notes.txt", "app.log"} <= set(everything.paths)
    assert not any(p.startswith("node_modules/") for p in everything.paths)


def test_hidden_files_listed(rich_tree: Path) -> None:
    ws = Workspace(rich_tree)
    assert ws.glob(".github/workflows/*.yml").paths == [".github/workflows/ci.yml"]
    assert ws.glob("**/*.yml").paths == [".github/workflows/ci.yml"]


def test_exclude_dirs_option(make_tree) -> None:
    root = make_tree({"node_modules/a.js": "", "dist/b.js": "", "build/c.js": "", "d.js": ""})
    assert Workspace(root).glob("**/*.js").paths == ["build/c.js", "d.js"]
    custom = Workspace(root, exclude_dirs=["build"])
    assert custom.glob("**/*.js").paths == ["d.js", "dist/b.js", "node_modules/a.js"]


def test_denied_files_never_listed(rich_tree: Path, rich_facts) -> None:
    ws = Workspace(rich_tree)
    for pattern in ["**/*", ".env", "**/*.pem", "certs/*", "**/.env*"]:
        result = ws.glob(pattern, limit=None)
        assert ".env" not in result.paths
        assert not any(p.endswith(".pem") for p in result.paths)
        assert rich_facts.secret not in repr(result.paths)
    custom = Workspace(rich_tree, deny=["*.py"])
    assert not any(p.endswith(".py") for p in custom.glob("**/*", limit=None).paths)
    assert ".env" in custom.glob("**/*", limit=None).paths


def test_walks_count_links_and_an_explicit_link_path_lists_the_real_files(rich_tree: Path) -> None:
    ws = Workspace(rich_tree)
    through_walk = ws.glob("links/**/*.py")
    assert through_walk.paths == []
    assert through_walk.skipped.symlink == 4
    # Passed as `path`, an in-root link is resolved: its files are listed under their real path.
    assert ws.glob("*", path="links/src_link").paths == ["src/app.py", "src/util.py"]


@pytest.mark.parametrize(
    "path",
    ["..", "../outside", "../repo-old", "links/outside", "/etc", "src/../../repo-old"],
)
def test_path_escapes_raise_outside_root(rich_tree: Path, path: str) -> None:
    with pytest.raises(OutsideRootError):
        Workspace(rich_tree).glob("*", path=path)


def test_absolute_sibling_with_shared_prefix_is_outside(rich_tree: Path) -> None:
    sibling = str(rich_tree.parent / "repo-old")
    assert sibling.startswith(str(rich_tree))
    with pytest.raises(OutsideRootError):
        Workspace(rich_tree).glob("*", path=sibling)


def test_path_errors(rich_tree: Path) -> None:
    ws = Workspace(rich_tree)
    with pytest.raises(PathNotFoundError):
        ws.glob("*", path="no/such/dir")
    with pytest.raises(NotADirectoryPathError):
        ws.glob("*", path="README.md")


def test_time_budget_expiry_returns_partial_marked_incomplete(many_files_tree: Path) -> None:
    result = Workspace(many_files_tree, time_budget=1e-6).glob("**/*.txt", limit=None)
    assert result.incomplete
    assert result.total < 3000
    complete = Workspace(many_files_tree).glob("**/*.txt", limit=10)
    assert not complete.incomplete
    assert complete.total == 3000


def test_results_identical_across_runs(many_files_tree: Path) -> None:
    ws = Workspace(many_files_tree)
    first = ws.glob("**/*.txt", limit=None).paths
    assert first == sorted(first)
    for _ in range(20):
        assert ws.glob("**/*.txt", limit=None).paths == first
