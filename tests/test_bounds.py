"""Resource bounds, measured in a child process (SPEC 2.3, 2.5; issue 9 item 3).

Each test runs the engine in a fresh Python process and reads that process's peak resident
memory (``VmHWM`` in /proc/self/status), its wall time, or how fast it answers Ctrl-C:
- a huge ``offset`` costs the memory of the page, not of the matches before it;
- a file that is one 200 MB line is counted (``line_too_long``), not buffered whole, also
  with two calls at once;
- the time budget holds inside one large file;
- SIGINT raises ``KeyboardInterrupt`` promptly (within `PROMPT_SECONDS`, a bound for a loaded
  machine: the call alone takes seconds; how fast is a benchmark's matter) and the engine's
  threads stop.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
import ripsight
from _children import RESTORE_SIGINT, Lines, stop
from _mcp_helpers import SLOW_GREP, make_slow_tree

pytestmark = [
    pytest.mark.skipif(
        not Path("/proc/self/status").exists(), reason="reads VmHWM and threads from /proc"
    ),
    pytest.mark.slow,  # a fresh interpreter and hundreds of MB of files per test
]

#: How soon an interrupted or cancelled call must answer: a generous bound for a shared, loaded
#: machine, far under the seconds the call takes when nothing stops it.
PROMPT_SECONDS = 1.0

#: The peak resident memory every child must stay under (the issue's bound).
PEAK_LIMIT_MB = 256
MB = 1024 * 1024


def _run_child(code: str, timeout: float = 120) -> dict[str, object]:
    """Runs `code` in a fresh interpreter; it prints one JSON object as its last line, to which
    the child's peak resident memory (MB) is added."""
    script = textwrap.dedent(code) + textwrap.dedent(
        """
        import json as _json
        for _line in open("/proc/self/status"):
            if _line.startswith("VmHWM:"):
                RESULT["peak_mb"] = int(_line.split()[1]) / 1024
        print(_json.dumps(RESULT))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _write_repeated(path: Path, chunk: bytes, total_bytes: int) -> None:
    with path.open("wb") as f:
        for _ in range(total_bytes // len(chunk)):
            f.write(chunk)


@pytest.fixture(scope="module")
def many_lines(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """48 MB in 20 files of short lines: 4.8 million matches of ``.``. Keeping the text of each
    (what an offset past them used to cost) takes several hundred MB."""
    root = tmp_path_factory.mktemp("many_lines")
    for i in range(20):
        _write_repeated(root / f"f{i:02}.txt", f"line {i:03} x\n".encode() * 4096, 48 * MB // 20)
    return root


@pytest.fixture(scope="module")
def one_line_200mb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file that is one 200 MB line (no newline), next to a small file that matches."""
    root = tmp_path_factory.mktemp("one_line")
    _write_repeated(root / "huge.min.js", b"a" * MB, 200 * MB)
    (root / "small.txt").write_text("needle a\n")
    return root


@pytest.fixture(scope="module")
def big_text(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """128 MB of 100-byte lines in one file."""
    root = tmp_path_factory.mktemp("big_text")
    line = b"abcdefghij" * 9 + b"abcdefghi\n"
    _write_repeated(root / "big.txt", line * 1024, 128 * MB)
    return root


def test_a_huge_offset_costs_the_page_not_the_matches(many_lines: Path) -> None:
    out = _run_child(
        f"""
        import ripsight
        ws = ripsight.Workspace({str(many_lines)!r})
        far = ws.grep(".", offset=10**12, limit=1)
        # A page far in, but inside the matches: its line is fetched after the count.
        mid = ws.grep(".", offset=3_000_000, limit=2)
        RESULT = {{
            "total": far.total_matches, "shown": len(far.lines), "withheld": far.withheld,
            "mid": [(l.path, l.line, l.text) for l in mid.lines],
            "incomplete": far.incomplete or mid.incomplete,
        }}
        """
    )
    line_bytes = len("line 000 x\n")
    per_file = 48 * MB // 20 // (line_bytes * 4096) * 4096  # written 4096 lines at a time
    assert out["total"] == per_file * 20
    assert (out["shown"], out["withheld"], out["incomplete"]) == (0, 0, False)
    # Match 3,000,000 (0-based) is in file 3,000,000 // per_file, at that line.
    index = 3_000_000
    file, line = divmod(index, per_file)
    assert out["mid"] == [
        [f"f{file:02}.txt", line + 1, f"line {file:03} x"],
        [f"f{file:02}.txt", line + 2, f"line {file:03} x"],
    ]
    assert out["peak_mb"] < PEAK_LIMIT_MB, out


def test_a_200mb_single_line_file_is_counted_not_buffered(one_line_200mb: Path) -> None:
    out = _run_child(
        f"""
        import ripsight
        ws = ripsight.Workspace({str(one_line_200mb)!r})
        r = ws.grep("needle")
        read = ws.read_file("huge.min.js")
        RESULT = {{"total": r.total_matches, "line_too_long": r.skipped.line_too_long,
                   "searched": r.files_searched,
                   "read": (read.total_lines, read.lines[0].cut_from, len(read.lines[0].text))}}
        """
    )
    assert (out["total"], out["line_too_long"], out["searched"]) == (1, 1, 1)
    # read_file shows the line's start and its length, holding neither whole.
    assert out["read"] == [1, 200 * MB, 500]
    assert out["peak_mb"] < PEAK_LIMIT_MB, out


def test_two_searches_of_a_200mb_line_at_once_stay_bounded(one_line_200mb: Path) -> None:
    out = _run_child(
        f"""
        import threading
        import ripsight
        ws = ripsight.Workspace({str(one_line_200mb)!r})
        results = []
        def run(pattern):
            results.append(ws.grep(pattern, path="huge.min.js").skipped.line_too_long)
        threads = [threading.Thread(target=run, args=(p,)) for p in ("needle", "b+")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        RESULT = {{"skipped": results}}
        """
    )
    assert out["skipped"] == [1, 1]
    assert out["peak_mb"] < PEAK_LIMIT_MB, out


def test_the_time_budget_holds_inside_one_large_file(big_text: Path) -> None:
    out = _run_child(
        f"""
        import time
        import ripsight
        # Unicode word boundaries keep the regex engine off its fast paths: a slow scan.
        pattern = r"\\b\\w+\\b\\d"
        started = time.monotonic()
        whole = ripsight.Workspace({str(big_text)!r}).grep(pattern, path="big.txt")
        full = time.monotonic() - started
        # A budget of a quarter of what the whole file takes runs out inside it.
        budget = min(0.5, full / 4)
        ws = ripsight.Workspace({str(big_text)!r}, time_budget=budget)
        started = time.monotonic()
        r = ws.grep(pattern, path="big.txt")
        RESULT = {{"full": full, "whole_incomplete": whole.incomplete, "budget": budget,
                   "seconds": time.monotonic() - started, "incomplete": r.incomplete}}
        """
    )
    assert out["whole_incomplete"] is False, out
    assert out["incomplete"] is True, out
    assert out["seconds"] < out["budget"] + 0.5, out


_INTERRUPTED = (
    RESTORE_SIGINT
    + """
import os, sys, time
import ripsight
ws = ripsight.Workspace({root!r}, time_budget=600)
ws.read_file("big.txt", limit=1)  # the calling thread's engine thread exists from here on
before = len(os.listdir("/proc/self/task"))
print("ready", flush=True)
try:
    while True:
        ws.grep(r"\\b\\w+\\b\\d", path="big.txt")
except KeyboardInterrupt:
    caught = time.monotonic()
    # The engine's threads stop: the thread count falls back to what it was before the call,
    # and the process stops using CPU.
    deadline = caught + 2
    while len(os.listdir("/proc/self/task")) > before and time.monotonic() < deadline:
        time.sleep(0.01)
    settled = time.monotonic() - caught
    cpu = time.process_time()
    time.sleep(0.5)
    print("interrupted", caught, settled, len(os.listdir("/proc/self/task")) - before,
          time.process_time() - cpu, flush=True)
"""
)


def _interrupt_once(root: Path) -> tuple[float, float, int, float]:
    child = subprocess.Popen(
        [sys.executable, "-c", _INTERRUPTED.format(root=str(root))],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stderr is not None
    out, err = Lines(child.stdout), Lines(child.stderr)
    try:
        ready = out.next(timeout=120)
        assert ready is not None and ready.strip() == "ready", (ready, err.so_far())
        time.sleep(0.5)  # well inside the engine (one call takes seconds)
        sent = time.monotonic()
        os.kill(child.pid, signal.SIGINT)
        line = (out.next(timeout=30) or "").split()
        assert line and line[0] == "interrupted", (line, err.so_far())
        child.wait(timeout=10)
    finally:
        stop(child)
    # CLOCK_MONOTONIC is one clock for every process of the machine.
    return float(line[1]) - sent, float(line[2]), int(line[3]), float(line[4])


def test_ctrl_c_raises_keyboard_interrupt_promptly(big_text: Path) -> None:
    # On a loaded machine one attempt can be descheduled; the best of three must be prompt.
    # Before the engine polled for signals, every attempt took the whole call (seconds).
    attempts = []
    for _ in range(3):
        latency, settled, extra_threads, cpu_after = _interrupt_once(big_text)
        assert extra_threads == 0, "engine threads still running after the interrupt"
        assert settled < 2
        assert cpu_after < 0.1, f"the process kept working after the interrupt ({cpu_after} s)"
        attempts.append(latency)
        if latency < PROMPT_SECONDS:
            break
    assert min(attempts) < PROMPT_SECONDS, attempts


def test_a_token_cancelled_from_another_thread_answers_promptly(tmp_path: Path) -> None:
    # One file's multiline search with this pattern takes many seconds and cannot be
    # interrupted inside the regex engine: the call answers anyway, the engine thread ends on
    # its own. The best of three attempts must be prompt (a loaded machine can deschedule one).
    root = make_slow_tree(tmp_path / "slow", files=40)
    ws = ripsight.Workspace(root, time_budget=600)
    latencies = []
    for _ in range(3):
        token = ripsight.CancelToken()
        outcome: dict[str, object] = {}

        def run(token: ripsight.CancelToken = token, outcome: dict[str, object] = outcome) -> None:
            try:
                ws.grep(cancel=token, **SLOW_GREP)
                outcome["error"] = None
            except ripsight.CancelledError as error:
                outcome["error"] = error
            outcome["at"] = time.monotonic()

        thread = threading.Thread(target=run)
        thread.start()
        time.sleep(0.3)
        cancelled = time.monotonic()
        token.cancel()
        thread.join(timeout=60)
        assert isinstance(outcome["error"], ripsight.CancelledError), outcome
        latencies.append(float(outcome["at"]) - cancelled)  # type: ignore[arg-type]
        if latencies[-1] < PROMPT_SECONDS:
            break
    assert min(latencies) < PROMPT_SECONDS, latencies
