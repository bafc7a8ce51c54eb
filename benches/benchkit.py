"""Shared pieces of the benchmark suites (imported as ``benchkit``, never through conftest:
``tests/conftest.py`` would shadow a ``conftest`` import)."""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest
from ripsight import bench as sb

BIG = ("kernel", "monorepo", "log")


def wanted(config: pytest.Config) -> set[str]:
    """Big corpora opted into with --corpus or $RIPSIGHT_BENCH_CORPUS ('all' for every one)."""
    raw = config.getoption("--corpus") or os.environ.get("RIPSIGHT_BENCH_CORPUS", "")
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
    from linux_source import kernel_ready  # type: ignore[import-not-found]

    root = kernel_ready()
    if root is None:
        pytest.skip(
            "kernel tree not prepared: run `python benches/linux_source.py` once (apt, ~3 min)"
        )
    return root


def make_corpus(name: str, config: pytest.Config) -> Corpus:
    gen = {
        "rare": sb.RARE_LITERAL,
        "common": sb.COMMON_REGEX,
        "none": sb.NO_MATCH,
        "glob": "**/*.c",
    }
    if name == "small":
        return Corpus(name, sb.small_repo(300), **gen)
    if name == "mono2k":
        return Corpus(name, sb.monorepo(2_000), **gen)
    if name not in wanted(config):
        pytest.skip(
            f"big corpus {name!r} is opt-in: RIPSIGHT_BENCH_CORPUS={name} or --corpus {name}"
        )
    if name == "monorepo":
        return Corpus(name, sb.monorepo(100_000), **gen)
    if name == "kernel":
        # ~16,000 matches for the common regex in linux-source-6.1; 39 for the rare literal.
        return Corpus(
            name,
            _kernel(),
            rare="cassini",
            common=r"list_for_each_entry\w*\(",
            none=sb.NO_MATCH,
            glob="**/*.c",
        )
    raise ValueError(name)


_expected: dict[tuple, int] = {}


def expected(key: tuple, compute) -> int:
    """The reference answer, computed once per run."""
    if key not in _expected:
        _expected[key] = compute()
    return _expected[key]
