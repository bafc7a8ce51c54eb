"""grep through `ripsight.Workspace`: options, modes, paging, encodings, binary files, deny rules,
line windows, determinism and bounds."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from ripsight import Workspace
from ripsight.errors import (
    DeniedError,
    OutsideRootError,
    PathNotFoundError,
    PatternError,
    SpecialFileError,
    model_text,
)


def rendered(result) -> list[str]:
    """`path:line:text` for matches, `path-line-text` for context lines, as the model sees them."""
    out = []
    for line in result.lines:
        sep = ":" if line.is_match else "-"
        out.append(f"{line.path}{sep}{line.line}{sep}{line.text}")
    return out


def locations(result) -> list[str]:
    return [f"{m.path}:{m.line}" for m in result.matches]


CODE_TREE = {
    "a.py": "import os\n\ndef alpha():\n    return os.getcwd()\n",
    "b/beta.py": "def beta():\n    pass\n\n\ndef Beta_two():\n    pass\n",
    "b/c/gamma.rs": "fn gamma() {}\n// def in a comment\n",
    "notes.md": "Define things (carefully).\nA.B.C literal dots\n",
}


@pytest.fixture
def code_ws(make_tree) -> Workspace:
    return Workspace(make_tree(CODE_TREE))


def test_content_ordered_by_path_then_line(code_ws: Workspace) -> None:
    result = code_ws.grep(r"def \w+", limit=None)
    assert locations(result) == ["a.py:3", "b/beta.py:1", "b/beta.py:5", "b/c/gamma.rs:2"]
    assert result.matches[0].text == "def alpha():"
    assert (result.total_matches, result.total_files, result.withheld) == (4, 3, 0)
    assert result.files_searched == 4


def test_literal_and_case_insensitive(code_ws: Workspace) -> None:
    assert locations(code_ws.grep("A.B.C", literal=True)) == ["notes.md:2"]
    assert code_ws.grep("(carefully)", literal=True).total_matches == 1
    assert code_ws.grep("def beta", case_insensitive=True).total_matches == 2
    assert code_ws.grep("def beta").total_matches == 1
    assert code_ws.grep("^def", limit=None).total_matches == 3
    assert code_ws.grep(r":$", limit=None).total_matches == 3


def test_invalid_regex_raises_pattern_error_with_advice(code_ws: Workspace) -> None:
    with pytest.raises(PatternError) as info:
        code_ws.grep("alpha(")
    assert "literal=true" in model_text(info.value)
    with pytest.raises(PatternError) as info:
        code_ws.grep(r"alpha\nbeta")
    assert "multiline=true" in model_text(info.value)
    with pytest.raises(PatternError):
        code_ws.grep("x", glob="[oops")


def test_glob_filter_like_rg_g(code_ws: Workspace) -> None:
    assert {m.path for m in code_ws.grep("def", glob="*.py", limit=None).matches} == {
        "a.py",
        "b/beta.py",
    }
    assert locations(code_ws.grep("def", glob="b/*.py", limit=None)) == [
        "b/beta.py:1",
        "b/beta.py:5",
    ]
    assert locations(code_ws.grep("def", glob="b/**/*.rs")) == ["b/c/gamma.rs:2"]
    assert {m.path for m in code_ws.grep("def", glob="*.{rs,md}", limit=None).matches} == {
        "b/c/gamma.rs"
    }
    assert {m.path for m in code_ws.grep("(?i)def", glob="!*.py", limit=None).matches} == {
        "b/c/gamma.rs",
        "notes.md",
    }


def test_glob_filter_never_reincludes_ignored_or_denied(rich_tree: Path, rich_facts) -> None:
    ws = Workspace(rich_tree)
    assert ws.grep("needle", glob="*.log").total_matches == 0
    assert ws.grep("needle", glob="generated/junk.py").total_matches == 0
    assert ws.grep("needle", glob="node_modules/**").total_matches == 0
    assert ws.grep("API_KEY", glob=".env").total_matches == 0
    assert ws.grep(rich_facts.secret, glob="*.pem").total_matches == 0


def test_path_may_be_a_directory_or_a_file(code_ws: Workspace) -> None:
    assert locations(code_ws.grep("def", path="b", limit=None)) == [
        "b/beta.py:1",
        "b/beta.py:5",
        "b/c/gamma.rs:2",
    ]
    assert locations(code_ws.grep("def", path="b/beta.py", limit=None)) == [
        "b/beta.py:1",
        "b/beta.py:5",
    ]
    with pytest.raises(PathNotFoundError):
        code_ws.grep("def", path="nope.py")


def test_context_lines_merge_each_line_once(make_tree) -> None:
    body = "".join(f"line {i}\n" for i in range(1, 21))
    ws = Workspace(make_tree({"f.txt": body}))
    result = ws.grep(r"line (5|7|15)$", context=2)
    assert rendered(result) == [
        "f.txt-3-line 3",
        "f.txt-4-line 4",
        "f.txt:5:line 5",
        "f.txt-6-line 6",
        "f.txt:7:line 7",
        "f.txt-8-line 8",
        "f.txt-9-line 9",
        "f.txt-13-line 13",
        "f.txt-14-line 14",
        "f.txt:15:line 15",
        "f.txt-16-line 16",
        "f.txt-17-line 17",
    ]
    assert len(result.matches) == 3 and result.total_matches == 3


def test_multiline(make_tree) -> None:
    ws = Workspace(make_tree({"m.rs": "struct A {\n    x: u8,\n}\nstruct B;\n"}))
    result = ws.grep(r"struct A \{\n\s+x", multiline=True)
    assert rendered(result) == ["m.rs:1:struct A {", "m.rs:2:    x: u8,"]
    assert ws.grep(r"(?s)struct A.*\}", multiline=True).total_matches == 3
    assert ws.grep("struct", multiline=True, limit=None).total_matches == 2


def test_output_modes(code_ws: Workspace) -> None:
    files = code_ws.grep("def", output_mode="files_with_matches")
    assert files.lines == []
    assert [f.path for f in files.files] == ["a.py", "b/beta.py", "b/c/gamma.rs"]
    counts = code_ws.grep("def", output_mode="count")
    assert [(f.path, f.count) for f in counts.files] == [
        ("a.py", 1),
        ("b/beta.py", 2),
        ("b/c/gamma.rs", 1),
    ]
    assert (counts.total_matches, counts.total_files) == (4, 3)
    paged = code_ws.grep("def", output_mode="files_with_matches", limit=1, offset=1)
    assert [f.path for f in paged.files] == ["b/beta.py"]
    assert (paged.withheld, paged.offset) == (1, 1)


def test_paging_counts_matching_lines_and_totals_are_exact(make_tree) -> None:
    files = {
        f"d{i % 4}/f{i:03d}.txt": "".join(f"hit {i} {j}\nmiss\n" for j in range(i % 5 + 1))
        for i in range(60)
    }
    ws = Workspace(make_tree(files))
    everything = locations(ws.grep("hit", limit=None))
    total = len(everything)
    assert total == sum(i % 5 + 1 for i in range(60))
    default = ws.grep("hit")
    assert locations(default) == everything[:50]
    assert (default.total_matches, default.withheld, default.total_files) == (total, total - 50, 60)
    for offset, limit in [(0, 1), (7, 13), (150, 50), (total - 3, 10), (total + 5, 10)]:
        page = ws.grep("hit", offset=offset, limit=limit, context=1)
        assert locations(page) == everything[offset : offset + limit]
        assert page.withheld == max(0, total - offset - limit)
        assert page.total_matches == total


def test_binary_files_skipped_and_counted(rich_tree: Path) -> None:
    result = Workspace(rich_tree).grep("needle", limit=None)
    paths = {m.path for m in result.matches}
    assert "data/early.bin" not in paths
    assert "data/late.bin" not in paths  # its first 20,000 lines match before the NUL
    assert result.skipped.binary == 2


def test_utf16_invalid_utf8_and_crlf(rich_tree: Path) -> None:
    ws = Workspace(rich_tree)
    assert rendered(ws.grep("needle", path="text/utf16.txt")) == [
        "text/utf16.txt:2:utf16 needle here"
    ]
    latin1 = ws.grep("needle", path="text/latin1.txt")
    assert rendered(latin1) == ["text/latin1.txt:1:caf\ufffd needle \ufffd"]
    crlf = ws.grep("needle here;$", path="text")
    assert rendered(crlf) == ["text/crlf.txt:2:needle here;"]


def test_long_line_late_match_shows_a_window(rich_tree: Path) -> None:
    result = Workspace(rich_tree).grep("LATE_NEEDLE")
    [line] = result.matches
    assert line.path == "text/long.txt" and line.line == 1
    assert "LATE_NEEDLE" in line.text
    assert line.cut
    assert len(line.text) <= 120
    assert line.text.startswith("…") and line.text.endswith("…")


def test_long_line_early_match_shows_the_head(make_tree) -> None:
    ws = Workspace(make_tree({"w.txt": "needle " + "é" * 500 + "\n"}))
    [line] = ws.grep("needle").matches
    assert line.text.startswith("needle é") and line.text.endswith("…")
    assert len(line.text) == 120 and line.cut


def test_secrets_never_reach_grep(rich_tree: Path, rich_facts) -> None:
    ws = Workspace(rich_tree)
    for kwargs in [
        {},
        {"literal": True},
        {"output_mode": "count"},
        {"glob": "*"},
        {"path": "certs"},
    ]:
        result = ws.grep(rich_facts.secret, limit=None, **kwargs)
        assert result.total_matches == 0
        assert rich_facts.secret not in repr([line.text for line in result.lines])
    assert ws.grep("API_KEY").total_matches == 0
    with pytest.raises(DeniedError):
        ws.grep("API_KEY", path=".env")
    with pytest.raises(DeniedError):
        ws.grep(rich_facts.secret, path="certs/server.pem")


def test_symlinked_secret_is_not_searched(make_tree, rich_facts) -> None:
    root = make_tree({".env": f"TOKEN={rich_facts.secret}\n", "ok.txt": "fine\n"})
    (root / "notes.txt").symlink_to(root / ".env")
    ws = Workspace(root)
    result = ws.grep("TOKEN", limit=None)
    assert result.total_matches == 0
    # `.env` is denied; the link is not followed by the walk, and named explicitly it is denied
    # because the file it opens is.
    assert (result.skipped.denied, result.skipped.symlink) == (1, 1)
    with pytest.raises(DeniedError):
        ws.grep("TOKEN", path="notes.txt")


def test_symlinks_outside_are_not_followed(rich_tree: Path) -> None:
    result = Workspace(rich_tree).grep("needle outside", limit=None)
    assert result.total_matches == 0
    assert (result.skipped.symlink, result.skipped.outside_root) == (4, 0)
    inside = Workspace(rich_tree).grep("kept tmp", limit=None)
    assert locations(inside) == ["src/sub/keep.tmp:1"]


def test_ignore_rules_apply(rich_tree: Path, rich_tree_no_git: Path) -> None:
    in_git = {m.path for m in Workspace(rich_tree).grep("needle", limit=None).matches}
    assert "generated/junk.py" not in in_git and "app.log" not in in_git
    assert "generated/api.py" in in_git and "generated/keep.py" in in_git
    assert "scratch/notes.txt" not in in_git and "node_modules/pkg/index.js" not in in_git
    no_git = {m.path for m in Workspace(rich_tree_no_git).grep("needle", limit=None).matches}
    assert {"generated/junk.py", "app.log"} <= no_git
    assert "scratch/notes.txt" not in no_git
    unfiltered = Workspace(rich_tree, respect_ignore_files=False).grep("needle", limit=None)
    assert "scratch/notes.txt" in {m.path for m in unfiltered.matches}


@pytest.mark.parametrize(
    "path",
    [
        "..",
        "../outside/secret.txt",
        "../repo-old",
        "links/outside",
        "links/outside_file.txt",
        "/etc/passwd",
    ],
)
def test_path_escapes_raise_outside_root(rich_tree: Path, path: str) -> None:
    with pytest.raises(OutsideRootError):
        Workspace(rich_tree).grep("needle", path=path)


def test_absolute_sibling_with_shared_prefix_is_outside(rich_tree: Path) -> None:
    with pytest.raises(OutsideRootError):
        Workspace(rich_tree).grep("needle", path=str(rich_tree.parent / "repo-old"))


def test_identical_output_over_20_runs(many_files_tree: Path) -> None:
    ws = Workspace(many_files_tree)
    result = ws.grep(r"needle \d*7$", context=1, limit=None)
    assert len(result.matches) == result.total_matches == 300
    first = rendered(result)
    for _ in range(20):
        assert rendered(ws.grep(r"needle \d*7$", context=1, limit=None)) == first
    paged = rendered(ws.grep("needle", offset=1234, limit=20))
    for _ in range(20):
        assert rendered(ws.grep("needle", offset=1234, limit=20)) == paged


def test_time_budget_expiry_returns_partial_marked_incomplete(many_files_tree: Path) -> None:
    result = Workspace(many_files_tree, time_budget=1e-6).grep("needle", limit=None)
    assert result.incomplete
    assert result.total_matches < 3000
    complete = Workspace(many_files_tree).grep("needle")
    assert not complete.incomplete and complete.total_matches == 3000


def test_an_explicit_path_through_an_in_root_link_is_searched_under_its_real_path(
    rich_tree: Path,
) -> None:
    ws = Workspace(rich_tree)
    assert locations(ws.grep("needle", path="links/src_link", glob="*.py")) == [
        "src/app.py:5",
        "src/util.py:2",
    ]
    assert locations(ws.grep("needle", path="links/src_link/util.py")) == ["src/util.py:2"]


def test_empty_pattern_matches_every_line(make_tree) -> None:
    ws = Workspace(make_tree({"a.txt": "one\n\nthree\n"}))
    assert ws.grep("").total_matches == 3


def test_fifo_is_counted_and_never_opened(make_tree) -> None:
    root = make_tree({"a.txt": "needle\n"})
    os.mkfifo(root / "pipe")
    ws = Workspace(root)
    result = ws.grep("needle")
    assert result.total_matches == 1 and result.skipped.special == 1
    with pytest.raises(SpecialFileError):
        ws.grep("needle", path="pipe")
