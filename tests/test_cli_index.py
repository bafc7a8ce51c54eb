"""The command line and the index files: `ripsight index` builds them, the commands load them
when valid (fresh through the overlay), never build one themselves, and a cold map ranks the
same files at every run."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from _cli_helpers import run_ripsight


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg" / "deep").mkdir(parents=True)
    (root / "pkg" / "util.py").write_text("def helper():\n    return 1\n")
    (root / "pkg" / "deep" / "core.py").write_text(
        "from pkg.util import helper\n\n\ndef engine():\n    return helper() + helper()\n"
    )
    (root / "main.py").write_text(
        "from pkg.util import helper\nfrom pkg.deep.core import engine\n\n\n"
        "def main():\n    return helper() + engine()\n"
    )
    time.sleep(1.1)  # old enough for an index to vouch for the files (no timing asserted)
    return root


def ripsight(cache: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    return run_ripsight(*args, cwd=cwd, env=env, timeout=300)


def index_files(cache: Path) -> list[str]:
    where = cache / "ripsight" / "index"
    return sorted(p.suffix for p in where.iterdir()) if where.is_dir() else []


def test_a_command_never_builds_an_index(tree: Path, cache: Path) -> None:
    for argv in (["grep", "helper"], ["refs", "helper"], ["map"], ["defs", "engine"]):
        done = ripsight(cache, *argv, cwd=tree)
        assert done.returncode == 0, done.stderr
    assert not any(s in (".rsidx", ".rssym") for s in index_files(cache))
    cold = ripsight(cache, "refs", "helper", cwd=tree)
    assert "of 3 searched" in cold.stdout, cold.stdout


def test_index_builds_then_loads_and_the_commands_answer_from_it(tree: Path, cache: Path) -> None:
    built = ripsight(cache, "index", cwd=tree)
    assert built.returncode == 0, built.stderr
    assert built.stdout.startswith(f"Indexed {tree} in "), built.stdout
    assert "  n-gram index: built" in built.stdout and "  symbol index: built" in built.stdout
    assert index_files(cache).count(".rsidx") == 1 and index_files(cache).count(".rssym") == 1
    again = ripsight(cache, "index", str(tree), cwd=tree.parent)
    assert "n-gram index: loaded (up to date)" in again.stdout, again.stdout
    assert "symbol index: loaded (up to date)" in again.stdout, again.stdout

    refs = ripsight(cache, "refs", "helper", cwd=tree)
    assert refs.returncode == 0, refs.stderr
    assert "3 files containing the name, from the symbol index" in refs.stdout, refs.stdout
    cold = ripsight(cache, "refs", "helper", "--no-index", cwd=tree)
    strip = lambda text: text.split("\n", 1)[1]  # the rows, not the accounting
    assert strip(refs.stdout) == strip(cold.stdout)
    # Fresh through the overlay: a file written after the index answers as it is now.
    (tree / "late.py").write_text("from pkg.util import helper\n\nhelper()\n")
    fresh = ripsight(cache, "refs", "helper", cwd=tree)
    assert "late.py:3:1 call" in fresh.stdout, fresh.stdout
    assert "1 changed file searched" in fresh.stdout, fresh.stdout
    grep = ripsight(cache, "grep", "helper", "-l", cwd=tree)
    assert "late.py" in grep.stdout, grep.stdout
    # An explicit root confines with the index loaded, too.
    outside = ripsight(cache, "grep", "x", str(tree.parent), "--root", ".", cwd=tree)
    assert outside.returncode == 2 and "outside the workspace root" in outside.stderr


def test_index_refuses_two_trees(tree: Path, cache: Path) -> None:
    done = ripsight(cache, "index", str(tree), "--root", str(tree), cwd=tree)
    assert done.returncode == 2 and done.stderr.startswith("ripsight index: give the tree as")


def test_a_cold_map_ranks_the_same_files_whatever_the_time(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Capped at 2 files, the cold map ranks the two shallowest (main.py, pkg/util.py), says
    so, and prints the same map at every run; the partial answer says once how to build the
    index."""
    import importlib

    from ripsight.cli import main

    # The package's `tool_commands` is a function: the module is taken by its full name.
    tool_commands = importlib.import_module("ripsight.cli.tool_commands")

    monkeypatch.setenv("XDG_CACHE_HOME", str(tree.parent / "cache"))
    monkeypatch.setattr(tool_commands, "COLD_MAP_FILES", 2)
    runs = []
    for _ in range(3):
        assert main(["map", "--root", str(tree)]) == 0
        runs.append(capsys.readouterr())
    assert runs[0].out == runs[1].out == runs[2].out
    text = runs[0].out
    assert "main.py" in text and "pkg/util.py" in text and "core.py" not in text, text
    assert "only the 2 shallowest are ranked" in text and "the same files at every call" in text
    assert runs[0].err.count("`ripsight index` builds one") == 1, runs[0].err
    # Asked to answer cold (--no-index), the same map, and no advice to build an index.
    assert main(["map", "--root", str(tree), "--no-index"]) == 0
    cold = capsys.readouterr()
    assert cold.out == text and "ripsight index" not in cold.err


