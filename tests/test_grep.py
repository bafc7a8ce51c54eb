"""grep through `ripsight.Workspace`: every Python keyword reaches the engine.

What grep finds (order, totals, regex and filter semantics, context, modes, paging, encodings,
binary and long lines, ignore and deny rules, time budgets, determinism) is the engine's and
lives in rust_core/tests/grep.rs; links, FIFOs and paths that leave the root in
rust_core/tests/boundary.rs. The text a model reads is in test_formatting.py, the exception
classes in test_errors.py, the result classes in test_records.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from ripsight import InvalidArgumentError, PatternError, Workspace


def shown(result) -> list[str]:
    """Each line as `path:line:text` (a match) or `path-line-text` (context): GrepLine's str."""
    return [str(line) for line in result.lines]


@pytest.fixture
def ws(make_tree) -> Workspace:
    return Workspace(
        make_tree(
            {
                "a.py": "def alpha():\n    pass\nDEF beta\n",
                "b/c.rs": "fn x() {}\n// def gamma(\n",
                "many.txt": "hit\n" * 60,
                "wide.txt": "x" * 100 + " WIDE " + "y" * 100 + "\n",
            }
        )
    )


def test_paging_keywords_reach_the_engine(ws: Workspace) -> None:
    default = ws.grep("hit")
    assert len(default.matches) == 50  # DEFAULT_LIMITS.grep_limit
    assert (default.total_matches, default.withheld) == (60, 10)
    assert len(ws.grep("hit", limit=None).matches) == 60
    page = ws.grep("hit", limit=5, offset=57)
    assert [m.line for m in page.matches] == [58, 59, 60]
    assert (page.offset, page.withheld) == (57, 0)


def test_scope_keywords_reach_the_engine(ws: Workspace) -> None:
    # `path` as a relative str, an absolute str and a PathLike.
    for path in ("b", os.path.join(ws.root, "b"), Path(ws.root) / "b"):
        assert shown(ws.grep("def", path=path)) == ["b/c.rs:2:// def gamma("]
    assert shown(ws.grep("def", glob="*.py")) == ["a.py:1:def alpha():"]
    # A list is rg's repeated -g: the last glob that matches decides.
    assert shown(ws.grep("def", glob=["*", "!*.py"])) == ["b/c.rs:2:// def gamma("]
    with pytest.raises(InvalidArgumentError, match="glob must be a string or a list"):
        ws.grep("def", glob=["*.py", 3])  # type: ignore[list-item]


def test_pattern_keywords_reach_the_engine(ws: Workspace) -> None:
    with pytest.raises(PatternError):
        ws.grep("gamma(")
    assert shown(ws.grep("gamma(", literal=True)) == ["b/c.rs:2:// def gamma("]
    assert ws.grep("def").total_matches == 2
    assert ws.grep("def", case_insensitive=True).total_matches == 3
    assert shown(ws.grep(r"alpha\(\):\n\s+pass", multiline=True)) == [
        "a.py:1:def alpha():",
        "a.py:2:    pass",
    ]


def test_shape_keywords_reach_the_engine(ws: Workspace) -> None:
    assert shown(ws.grep("pass", context=1)) == [
        "a.py-1-def alpha():",
        "a.py:2:    pass",
        "a.py-3-DEF beta",
    ]
    assert shown(ws.grep("pass", context=1, before_context=0)) == [
        "a.py:2:    pass",
        "a.py-3-DEF beta",
    ]
    assert shown(ws.grep("pass", after_context=1)) == ["a.py:2:    pass", "a.py-3-DEF beta"]
    files = ws.grep("(?i)def", output_mode="files_with_matches")
    assert (files.lines, [f.path for f in files.files]) == ([], ["a.py", "b/c.rs"])
    counts = ws.grep("(?i)def", output_mode="count")
    assert [(f.path, f.count) for f in counts.files] == [("a.py", 2), ("b/c.rs", 1)]
    with pytest.raises(InvalidArgumentError, match="output_mode must be one of"):
        ws.grep("def", output_mode="lines")  # type: ignore[arg-type]
    [wide] = ws.grep("WIDE", max_line_chars=20).matches
    assert wide.cut and "WIDE" in wide.text and len(wide.text) <= 20
    [default] = ws.grep("WIDE").matches
    assert 20 < len(default.text) <= 120  # DEFAULT_LIMITS.grep_line_chars
