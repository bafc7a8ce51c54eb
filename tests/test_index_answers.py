"""The warm workspace (SPEC §2.8) answers as its oracle, the cold engine: for random trees and
queries (differential), for files of many index sections, for globs the table of names answers,
and within the bounds of a call (far pages, the time budget, a cancelled token). The kernel tree
variant runs when ``RIPSIGHT_KERNEL_ROOT`` names a checkout.

The marks, trees, queries and the oracle are in tests/_index_helpers.py."""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import ripsight
from _index_helpers import INDEX_MARKS, WORDS, build_tree, query_strategy, same, settle
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ripsight import Workspace

pytestmark = INDEX_MARKS


GLOBS = ["**/*", "**/*.py", "*.md", "src/**/*.rs", "*", "src/*", "a.py", "**/deep/*"]


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 10_000), queries=st.lists(query_strategy(), min_size=10, max_size=10))
def test_indexed_answers_equal_cold_ones(tmp_path_factory, seed, queries) -> None:
    root = build_tree(tmp_path_factory.mktemp("tree"), seed)
    ws = Workspace(root, index=True)
    try:
        assert ws.wait_index(30)
        assert ws.index_status()["state"] == "ready"
        for q in queries:
            kwargs = {k: v for k, v in q.items() if v is not None}
            same(ws, root, "grep", kwargs)
        for pattern in GLOBS:
            for path in (None, "src"):
                for sort in ("path", "mtime"):
                    same(ws, root, "glob", {"pattern": pattern, "path": path, "sort": sort})
        # The index answered (not only the cold fallback): the root is always a table directory.
        assert ws.index_status()["warm_calls"] >= len(GLOBS) * 2
    finally:
        ws.close()


