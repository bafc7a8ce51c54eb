"""The warm workspace's life (SPEC §2.8): ``close()`` and dropping it stop the index's threads;
its status reports sizes; a persisted index is loaded and checked against the tree; the MCP
server serves with the index unless told not to.

The marks, trees and the oracle are in tests/_index_helpers.py."""

from __future__ import annotations

import os
import time
from pathlib import Path

from _index_helpers import INDEX_MARKS, answer, build_tree, same
from ripsight import Workspace

pytestmark = INDEX_MARKS


def thread_count() -> int:
    return len(os.listdir("/proc/self/task"))


def threads_before(root: Path) -> int:
    """The process's threads before the index starts, once this Python thread's engine thread
    (started by its first call, kept for its later calls) exists: it is no index thread."""
    Workspace(root).glob("*")
    return thread_count()


def test_close_stops_the_threads(tmp_path: Path) -> None:
    root = build_tree(tmp_path / "tree", 9)
    before = threads_before(root)
    ws = Workspace(root, index=True)
    assert ws.wait_index(30)
    for i in range(600):  # enough changes to start a background re-index
        (root / f"c{i}.txt").write_text("alpha\n")
    same(ws, root, "grep", {"pattern": "alpha", "output_mode": "count"})
    ws.close()
    assert thread_count() == before
    assert ws.index_status()["state"] == "closed"
    same(ws, root, "grep", {"pattern": "alpha"})  # answered cold after close
    assert not ws.wait_index(0)


def test_dropping_the_workspace_stops_the_threads(tmp_path: Path) -> None:
    root = build_tree(tmp_path / "tree", 10)
    before = threads_before(root)
    ws = Workspace(root, index=True)
    assert ws.wait_index(30)
    del ws
    import gc

    gc.collect()
    assert thread_count() == before


def test_status_reports_sizes(tmp_path: Path) -> None:
    root = build_tree(tmp_path / "tree", 12)
    (root / "big.txt").write_text("".join(f"line {i} alpha beta\n" for i in range(20_000)))
    with Workspace(root, index=True) as ws:
        assert ws.wait_index(30)
        status = ws.index_status()
        assert status["files"] > 1 and status["bytes"] > 300_000
        assert 0 < status["index_bytes"] <= status["bytes"] // 4


def test_a_persisted_index_is_loaded_and_checked_against_the_tree(tmp_path: Path) -> None:
    root = build_tree(tmp_path / "tree", 14)
    for i in range(5):
        (root / "src" / f"p{i}.py").parent.mkdir(parents=True, exist_ok=True)
        (root / "src" / f"p{i}.py").write_text(f"alpha {i}\nBeta\n")
    time.sleep(1.1)  # change times old enough to vouch for unchanged files (no timing asserted)
    store = tmp_path / "store"
    with Workspace(root, index=True, index_dir=store) as first:
        assert first.wait_index(30)
        assert first.index_status()["loaded"] is False
    assert any(store.iterdir())
    # Changes made while no index is watching.
    (root / "src" / "p0.py").write_text("cassini\n")
    (root / "src" / "p1.py").unlink()
    (root / "src" / "p5.py").write_text("cassini alpha\n")
    data = (root / "src" / "p2.py").read_bytes()
    (root / "src" / "p2.py").write_bytes(data.replace(b"alpha", b"cassi"))  # same size
    with Workspace(root, index=True, index_dir=store) as second:
        assert second.wait_index(30)
        status = second.index_status()
        assert status["loaded"] is True and status["indexed_files"] > 0
        for pattern in ("cassini", "cassi", "alpha", "Beta", r"\w+"):
            for mode in ("content", "count"):
                same(second, root, "grep", {"pattern": pattern, "output_mode": mode})
        same(second, root, "glob", {"pattern": "**/*.py"})
    # A copy made for other options is not loaded.
    with Workspace(root, index=True, index_dir=store, deny=[]) as other:
        assert other.wait_index(30)
        assert other.index_status()["loaded"] is False


def test_mcp_serves_with_the_index_unless_told_not_to(tmp_path: Path) -> None:
    import argparse

    from ripsight.cli import add_mcp_parser, registry_from_args

    parser = argparse.ArgumentParser()
    add_mcp_parser(parser.add_subparsers())
    on = parser.parse_args(["mcp", "--root", str(tmp_path)])
    off = parser.parse_args(["mcp", "--root", str(tmp_path), "--no-index"])
    memory = parser.parse_args(["mcp", "--root", str(tmp_path), "--no-persist"])
    assert on.no_index is False and off.no_index is True
    assert on.no_persist is False and memory.no_persist is True
    registry = registry_from_args(on, index=not on.no_index)
    assert registry.workspace is not None
    assert registry.workspace.index_status()["state"] in ("building", "ready")
    assert registry.workspace.wait_index(30)
    on_disk = registry.workspace.index_status()["index_path"]
    assert on_disk is not None and os.path.exists(on_disk)
    registry.workspace.close()
    registry = registry_from_args(memory, index=True)
    assert registry.workspace is not None and registry.workspace.wait_index(30)
    status = registry.workspace.index_status()
    assert status["index_path"] is None and status["loaded"] is False
    assert status["warm_calls"] == 0
    assert registry.workspace.grep("x").total_files == 0
    assert registry.workspace.index_status()["warm_calls"] == 1
    registry.workspace.close()
    registry = registry_from_args(off, index=not off.no_index)
    assert registry.workspace is not None
    assert registry.workspace.index_status() == {"state": "off"}


def test_a_call_made_while_the_index_builds_answers_as_a_cold_call_does(tmp_path: Path) -> None:
    """The first calls of a process whose index is still building are answered by the cold
    engine, whole: the build (its walk, reads and parses) gives way to them, never hands them
    a part of its work. (`benches/first_calls.py` times the same on a large tree.)"""
    root = tmp_path / "tree"
    for i in range(6000):
        path = root / f"d{i % 40}" / f"e{i % 7}" / f"f{i}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"line {i}\n" + ("alpha beta\n" if i % 3 == 0 else "gamma\n") * 20)
    cold = Workspace(root)
    with Workspace(root, index=True, index_dir=str(tmp_path / "store")) as ws:
        states = []
        answers = []
        for kwargs in (
            {"pattern": "alpha", "output_mode": "count", "limit": None},
            {"pattern": "line 59", "output_mode": "files_with_matches"},
            {"pattern": "gamma", "limit": 5},
        ):
            states.append(ws.index_status()["state"])
            answers.append((answer(ws, "grep", kwargs), answer(cold, "grep", kwargs)))
        assert states[0] == "building", "the first call came after the build: nothing was tested"
        for during, after in answers:
            assert not during["incomplete"]
            assert during == after
        assert ws.wait_index(60)
