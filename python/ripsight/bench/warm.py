"""``ripsight bench --warm``: the warm workspace (``Workspace(root, index=True)``) beside the cold
engine, ``rg``, ``csearch`` (Debian ``codesearch``) and ``ayg`` (crates.io ``aygrep``).

For every pattern each tool's answer (the set of files with a match) is checked before it is
timed: the warm answer must equal the cold one (else the run fails); peers that index a
different file set (csearch reads ignored and hidden files alike) are reported with the size of
the difference. ripsight's calls are in-process (``files_with_matches``, exact totals); the
peers are whole processes, as an agent would run them. ``ayg`` is measured only with
``--ayg`` (it writes ``ayg_index/`` into the repository, which must be a git work tree; the run
adds ``ayg_index/`` to ``.git/info/exclude`` so that no tool lists it).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Any

from .peers import rg_binary, same_set_rg_args
from .report import finish, machine_info, mode_root

#: The Linux-tree patterns of the goals: selective (13, 4, 186 and 169 files: the lowercase
#: ones are made of common words), 688 files, medium (3,227), broad (49,006).
KERNEL_PATTERNS = (
    "PM_RESUME",
    "cassini",
    "pm_resume",
    "sched_clock",
    "kmalloc_array",
    "EXPORT_SYMBOL_GPL",
    "Copyright",
)
KERNEL_GLOB = "**/*.c"


def _status_kib(field: str) -> int:
    """A line of /proc/self/status in KiB (0 where there is none)."""
    try:
        with open("/proc/self/status", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _rss_mb() -> float:
    return _status_kib("VmRSS") / 1024


def _lines(cmd: list[str], cwd: str, env: dict[str, str] | None = None) -> list[str]:
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, check=False, env=env)
    return [os.fsdecode(line) for line in out.stdout.splitlines() if line]


def _relative(root: str, paths: list[str]) -> set[str]:
    out = set()
    for path in paths:
        path = path.removeprefix("./")
        out.add(os.path.relpath(path, root) if os.path.isabs(path) else path)
    return out


def _median_ms(fn: Callable[..., Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def run_warm(
    root: str, patterns: list[str], glob: str, repeat: int = 5, use_ayg: bool = False
) -> dict[str, Any]:
    """Builds the warm index of `root` and times every pattern with every tool."""
    from ..workspace import Workspace

    root = os.path.realpath(root)
    rss_before = _rss_mb()
    anon_before = _status_kib("RssAnon")
    started = time.perf_counter()
    warm = Workspace(root, index=True)
    warm.wait_index()
    build_s = time.perf_counter() - started
    status = warm.index_status()
    rss_after = _rss_mb()
    # The heap this process grew by (the mapped index file is not heap).
    heap_growth = (_status_kib("RssAnon") - anon_before) * 1024
    cold = Workspace(root)
    rg = rg_binary()
    peers: dict[str, dict[str, Any]] = {}
    tmp = tempfile.mkdtemp(prefix="ripsight-warm-")
    env = dict(os.environ, CSEARCHINDEX=os.path.join(tmp, "csearchindex"))
    if shutil.which("cindex") and shutil.which("csearch"):
        start = time.perf_counter()
        subprocess.run(["cindex", root], env=env, capture_output=True, check=False)
        peers["csearch"] = {
            "build_s": time.perf_counter() - start,
            "index_mb": os.path.getsize(env["CSEARCHINDEX"]) / 2**20,
        }
    ayg = shutil.which("ayg")
    if use_ayg and ayg and os.path.isdir(os.path.join(root, ".git")):
        exclude = os.path.join(root, ".git", "info", "exclude")
        os.makedirs(os.path.dirname(exclude), exist_ok=True)
        with open(exclude, "a+", encoding="utf-8") as fh:
            fh.seek(0)
            if "ayg_index/" not in fh.read().split():
                fh.write("\nayg_index/\n")
        start = time.perf_counter()
        subprocess.run([ayg, "build", "."], cwd=root, capture_output=True, check=False)
        peers["ayg"] = {"build_s": time.perf_counter() - start}

    tools: dict[str, Callable[[str], set[str]]] = {
        "ripsight warm": lambda p: {
            f.path for f in warm.grep(p, output_mode="files_with_matches", limit=None).files
        },
        "ripsight cold": lambda p: {
            f.path for f in cold.grep(p, output_mode="files_with_matches", limit=None).files
        },
    }
    timed: dict[str, Callable[[str], Any]] = {
        "ripsight warm": lambda p: warm.grep(p, output_mode="files_with_matches"),
        "ripsight cold": lambda p: cold.grep(p, output_mode="files_with_matches"),
    }
    if rg:
        rg_cmd = [rg, "-l", "--no-messages", *same_set_rg_args()]
        tools["rg"] = lambda p: _relative(root, _lines([*rg_cmd, "-e", p, "."], root))
        timed["rg"] = lambda p: subprocess.run(
            [*rg_cmd, "-e", p, "."], cwd=root, capture_output=True, check=False
        )
    if "csearch" in peers:
        tools["csearch"] = lambda p: _relative(root, _lines(["csearch", "-l", p], root, env))
        timed["csearch"] = lambda p: subprocess.run(
            ["csearch", "-l", p], cwd=root, env=env, capture_output=True, check=False
        )
    if "ayg" in peers and ayg:
        tools["ayg"] = lambda p: _relative(root, _lines([ayg, "search", p, "-l"], root))
        timed["ayg"] = lambda p: subprocess.run(
            [ayg, "search", p, "-l"], cwd=root, capture_output=True, check=False
        )

    rows: list[dict[str, Any]] = []
    problems: list[str] = []
    for pattern in patterns:
        answers = {name: fn(pattern) for name, fn in tools.items()}
        reference = answers["ripsight cold"]
        if answers["ripsight warm"] != reference:
            problems.append(f"{pattern!r}: the warm answer differs from the cold one")
        row: dict[str, Any] = {"pattern": pattern, "files": len(reference), "ms": {}, "differs": {}}
        for name, fn in timed.items():
            fn(pattern)  # warm-up (page cache, index files)
            reps = repeat if name != "ripsight cold" else max(1, min(repeat, 3))
            row["ms"][name] = _median_ms(lambda fn=fn, p=pattern: fn(p), reps)
            row["differs"][name] = len(answers[name] ^ reference)
        rows.append(row)
    # A first call of each, as for the patterns (the glob is timed after the peers' runs).
    warm.glob(glob)
    cold.glob(glob)
    glob_row = {
        "pattern": glob,
        "warm_ms": _median_ms(lambda: warm.glob(glob), repeat),
        "cold_ms": _median_ms(lambda: cold.glob(glob), max(1, min(repeat, 3))),
        "files": warm.glob(glob).total,
    }
    if warm.glob(glob, limit=None).paths != cold.glob(glob, limit=None).paths:
        problems.append(f"glob {glob!r}: the warm answer differs from the cold one")
    status = warm.index_status()
    warm.close()
    shutil.rmtree(tmp, ignore_errors=True)
    return {
        "root": root,
        "machine": machine_info(),
        "build_s": build_s,
        "index": status,
        "rss_mb": {"before": rss_before, "after_build": rss_after},
        "heap_growth": heap_growth,
        "peers": peers,
        "rows": rows,
        "glob": glob_row,
        "problems": problems,
    }


def format_warm(fig: dict[str, Any]) -> str:
    index = fig["index"]
    names = list(fig["rows"][0]["ms"]) if fig["rows"] else []
    out = [
        (
            f"index: {index['files']:,} files, {index['bytes'] / 2**20:,.0f} MiB; built in "
            f"{fig['build_s']:.1f} s; index file {index['index_bytes'] / 2**20:,.0f} MiB "
            f"({100 * index['index_bytes'] / max(index['bytes'], 1):.1f}% of the bytes, mapped); "
            f"process RSS {fig['rss_mb']['before']:.0f} -> {fig['rss_mb']['after_build']:.0f} MiB, "
            f"heap growth {fig['heap_growth'] / 2**20:,.0f} MiB "
            f"({100 * fig['heap_growth'] / max(index['bytes'], 1):.1f}% of the bytes)"
        ),
    ]
    for name, peer in fig["peers"].items():
        extra = f", index {peer['index_mb']:.0f} MiB" if "index_mb" in peer else ""
        out.append(f"{name}: index built in {peer['build_s']:.1f} s{extra}")
    out.append("")
    out.append("| pattern (files) | " + " | ".join(f"{n} ms" for n in names) + " | warm vs rg |")
    out.append("|---" * (len(names) + 2) + "|")
    for row in fig["rows"]:
        cells = []
        for n in names:
            cell = f"{row['ms'][n]:.1f}"
            if row["differs"][n]:
                cell += f" (answer differs by {row['differs'][n]} files)"
            cells.append(cell)
        ratio = ""
        if "rg" in row["ms"]:
            ratio = f"{row['ms']['rg'] / max(row['ms']['ripsight warm'], 1e-6):.0f}x faster"
        out.append(
            f"| `{row['pattern']}` ({row['files']:,}) | " + " | ".join(cells) + f" | {ratio} |"
        )
    g = fig["glob"]
    out.append(
        f"| glob `{g['pattern']}` ({g['files']:,}) | warm {g['warm_ms']:.1f} | "
        f"cold {g['cold_ms']:.1f} |" + " |" * max(len(names) - 2, 0) + " |"
    )
    for problem in fig["problems"]:
        out.append(f"PROBLEM: {problem}")
    return "\n".join(out)


def run(args: Any) -> int:
    """``ripsight bench --warm ROOT``: prints the table; 1 when an answer differed."""
    root = mode_root(args, "warm")
    if root is None:
        return 2
    patterns = chosen_patterns(root, args.warm_patterns)
    glob = args.glob or KERNEL_GLOB
    fig = run_warm(root, patterns, glob, repeat=args.repeat or 5, use_ayg=args.ayg)
    print(format_warm(fig))
    return finish(fig, args)


def chosen_patterns(root: str, given: list[str] | None) -> list[str]:
    """The patterns a warm or scale run times: those given, else the kernel's on a Linux tree
    (it has MAINTAINERS), else a rare and a common one picked from the tree."""
    if given:
        return list(given)
    if os.path.isfile(os.path.join(root, "MAINTAINERS")):
        return list(KERNEL_PATTERNS)
    from .suite import _pick_common, _pick_rare

    return [_pick_rare(root), _pick_common(root)]
