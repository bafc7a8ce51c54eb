"""The symbol index (issue 24): `references` and `definitions` answered from one symbol file per
tree equal the cold engine's (which parses every candidate), before and after edits, renames,
deletions and new files; the file is shared by processes (a second one loads it, never
rebuilds), and a damaged one, or one a killed builder left, is never trusted.

Whether a call was answered from the symbol file is told by `files_searched`: the index answers
with the number of overlay files it searched (changed or new since the file was written), 0 when
none, where the cold engine's grep searches every file of the tree.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from _children import Lines
from ripsight import Workspace
from ripsight.bench.navigation import ACCOUNTING
from ripsight.workspace import to_dict

NAMES = ["helper", "compute", "Widget", "render", "parse_args", "value"]


def python_file(i: int, rng: random.Random) -> str:
    calls = "\n".join(f"    {rng.choice(NAMES)}(x)" for _ in range(rng.randint(0, 4)))
    return (
        f"import os\n\n\ndef {NAMES[i % len(NAMES)]}(x):\n"
        f"    value = x  # helper in a comment\n{calls}\n    return value\n\n\n"
        f"class Widget{i}:\n    def render(self):\n        return compute(self)\n"
    )


def c_file(i: int, rng: random.Random) -> str:
    calls = "\n".join(f"\t{rng.choice(NAMES)}(v);" for _ in range(rng.randint(0, 4)))
    return (
        f'#include "w.h"\n/* compute is mentioned here */\nstatic int value;\n'
        f"int {NAMES[(i + 1) % len(NAMES)]}_{i}(int v)\n{{\n{calls}\n\treturn helper(v);\n}}\n"
        f"int {NAMES[i % len(NAMES)]}(int v)\n{{\n\tvalue = v;\n\treturn compute(v);\n}}\n"
    )


def js_file(i: int, rng: random.Random) -> str:
    calls = "\n".join(f"  {rng.choice(NAMES)}(a);" for _ in range(rng.randint(0, 3)))
    return (
        f"import {{ helper }} from './h{i}.js';\n"
        f"export function {NAMES[(i + 2) % len(NAMES)]}(a) {{\n{calls}\n  return helper(a);\n}}\n"
        f"class Widget {{ render() {{ return compute(1); }} }}\n"
    )


def go_file(i: int, rng: random.Random) -> str:
    calls = "\n".join(f"\t{rng.choice(NAMES)}(v)" for _ in range(rng.randint(0, 3)))
    return (
        f"package p{i}\n\nfunc {NAMES[(i + 3) % len(NAMES)]}(v int) int {{\n{calls}\n"
        f"\treturn helper(v)\n}}\n\ntype Widget struct{{ value int }}\n"
    )


def rust_file(i: int, rng: random.Random) -> str:
    calls = "\n".join(f"    {rng.choice(NAMES)}(v);" for _ in range(rng.randint(0, 3)))
    return (
        f"use crate::helper;\n\npub fn {NAMES[(i + 4) % len(NAMES)]}(v: u32) -> u32 {{\n{calls}\n"
        f"    helper(v)\n}}\n\nstruct Widget {{ value: u32 }}\n"
    )


MAKERS = [("py", python_file), ("c", c_file), ("js", js_file), ("go", go_file), ("rs", rust_file)]


def make_tree(root: Path, files: int = 60, seed: int = 1) -> Path:
    rng = random.Random(seed)
    for i in range(files):
        ext, make = MAKERS[i % len(MAKERS)]
        d = root / f"pkg{i % 4}" / ("sub" if i % 3 else "")
        d.mkdir(parents=True, exist_ok=True)
        (d / f"m{i}.{ext}").write_text(make(i, rng))
    (root / "README.md").write_text("# helper\n\nUse `compute`.\n")
    (root / "notes.txt").write_text("helper compute Widget\n")
    # The symbol file answers only for files whose change time is over a second old when it is
    # built (a write in the same tick would show in no identity).
    time.sleep(1.2)
    return root


def normal(result: Any) -> Any:
    out = to_dict(result)
    for key in ACCOUNTING:
        out.pop(key, None)
    return json.loads(json.dumps(out, default=str))


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("references", {"name": "helper", "limit": None}),
    ("references", {"name": "compute", "limit": 5, "offset": 3}),
    ("references", {"name": "helper", "group_by": "caller", "role": "call", "limit": None}),
    ("references", {"name": "value", "role": ["write", "read"], "limit": None}),
    ("references", {"name": "render", "kind": "function", "limit": None}),
    ("references", {"name": "helper", "path": "pkg1", "glob": "*.py", "limit": None}),
    ("references", {"name": "Widget", "glob": "!**/sub/**", "limit": None}),
    ("references", {"name": "no_such_name_anywhere"}),
    ("definitions", {"name": "helper", "limit": None}),
    ("definitions", {"name": "Widget", "match": "prefix", "limit": None}),
    ("definitions", {"name": "^(compute|render)$", "match": "regex", "limit": None}),
    ("definitions", {"name": "parse_args", "kind": ["function"], "path": "pkg2", "limit": 2}),
    ("calls", {"name": "helper", "limit": None}),
    ("calls", {"name": "compute", "limit": 7, "offset": 2}),
    ("calls", {"name": "render", "kind": "method", "limit": None}),
    ("calls", {"name": "Widget", "path": "pkg1", "glob": "*.js", "limit": None}),
    ("calls", {"name": "no_such_name_anywhere"}),
]


def assert_as_cold(warm: Workspace, root: Path, indexed: bool) -> None:
    with Workspace(root) as cold:
        for call, kwargs in CALLS:
            got = getattr(warm, call)(**kwargs)
            expected = getattr(cold, call)(**kwargs)
            assert normal(got) == normal(expected), (call, kwargs)
            if indexed:
                assert got.files_searched == 0, (call, kwargs, "not answered by the index")


def wait_symbols(ws: Workspace, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        status = ws.index_status()
        if status.get("symbols") in ("ready", "failed"):
            return status
        assert time.monotonic() < deadline, f"the symbol index was not ready in {timeout} s"
        time.sleep(0.05)


def test_answers_from_the_symbol_index_equal_the_cold_engines(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    with Workspace(root, index=True, index_dir=tmp_path / "store") as ws:
        status = wait_symbols(ws)
        assert status["symbols"] == "ready" and status["symbols_loaded"] is False
        assert status["symbol_files_parsed"] == status["symbol_files_total"] > 60
        assert status["symbol_bytes"] > 0
        assert_as_cold(ws, root, indexed=True)
        helper = ws.references("helper", limit=None)
        # Not a hard-coded answer: the tree holds calls of helper in every language.
        assert helper.totals.calls > 40 and helper.definitions_total >= 10
        assert {r.language for r in helper.references} >= {"python", "c", "javascript", "go"}


def test_edits_renames_deletions_and_new_files_show_at_the_next_call(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    with Workspace(root, index=True, index_dir=tmp_path / "store") as ws:
        wait_symbols(ws)
        assert_as_cold(ws, root, indexed=True)
        edited = root / "pkg1" / "sub" / "m1.c"
        edited.write_text(
            edited.read_text() + "int later(void)\n{\n\treturn helper(helper(2));\n}\n"
        )
        before = ws.references("later").definitions_total
        assert before == 1
        os.rename(root / "pkg2" / "sub" / "m2.js", root / "pkg2" / "renamed.js")
        (root / "pkg0" / "m0.py").unlink()
        (root / "pkg3" / "fresh.py").write_text("def brand_new():\n    return helper(compute(1))\n")
        assert_as_cold(ws, root, indexed=False)
        assert ws.definitions("brand_new").total == 1
        assert ws.references("helper", path="pkg3", glob="fresh.py").totals.calls == 1
        assert not any(
            r.path == "pkg0/m0.py" for r in ws.references("helper", limit=None).references
        )


def map_files(result: Any) -> list[Any]:
    return [(f["path"], f["rank"], f["definitions"]) for f in to_dict(result)["files"]]


def test_an_edit_between_two_warm_maps_changes_the_second(tmp_path: Path) -> None:
    # The tree's README.md is held in the symbol file and left out of both maps (Markdown's
    # headings are no code to rank); a Markdown file written later (the overlay) too.
    root = make_tree(tmp_path / "tree")
    with Workspace(root, index=True, index_dir=tmp_path / "store") as ws:
        wait_symbols(ws)
        calls: list[dict[str, Any]] = [
            {"max_chars": 100_000},
            {"max_chars": 100_000, "paths": ["pkg1/sub/m1.c"]},
            {"max_chars": 100_000, "names": ["compute"]},
            {"path": "pkg2", "max_chars": 100_000},
        ]
        with Workspace(root) as cold:
            # The first call draws the graph, the second the one kept: both the cold map.
            for kwargs in calls + calls:
                expected = map_files(cold.repo_map(**kwargs))
                assert map_files(ws.repo_map(**kwargs)) == expected, kwargs
            first = map_files(ws.repo_map(max_chars=100_000))
            (root / "pkg3" / "hub.py").write_text("def brand_new_hub(x):\n    return x\n")
            (root / "pkg3" / "NOTES.md").write_text("# brand_new_hub\n\ncompute\n")
            for i in (5, 10, 15):
                edited = next(root.rglob(f"m{i}.py"))
                edited.write_text(edited.read_text() + "\n\nbrand_new_hub(1)\n")
            second = map_files(ws.repo_map(max_chars=100_000))
            assert second != first
            assert second == map_files(cold.repo_map(max_chars=100_000))
            assert "pkg3/hub.py" in [path for path, _, _ in second]
            assert "pkg3/hub.py" not in [path for path, _, _ in first]
            assert not any(path.endswith(".md") for path, _, _ in first + second)


CHILD = """
import json, sys
from ripsight import Workspace
ws = Workspace(sys.argv[1], index=True, index_dir=sys.argv[2])
import time
deadline = time.monotonic() + 120
while ws.index_status().get("symbols") not in ("ready", "failed"):
    assert time.monotonic() < deadline
    time.sleep(0.02)
