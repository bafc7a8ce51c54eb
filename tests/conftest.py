"""Shared pytest fixtures: file trees generated on the fly, and the ripgrep oracle.

Fixtures (all trees live under pytest's tmp dirs and are deleted by pytest):

- ``make_tree(files, root=None, git=False)``: a factory (session-scoped, so module fixtures can
  use it). ``files`` maps relative paths to ``str`` (written as UTF-8) or ``bytes``; returns the
  root ``Path``. ``git=True`` runs ``git init`` there first (a bare ``.git/`` directory when git
  is not installed).
- ``rg``: the path of the ripgrep binary from PyPI ``ripgrep<15`` (skips the test when absent).

Trees are deterministic: the same call always writes the same bytes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

Content = str | bytes


def write_files(root: Path, files: Mapping[str, Content]) -> Path:
    """Writes `files` (relative path -> str or bytes) under `root`, creating directories."""
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            path.write_bytes(content.encode("utf-8"))
        else:
            path.write_bytes(content)
    return root


def git_init(root: Path) -> None:
    """Makes `root` a git repository (what the ignore rules look for is the `.git` directory)."""
    if shutil.which("git"):
        subprocess.run(
            ["git", "init", "-q", str(root)],
            check=True,
            env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"},
            timeout=60,
        )
    else:
        (root / ".git").mkdir(exist_ok=True)


@pytest.fixture(scope="session")
def make_tree(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """Factory: ``make_tree({"a.py": "x"}, git=True) -> Path`` of a fresh root."""

    def make(files: Mapping[str, Content], root: Path | None = None, git: bool = False) -> Path:
        if root is None:
            root = tmp_path_factory.mktemp("tree")
        root.mkdir(parents=True, exist_ok=True)
        if git:
            git_init(root)
        return write_files(root, files)

    return make


def ripgrep_path() -> str | None:
    """The `rg` binary installed by PyPI `ripgrep<15`: in this interpreter's scripts directory,
    or the base interpreter's (inside a venv created with --system-site-packages)."""
    candidates = [
        os.path.join(sysconfig.get_path("scripts"), "rg"),
        os.path.join(
            sysconfig.get_path(
                "scripts", vars={"base": sys.base_prefix, "platbase": sys.base_prefix}
            ),
            "rg",
        ),
    ]
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


@pytest.fixture(scope="session")
def rg() -> str:
    """Path of the ripgrep binary; the test is skipped when it is not installed."""
    path = ripgrep_path()
    if path is None:
        pytest.skip("ripgrep is not installed (pip install 'ripgrep<15')")
    return path
