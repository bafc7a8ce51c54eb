"""What a call costs while the symbol index builds in the background, against the same call
once it is ready: the same process, the same queries, medians of 5 alternating rounds.

    python benches/during_build.py ROOT [PATTERN ...]

A new, empty store (a temporary directory) makes the process build both indexes. Once the
n-gram index is ready the queries run in rounds while the symbol index is `building` (a round
counts only if the phase was `building` before and after it); then, once it is `ready`, the
same rounds again. Prints each query's medians and their ratio. The default queries are
the Linux tree's (a selective, a medium and a broad one, `files_with_matches`).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time

from ripsight import Workspace

LINUX_QUERIES = [
    "sja1105_static_config",
    "kvm_mmu_page",
    "module_platform_driver",
    "SPDX-License-Identifier",
]
ROUNDS = 5


def _time_ms(ws: Workspace, pattern: str) -> float:
    started = time.perf_counter()
    ws.grep(pattern, literal=True, output_mode="files_with_matches", limit=50)
    return (time.perf_counter() - started) * 1000


def _rounds(ws: Workspace, patterns: list[str], phase: str | None) -> dict[str, list[float]]:
    """ROUNDS rounds of every pattern; with `phase`, only rounds that began and ended in it."""
    times: dict[str, list[float]] = {p: [] for p in patterns}
    tries = 0
    while min(len(t) for t in times.values()) < ROUNDS and tries < 50 * ROUNDS:
        tries += 1
        before = ws.index_status()["symbols"]
        round_ = {p: _time_ms(ws, p) for p in patterns}
        after = ws.index_status()["symbols"]
        if phase is not None and not (before == after == phase):
            if after != phase:
                break
            continue
        for p, ms in round_.items():
            times[p].append(ms)
    return times


def main(root: str, patterns: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="ripsight-during-") as store:
        ws = Workspace(root, index=True, index_dir=store)
        if not ws.wait_index(3600):
            sys.exit("the n-gram index was not ready within an hour")
        for p in patterns:  # each pattern's first call (its regex compiled, pages touched)
            _time_ms(ws, p)
        during = _rounds(ws, patterns, "building")
        deadline = time.monotonic() + 3600
        while ws.index_status()["symbols"] != "ready" and time.monotonic() < deadline:
            time.sleep(0.5)
        status = ws.index_status()
        after = _rounds(ws, patterns, None)
        print(f"{root}: symbol index {status['symbols']}")
        print("| query | during the symbol build, ms | after, ms | ratio |")
        print("|---|---:|---:|---:|")
        for p in patterns:
            if not during[p]:
                print(
                    f"| `{p}` | (no round fitted in the build) | {statistics.median(after[p]):.1f} | |"
                )
                continue
            d, a = statistics.median(during[p]), statistics.median(after[p])
            print(f"| `{p}` | {d:.1f} (n={len(during[p])}) | {a:.1f} | {d / a:.2f}x |")
        ws.close()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:] or LINUX_QUERIES)
