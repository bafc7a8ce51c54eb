"""The cases of `ripsight bench`: every tool's answer checked against the others', then timed
round-robin (medians, CPU time, ratios to rg) and held to the benchmark issue's goals."""

from __future__ import annotations

import functools
import math
import os
import re
import resource
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from .corpus import COMMON_REGEX, LOG_LINE_BYTES, RARE_LITERAL, log_file, small_repo
from .options import NO_MATCH
from .peers import (
    _binary,
    _rg_module,
    fd_binary,
    fd_count,
    lib_has_hidden,
    peak_rss_of_read,
    py_glob,
    py_grep,
    py_read,
    rg_binary,
    rg_count,
    rg_files_count,
    rg_lib_files,
    rg_lib_search,
    rg_search,
    same_set_rg_args,
    tail_head,
)
from .report import machine_info


@dataclass
class Row:
    case: str
    tool: str
    median_ms: float | None
    runs_ms: list[float] = field(default_factory=list)
    # CPU time (user + system, this process's threads and its children): steadier than wall
    # time when something else loads the machine.
    cpu_ms: float | None = None
    cpu_runs_ms: list[float] = field(default_factory=list)
    answer: int | None = None
    ratio_to_rg: float | None = None
    goal: str = ""
    met: bool | None = None
    note: str = ""


def _cpu_seconds() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