def test_a_whole_answer_says_nothing_of_the_index(tree: Path, cache: Path) -> None:
    done = ripsight(cache, "map", cwd=tree)
    assert done.returncode == 0 and done.stderr == "", done.stderr


#: Writes a tree, then at once indexes it in the same process: the files' change times are
#: within the second before the index file is written, so it records them without vouching for
#: them (a change in the same tick would show in no identity). Fewer files than either index's
#: merge of changed files waits for (`REINDEX_AFTER_CHANGED_FILES`, 512;
#: `REFRESH_SYMBOLS_AFTER_CHANGED_FILES`, 256): no number of them makes a merge due.
WRITE_THEN_INDEX = """
import sys
from pathlib import Path
from ripsight.cli import main
root = Path(sys.argv[1])
for i in range(200):
    d = root / f"pkg{i % 10}"
    d.mkdir(parents=True, exist_ok=True)
    (d / f"mod{i}.py").write_text(f"def func_{i}():\\n    return helper_{i % 7}()\\n")
sys.exit(main(["index", "-q", str(root)]))
"""


def loaded_status(root: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """What a process that only loads the index files (as every command does) finds."""
    from ripsight import Workspace
    from ripsight.cli.indexing import load_index

    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    with Workspace(root, index=True, index_build=False) as ws:
        assert load_index(ws, symbols=True, timeout=120)
        return ws.index_status()


def test_index_completes_files_written_just_before_the_last_run(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "fresh"
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    first = subprocess.run(
        [sys.executable, "-c", WRITE_THEN_INDEX, str(root)],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert first.returncode == 0 and "n-gram index: built" in first.stdout, first
    time.sleep(1.1)  # the files are now old enough to be vouched for (no timing asserted)
    # The precondition: a process loading the files searches these directly.
    before = loaded_status(root, cache, monkeypatch)
    unvouched, overlay = before["unindexed_files"], before["symbol_overlay_files"]
    assert unvouched > 0 and overlay > 0, before
    again = ripsight(cache, "index", "-q", cwd=root)
    assert again.returncode == 0, again.stderr
    assert f"n-gram index: loaded, then refreshed ({unvouched:,} files merged in)" in again.stdout
    assert f"symbol index: loaded, then refreshed ({overlay:,} files merged in)" in again.stdout
    assert "directly" not in again.stdout, again.stdout
    # From now on the files are whole: nothing searched or parsed directly, nothing to do.
    after = loaded_status(root, cache, monkeypatch)
    assert after["unindexed_files"] == 0 and after["symbol_overlay_files"] == 0, after
    last = ripsight(cache, "index", "-q", cwd=root)
    assert "n-gram index: loaded (up to date)" in last.stdout, last.stdout
    assert "symbol index: loaded (up to date)" in last.stdout and "directly" not in last.stdout
    refs = ripsight(cache, "refs", "func_3", cwd=root)
    assert "from the symbol index" in refs.stdout and "pkg3/mod3.py:1" in refs.stdout, refs
