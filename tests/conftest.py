"""Shared pytest fixtures: file trees generated on the fly, and the ripgrep oracle.

Fixtures (all trees live under pytest's tmp dirs and are deleted by pytest):

- ``make_tree(files, root=None, git=False)``: a factory (session-scoped, so module fixtures can
  use it). ``files`` maps relative paths to ``str`` (written as UTF-8) or ``bytes``; returns the
  root ``Path``. ``git=True`` runs ``git init`` there first (a bare ``.git/`` directory when git
  is not installed).
The rich tree, the many-files tree and their facts serve the suites built on them before the
engine's behaviour moved to cargo tests (rust_core/tests/common/rich.rs builds the same tree);
they stay so that such suites still run against this checkout.

- ``rich_tree`` / ``rich_tree_no_git``: the same rich tree (see :func:`build_rich_tree`) inside a
  git repository and outside one; their ``.parent`` also holds ``outside/`` (a target of
  symlinks leaving the root) and ``repo-old/`` (a sibling sharing the root's name as a prefix).
- ``many_files_tree``: 3,000 small files in nested directories (session-scoped, read-only), for
  time-budget tests.
- ``rich_facts``: what tests assert about the rich tree (``secret``, ``listed_in_git``,
  ``gitignored``), so test modules never import this file (a second ``conftest`` elsewhere on
  ``sys.path`` could shadow it).
- ``rg``: the path of the ripgrep binary from PyPI ``ripgrep<15`` (skips the test when absent).

Trees are deterministic: the same call always writes the same bytes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from types import SimpleNamespace

import pytest

Content = str | bytes


def pytest_configure(config: pytest.Config) -> None:
    """The warm index keeps one file per tree in the user's cache directory: the trees of a
    test session keep theirs in a directory of the session instead, removed at its end (pip
    keeps using the user's own cache)."""
    user_cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    os.environ.setdefault("PIP_CACHE_DIR", os.path.join(user_cache, "pip"))
    cache = tempfile.mkdtemp(prefix="ripsight-test-cache-")
    os.environ["XDG_CACHE_HOME"] = cache
    config.add_cleanup(lambda: shutil.rmtree(cache, ignore_errors=True))


#: The secret that the rich tree hides in `.env` and `certs/server.pem`; it must never appear in
#: any glob or grep result.
SECRET = "sk-ripsight-0123456789"

#: The expected listings of the rich tree, one data file for this suite and cargo's
#: (rust_core/tests/common/rich.rs).
RICH_LISTING = Path(__file__).with_name("data") / "rich_tree_listing.txt"


def rich_listing(name: str) -> frozenset[str]:
    """The paths of the listing's list ``[name]``."""
    paths: dict[str, list[str]] = {}
    current: list[str] | None = None
    for raw in RICH_LISTING.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line.startswith("["):
            current = paths.setdefault(line.strip("[]"), [])
        elif line and not line.startswith("#") and current is not None:
            current.append(line)
    return frozenset(paths[name])


#: Relative paths of the rich tree's files that glob lists with the default options inside git
#: (walks never follow symlinks: `links/` holds four links, counted, none listed).
RICH_LISTED_IN_GIT = rich_listing("listed_in_git")

#: The files that `.gitignore` files hide: listed only outside git.
RICH_GITIGNORED = rich_listing("gitignored")


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


def long_line_text() -> str:
    """A 100,000-character line whose only match (`LATE_NEEDLE`) starts at character 90,000."""
    return "é" * 45_000 + "x" * 44_999 + " LATE_NEEDLE " + "y" * (100_000 - 90_012) + "\n"


def rich_files() -> dict[str, Content]:
    """The rich tree's regular files (see :func:`build_rich_tree` for the rest)."""
    late_binary = b"needle in a late binary\n" * 20_000 + b"\x00tail\n"
    utf16 = "\ufeffhello\nutf16 needle here\n".encode("utf-16-le")
    return {
        # Ignore files. Inside git: *.log and generated/* hidden, generated/keep.py re-included by
        # the .gitignore's own negation, generated/api.py by .ripsightignore; scratch/ hidden by
        # .ignore everywhere; *.tmp hidden below src/sub except keep.tmp.
        ".gitignore": "*.log\n/generated/*\n!/generated/keep.py\n",
        ".ignore": "scratch/\n",
        ".ripsightignore": "!/generated/api.py\n",
        "src/sub/.gitignore": "*.tmp\n!keep.tmp\n",
        # Sources.
        "README.md": "# Demo\nA needle in the readme.\n",
        "src/app.py": (
            "import util\n\n\ndef main():\n    # TODO: needle\n    return util.helper()\n"
        ),
        "src/util.py": "def helper():\n    return 42  # needle\n",
        "src/lib/core.rs": "pub fn core() -> u32 {\n    42\n}\n",
        "src/lib/mod.rs": "pub mod core;\n// needle\n",
        "src/web/index.ts": "export const needle = 1;\n",
        "src/sub/keep.tmp": "kept tmp needle\n",
        "src/sub/scratch.tmp": "ignored tmp needle\n",
        "app.log": "log needle\n",
        "generated/keep.py": "KEEP = 'needle'\n",
        "generated/api.py": "API = 'needle'\n",
        "generated/junk.py": "JUNK = 'needle'\n",
        "scratch/notes.txt": "scratch needle\n",
        "node_modules/pkg/index.js": "module.exports = 'needle';\n",
        ".github/workflows/ci.yml": "name: ci\non: push\njobs: {}\n",
        # Secrets (denied by default).
        ".env": f"API_KEY={SECRET}\n",
        "certs/server.pem": f"-----BEGIN PRIVATE KEY-----\n{SECRET}\n",
        # Encodings and shapes.
        "data/early.bin": b"\x00\x01\x02needle\n",
        "data/late.bin": late_binary,
        "text/utf16.txt": utf16,
        "text/latin1.txt": b"caf\xe9 needle \xff\n",
        "text/crlf.txt": b"first line\r\nneedle here;\r\nlast\r\n",
        "text/long.txt": long_line_text(),
    }


def build_rich_tree(parent: Path, git: bool) -> Path:
    """Builds ``parent/repo`` (returned), ``parent/outside`` and ``parent/repo-old``.

    Besides :func:`rich_files`: ``.git/`` (when `git`), ``links/src_link -> ../src`` (a
    symlinked directory inside the root), ``links/outside -> ../../outside`` and
    ``links/outside_file.txt`` (symlinks leaving the root), ``links/loop -> ..`` (a loop).
    """
    root = parent / "repo"
    root.mkdir(parents=True)
    if git:
        git_init(root)
    write_files(root, rich_files())
    write_files(parent / "outside", {"secret.txt": "needle outside the root\n"})
    write_files(parent / "repo-old", {"x.txt": "needle in a sibling\n"})
    links = root / "links"
    links.mkdir()
    os.symlink("../src", links / "src_link")
    os.symlink("../../outside", links / "outside")
    os.symlink("../../outside/secret.txt", links / "outside_file.txt")
    os.symlink("..", links / "loop")
    return root


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


@pytest.fixture
def rich_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The rich tree inside a git repository (see :func:`build_rich_tree`)."""
    return build_rich_tree(tmp_path_factory.mktemp("rich"), git=True)


@pytest.fixture
def rich_tree_no_git(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The rich tree with no git repository around it."""
    return build_rich_tree(tmp_path_factory.mktemp("rich_nogit"), git=False)


@pytest.fixture(scope="session")
def rich_facts() -> SimpleNamespace:
    """Facts about the rich tree: ``secret`` (never in any result), ``listed_in_git`` (what
    ``glob("**/*")`` lists inside git) and ``gitignored`` (listed in addition outside git)."""
    return SimpleNamespace(
        secret=SECRET, listed_in_git=RICH_LISTED_IN_GIT, gitignored=RICH_GITIGNORED
    )


@pytest.fixture(scope="session")
def many_files_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3,000 small files in 30 x 10 nested directories; every file holds `needle` once."""
    root = tmp_path_factory.mktemp("many")
    for i in range(3000):
        path = root / f"d{i % 30:02d}" / f"e{i % 10}" / f"f{i:04d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"line one\nneedle {i}\n")
    return root


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
