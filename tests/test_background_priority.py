"""Background work runs at the lowest priority and its parses have workers of their own
(rust_core/src/background.rs): the worker processes that parsed the tree for the symbol index
run at `SCHED_IDLE`, the ones that answer a call's parse at the normal policy, and no worker
serves both. That a call pauses a build is tested in the engine (`background::tests`); what it
costs a call is a benchmark (benches/during_build.py), not a test.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from ripsight import Workspace

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="scheduling policies are read from /proc"
)

SCHED_OTHER = 0
SCHED_IDLE = 5
BACKGROUND = b"RIPSIGHT_WORKER_BACKGROUND=1"


def children() -> dict[int, tuple[int, bool]]:
    """This process's child processes: pid -> (scheduling policy, started for background)."""
    found: dict[int, tuple[int, bool]] = {}
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            environ = Path(f"/proc/{entry}/environ").read_bytes()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split(" ")
        if int(fields[1]) != me:  # field 4, the parent
            continue
        found[int(entry)] = (int(fields[41 - 3]), BACKGROUND in environ.split(b"\0"))
    return found


def test_background_parses_run_in_idle_workers_and_calls_in_normal_ones(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    for i in range(40):
        (root / f"m{i}.py").write_text(f"def f{i}(x):\n    return g(x) + {i}\n")
    with Workspace(root, index=True, index_dir=tmp_path / "store") as ws:
        deadline = time.monotonic() + 120
        while ws.index_status()["symbols"] not in ("ready", "failed"):
            assert time.monotonic() < deadline, "the symbol index was not ready in 120 s"
            time.sleep(0.05)
        assert ws.index_status()["symbols"] == "ready"
        # A call's own parse (an outline, never from the symbol index).
        assert ws.outline("m3.py").symbols
        workers = children()
    background = [policy for policy, is_background in workers.values() if is_background]
    foreground = [policy for policy, is_background in workers.values() if not is_background]
    assert background, f"no idle worker of the symbol build is left: {workers}"
    assert foreground, f"no worker of the call's outline is left: {workers}"
    assert set(background) == {SCHED_IDLE}
    assert set(foreground) == {SCHED_OTHER}
