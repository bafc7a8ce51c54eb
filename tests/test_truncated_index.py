"""An index file truncated in place under a warm workspace does not end the process (issue 37,
item 12).

ripsight's own writers replace index files atomically, but another program, a full disk or a
user's ``truncate`` can shrink a file a process has mapped; a read of the lost pages would raise
SIGBUS and end the process (an MCP server would vanish mid-session). Each call checks the mapped
file's size before it reads the map: a file found short is dropped unread, the call answers
cold, and the index is rebuilt in the background.

The scenario runs in a child process, so that a SIGBUS shows as the child's exit status rather
than ending pytest: a warm workspace on a generated tree of 3,000 files, both indexes ready;
then, for the n-gram file (``.rsidx``) and the symbol file (``-symbols.rssym``) each, the file is
truncated in place to half its size, and later to 0, between two calls. Every answer must be the
cold engine's, and the index must answer again (warm) once rebuilt.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from ripsight import Workspace
from ripsight.bench.navigation import ACCOUNTING
from ripsight.workspace import to_dict

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="maps files, truncates them"),
    pytest.mark.slow,  # a child builds both indexes of 3,000 files, then rebuilds them twice
]

FILES = 3000

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("grep", {"pattern": "helper", "output_mode": "files_with_matches", "limit": None}),
    ("grep", {"pattern": "compute|render", "output_mode": "count", "limit": None}),
    ("glob", {"pattern": "**/*.py", "limit": None}),
    ("references", {"name": "helper", "limit": None}),
    ("definitions", {"name": "compute", "limit": None}),
]

# The child: builds the warm workspace, then for each size truncates the file in place, calls,
# waits until the index is rebuilt, and calls again. It prints one JSON document.
CHILD = """
import json, os, sys, time
from ripsight import Workspace
from ripsight.bench.navigation import ACCOUNTING
from ripsight.workspace import to_dict

root, store, suffix = sys.argv[1], sys.argv[2], sys.argv[3]
calls = json.loads(sys.argv[4])


def answers(ws):
    out = []
    for call, kwargs in calls:
        result = to_dict(getattr(ws, call)(**kwargs))
        searched = result.get("files_searched")
        for key in ("elapsed_ms", *ACCOUNTING):
            result.pop(key, None)
        out.append({"answer": result, "searched": searched})
    return out


def wait(what, done, timeout=300):
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}: {ws.index_status()}")
        time.sleep(0.05)


def the_file():
    [path] = [p for p in os.listdir(store) if p.endswith(suffix)]
    return os.path.join(store, path)


ws = Workspace(root, index=True, index_dir=store)
ws.wait_index(300)
wait("the symbol index", lambda: ws.index_status()["symbols"] in ("ready", "failed"))
rounds = []
for size in ("half", "zero"):
    path = the_file()
    before = os.stat(path)
    status = ws.index_status()
    os.truncate(path, before.st_size // 2 if size == "half" else 0)
    truncated = answers(ws)
    after_truncated = ws.index_status()
    if suffix == ".rsidx":
        rebuilt = lambda: ws.index_status()["merges"] > status["merges"]
    else:
        rebuilt = lambda: ws.index_status()["symbols"] in ("ready", "failed")
    wait("the rebuild", rebuilt)
    replaced = os.stat(the_file())
    again = answers(ws)
    rounds.append({
        "size": size,
        "truncated": truncated,
        "again": again,
        "status_before": status,
        "status_truncated": after_truncated,
        "status_again": ws.index_status(),
        "replaced": replaced.st_ino != before.st_ino and replaced.st_size > 0,
    })
ws.close()
print(json.dumps(rounds, default=str), flush=True)
"""


def make_tree(root: Path) -> Path:
    for i in range(FILES):
        d = root / f"pkg{i % 7}" / f"sub{i % 11}"
        d.mkdir(parents=True, exist_ok=True)
        if i % 2:
            (d / f"m{i}.py").write_text(
                f"def compute{i % 5}(x):\n    return helper(x) + {i}\n\n\n"
                f"def render{i}(y):\n    return compute(y)\n"
            )
        else:
            (d / f"c{i}.c").write_text(
                f"int compute(int x) {{ return helper(x) + {i}; }}\n"
                f"static int f{i}(void) {{ return compute({i}); }}\n"
            )
    (root / "helper.py").write_text(
        "def helper(x):\n    return x\n\n\ndef compute(x):\n    return x\n"
    )
    # The indexes vouch only for files whose change time is over a second old when built.
    time.sleep(1.2)
    return root


def cold_answers(root: Path) -> list[Any]:
    out = []
    with Workspace(root) as cold:
        for call, kwargs in CALLS:
            result = to_dict(getattr(cold, call)(**kwargs))
            for key in ("elapsed_ms", *ACCOUNTING):
                result.pop(key, None)
            out.append(json.loads(json.dumps(result, default=str)))
    return out


@pytest.mark.parametrize("suffix", [".rsidx", "-symbols.rssym"])
def test_an_index_file_truncated_in_place_is_answered_around_and_rebuilt(
    tmp_path: Path, suffix: str
) -> None:
    root = make_tree(tmp_path / "tree")
    store = tmp_path / "store"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), str(store), suffix, json.dumps(CALLS)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    # A SIGBUS shows here as -7 (or 135 through a shell).
    assert done.returncode == 0, (done.returncode, done.stderr[-3000:])
    rounds = json.loads(done.stdout)
    expected = cold_answers(root)
    assert [r["size"] for r in rounds] == ["half", "zero"]
    grep_calls = sum(1 for call, _ in CALLS if call in ("grep", "glob"))
    for r in rounds:
        size = r["size"]
        before, truncated, again = r["status_before"], r["status_truncated"], r["status_again"]
        assert before["state"] == "ready" and before["symbols"] == "ready", (size, before)
        assert [a["answer"] for a in r["truncated"]] == expected, size
        assert [a["answer"] for a in r["again"]] == expected, size
        assert r["replaced"], f"{size}: the truncated file was not replaced by a rebuilt one"
        assert again["state"] == "ready" and again["symbols"] == "ready", (size, again)
        navigation = [a["searched"] for a in r["again"][grep_calls:]]
        assert navigation == [0] * len(navigation), (size, "the symbol index answers again")
        if suffix == ".rsidx":
            # The first call after the truncation answered cold (the next ones may be warm
            # already: the rebuild of 3,000 small files is quick), then warm again from the
            # rebuilt file.
            assert truncated["cold_calls"] > before["cold_calls"], size
            assert again["warm_calls"] >= truncated["warm_calls"] + grep_calls, size
            assert again["merges"] == before["merges"] + 1, size
        else:
            # The first call on the symbol index after the truncation read no short file: it
            # parsed its candidates cold (the next may already have the rebuilt one).
            assert r["truncated"][grep_calls]["searched"] > 0, size
            assert again["warm_calls"] >= truncated["warm_calls"] + grep_calls, size
