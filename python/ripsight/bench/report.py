"""The report of `ripsight bench`: the machine it ran on, the table of figures, the plot."""

from __future__ import annotations

import io
import json
import os
import platform
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from .peers import fd_binary, rg_binary


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
    }
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    for key, cmd in (
        ("rustc", ["rustc", "--version"]),
        ("rg", [rg_binary() or "rg", "--version"]),
        ("fd", [fd_binary() or "fd", "--version"]),
    ):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=10)
            info[key] = out.stdout.splitlines()[0] if out.stdout else None
        except (OSError, subprocess.TimeoutExpired):
            info[key] = None
    try:
        import ripsight

        info["ripsight"] = getattr(ripsight, "__version__", None)
    except ImportError:
        pass
    return info


def format_table(fig: dict[str, Any]) -> str:
    """The figures as a Markdown table: median, ratio to rg (or tail|head), goal, met/missed."""
    out = io.StringIO()
    out.write("| case | tool | median ms | ratio to rg | cpu ms | goal | met |\n")
    out.write("|---|---|---:|---:|---:|---|---|\n")
    for r in fig["rows"]:
        med = "—" if r["median_ms"] is None else f"{r['median_ms']:.2f}"
        ratio = "" if r["ratio_to_rg"] is None else f"{r['ratio_to_rg']:.2f}x"
        met = "" if r["met"] is None else ("met" if r["met"] else "MISSED")
        goal = r["note"] if r["tool"] == "ripsight" else (r["note"] or "")
        cpu = "" if r.get("cpu_ms") is None else f"{r['cpu_ms']:.1f}"
        cells = [r["case"], r["tool"], med, ratio, cpu, goal, met]
        out.write("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |\n")
    t = fig["threads"]
    out.write(
        "| 2 threads vs 1 (small-repo grep, one walker thread a call) | ripsight | "
        f"{t['one_thread_calls_per_s']:.0f}"
        f" -> {t['two_threads_calls_per_s']:.0f} calls/s | {t['speedup']:.2f}x | "
        "| 2 threads >=1.7x one "
        f"| {'met' if t['met'] else 'MISSED'} |\n"
    )
    if "default_two_threads_calls_per_s" in t:
        one, two = t["default_one_thread_calls_per_s"], t["default_two_threads_calls_per_s"]
        out.write(
            "| 2 threads vs 1 (small-repo grep, default workspace) | ripsight | "
            f"{one:.0f} -> {two:.0f} calls/s | {two / one:.2f}x | | | |\n"
        )
    m = fig["read_memory"]
    if m.get("peak_mb") is not None:
        out.write(
            f"| read_file peak memory | ripsight | {m['peak_mb']:.1f} MB peak RSS "
            f"(+{m['delta_mb']:.1f} MB for the read) | | | <64 MB | "
            f"{'met' if m['peak_mb'] < 64 else 'MISSED'} |\n"
        )
    for name, why in fig.get("missing_peers", {}).items():
        out.write(f"\n{name}: {why}")
    for p in fig.get("problems", []):
        out.write(f"\nPROBLEM: {p}")
    return out.getvalue()


def plot(fig: dict[str, Any], path: str) -> None:
    """Horizontal bars of each case's ratios to rg (log scale). Needs matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in fig["rows"] if r["ratio_to_rg"] is not None]
    labels = [f"{r['case']} — {r['tool']}" for r in rows]
    values = [r["ratio_to_rg"] for r in rows]
    colors = ["tab:blue" if r["tool"] == "ripsight" else "tab:gray" for r in rows]
    f, ax = plt.subplots(figsize=(10, 0.28 * len(rows) + 1.5))
    ax.barh(range(len(rows)), values, color=colors)
    ax.set_yticks(range(len(rows)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.axvline(1.0, color="k", lw=0.8)
    ax.set_xlabel("median time / rg's median time (lower is faster; log scale)")
    ax.set_title(f"ripsight bench on {os.path.basename(fig['root'])}")
    f.tight_layout()
    f.savefig(path, dpi=120)
    plt.close(f)


def mode_root(args: Any, mode: str) -> str | None:
    """The repository a mode that measures one (``--warm``, ``--scale``, ``--navigation``) was
    given; None, said on stderr, when there is none."""
    root: str | None = args.root
    if not root or not os.path.isdir(root):
        print(
            f"--{mode} needs the repository to measure: ripsight bench --{mode} ROOT",
            file=sys.stderr,
        )
        return None
    return root


def finish(
    fig: dict[str, Any],
    args: Any,
    draw: Callable[[dict[str, Any], str], None] | None = None,
) -> int:
    """The end of every bench mode: the raw figures written to ``--json`` and drawn to
    ``--plot`` (by ``draw``) when asked; the exit status, 1 when a tool's answer differed."""
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(fig, fh, indent=2)
    if draw is not None and args.plot:
        draw(fig, args.plot)
    return 1 if fig["problems"] else 0
