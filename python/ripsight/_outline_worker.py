"""The outline parser's child process: tree-sitter, which is C, parsing bytes fed over a pipe.

Run by the engine (``Workspace`` gives it the command ``python -I <this file>``), never
imported by the package. It loads the engine's extension module from beside this file, without
importing the rest of the package (a worker starts in a few tens of milliseconds), and hands
over to the engine's worker loop (``_core.serve_outline_worker``): the loop limits this
process's address space and CPU time, then answers parse requests on standard input until it
closes. A crash, a loop or an allocation that fails here ends this process only; the engine
answers its caller that the file has no outline.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def _load_core() -> ModuleType:
    """The extension module ``ripsight._core`` from this file's directory."""
    here = Path(__file__).resolve().parent
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = here / f"_core{suffix}"
        if candidate.is_file():
            loader = importlib.machinery.ExtensionFileLoader("ripsight._core", str(candidate))
            spec = importlib.util.spec_from_file_location(
                "ripsight._core", candidate, loader=loader
            )
            if spec is None:
                break
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
            return module
    raise ImportError(f"no ripsight._core extension module in {here}")


def main() -> int:
    status: int = _load_core().serve_outline_worker()
    return status


if __name__ == "__main__":
    sys.exit(main())
