"""glob through `ripsight.Workspace`: every Python keyword, and every keyword of the `Workspace`
constructor, reaches the engine.

What glob lists (pattern syntax, order, paging, hints, ignore, skip and deny rules, time budgets,
determinism) is the engine's and lives in rust_core/tests/walk.rs; links and paths that leave the
root in rust_core/tests/boundary.rs. The text a model reads is in test_formatting.py, the
exception classes in test_errors.py, the result classes in test_records.py.
"""

from __future__ import annotations

import os
import time

import pytest
from ripsight import InvalidArgumentError, Workspace

NAMES = [f"f{i:03d}.txt" for i in range(250)]


def test_every_glob_keyword_reaches_the_engine(make_tree) -> None:
    root = make_tree({**{n: "" for n in NAMES}, "src/a.py": "", "src/b.py": ""})
    ws = Workspace(root)
    default = ws.glob("*.txt")
    assert default.paths == NAMES[:200]  # DEFAULT_LIMITS.glob_limit
    assert (default.total, default.withheld) == (250, 50)
    assert ws.glob("*.txt", limit=None).paths == NAMES
    page = ws.glob("*.txt", limit=7, offset=10)
    assert (page.paths, page.offset, page.withheld) == (NAMES[10:17], 10, 233)
    # `path` as a relative str, an absolute str and a PathLike.
    for path in ("src", os.path.join(ws.root, "src"), root / "src"):
        scoped = ws.glob("*.py", path=path)
        assert (scoped.paths, scoped.searched) == (["src/a.py", "src/b.py"], "src")
    now = time.time()
    os.utime(root / "src" / "a.py", (now - 100, now - 100))
    assert ws.glob("*.py", path="src", sort="mtime").paths == ["src/b.py", "src/a.py"]
    assert ws.glob("*.py", path="src", sort="path").paths == ["src/a.py", "src/b.py"]
    with pytest.raises(InvalidArgumentError, match='sort must be "path" or "mtime"'):
        ws.glob("*.py", sort="size")  # type: ignore[arg-type]


def test_every_workspace_keyword_reaches_the_engine(make_tree) -> None:
    root = make_tree(
        {
            "node_modules/a.js": "",
            "build/b.js": "",
            "c.js": "",
            ".env": "",
            "scratch/d.js": "",
            ".ignore": "scratch/\n",
        }
    )
    default = Workspace(root).glob("**/*")
    assert default.paths == [".ignore", "build/b.js", "c.js"]
    custom = Workspace(
        root,
        exclude_dirs=("build",),
        deny=["*.js"],
        respect_ignore_files=False,
        threads=1,
        time_budget=30.0,
    ).glob("**/*")
    assert custom.paths == [".env", ".ignore"]
    assert custom.skipped.denied == 3 and not custom.incomplete
    # A float budget below a microsecond is taken as such: the walk stops at once.
    assert Workspace(root, time_budget=1e-9).glob("**/*").incomplete
    with pytest.raises(InvalidArgumentError, match="threads must be at least 0"):
        Workspace(root, threads=-1)


def test_the_rich_tree_lists_what_the_shared_listing_says(
    rich_tree, rich_tree_no_git, rich_facts
) -> None:
    # The listing is one data file, read by cargo's copy of the tree too (common/rich.rs).
    listed = Workspace(rich_tree).glob("**/*", limit=None).paths
    assert listed == sorted(rich_facts.listed_in_git)
    outside_git = Workspace(rich_tree_no_git).glob("**/*", limit=None).paths
    assert outside_git == sorted(rich_facts.listed_in_git | rich_facts.gitignored)
