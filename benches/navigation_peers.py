"""Navigation beside the tools people use for it, in one run on one tree: ripsight's warm symbol
index against cscope (callers), GNU Global (references) and rg (the grep an agent runs today).

    python benches/navigation_peers.py ROOT STORE [--rounds N]

ROOT is a C tree (the names are the Linux tree's); STORE is ripsight's index directory (a built
symbol index there is loaded, else built). cscope's and Global's databases are built in a
temporary directory, never in ROOT, and their build times are printed beside the symbol index's.
Each query is timed as its user meets it: ripsight's as a call on the warm `Workspace` (what its
MCP server answers with), each peer as a process over its built database (`cscope -d -L -3`,
`global -rx`, `rg -nw`), the way an agent's shell runs them. Medians of N rounds (default 7).
Figures in benches/README.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Any

from ripsight import Workspace

#: (name, what is asked): a selective function, a very common one, a common field-like name.
NAMES = ("kmem_cache_alloc_lru", "kmalloc", "mutex_lock")


def seconds(command: list[str], **kwargs: Any) -> float:
    started = time.monotonic()
    subprocess.run(command, check=True, capture_output=True, timeout=3600, **kwargs)
    return time.monotonic() - started


def median_ms(call: Callable[[], Any], rounds: int) -> tuple[float, Any]:
    answer = call()
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        answer = call()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), answer


def run_lines(command: list[str], **kwargs: Any) -> int:
    out = subprocess.run(command, capture_output=True, timeout=600, check=False, **kwargs)
    return out.stdout.count(b"\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root")
    parser.add_argument("store")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    work = tempfile.mkdtemp(prefix="navigation-peers-")
    try:
        files = os.path.join(work, "cscope.files")
        with open(files, "w") as listing:
            for base, dirs, names in os.walk(root):
                dirs.sort()
                for name in sorted(names):
                    if name.endswith((".c", ".h")):
                        listing.write(os.path.join(base, name) + "\n")
        xref = os.path.join(work, "cscope.out")
        cscope_build = seconds(["cscope", "-b", "-q", "-k", "-f", xref, "-i", files], cwd=work)
        gtags_db = os.path.join(work, "gtags")
        os.mkdir(gtags_db)
        gtags_build = seconds(["gtags", "-f", files, gtags_db], cwd=root)

        started = time.monotonic()
        ws = Workspace(root, index=True, index_dir=args.store)
        ws.wait_index()
        while ws.index_status().get("symbols") not in ("ready", "failed"):
            time.sleep(0.05)
        status = ws.index_status()
        ready = time.monotonic() - started
        how = "loaded" if status.get("symbols_loaded") else "built"
        print(
            f"databases: cscope -b -q -k {cscope_build:.1f} s, gtags {gtags_build:.1f} s, "
            f"ripsight symbol index {how} (ready {ready:.1f} s after open"
            + (f", its build {status['symbols_build_ms'] / 1000:.1f} s)" if how == "built" else ")")
        )

        global_env = {**os.environ, "GTAGSROOT": root, "GTAGSDBPATH": gtags_db}
        rows = []
        for name in NAMES:
            ours_ms, callers = median_ms(lambda n=name: ws.references(n, role="call"), args.rounds)
            cscope_ms, cscope_rows = median_ms(
                lambda n=name: run_lines(["cscope", "-d", "-f", xref, "-L", "-3", n], cwd=work),
                args.rounds,
            )
            rows.append(
                ("callers", name, ours_ms, callers.total, "cscope -L -3", cscope_ms, cscope_rows)
            )
            refs_ms, refs = median_ms(lambda n=name: ws.references(n), args.rounds)
            global_ms, global_rows = median_ms(
                lambda n=name: run_lines(["global", "-rx", n], cwd=root, env=global_env),
                args.rounds,
            )
            rows.append(("references", name, refs_ms, refs.total, "global -rx", global_ms,
                         global_rows))  # fmt: skip
            rg_ms, rg_rows = median_ms(
                lambda n=name: run_lines(["rg", "-nw", "--no-heading", n, "."], cwd=root),
                args.rounds,
            )
            rows.append(("references", name, refs_ms, refs.total, "rg -nw", rg_ms, rg_rows))
        print(f"\nmedians of {args.rounds} rounds; 'found' counts what each answers with")
        print("| question | name | ripsight warm | found | peer | peer | found | peer / ripsight |")
        print("|---|---|---:|---:|---|---:|---:|---:|")
        for question, name, ours, found, peer, theirs, their_found in rows:
            print(
                f"| {question} | `{name}` | {ours:.1f} ms | {found:,} | `{peer}` | "
                f"{theirs:.1f} ms | {their_found:,} | {theirs / ours:.1f}x |"
            )
        ws.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
