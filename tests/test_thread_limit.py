"""A process at its thread limit still gets whole answers.

A cold grep or glob of a tree of more than a hundred entries walks on several threads, and a warm
one searches or matches a long list of files on several. Where the system refuses a thread (a
container's or cgroup's `pids.max`, a user's process limit), the work goes on with the workers it
has: the answer is the one an unlimited process gives. The limit is a cgroup (v1 `pids`
controller) that the child process joins after its first calls, with room for no new thread;
the test skips where this machine offers no such controller to root.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

PIDS = Path("/sys/fs/cgroup/pids")
FILES = 4_200

CHILD = r"""
import json, os, sys, threading
from ripsight import Workspace

root, cgroup = sys.argv[1], sys.argv[2]
cold = Workspace(root)
warm = Workspace(root, index=True, persist=False)
assert warm.wait_index(60), warm.index_status()


def answers(ws):
    grep = ws.grep("needle", output_mode="count", limit=None)
    glob = ws.glob("**/*.txt", limit=None)
    files = sorted((f.path, f.count) for f in grep.files)
    return [grep.total_matches, files, glob.total, sorted(glob.paths), grep.incomplete]


free = [answers(cold), answers(warm)]  # the threads a call needs are started; sizes are known
tasks = len(os.listdir("/proc/self/task"))
try:
    with open(os.path.join(cgroup, "pids.max"), "w") as f:
        f.write(str(tasks))
    with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))
except OSError as exc:
    print(json.dumps({"skip": f"cannot join the pids cgroup: {exc}"}))
    sys.exit(0)
try:
    threading.Thread(target=print).start()
    refused = False
except RuntimeError:
    refused = True
limited = [answers(cold), answers(warm)]
print(json.dumps({"free": free, "limited": limited, "refused": refused,
                  "warm": warm.index_status()["warm_calls"]}))
"""


def _cgroup() -> Path:
    if os.geteuid() != 0 or not (PIDS / "cgroup.procs").exists():
        pytest.skip("needs root and the cgroup v1 pids controller at /sys/fs/cgroup/pids")
    path = PIDS / f"ripsight-test-{uuid.uuid4().hex[:8]}"
    try:
        path.mkdir()
    except OSError as exc:
        pytest.skip(f"cannot make a pids cgroup here: {exc}")
    return path


def test_a_walk_refused_its_threads_answers_whole(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    # Enough files for every parallel path: a cold walk (over 100 entries), a warm grep's
    # candidates (over 48) and a warm glob's list (over 4,096).
    for i in range(FILES):
        d = root / f"d{i % 40}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"f{i}.txt").write_text("needle\n" * (i % 3) + "hay\n")
    cgroup = _cgroup()
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(root), str(cgroup)],
            check=False,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        cgroup.rmdir()
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    if "skip" in seen:
        pytest.skip(seen["skip"])
    # The limit holds (no new thread starts), and the answers are those of the free process.
    assert seen["refused"], "the cgroup did not limit the process: the test would prove nothing"
    assert seen["limited"] == seen["free"]
    assert seen["free"][0] == seen["free"][1]
    assert seen["free"][0][0] == sum(i % 3 for i in range(FILES))
    assert seen["warm"] >= 4, "the warm workspace answered cold: its parallel paths went untried"
