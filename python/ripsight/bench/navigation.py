"""``ripsight bench --navigation``: the symbol index on a tree, beside the tools people
use for navigation, in one run.

1. The build: a child process opens ``Workspace(ROOT, index=True)`` on an empty index directory
   and waits for its symbol index (built, not loaded): the symbol build's seconds (the
   builder's own clock: after the n-gram index, as the goal counts it) and the seconds from
   the open until it was ready, the symbol file's size against the bytes of the files it
   describes, the process's peak RSS (the mapped files' pages included). A second child on the
   same directory: the seconds until its symbol index is ready (loaded).
2. The names: given (``--names SELECTIVE COMMON``), the Linux tree's (``kmem_cache_alloc_lru``
   and ``kmalloc``, the goals' names) on a tree with ``MAINTAINERS`` and ``kernel/fork.c``, else
   picked from the tree's own map: the most-called of its top files' definitions, and a name
   defined once with the fewest references above two.
3. Each answer is checked before it is timed: the warm ``references`` and ``definitions`` of the
   selective name must equal the cold engine's (no index, every candidate parsed); a
   difference is a ``PROBLEM`` and the exit status 1.
4. Warm medians in this process (as the MCP server answers): references of both names, the
   callers of the common one (``role="call", group_by="caller"``, exact totals, first page),
   its definitions, the map of the tree (8,000 characters) and the map focused on one file.
5. The peers, where installed, on databases built in a scratch directory (never in ROOT), each
   query a whole process as an agent's shell runs it: ``cscope -d -L -3`` (callers; C and C++
   files), ``global -rx`` / ``global -x`` (references, definitions; the files gtags parses),
   ``rg -nw`` (the grep an agent runs today). With ``--aider-python PY`` (an interpreter whose
   environment has PyPI's ``aider-chat``: install it apart, its pins clash with ripsight's),
   Aider's ``RepoMap`` on a copy of the tree (it writes its tags cache into the tree), cold and
   warm, beside ripsight's map cold (no index, outline cache cleared) and warm, with both maps'
   top files side by side.

The goals are for the Linux tree; the table marks them met or missed there only.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

from .peers import rg_binary
from .report import finish, machine_info, mode_root

__all__ = [
    "ACCOUNTING",
    "aider_runs",
    "format_navigation",
    "peak_rss",
    "ready",
    "run",
    "run_navigation",
]

#: The goals' names and focus on the Linux tree.
KERNEL_NAMES = ("kmem_cache_alloc_lru", "kmalloc")
KERNEL_FOCUS = "kernel/fork.c"
#: The map's budget in every map case, as the goals state it.
MAP_CHARS = 8000
#: Aider's files: those its tags queries read that ripsight's outlines read too.
AIDER_SUFFIXES = (".py", ".c", ".h", ".cc", ".cpp", ".hpp", ".java", ".go", ".rs", ".js", ".ts")
#: The fields of a result that tell how it was answered (the index's accounting differs from
#: the cold engine's by design, see rust_core/src/index/navigate.rs), left out of comparisons.
ACCOUNTING = (
    "elapsed_ms",
    "files_searched",
    "candidate_files",
    "files_parsed",
    "files_cached",
    "files_cut",
    "skipped",
)
#: The files cscope reads (C and C++), and those gtags' built-in parser reads.
CSCOPE_SUFFIXES = (".c", ".h", ".cc", ".cpp", ".hpp", ".cxx", ".hh")
GTAGS_SUFFIXES = (*CSCOPE_SUFFIXES, ".java", ".php", ".y")
#: A peer is measured where at least this share of the tree's source files are files it reads.
PEER_SHARE = 0.1

#: The goals on the Linux tree: case -> (bound, unit).
GOALS: dict[str, tuple[float, str]] = {
    "build": (90.0, "s"),
    "file_share": (0.40, ""),
    "second": (0.5, "s"),
    "references selective": (10.0, "ms"),
    "callers common": (100.0, "ms"),
    "map": (300.0, "ms"),
    "map focused": (300.0, "ms"),
    "aider ratio": (20.0, "x"),
}
#: The goals stated for the Linux tree (Aider's ratio is stated for CPython's standard library,
#: and holds for any tree measured).
LINUX_GOALS = set(GOALS) - {"aider ratio"}

#: Run by a child (``python -m ripsight.bench.navigation --ready ROOT STORE``).
_READY = "--ready"


def peak_rss() -> int:
    """This process's peak resident bytes (Linux's ``VmHWM``; 0 elsewhere)."""
    try:
        with open("/proc/self/status", encoding="utf-8") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _wait_symbols(ws: Any, timeout: float = 3600) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    ws.wait_index(timeout=timeout)
    while True:
        status: dict[str, Any] = ws.index_status()
        if status.get("symbols") in ("ready", "failed") or time.monotonic() > deadline:
            return status
        time.sleep(0.01)


def ready(root: str, store: str) -> dict[str, Any]:
    """Opens the warm workspace and waits for its symbol index: its status, the seconds, the
    peak RSS (what the child prints)."""
    from ..workspace import Workspace

    started = time.monotonic()
    with Workspace(root, index=True, index_dir=store) as ws:
        ws.wait_index(timeout=3600)
        ngrams = time.monotonic() - started
        status = _wait_symbols(ws)
    status.update(ngrams_s=ngrams, symbols_s=time.monotonic() - started, peak_rss=peak_rss())
    return status


def _child_json(command: list[str], what: str, stdin: str = "") -> dict[str, Any]:
    """What a child process prints last, as JSON; its failure said as `what` failing."""
    done = subprocess.run(
        command, input=stdin, capture_output=True, text=True, timeout=7200, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed: {done.stderr[-2000:]}")
    answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def _child_ready(root: str, store: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "ripsight.bench.navigation", _READY, root, store]
    return _child_json(command, "the child building the symbol index")


def _median_ms(call: Callable[[], Any], repeat: int) -> float:
    call()  # warm-up: page cache, the kept graph
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _lines(command: list[str], cwd: str, env: dict[str, str] | None = None) -> int:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, timeout=600, check=False)
    return int(done.stdout.count(b"\n"))


def _listing(root: str, suffixes: Sequence[str]) -> list[str]:
    """The files below `root` with one of `suffixes`, in path order (VCS directories left out)."""
    out: list[str] = []
    for base, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in (".git", ".hg", ".svn", "node_modules"))
        out.extend(os.path.join(base, n) for n in sorted(names) if n.endswith(tuple(suffixes)))
    return out


def _is_linux_tree(root: str) -> bool:
    return os.path.isfile(os.path.join(root, "MAINTAINERS")) and os.path.isfile(
        os.path.join(root, KERNEL_FOCUS)
    )


def pick_names(ws: Any) -> tuple[str, str]:
    """A selective name and a common one from the tree's own map: among its top files'
    definitions, the most-called, and one defined once with the fewest references above two."""
    seen: list[str] = []
    for f in ws.repo_map(max_chars=20_000).files:
        for d in f.definitions:
            if d.name not in seen and len(d.name) > 2:
                seen.append(d.name)
    if not seen:
        raise ValueError("the tree's map lists no definitions: give --names SELECTIVE COMMON")
    counted = [(n, ws.references(n, limit=1)) for n in seen[:60]]
    common = max(counted, key=lambda c: (c[1].totals.calls, c[1].total))[0]
    once = [(r.total, n) for n, r in counted if r.definitions_total == 1 and r.total > 2]
    selective = min(once)[1] if once else min((r.total, n) for n, r in counted)[1]
    return selective, common


def _normal(result: Any) -> Any:
    from ..workspace import to_dict

    out = to_dict(result)
    for key in ACCOUNTING:
        out.pop(key, None)
    return json.loads(json.dumps(out, default=str))


def _peers(root: str, work: str, files: int) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Builds the peers' databases in `work`: cscope's and gtags', where installed and at least
    `PEER_SHARE` of the tree's `files` are files they read; their build seconds, and what was
    left out and why."""
    peers: dict[str, dict[str, Any]] = {}
    left: list[str] = []

    def enough(tool: str, found: list[str]) -> bool:
        if len(found) >= PEER_SHARE * files:
            return True
        left.append(f"{tool} reads {len(found):,} of the {files:,} source files")
        return False

    if shutil.which("cscope"):
        c_files = _listing(root, CSCOPE_SUFFIXES)
        if enough("cscope", c_files):
            listing = os.path.join(work, "cscope.files")
            with open(listing, "w", encoding="utf-8") as fh:
                fh.write("".join(f"{p}\n" for p in c_files))
            xref = os.path.join(work, "cscope.out")
            started = time.perf_counter()
            subprocess.run(
                ["cscope", "-b", "-q", "-k", "-f", xref, "-i", listing],
                cwd=work,
                capture_output=True,
                timeout=7200,
                check=True,
            )
            peers["cscope"] = {"build_s": time.perf_counter() - started, "xref": xref}
    if shutil.which("gtags") and shutil.which("global"):
        g_files = _listing(root, GTAGS_SUFFIXES)
        if enough("global", g_files):
            listing = os.path.join(work, "gtags.files")
            with open(listing, "w", encoding="utf-8") as fh:
                fh.write("".join(f"{os.path.relpath(p, root)}\n" for p in g_files))
            db = os.path.join(work, "gtags")
            os.mkdir(db)
            started = time.perf_counter()
            subprocess.run(
                ["gtags", "-f", listing, db],
                cwd=root,
                capture_output=True,
                timeout=7200,
                check=True,
            )
            peers["global"] = {
                "build_s": time.perf_counter() - started,
                "env": {**os.environ, "GTAGSROOT": root, "GTAGSDBPATH": db},
            }
    return peers, left


