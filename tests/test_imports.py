"""The package's layering: every module imports, and no two modules import each other, even
through a chain, a function-level import or an `if TYPE_CHECKING:` block."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest
import ripsight

PACKAGE = Path(ripsight.__file__).parent


def _modules() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


MODULES = _modules()
# The Rust extension: a leaf every layer may import.
EXTENSION = "ripsight._core"


def _resolve(module: str, is_package: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _imports(module: str, path: Path) -> set[str]:
    """Every ripsight module `module` imports, anywhere in its source."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node.level, node.module)
            names = [base] if node.module else []
            # `from . import x` and `from .pkg import sub` import submodules.
            names += [
                f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in MODULES
            ]
        for name in names:
            if not (name == "ripsight" or name.startswith("ripsight.")):
                continue
            if name == EXTENSION or name.startswith(EXTENSION + "."):
                continue
            while name not in MODULES and "." in name:
                name = name.rsplit(".", 1)[0]
            if name in MODULES:
                found.add(name)
                # Importing a.b.c runs the __init__ of a.b too (the root package excepted:
                # it re-exports the public names and sits above everything).
                parent = name.rsplit(".", 1)[0]
                # Its own ancestors are initialising already, by design, so they do not count.
                while parent != "ripsight":
                    if not module.startswith(parent + "."):
                        found.add(parent)
                    parent = parent.rsplit(".", 1)[0]
    found.discard(module)
    return found


def _graph() -> dict[str, set[str]]:
    return {module: _imports(module, path) for module, path in MODULES.items()}


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


@pytest.mark.parametrize("module", sorted(m for m in MODULES if not m.endswith(".__main__")))
def test_every_module_imports(module: str) -> None:
    if module in (
        "ripsight.mcp_server",
        "ripsight.mcp_approval",
        "ripsight.mcp_results",
        "ripsight.mcp_session",
    ):
        pytest.importorskip("mcp")
    importlib.import_module(module)


def test_the_package_has_no_import_cycles() -> None:
    graph = _graph()
    assert _find_cycle(graph) is None, " -> ".join(_find_cycle(graph) or [])


#: The package's layers, bottom up. A module imports only from layers below its own (or, inside
#: a subpackage, its siblings): the engine's typed API and value types at the bottom, then the
#: conversation's state and the protocol's types, the parts the pipeline is made of, its steps,
#: the registry, the public package, and the front ends on top. The providers sit below the
#: registry, which renders its definitions through them.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("ripsight.errors", "ripsight.names", "ripsight.limits", "ripsight.file_types"),
    ("ripsight.pdf", "ripsight._pdf_worker", "ripsight._outline_worker", "ripsight.approval"),
    ("ripsight.codes", "ripsight.workspace", "ripsight.session", "ripsight.merged"),
    ("ripsight.roots",),
    ("ripsight.validation", "ripsight.oplog", "ripsight.types"),
    (
        "ripsight.lookup",
        "ripsight.budget",
        "ripsight.batches",
        "ripsight.tools",
        "ripsight.providers",
        "ripsight.streaming",
    ),
    ("ripsight.steps", "ripsight.mcp_approval", "ripsight.mcp_clients", "ripsight.mcp_inflight"),
    ("ripsight.registry",),
    ("ripsight.mcp_results", "ripsight.mcp_session"),
    ("ripsight",),
    ("ripsight.demo", "ripsight.mcp_server", "ripsight.bench"),
    ("ripsight.cli",),
    ("ripsight.__main__",),
)


def _unit(module: str) -> tuple[int, str]:
    """The layer of `module` and the entry of LAYERS that holds it (a subpackage holds its
    modules)."""
    for level, names in enumerate(LAYERS):
        for name in names:
            if module == name or (name != "ripsight" and module.startswith(name + ".")):
                return level, name
    raise AssertionError(f"{module} is in no layer: add it to LAYERS in tests/test_imports.py")


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_module_imports_only_from_below(module: str) -> None:
    level, unit = _unit(module)
    upward = []
    for target in sorted(_imports(module, MODULES[module])):
        target_level, target_unit = _unit(target)
        if target_unit == unit and unit != "ripsight":
            continue  # inside one subpackage
        if target_level >= level:
            upward.append(f"{target} (layer {target_level})")
    assert not upward, f"{module} (layer {level}) imports {', '.join(upward)}"


def test_the_layer_check_finds_an_upward_import(tmp_path: Path) -> None:
    path = tmp_path / "types.py"
    path.write_text("from .registry import Registry\n")
    level, _ = _unit("ripsight.types")
    assert {_unit(t)[0] for t in _imports("ripsight.types", path)} == {
        _unit("ripsight.registry")[0]
    }
    assert _unit("ripsight.registry")[0] > level


def test_only_the_root_package_and_entry_points_import_the_root() -> None:
    graph = _graph()
    importers = sorted(m for m, targets in graph.items() if "ripsight" in targets)
    # __version__ comes from the extension; the CLI, the MCP server and the bench report it.
    assert set(importers) <= {
        "ripsight.cli",
        "ripsight.mcp_server",
        "ripsight.bench.report",
        "ripsight.bench.suite",
        "ripsight.__main__",
    }, importers


def test_the_cycle_check_finds_a_cycle() -> None:
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_graph_sees_function_level_and_type_checking_imports(tmp_path: Path) -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .registry import Registry\n"
        "def f():\n    from . import session\n"
    )
    path = tmp_path / "types.py"
    path.write_text(source)
    assert _imports("ripsight.types", path) == {"ripsight.registry", "ripsight.session"}


def test_python_dash_m_runs_the_cli() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ripsight", "--version"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert out.stdout.startswith("ripsight ")


def test_the_cli_does_not_load_the_bench_harness() -> None:
    heavy = [f"ripsight.bench.{name}" for name in ("harness", "corpus", "peers", "suite", "report")]
    code = (
        "import sys, ripsight.cli as c; c.build_parser(); "
        f"print(any(name in sys.modules for name in {heavy!r}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "False"


def test_the_tools_package_names_every_tool_module_for_type_checkers() -> None:
    # `ripsight.tools` finds its tools' names at run time; a type checker reads them from the
    # star imports of its `if TYPE_CHECKING:` block, which must name every tool module.
    from ripsight.tools import tool_modules

    tree = ast.parse((PACKAGE / "tools" / "__init__.py").read_text(encoding="utf-8"))
    blocks = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    ]
    starred = {
        node.module
        for block in blocks
        for node in block.body
        if isinstance(node, ast.ImportFrom) and [a.name for a in node.names] == ["*"]
    }
    assert starred == {module.__name__.rsplit(".", 1)[1] for module in tool_modules()}
