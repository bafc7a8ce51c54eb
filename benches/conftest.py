"""Corpora and shared checks for the benchmark suites.

Default run (``pytest``, benchmarks disabled): only small generated corpora, every case runs once
as a correctness check, the whole collection in well under a minute. Big corpora are opt-in:

    RIPSIGHT_BENCH_CORPUS=kernel,monorepo,log pytest benches --benchmark-enable
    pytest benches --benchmark-enable --corpus all

Each case first asserts that its tool found the expected answer (the total `rg` finds in the same
file set), then times it; the summary prints each group's medians as ratios to `rg`.
"""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from benchkit import Corpus, make_corpus, wanted
from ripsight import bench as sb


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--corpus",
        default=None,
        help="opt-in big corpora: comma list of kernel,monorepo,log or 'all' "
        "(also $RIPSIGHT_BENCH_CORPUS)",
    )


TREES = ["small", "mono2k", "monorepo", "kernel"]
_corpora: dict[str, Corpus] = {}


@pytest.fixture(params=TREES)
def tree(request: pytest.FixtureRequest) -> Corpus:
    name = request.param
    if name not in _corpora:
        _corpora[name] = make_corpus(name, request.config)
    return _corpora[name]


@pytest.fixture(params=["log-20mb", "log"])
def log(request: pytest.FixtureRequest) -> tuple[str, int]:
    """(path, offset) of a numbered-line log: 20 MB by default, 500 MB opt-in (line 5,000,000)."""
    if request.param == "log":
        if "log" not in wanted(request.config):
            pytest.skip("the 500 MB log is opt-in: RIPSIGHT_BENCH_CORPUS=log or --corpus log")
        return sb.log_file(500), 5_000_000
    return sb.log_file(20), 120_000


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """Per group: each tool's median and its ratio to the group's `rg` (or tail|head) median."""
    session = getattr(config, "_benchmarksession", None)
    if session is None or session.disabled or not session.benchmarks:
        return
    groups: dict[str, list] = {}
    for bm in session.benchmarks:
        groups.setdefault(bm.group or "", []).append(bm)
    tr = terminalreporter
    tr.write_sep("-", "medians and ratios to rg (same run, warm cache)")
    for group, bms in sorted(groups.items()):
        ref = next((b for b in bms if b.extra_info.get("tool") in ("rg", "tail | head")), None)
        tr.write_line(group)
        for b in sorted(bms, key=lambda b: b.stats.median):
            med = b.stats.median * 1000
            ratio = f"{b.stats.median / ref.stats.median:6.2f}x" if ref else "   n/a "
            tr.write_line(f"    {b.extra_info.get('tool', b.name):28} {med:10.2f} ms  {ratio}")
