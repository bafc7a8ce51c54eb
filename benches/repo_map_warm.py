"""Warm `repo_map` calls on a tree whose symbol index is built, alone: the figures of
benches/README.md ("The repository map kept warm").

    python benches/repo_map_warm.py ROOT STORE [RUNS]     # STORE: symbols_timing.py's, built

Loads the symbol file STORE holds (builds it when there is none), then prints the median of
RUNS warm calls (7 by default), each after one untimed call, of the map of the whole tree,
focused on one file, of `mm/` and focused on a name (the Linux tree's paths and names). For an
A/B, run it once per build in the same minutes (`PYTHONPATH` on a copy of the package before).
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

import ripsight
from ripsight import Workspace


def main(root: str, store: str, runs: int) -> None:
    started = time.monotonic()
    ws = Workspace(root, index=True, index_dir=store)
    ws.wait_index()
    while ws.index_status().get("symbols") not in ("ready", "failed"):
        time.sleep(0.01)
    print(f"{ripsight.__file__}: symbols ready in {time.monotonic() - started:.1f} s", flush=True)
    calls: list[tuple[str, Any]] = [
        ("the whole tree", lambda: ws.repo_map(max_chars=8000)),
        ("focused on kernel/fork.c", lambda: ws.repo_map(max_chars=8000, paths=["kernel/fork.c"])),
        ("of mm/", lambda: ws.repo_map("mm", max_chars=8000)),
        ("focused on the name kmalloc", lambda: ws.repo_map(max_chars=8000, names=["kmalloc"])),
    ]
    for name, call in calls:
        first = time.perf_counter()
        call()
        times = [(time.perf_counter() - first) * 1000]
        for _ in range(runs):
            started = time.perf_counter()
            call()
            times.append((time.perf_counter() - started) * 1000)
        print(
            f"repo_map {name}: first {times[0]:.0f} ms, median of {runs} "
            f"{statistics.median(times[1:]):.1f} ms",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 7)
