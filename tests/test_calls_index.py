"""`find_calls` from the symbol index's per-definition call lists (issue 36): the answer equals
the cold engine's (which parses every file defining the name) for nested definitions, classes,
kinds, paths and pages, and an edit between two calls shows in the second, which then parses
the edited file cold (the overlay) while the others are still read from the lists.

Whether the index answered is told by `files_searched` (see test_symbol_index.py): 0 when the
call lists answered for every file, the number of overlay files searched otherwise."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ripsight import Workspace
from test_calls import C_SOURCE, JS_SOURCE, PY_SOURCE
from test_symbol_index import normal, wait_symbols

JOBS = PY_SOURCE
NATIVE = C_SOURCE + "\n#define TWICE(x) count(x) + count(x)\n"
WEB = (
    JS_SOURCE
    + "\nclass Report {\n  constructor(total) { this.total = square(total); }\n"
    + "  run() { return helper(this.total); }\n}\n"
)

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("run", {"limit": None}),
    ("run", {"limit": 3, "offset": 2}),
    ("run", {"kind": "method", "limit": None}),
    ("run", {"path": "native", "limit": None}),
    ("run", {"glob": "*.js", "limit": None}),
    ("Job", {"limit": None}),
    ("Report", {"limit": None}),
    ("inner", {"limit": None}),
    ("helper", {"limit": None}),
    ("count", {"limit": None}),
    ("no_such_name", {}),
]


def make_tree(root: Path) -> Path:
    for relative, text in [("jobs.py", JOBS), ("native/run.c", NATIVE), ("web/run.js", WEB)]:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "notes.txt").write_text("run helper\n")
    # The symbol file answers only for files whose change time is over a second old.
    time.sleep(1.2)
    return root


def assert_as_cold(warm: Workspace, cold: Workspace, indexed: bool) -> None:
    for name, kwargs in CALLS:
        got = warm.calls(name, **kwargs)
        assert normal(got) == normal(cold.calls(name, **kwargs)), (name, kwargs)
        if indexed:
            assert got.files_searched == 0, (name, kwargs, "not answered by the index")


def test_calls_from_the_call_lists_equal_the_cold_engines(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    with Workspace(root, index=True, index_dir=tmp_path / "store") as ws, Workspace(root) as cold:
        assert wait_symbols(ws)["symbols"] == "ready"
        assert_as_cold(ws, cold, indexed=True)
        # Not vacuous: the method run holds its closure's calls, Job holds its methods'.
        method = ws.calls("run", kind="method", path="jobs.py", limit=None)
        assert [(c.name, c.count) for c in method.calls] == [
            ("helper", 2),
            ("log", 1),
            ("len", 1),
            ("inner", 1),
        ]
        job = ws.calls("Job", limit=None)
        assert job.calls_total == 6 and {c.name for c in job.calls} >= {"print", "len"}


def test_an_edit_between_two_calls_shows_in_the_second(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    with Workspace(root, index=True, index_dir=tmp_path / "store") as ws, Workspace(root) as cold:
        assert wait_symbols(ws)["symbols"] == "ready"
        first = ws.calls("run", path="native", limit=None)
        assert first.files_searched == 0
        assert [c.name for c in first.calls] == ["malloc", "count", "free"]
        (root / "native" / "run.c").write_text(
            NATIVE.replace("\tfree(p);\n", "\trelease(p);\n\tfree(p);\n")
        )
        second = ws.calls("run", path="native", limit=None)
        assert [c.name for c in second.calls] == ["malloc", "count", "release", "free"]
        assert second.files_searched == 1  # the edited file, parsed cold
        assert normal(second) == normal(cold.calls("run", path="native", limit=None))
        # A definition that moved, one that is new, and a deleted file, all at the next call.
        (root / "jobs.py").write_text("\n\n" + JOBS + "\ndef brand_new():\n    return run()\n")
        (root / "web" / "run.js").unlink()
        (root / "web" / "more.js").write_text("function run() {\n  return twice(1);\n}\n")
        assert_as_cold(ws, cold, indexed=False)
        assert [c.name for c in ws.calls("brand_new").calls] == ["run"]
        assert not any(c.path == "web/run.js" for c in ws.calls("run", limit=None).calls)