print(json.dumps(ws.index_status()), flush=True)
r = ws.references("helper", limit=None)
print(json.dumps({"calls": r.totals.calls, "searched": r.files_searched}), flush=True)
ws.close()
"""


def run_child(root: Path, store: Path) -> list[Any]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), str(store)],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def symbol_files(store: Path) -> list[Path]:
    return sorted(store.glob("*.rssym"))


def test_a_second_process_loads_the_symbol_file_instead_of_rebuilding(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    store = tmp_path / "store"
    first, answer = run_child(root, store)
    assert first["symbols"] == "ready" and first["symbols_loaded"] is False
    [written] = symbol_files(store)
    identity = written.stat().st_ino
    second, again = run_child(root, store)
    assert second["symbols"] == "ready" and second["symbols_loaded"] is True
    assert again == answer and answer["searched"] == 0
    assert symbol_files(store)[0].stat().st_ino == identity


@pytest.mark.parametrize("how", ["flip", "truncate", "garbage"])
def test_a_damaged_symbol_file_is_rebuilt_never_trusted(tmp_path: Path, how: str) -> None:
    root = make_tree(tmp_path / "tree")
    store = tmp_path / "store"
    run_child(root, store)
    [path] = symbol_files(store)
    data = bytearray(path.read_bytes())
    if how == "flip":
        rng = random.Random(3)
        for _ in range(8):
            data[rng.randrange(64, len(data) - 16)] ^= 0x10
    elif how == "truncate":
        data = data[: len(data) // 2]
    else:
        data = bytearray(os.urandom(len(data)))
    path.write_bytes(bytes(data))
    status, answer = run_child(root, store)
    assert status["symbols"] == "ready" and status["symbols_loaded"] is False
    with Workspace(root) as cold:
        assert answer["calls"] == cold.references("helper", limit=None).totals.calls


def test_a_builder_killed_midway_leaves_no_symbol_file_to_trust(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree", files=400)
    store = tmp_path / "store"
    script = (
        "import sys, time\nfrom ripsight import Workspace\n"
        "ws = Workspace(sys.argv[1], index=True, index_dir=sys.argv[2])\n"
        "deadline = time.monotonic() + 120\n"
        "while ws.index_status().get('symbol_files_parsed', 0) < 20:\n"
        "    assert time.monotonic() < deadline\n    time.sleep(0.01)\n"
        "print('parsing', flush=True)\ntime.sleep(120)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(root), str(store)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        line = Lines(child.stdout).next(120)
        assert line is not None and line.strip() == "parsing"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)
    assert symbol_files(store) == []
    status, answer = run_child(root, store)
    assert status["symbols"] == "ready" and status["symbols_loaded"] is False
    assert len(symbol_files(store)) == 1
    assert not [p for p in store.iterdir() if "-symbols.tmp." in p.name]
    with Workspace(root) as cold:
        assert answer["calls"] == cold.references("helper", limit=None).totals.calls


HOSTILE = {
    "deep.py": b"x = " + b"[" * 3000 + b"]" * 3000 + b"\nhelper(1)\n",
    "parens.js": b"(" * 50_000 + b"\nhelper(1);\n",
    "minified.js": b"function helper(a){return a}" + b";helper(1)" * 20_000 + b"\n",
    "invalid.c": b"int f(void) { return helper(1); }\n\xff\xfe\x80 helper(2);\n",
}


def test_hostile_files_cost_their_own_symbols_only(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree", files=20)
    for name, text in HOSTILE.items():
        (root / name).write_bytes(text)
    time.sleep(1.2)
    with Workspace(root, index=True, index_dir=tmp_path / "store") as ws:
        status = wait_symbols(ws)
        assert status["symbols"] == "ready"
        with Workspace(root) as cold:
            for call, kwargs in CALLS[:4]:
                got = getattr(ws, call)(**kwargs)
                assert normal(got) == normal(getattr(cold, call)(**kwargs)), (call, kwargs)
        # The good files are answered from the symbol file whatever the hostile ones gave.
        assert ws.references("helper", path="pkg1", limit=None).files_searched == 0


KERNEL_NAMES = ["find_vma", "free_pages", "kmalloc", "lru_add_drain", "page_mapping", "kstrdup"]


@pytest.mark.slow  # unpacks mm/ of the Linux tree and parses it twice: about a minute
def test_a_kernel_part_is_answered_as_cold(tmp_path: Path) -> None:
    import glob
    import tarfile

    tarballs = sorted(glob.glob("/usr/src/linux-source-6.1.tar.*"))
    if not tarballs:
        pytest.skip("linux-source-6.1 is not installed (apt-get install linux-source-6.1)")
    with tarfile.open(tarballs[0]) as archive:
        members = [m for m in archive.getmembers() if m.name.startswith("linux-source-6.1/mm/")]
        archive.extractall(tmp_path, members=members, filter="data")
    root = tmp_path / "linux-source-6.1"
    time.sleep(1.2)
    with Workspace(root, index=True, index_dir=tmp_path / "store") as ws, Workspace(root) as cold:
        assert wait_symbols(ws, timeout=600)["symbols"] == "ready"
        for name in KERNEL_NAMES:
            for kwargs in (
                {"limit": None},
                {"role": "call", "group_by": "caller", "limit": 20},
            ):
                got = ws.references(name, **kwargs)
                assert got.files_searched == 0, name
                assert normal(got) == normal(cold.references(name, **kwargs)), (name, kwargs)
            got_definitions = ws.definitions(name, limit=None)
            assert normal(got_definitions) == normal(cold.definitions(name, limit=None)), name
            got_calls = ws.calls(name, limit=None)
            assert got_calls.files_searched == 0, name
            assert normal(got_calls) == normal(cold.calls(name, limit=None)), name
        assert ws.references("kmalloc", limit=None).totals.calls > 50


# Past REFRESH_SYMBOLS_AFTER_CHANGED_FILES (256) changed files, and under the share of the tree
# past which a merge parses everything again (30%).
TREE_FILES = 1100
EDITED = 280


def edit_many(root: Path) -> None:
    """Edits EDITED files of a `make_tree` tree: a Python or C file gains a function `later_<i>`
    that calls helper, another one calls `later_<i>`."""
    for i in range(EDITED):
        ext, _ = MAKERS[i % len(MAKERS)]
        path = root / f"pkg{i % 4}" / ("sub" if i % 3 else "") / f"m{i}.{ext}"
        text = path.read_text()
        if ext == "py":
            path.write_text(text + f"\n\ndef later_{i}():\n    return helper(1)\n")
        elif ext == "c":
            path.write_text(text + f"\nint later_{i}(void)\n{{\n\treturn helper(1);\n}}\n")
        else:
            path.write_text(text.replace("helper(", f"later_{i}(helper(", 1))


def wait_status(ws: Workspace, what: str, predicate: Any, timeout: float = 180) -> dict[str, Any]:
    """Calls references (calls start the symbol index's jobs) until `predicate(status)`."""
    deadline = time.monotonic() + timeout
    while True:
        ws.references("helper", limit=1)
        status = ws.index_status()
        if predicate(status):
            return status
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}: {status}"
        time.sleep(0.1)


