"""No test can wait forever: every wait for a child process, a thread, a queue or a pipe in
tests/ and benches/ names its timeout (read from the source, so a new wait without one fails
here before it hangs a run). pyproject's pytest-timeout ceiling is the second line of defence.

What counts as a wait, by the call's shape:
- ``subprocess.run`` / ``call`` / ``check_call`` / ``check_output`` without ``timeout=``;
- ``.wait()``, ``.join()``, ``.get()``, ``.recv()``, ``.communicate()`` with no argument (a
  process, thread, event, barrier or queue without a bound; ``"".join(parts)`` and
  ``mapping.get(key)`` take an argument, so they do not count);
- ``.read()``, ``.readline()`` and ``.readlines()`` of a ``.stdout`` or ``.stderr`` pipe.

A bare wait handed to ``asyncio.wait_for(wait, timeout)`` is bounded by that timeout.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SOURCES = sorted([*(REPO / "tests").rglob("*.py"), *(REPO / "benches").rglob("*.py")])

_SUBPROCESS_RUNS = {"run", "call", "check_call", "check_output"}
_BARE_WAITS = {"wait", "join", "get", "recv", "communicate"}
_PIPE_READS = {"read", "readline", "readlines"}


def _unbounded_waits(source: str) -> list[str]:
    """Each call in `source` that may wait forever, as ``line: code``."""
    found: list[str] = []
    tree = ast.parse(source)
    bounded = {
        id(call.args[0])
        for call in ast.walk(tree)
        if isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "wait_for"
        and len(call.args) + len(call.keywords) >= 2
        and call.args
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        func = node.func
        owner = func.value
        keywords = {k.arg for k in node.keywords}
        if (
            isinstance(owner, ast.Name)
            and owner.id == "subprocess"
            and func.attr in _SUBPROCESS_RUNS
            and "timeout" not in keywords
        ):
            found.append(f"{node.lineno}: subprocess.{func.attr} without timeout=")
        elif (
            func.attr in _BARE_WAITS
            and not node.args
            and not node.keywords
            and id(node) not in bounded
        ):
            found.append(f"{node.lineno}: {ast.unparse(node)} without a timeout")
        elif (
            func.attr in _PIPE_READS
            and isinstance(owner, ast.Attribute)
            and owner.attr in ("stdout", "stderr")
        ):
            found.append(f"{node.lineno}: {ast.unparse(node)} blocks until the child writes")
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_wait_has_a_timeout(path: Path) -> None:
    assert _unbounded_waits(path.read_text(encoding="utf-8")) == []


def test_the_audit_finds_unbounded_waits() -> None:
    source = (
        "import subprocess\n"
        "subprocess.run(['x'])\n"
        "subprocess.run(['x'], timeout=5)\n"
        "child.wait()\n"
        "child.wait(timeout=5)\n"
        "thread.join()\n"
        "', '.join(parts)\n"
        "q.get()\n"
        "d.get('key')\n"
        "child.stdout.readline()\n"
        "handle.readline()\n"
    )
    assert [line.split(":")[0] for line in _unbounded_waits(source)] == ["2", "4", "6", "8", "10"]
