"""What a definition calls (`Workspace.calls`, the `find_calls` tool): each definition of the
name with the names called in its body, nested definitions included, each callee once with its
count and first call, by name; `kind`, `path` and paging; bad input refused; an edit seen.

The engine's unit tests (rust_core/src/outline/calls.rs) check the counting on a hand-made
parse; these run the real parser in its worker on small trees of several languages."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from ripsight import InvalidArgumentError, ToolCall, Workspace, default_registry
from ripsight.limits import LIMITS

PY_SOURCE = """\
import os


def helper(x):
    return os.path.join(x, "a")


class Job:
    def run(self, items):
        # helper(comment) is not a call; "helper(string)" neither
        for item in items:
            helper(item)
            self.log(helper(item))

        def inner():
            return len(items)

        return inner()

    def log(self, text):
        print(text)


def run():
    Job().run([])
"""

C_SOURCE = """\
#include <stdlib.h>

static int count(int *p) { return *p; }

int run(int n)
{
\tint *p = malloc(sizeof(int));
\tint c = count(p) + count(p);
\tfree(p);
\treturn c;
}
"""

JS_SOURCE = """\
function run(list) {
  const total = list.map((x) => square(x)).reduce(add, 0);
  console.log(total);
  return new Report(total);
}

function square(x) {
  return x * x;
}
"""


def write(root: Path, relative: str, content: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    return path


def call(reg: Any, tool: str, **arguments: Any) -> Any:
    return reg.execute(ToolCall("c", tool, orjson.dumps(arguments).decode()))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    write(tmp_path, "jobs.py", PY_SOURCE)
    write(tmp_path, "native/run.c", C_SOURCE)
    write(tmp_path, "web/run.js", JS_SOURCE)
    write(tmp_path, "notes.txt", "run the jobs\n")
    return tmp_path


def callees(result: Any, path: str, line: int) -> list[tuple[str, int, int, int | None]]:
    return [
        (c.name, c.count, c.first_line, c.defined_line)
        for c in result.calls
        if (c.path, c.caller_line) == (path, line)
    ]


def test_each_definition_lists_what_its_body_calls(tree: Path) -> None:
    with Workspace(tree) as ws:
        result = ws.calls("run", limit=None)
    listed = [(d.definition.path, d.definition.line, d.definition.kind) for d in result.definitions]
    assert listed == [
        ("jobs.py", 9, "method"),
        ("jobs.py", 24, "function"),
        ("native/run.c", 5, "function"),
        ("web/run.js", 1, "function"),
    ]
    # Calls in the nested `inner` count for `run`; the comment and the string do not.
    assert callees(result, "jobs.py", 9) == [
        ("helper", 2, 12, 4),
        ("log", 1, 13, 20),
        ("len", 1, 16, None),
        ("inner", 1, 18, 15),
    ]
    assert callees(result, "jobs.py", 24) == [("Job", 1, 25, 8), ("run", 1, 25, 9)]
    assert callees(result, "native/run.c", 5) == [
        ("malloc", 1, 7, None),
        ("count", 2, 8, 3),
        ("free", 1, 9, None),
    ]
    assert [c[0] for c in callees(result, "web/run.js", 1)] == [
        "map",
        "square",
        "reduce",
        "log",
        "Report",
    ]
    first = result.calls[0]
    assert (first.first_column, first.text) == (13, "            helper(item)")
    method = result.definitions[0]
    assert (method.calls, method.callees, method.definition.container) == (5, 4, "Job")
    assert result.total == len(result.calls) == 14
    assert result.calls_total == sum(c.count for c in result.calls) == 16
    assert result.definitions_total == 4
    assert (result.candidate_files, result.files_parsed, result.next_offset) == (3, 3, None)


def test_kind_and_path_narrow_the_definitions_and_pages_cover_the_callees(tree: Path) -> None:
    with Workspace(tree) as ws:
        methods = ws.calls("run", kind="method")
        assert [d.definition.line for d in methods.definitions] == [9]
        native = ws.calls("run", path="native")
        assert [c.name for c in native.calls] == ["malloc", "count", "free"]
        everything = ws.calls("run", limit=None)
        pages = [ws.calls("run", limit=5, offset=offset) for offset in (0, 5, 10)]
    assert [p.next_offset for p in pages] == [5, 10, None]
    assert [p.withheld for p in pages] == [9, 4, 0]
    assert [c for p in pages for c in p.calls] == everything.calls
    assert all(p.total == 14 and p.calls_total == 16 for p in pages)


def test_the_text_a_model_reads(tree: Path) -> None:
    reg = default_registry(tree)
    found = call(reg, "find_calls", name="run", path="native/run.c")
    assert found.meta["code"] == "ok"
    assert found.content == (
        '3 callees (4 calls) in the body of "run" under native/run.c, defined in 1 place; '
        "found by name without type resolution (1 file containing the name, of 1 searched):\n"
        "native/run.c:5 function run — 3 callees, 4 calls:\n"
        "  malloc — 1 call, first at 7:11: int *p = malloc(sizeof(int));\n"
        "  count — 2 calls, first at 8:10 (defined here at line 3): "
        "int c = count(p) + count(p);\n"
        "  free — 1 call, first at 9:2: free(p);"
    )
    paged = call(reg, "find_calls", name="run", kind="method", limit=2)
    assert paged.content.splitlines()[1:4] == [
        "jobs.py:9 method run (in Job) — 4 callees, 5 calls:",
        "  helper — 2 calls, first at 12:13 (defined here at line 4): helper(item)",
        "  log — 1 call, first at 13:18 (defined here at line 20): self.log(helper(item))",
    ]
    assert paged.content.splitlines()[-1] == (
        "2 more callees not shown: call find_calls again with offset=2 for the next page, "
        "or narrow it with kind, path or glob."
    )
    quiet = call(reg, "find_calls", name="square")
    assert quiet.meta["code"] == "no_match"
    assert quiet.content.splitlines() == [
        (
            '"square" is defined in 1 place, and no call is made in its body (1 file '
            "containing the name, of 4 searched):"
        ),
        "  web/run.js:7 function square",
    ]
    absent = call(reg, "find_calls", name="jobs")
    assert absent.meta["code"] == "no_match"
    assert absent.content.startswith('No definition of "jobs" (0 files containing the name')


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"name": ""}, "empty"),
        ({"name": "two words"}, "whitespace"),
        ({"name": "run", "kind": "klass"}, "kind must be one of"),
        ({"name": "run", "path": "missing/"}, "missing"),
    ],
)
def test_bad_input_is_refused_clearly(tree: Path, arguments: dict[str, Any], message: str) -> None:
    name = arguments.pop("name")
    with Workspace(tree) as ws, pytest.raises(Exception, match=message) as raised:
        ws.calls(name, **arguments)
    if message != "missing":
        assert isinstance(raised.value, InvalidArgumentError)
    reg = default_registry(tree)
    answer = call(reg, "find_calls", name=name, **arguments)
    assert answer.is_error


@pytest.mark.parametrize("index", [False, True], ids=["cold", "warm"])
def test_an_edit_shows_in_the_next_answer(tree: Path, index: bool) -> None:
    with Workspace(tree, index=index) as ws:
        if index:
            assert ws.wait_index(timeout=30)
        assert [c.name for c in ws.calls("square").calls] == []
        write(tree, "web/run.js", JS_SOURCE.replace("return x * x;", "return Math.pow(x, 2);"))
        assert [c.name for c in ws.calls("square").calls] == ["pow"]
        write(tree, "web/more.js", "function square(x) {\n  return twice(x);\n}\n")
        assert [(c.path, c.name) for c in ws.calls("square").calls] == [
            ("web/more.js", "twice"),
            ("web/run.js", "pow"),
        ]
        if index:
            assert ws.index_status()["warm_calls"] > 0


def test_hostile_bodies_get_a_bounded_answer(tmp_path: Path) -> None:
    # 100,000 calls in one body, and 20,000 nested calls (lines kept short: one long line
    # would be refused as minified before any parse).
    write(tmp_path, "many.js", "function run() {\n" + "a();\n" * 100_000 + "}\n")
    write(tmp_path, "deep.py", "def run():\n    return " + "f(\n" * 20_000 + ")\n" * 20_000)
    with Workspace(tmp_path) as ws:
        started = time.monotonic()
        result = ws.calls("run", limit=None)
        elapsed = time.monotonic() - started
    assert elapsed < float(LIMITS["outline_deadline_seconds"]) * 2 + 5, elapsed
    many = [c for c in result.calls if c.path == "many.js"]
    assert [(c.name, c.count, c.first_line) for c in many] == [("a", 100_000, 2)]
    deep_listed = any(d.definition.path == "deep.py" for d in result.definitions)
    deep_unparsed = [u.path for u in result.unparsed] == ["deep.py"]
    assert deep_listed != deep_unparsed, (result.definitions, result.unparsed)


def test_a_name_ending_in_a_dollar_sign_is_found(tmp_path: Path) -> None:
    # `\b` after `$` would ask for a word character next: grep's prefilter has no boundary there.
    write(tmp_path, "q.js", "function each$(list) {\n  return list.map(fix$);\n}\neach$([]);\n")
    with Workspace(tmp_path) as ws:
        assert [c.name for c in ws.calls("each$").calls] == ["map"]
        assert [(r.line, r.role) for r in ws.references("each$").references] == [(4, "call")]
        assert [(r.line, r.role) for r in ws.references("fix$").references] == [(2, "read")]
