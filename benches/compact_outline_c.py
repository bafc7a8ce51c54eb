"""How many of ctags' function names read_file's compact outline shows on the long C files of
a Linux tree (`kernel/` and `mm/`, files of at least 1,000 lines), split by whether 80% of
them can be named in the outline's share at all.

    python benches/compact_outline_c.py /path/to/linux-source-6.1

A file "can" when its shortest 80% of names, each with a separator and a space (the least a
row of names costs, without their lines), fit in the share (2,400 characters of the default
budget): past that no form can reach 80%. The figures are in docs/outline-oracles.md.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import test_compact_outline as oracle
from ripsight import Workspace
from ripsight.tools.outline import compact_outline


def main(root: Path) -> None:
    files = oracle.long_files(root, "kernel/**/*.c") + oracle.long_files(root, "mm/**/*.c")
    theirs = oracle.ctags_names(root, files, "C", "f")
    rows = {True: [0, 0, 0], False: [0, 0, 0]}
    with Workspace(root, time_budget=600) as ws:
        for relative in files:
            names = theirs.get(relative)
            text = compact_outline(ws.outline(relative, limit=None), oracle.SHARE)
            if not names or text is None:
                continue
            shown = len(names & oracle.shown_names(text))
            cheapest = sum(sorted(len(n) + 2 for n in names)[: math.ceil(0.8 * len(names))])
            row = rows[cheapest <= oracle.SHARE]
            row[0], row[1], row[2] = row[0] + 1, row[1] + shown, row[2] + len(names)
    for can, (count, shown, total) in rows.items():
        what = "can" if can else "cannot"
        print(
            f"{count} files whose 80% {what} be named: {shown:,} of {total:,} names shown "
            f"({shown / max(1, total):.1%})"
        )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
