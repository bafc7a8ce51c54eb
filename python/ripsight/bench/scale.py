"""``ripsight bench --scale ROOT``: the warm index against tree size.

For each tree (ROOT itself, then N full copies of it side by side, ``--copies 1 3``) it runs the
``--warm`` measurement (:func:`ripsight.bench.warm.run_warm`: the index built in this process,
every pattern's answer checked against the cold engine, then timed beside rg, csearch and ayg)
with a fresh index cache, and adds what sharing the index costs a second process: a child on the
same tree maps the file the build wrote and reports how long it took to be ready and how much its
anonymous memory (RssAnon, its heap; the mapped file is not heap) grew once its queries ran.
``--links`` adds a hard-linked copy (``cp -al``: every file has two links), timed the same way.
``--plot FILE.png`` draws latency, build time and memory against the indexed bytes (matplotlib,
in the ``[bench]`` extra).

Copies are made once under ``~/.cache/ripsight-bench/scale/`` (real copies: several GB for a
Linux tree) and kept, marked ready; each is one git work tree without objects
(``git update-index --info-only``) so that ayg, which indexes ``git ls-files``, can index it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Any

from .report import finish, mode_root
from .warm import chosen_patterns, format_warm, run_warm

#: The glob of the goals (measured as ``**/*.dts`` on the Linux tree).
SCALE_GLOB = "**/*.dts"

#: Seconds any one copy or git step may take.
STEP_TIMEOUT = 3600

#: The child that measures a second process: ready time, then the heap it grew after queries.
SECOND_PROCESS = r"""
import json, sys, time
def anon():
    with open("/proc/self/status", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) * 1024
    return 0
from ripsight import Workspace
before = anon()
started = time.perf_counter()
ws = Workspace(sys.argv[1], index=True)
ws.wait_index(600)
ready = time.perf_counter() - started
for pattern in json.loads(sys.argv[2]):
    ws.grep(pattern, output_mode="files_with_matches")
status = ws.index_status()
print(json.dumps({"ready_s": ready, "loaded": status["loaded"], "anon_growth": anon() - before,
                  "bytes": status["bytes"]}))
