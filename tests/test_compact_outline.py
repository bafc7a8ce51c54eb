"""The compact outline `read_file` adds to a page that stops before a file's end: its three
forms, exactly, and on real long files against universal-ctags (every top-level definition of
the Linux kernel's `kernel/fork.c`, and the share of ctags' function names shown on long C,
Python and Java files, within `read_outline_share` of the default budget). The figures are in
docs/outline-oracles.md: ``python -m pytest -s tests/test_compact_outline.py``."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sysconfig
import tarfile
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ripsight import Workspace
from ripsight.limits import DEFAULT_LIMITS, LIMITS
from ripsight.tools.outline import compact_outline

#: The outline's share of the default result budget (2,400 characters).
SHARE = int(DEFAULT_LIMITS.max_result_chars * float(LIMITS["read_outline_share"]))


def result(*symbols: tuple[int, int, str, str]) -> SimpleNamespace:
    """An outline result of (line, depth, kind, name) symbols, as the engine returns one."""
    return SimpleNamespace(
        refused=None,
        total=len(symbols),
        symbols=[
            SimpleNamespace(line=line, end_line=line + 1, depth=depth, kind=kind, name=name)
            for line, depth, kind, name in symbols
        ],
    )


MODULE = result(
    (3, 0, "macro", "MAX"),
    (10, 0, "function", "alloc_node"),
    (20, 0, "function", "free_node"),
    (30, 0, "struct", "node"),
    (40, 0, "function", "alloc_node"),
    (50, 0, "class", "Tree"),
    (52, 1, "method", "insert"),
    (60, 1, "method", "remove"),
    (70, 0, "function", "walk"),
)


def test_one_definition_a_row_when_everything_fits() -> None:
    assert compact_outline(MODULE, 300) == (
        "Outline (9 definitions; line, kind, name; call outline for line ranges):\n"
        "     3  macro MAX\n"
        "    10  function alloc_node\n"
        "    20  function free_node\n"
        "    30  struct node\n"
        "    40  function alloc_node\n"
        "    50  class Tree\n"
        "    52    method insert\n"
        "    60    method remove\n"
        "    70  function walk"
    )


def test_names_with_their_lines_when_rows_do_not_fit() -> None:
    # A repeated name (two #ifdef branches) once, with both lines; children in parentheses;
    # the kind's letter only where it changes.
    assert compact_outline(MODULE, 252) == (
        "Outline (9 definitions: name line, (children), kind letter where it changes: "
        "M macro, f function, s struct, c class, m method; call outline for ranges):\n"
        "M MAX 3, f alloc_node 10/40, free_node 20, s node 30, c Tree 50 (m insert 52, "
        "remove 60), f walk 70"
    )


def test_names_after_the_line_of_each_row_when_lines_do_not_fit() -> None:
    assert compact_outline(MODULE, 251) == (
        "Outline (9 definitions: each row's first line, then names, (children), kind letter "
        "where it changes: M macro, f function, s struct, c class, m method; call outline for "
        "lines):\n"
        "     3  M MAX f alloc_node free_node s node c Tree (m insert remove) f walk"
    )


def test_the_first_top_level_names_that_fit_when_the_top_level_does_not() -> None:
    # (The top level with what fits of the nested ones: test_outline.py's read_file of a
    # module of 40 classes.)
    assert compact_outline(MODULE, 240) == (
        "Outline (9 definitions: each row's first line, then names, (children), kind letter "
        "where it changes: M macro, f function, s struct; call outline for lines; 4 nested or "
        "later ones not shown):\n"
        "     3  M MAX f alloc_node free_node s node"
    )
    assert compact_outline(MODULE, 150) is None


symbols = st.lists(
    st.tuples(
        st.integers(1, 10**6),
        st.integers(0, 4),
        st.sampled_from(["function", "class", "method", "macro"]),
        st.from_regex(r"[a-z_]{1,12}", fullmatch=True),
    ),
    min_size=1,
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(symbols=symbols, budget=st.integers(0, 3_000))
def test_any_outline_fits_its_budget_with_balanced_parentheses(symbols, budget) -> None:
    """Whatever the nesting (a first definition deeper than the next, depths that jump), the
    text is within the budget or None, and every parenthesis it opens is closed."""
    text = compact_outline(result(*sorted(symbols)), budget)
    assert text is None or len(text) <= budget
    body = text.split("\n", 1)[1] if text and "\n" in text else ""
    depth = 0
    for char in body:
        depth += (char == "(") - (char == ")")
        assert depth >= 0, text
    assert depth == 0, text


# -- real long files against ctags ---------------------------------------------------------------


def ctags_names(root: Path, files: list[str], language: str, kinds: str) -> dict[str, set[str]]:
    found = shutil.which("ctags")
    if found is None:
        pytest.skip("universal-ctags is not installed (apt-get install universal-ctags)")
    names: dict[str, set[str]] = {}
    for start in range(0, len(files), 200):
        run = subprocess.run(
            [
                found,
                "--output-format=json",
                f"--languages={language}",
                f"--kinds-{language}={kinds}",
                "-f",
                "-",
                *files[start : start + 200],
            ],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=600,
            check=True,
        )
        for line in run.stdout.splitlines():
            tag = json.loads(line)
            if tag.get("_type") == "tag":
                names.setdefault(tag["path"], set()).add(tag["name"])
    return names


def shown_names(text: str) -> set[str]:
    """The words of an outline's rows (its header left out)."""
    return set(re.findall(r"[A-Za-z_$][\w$]*", text.split("\n", 1)[1]))


