"""Time warm globs over the live table of an indexed workspace (in process, release build).

    python benches/warm_glob.py [ROOT]     # default: the Linux corpus of linux_source.py

Builds ``Workspace(ROOT, index=True)``, runs one broad grep (as an agent session would), then
for each pattern prints the median of its first 5 calls (no warm-up, as ``ripsight bench
--warm`` times its glob row) and of the 41 calls after them.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import ripsight

PATTERNS = ["**/*.c", "*.h", "drivers/**/*.c", "**/Makefile", "**/*usb*"]


def _ms(ws: ripsight.Workspace, pattern: str, times: int) -> list[float]:
    out = []
    for _ in range(times):
        start = time.perf_counter()
        ws.glob(pattern)
        out.append((time.perf_counter() - start) * 1000)
    return out


def main() -> None:
    root = sys.argv[1] if len(sys.argv) > 1 else "~/.cache/ripsight-bench/linux-source-6.1"
    ws = ripsight.Workspace(os.path.expanduser(root), index=True)
    if not ws.wait_index(600):
        raise SystemExit("the index did not become ready")
    ws.grep("Copyright", output_mode="files_with_matches")
    print(f"load average {os.getloadavg()[0]:.2f}")
    for pattern in PATTERNS:
        first = statistics.median(_ms(ws, pattern, 5))
        after = statistics.median(_ms(ws, pattern, 41))
        total = ws.glob(pattern).total
        print(f"{pattern:16} {total:6} files  first 5: {first:6.2f} ms  next 41: {after:6.2f} ms")
    if ws.index_status()["cold_calls"]:
        raise SystemExit("the cold engine answered a call: not a warm measurement")
    ws.close()


if __name__ == "__main__":
    main()