def run_navigation(
    root: str,
    names: Sequence[str] | None = None,
    focus: str | None = None,
    repeat: int = 7,
    aider_python: str | None = None,
    store: str | None = None,
) -> dict[str, Any]:
    """Every measure of the module's doc on `root`; the figures as a dict (``format_navigation``
    prints them)."""
    from ..workspace import Workspace

    root = os.path.realpath(root)
    linux = _is_linux_tree(root)
    work = tempfile.mkdtemp(prefix="ripsight-navigation-")
    problems: list[str] = []
    try:
        store = store or os.path.join(work, "store")
        built = _child_ready(root, store)
        second = _child_ready(root, store)
        if built.get("symbols") != "ready":
            raise RuntimeError(f"the symbol index was not built: {built.get('symbols_error')}")
        ws = Workspace(root, index=True, index_dir=store)
        _wait_symbols(ws)
        selective, common = (
            (names[0], names[1]) if names else (KERNEL_NAMES if linux else pick_names(ws))
        )
        whole = ws.repo_map(max_chars=MAP_CHARS)
        focus = focus or (KERNEL_FOCUS if linux else (whole.files[0].path if whole.files else None))
        with Workspace(root, time_budget=600) as cold:
            for call in ("references", "definitions"):
                warm_answer = getattr(ws, call)(selective, limit=None)
                if _normal(warm_answer) != _normal(getattr(cold, call)(selective, limit=None)):
                    problems.append(f"{call} of {selective!r}: the warm answer differs from cold")
        refs = {n: ws.references(n, limit=None) for n in (selective, common)}
        callers = ws.references(common, role="call", group_by="caller")
        cases: list[dict[str, Any]] = []

        def case(key: str, what: str, call: Callable[[], Any], found: str) -> None:
            cases.append({"key": key, "what": what, "ms": _median_ms(call, repeat), "found": found})

        for n in (selective, common):
            kind = "selective" if n == selective else "common"
            r = refs[n]
            case(
                f"references {kind}",
                f"references of `{n}`",
                functools.partial(ws.references, n),
                f"{r.total:,} refs, {r.definitions_total} definitions",
            )
        case(
            "callers common",
            f"callers of `{common}`, first page",
            lambda: ws.references(common, role="call", group_by="caller"),
            f"{callers.total:,} callers, {callers.totals.calls:,} calls",
        )
        case(
            "definitions common",
            f"definitions of `{common}`",
            lambda: ws.definitions(common),
            f"{ws.definitions(common).total:,}",
        )
        case(
            "map",
            f"repo_map, {MAP_CHARS:,} chars",
            lambda: ws.repo_map(max_chars=MAP_CHARS),
            f"{whole.files_ranked:,} files ranked",
        )
        if focus:
            case(
                "map focused",
                f"repo_map focused on `{focus}`",
                lambda: ws.repo_map(max_chars=MAP_CHARS, paths=[focus]),
                f"{len(ws.repo_map(max_chars=MAP_CHARS, paths=[focus]).files)} files shown",
            )
        status = ws.index_status()
        map_top = [f.path for f in whole.files]
        ws.close()

        peers, peers_left = _peers(root, work, int(built.get("symbol_files_total") or 0))
        peer_rows: list[dict[str, Any]] = []

        def peer(key: str, tool: str, command: list[str], cwd: str, env: Any = None) -> None:
            found = _lines(command, cwd, env)
            ms = _median_ms(lambda: _lines(command, cwd, env), repeat)
            peer_rows.append({"key": key, "tool": tool, "ms": ms, "found": f"{found:,} lines"})

        rg = rg_binary()
        for n in (selective, common):
            kind = "selective" if n == selective else "common"
            if "global" in peers:
                env = peers["global"]["env"]
                peer(f"references {kind}", "global -rx", ["global", "-rx", n], root, env)
            if rg:
                peer(f"references {kind}", "rg -nw", [rg, "-nw", "--no-heading", n, "."], root)
        if "cscope" in peers:
            xref = peers["cscope"]["xref"]
            command = ["cscope", "-d", "-f", xref, "-L", "-3", common]
            peer("callers common", "cscope -L -3", command, work)
        if "global" in peers:
            env = peers["global"]["env"]
            peer("definitions common", "global -x", ["global", "-x", common], root, env)
        aider = _aider(root, aider_python, repeat) if aider_python else None
        return {
            "root": root,
            "linux": linux,
            "machine": machine_info(),
            "names": {"selective": selective, "common": common, "focus": focus},
            "build": {
                "build_s": (built.get("symbols_build_ms") or 0) / 1000,
                "ngrams_s": built["ngrams_s"],
                "ready_s": built["symbols_s"],
                "symbol_bytes": built.get("symbol_bytes", 0),
                "source_bytes": built.get("bytes", 0),
                "files": built.get("symbol_files_total"),
                "peak_rss": built.get("peak_rss", 0),
                "second_s": second["symbols_s"],
                "second_loaded": bool(second.get("symbols_loaded")),
            },
            "peers_build_s": {k: v["build_s"] for k, v in peers.items()},
            "peers_left": peers_left,
            "cases": cases,
            "peer_rows": peer_rows,
            "map_top": map_top,
            "aider": aider,
            "index": {k: v for k, v in status.items() if isinstance(v, (int, float, str, bool))},
            "problems": problems,
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


#: Run by Aider's interpreter: times ``RepoMap`` cold and warm on ROOT, prints JSON.
AIDER_SCRIPT = r"""
import json, shutil, statistics, sys, time
from pathlib import Path
from aider.repomap import RepoMap

root, tokens, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
files = [line for line in sys.stdin.read().splitlines() if line]

class Model:
    def token_count(self, text):
        return len(text) / 4

class IO:
    def read_text(self, fname):
        try:
            return Path(fname).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
    def tool_output(self, *a, **k): pass
    def tool_warning(self, *a, **k): pass
    def tool_error(self, *a, **k): pass

def one():
    started = time.perf_counter()
    repo_map = RepoMap(map_tokens=tokens, root=root, main_model=Model(), io=IO())
    text = repo_map.get_repo_map([], files, force_refresh=True) or ""
    return (time.perf_counter() - started) * 1000, text

cold = []
for _ in range(max(1, rounds // 2)):
    shutil.rmtree(Path(root) / RepoMap.TAGS_CACHE_DIR, ignore_errors=True)
    cold.append(one()[0])
warm, text = [], ""
for _ in range(rounds):
    elapsed, text = one()
    warm.append(elapsed)
# The map lists its files by name; their rank order is that of Aider's ranked tags.
shown = [line[:-1] for line in text.splitlines() if line.endswith(":") and line[0] not in " \t⋮│"]
repo_map = RepoMap(map_tokens=tokens, root=root, main_model=Model(), io=IO())
top = []
for tag in repo_map.get_ranked_tags([], files, set(), set()):
    if tag[0] not in top:
        top.append(tag[0])
print(json.dumps({"cold": cold, "warm": warm, "top": top, "shown": shown, "chars": len(text),
                  "files": len(files)}))
"""


def aider_runs(
    python: str, root: str, files: Sequence[str], repeat: int, chars: int = MAP_CHARS
) -> dict[str, Any]:
    """Aider's RepoMap on `files` of `root` run by `python`, its budget `chars` at four
    characters a token: cold and warm times in ms, its ranked files (``top``), the files its
    map shows (``shown``), the map's characters."""
    command = [python, "-c", AIDER_SCRIPT, root, str(chars // 4), str(repeat)]
    stdin = "\n".join(os.path.join(root, f) for f in files)
    return _child_json(command, "Aider's RepoMap", stdin)


def _aider(root: str, python: str, repeat: int) -> dict[str, Any]:
    """Aider's RepoMap on a copy of `root` (its tags cache is written into the tree it maps),
    beside ripsight's map of the copy: cold (no index, the outline cache cleared) and warm
    (the copy's symbol index)."""
    from ..workspace import Workspace

    with tempfile.TemporaryDirectory(prefix="ripsight-aider-") as scratch:
        copy = os.path.join(scratch, "tree")
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns("__pycache__", ".git"))
        files = [os.path.relpath(p, copy) for p in _listing(copy, AIDER_SUFFIXES)]
        theirs = aider_runs(python, copy, files, repeat)
        for entry in os.listdir(copy):
            if entry.startswith(".aider.tags.cache"):
                shutil.rmtree(os.path.join(copy, entry), ignore_errors=True)
        cold = []
        for _ in range(max(1, repeat // 2)):
            with Workspace(copy) as ws:
                ws._engine.clear_outline_cache()
                started = time.perf_counter()
                ws.repo_map(max_chars=MAP_CHARS)
                cold.append((time.perf_counter() - started) * 1000)
        # Ranked afresh at every call, as Aider's warm calls are: no index, the parses from the
        # engine's in-memory cache, the graph built and ranked each time.
        with Workspace(copy) as ws:
            afresh = _median_ms(lambda: ws.repo_map(max_chars=MAP_CHARS), repeat)
        with Workspace(copy, index=True, index_dir=os.path.join(scratch, "store")) as ws:
            _wait_symbols(ws)
            kept = _median_ms(lambda: ws.repo_map(max_chars=MAP_CHARS), repeat)
            mine = ws.repo_map(max_chars=MAP_CHARS)
    return {
        "files": theirs["files"],
        "aider_cold_ms": statistics.median(theirs["cold"]),
        "aider_warm_ms": statistics.median(theirs["warm"]),
        "aider_chars": theirs["chars"],
        "aider_top": theirs["top"][:15],
        "cold_ms": statistics.median(cold),
        "warm_ms": afresh,
        "kept_ms": kept,
        "chars": mine.chars,
        "top": [f.path for f in mine.files][:15],
    }


def _goal(fig: dict[str, Any], key: str, value: float) -> str:
    if key not in GOALS:
        return ""
    bound, unit = GOALS[key]
    shown = f"{bound:.0%}" if unit == "" else f"{bound:g}x" if unit == "x" else f"{bound:g} {unit}"
    shown = f">= {shown}" if unit == "x" else f"<= {shown}"
    if not fig["linux"] and key in LINUX_GOALS:
        return f"{shown} (Linux tree)"
    met = value >= bound if unit == "x" else value <= bound
    return f"{shown}: {'met' if met else 'MISSED'}"


def _ms(value: float) -> str:
    return f"{value:.2f}" if value < 1 else f"{value:,.1f}"


def format_navigation(fig: dict[str, Any]) -> str:
    b = fig["build"]
    share = b["symbol_bytes"] / max(b["source_bytes"], 1)
    peers = ", ".join(f"{k} {v:.1f} s" for k, v in fig["peers_build_s"].items())
    out = [
        f"tree: {fig['root']} ({b['files'] or 0:,} files in the symbol index)",
        "",
        "| measure | ripsight | goal |",
        "|---|---:|---|",
        (
            f"| symbol index build (in the background, after the n-gram index's "
            f"{b['ngrams_s']:.1f} s) | {b['build_s']:.1f} s | {_goal(fig, 'build', b['build_s'])} |"
        ),
        f"| symbol index ready after the workspace opened | {b['ready_s']:.1f} s | |",
        (
            f"| symbol file / source bytes | {b['symbol_bytes'] / 1e6:,.1f} MB / "
            f"{b['source_bytes'] / 1e6:,.1f} MB = {share:.1%} | {_goal(fig, 'file_share', share)} |"
        ),
        f"| building process's peak RSS | {b['peak_rss'] / 1e6:,.0f} MB | |",
        (
            f"| second process ready ({'loaded' if b['second_loaded'] else 'NOT loaded'}) | "
            f"{b['second_s']:.2f} s | {_goal(fig, 'second', b['second_s'])} |"
        ),
        "",
        f"peers' databases (scratch directory): {peers or 'none'}"
        + "".join(f"; left out, {why}" for why in fig["peers_left"]),
        "",
        (
            "| query (warm, median) | ripsight | found | peer | peer ms | peer found | "
            "peer / ripsight | goal |"
        ),
        "|---|---:|---|---|---:|---|---:|---|",
    ]
    for c in fig["cases"]:
        theirs = [p for p in fig["peer_rows"] if p["key"] == c["key"]] or [None]
        for p in theirs:
            peer_cells = (
                f"`{p['tool']}` | {_ms(p['ms'])} | {p['found']} | {p['ms'] / max(c['ms'], 1e-6):.1f}x"
                if p
                else " | | | "
            )
            out.append(
                f"| {c['what']} | {_ms(c['ms'])} ms | {c['found']} | {peer_cells} | "
                f"{_goal(fig, c['key'], c['ms'])} |"
            )
    a = fig.get("aider")
    if a:
        ratio = a["aider_warm_ms"] / max(a["warm_ms"], 1e-6)
        out += [
            "",
            f"Aider's RepoMap beside repo_map on a copy ({a['files']:,} files given to Aider):",
            "",
            "| | Aider RepoMap | ripsight repo_map | Aider / ripsight |",
            "|---|---:|---:|---:|",
            (
                f"| cold | {a['aider_cold_ms']:,.0f} ms | {a['cold_ms']:,.1f} ms | "
                f"{a['aider_cold_ms'] / max(a['cold_ms'], 1e-6):.1f}x |"
            ),
            (
                f"| warm, ranked afresh each call (Aider: tags cache filled; ripsight: parses "
                f"cached, no index) | {a['aider_warm_ms']:,.0f} ms | {_ms(a['warm_ms'])} ms | "
                f"{ratio:,.0f}x ({_goal(fig, 'aider ratio', ratio)}) |"
            ),
            (
                f"| warm, ripsight's symbol index (graph and ranking kept) | | "
                f"{_ms(a['kept_ms'])} ms | |"
            ),
            f"| map size | {a['aider_chars']:,} chars | {a['chars']:,} chars | |",
            "",
            "| rank | Aider RepoMap | ripsight repo_map |",
            "|---|---|---|",
        ]
        for i in range(max(len(a["aider_top"]), len(a["top"]))):
            theirs_top = a["aider_top"][i] if i < len(a["aider_top"]) else ""
            mine_top = a["top"][i] if i < len(a["top"]) else ""
            out.append(f"| {i + 1} | {theirs_top} | {mine_top} |")
        both = set(a["aider_top"]) & set(a["top"])
        out.append(f"\nfiles in both top {len(a['top'])}: {len(both)}")
    for problem in fig["problems"]:
        out.append(f"PROBLEM: {problem}")
    return "\n".join(out)


def run(args: Any) -> int:
    """``ripsight bench --navigation ROOT``: prints the tables; 1 when an answer differed."""
    root = mode_root(args, "navigation")
    if root is None:
        return 2
    fig = run_navigation(
        root,
        names=args.names,
        focus=args.focus,
        repeat=args.repeat or 7,
        aider_python=args.aider_python,
    )
    print(format_navigation(fig))
    return finish(fig, args)


if __name__ == "__main__" and len(sys.argv) == 4 and sys.argv[1] == _READY:
    print(json.dumps(ready(sys.argv[2], sys.argv[3]), default=str))
