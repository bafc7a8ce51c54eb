"""References and the map bound through C's includes (docs/navigation.md, "How references
bind"): a small tree shaped as Linux's, with the kernel's headers and a userspace copy of them
under tools/, each defining the same names."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from ripsight import ToolCall, ToolResult, Workspace, default_registry
from ripsight.errors import InvalidArgumentError

KERNEL_USERS = 5

FILES = {
    "include/linux/types.h": "#ifndef T\n#define T\ntypedef unsigned int u32;\n#endif\n",
    "include/linux/slab.h": (
        "#include <linux/types.h>\nstatic inline void *kzalloc(u32 size)\n{\n\treturn 0;\n}\n"
    ),
    "tools/include/linux/types.h": "typedef unsigned int u32;\n",
    "tools/include/linux/slab.h": (
        '#include "types.h"\nstatic inline void *kzalloc(u32 size)\n{\n\treturn 0;\n}\n'
    ),
    "tools/perf/perf.c": (
        "#include <linux/slab.h>\nint perf_main(void)\n{\n\tu32 n = 1;\n"
        "\treturn kzalloc(n) != 0;\n}\n"
    ),
    "lib/helper.c": "int helper(int v)\n{\n\treturn v;\n}\n",
    "tools/lib/helper.c": "int helper(int v)\n{\n\treturn v + 1;\n}\n",
    "drivers/plain.c": "int plain(void)\n{\n\treturn helper(1);\n}\n",
}
for _i in range(KERNEL_USERS):
    FILES[f"kernel/user{_i}.c"] = (
        "#include <linux/slab.h>\n"
        f"int user{_i}(void)\n{{\n\tu32 n = {_i};\n\treturn kzalloc(n) != 0;\n}}\n"
    )


def make_tree(root: Path) -> Path:
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def wait_symbols(ws: Workspace, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while ws.index_status().get("symbols") != "ready":
        assert ws.index_status().get("symbols") != "failed", ws.index_status()
        assert time.monotonic() < deadline, "the symbol index was not ready in time"
        time.sleep(0.05)


def line_of(rel: str, text: str) -> int:
    return next(i for i, line in enumerate(FILES[rel].splitlines(), 1) if text in line)


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Any:
    base = tmp_path_factory.mktemp("binding")
    root = make_tree(base / "tree")
    with Workspace(root, index=True, index_dir=base / "store") as ws:
        wait_symbols(ws)
        yield ws


def test_each_reference_binds_to_the_header_its_includes_reach(warm: Workspace) -> None:
    kernel = f"include/linux/slab.h:{line_of('include/linux/slab.h', 'kzalloc')}"
    tools = f"tools/include/linux/slab.h:{line_of('tools/include/linux/slab.h', 'kzalloc')}"
    plain = warm.references("kzalloc", limit=None)
    assert plain.total == KERNEL_USERS + 1 and plain.definitions_total == 2
    assert {r.binding for r in plain.references} == {"by_name"}

    mine = warm.references("kzalloc", definition=kernel, limit=None)
    assert mine.definition is not None and mine.definition.path == "include/linux/slab.h"
    assert (mine.resolved, mine.by_name, mine.bound_elsewhere) == (KERNEL_USERS, 0, 1)
    assert sorted(r.path for r in mine.references) == sorted(
        f"kernel/user{i}.c" for i in range(KERNEL_USERS)
    )
    assert {r.binding for r in mine.references} == {"resolved"}

    theirs = warm.references("kzalloc", definition=tools, limit=None)
    assert (theirs.resolved, theirs.by_name, theirs.bound_elsewhere) == (1, 0, KERNEL_USERS)
    assert [r.path for r in theirs.references] == ["tools/perf/perf.c"]
    # A line inside the definition names it too; the type through a quoted include.
    inside = warm.references("kzalloc", definition="tools/include/linux/slab.h:4")
    assert inside.resolved == 1
    u32 = warm.references("u32", definition="tools/include/linux/types.h:1", limit=None)
    assert [r.path for r in u32.references if r.binding == "resolved"] == [
        "tools/include/linux/slab.h",
        "tools/perf/perf.c",
    ]


def test_a_reference_no_include_reaches_is_found_by_name(warm: Workspace) -> None:
    # drivers/plain.c includes nothing: helper is by name, to either definition.
    for definition in ("lib/helper.c:1", "tools/lib/helper.c:1"):
        found = warm.references("helper", definition=definition, limit=None)
        assert (found.resolved, found.by_name, found.bound_elsewhere) == (0, 1, 0), definition
        assert [r.binding for r in found.references] == ["by_name"]


def test_a_definition_that_does_not_exist_is_refused(warm: Workspace) -> None:
    with pytest.raises(InvalidArgumentError, match="no definition of kzalloc"):
        warm.references("kzalloc", definition="include/linux/slab.h:1")
    with pytest.raises(InvalidArgumentError, match="PATH:LINE"):
        warm.references("kzalloc", definition="include/linux/slab.h")


def test_the_map_passes_rank_only_along_bound_uses(warm: Workspace) -> None:
    found = warm.repo_map(max_chars=100_000)
    by_path = {f.path: f for f in found.files}
    counts = {
        path: {d.name: d.references for d in by_path[path].definitions}
        for path in ("include/linux/slab.h", "tools/include/linux/slab.h")
    }
    # By name each would have every file's uses (6); bound, each has its own users'.
    assert counts["include/linux/slab.h"]["kzalloc"] == KERNEL_USERS
    assert counts["tools/include/linux/slab.h"]["kzalloc"] == 1
    order = [f.path for f in found.files]
    assert order.index("include/linux/slab.h") < order.index("tools/include/linux/slab.h")
    assert order.index("include/linux/types.h") < order.index("tools/include/linux/types.h")


def test_the_tool_takes_a_listed_number_and_refuses_what_names_nothing(warm: Workspace) -> None:
    registry = default_registry(warm)

    def call(args: dict[str, Any]) -> ToolResult:
        return registry.execute(ToolCall("c", "find_references", orjson.dumps(args).decode()))

    listed = call({"name": "kzalloc"})
    assert not listed.is_error and "include/linux/slab.h:2" in listed.content
    # The second listed (path order) is the userspace copy: one resolved use, five elsewhere.
    second = call({"name": "kzalloc", "definition": "2"})
    assert not second.is_error, second.content
    assert "of one definition" in second.content and "(resolved)" in second.content
    assert "tools/include/linux/slab.h:2" in second.content
    assert "1 resolved, 0 by name; 5 references left out" in second.content
    for bad, words in (
        ("9", "picks no definition"),
        ("slab.h", "neither PATH:LINE"),
        ("include/linux/slab.h:1", "Call find_references without definition"),
    ):
        answer = call({"name": "kzalloc", "definition": bad})
        assert answer.is_error and words in answer.content, (bad, answer.content)


def test_without_the_symbol_index_every_reference_is_by_name(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    with Workspace(root) as cold:
        kernel = f"include/linux/slab.h:{line_of('include/linux/slab.h', 'kzalloc')}"
        found = cold.references("kzalloc", definition=kernel, limit=None)
        assert (found.resolved, found.by_name, found.bound_elsewhere) == (0, KERNEL_USERS + 1, 0)
        assert found.definition is not None


KERNEL = os.environ.get("RIPSIGHT_KERNEL_ROOT")

#: Files of the kernel's map that are userspace shims or vendored type headers: they define
#: the kernel's names for code built apart from it.
SHIMS = ("tools/", "drivers/gpu/drm/vmwgfx/device_include/")


@pytest.mark.skipif(not KERNEL, reason="set RIPSIGHT_KERNEL_ROOT to a Linux checkout")
def test_the_kernels_map_and_references_bind_through_its_includes() -> None:
    with Workspace(str(KERNEL), index=True) as ws:
        assert ws.wait_index(600)
        wait_symbols(ws, timeout=900)
        listed = [f.path for f in ws.repo_map(max_chars=8000).files]
        shims = [p for p in listed if p.startswith(SHIMS)]
        # By name, 14 of 36 were (issue 34).
        assert len(listed) > 30 and len(shims) <= 2, (shims, listed)
        definitions = ws.references("u32", limit=1).definitions
        kernel = next(d for d in definitions if d.path == "include/asm-generic/int-ll64.h")
        tools = next(d for d in definitions if d.path == "tools/include/linux/types.h")
        mine = ws.references("u32", definition=f"{kernel.path}:{kernel.line}", limit=1)
        theirs = ws.references("u32", definition=f"{tools.path}:{tools.line}", limit=1)
        total = mine.resolved + mine.by_name + mine.bound_elsewhere
        # The kernel's own typedef takes most uses, the userspace copy only tools/' own.
        assert mine.resolved > total / 2, (mine.resolved, total)
        assert theirs.resolved < mine.resolved / 10, (theirs.resolved, mine.resolved)
        assert theirs.bound_elsewhere >= mine.resolved
