"""`ripsight bench`: ripsight against ripgrep and its peers (see `ripsight.bench.harness`).

Importing this package is cheap: the CLI builds the subcommand's parser from
`ripsight.bench.options`, and the harness (corpus generators, peer runners, the suite) loads on
first use of one of its names, e.g. ``from ripsight import bench; bench.small_repo(300)``.
"""

from __future__ import annotations

import importlib
from typing import Any

from .options import NO_MATCH, add_arguments, build_parser

__all__ = ["NO_MATCH", "add_arguments", "build_parser", "harness"]


def __getattr__(name: str) -> Any:
    # PEP 562: the harness's names (small_repo, run, main, ...) without importing it up front.
    harness = importlib.import_module(".harness", __name__)
    if name == "harness":
        return harness
    try:
        return getattr(harness, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