# 1,100 files: the edited ones are a quarter, merged into the old file's records; 400: most of
# the tree, parsed again whole.
@pytest.mark.parametrize("files", [TREE_FILES, 400])
def test_past_the_bound_the_symbol_file_is_merged_in_the_background(
    tmp_path: Path, files: int
) -> None:
    root = make_tree(tmp_path / "tree", files=files)
    store = tmp_path / "store"
    with Workspace(root, index=True, index_dir=store) as ws:
        wait_symbols(ws, timeout=300)
        [path] = symbol_files(store)
        first = path.stat().st_ino
        edit_many(root)
        # Meanwhile the old file and the overlay answer, as the cold engine.
        assert_as_cold(ws, root, indexed=False)
        status = wait_status(ws, "a merge", lambda s: s["symbol_merges"] >= 1)
        assert status["symbols"] == "ready" and status["symbol_adoptions"] == 0
        [path] = symbol_files(store)
        assert path.stat().st_ino != first
        assert not [p for p in store.iterdir() if "-symbols.tmp." in p.name]
        # The new file answers for the edited files: nothing is left to parse cold.
        assert_as_cold(ws, root, indexed=True)
        assert ws.definitions("later_6").total == 1  # m6.c
        later = ws.references("later_5", limit=None)  # m5.py
        assert later.files_searched == 0 and later.definitions_total == 1
        assert ws.references("later_7", role="call").totals.calls == 1  # m7.js
        # And it stays fresh: an edit after the merge shows at the next call.
        (root / "pkg3" / "fresh.py").write_text("def after_merge():\n    return helper(2)\n")
        assert ws.definitions("after_merge").total == 1
        assert_as_cold(ws, root, indexed=False)