def build_sectioned_tree(root: Path, seed: int) -> Path:
    """Files of several index sections (64 KiB each, cut after line ends) with rare words on
    random lines, so a query's words fall in one section, in different ones, or across a cut."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    for i in range(rng.randint(1, 4)):
        ending = rng.choice(["\n", "\r\n"])
        lines = []
        size = 0
        target = rng.randint(40_000, 300_000)
        while size < target:
            if rng.random() < 0.004:
                line = rng.choice([" ", "("]).join(
                    rng.choice(WORDS) for _ in range(rng.randint(1, 3))
                )
            else:
                line = rng.choice(["x = 1;", "y += x;", "return 0;", "", "/* pad pad pad */"])
            lines.append(line)
            size += len(line) + len(ending)
        (root / f"big{i}.c").write_bytes(ending.join(lines).encode())
    # A line that crosses the 64 KiB mark ends the first section: `cassini` ends it, `Beta`
    # starts the second, so a multiline match of both spans the cut.
    pad = "x = 1;\n" * 9_000
    crossing = "x" * (65_536 - len(pad)) + " cassini\n"
    (root / "cut.c").write_text(pad + crossing + "Beta begins\n" + pad)
    (root / "small.c").write_text("alpha Beta\nPM_RESUME cassini\n")
    return root


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 10_000), queries=st.lists(query_strategy(), min_size=12, max_size=12))
def test_files_of_many_sections_are_answered_as_cold(tmp_path_factory, seed, queries) -> None:
    root = build_sectioned_tree(tmp_path_factory.mktemp("sections"), seed)
    with Workspace(root, index=True) as ws:
        assert ws.wait_index(30)
        before = ws.index_status()["warm_calls"]
        extra = [
            {"pattern": "cassini\\s+Beta", "multiline": True},
            {"pattern": "alpha[^;]*;\\s*y", "multiline": True, "output_mode": "count"},
            {"pattern": "PM_RESUME", "context": 20},
            {"pattern": "Beta", "output_mode": "count"},
        ]
        for q in [*queries, *extra]:
            kwargs = {k: v for k, v in q.items() if v is not None and k != "path"}
            same(ws, root, "grep", kwargs)
        assert ws.index_status()["warm_calls"] == before + len(queries) + len(extra)


KERNEL = os.environ.get("RIPSIGHT_KERNEL_ROOT")


@pytest.mark.skipif(not KERNEL, reason="set RIPSIGHT_KERNEL_ROOT to a Linux checkout")
@settings(max_examples=40, deadline=None)
@given(query=query_strategy())
def test_kernel_indexed_answers_equal_cold_ones(query) -> None:
    ws = _kernel_workspace()
    kwargs = {k: v for k, v in query.items() if v is not None and k != "path"}
    kwargs["path"] = "drivers/net" if query["path"] else None
    same(ws, Path(str(KERNEL)), "grep", kwargs)
    assert ws.index_status()["cold_calls"] == 0  # the index answered every call


_KERNEL_WS: list[Workspace] = []


def _kernel_workspace() -> Workspace:
    if not _KERNEL_WS:
        ws = Workspace(str(KERNEL), index=True)
        assert ws.wait_index(300)
        _KERNEL_WS.append(ws)
    return _KERNEL_WS[0]


# ==== Bounds: the warm search pages, stops and is cancelled as the cold one ====


def test_far_pages_are_the_cold_engines(tmp_path: Path) -> None:
    # 3,000 matching lines: pages ending past 1,000 matches keep counts only and fetch their
    # lines again (issue 9); the index narrows the files to those holding "needle".
    root = tmp_path / "tree"
    for i in range(30):
        body = "".join(f"line {j} needle {i}\nfiller\n" for j in range(100))
        (root / f"d{i % 3}").mkdir(parents=True, exist_ok=True)
        (root / f"d{i % 3}" / f"f{i:02}.txt").write_text(body)
        (root / f"d{i % 3}" / f"other{i:02}.txt").write_text("filler only\n" * 50)
    with Workspace(root, index=True) as ws:
        assert ws.wait_index(30)
        before = ws.index_status()["warm_calls"]
        for kwargs in (
            {"pattern": "needle", "offset": 1500, "limit": 20, "context": 1},
            {"pattern": "needle", "offset": 2990, "limit": 50},
            {"pattern": "needle 2", "offset": 1001, "limit": 3},
            {"pattern": "needle", "offset": 25, "limit": 10, "output_mode": "count"},
        ):
            same(ws, root, "grep", kwargs)
        assert ws.index_status()["warm_calls"] == before + 4


def test_large_files_of_short_lines_are_indexed_and_answered_as_cold(tmp_path: Path) -> None:
    # A 17 MiB file of short lines is indexed (a query that cannot match it need not read it);
    # a multiline search still counts it too_large, as the cold engine does. A file with one
    # line longer than the index admits stays unindexed and is searched every time.
    root = tmp_path / "tree"
    root.mkdir()
    line = b"register_offset_value 0x1234 shift mask\n"
    (root / "big.h").write_bytes(line * (17 * 1024 * 1024 // len(line) + 1))
    (root / "long_line.txt").write_bytes(b"x" * 300_000 + b" needle\n")
    (root / "small.c").write_text("int needle = 1;\n")
    settle()
    with Workspace(root, index=True) as ws:
        assert ws.wait_index(60)
        assert ws.index_status()["unindexed_files"] == 1  # long_line.txt only
        before = ws.index_status()["warm_calls"]
        calls = [
            {"pattern": "needle"},
            {"pattern": "needle", "multiline": True},
            {"pattern": "needle\\s*=", "multiline": True, "output_mode": "count"},
            {"pattern": "register_offset", "output_mode": "files_with_matches"},
            {"pattern": "needle", "context": 20},
        ]
        for kwargs in calls:
            same(ws, root, "grep", kwargs)
        assert ws.index_status()["warm_calls"] == before + len(calls)
        multiline = ws.grep("needle", multiline=True)
        assert multiline.skipped.too_large == 1 and multiline.total_files == 2


def test_globs_listed_by_name_are_answered_as_cold(tmp_path: Path) -> None:
    # A glob whose names have one extension (or one whole name) lists only the files the
    # index's table of names gives for it, when they are few against the table (here one in
    # forty): those of the base, and every file changed since, which the base does not vouch
    # for. Scopes, depths, pages, sorts, types, zero matches (whose files in scope the table
    # counts) and later edits stay the cold engine's.
    root = tmp_path / "tree"
    extensions = [f"e{k}" for k in range(38)] + ["dts", "DTS"]

    def file(i: int) -> Path:
        return root / f"d{i % 7}" / f"s{i % 3}" / f"f{i}.{extensions[i % len(extensions)]}"

    for i in range(1_200):
        file(i).parent.mkdir(parents=True, exist_ok=True)
        file(i).write_text(f"x {i}\n")
    # A binary file: the base holds no document for it.
    (root / "d0" / "bin.dts").write_bytes(b"\x00\x01dts\n")
    (root / "d1" / "Makefile").write_text("all:\n")
    (root / "d2" / "s1" / "Makefile").write_text("all:\n")
    (root / "d3" / "makefile").write_text("all:\n")
    (root / "d4" / "a.tar.gz").write_text("z\n")
    (root / "d4" / "x.dts.txt").write_text("z\n")
    calls: list[dict[str, Any]] = [
        {"pattern": "**/*.dts", "limit": None},
        {"pattern": "*.dts"},
        {"pattern": "d1/**/*.dts", "limit": 5, "offset": 2},
        {"pattern": "**/*.dts", "path": "d2", "sort": "mtime"},
        {"pattern": "**/*.dts", "max_depth": 2},
        {"pattern": "**/*.dts", "type": "c"},
        {"pattern": "**/Makefile"},
        {"pattern": "**/*.tar.gz"},
        {"pattern": "**/*.nothing"},
        {"pattern": "**/*.nothing", "path": "d5"},
        {"pattern": ["**/*.dts", "**/*.e3", "!d0/**"], "limit": None},
        {"pattern": ["**/*.dts", "!**/f1*"], "limit": None},
    ]
    with Workspace(root, index=True) as ws:
        assert ws.wait_index(60)
        before = ws.index_status()["warm_calls"]
        for kwargs in calls:
            same(ws, root, "glob", kwargs)
        # Edits after the base: a new file, one renamed away and one renamed in, one removed.
        (root / "d0" / "new.dts").write_text("n\n")
        file(5).rename(file(5).with_suffix(".dts"))
        file(38).rename(file(38).with_suffix(".e0"))
        file(39).unlink()
        (root / "d1" / "Makefile").unlink()
        (root / "d6" / "Makefile").write_text("x\n")
        settle()
        for kwargs in calls:
            same(ws, root, "glob", kwargs)
        assert ws.index_status()["warm_calls"] == before + 2 * len(calls)


def test_globs_over_many_entries_are_answered_as_cold(tmp_path: Path) -> None:
    # Over 4,096 table entries the warm glob matches runs of them on several threads and
    # merges them in order: totals, pages and both sort orders stay the cold engine's.
    root = tmp_path / "tree"
    for i in range(5_000):
        d = root / f"d{i % 37}" / f"e{i % 5}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"f{i}.{('c', 'h', 'py')[i % 3]}").write_text("x\n")
        if i % 500 == 0:
            os.utime(d / f"f{i}.{('c', 'h', 'py')[i % 3]}", (1_000_000 + i, 1_000_000 + i))
    with Workspace(root, index=True) as ws:
        assert ws.wait_index(60)
        before = ws.index_status()["warm_calls"]
        calls = [
            {"pattern": "**/*.c", "limit": None},
            {"pattern": "*.h", "limit": 7, "offset": 900},
            {"pattern": "d1*/**/*.py", "offset": 3, "limit": 40},
            {"pattern": "**/*", "sort": "mtime", "limit": 25, "offset": 2},
            {"pattern": "**/f4999.py"},
        ]
        for kwargs in calls:
            same(ws, root, "glob", kwargs)
        assert ws.index_status()["warm_calls"] == before + len(calls)


def test_a_cancelled_token_stops_indexed_calls(tmp_path: Path) -> None:
    root = build_tree(tmp_path / "tree", 21)
    with Workspace(root, index=True) as ws:
        assert ws.wait_index(30)
        before = ws.index_status()["warm_calls"]
        token = ripsight.CancelToken()
        token.cancel()
        with pytest.raises(ripsight.CancelledError):
            ws.grep("alpha", cancel=token)
        with pytest.raises(ripsight.CancelledError):
            ws.glob("**/*", cancel=token)
        # Both calls went through the index (the cold engine did not answer them).
        status = ws.index_status()
        assert status["warm_calls"] == before + 2 and status["cold_calls"] == 0


#: Unicode word boundaries over non-ASCII text keep the regex engine off its fast DFA: every
#: file costs the same few ms, call after call (a cached lazy DFA does not speed it up).
SLOW = {"pattern": r"\b\w+\b\d"}


@pytest.fixture(scope="module")
def slow_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """240 files (45 MB) that `SLOW` must read whole, slowly (seconds); the index cannot narrow
    it (no trigram)."""
    root = tmp_path_factory.mktemp("slow")
    line = ("été café naïve " * 6 + "\n").encode()
    for i in range(240):
        (root / f"d{i % 8}").mkdir(exist_ok=True)
        (root / f"d{i % 8}" / f"f{i:03}.txt").write_bytes(line * 2000)
    return root


def test_the_time_budget_holds_in_an_indexed_search(slow_tree: Path) -> None:
    with Workspace(slow_tree, index=True, time_budget=600) as ws:
        assert ws.wait_index(60)
        started = time.monotonic()
        whole = ws.grep(**SLOW)
        full = time.monotonic() - started
        assert not whole.incomplete
    budget = min(0.5, full / 4)
    with Workspace(slow_tree, index=True, time_budget=budget) as ws:
        assert ws.wait_index(60)
        before = ws.index_status()["warm_calls"]
        started = time.monotonic()
        partial = ws.grep(**SLOW)
        seconds = time.monotonic() - started
        assert ws.index_status()["warm_calls"] == before + 1
    assert partial.incomplete, (full, budget)
    assert partial.files_searched < whole.files_searched
    assert seconds < budget + 0.5, (full, budget, seconds)


def test_a_token_cancelled_mid_search_stops_the_indexed_engine(slow_tree: Path) -> None:
    # The call answers CancelledError at once whatever the engine does (the binding stops
    # waiting); that the indexed search itself stopped shows in the process's CPU time, which a
    # search still running on the workspace's threads would keep spending for seconds.
    with Workspace(slow_tree, index=True, time_budget=600) as ws:
        assert ws.wait_index(60)
        started = time.monotonic()
        ws.grep(**SLOW)
        full = time.monotonic() - started
        assert full > 1.0, full  # the search runs long enough to be cancelled inside
        token = ripsight.CancelToken()
        threading.Timer(0.2, token.cancel).start()
        with pytest.raises(ripsight.CancelledError):
            ws.grep(cancel=token, **SLOW)
        time.sleep(0.1)  # the file being searched when the token was cancelled
        cpu = time.process_time()
        time.sleep(0.5)
        assert time.process_time() - cpu < 0.1, "the cancelled search kept running"
        assert ws.index_status()["cold_calls"] == 0
