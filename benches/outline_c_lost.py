"""How many of ctags' function names the outline misses on a Linux tree's C files (`kernel/`,
`mm/`, `fs/ext4/` and the e1000e driver), and the files that miss most: what a construct the
grammar cannot parse costs (the definitions after it, unless the parse starts again).

    python benches/outline_c_lost.py /path/to/linux-source-6.1

Names ctags gives a macro call that defines something (`SYSCALL_DEFINE3`, `BPF_CALL_2`,
`__setup`, `DEFINE_...`) are left out: the outline names those after their argument. The
figures are in docs/outline-oracles.md.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import test_compact_outline as oracle
from ripsight import Workspace

PARTS = ("kernel", "mm", "fs/ext4", "drivers/net/ethernet/intel/e1000e")
MACRO_CALL = re.compile(r"(COMPAT_)?SYSCALL_DEFINE\d|BPF_CALL_\d|__setup|DEFINE_")


def main(root: Path) -> None:
    files = [str(p.relative_to(root)) for part in PARTS for p in sorted((root / part).rglob("*.c"))]
    theirs = oracle.ctags_names(root, files, "C", "f")
    total = missing = 0
    worst = []
    with Workspace(root, time_budget=600) as ws:
        for relative in files:
            names = {n for n in theirs.get(relative, ()) if not MACRO_CALL.match(n)}
            if not names:
                continue
            lost = len(names - {s.name for s in ws.outline(relative, limit=None).symbols})
            total, missing = total + len(names), missing + lost
            if lost:
                worst.append((lost, relative))
    print(f"{len(files)} files: {missing:,} of {total:,} names missing ({missing / total:.2%})")
    for lost, relative in sorted(worst, reverse=True)[:10]:
        print(f"  {lost:4} {relative}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
