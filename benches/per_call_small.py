"""A small repository's per-call grep, four ways, beside an `rg` subprocess in the same run:
`Workspace.grep` cold, `Registry.execute` cold, a workspace opened for each call
(`Workspace(root).grep`), and `Workspace.grep` on a warm index (what `ripsight mcp` answers with
by default). Medians of 200 calls (40 for rg), three rounds.

    python benches/per_call_small.py          # the bench's 300-file repository
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from ripsight import Workspace, bench, default_registry
from ripsight.bench.corpus import COMMON_REGEX
from ripsight.bench.peers import rg_search


def median_ms(call: Callable[[], Any], runs: int) -> float:
    call()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    root = bench.small_repo(300)
    cold = Workspace(root)
    registry = default_registry(root)
    warm = Workspace(root, index=True, persist=False)
    warm.wait_index(60)
    grep = {"name": "grep", "arguments": {"pattern": COMMON_REGEX}}
    for _ in range(3):
        rg = median_ms(lambda: rg_search(root, COMMON_REGEX), 40)
        ways = {
            "Workspace.grep, cold": median_ms(lambda: cold.grep(COMMON_REGEX, limit=50), 200),
            "Registry.execute grep, cold": median_ms(lambda: registry.execute(grep), 200),
            "Workspace(root).grep, a workspace per call": median_ms(
                lambda: Workspace(root).grep(COMMON_REGEX, limit=50), 200
            ),
            "Workspace.grep, warm index": median_ms(lambda: warm.grep(COMMON_REGEX, limit=50), 200),
        }
        print(
            f"rg {rg:.2f} ms; "
            + "; ".join(f"{k} {v:.2f} ms ({v / rg:.2f}x)" for k, v in ways.items())
        )


if __name__ == "__main__":
    main()
