"""One index file per tree, shared by every process on it (SPEC §2.8 v3, issue 17).

Processes on one tree (children driven by tests/_index_child.py, all with the same cache
directory) build once and map the same file; each keeps its own watcher, and an edit made by any
of them is in every one's next answer, which is the cold engine's. A merge written by one is
taken over by the others. A process killed while writing (the test switch
``RIPSIGHT_INDEX_STALL_WRITE_MS`` holds a writer halfway) leaves nothing another process trusts.
A file in the cache that is truncated, damaged, of another version or another tree's is never
trusted. A restart after edits made while nothing ran answers as the cold engine.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from _children import Lines, stop
from ripsight import Workspace
from ripsight.workspace import to_dict

pytestmark = [
    pytest.mark.skipif(
        not sys.platform.startswith("linux"), reason="reads /proc (maps, memory) of children"
    ),
    pytest.mark.slow,  # starts processes that build and share indexes: about a minute
]

CHILD = Path(__file__).with_name("_index_child.py")
WORDS = ["alpha", "Beta", "cassini", "PM_RESUME", "gamma"]


def make_tree(root: Path, files: int = 300, seed: int = 0) -> Path:
    for i in range(files):
        d = root / f"d{i % 9}" / f"e{i % 4}"
        d.mkdir(parents=True, exist_ok=True)
        words = " ".join(WORDS[(i + k + seed) % len(WORDS)] for k in range(i % 4))
        (d / f"f{i}.c").write_text(f"int f{i}; /* {words} */\nreturn {i};\n")
    (root / ".gitignore").write_text("*.o\n")
    (root / "x.o").write_text("alpha\n")
    return root


class Child:
    """One process holding `Workspace(root, index=True)`."""

    def __init__(self, root: Path, cache: Path, env: dict[str, str] | None = None) -> None:
        environ = dict(os.environ, XDG_CACHE_HOME=str(cache), **(env or {}))
        self.process = subprocess.Popen(
            [sys.executable, str(CHILD), str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=environ,
            cwd=Path(__file__).parent,
        )
        assert self.process.stdout is not None
        self.lines = Lines(self.process.stdout)

    def ask(self, op: str, timeout: float = 120, **fields: Any) -> Any:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"op": op, **fields}) + "\n")
        self.process.stdin.flush()
        line = self.lines.next(timeout)
        assert line is not None, f"the child ended: {self.lines.so_far()}"
        return json.loads(line)

    def close(self) -> None:
        try:
            if self.process.poll() is None:
                self.ask("exit", timeout=30)
        except (AssertionError, OSError, ValueError):
            pass
        stop(self.process)


def cold(root: Path, call: str, kwargs: dict[str, Any]) -> Any:
    try:
        result = getattr(Workspace(root), call)(**kwargs)
    except Exception as error:  # noqa: BLE001 - the error is the answer
        return [type(error).__name__, str(error)]
    out = to_dict(result)
    out.pop("elapsed_ms", None)
    return json.loads(json.dumps(out, default=str))


QUERIES: list[tuple[str, dict[str, Any]]] = [
    ("grep", {"pattern": "cassini", "output_mode": "files_with_matches", "limit": None}),
    ("grep", {"pattern": "PM_RESUME|edited", "output_mode": "count", "limit": None}),
    ("grep", {"pattern": "(?i)beta", "limit": 20}),
    ("glob", {"pattern": "**/*.c", "limit": None}),
]


def assert_all_answer_as_cold(children: list[Child], root: Path) -> None:
    for call, kwargs in QUERIES:
        expected = cold(root, call, kwargs)
        for n, child in enumerate(children):
            assert child.ask(call, kwargs=kwargs) == expected, (n, call, kwargs)


def final_files(cache: Path) -> list[Path]:
    return sorted(cache.rglob("*.rsidx"))


def temporaries(cache: Path) -> list[Path]:
    """The n-gram index's temporary files (the symbol index's, `-symbols.tmp.`, are its own:
    tests/test_symbol_index.py)."""
    return sorted(p for p in cache.rglob("*") if ".tmp." in p.name and "-symbols" not in p.name)


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    path = tmp_path / "cache"
    path.mkdir()
    return path


@pytest.mark.parametrize("processes", [2, 4])
def test_processes_on_one_tree_build_once_and_share_the_mapping(
    tmp_path: Path, cache: Path, processes: int
) -> None:
    root = make_tree(tmp_path / "tree", files=1500)
    children = [Child(root, cache) for _ in range(processes)]
    try:
        statuses = [child.ask("wait") for child in children]
        assert all(s["state"] == "ready" for s in statuses), statuses
        # One process built; every other one loaded the file it wrote.
        assert sorted(s["loaded"] for s in statuses) == [False] + [True] * (processes - 1)
        assert len({s["index_path"] for s in statuses}) == 1
        assert len(final_files(cache)) == 1
        # Every process maps the same file (device and inode).
        mapped = [child.ask("maps") for child in children]
        assert all(len(m) == 1 for m in mapped) and len({str(m) for m in mapped}) == 1, mapped
        assert_all_answer_as_cold(children, root)
        # An edit by any process is in every process's next answer.
        for n, child in enumerate(children):
            assert child.ask("write", path=f"d{n}/e0/f{n}.c", text=f"edited {n} cassini\n")
            assert child.ask("write", path=f"new{n}/g.c", text="PM_RESUME edited\n")
            assert_all_answer_as_cold(children, root)
        assert all(child.ask("status")["warm_calls"] > 0 for child in children)
    finally:
        for child in children:
            child.close()


def test_a_merge_written_by_one_process_is_taken_over_by_the_others(
    tmp_path: Path, cache: Path
) -> None:
    root = make_tree(tmp_path / "tree", files=900)
    children = [Child(root, cache) for _ in range(3)]
    try:
        for child in children:
            assert child.ask("wait")["state"] == "ready"
        before = children[0].ask("maps")
        # More changed files than a merge waits for (512).
        for i in range(600):
            (root / f"d{i % 9}" / f"e{i % 4}" / f"f{i}.c").write_text(f"edited {i} cassini\n")
        assert_all_answer_as_cold(children, root)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            statuses = [child.ask("status") for child in children]
            if sum(s["merges"] for s in statuses) >= 1 and all(
                s["merges"] + s["adoptions"] >= 1 for s in statuses
            ):
                break
            assert_all_answer_as_cold(children, root)  # calls start the jobs
            time.sleep(0.1)
        else:
            raise AssertionError(f"no merge was taken over: {statuses}")
        after = [child.ask("maps") for child in children]
        assert all(m == after[0] for m in after) and after[0] != before, (before, after)
        assert len(final_files(cache)) == 1 and not temporaries(cache)
        # The merged file describes the changed files: they are no longer searched directly.
        assert all(child.ask("status")["unindexed_files"] < 100 for child in children)
        assert_all_answer_as_cold(children, root)
    finally:
        for child in children:
            child.close()


def wait_for(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(0.02)


def test_a_process_killed_while_building_leaves_nothing_trusted(
    tmp_path: Path, cache: Path
) -> None:
    root = make_tree(tmp_path / "tree", files=300)
    builder = Child(root, cache, env={"RIPSIGHT_INDEX_STALL_WRITE_MS": "60000"})
    try:
        wait_for(lambda: temporaries(cache), 60, "the builder's temporary file")
        assert builder.ask("status")["state"] == "building"
        builder.process.kill()
        builder.process.wait(timeout=30)
    finally:
        stop(builder.process)
    assert final_files(cache) == [] and temporaries(cache)
    # The next process takes the lock the kernel released, removes the dead writer's file and
    # builds its own.
    child = Child(root, cache)
    try:
        status = child.ask("wait")
        assert status["state"] == "ready" and status["loaded"] is False
        assert len(final_files(cache)) == 1 and not temporaries(cache)
        assert_all_answer_as_cold([child], root)
    finally:
        child.close()


def test_a_process_killed_while_merging_leaves_the_old_file_in_place(
    tmp_path: Path, cache: Path
) -> None:
    root = make_tree(tmp_path / "tree", files=900)
    first = Child(root, cache)
    try:
        assert first.ask("wait")["loaded"] is False
    finally:
        first.close()
    (base,) = final_files(cache)
    inode = base.stat().st_ino
    merger = Child(root, cache, env={"RIPSIGHT_INDEX_STALL_WRITE_MS": "60000"})
    try:
        assert merger.ask("wait")["loaded"] is True
        for i in range(600):
            (root / f"d{i % 9}" / f"e{i % 4}" / f"f{i}.c").write_text(f"edited {i} cassini\n")
        assert_all_answer_as_cold([merger], root)  # starts the merge, which stalls
        wait_for(lambda: temporaries(cache), 60, "the merger's temporary file")
        merger.process.kill()
        merger.process.wait(timeout=30)
    finally:
        stop(merger.process)
    (still,) = final_files(cache)
    assert still.stat().st_ino == inode
    # A new process loads the old file, checked against the tree: the edits are in its answers.
    child = Child(root, cache)
    try:
        status = child.ask("wait")
        assert status["loaded"] is True and status["unindexed_files"] >= 600
        assert_all_answer_as_cold([child], root)
    finally:
        child.close()


def test_a_restart_after_edits_made_while_nothing_ran_answers_as_cold(
    tmp_path: Path, cache: Path
) -> None:
    root = make_tree(tmp_path / "tree", files=300)
    time.sleep(1.1)  # change times old enough to vouch for unchanged files (no timing asserted)
    child = Child(root, cache)
    try:
        assert child.ask("wait")["loaded"] is False
    finally:
        child.close()
    edited = root / "d1" / "e1" / "f1.c"
    stat = edited.stat()
    # Same size, and the modification time put back: only the change time tells.
    text = edited.read_text()
    edited.write_text(text.replace("int", "PMR"))
    os.utime(edited, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    (root / "d2" / "e2" / "f2.c").unlink()
    (root / "d3" / "late.c").write_text("cassini PM_RESUME\n")
    shutil.rmtree(root / "d4" / "e0")
    (root / ".gitignore").write_text("*.c\n!d5/**\n")
    child = Child(root, cache)
    try:
        status = child.ask("wait")
        assert status["loaded"] is True and status["indexed_files"] > 0
        assert_all_answer_as_cold([child], root)
        assert child.ask("grep", kwargs={"pattern": "PMR", "output_mode": "count"}) == cold(
            root, "grep", {"pattern": "PMR", "output_mode": "count"}
        )
    finally:
        child.close()


# ==== Memory: the index is mapped, not heap ====


def make_big_tree(root: Path, megabytes: int) -> Path:
    """Source-like files of varied words, `megabytes` MB in about 20 KB files."""
    import random

    rng = random.Random(megabytes)
    vocabulary = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(rng.randint(3, 12)))
        for _ in range(20_000)
    ]
    for i in range(megabytes * 50):
        d = root / f"m{i % 40}" / f"s{i % 7}"
        d.mkdir(parents=True, exist_ok=True)
        lines = []
        size = 0
        while size < 20_000:
            line = "    " + " ".join(rng.choice(vocabulary) for _ in range(rng.randint(2, 9)))
            lines.append(line + ";")
            size += len(line) + 2
        (d / f"f{i}.c").write_text("\n".join(lines) + "\n")
    return root


def test_heap_growth_is_within_five_percent_of_the_indexed_bytes(
    tmp_path: Path, cache: Path
) -> None:
    # Issue 17: with the index ready, a process's anonymous memory (its heap: RssAnon, read
    # from /proc in the child itself) grows by at most 5% of the indexed bytes; the index file
    # is mapped (RssFile, the page cache's, shared). Both the process that built it and one that
    # loaded it, after queries.
    root = make_big_tree(tmp_path / "tree", 200)
    # The n-gram index's memory alone: the symbol index's build holds its tables on the heap
    # until it writes them (tests/test_symbol_index.py).
    no_symbols = {"RIPSIGHT_SYMBOLS": "0"}
    children = [Child(root, cache, env=no_symbols)]
    try:
        built = children[0].ask("wait", timeout=300)
        # Right after the build too, before any query's threads could have trimmed the
        # build's arenas (`index/memory.rs`).
        memory = children[0].ask("memory")
        growth = (memory["now"]["RssAnon"] - memory["before"]["RssAnon"]) * 1024
        assert growth <= built["bytes"] * 0.05, (growth / built["bytes"], memory)
        children.append(Child(root, cache, env=no_symbols))
        loaded = children[1].ask("wait", timeout=300)
        assert built["loaded"] is False and loaded["loaded"] is True
        indexed = built["bytes"]
        assert indexed > 190 * 10**6
        for child in children:
            for pattern in ("alpha", "[a-z]+_[a-z]+;", "zzz_absent"):
                assert child.ask("grep", kwargs={"pattern": pattern, "limit": 5})
            memory = child.ask("memory")
            growth = (memory["now"]["RssAnon"] - memory["before"]["RssAnon"]) * 1024
            assert growth <= indexed * 0.05, (growth / indexed, memory)
            assert memory["now"]["RssShmem"] == 0
        # The index file (random words make it large: most of the bytes here) is on neither
        # process's heap.
        assert built["index_bytes"] > indexed * 0.10
    finally:
        for child in children:
            child.close()


# ==== The loader: a file in the cache is trusted only when it is whole and this tree's ====


def damage(path: Path, how: str, other: Path | None = None) -> None:
    data = bytearray(path.read_bytes())
    if how == "truncated":
        data = data[: len(data) * 2 // 3]
    elif how == "header":
        data[20] ^= 0x10
    elif how == "lists":
        # A byte in the middle of the posting lists (section kind 11; the header's entries
        # start at 24, 24 bytes each: kind, CRC, offset, length): found by the block check on
        # first use (a damaged block makes that call answer cold and the index rebuild).
        sections = int.from_bytes(data[8:12], "little")
        for at in range(24, 24 + sections * 24, 24):
            if int.from_bytes(data[at : at + 4], "little") == 11:
                offset = int.from_bytes(data[at + 8 : at + 16], "little")
                length = int.from_bytes(data[at + 16 : at + 24], "little")
                data[offset + length // 2] ^= 0x01
    elif how == "version":
        data[:8] = b"RSIDX006"
    elif how == "other_tree":
        assert other is not None
        data = bytearray(other.read_bytes())
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["truncated", "header", "lists", "version", "other_tree"])
def test_a_damaged_or_foreign_index_file_is_never_trusted(tmp_path: Path, how: str) -> None:
    root = make_tree(tmp_path / "tree", files=400)
    other = make_tree(tmp_path / "other", files=400, seed=2)
    store = tmp_path / "store"
    with Workspace(root, index=True, index_dir=store) as ws:
        assert ws.wait_index(60)
        path = Path(ws.index_status()["index_path"])
    with Workspace(other, index=True, index_dir=tmp_path / "store2") as ws:
        assert ws.wait_index(60)
        other_path = Path(ws.index_status()["index_path"])
    damage(path, how, other_path)
    with Workspace(root, index=True, index_dir=store) as ws:
        assert ws.wait_index(60)
        status = ws.index_status()
        assert status["state"] == "ready"
        assert status["loaded"] is (how == "lists"), status
        for call, kwargs in QUERIES:
            got = json.loads(json.dumps(to_dict(getattr(ws, call)(**kwargs)), default=str))
            got.pop("elapsed_ms", None)
            assert got == cold(root, call, kwargs), (how, call)
        if how == "lists":
            # The damage was found: the next calls start a rebuild, whose file replaces it.
            deadline = time.monotonic() + 60
            while ws.index_status()["merges"] == 0:
                assert time.monotonic() < deadline
                ws.grep("cassini")
                time.sleep(0.05)
            assert (
                ws.grep("cassini").total_files
                == cold(root, "grep", {"pattern": "cassini"})["total_files"]
            )
        assert Path(ws.index_status()["index_path"]).read_bytes()[:8] == b"RSIDX014"
