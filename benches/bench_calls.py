"""Per-call cost on the small repository (in-process ripsight vs rg started from Python), and
throughput of two Python threads against one issuing the same grep calls."""

from __future__ import annotations

import threading

import pytest
from benchkit import expected
from ripsight import Workspace
from ripsight import bench as sb


@pytest.fixture(scope="module")
def small() -> str:
    return sb.small_repo(300)


@pytest.mark.parametrize("tool", ["ripsight", "rg"])
def test_call_grep(benchmark, small: str, tool: str) -> None:
    want = expected(
        (small, sb.COMMON_REGEX, True, False), lambda: sb.rg_count(small, sb.COMMON_REGEX)
    )
    if tool == "ripsight":
        ws = Workspace(small)
        run = lambda: ws.grep(sb.COMMON_REGEX, limit=50).total_matches
    else:
        run = lambda: sb.rg_search(small, sb.COMMON_REGEX)
    assert run() == want
    benchmark.group = "per-call grep [small]"
    benchmark.extra_info["tool"] = tool
    assert benchmark(run) == want


@pytest.mark.parametrize("tool", ["ripsight", "rg"])
def test_call_glob(benchmark, small: str, tool: str) -> None:
    want = expected((small, "files", "*.py", True, False), lambda: sb.rg_files_count(small, "*.py"))
    if tool == "ripsight":
        ws = Workspace(small)
        run = lambda: ws.glob("**/*.py", limit=200).total
    else:
        run = lambda: sb.rg_files_count(small, "*.py")
    assert run() == want
    benchmark.group = "per-call glob [small]"
    benchmark.extra_info["tool"] = tool
    assert benchmark(run) == want


CALLS = 40


@pytest.mark.parametrize("threads", [1, 2])
def test_threads(benchmark, small: str, threads: int) -> None:
    """CALLS grep calls shared by `threads` threads; compare the two medians (goal: 2 threads
    give >= 1.7x the throughput of one, i.e. take <= 0.59x the time)."""
    ws = Workspace(small)
    want = expected(
        (small, sb.COMMON_REGEX, True, False), lambda: sb.rg_count(small, sb.COMMON_REGEX)
    )
    errors: list[str] = []

    def batch() -> None:
        def work() -> None:
            for _ in range(CALLS // threads):
                got = ws.grep(sb.COMMON_REGEX, limit=50).total_matches
                if got != want:
                    errors.append(f"{got} != {want}")

        ts = [threading.Thread(target=work) for _ in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(timeout=600)

    batch()
    assert not errors
    benchmark.group = f"{CALLS} grep calls [small] by 1 vs 2 threads"
    benchmark.extra_info["tool"] = f"{threads} thread(s)"
    benchmark(batch)
    assert not errors
