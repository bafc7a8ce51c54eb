"""The symbol index with a large overlay, then after its background merge: a copy of a subtree
(never the source itself) is indexed, 2,000 of its files are touched, and warm calls are timed
while the overlay is kept (this script holds the symbol file's writer lock, so the merge the
calls start cannot run: the behaviour before merges existed), then once the merge is in place.

    python benches/symbols_overlay.py SUBTREE [TOUCHED]    # e.g. linux/drivers/net/ethernet

Prints medians of 3 calls (`references` of `kmalloc` and `netdev_priv`, `calls` of `probe`,
`repo_map`) for each state and the seconds the merge took; figures in docs/warm-index.md (the symbol index).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ripsight import Workspace

CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("references kmalloc", "references", {"name": "kmalloc", "limit": 20}),
    ("references netdev_priv", "references", {"name": "netdev_priv", "limit": 20}),
    ("calls probe", "calls", {"name": "probe", "limit": 20}),
    ("repo_map", "repo_map", {}),
]


def timed(ws: Workspace, label: str) -> None:
    for title, call, kwargs in CALLS:
        times = []
        for _ in range(3):
            started = time.perf_counter()
            answer = getattr(ws, call)(**kwargs)
            times.append((time.perf_counter() - started) * 1000)
        searched = getattr(answer, "files_searched", "-")
        print(f"{label:14} {title:24} {statistics.median(times):8.0f} ms  overlay {searched}")


def main() -> None:
    source = Path(sys.argv[1])
    touched = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / source.name
        shutil.copytree(source, root, symlinks=True)
        store = Path(scratch) / "store"
        ws = Workspace(root, index=True, index_dir=store)
        started = time.monotonic()
        while ws.index_status().get("symbols") not in ("ready", "failed"):
            assert time.monotonic() - started < 1800
            time.sleep(0.1)
        print(f"symbol index built in {time.monotonic() - started:.1f} s")
        timed(ws, "overlay 0")
        files = sorted(p for p in root.rglob("*") if p.suffix in (".c", ".h"))[:touched]
        now = time.time()
        for path in files:
            os.utime(path, (now, now))
        time.sleep(1.5)
        [lock_path] = store.glob("*-symbols.lock")
        with open(lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            timed(ws, f"overlay {len(files)}")
            fcntl.flock(lock, fcntl.LOCK_UN)
        started = time.monotonic()
        while ws.index_status()["symbol_merges"] == 0:
            assert time.monotonic() - started < 1800
            ws.references("kmalloc", limit=1)
            time.sleep(0.2)
        print(f"merged in {time.monotonic() - started:.1f} s")
        timed(ws, "after merge")
        ws.close()


if __name__ == "__main__":
    main()