ADOPTER = """
import json, sys, time
from ripsight import Workspace
ws = Workspace(sys.argv[1], index=True, index_dir=sys.argv[2])
deadline = time.monotonic() + 300
while ws.index_status().get("symbols") != "ready":
    assert time.monotonic() < deadline
    time.sleep(0.02)
print(json.dumps(ws.index_status()), flush=True)
while ws.index_status()["symbol_merges"] == 0:
    assert time.monotonic() < deadline
    ws.references("helper", limit=1)
    time.sleep(0.1)
print(json.dumps(ws.index_status()), flush=True)
if len(sys.argv) > 3:
    time.sleep(300)
ws.close()
"""


def test_a_running_process_adopts_the_symbol_file_another_one_merged(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree", files=TREE_FILES)
    store = tmp_path / "store"
    with Workspace(root, index=True, index_dir=store) as ws:
        wait_symbols(ws, timeout=300)
        [path] = symbol_files(store)
        first = path.stat().st_ino
        edit_many(root)
        # Another process on the tree loads the file, finds the edits and merges them.
        done = subprocess.run(
            [sys.executable, "-c", ADOPTER, str(root), str(store)],
            capture_output=True,
            text=True,
            timeout=400,
            check=True,
        )
        loaded, merged = (json.loads(line) for line in done.stdout.splitlines())
        assert loaded["symbols_loaded"] is True and merged["symbol_merges"] == 1
        [path] = symbol_files(store)
        written = path.stat().st_ino
        assert written != first
        # This process takes it over at its next calls instead of merging its own.
        status = wait_status(ws, "an adoption", lambda s: s["symbol_adoptions"] >= 1)
        assert status["symbol_merges"] == 0
        assert symbol_files(store)[0].stat().st_ino == written
        assert_as_cold(ws, root, indexed=True)


def test_a_process_killed_while_merging_leaves_the_old_file_valid(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree", files=TREE_FILES)
    store = tmp_path / "store"
    with Workspace(root, index=True, index_dir=store) as ws:
        wait_symbols(ws, timeout=300)
    [path] = symbol_files(store)
    first = path.stat().st_ino
    edit_many(root)
    # The merging process stalls once its new file is written, before it is put in place.
    child = subprocess.Popen(
        [sys.executable, "-c", ADOPTER, str(root), str(store), "stay"],
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ, RIPSIGHT_INDEX_STALL_WRITE_MS="120000"),
    )
    try:
        assert child.stdout is not None
        line = Lines(child.stdout).next(300)
        assert line is not None and json.loads(line)["symbols_loaded"] is True
        deadline = time.monotonic() + 300
        while not [p for p in store.iterdir() if "-symbols.tmp." in p.name]:
            assert time.monotonic() < deadline, "the merge wrote no temporary file"
            assert child.poll() is None
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)
    [path] = symbol_files(store)
    assert path.stat().st_ino == first
    status, answer = run_child(root, store)
    assert status["symbols"] == "ready" and status["symbols_loaded"] is True
    with Workspace(root) as cold:
        assert answer["calls"] == cold.references("helper", limit=None).totals.calls


def test_files_the_symbol_file_cannot_parse_start_no_merges(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    # More files than the bound that no parse takes (a line over the outline's 10,000 bytes):
    # they stay in the overlay after any merge, so they are no reason for one.
    for i in range(300):
        (root / "long").mkdir(exist_ok=True)
        (root / "long" / f"l{i}.py").write_text(f"x = '{'a' * 10_001}'\ndef helper():\n    pass\n")
    time.sleep(1.2)
    with Workspace(root, index=True, index_dir=tmp_path / "store") as ws:
        wait_symbols(ws)
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            ws.references("helper", limit=1)
            time.sleep(0.1)
        status = ws.index_status()
        assert status["symbol_merges"] == 0 and status["symbols"] == "ready", status
        assert ws.references("helper", path="long", limit=None).unparsed_total == 300
        assert_as_cold(ws, root, indexed=False)
