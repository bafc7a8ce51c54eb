"""An explicit --root confines every command, whatever its spelling: `.`, `..` and `sub/` as
much as an absolute path. Only with no --root given does a path elsewhere become the root (as rg
searches the directory it is given)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from _cli_helpers import run_ripsight

#: Text of the file outside the root: it must never be printed.
MARKER = "OUTSIDE_MARKER_7f3a"


def ripsight(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_ripsight(*args, cwd=cwd)


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """base/out/secret.c (outside), base/tree/sub/a.c, and in tree and tree/sub a directory
    link and a file link to base/out."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "secret.c").write_text(f"int {MARKER}(void) {{ return kmalloc(1); }}\n")
    sub = tmp_path / "tree" / "sub"
    sub.mkdir(parents=True)
    (sub / "a.c").write_text("int inside(void) { return 1; }\n")
    for where in (tmp_path / "tree", sub):
        (where / "dirlink").symlink_to(out, target_is_directory=True)
        (where / "filelink.c").symlink_to(out / "secret.c")
    return tmp_path


#: (command, what it is given before the path, whether the path is a file).
COMMANDS = [
    ("read", [], True),
    ("outline", [], True),
    ("glob", ["*"], False),
    ("grep", [MARKER], False),
    ("defs", [MARKER], False),
    ("refs", ["kmalloc"], False),
    ("calls", [MARKER], False),
    ("map", [], False),
]

#: (--root as given, the directory the command runs in, relative to base/tree).
ROOTS = [(".", "."), ("..", "sub"), ("sub/", "."), ("./sub", ".")]


def _outside_paths(base: Path, root: Path, is_file: bool) -> list[str]:
    """An absolute outside path, a ../ path and a symlink inside the root that leads out."""
    target = base / "out" / "secret.c" if is_file else base / "out"
    return [
        str(target),
        os.path.relpath(target, root),
        "filelink.c" if is_file else "dirlink",
    ]


@pytest.mark.parametrize(("given", "cwd"), ROOTS)
@pytest.mark.parametrize(("command", "before", "is_file"), COMMANDS, ids=[c[0] for c in COMMANDS])
def test_an_explicit_relative_root_confines(
    base: Path, given: str, cwd: str, command: str, before: list[str], is_file: bool
) -> None:
    here = base / "tree" / cwd
    root = (here / given).resolve()
    for path in _outside_paths(base, root, is_file):
        done = ripsight(command, *before, path, "--root", given, cwd=here)
        assert done.returncode == 2, (path, done.stdout, done.stderr)
        assert done.stdout == "", (path, done.stdout)
        assert MARKER not in done.stderr
        assert done.stderr.startswith(f"ripsight {command}: "), done.stderr
        assert "is outside the workspace root" in done.stderr, done.stderr
        assert f"The root is {root} (--root" in done.stderr, done.stderr


@pytest.mark.parametrize(("command", "before", "is_file"), COMMANDS, ids=[c[0] for c in COMMANDS])
def test_an_absolute_root_confines_the_same(
    base: Path, command: str, before: list[str], is_file: bool
) -> None:
    root = base / "tree"
    for path in _outside_paths(base, root, is_file):
        done = ripsight(command, *before, path, "--root", str(root), cwd=base)
        assert done.returncode == 2 and done.stdout == "", (path, done.stdout)
        assert "is outside the workspace root" in done.stderr and MARKER not in done.stderr


@pytest.mark.skipif(not os.path.isfile("/etc/hostname"), reason="no /etc/hostname here")
def test_the_reported_read_is_refused(base: Path) -> None:
    done = ripsight("read", "/etc/hostname", "--root", ".", cwd=base / "tree")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("ripsight read: /etc/hostname is outside the workspace root")


def test_without_a_root_a_path_elsewhere_is_still_its_own_root(base: Path) -> None:
    done = ripsight("grep", MARKER, str(base / "out"), cwd=base / "tree")
    assert done.returncode == 0, done.stderr
    assert f"secret.c:1:int {MARKER}" in done.stdout
