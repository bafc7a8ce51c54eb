"""The options of ``ripsight bench``: argparse only, so building the CLI's parser stays cheap.

The harness (`ripsight.bench.harness`, corpus generators and peer runners) is imported only when
the subcommand runs.
"""

from __future__ import annotations

import argparse

__all__ = ["NO_MATCH", "add_arguments", "build_parser"]

# Split so that running the benchmark on this package's own source still finds nothing.
NO_MATCH = "zyzzyva_" + "not_present_anywhere_7"


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options of ``ripsight bench``, for a CLI that builds its own (sub)parser."""
    parser.add_argument(
        "root",
        nargs="?",
        help="repository to measure (default: a generated "
        "5,000-file repository; with --quick a ~300-file one)",
    )
    parser.add_argument(
        "--repeat", type=int, default=None, help="timed runs per case (default 5; 3 with --quick)"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small corpora, fewer repeats, 20 MB log: a smoke run in seconds",
    )
    parser.add_argument("--json", metavar="FILE", help="write the raw figures as JSON")
    parser.add_argument("--plot", metavar="FILE.png", help="draw the ratios (needs matplotlib)")
    parser.add_argument(
        "--log-mb",
        type=int,
        default=None,
        help="size of the generated log for the deep read (default 500; 20 quick)",
    )
    parser.add_argument(
        "--rare",
        help="rare literal to grep (default: the one the generators "
        "plant, else an identifier found on 1-100 lines of the repository)",
    )
    parser.add_argument(
        "--common",
        help="common regex to grep (default: the generators' one, "
        "else the built-in candidate closest to 15,000 matching lines)",
    )
    parser.add_argument("--none", help=f"literal that matches nothing (default {NO_MATCH!r})")
    parser.add_argument("--glob", help="glob case (default: **/*.EXT for the most common EXT)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.add_argument(
        "--warm",
        action="store_true",
        help="measure the warm workspace (index=True) on ROOT beside the cold engine, rg, "
        "csearch and ayg instead (see ripsight.bench.warm)",
    )
    parser.add_argument(
        "--warm-patterns",
        nargs="+",
        metavar="PATTERN",
        help="patterns of --warm (default on a Linux tree: PM_RESUME cassini "
        "EXPORT_SYMBOL_GPL Copyright)",
    )
    parser.add_argument(
        "--ayg",
        action="store_true",
        help="with --warm or --scale: also build and time ayg (writes ayg_index/ into ROOT)",
    )
    parser.add_argument(
        "--scale",
        action="store_true",
        help="measure the warm index against tree size: ROOT, then --copies full copies of it "
        "side by side, each beside rg, csearch (and ayg); with a second process's load time "
        "and heap; --plot draws latency, build time and memory against size "
        "(see ripsight.bench.scale)",
    )
    parser.add_argument(
        "--copies",
        type=int,
        nargs="+",
        metavar="N",
        help="with --scale: the trees measured, as copies of ROOT (default: 1 3)",
    )
    parser.add_argument(
        "--links",
        action="store_true",
        help="with --scale: also a copy of ROOT made of hard links (cp -al)",
    )
    parser.add_argument(
        "--navigation",
        action="store_true",
        help="measure the symbol index on ROOT instead: its build, a second process's load, "
        "warm references, callers, definitions and maps beside cscope, GNU Global and rg "
        "(and Aider's RepoMap with --aider-python), every answer checked against the cold "
        "engine first (see ripsight.bench.navigation)",
    )
    parser.add_argument(
        "--names",
        nargs=2,
        metavar=("SELECTIVE", "COMMON"),
        help="with --navigation: the names asked (default on a Linux tree: "
        "kmem_cache_alloc_lru kmalloc; else picked from the tree's map)",
    )
    parser.add_argument(
        "--focus",
        metavar="PATH",
        help="with --navigation: the file the focused map is about (default on a Linux tree: "
        "kernel/fork.c; else the map's top file)",
    )
    parser.add_argument(
        "--aider-python",
        metavar="PYTHON",
        help="with --navigation: an interpreter whose environment has PyPI's aider-chat "
        "(installed apart from ripsight's); times Aider's RepoMap beside ripsight's map",
    )
    return parser


def build_parser(prog: str = "ripsight bench") -> argparse.ArgumentParser:
    return add_arguments(
        argparse.ArgumentParser(
            prog=prog,
            description="Time ripsight against rg, fd, python-ripgrep, ripgrep-rs, pure Python and "
            "tail|head on a repository; prints medians and ratios to rg.",
        )
    )
