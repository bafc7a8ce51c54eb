"""Cold engine against rg, in interleaved pairs (robust to a busy machine).

Each round times `rg` (a subprocess, as in `ripsight bench`) and then ripsight on a *fresh*
`Workspace` (no remembered walk sizes, no cached matchers: the cold engine), for grep and glob
cases; the answer of every call is checked against rg's first. Prints per case the median of
each tool and the median of the per-round ratios ripsight/rg (pairs share the machine's load).

    python benches/cold_pairs.py ~/.cache/ripsight-bench/linux-source-6.1 --rounds 7
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from ripsight import Workspace
from ripsight import bench as sb

CASES = [
    ("grep rare literal", "cassini", True),
    ("grep common regex", r"list_for_each_entry\w*\(", False),
    ("grep no match", "zyzzyva_not_present_anywhere_7", True),
]
GLOB = "**/*.c"


def timed(run: Callable[[], int]) -> tuple[float, int]:
    started = time.perf_counter()
    answer = run()
    return (time.perf_counter() - started) * 1000, answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    root = args.root
    cases: list[tuple[str, Callable[[], int], Callable[[], int], int]] = []
    for label, pattern, literal in CASES:
        cases.append(
            (
                label,
                lambda p=pattern, lit=literal: sb.rg_search(root, p, lit),
                lambda p=pattern, lit=literal: (
                    Workspace(root).grep(p, literal=lit, limit=50).total_matches
                ),
                sb.rg_count(root, pattern, literal),
            )
        )
    name_glob = GLOB.rsplit("/", 1)[-1]
    cases.append(
        (
            f"glob {GLOB}",
            lambda: sb.rg_files_count(root, name_glob),
            lambda: Workspace(root).glob(GLOB, limit=200).total,
            sb.rg_files_count(root, name_glob),
        )
    )
    print(f"cold pairs on {root}, {args.rounds} rounds (fresh Workspace per call)")
    print("| case | rg median ms | ripsight median ms | median ratio of pairs |")
    print("|---|---:|---:|---:|")
    for label, rg, ours, expect in cases:
        _, answer = timed(ours)  # warm the page cache, check the answer
        assert answer == expect, (label, answer, expect)
        rg_ms, our_ms, ratios = [], [], []
        for _ in range(args.rounds):
            a, _ = timed(rg)
            b, answer = timed(ours)
            assert answer == expect, (label, answer, expect)
            rg_ms.append(a)
            our_ms.append(b)
            ratios.append(b / a)
        print(
            f"| {label} | {statistics.median(rg_ms):.1f} | {statistics.median(our_ms):.1f} | "
            f"{statistics.median(ratios):.2f}x |"
        )


if __name__ == "__main__":
    main()