def coverage(root: Path, files: list[str], language: str, kinds: str) -> tuple[int, int]:
    """ctags' function names in the compact outlines of `files`, and their number; prints
    each file's share."""
    theirs = ctags_names(root, files, language, kinds)
    shown = total = 0
    with Workspace(root, time_budget=600) as ws:
        for relative in files:
            names = theirs.get(relative)
            text = compact_outline(ws.outline(relative, limit=None), SHARE)
            if not names or text is None:
                continue
            found = len(names & shown_names(text))
            shown, total = shown + found, total + len(names)
            print(f"{language} {relative}: {found} of {len(names)} ctags names")
    print(f"{language}: {shown} of {total} ({shown / max(1, total):.1%}) in {len(files)} files")
    return shown, total


def long_files(root: Path, pattern: str) -> list[str]:
    """The files of at least 1,000 lines (tests left out)."""
    found = []
    for path in sorted(root.glob(pattern)):
        if "test" in path.parts or "tests" in path.parts or "site-packages" in path.parts:
            continue
        if path.is_file() and path.read_bytes().count(b"\n") >= 1_000:
            found.append(str(path.relative_to(root)))
    return found


KERNEL_TARBALL = Path("/usr/src/linux-source-6.1.tar.xz")


@pytest.mark.slow
def test_every_top_level_definition_of_kernel_fork_c(tmp_path: Path) -> None:
    if not KERNEL_TARBALL.is_file():
        pytest.skip(f"{KERNEL_TARBALL} is not there (apt-get install linux-source-6.1)")
    member = "linux-source-6.1/kernel/fork.c"
    with tarfile.open(KERNEL_TARBALL) as archive:
        archive.extract(member, tmp_path, filter="data")
    root = tmp_path / "linux-source-6.1"
    with Workspace(root) as ws:
        outline = ws.outline("kernel/fork.c", limit=None)
    text = compact_outline(outline, SHARE)
    assert text is not None and len(text) <= SHARE
    top = {s.name for s in outline.symbols if s.depth == 0}
    assert len(top) > 100 and top <= shown_names(text)
    shown, total = coverage(root, ["kernel/fork.c"], "C", "f")
    assert shown >= total * 0.95


def test_long_python_files_of_the_standard_library() -> None:
    root = Path(sysconfig.get_paths()["stdlib"])
    files = long_files(root, "**/*.py")
    shown, total = coverage(root, files, "Python", "fmc")
    assert total > 5_000 and shown >= total * 0.8


@pytest.mark.slow
def test_long_java_files_of_the_jdk(tmp_path: Path) -> None:
    archives = [p for p in sorted(Path("/usr/lib/jvm").glob("*/lib/src.zip")) if p.is_file()]
    if not archives:
        pytest.skip("no JDK src.zip (apt-get install openjdk-17-source)")
    with zipfile.ZipFile(archives[0]) as archive:
        members = [
            n
            for n in archive.namelist()
            if n.endswith(".java")
            and n.startswith(("java.base/java/util/", "java.base/java/lang/"))
        ]
        archive.extractall(tmp_path, members)
    files = long_files(tmp_path, "java.base/java/**/*.java")
    shown, total = coverage(tmp_path, files, "Java", "m")
    assert total > 3_000 and shown >= total * 0.8
