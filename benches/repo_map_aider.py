"""repo_map beside Aider's RepoMap on one tree: cold and warm medians, and both maps' top files.

Aider (PyPI ``aider-chat``) runs in its own virtual environment, as a subprocess of this script
that times its own calls; ripsight runs in this process through the Python API. Both map the
same files (the tree's ``*.py`` files) to about the same size: ripsight's character budget, and
Aider's token budget at four characters a token (Aider's model is a stand-in counting
``len(text) / 4`` tokens, so no tokenizer is downloaded and its budget search costs less than
with a real one).

- cold: ripsight on a new Workspace with the outline cache cleared (every file parsed in the
  workers); Aider with its tags cache directory deleted (every file parsed in its process).
- warm: ripsight's next calls (the parses come from the engine's in-memory cache, the graph is
  built and ranked afresh each call); Aider on a new ``RepoMap`` over its filled on-disk tags
  cache with ``force_refresh=True`` (its in-memory map cache would otherwise answer a repeated
  call without ranking).

Aider writes its cache into the mapped tree, so the tree is copied to a scratch directory first
(``__pycache__`` left out)::

    /work/aider-venv/bin/pip install aider-chat     # once, never into ripsight's venv
    python benches/repo_map_aider.py /usr/lib/python3.11 --rounds 5
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from ripsight import Workspace
from ripsight.bench.navigation import aider_runs


def ripsight_runs(root: Path, chars: int, rounds: int) -> dict[str, object]:
    cold = []
    for _ in range(max(1, rounds // 2)):
        ws = Workspace(root)
        ws._engine.clear_outline_cache()
        started = time.perf_counter()
        result = ws.repo_map(max_chars=chars)
        cold.append((time.perf_counter() - started) * 1000)
        ws.close()
    ws = Workspace(root)
    ws.repo_map(max_chars=chars)
    warm = []
    for _ in range(rounds):
        started = time.perf_counter()
        result = ws.repo_map(max_chars=chars)
        warm.append((time.perf_counter() - started) * 1000)
    return {
        "cold": cold,
        "warm": warm,
        "top": [f.path for f in result.files],
        "chars": result.chars,
        "files": result.files_ranked,
        "partial": result.partial,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", default="/usr/lib/python3.11")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--chars", type=int, default=8000)
    parser.add_argument("--aider-python", default="/work/aider-venv/bin/python")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="repo-map-bench-") as scratch:
        root = Path(scratch) / "tree"
        shutil.copytree(args.tree, root, ignore=shutil.ignore_patterns("__pycache__"))
        ours = ripsight_runs(root, args.chars, args.rounds)
        files = sorted(str(p.relative_to(root)) for p in root.rglob("*.py"))
        aider = aider_runs(args.aider_python, str(root), files, args.rounds, args.chars)

    def median(runs: object) -> float:
        return statistics.median(runs)  # type: ignore[arg-type]

    print(f"tree: {args.tree} ({aider['files']} .py files; ripsight ranked {ours['files']})")
    print()
    print("| | Aider RepoMap | ripsight repo_map | Aider / ripsight |")
    print("|---|---|---|---|")
    for case in ("cold", "warm"):
        a, r = median(aider[case]), median(ours[case])
        print(
            f"| {case} (median of {len(ours[case])}) | {a:,.0f} ms | {r:,.1f} ms | {a / r:,.1f}x |"
        )
    print(f"| map size | {aider['chars']:,} chars | {ours['chars']:,} chars of listing | |")
    print()
    print("| rank | Aider RepoMap | ripsight repo_map |")
    print("|---|---|---|")
    theirs, mine = list(aider["top"]), list(ours["top"])  # type: ignore[call-overload]
    for i in range(args.top):
        a = theirs[i] if i < len(theirs) else ""
        r = mine[i] if i < len(mine) else ""
        print(f"| {i + 1} | {a} | {r} |")
    both = set(theirs[: args.top]) & set(mine[: args.top])
    shown = set(aider["shown"]) & set(mine)  # type: ignore[call-overload]
    print()
    print(
        f"files in both top {args.top}: {len(both)}; files in both maps: {len(shown)} "
        f"(Aider's map shows {len(aider['shown'])}, ripsight's {len(mine)})"
    )


if __name__ == "__main__":
    main()
