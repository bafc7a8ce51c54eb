"""read_file through `ripsight.Workspace`: every Python keyword reaches the engine, and a deep
read of a large file stays within its memory bound (measured in a child process).

What read_file shows (ranges, totals, line endings, encodings, binary files, cut lines, ignore
and deny rules, suggestions, the estimate path, a reference model) is the engine's and lives in
rust_core/tests/read.rs; FIFOs, sockets and paths that leave the root in
rust_core/tests/boundary.rs. The text a model reads is in test_formatting.py, the exception
classes in test_errors.py, the result classes in test_records.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _trees import make_tree, numbered
from ripsight import Workspace


def test_every_read_file_keyword_reaches_the_engine(tmp_path: Path) -> None:
    make_tree(tmp_path, {"src/f.txt": numbered(1000), "wide.txt": "w" * 600 + "\n"})
    ws = Workspace(tmp_path)
    # `path` as a relative str, an absolute str and a PathLike.
    for path in ("src/f.txt", str(tmp_path / "src" / "f.txt"), tmp_path / "src" / "f.txt"):
        default = ws.read_file(path)
        assert default.path == "src/f.txt"
        # DEFAULT_LIMITS.read_limit lines from line 1.
        assert (default.offset, len(default.lines), default.next_offset) == (1, 400, 401)
    page = ws.read_file("src/f.txt", offset=998, limit=5)
    assert [(line.number, line.text) for line in page.lines] == [
        (998, "line 998"),
        (999, "line 999"),
        (1000, "line 1000"),
    ]
    assert (page.offset, page.next_offset, page.total_lines) == (998, None, 1000)
    [cut] = ws.read_file("wide.txt", max_line_chars=20).lines
    assert (cut.text, cut.cut_from) == ("w" * 20, 600)
    [default_cut] = ws.read_file("wide.txt").lines
    assert (len(default_cut.text), default_cut.cut_from) == (500, 600)  # read_line_chars


# ---- memory stays bounded by what is shown --------------------------------------------------

FULL_FILE_BYTES = 500 * 1024 * 1024
LINE_BYTES = 100

# Peak RSS is read from /proc/self/status (VmHWM) rather than ru_maxrss: on Linux, ru_maxrss
# survives fork and execve, so a child starts with the parent's (pytest's) resident size as its
# "peak" and growth would be hidden. VmHWM belongs to the new process image and starts fresh.
MEMORY_PROBE = textwrap.dedent(
    """
    import json, sys
    import ripsight

    def status_kib(field):
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        raise RuntimeError(field)

    ws = ripsight.Workspace(sys.argv[1])
    ws.read_file("small.txt")  # warm up the allocator and lazy imports on a tiny file
    before = status_kib("VmRSS")
    r = ws.read_file("big.log", offset=int(sys.argv[2]), limit=int(sys.argv[3]))
    after = status_kib("VmHWM")
    print(json.dumps({
        "before_kib": before, "after_kib": after, "first": r.lines[0].text,
        "number": r.lines[0].number, "shown": len(r.lines), "total": r.total_lines,
        "estimated": r.total_lines_estimated,
    }))
    """
)


@pytest.mark.skipif(
    os.environ.get("RIPSIGHT_SKIP_MEMORY_TEST") == "1",
    reason="RIPSIGHT_SKIP_MEMORY_TEST=1 (needs ~1 GB of free disk)",
)
@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/status")
@pytest.mark.slow
def test_deep_read_of_a_large_file_stays_under_64_mb(tmp_path: Path) -> None:
    free = shutil.disk_usage(tmp_path).free
    size = min(FULL_FILE_BYTES, free // 4)
    if size < 50 * 1024 * 1024:
        pytest.skip(f"only {free // 2**20} MiB free disk")
    lines = size // LINE_BYTES
    target = lines * 5_000_000 // (FULL_FILE_BYTES // LINE_BYTES)  # line 5,000,000 of 5.24 M
    path = tmp_path / "big.log"
    with open(path, "wb") as out:
        step = 100_000
        for start in range(1, lines + 1, step):
            end = min(start + step, lines + 1)
            # Exactly LINE_BYTES per line: "line 000000001 " + padding + "\n".
            out.write(
                b"".join(
                    b"line %09d %s\n" % (i, b"x" * (LINE_BYTES - 16)) for i in range(start, end)
                )
            )
    assert path.stat().st_size == lines * LINE_BYTES
    (tmp_path / "small.txt").write_text("tiny\n")
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, str(tmp_path), str(target), "400"],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["number"] == target
    assert report["first"].startswith(f"line {target:09d} ")
    assert report["shown"] == 400
    assert report["total"] == lines
    assert report["estimated"] is False
    grown_mib = (report["after_kib"] - report["before_kib"]) / 1024
    peak_mib = report["after_kib"] / 1024
    print(
        f"deep read at line {target:,} of {lines:,} ({size / 2**20:.0f} MiB): "
        f"RSS grew {grown_mib:.1f} MiB, peak {peak_mib:.1f} MiB"
    )
    assert grown_mib < 64, report
