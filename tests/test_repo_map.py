"""The repository map through the Python API and the tool: what the model reads, the ranking
(a hub first, the focus moving it, a subtree), the budget kept by the text whatever the tree
and the budget (hypothesis), bad arguments refused with a clear error, and a map that stops
at its file cap saying it is partial.

The ranking's own tests (a hand-built graph whose order is known, ties by path, the listing's
budget kept exactly) are the unit tests of rust_core/src/outline/rank/ and map.rs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ripsight import ToolCall, Workspace, default_registry
from ripsight.tools.repo_map import format_repo_map


def write(root: Path, relative: str, content: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    return path


def call(reg: Any, tool: str, **arguments: Any) -> Any:
    return reg.execute(ToolCall("c", tool, orjson.dumps(arguments).decode()))


def small_tree(root: Path) -> None:
    """A hub module used by three others, one of which (models) the service uses too."""
    write(
        root,
        "core/db.py",
        "def connect(url):\n    return url\n\n\ndef query(conn, sql):\n    return sql\n\n\n"
        "class Row:\n    pass\n",
    )
    write(
        root,
        "app/models.py",
        "from core.db import connect, query, Row\n\n\nclass User:\n"
        "    def load(self):\n        return query(connect('x'), 'select')\n\n\n"
        "def make_row():\n    return Row()\n",
    )
    write(
        root,
        "app/service.py",
        "from core.db import connect\nfrom app.models import User\n\n\n"
        "def serve():\n    connect('y')\n    return User()\n",
    )
    write(
        root,
        "tools/report.py",
        "from core.db import query\n\n\ndef report():\n    return query(None, 'x')\n",
    )
    write(root, "README.md", "# Title\n\nSome text.\n")


def test_the_map_a_model_reads(tmp_path: Path) -> None:
    small_tree(tmp_path)
    reg = default_registry(tmp_path)
    found = call(reg, "repo_map")
    assert found.meta["code"] == "ok", found.content
    assert found.content == (
        "Map: 4 files ranked by how much the other files use their definitions "
        "(references found by name):\n"
        "core/db.py\n"
        "  L1 function connect\n"
        "  L5 function query\n"
        "  L9 class Row\n"
        "app/models.py\n"
        "  L4 class User\n"
        "app/service.py\n"
        "  L5 function serve\n"
        "tools/report.py\n"
        "  L4 function report"
    )
    result = found.meta["engine_result"]
    assert result.files_ranked == 4 and result.files_listed == 4 and not result.partial
    # connect and query: imported and called in two files each; Row in one.
    assert [d.references for d in result.files[0].definitions] == [4, 4, 2]


def test_the_focus_and_the_path_move_the_map(tmp_path: Path) -> None:
    small_tree(tmp_path)
    ws = Workspace(tmp_path)
    plain = [f.path for f in ws.repo_map().files]
    focused = [f.path for f in ws.repo_map(paths=["tools"]).files]
    assert plain.index("tools/report.py") > focused.index("tools/report.py"), (plain, focused)
    by_name = ws.repo_map(names=["make_row", "nowhere_defined"])
    assert by_name.files[0].path == "app/models.py"
    assert list(by_name.names_undefined) == ["nowhere_defined"]
    sub = ws.repo_map(path="app")
    assert [f.path for f in sub.files] == ["app/models.py", "app/service.py"]
    reg = default_registry(tmp_path)
    text = call(reg, "repo_map", paths=["lib/missing.py"], names=["nowhere_defined"]).content
    assert "No ranked file is or lies under the focus lib/missing.py" in text
    assert "No ranked file defines the focus name nowhere_defined." in text
    assert call(reg, "repo_map", path="app").content.startswith("Map of app: 2 files")


def test_reads_of_a_local_spelled_as_a_function_do_not_rank_its_file(tmp_path: Path) -> None:
    # The kernel's shape: a test file's static `addr()` and the `addr` every other file reads
    # and writes as a local. Only calls, types and imports tie a file to a definition's file.
    write(tmp_path, "lib/test_print.c", "static int addr(void)\n{\n\treturn 1;\n}\n")
    write(tmp_path, "include/alloc.h", "void *grab(int n)\n{\n\treturn 0;\n}\n")
    for i in range(12):
        write(
            tmp_path,
            f"drivers/d{i}.c",
            f"int probe{i}(int addr)\n{{\n\tint x = addr + 1;\n\taddr = x;\n"
            f"\treturn addr + {'grab(x) != 0' if i < 2 else '0'};\n}}\n",
        )
    ranked = [f.path for f in Workspace(tmp_path).repo_map().files]
    assert ranked[0] == "include/alloc.h", ranked
    assert ranked.index("lib/test_print.c") > ranked.index("include/alloc.h")


def test_bad_arguments_get_clear_errors(tmp_path: Path) -> None:
    small_tree(tmp_path)
    reg = default_registry(tmp_path)
    missing = call(reg, "repo_map", path="nowhere")
    assert missing.is_error and "nowhere" in missing.content
    small = call(reg, "repo_map", max_chars=10)
    assert small.is_error and "max_chars" in small.content
    unknown = call(reg, "repo_map", focus="x")
    assert unknown.content.startswith('Note: ignored unknown argument "focus"')
    too_many = call(reg, "repo_map", names=[f"n{i}" for i in range(101)])
    assert too_many.is_error and "names" in too_many.content
    ws = Workspace(tmp_path)
    with pytest.raises(Exception, match="max_chars must be at least 500"):
        ws.repo_map(max_chars=499)
    with pytest.raises(Exception, match="names holds 101 entries"):
        ws.repo_map(names=[f"n{i}" for i in range(101)])


def test_a_map_over_its_file_cap_says_it_is_partial(tmp_path: Path) -> None:
    small_tree(tmp_path)
    result = Workspace(tmp_path).repo_map(max_files=2)
    assert result.partial and result.files_over_cap == 2 and result.files_ranked == 2
    text = format_repo_map(result)
    assert "Partial: 4 source files, over the 2 a map parses without a symbol index" in text


def many_files(root: Path, count: int) -> None:
    """`count` modules, each using the functions of the two before it."""
    for i in range(count):
        uses = "".join(f"    f{j}_{'x' * (j % 7)}()\n" for j in range(max(0, i - 2), i))
        write(
            root,
            f"pkg{i % 3}/mod_{i:03d}_{'long' * (i % 4)}.py",
            f"def f{i}_{'x' * (i % 7)}():\n{uses or '    pass'}\n\n\nclass C{i}:\n    pass\n",
        )


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(budget=st.integers(min_value=500, max_value=3_000), focus=st.integers(0, 29))
def test_the_text_never_exceeds_the_budget(tmp_path: Path, budget: int, focus: int) -> None:
    if not (tmp_path / "pkg0").exists():
        many_files(tmp_path, 30)
    ws = Workspace(tmp_path)
    focus_path = next((tmp_path / f"pkg{focus % 3}").iterdir()).relative_to(tmp_path)
    result = ws.repo_map(max_chars=budget, paths=[str(focus_path)])
    assert result.chars <= budget
    text = format_repo_map(result)
    assert len(text) <= budget
    shown = [line for line in text.splitlines()[1:] if line.startswith(("pkg", "  L"))]
    if result.files_left:
        assert "lower-ranked file" in text
    # Every line shown is one of the map's, in the map's order.
    listing = []
    for found in result.files:
        listing.append(found.path)
        listing.extend(f"  {d}" for d in found.definitions)
    assert shown == listing[: len(shown)]


def test_the_structured_copy_keeps_the_result_budget(tmp_path: Path) -> None:
    from ripsight import to_dict
    from ripsight.mcp_server import bound_structured
    from ripsight.tools.repo_map import repo_map_tool

    many_files(tmp_path, 30)
    result = Workspace(tmp_path).repo_map(max_chars=3_000)
    data = to_dict(result)
    page = bound_structured(data, 1_500, repo_map_tool().paging)
    assert len(orjson.dumps(page)) <= 1_500 < len(orjson.dumps(data))
    kept = len(page["files"])
    assert 0 < kept < len(data["files"])
    assert page["files_left"] == data["files_left"] + len(data["files"]) - kept
    assert page["files"] == data["files"][:kept]