class _Progress:
    """A one-line text progress bar on stderr (no dependencies)."""

    def __init__(self, total: int, enabled: bool = True) -> None:
        self.total, self.done, self.enabled = max(total, 1), 0, enabled

    def step(self, label: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        width = 30
        filled = width * self.done // self.total
        bar = "#" * filled + "-" * (width - filled)
        sys.stderr.write(f"\r[{bar}] {self.done}/{self.total} {label[:48]:<48}")
        if self.done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _pick_glob(root: str) -> str:
    """The most common file extension in the file set (by ``rg --files``), as ``**/*.EXT``."""
    out = subprocess.run(
        [_binary(rg_binary(), "rg"), "--files", *same_set_rg_args(), "."],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    counts: dict[str, int] = {}
    for p in out.stdout.decode("utf-8", "replace").splitlines():
        base = p.rsplit("/", 1)[-1]
        if "." in base[1:]:
            ext = base.rsplit(".", 1)[1]
            counts[ext] = counts.get(ext, 0) + 1
    if not counts:
        return "**/*"
    return "**/*." + max(sorted(counts), key=lambda e: counts[e])


# Tried in order on a repository the generators did not make; the one whose match count is
# closest to ~15,000 (what the kernel gives for `list_for_each_entry\w*\(`) is used.
COMMON_CANDIDATES = (
    r"\b(TODO|FIXME|XXX)\b",
    r"\breturn\s+\w+\(",
    r"\b(if|while)\s*\(\w+\s*==",
    r"\bdef \w+\(self",
    r"\bfunction\s+\w+\(",
    r"list_for_each_entry\w*\(",
)


def _pick_rare(root: str) -> str:
    """RARE_LITERAL when the repository is a generated one; otherwise an identifier (10+
    characters) from a file in the middle of the listing that occurs on 1-100 lines."""
    if rg_count(root, RARE_LITERAL, literal=True) > 0:
        return RARE_LITERAL
    out = subprocess.run(
        [_binary(rg_binary(), "rg"), "--files", "--sort", "path", *same_set_rg_args(), "."],
        cwd=root,
        capture_output=True,
        check=False,
    )
    files = out.stdout.decode("utf-8", "replace").splitlines()
    for path in files[len(files) // 2 :][:20]:
        try:
            with open(os.path.join(root, path), "rb") as fh:
                text = fh.read(65536).decode("utf-8", "replace")
        except OSError:
            continue
        words = sorted(set(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]{9,40}\b", text)))
        for word in words[:: max(1, len(words) // 5)][:5]:
            if 1 <= rg_count(root, word, literal=True) <= 100:
                return str(word)
    return RARE_LITERAL


def _pick_none(root: str) -> str:
    """NO_MATCH, with a suffix added while the repository happens to contain it."""
    word, n = NO_MATCH, 0
    while rg_count(root, word, literal=True) > 0 and n < 10:
        n += 1
        word = f"{NO_MATCH}_{n}{n}{n}"
    return word


def _pick_common(root: str) -> str:
    """COMMON_REGEX in a generated repository (nothing else matches it); otherwise the
    candidate closest to ~15,000 matching lines."""
    if rg_count(root, COMMON_REGEX) > 0:
        return COMMON_REGEX
    counts = {c: rg_count(root, c) for c in COMMON_CANDIDATES}
    best = min(counts, key=lambda c: abs(math.log((counts[c] + 1) / 15_000)))
    return best if counts[best] > 0 else COMMON_REGEX


def _threads_throughput(fn: Callable[[], Any], threads: int, calls: int) -> float:
    """Calls per second when `threads` Python threads share `calls` calls."""
    per = max(1, calls // threads)
    barrier = threading.Barrier(threads + 1)

    def work() -> None:
        barrier.wait()
        for _ in range(per):
            fn()

    ts = [threading.Thread(target=work) for _ in range(threads)]
    for t in ts:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in ts:
        t.join()
    return per * threads / (time.perf_counter() - t0)


def run_suite(
    root: str,
    *,
    repeat: int = 5,
    quick: bool = False,
    log_mb: int | None = None,
    rare: str | None = None,
    common: str | None = None,
    none: str | None = None,
    glob: str | None = None,
    small_root: str | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Run every case on `root`; returns the raw figures (what ``--json`` writes)."""
    from ripsight import Workspace

    load_start = os.getloadavg()[0]
    root = os.path.realpath(root)
    ws = Workspace(root)
    fd = fd_binary()
    libs = {
        name: mod
        for name in ("python_ripgrep", "ripgrep_rs")
        if (mod := _rg_module(name)) is not None
    }
    missing = [n for n in ("python_ripgrep", "ripgrep_rs") if n not in libs]
    lib_hidden = {name: lib_has_hidden(mod) for name, mod in libs.items()}
    glob = glob or _pick_glob(root)
    patterns = [
        ("rare literal", rare or _pick_rare(root), True),
        ("common regex", common or _pick_common(root), False),
        ("no match", none or _pick_none(root), True),
    ]
    small = small_root or small_repo(60 if quick else 300)
    wss = Workspace(small)
    log_mb = log_mb if log_mb is not None else (20 if quick else 500)
    n_steps = (len(patterns) + 1) * (4 + len(libs)) + 12
    bar = _Progress(n_steps, progress)
    rows: list[Row] = []
    problems: list[str] = []

    pending: list[tuple[str, Callable[[], Any], int | None, int]] = []

    def measure(
        case: str, tool: str, fn: Callable[[], Any], expect: int | None, reps: int = repeat
    ) -> None:
        pending.append((tool, fn, expect, reps))

    def run_case(case: str) -> None:
        """Check every tool's answer (also the warm-up run), then time them round-robin, so
        that load from elsewhere on the machine falls on all of them alike."""
        alive: list[tuple[Row, Callable[[], Any], int]] = []
        for tool, fn, expect, reps in pending:
            bar.step(f"{case}: {tool}")
            try:
                ans = fn()
            except Exception as exc:  # noqa: BLE001 - a peer that breaks is reported, not fatal
                rows.append(Row(case, tool, None, note=f"failed: {exc}"))
                if tool == "ripsight":
                    problems.append(f"{case}: ripsight failed: {exc}")
                continue
            row = Row(case, tool, None, answer=ans if isinstance(ans, int) else None)
            if expect is not None and row.answer != expect:
                row.note = f"answer {row.answer} != expected {expect}"
                problems.append(
                    f"{case}: {tool} found {row.answer}, the reference (rg in the "
                    f"same file set, or 400 lines) {expect}"
                )
            rows.append(row)
            alive.append((row, fn, reps))
        pending.clear()
        for i in range(max((reps for _, _, reps in alive), default=0)):
            for row, fn, reps in alive:
                if i < reps:
                    c0 = _cpu_seconds()
                    t0 = time.perf_counter()
                    fn()
                    row.runs_ms.append((time.perf_counter() - t0) * 1000)
                    row.cpu_runs_ms.append((_cpu_seconds() - c0) * 1000)
        for row, _, _ in alive:
            row.median_ms = statistics.median(row.runs_ms)
            row.cpu_ms = statistics.median(row.cpu_runs_ms)

    # grep, content mode, 50 shown + exact totals, path-sorted
    for label, pat, lit in patterns:
        case = f"grep {label}"
        expect = rg_count(root, pat, lit)
        measure(case, "rg", functools.partial(rg_search, root, pat, lit), expect)
        measure(
            case, "rg --sort path", functools.partial(rg_search, root, pat, lit, sort=True), expect
        )

        def ripsight_grep(p: str = pat, is_literal: bool = lit) -> int:
            return ws.grep(p, literal=is_literal, limit=50).total_matches

        measure(case, "ripsight", ripsight_grep, expect)
        for name, mod in libs.items():
            # python-ripgrep cannot search hidden files: its answer is rg's without --hidden.
            hid = lib_hidden[name]
            measure(
                case,
                name.replace("_", "-"),
                functools.partial(rg_lib_search, mod, root, pat, lit, hid),
                rg_count(root, pat, lit, hidden=hid),
            )
        measure(
            case,
            "python (os.walk+re)",
            functools.partial(py_grep, root, pat, lit),
            rg_count(root, pat, lit),
            reps=1 if not quick else min(repeat, 2),
        )
        run_case(case)

    # glob
    case = f"glob {glob}"
    name_glob = glob.rsplit("/", 1)[-1]
    expect = rg_files_count(root, name_glob)
    measure(case, "rg", lambda: rg_files_count(root, name_glob), expect)
    if fd:
        measure(case, "fd", lambda: fd_count(root, name_glob), expect)
    else:
        bar.step("fd missing")
        rows.append(Row(case, "fd", None, note="fd not installed (apt-get install fd-find)"))
    measure(case, "ripsight", lambda: ws.glob(glob, limit=200).total, expect)
    for name, mod in libs.items():
        hid = lib_hidden[name]
        measure(
            case,
            name.replace("_", "-"),
            functools.partial(rg_lib_files, mod, root, name_glob, hid),
            rg_files_count(root, name_glob, hidden=hid),
        )
    measure(
        case,
        "python (os.walk+fnmatch)",
        lambda: py_glob(root, glob),
        rg_files_count(root, name_glob),
        reps=1 if not quick else min(repeat, 2),
    )
    run_case(case)

    # per-call latency on the small repository
    reps_small = max(repeat * 4, 10)
    case = "per-call grep (small repo)"
    expect = rg_count(small, COMMON_REGEX)
    measure(case, "rg", lambda: rg_search(small, COMMON_REGEX), expect, reps_small)
    measure(
        case, "ripsight", lambda: wss.grep(COMMON_REGEX, limit=50).total_matches, expect, reps_small
    )
    run_case(case)
    case = "per-call glob (small repo)"
    expect = rg_files_count(small, "*.py")
    measure(case, "rg", lambda: rg_files_count(small, "*.py"), expect, reps_small)
    measure(case, "ripsight", lambda: wss.glob("**/*.py", limit=200).total, expect, reps_small)
    run_case(case)
    # the same calls on a warm workspace: what `ripsight mcp` (warm by default) answers with
    bar.step("per-call: warm index")
    with Workspace(small, index=True, persist=False) as warm:
        warm.wait_index(timeout=60)
        case = "per-call grep (small repo, warm index)"
        expect = rg_count(small, COMMON_REGEX)
        measure(case, "rg", lambda: rg_search(small, COMMON_REGEX), expect, reps_small)
        measure(
            case,
            "ripsight",
            lambda: warm.grep(COMMON_REGEX, limit=50).total_matches,
            expect,
            reps_small,
        )
        run_case(case)

    # two threads vs one on small-repo grep: do calls from two Python threads run at once (the
    # GIL released, no shared lock)? On a workspace whose walks take one thread each, since a
    # default workspace's lone call already walks a tree of this size on every core.
    bar.step("threads: 1 vs 2")
    calls = 40 if quick else 200
    one_core = Workspace(small, threads=1)
    call = lambda: one_core.grep(COMMON_REGEX, limit=50)
    _threads_throughput(call, 1, 4)
    one = statistics.median(_threads_throughput(call, 1, calls) for _ in range(3))
    two = statistics.median(_threads_throughput(call, 2, calls) for _ in range(3))
    threads = {"one_thread_calls_per_s": one, "two_threads_calls_per_s": two, "speedup": two / one}
    # The default workspace's throughput beside it (no goal): a lone call on both cores, and
    # concurrent calls on one core each.
    call = lambda: wss.grep(COMMON_REGEX, limit=50)
    for label, n in (("default_one_thread_calls_per_s", 1), ("default_two_threads_calls_per_s", 2)):
        threads[label] = statistics.median(_threads_throughput(call, n, calls) for _ in range(3))

    # deep read
    log = log_file(log_mb)
    size = os.path.getsize(log)
    offset = 5_000_000 if log_mb >= 500 else max(1, (size // LOG_LINE_BYTES) // 2)
    case = f"read_file lines {offset:,}+400 ({log_mb} MB log)"
    measure(case, "tail | head", lambda: tail_head(log, offset, 400), 400)
    wsl = Workspace(os.path.dirname(log))
    rel = os.path.basename(log)

    def sg_read() -> int:
        r = wsl.read_file(rel, offset=offset, limit=400)
        first = r.lines[0].text
        if not first.startswith(f"{offset:09d} "):
            raise AssertionError(f"line {offset} reads {first[:20]!r}")
        return len(r.lines)

    measure(case, "ripsight", sg_read, 400)
    measure(case, "python (islice)", lambda: py_read(log, offset, 400), 400, reps=min(repeat, 3))
    run_case(case)
    bar.step("read peak memory")
    try:
        mem: dict[str, Any] = peak_rss_of_read(log, offset, 400)
    except RuntimeError as exc:
        mem = {
            "peak_mb": None,
            "baseline_mb": None,
            "delta_mb": None,
            "lines": 0,
            "error": str(exc),
        }
        problems.append(f"read_file peak memory: {exc}")

    _apply_goals(rows, threads, mem)
    return {
        "root": root,
        "small_root": small,
        "log": log,
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "machine": machine_info(),
        "repeat": repeat,
        "quick": quick,
        "patterns": {label: pat for label, pat, _ in patterns},
        "glob": glob,
        "missing_peers": {n.replace("_", "-"): "not importable" for n in missing},
        "peers_without_hidden_files": [n.replace("_", "-") for n, h in lib_hidden.items() if not h],
        "rows": [asdict(r) for r in rows],
        "threads": threads,
        "read_memory": mem,
        "problems": problems,
        # 1-minute load average before and after: above ~0.5 on 2 cores, other work shared the
        # CPUs with the run and the medians are noisy.
        "load_average": {"start": load_start, "end": os.getloadavg()[0]},
    }


def _apply_goals(rows: list[Row], threads: dict[str, Any], mem: dict[str, Any]) -> None:
    """Ratios to rg (or to the case's reference) and the benchmark's goals."""
    by_case: dict[str, dict[str, Row]] = {}
    for r in rows:
        by_case.setdefault(r.case, {})[r.tool] = r
    for case, tools in by_case.items():
        ref = tools.get("rg") or tools.get("tail | head")
        for r in tools.values():
            if ref and ref.median_ms and r.median_ms is not None:
                r.ratio_to_rg = r.median_ms / ref.median_ms
        sg = tools.get("ripsight")
        if sg is None or sg.median_ms is None:
            continue
        goals: list[tuple[str, float | None]] = []
        if case.startswith("grep "):
            goals.append(("<=1.0x rg", _ratio(sg, tools.get("rg"), 1.0)))
            goals.append(("<=0.6x rg --sort", _ratio(sg, tools.get("rg --sort path"), 0.6)))
        elif case.startswith("glob "):
            goals.append(("<=0.9x fd", _ratio(sg, tools.get("fd"), 0.9)))
        elif case.startswith("per-call"):
            goals.append(("<=0.2x rg", _ratio(sg, tools.get("rg"), 0.2)))
        elif case.startswith("read_file"):
            goals.append(("<=1.0x tail|head", _ratio(sg, tools.get("tail | head"), 1.0)))
            if mem.get("peak_mb") is not None:
                goals.append(("peak<64MB", 1.0 if mem["peak_mb"] < 64 else 0.0))
        peers_ok = all(
            p.median_ms is None or sg.median_ms < p.median_ms
            for name, p in tools.items()
            if name in ("python-ripgrep", "ripgrep-rs")
        )
        if any(n in tools for n in ("python-ripgrep", "ripgrep-rs")):
            goals.append(("< py-rg libs", 1.0 if peers_ok else 0.0))
        sg.goal = ", ".join(g for g, _ in goals)
        verdicts = [v for _, v in goals if v is not None]
        sg.met = all(v >= 1.0 for v in verdicts) if verdicts else None
        sg.note = "; ".join(
            f"{g}: {'met' if v >= 1.0 else 'MISSED'}" for g, v in goals if v is not None
        )
    threads["goal"] = ">=1.7x"
    threads["met"] = threads["speedup"] >= 1.7


def _ratio(sg: Row, ref: Row | None, limit: float) -> float | None:
    if ref is None or not ref.median_ms or sg.median_ms is None:
        return None
    return 1.0 if sg.median_ms / ref.median_ms <= limit else 0.0