ws.close()
"""


def _run(cmd: list[str], cwd: str | None = None, stdin: bytes | None = None) -> None:
    subprocess.run(cmd, cwd=cwd, input=stdin, check=True, timeout=STEP_TIMEOUT)


def _as_work_tree(tree: str) -> None:
    """Makes `tree` one git work tree whose index lists every file (no objects written)."""
    if not shutil.which("git"):
        return
    _run(["git", "init", "-q", tree])
    files = []
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            files.append(os.path.relpath(os.path.join(dirpath, name), tree))
    listing = "\0".join(files).encode("utf-8", "surrogateescape")
    _run(["git", "update-index", "--add", "--info-only", "-z", "--stdin"], tree, listing)


def prepared_tree(root: str, copies: int, base: str, links: bool = False) -> str:
    """ROOT itself for one copy; else (made once, kept) `copies` full copies of it in one
    directory, or with `links` one copy made of hard links."""
    if copies == 1 and not links:
        return root
    name = os.path.basename(os.path.normpath(root))
    dest = os.path.join(base, f"{name}-{'links' if links else f'x{copies}'}")
    marker = dest + ".ready"
    if os.path.exists(marker):
        return dest
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    for i in range(copies):
        copy = os.path.join(dest, f"copy{i}")
        _run(["cp", "-al" if links else "-a", root, copy])
        if not links:
            shutil.rmtree(os.path.join(copy, ".git"), ignore_errors=True)
    if not links:
        _as_work_tree(dest)
    with open(marker, "w", encoding="utf-8") as fh:
        fh.write("ready\n")
    return dest


def second_process(tree: str, patterns: list[str]) -> dict[str, Any]:
    """A child on `tree` (same cache directory): ready time, heap growth after `patterns`."""
    out = subprocess.run(
        [sys.executable, "-c", SECOND_PROCESS, tree, json.dumps(patterns)],
        capture_output=True,
        text=True,
        check=True,
        timeout=STEP_TIMEOUT,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def _load() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def run_scale(
    root: str,
    copies: list[int],
    patterns: list[str],
    glob: str,
    repeat: int = 5,
    use_ayg: bool = False,
    links: bool = False,
    base: str | None = None,
) -> dict[str, Any]:
    """Measures the warm index on each prepared tree (see the module's documentation)."""
    base = base or os.path.expanduser("~/.cache/ripsight-bench/scale")
    os.makedirs(base, exist_ok=True)
    kinds = [(n, False) for n in copies] + ([(1, True)] if links else [])
    trees = []
    saved = os.environ.get("XDG_CACHE_HOME")
    for n, linked in kinds:
        tree = prepared_tree(os.path.realpath(root), n, base, links=linked)
        cache = tempfile.mkdtemp(prefix="ripsight-scale-cache-")
        os.environ["XDG_CACHE_HOME"] = cache
        try:
            load_start = _load()
            fig = run_warm(tree, patterns, glob, repeat=repeat, use_ayg=use_ayg and not linked)
            fig["second"] = second_process(tree, patterns)
            fig["load_average"] = {"start": load_start, "end": _load()}
        finally:
            if saved is None:
                os.environ.pop("XDG_CACHE_HOME", None)
            else:
                os.environ["XDG_CACHE_HOME"] = saved
            shutil.rmtree(cache, ignore_errors=True)
        fig["copies"] = n
        fig["linked"] = linked
        trees.append(fig)
    return {"root": root, "trees": trees, "problems": [p for t in trees for p in t["problems"]]}


def _name(fig: dict[str, Any]) -> str:
    if fig["linked"]:
        return "hard-linked copy"
    return "one copy" if fig["copies"] == 1 else f"{fig['copies']} copies"


def format_scale(result: dict[str, Any]) -> str:
    out = [
        (
            "| tree | files | indexed | build | csearch build | ayg build "
            "| second process ready | index file | heap growth (builder / second) | load |"
        ),
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for fig in result["trees"]:
        index, second, peers = fig["index"], fig["second"], fig["peers"]
        indexed = max(index["bytes"], 1)

        def peer(name: str, peers: dict[str, Any] = peers) -> str:
            return f"{peers[name]['build_s']:.1f} s" if name in peers else ""

        out.append(
            f"| {_name(fig)} | {index['files']:,} | {indexed / 1e9:.2f} GB "
            f"| {fig['build_s']:.1f} s | {peer('csearch')} | {peer('ayg')} "
            f"| {second['ready_s']:.2f} s | {100 * index['index_bytes'] / indexed:.1f}% "
            f"| {100 * fig['heap_growth'] / indexed:.1f}% / "
            f"{100 * second['anon_growth'] / indexed:.1f}% "
            f"| {fig['load_average']['start']:.1f} -> {fig['load_average']['end']:.1f} |"
        )
    for fig in result["trees"]:
        out += ["", f"**{_name(fig)}**", "", format_warm(fig)]
    return "\n".join(out)


def plot_scale(result: dict[str, Any], path: str) -> None:
    """Latency, build time and memory against the indexed bytes, one panel each."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    trees = [t for t in result["trees"] if not t["linked"]]
    sizes = [t["index"]["bytes"] / 1e9 for t in trees]
    fig, (latency, build, memory) = plt.subplots(1, 3, figsize=(15, 4.5))
    for pattern_row in range(len(trees[0]["rows"]) if trees else 0):
        pattern = trees[0]["rows"][pattern_row]["pattern"]
        latency.plot(
            sizes,
            [t["rows"][pattern_row]["ms"]["ripsight warm"] for t in trees],
            "o-",
            label=pattern,
        )
    if trees and "rg" in trees[0]["rows"][-1]["ms"]:
        broad = trees[0]["rows"][-1]["pattern"]
        latency.plot(sizes, [t["rows"][-1]["ms"]["rg"] for t in trees], "k--", label=f"rg {broad}")
    latency.plot(
        sizes,
        [t["glob"]["warm_ms"] for t in trees],
        "s:",
        label=f"glob {trees[0]['glob']['pattern']}" if trees else "glob",
    )
    latency.set(xlabel="indexed GB", ylabel="ms (median)", yscale="log", title="warm latency")
    latency.legend(fontsize=7)
    build.plot(sizes, [t["build_s"] for t in trees], "o-", label="ripsight build")
    build.plot(sizes, [t["second"]["ready_s"] for t in trees], "o--", label="second process ready")
    for peer in ("csearch", "ayg"):
        if all(peer in t["peers"] for t in trees):
            build.plot(
                sizes, [t["peers"][peer]["build_s"] for t in trees], "s:", label=f"{peer} build"
            )
    build.set(xlabel="indexed GB", ylabel="s", title="build and load")
    build.legend(fontsize=7)
    memory.plot(
        sizes, [t["index"]["index_bytes"] / 2**20 for t in trees], "o-", label="index file (mapped)"
    )
    memory.plot(
        sizes, [t["heap_growth"] / 2**20 for t in trees], "o--", label="heap growth, builder"
    )
    memory.plot(
        sizes,
        [t["second"]["anon_growth"] / 2**20 for t in trees],
        "o:",
        label="heap growth, second",
    )
    memory.plot(
        sizes,
        [0.05 * t["index"]["bytes"] / 2**20 for t in trees],
        "k--",
        label="5% of indexed bytes",
    )
    memory.set(xlabel="indexed GB", ylabel="MiB", title="memory")
    memory.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run(args: Any) -> int:
    """``ripsight bench --scale ROOT``: prints the tables; 1 when an answer differed."""
    root = mode_root(args, "scale")
    if root is None:
        return 2
    patterns = chosen_patterns(root, args.warm_patterns)
    result = run_scale(
        root,
        args.copies or [1, 3],
        patterns,
        args.glob or SCALE_GLOB,
        repeat=args.repeat or 5,
        use_ayg=args.ayg,
        links=args.links,
    )
    print(format_scale(result))
    return finish(result, args, plot_scale)
