"""The built-in tools: `glob`, `grep`, `read_file`, `outline`, `find_definitions`, and
`read_result` for stored results.

    >>> [spec.name for spec in builtin_tools()]
    ['find_calls', 'find_definitions', 'find_references', 'glob', 'grep', 'outline', 'read_file', 'read_result']

Each tool is one module of this package holding its model-facing definition (generated from a
`ToolLimits`), its handler (the Rust engine does every walk, search and read), the text the
model sees, and its `ToolSpec`, which carries the tool's whole contract: the result classes
and their output schema, paging, and its ``ripsight`` subcommand. A module that names its spec's
builder ``TOOL`` is a built-in tool: `builtin_tools` finds it there, and the package exports
the names of its ``__all__`` (`format_grep`, `GREP_SCHEMA`...). So adding a tool is adding its
module; the registry, every provider's definitions, the MCP server and the command line are
generated from the specs.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..limits import DEFAULT_LIMITS, ToolLimits
from ..types import ToolSpec

# Re-exported (the `as` says so to type checkers: `__all__` is generated, below).
from ._common import ENGINE_RESULT_KEY as ENGINE_RESULT_KEY
from ._common import MAX_OFFSET as MAX_OFFSET

if TYPE_CHECKING:
    # What `__getattr__` finds at run time, spelled out for type checkers (which cannot run
    # it): each tool module's ``__all__``, with its types. tests/test_imports.py checks that
    # this list names every tool module.
    from .calls import *
    from .definitions import *
    from .glob import *
    from .grep import *
    from .outline import *
    from .read_file import *
    from .read_result import *
    from .references import *
    from .repo_map import *

#: This module's own names; the tools' names are added to `__all__` as the tools are found.
_OWN_NAMES = ("ENGINE_RESULT_KEY", "MAX_OFFSET", "builtin_tools", "tool_modules")


def tool_modules() -> list[ModuleType]:
    """The modules of this package that hold a built-in tool (they define ``TOOL``, the
    builder of its `ToolSpec`), in name order. Helper modules (``media``, ``read_pdf``) and
    private ones (``_common``) are not tools."""
    modules: list[ModuleType] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if callable(getattr(module, "TOOL", None)):
            modules.append(module)
    return modules


def builtin_tools(limits: ToolLimits = DEFAULT_LIMITS) -> list[ToolSpec]:
    """The built-in read-only tools, in name order, their definitions generated from `limits`:
    the file tools and `read_result` (which reads results stored by reference)."""
    builders: list[Callable[[ToolLimits], ToolSpec]] = [m.TOOL for m in tool_modules()]
    return sorted((build(limits) for build in builders), key=lambda spec: spec.name)


def _exports() -> dict[str, ModuleType]:
    """Each name a tool module exports (its ``__all__``), with the module."""
    return {name: module for module in tool_modules() for name in getattr(module, "__all__", ())}


def __getattr__(name: str) -> Any:
    # The tools' public names, found anew on each lookup (a tool module is all a new tool
    # needs); `__all__` is generated the same way.
    if name == "__all__":
        return sorted({*_OWN_NAMES, *_exports()})
    module = _exports().get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(module, name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_exports()})
