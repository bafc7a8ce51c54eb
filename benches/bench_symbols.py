"""Time the symbol index (issue 24) on a tree (in process, release build).

    python benches/bench_symbols.py [ROOT] [--store DIR] [--calls-only]
                                      # default ROOT: /work/kernel/linux-source-6.1

Measures, in order:
1. the build: ``Workspace(ROOT, index=True, index_dir=DIR)`` in a child process until its symbol
   index is ready (a fresh DIR: built, not loaded), the symbol file's size against the bytes of
   the files it describes;
2. a second process on the same DIR: the seconds until its symbol index is ready (loaded);
3. warm calls (this process, the symbol index loaded): `references` of a selective name, the
   callers of `kmalloc` (``role="call", group_by="caller"``, exact totals, first page), and
   `definitions` of `kmalloc`, medians of 21;
4. the same calls cold (``Workspace(ROOT, time_budget=600)``, no index; the outline cache
   cleared), one run each (the run that checks the warm answer): the default budget (10 s)
   would cut kmalloc's cold answer short.

``--calls-only`` skips 1 and 2 (a DIR that holds the tree's symbol file already).

Each warm answer is checked against the cold one (entries, totals, pages) before timing.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import ripsight
from ripsight.workspace import to_dict

CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("references, selective name", "references", {"name": "kmem_cache_alloc_lru"}),
    (
        "callers of kmalloc, first page",
        "references",
        {"name": "kmalloc", "role": "call", "group_by": "caller"},
    ),
    ("references of kmalloc, first page", "references", {"name": "kmalloc"}),
    ("definitions of kmalloc", "definitions", {"name": "kmalloc"}),
]

ACCOUNTING = {"elapsed_ms", "files_searched", "candidate_files", "files_parsed", "files_cached"}
ACCOUNTING |= {"files_cut", "skipped"}

CHILD = """
import json, sys, time
from ripsight import Workspace
start = time.perf_counter()
ws = Workspace(sys.argv[1], index=True, index_dir=sys.argv[2])
deadline = time.monotonic() + 3600
while ws.index_status().get("symbols") not in ("ready", "failed"):
    if time.monotonic() > deadline:
        raise SystemExit("no symbol index within an hour")
    time.sleep(0.02)
status = ws.index_status()
status["ready_after_s"] = time.perf_counter() - start
print(json.dumps(status), flush=True)
ws.close()
"""


def child(root: str, store: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, root, store],
        capture_output=True,
        text=True,
        timeout=4000,
        check=True,
    )
    status: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return status


def timed(ws: ripsight.Workspace, call: str, kwargs: dict[str, Any], times: int) -> float:
    out = []
    for _ in range(times):
        start = time.perf_counter()
        getattr(ws, call)(**kwargs)
        out.append((time.perf_counter() - start) * 1000)
    return statistics.median(out)


def normal(result: Any) -> Any:
    out = to_dict(result)
    for key in ACCOUNTING:
        out.pop(key, None)
    return json.loads(json.dumps(out, default=str))


def main() -> None:
    args = sys.argv[1:]
    calls_only = "--calls-only" in args
    args = [a for a in args if a != "--calls-only"]
    store = None
    if "--store" in args:
        at = args.index("--store")
        store = args[at + 1]
        del args[at : at + 2]
    root = os.path.expanduser(args[0] if args else "/work/kernel/linux-source-6.1")
    store = store or tempfile.mkdtemp(prefix="ripsight-symbols-")
    print(f"tree {root}, store {store}, load average {os.getloadavg()[0]:.2f}")
    if not calls_only:
        build_and_load(root, store)
    calls(root, store)


def build_and_load(root: str, store: str) -> None:
    first = child(root, store)
    print(
        f"build: ready after {first['ready_after_s']:.1f} s (symbols {first['symbols_build_ms']:.0f}"
        f" ms, loaded={first['symbols_loaded']}), {first['symbol_files_total']:,} files parsed,"
        f" symbol file {first['symbol_bytes'] / 1e6:.1f} MB = "
        f"{100 * first['symbol_bytes'] / max(first['bytes'], 1):.1f}% of the tree's"
        f" {first['bytes'] / 1e6:.1f} MB"
    )
    second = child(root, store)
    print(
        f"second process: ready after {second['ready_after_s']:.2f} s"
        f" (symbols loaded={second['symbols_loaded']}, {second['symbols_build_ms']:.0f} ms)"
    )


def calls(root: str, store: str) -> None:
    warm = ripsight.Workspace(root, index=True, index_dir=store)
    deadline = time.monotonic() + 600
    while warm.index_status().get("symbols") != "ready":
        if time.monotonic() > deadline:
            raise SystemExit("the symbol index did not load")
        time.sleep(0.02)
    cold = ripsight.Workspace(root, time_budget=600)
    print(f"{'call':36} {'warm ms':>9} {'cold ms':>9}  answer")
    for label, call, kwargs in CALLS:
        got = getattr(warm, call)(**kwargs)
        cold._engine.clear_outline_cache()  # the outliner's cache is the process's
        start = time.perf_counter()
        expected = getattr(cold, call)(**kwargs)
        cold_ms = (time.perf_counter() - start) * 1000
        same = "same" if normal(got) == normal(expected) else "DIFFERENT"
        warm_ms = timed(warm, call, kwargs, 21)
        total = getattr(got, "total", 0)
        print(
            f"{label:36} {warm_ms:9.2f} {cold_ms:9.1f}  {same},"
            f" total {total:,}, searched {got.files_searched}"
        )
    warm.close()
    cold.close()


if __name__ == "__main__":
    main()
