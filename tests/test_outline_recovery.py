"""Outlines of C files where tree-sitter's grammar gives up after a construct it cannot parse
(a macro in place of `while`, a macro table): the parse starts again after the broken
construct, so the functions that follow are in the outline, at ctags' lines.

The files come from Debian's linux-source-6.1 (skipped when it is not installed, as
tests/test_compact_outline.py's kernel test is); ctags is universal-ctags.
"""

from __future__ import annotations

import re
import tarfile
from pathlib import Path

import pytest
from ripsight import Workspace
from test_compact_outline import KERNEL_TARBALL, ctags_names

#: Files the grammar gave up on (the functions ctags finds and the outline lost before the
#: restart): kernel/exit.c (6), kernel/cgroup/cgroup.c (77), kernel/bpf/core.c (41).
BROKEN = ["kernel/exit.c", "kernel/cgroup/cgroup.c", "kernel/bpf/core.c"]

#: Names ctags gives a macro call that defines a function (`SYSCALL_DEFINE3(waitid, ...)`):
#: the outline names those after the macro's argument.
MACRO_CALL = re.compile(r"(COMPAT_)?SYSCALL_DEFINE\d|BPF_CALL_\d")


@pytest.mark.slow
def test_functions_after_a_broken_construct_match_ctags(tmp_path: Path) -> None:
    if not KERNEL_TARBALL.is_file():
        pytest.skip(f"{KERNEL_TARBALL} is not there (apt-get install linux-source-6.1)")
    wanted = {f"linux-source-6.1/{name}" for name in BROKEN}
    # One pass through the archive, stopped once the files are out.
    with tarfile.open(KERNEL_TARBALL, "r|*") as archive:
        for member in archive:
            if member.name in wanted:
                archive.extract(member, tmp_path, filter="data")
                wanted.discard(member.name)
                if not wanted:
                    break
    assert not wanted, wanted
    root = tmp_path / "linux-source-6.1"
    theirs = ctags_names(root, BROKEN, "C", "f")
    missing: dict[str, set[str]] = {}
    total = 0
    with Workspace(root) as ws:
        outlines = {name: ws.outline(name, limit=None) for name in BROKEN}
    for name, outline in outlines.items():
        names = {n for n in theirs.get(name, ()) if not MACRO_CALL.fullmatch(n)}
        total += len(names)
        missing[name] = names - {s.name for s in outline.symbols}
    assert total > 300
    # kernel/bpf/core.c's interpreter, ___bpf_prog_run, is a body of macro-made labels whose
    # head the restarts do not reach.
    assert missing == {
        "kernel/exit.c": set(),
        "kernel/cgroup/cgroup.c": set(),
        "kernel/bpf/core.c": {"___bpf_prog_run"},
    }
    lines = {s.name: (s.line, s.end_line, s.depth) for s in outlines["kernel/exit.c"].symbols}
    # The lines are read from the file (Debian's package follows the 6.1 point releases, and
    # the functions move): the function holding a `do { } while_each_thread(...)` loop is
    # broken (do_wait in 6.1.1xx, __do_wait in later ones): named from its head, it ends where
    # the parse started again; what follows has its own lines, at the top level.
    text = (root / "kernel/exit.c").read_text().splitlines()
    loop = next(i for i, t in enumerate(text) if "} while_each_thread(" in t)
    head = max(i for i in range(loop) if re.match(r"static long \w+\(struct wait_opts", text[i]))
    broken = re.match(r"static long (\w+)\(", text[head])
    assert broken is not None
    assert lines[broken[1]][0] == head + 1 and lines[broken[1]][2] == 0
    assert lines[broken[1]][1] < loop + 1 + 12  # not the rest of the file

    def whole(pattern: str) -> tuple[int, int, int]:
        start = next(i for i, t in enumerate(text) if re.match(pattern, t))
        return start + 1, next(i for i in range(start, len(text)) if text[i] == "}") + 1, 0

    assert lines["kernel_wait4"] == whole(r"long kernel_wait4\(")
    assert lines["abort"] == whole(r"(__weak void|void __weak) abort\(void\)")
