"""The first calls of a process on a tree whose index is not built yet, made while it builds,
against the same calls made cold (no index) right after: each answer's totals, whether it was
complete, and its time. A call during the build must answer at least as completely as the cold
call (SPEC §2.9: background work gives way to calls).

    python benches/first_calls.py ROOT [PATTERN ...]

A new, empty store (a temporary directory) makes the process build the indexes; the calls
start at once, in order, while the n-gram index is `building`. Exit status 1 when a call made
during the build is incomplete where the cold call is not, or their totals differ. The default
patterns are the Linux tree's (a selective, a medium and a broad one, `files_with_matches`).
"""

from __future__ import annotations

import sys
import tempfile
import time
from typing import Any

from ripsight import Workspace

LINUX_PATTERNS = ["kmalloc_array", "module_platform_driver", "SPDX-License-Identifier"]


def _call(ws: Workspace, pattern: str) -> tuple[Any, float, str]:
    state = ws.index_status()["state"]
    started = time.perf_counter()
    result = ws.grep(pattern, literal=True, output_mode="files_with_matches", limit=50)
    return result, (time.perf_counter() - started) * 1000, state


def main(root: str, patterns: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="ripsight-first-") as store:
        ws = Workspace(root, index=True, index_dir=store)
        during = [_call(ws, p) for p in patterns]
        ws.close()
    cold_ws = Workspace(root)
    cold = [_call(cold_ws, p) for p in patterns]
    print(f"{root}: the first calls while the index builds, then the same calls cold")
    print("| pattern | index state | files (during / cold) | complete | ms (during / cold) |")
    print("|---|---|---:|---|---:|")
    problems = 0
    for p, (d, d_ms, state), (c, c_ms, _) in zip(patterns, during, cold, strict=True):
        same = (d.total_files, d.total_matches) == (c.total_files, c.total_matches)
        worse = d.incomplete and not c.incomplete
        if worse or (not d.incomplete and not c.incomplete and not same):
            problems += 1
        complete = f"{'no' if d.incomplete else 'yes'} / {'no' if c.incomplete else 'yes'}"
        print(
            f"| `{p}` | {state} | {d.total_files:,} / {c.total_files:,} | {complete} "
            f"| {d_ms:.1f} / {c_ms:.1f} |"
        )
    if problems:
        print(f"PROBLEM: {problems} call(s) made during the build answered less than cold")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2:] or LINUX_PATTERNS))
