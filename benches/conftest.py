"""Corpora and shared checks for the benchmark suites.

Default run (``pytest``, benchmarks disabled): only small generated corpora, every case runs once
as a correctness check, the whole collection in well under a minute. Big corpora are opt-in:

    SPYGLASS_BENCH_CORPUS=kernel,monorepo,log pytest benches --benchmark-enable
    pytest benches --benchmark-enable --corpus all

Each case first asserts that its tool found the expected answer (the total `rg` finds in the same
file set), then times it; the summary prints each group's medians as ratios to `rg`.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from spyglass import bench as sb  # noqa: E402

BIG = ("kernel", "monorepo", "log")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--corpus", default=None,
                     help="opt-in big corpora: comma list of kernel,monorepo,log or 'all' "
                          "(also $SPYGLASS_BENCH_CORPUS)")


def _wanted(config: pytest.Config) -> set[str]:
    raw = config.getoption("--corpus") or os.environ.get("SPYGLASS_BENCH_CORPUS", "")
    names = {n.strip() for n in raw.split(",") if n.strip()}
    return set(BIG) if "all" in names else names


@dataclass(frozen=True)
class Corpus:
    name: str
    root: str
    rare: str
    common: str
    none: str
    glob: str  # a `**/*.EXT` glob


def _kernel() -> str:
    from kernel import kernel_ready  # type: ignore[import-not-found]

    root = kernel_ready()
    if root is None:
        pytest.skip("kernel tree not prepared: run `python benches/kernel.py` once (apt, ~3 min)")
    return root


def make_corpus(name: str, config: pytest.Config) -> Corpus:
    gen = dict(rare=sb.RARE_LITERAL, common=sb.COMMON_REGEX, none=sb.NO_MATCH, glob="**/*.c")
    if name == "small":
        return Corpus(name, sb.small_repo(300), **gen)
    if name == "mono2k":
        return Corpus(name, sb.monorepo(2_000), **gen)
    if name not in _wanted(config):
        pytest.skip(f"big corpus {name!r} is opt-in: SPYGLASS_BENCH_CORPUS={name} or --corpus {name}")
    if name == "monorepo":
        return Corpus(name, sb.monorepo(100_000), **gen)
    if name == "kernel":
        # ~16,000 matches for the common regex in linux-source-6.1; 39 for the rare literal.
        return Corpus(name, _kernel(), rare="cassini", common=r"list_for_each_entry\w*\(",
                      none=sb.NO_MATCH, glob="**/*.c")
    raise ValueError(name)


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
        if "log" not in _wanted(request.config):
            pytest.skip("the 500 MB log is opt-in: SPYGLASS_BENCH_CORPUS=log or --corpus log")
        return sb.log_file(500), 5_000_000
    return sb.log_file(20), 120_000


_expected: dict[tuple, int] = {}


def expected(key: tuple, compute) -> int:
    """The reference answer, computed once per run."""
    if key not in _expected:
        _expected[key] = compute()
    return _expected[key]


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # noqa: ARG001
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
