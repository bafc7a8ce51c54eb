"""Outlines and definitions (issue 19): the outline of a 120 KB Python file, uncached and cached,
beside Python's own `ast` (in-process) and universal-ctags (a subprocess); and the definitions
of a selective name on the Linux tree, cold and with the warm index, outlines cached or not,
beside `rg` with a definition regex and ctags over the files `rg -l` names.

    pytest benches/bench_outline.py --benchmark-enable                        # the Python file
    RIPSIGHT_BENCH_CORPUS=kernel pytest benches/bench_outline.py --benchmark-enable

Every case checks its answer before it is timed: the outline holds every `def` and `class` ast
finds; the definitions hold the one definition ctags finds. Goals: outline uncached <= 20 ms,
cached <= 1 ms; definitions <= 50 ms with the warm index, <= 1 s cold.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest
from benchkit import wanted
from ripsight import ToolCall, Workspace, default_registry
from ripsight.bench.peers import rg_binary
from ripsight.tools import ENGINE_RESULT_KEY

#: A real Python file of about 120 KB: the standard library's inspect.py.
SOURCE = Path(sysconfig.get_paths()["stdlib"]) / "inspect.py"
#: A name defined once in the Linux tree (fs/ext4/super.c) and used in a few files.
KERNEL_NAME = "ext4_fill_super"
KERNEL_DEFINITION = "fs/ext4/super.c:5680 function ext4_fill_super"


def ast_definitions(data: bytes) -> set[tuple[int, str]]:
    return {
        (node.lineno, node.name)
        for node in ast.walk(ast.parse(data))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }


@pytest.fixture(scope="module")
def python_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """inspect.py copied into directories of their own, just now (the cache keeps an outline
    by the bytes, so a file written a moment ago is cached as well): "uncached" (the cache is
    emptied before every round), "cached" and "registry" (the cache filled before the run)."""
    if not SOURCE.is_file():
        pytest.skip(f"{SOURCE} is not there")
    copies = {}
    for name in ("uncached", "cached", "registry"):
        root = tmp_path_factory.mktemp(name)
        shutil.copyfile(SOURCE, root / SOURCE.name)
        copies[name] = root / SOURCE.name
    return copies


def test_outline_through_the_registry_cached(benchmark, python_files: dict[str, Path]) -> None:
    """The `outline` tool repeated on an unchanged file, as a model calls it: the whole
    pipeline (the arguments checked, the call recorded, the page formatted). Goal <= 1 ms."""
    python_file = python_files["registry"]
    benchmark.group = f"outline {python_file.name} through the registry"
    benchmark.extra_info["tool"] = "ripsight registry cached"
    registry = default_registry(python_file.parent)
    # Every repeat answered in full, not "same as call N".
    registry.forget_between_calls()
    # Outlines are cached by their bytes, which another test of this process may have parsed.
    assert registry.workspace is not None
    registry.workspace._engine.clear_outline_cache()
    call = ToolCall("c1", "outline", json.dumps({"path": python_file.name}))
    first = registry.execute(call)
    assert first.meta["code"] == "ok" and not first.meta[ENGINE_RESULT_KEY].cached

    def run() -> str:
        result = registry.execute(call)
        assert result.meta["code"] == "ok" and result.meta[ENGINE_RESULT_KEY].cached
        return result.content

    assert benchmark(run) == first.content


@pytest.mark.parametrize("tool", ["ripsight uncached", "ripsight cached", "ast", "ctags"])
def test_outline_of_a_120_kb_python_file(
    benchmark, python_files: dict[str, Path], tool: str
) -> None:
    python_file = python_files["cached" if tool == "ripsight cached" else "uncached"]
    data = python_file.read_bytes()
    expected = ast_definitions(data)
    assert 100_000 < len(data) < 140_000 and len(expected) > 100
    benchmark.group = f"outline {python_file.name} ({len(data):,} bytes)"
    benchmark.extra_info["tool"] = tool
    if tool.startswith("ripsight"):
        ws = Workspace(python_file.parent)

        def run() -> int:
            out = ws.outline(python_file.name, limit=None)
            assert out.cached == (tool == "ripsight cached")
            assert {(s.line, s.name) for s in out.symbols} == expected
            return out.total

        if tool == "ripsight cached":
            run_cached = ws.outline(python_file.name, limit=None)  # fills the cache
            assert run_cached.total == len(expected)
            assert benchmark(run) == len(expected)
        else:
            # The cache emptied before each round: parsed every time.
            benchmark.pedantic(
                run, setup=ws._engine.clear_outline_cache, rounds=30, warmup_rounds=2
            )
        return
    if tool == "ast":

        def run_ast() -> int:
            return len(ast_definitions(python_file.read_bytes()))

        assert benchmark(run_ast) == len(expected)
        return
    ctags = shutil.which("ctags")
    if ctags is None:
        pytest.skip("universal-ctags is not installed")

    def run_ctags() -> int:
        out = subprocess.run(
            [ctags, "-x", "--kinds-Python=fmc", str(python_file)],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return len(out.stdout.splitlines())

    assert benchmark(run_ctags) == len(expected)


# -- definitions on the Linux tree ---------------------------------------------------------------


@pytest.fixture(scope="module")
def kernel(request: pytest.FixtureRequest) -> Path:
    if "kernel" not in wanted(request.config):
        pytest.skip("the Linux tree is opt-in: RIPSIGHT_BENCH_CORPUS=kernel or --corpus kernel")
    from linux_source import kernel_ready

    root = kernel_ready()
    if root is None:
        pytest.skip("the Linux tree is not prepared (python benches/linux_source.py)")
    return Path(root)


@pytest.fixture(scope="module")
def warm_kernel(kernel: Path):
    with Workspace(kernel, index=True, time_budget=600) as ws:
        assert ws.wait_index(timeout=900)
        yield ws


def definitions_case(benchmark, ws: Workspace, cached: bool) -> None:
    def run() -> list[str]:
        return [str(d) for d in ws.definitions(KERNEL_NAME).definitions]

    assert run() == [KERNEL_DEFINITION]
    if cached:
        assert benchmark(run) == [KERNEL_DEFINITION]
    else:
        engine = ws._engine
        result = benchmark.pedantic(
            run, setup=engine.clear_outline_cache, rounds=10, warmup_rounds=1
        )
        assert result == [KERNEL_DEFINITION]


@pytest.mark.parametrize("cached", [False, True], ids=["outlines uncached", "outlines cached"])
def test_definitions_warm(benchmark, warm_kernel: Workspace, cached: bool) -> None:
    benchmark.group = f"definitions {KERNEL_NAME} on Linux 6.1"
    benchmark.extra_info["tool"] = f"ripsight warm index, {'cached' if cached else 'uncached'}"
    definitions_case(benchmark, warm_kernel, cached)


@pytest.mark.parametrize("cached", [False, True], ids=["outlines uncached", "outlines cached"])
def test_definitions_cold(benchmark, kernel: Path, cached: bool) -> None:
    benchmark.group = f"definitions {KERNEL_NAME} on Linux 6.1"
    benchmark.extra_info["tool"] = f"ripsight cold, {'cached' if cached else 'uncached'}"
    definitions_case(benchmark, Workspace(kernel, time_budget=600), cached)


def test_definitions_rg_regex(benchmark, kernel: Path) -> None:
    """`rg` with a regex for a C definition's head: the name followed by `(`, at the start of
    a line's declaration, not a statement (no `;` or `=` before it)."""
    rg = rg_binary()
    if rg is None:
        pytest.skip("rg is not installed")
    benchmark.group = f"definitions {KERNEL_NAME} on Linux 6.1"
    benchmark.extra_info["tool"] = "rg"
    pattern = rf"^\w[^;=(]*\b{KERNEL_NAME}\s*\("

    def run() -> list[str]:
        out = subprocess.run(
            [rg, "-n", "--no-heading", "-g", "*.[ch]", pattern, "."],
            cwd=kernel,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        return [":".join(line.split(":", 2)[:2]) for line in out.stdout.splitlines()]

    found = run()
    assert any(line.endswith("fs/ext4/super.c:5680") for line in found), found
    benchmark(run)


def test_definitions_ctags_over_candidates(benchmark, kernel: Path) -> None:
    """ctags over the files `rg -l NAME` names: the definitions search done with the usual
    tools (both subprocesses, timed together)."""
    rg, ctags = rg_binary(), shutil.which("ctags")
    if rg is None or ctags is None:
        pytest.skip("rg or ctags is not installed")
    benchmark.group = f"definitions {KERNEL_NAME} on Linux 6.1"
    benchmark.extra_info["tool"] = "rg -l | ctags"

    def run() -> list[str]:
        files = subprocess.run(
            [rg, "-l", "-F", KERNEL_NAME, "."],
            cwd=kernel,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        ).stdout.split()
        tags = subprocess.run(
            [ctags, "-x", "--kinds-C=f", *files],
            cwd=kernel,
            capture_output=True,
            text=True,
            timeout=600,
            check=True,
        ).stdout.splitlines()
        return [f"{t.split()[3]}:{t.split()[2]}" for t in tags if t.split()[0] == KERNEL_NAME]

    assert [p.removeprefix("./") for p in run()] == ["fs/ext4/super.c:5680"]
    benchmark(run)
