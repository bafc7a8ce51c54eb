"""The contents the index file holds (the bytes of its small text files, see docs/warm-index.md):
a grep of files the index vouches for reads them from the index file, not from the tree, and
answers as the cold engine does; a file changed since it was indexed is read from disk.

The reads are counted from /proc/self/io (`syscr`: read system calls of the whole process)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from _index_helpers import INDEX_MARKS, same, settle
from ripsight import Workspace

pytestmark = INDEX_MARKS

FILES = 300


def io_count(field: str) -> int:
    """A counter of /proc/self/io (every thread's): `syscr` read calls, `rchar` bytes read."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} in /proc/self/io")


def read_calls() -> int:
    """Read system calls made by this process so far."""
    return io_count("syscr")


def small_tree(root: Path) -> Path:
    """`FILES` small files, each with `needle` on one line and its own number on another, and a
    file too large for the index to hold."""
    for i in range(FILES):
        path = root / f"d{i % 7}" / f"f{i:03}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"first line {i}\nthe needle is here\nlast line of f{i:03}\n")
    (root / "big.txt").write_text("the needle is here too\n" + "filler line\n" * 6000)
    return root


@contextmanager
def indexed(root: Path) -> Iterator[Workspace]:
    """A warm workspace on `root`, its index built and its files old enough to be vouched for."""
    ws = Workspace(root, index=True)
    try:
        assert ws.wait_index(30)
        settle()
        yield ws
    finally:
        ws.close()


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="counts reads in /proc")
def test_held_files_are_searched_without_reading_them(tmp_path: Path) -> None:
    root = small_tree(tmp_path / "tree")
    with indexed(root) as ws:
        status = ws.index_status()
        assert status["content_files"] == FILES
        assert 0 < status["content_bytes"] < status["index_bytes"]
        for mode in ("files_with_matches", "count", "content"):
            kwargs = {"pattern": "needle", "output_mode": mode, "limit": None}
            before = read_calls()
            result = ws.grep(**kwargs)
            reads = read_calls() - before
            assert result.total_files == FILES + 1
            # Only the large file is read (a few reads), never the 300 held ones.
            assert reads < 20, (mode, reads)
            same(ws, root, "grep", kwargs)
        # Regexes, context, case and globs answer from the held bytes as the cold engine does.
        for kwargs in (
            {"pattern": r"f\d+3$", "output_mode": "count"},
            {"pattern": "NEEDLE", "case_insensitive": True, "context": 1},
            {"pattern": "line", "glob": ["d3/**"], "output_mode": "count", "limit": None},
            {"pattern": "needle", "invert_match": True, "output_mode": "count"},
            {"pattern": "is here\nlast", "multiline": True, "output_mode": "count"},
        ):
            same(ws, root, "grep", kwargs)


def test_a_file_changed_since_it_was_indexed_is_read_from_disk(tmp_path: Path) -> None:
    root = small_tree(tmp_path / "tree")
    with indexed(root) as ws:
        target = root / "d0" / "f000.txt"
        stat = target.stat()
        # The same size, and the same modification time put back: only the change time and
        # the watcher tell.
        target.write_text("first line 0\nthe thread is here\nlast line of f000\n")
        assert target.stat().st_size == stat.st_size
        os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        settle()
        found = ws.grep("thread", output_mode="content")
        assert [(line.path, line.line) for line in found.lines] == [("d0/f000.txt", 2)]
        assert ws.grep("needle", output_mode="count").total_files == FILES
        for mode in ("files_with_matches", "count", "content"):
            same(ws, root, "grep", {"pattern": "needle|thread", "output_mode": mode})


@pytest.mark.skipif(sys.platform != "linux", reason="the index watches with inotify (Linux)")
def test_a_second_process_reads_the_held_contents_of_the_file_it_maps(tmp_path: Path) -> None:
    root = small_tree(tmp_path / "tree")
    # Change times old enough that the file written vouches for the files (no timing asserted).
    time.sleep(1.1)
    first = Workspace(root, index=True)
    try:
        assert first.wait_index(30)
        settle()
        second = Workspace(root, index=True)
        try:
            assert second.wait_index(30)
            assert second.index_status()["loaded"]
            assert second.index_status()["content_files"] == FILES
            before = read_calls()
            assert second.grep("needle", output_mode="count").total_files == FILES + 1
            assert read_calls() - before < 20
        finally:
            second.close()
    finally:
        first.close()


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="counts reads in /proc")
def test_only_the_candidate_sections_of_a_large_file_are_read(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    # Five sections of about 64 KiB (cut after line ends): the rare word in the second and the
    # fourth, a common one everywhere.
    sections = []
    for i in range(5):
        body = "".join(f"common line {i}.{n}\n" for n in range(3500))
        if i in (1, 3):
            body = body.replace(f"common line {i}.7\n", f"the rare zephyr word {i}\n", 1)
        sections.append(body)
    big = root / "big.txt"
    big.write_text("".join(sections))
    (root / "small.txt").write_text("a zephyr in a small file\n")
    with indexed(root) as ws:
        size = big.stat().st_size
        for mode in ("files_with_matches", "count"):
            before = io_count("rchar")
            result = ws.grep("zephyr", output_mode=mode, limit=None)
            read = io_count("rchar") - before
            assert (result.total_matches, result.total_files) == (3, 2)
            # Two of the five sections, not the whole file.
            assert read < size * 3 // 5, (mode, read, size)
            same(ws, root, "grep", {"pattern": "zephyr", "output_mode": mode, "limit": None})
        # Whole files where every line counts: content mode, context, max_count.
        for kwargs in (
            {"pattern": "zephyr"},
            {"pattern": "zephyr", "output_mode": "count", "max_count": 1},
            {"pattern": "zephyr", "context": 2},
            {"pattern": "common line [24]", "output_mode": "count"},
            {"pattern": "zephyr", "invert_match": True, "output_mode": "count"},
        ):
            same(ws, root, "grep", kwargs)


def test_a_file_that_may_hold_a_private_key_is_not_held(tmp_path: Path) -> None:
    """The index file keeps no copy of a key, and the search of such a file reads it from
    disk in key mode: its key lines withheld and counted as the cold engine does."""
    root = small_tree(tmp_path / "tree")
    body = "c2VjcmV0IGtleSBtYXRlcmlhbCBuZWVkbGUgaW5zaWRlIHRoZSBrZXk"
    (root / "d1" / "deploy.txt").write_text(
        "the needle is here\n"
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        f"{body}\n"
        "the needle inside the key\n"
        "-----END OPENSSH PRIVATE KEY-----\n"
    )
    with indexed(root) as ws:
        status = ws.index_status()
        assert status["content_files"] == FILES
        assert body.encode() not in Path(status["index_path"]).read_bytes()
        for mode in ("files_with_matches", "count", "content"):
            kwargs = {"pattern": "needle", "output_mode": mode, "limit": None}
            result = ws.grep(**kwargs)
            assert result.withheld_key_files == 1
            assert result.withheld_key_lines == 4
            assert "inside the key" not in str(result)
            same(ws, root, "grep", kwargs)
