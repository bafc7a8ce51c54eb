"""read_file of 400 lines deep in a numbered log against `tail -n +N | head -400` and
itertools.islice; peak memory of the ripsight read measured in a fresh interpreter."""

from __future__ import annotations

import os

import pytest
from ripsight import Workspace
from ripsight import bench as sb


@pytest.mark.parametrize("tool", ["ripsight", "tail | head", "python"])
def test_read_deep(benchmark, log: tuple[str, int], tool: str) -> None:
    path, offset = log
    if tool == "ripsight":
        ws = Workspace(os.path.dirname(path))
        rel = os.path.basename(path)

        def run() -> int:
            res = ws.read_file(rel, offset=offset, limit=400)
            assert [ln.number for ln in res.lines] == list(range(offset, offset + 400))
            assert res.lines[0].text.startswith(f"{offset:09d} ")
            assert res.lines[-1].text.startswith(f"{offset + 399:09d} ")
            assert res.next_offset == offset + 400
            return len(res.lines)
    elif tool == "tail | head":
        run = lambda: sb.tail_head(path, offset, 400)
    else:
        run = lambda: sb.py_read(path, offset, 400)
    assert run() == 400
    benchmark.group = f"read_file {os.path.basename(path)} lines {offset}+400"
    benchmark.extra_info["tool"] = tool
    if tool == "python":
        benchmark.pedantic(run, rounds=3, iterations=1)
    else:
        assert benchmark(run) == 400


def test_read_deep_memory(log: tuple[str, int]) -> None:
    """Records the peak RSS of one deep read (goal: under 64 MB); asserts only the answer."""
    path, offset = log
    mem = sb.peak_rss_of_read(path, offset, 400)
    assert mem["lines"] == 400
    print(f"\nread_file peak RSS {mem['peak_mb']:.1f} MB (+{mem['delta_mb']:.1f} MB for the read)")
