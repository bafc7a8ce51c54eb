"""The symbol index's timings on a tree, without the cold calls of bench_symbols.py: the build
(a child process, an empty store), a second process's load, and warm navigation and map calls.

    python benches/symbols_timing.py ROOT [STORE]     # default STORE: a new temporary directory

Prints the build's seconds, the symbol file's size against the tree's bytes and the building
process's peak RSS (the n-gram build and the mapped files included), the second
process's seconds until its symbol index is ready, and medians of warm calls (`references` of a
selective name, the callers of `kmalloc`, `definitions`, `repo_map` of the tree, focused on one
file, and of `mm/`). The names and paths are the Linux tree's; figures in benches/README.md.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from ripsight import Workspace
from ripsight.bench.navigation import ready


def median_ms(call: Any, runs: int) -> tuple[float, Any]:
    answer = call()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        answer = call()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), answer


def main(root: str, store: str) -> None:
    child = [sys.executable, __file__, "--ready", root, store]
    built = json.loads(subprocess.run(child, capture_output=True, check=True, timeout=3600).stdout)
    print(
        f"build: n-grams ready {built['ngrams_s']:.1f} s, symbols ready {built['symbols_s']:.1f} s "
        f"({'loaded' if built.get('symbols_loaded') else 'built'} in "
        f"{built['symbols_build_ms'] / 1000:.1f} s), symbol file "
        f"{built['symbol_bytes'] / 1e6:.1f} MB = {built['symbol_bytes'] / built['bytes']:.1%} of "
        f"{built['bytes'] / 1e6:,.0f} MB; the building process's peak RSS "
        f"{built['peak_rss'] / 1e6:,.0f} MB"
    )
    second = ready(root, store)
    print(f"second process: symbols ready {second['symbols_s']:.2f} s")
    ws = Workspace(root, index=True, index_dir=store)
    ws.wait_index()
    while ws.index_status().get("symbols") not in ("ready", "failed"):
        time.sleep(0.01)
    calls = [
        ("references kmem_cache_alloc_lru", lambda: ws.references("kmem_cache_alloc_lru"), 11),
        (
            "callers of kmalloc, first page",
            lambda: ws.references("kmalloc", role="call", group_by="caller"),
            11,
        ),
        ("definitions kmalloc", lambda: ws.definitions("kmalloc"), 11),
        ("repo_map of the tree, 8,000 chars", lambda: ws.repo_map(max_chars=8000), 7),
        (
            "repo_map focused on kernel/fork.c",
            lambda: ws.repo_map(max_chars=8000, paths=["kernel/fork.c"]),
            7,
        ),
        ("repo_map of mm/", lambda: ws.repo_map("mm", max_chars=8000), 7),
    ]
    for name, call, runs in calls:
        ms, answer = median_ms(call, runs)
        count = answer.files_ranked if hasattr(answer, "files_ranked") else answer.total
        print(f"{name}: {ms:.1f} ms ({count:,})")


if __name__ == "__main__":
    if sys.argv[1] == "--ready":
        print(json.dumps(ready(sys.argv[2], sys.argv[3])))
    else:
        main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp())
