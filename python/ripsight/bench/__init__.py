"""`ripsight bench`: ripsight against ripgrep and its peers (see `ripsight.bench.harness`): the
corpora in `corpus`, the peers in `peers`, the cases in `suite`, the table in `report`.

Importing this package is cheap: the CLI builds the subcommand's parser from
`ripsight.bench.options`, and the harness (corpus generators, peer runners, the suite) loads on
first use of one of its names, e.g. ``from ripsight import bench; bench.small_repo(300)``.
"""

from __future__ import annotations

import importlib
from typing import Any

from .options import NO_MATCH, add_arguments, build_parser

__all__ = [
    "NO_MATCH",
    "add_arguments",
    "build_parser",
    "corpus",
    "harness",
    "peers",
    "report",
    "suite",
]


#: The harness's modules, searched in order for a name asked of the package.
_MODULES = ("corpus", "peers", "suite", "report", "harness")


def __getattr__(name: str) -> Any:
    # PEP 562: the harness's names (small_repo, rg_count, run, main, ...) without importing it
    # up front.
    if name in _MODULES:
        return importlib.import_module(f".{name}", __name__)
    for module in _MODULES:
        found = getattr(importlib.import_module(f".{module}", __name__), name, None)
        if found is not None:
            return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
