"""The harness of `ripsight bench [ROOT]`: ripsight against ripgrep and its peers, on your repository or a generated one.

    ripsight bench                       # a generated 5,000-file repository (cached)
    ripsight bench ~/src/monorepo --json figures.json --plot figures.png
    ripsight bench --quick               # a generated ~300-file repository, 3 repeats

Every case first checks that each tool found the same answer (the same total of matching lines or
files), then times it. Figures are medians of `--repeat` runs, page cache warm (one untimed run
first), the tools of a case timed round-robin so that outside load falls on all alike; every
figure is also shown as a ratio to `rg`, the reference. ripsight is timed
in-process through the Python API (the way an agent pays for a call); `rg`, `fd` and
`tail | head` are timed as whole subprocesses started from Python.

The harness is split by concern: `corpus` (the generated repositories and log), `peers` (rg,
fd, the bindings, pure Python), `suite` (the cases, checked then timed) and `report` (machine,
table, plot). This module is the command; it re-exports their public names for benches/.
"""

from __future__ import annotations

import argparse
import os
import sys

from .corpus import (
    cache_dir,
    corpus_plan,
    monorepo,
    small_repo,
)
from .options import build_parser
from .peers import (
    rg_binary,
)
from .report import finish, format_table, plot
from .suite import run_suite


def main(argv: list[str] | None = None) -> int:
    """``ripsight bench [ROOT] [--quick] [--repeat N] [--json FILE] [--plot FILE.png]``."""
    return run(build_parser().parse_args(argv))


def run(args: argparse.Namespace) -> int:
    """Runs ``ripsight bench`` from parsed arguments (see `add_arguments`), in the mode they ask
    for (``--scale``, ``--warm``, ``--navigation``, else the suite); returns the exit code: 0, 1 when a tool found
    a different answer or ripsight failed, 2 for unusable arguments."""
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print(
                "--plot needs matplotlib, which is not installed: "
                "pip install 'ripsight[bench]' (or pip install matplotlib), or drop --plot.",
                file=sys.stderr,
            )
            return 2
    # The other modes, after the checks they share (said before a run of many minutes).
    if args.scale:
        from .scale import run as run_scale

        return run_scale(args)
    if args.warm:
        from .warm import run as run_warm

        return run_warm(args)
    if args.navigation:
        from .navigation import run as run_navigation

        return run_navigation(args)
    if rg_binary() is None:
        print(
            "rg (ripgrep) is the reference and was not found: pip install 'ripgrep<15'.",
            file=sys.stderr,
        )
        return 2
    if args.root and not os.path.isdir(args.root):
        print(f"{args.root} is not a directory: pass the repository to measure.", file=sys.stderr)
        return 2
    if args.repeat is not None and args.repeat < 1:
        print("--repeat must be at least 1.", file=sys.stderr)
        return 2
    if args.log_mb is not None and args.log_mb < 1:
        print("--log-mb must be at least 1 (megabytes of generated log).", file=sys.stderr)
        return 2
    repeat = args.repeat or (3 if args.quick else 5)
    print(plan_text(args), file=sys.stderr, flush=True)
    root = args.root or (small_repo(300) if args.quick else monorepo(5_000))
    fig = run_suite(
        root,
        repeat=repeat,
        quick=args.quick,
        log_mb=args.log_mb,
        rare=args.rare,
        common=args.common,
        none=args.none,
        glob=args.glob,
        progress=not args.no_progress,
    )
    pats = ", ".join(f"{k}: {v!r}" for k, v in fig["patterns"].items())
    print(
        f"ripsight bench: {fig['root']} ({fig['machine'].get('cpu', '?')}, "
        f"{fig['machine']['cpus']} cpus, Python {fig['machine']['python']}), "
        f"median of {repeat} warm runs, load average {fig['load_average']['start']:.2f} -> "
        f"{fig['load_average']['end']:.2f}"
    )
    print(f"patterns: {pats}; glob: {fig['glob']!r}")
    print(format_table(fig))
    return finish(fig, args, plot)


def plan_text(args: argparse.Namespace) -> str:
    """What the suite will generate, where and about how large, said before it starts."""
    plan = _plan(args.quick, args.root, args.log_mb)
    parts = [
        f"{what} (about {_megabytes(size)}{', already there' if there else ''})"
        for what, _, size, there in plan
    ]
    to_write = sum(size for _, _, size, there in plan if not there)
    text = (
        f"ripsight bench: its corpora are generated in {cache_dir()} ($RIPSIGHT_BENCH_DIR "
        f"chooses another place) and kept for later runs: {', '.join(parts)}. "
    )
    if not to_write:
        return text + "All of them are there already."
    text += f"This run writes about {_megabytes(to_write)} there first"
    if args.quick:
        return text + "."
    quick = sum(size for _, _, size, _ in _plan(True, args.root, None))
    return text + f"; --quick measures on smaller ones (about {_megabytes(quick)} in all)."


def _plan(quick: bool, root: str | None, log_mb: int | None) -> list[tuple[str, str, int, bool]]:
    """`corpus_plan` of a run: the repository measured (unless `root`), the small one of the
    per-call cases, the log of the deep read (as `run` and `run_suite` choose them)."""
    repositories = [] if root else [("small", 300) if quick else ("monorepo", 5_000)]
    repositories.append(("small", 60 if quick else 300))
    return corpus_plan(repositories, log_mb if log_mb is not None else (20 if quick else 500))


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:,.0f} MB" if size >= 1_000_000 else "1 MB"


if __name__ == "__main__":
    sys.exit(main())
