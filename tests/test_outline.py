"""Outlines and definitions through the Python API and the tools: what the model reads, the
compact outline of a long read_file page, freshness after an edit (cold and warm), hostile
files bounded, and a parser process that crashes, loops, sleeps or runs out of memory costing
one answer while the caller lives on.

The engine's own tests (rust_core/tests/outline.rs, and the unit tests of the outline modules)
check the parse of each language, paging, the cache and the pool's handling of stand-in
workers; the agreement with ctags and Python's ast is tests/test_outline_oracles.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from ripsight import ToolCall, Workspace, default_registry
from ripsight.limits import LIMITS

PY_SOURCE = '''\
import os


class Server:
    """A server."""

    def start(self):
        return 1

    def stop(self):
        return 2


def main():
    def helper():
        return 3

    return helper()
'''


def write(root: Path, relative: str, content: str | bytes) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def call(reg: Any, tool: str, **arguments: Any) -> Any:
    import orjson

    return reg.execute(ToolCall("c", tool, orjson.dumps(arguments).decode()))


# -- the outline tool ----------------------------------------------------------------------------


def test_the_outline_a_model_reads(tmp_path: Path) -> None:
    write(tmp_path, "src/app.py", PY_SOURCE)
    reg = default_registry(tmp_path)
    result = call(reg, "outline", path="src/app.py")
    assert not result.is_error and result.meta["code"] == "ok"
    assert result.content == (
        "src/app.py (Python): 5 definitions (line range, kind, name; nesting by indentation):\n"
        " 4-11  class Server\n"
        "  7-8    method start\n"
        "10-11    method stop\n"
        "14-18  function main\n"
        "15-16    function helper"
    )
    page = call(reg, "outline", path="src/app.py", limit=2, offset=1)
    assert page.content.splitlines()[0] == (
        "src/app.py (Python): 5 definitions; showing 2-3 (line range, kind, name; nesting by "
        "indentation):"
    )
    assert page.content.splitlines()[-1] == (
        "2 more definitions not shown: call outline again with offset=3 for the next page."
    )


def test_a_file_without_an_outline_says_why(tmp_path: Path) -> None:
    write(tmp_path, "notes.txt", "plain text\n")
    write(tmp_path, "app.min.js", "var a=1;" * 2_000 + "\n")
    write(tmp_path, "huge.py", "x = 1\n" * 200_000)
    reg = default_registry(tmp_path)
    notes = call(reg, "outline", path="notes.txt")
    assert notes.meta["code"] == "no_outline" and not notes.is_error
    assert notes.content.startswith("notes.txt has no outline: no parser reads this kind of file")
    minified = call(reg, "outline", path="app.min.js")
    assert minified.content == (
        "app.min.js has no outline: it looks minified or generated (line 1 is 16000 bytes "
        "long, over the 10000-byte cap; outlines skip files with lines over 10,000 bytes). "
        "Search it with grep instead."
    )
    assert minified.meta["code"] == "no_outline"
    huge = call(reg, "outline", path="huge.py")
    assert "over the 1.0 MiB" in huge.content and huge.meta["code"] == "no_outline"
    missing = call(reg, "outline", path="nope.py")
    assert missing.is_error and missing.meta["code"] == "not_found"


def test_outline_results_are_the_engines_typed_results(tmp_path: Path) -> None:
    write(tmp_path, "a.rs", "struct S;\nimpl S {\n    fn new() -> S { S }\n}\n")
    with Workspace(tmp_path) as ws:
        out = ws.outline("a.rs")
        assert out.language == "rust" and out.refused is None and out.total == 3
        assert [(s.kind, s.name, s.depth) for s in out.symbols] == [
            ("struct", "S", 0),
            ("impl", "S", 0),
            ("method", "new", 1),
        ]
        assert out.to_dict()["symbols"][2] == {
            "kind": "method",
            "name": "new",
            "line": 3,
            "end_line": 3,
            "depth": 1,
        }
        assert set(out.to_dict()) == set(type(out).SCHEMA["properties"])


# -- read_file with the outline ------------------------------------------------------------------


def long_module(functions: int) -> str:
    return "".join(
        f"def function_{i}(argument):\n" + "".join(f"    x{j} = argument\n" for j in range(20))
        for i in range(functions)
    )


def test_a_page_that_stops_early_shows_the_outline_within_the_budget(tmp_path: Path) -> None:
    write(tmp_path, "mod.py", long_module(60))
    reg = default_registry(tmp_path)
    result = call(reg, "read_file", path="mod.py")
    text = result.content
    assert result.meta["code"] == "ok" and not result.meta.get("truncated")
    assert len(text) <= reg.max_result_chars
    assert result.meta.get("outline") is True
    head, outline = text.split("\nOutline (", 1)
    # The first section, whole: numbered lines from 1, then where to read on.
    assert head.startswith("mod.py: lines 1-")
    assert "     1\tdef function_0(argument):" in head
    assert head.splitlines()[-1].startswith("More lines follow: call read_file with offset=")
    # A deterministic outline: every function with its line.
    assert outline.startswith("60 definitions;")
    assert "\n    22  function function_1" in outline
    assert outline.endswith("  function function_59")


def test_a_compact_outline_keeps_the_top_level_when_everything_does_not_fit(
    tmp_path: Path,
) -> None:
    classes = "".join(
        f"class Type{i}:\n"
        + "".join(f"    def method_{i}_{j}(self):\n        pass\n" for j in range(8))
        for i in range(40)
    )
    write(tmp_path, "types.py", classes)
    reg = default_registry(tmp_path)
    text = call(reg, "read_file", path="types.py").content
    outline = text.split("\nOutline (", 1)[1]
    # Every class, and the methods of the first ones as far as the share goes: names only,
    # each row after the line of its first name.
    assert outline.startswith(
        "360 definitions: each row's first line, then names, (children), kind letter where it "
        "changes: c class, m method; call outline for lines; 174 nested or later ones not "
        "shown):\n     1  c Type0 (m method_0_0 method_0_1 "
    )
    assert outline.endswith(
        " Type18 (m method_18_0 method_18_1) Type19 Type20 Type21 Type22 "
        "Type23 Type24\n   426  Type25 Type26 Type27 Type28 Type29 Type30 "
        "Type31 Type32 Type33 Type34 Type35 Type36 Type37\n   647  Type38 Type39"
    )
    assert len(text) <= reg.max_result_chars


def test_pages_that_reach_the_end_or_have_no_parser_show_no_outline(tmp_path: Path) -> None:
    write(tmp_path, "short.py", PY_SOURCE)
    write(tmp_path, "notes.txt", "line\n" * 1_000)
    reg = default_registry(tmp_path)
    assert "Outline (" not in call(reg, "read_file", path="short.py").content
    assert "Outline (" not in call(reg, "read_file", path="notes.txt").content
    # The last page of a long file reaches the end: no outline either.
    write(tmp_path, "mod.py", long_module(30))
    assert "Outline (" not in call(reg, "read_file", path="mod.py", offset=600).content


# -- find_definitions ----------------------------------------------------------------------------


def test_definitions_a_model_reads(tmp_path: Path) -> None:
    write(tmp_path, "src/server.py", "class Server:\n    def start(self):\n        pass\n")
    write(tmp_path, "src/client.py", "from server import Server\n\n\ndef start():\n    pass\n")
    write(tmp_path, "web/app.ts", "export function start(): void {}\n")
    write(tmp_path, "notes.txt", "start here\n")
    reg = default_registry(tmp_path)
    found = call(reg, "find_definitions", name="start")
    assert found.meta["code"] == "ok"
    assert found.content == (
        '3 definitions named "start" (3 files containing the text, of 4 searched):\n'
        "src/client.py:4 function start\n"
        "src/server.py:2 method start (in Server)\n"
        "web/app.ts:1 function start"
    )
    classes = call(reg, "find_definitions", name="Serv", match="prefix", kind="class")
    assert classes.content.splitlines()[1:] == ["src/server.py:1 class Server"]
    regex = call(reg, "find_definitions", name="^st(art|op)$", match="regex", glob="*.ts")
    assert regex.content.splitlines()[1:] == ["web/app.ts:1 function start"]
    none = call(reg, "find_definitions", name="here")
    assert none.meta["code"] == "no_match"
    assert none.content == (
        'No definition named "here" (0 files containing the text, of 4 searched).\n'
        "No file with a parser contains the text; names are case-sensitive."
    )
    used = call(reg, "find_definitions", name="Server", kind="function")
    assert used.content.startswith(
        'No definition of kind function named "Server" (2 files containing the text, of 4 '
        "searched).\nThe files that contain the text use it without defining it"
    )
    bad = call(reg, "find_definitions", name="(", match="regex")
    assert bad.is_error and bad.meta["code"] == "invalid_pattern"
    wrong_kind = call(reg, "find_definitions", name="start", kind="klass")
    assert wrong_kind.is_error


def test_candidates_without_an_outline_are_named(tmp_path: Path) -> None:
    write(tmp_path, "big.py", "def target():\n    pass\n" + "x = 1\n" * 200_000)
    write(tmp_path, "ok.py", "def target():\n    pass\n")
    reg = default_registry(tmp_path)
    text = call(reg, "find_definitions", name="target").content
    assert text.splitlines()[1] == "ok.py:1 function target"
    assert "1 file that contain the text has no outline" in text and "big.py (too large)" in text


# -- freshness -----------------------------------------------------------------------------------


@pytest.mark.parametrize("index", [False, True], ids=["cold", "warm"])
def test_an_edit_shows_in_the_next_outline_and_definitions(tmp_path: Path, index: bool) -> None:
    path = write(tmp_path, "a.py", "def alpha():\n    pass\n")
    write(tmp_path, "b.py", "x = 1\n")
    with Workspace(tmp_path, index=index) as ws:
        if index:
            assert ws.wait_index(timeout=30)
        assert [s.name for s in ws.outline("a.py").symbols] == ["alpha"]
        assert [d.name for d in ws.definitions("alpha").definitions] == ["alpha"]
        # Same size, at once: only the file's identity tells the versions apart.
        path.write_text("def gamma():\n    pass\n", encoding="utf-8")
        assert [s.name for s in ws.outline("a.py").symbols] == ["gamma"]
        assert ws.definitions("alpha").total == 0
        assert [str(d) for d in ws.definitions("gamma").definitions] == ["a.py:1 function gamma"]
        write(tmp_path, "b.py", "class Alpha:\n    pass\n")
        assert [str(d) for d in ws.definitions("Alpha").definitions] == ["b.py:1 class Alpha"]
        if index:
            assert ws.index_status()["warm_calls"] > 0


# -- hostile files -------------------------------------------------------------------------------

#: A call on a hostile file answers within the worker's deadline plus room for a loaded machine.
BOUND_SECONDS = float(LIMITS["outline_deadline_seconds"]) + 5


def lines_of(data: bytes, width: int = 1_000) -> bytes:
    """`data` broken into lines of `width` bytes (one long line would be refused as minified
    before any parse: these files are for the parser)."""
    return b"\n".join(data[i : i + width] for i in range(0, len(data), width)) + b"\n"


def hostile_files(root: Path) -> dict[str, bytes]:
    files = {
        "parens.py": lines_of(b"(" * 50_000),
        "parens.c": lines_of(b"(" * 50_000),
        "parens-line.py": b"(" * 50_000,
        "nested.js": lines_of(b"x = " + b"[" * 100_000 + b"]" * 100_000 + b";"),
        "nested.rs": lines_of(b"fn f() " + b"{" * 100_000 + b"}" * 100_000),
        "minified.js": b"var a=function(){return 1};" * 200_000,
        "invalid.py": b"def f():\n    return '"
        + bytes(range(0x80, 0x100)) * 30
        + b"'\n# \xff\xfe\xc3\x28 \xe2\x82\n"
        + b"class After:\n    pass\n",
    }
    for name, data in files.items():
        write(root, name, data)
    return files


def test_hostile_files_get_a_bounded_answer(tmp_path: Path) -> None:
    hostile_files(tmp_path)
    with Workspace(tmp_path) as ws:
        for name in ("parens.py", "parens.c", "nested.js", "nested.rs", "invalid.py"):
            started = time.monotonic()
            out = ws.outline(name)
            assert time.monotonic() - started < BOUND_SECONDS, name
            assert out.refused in (None, "timeout", "deadline", "crashed"), (name, out)
        minified = ws.outline("minified.js")
        assert minified.refused == "too_large"  # 5.4 MB: refused unread
        assert ws.outline("parens-line.py").refused == "minified"  # one 50 KB line: unparsed
        assert [s.name for s in ws.outline("invalid.py").symbols] == ["f", "After"]
        # The engine and its workers still answer.
        write(tmp_path, "fine.py", "def fine():\n    pass\n")
        assert [s.name for s in ws.outline("fine.py").symbols] == ["fine"]


def test_a_minified_file_under_the_size_cap_is_refused_unparsed(tmp_path: Path) -> None:
    write(tmp_path, "bundle.js", "var a=function(){return 1};" * 30_000)
    with Workspace(tmp_path) as ws:
        out = ws.outline("bundle.js")
        assert out.refused == "minified" and out.symbols == []
        assert out.detail == "line 1 is 810000 bytes long, over the 10000-byte cap"


# -- a parser process that fails costs one answer ------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "refusals"),
    [
        ("abort", {"crashed"}),
        ("exit", {"crashed"}),
        # Touching a gigabyte takes under a second on a quiet machine; on a loaded one it can
        # outlast the deadline, and the kill ends it instead of the failed allocation.
        ("memory", {"crashed", "deadline"}),
        ("spin", {"deadline"}),
        ("sleep", {"deadline"}),
    ],
)
def test_a_failing_parser_process_costs_one_answer(
    tmp_path: Path, fault: str, refusals: set[str]
) -> None:
    write(tmp_path, "a.py", PY_SOURCE)
    with Workspace(tmp_path) as ws:
        engine = ws._engine
        assert ws.outline("a.py").total == 5
        # No worker waits (the pool is the process's: earlier tests leave some idle), so the
        # fault goes to a fresh one, and so must the next parse: the failed one is gone.
        engine._close_idle_workers()
        started = time.monotonic()
        assert engine._outline_fault(fault) in refusals
        assert time.monotonic() - started < BOUND_SECONDS
        # The caller lives, and the next call gets a fresh worker.
        before = engine.outline_workers_started
        # Bytes no other case parsed, so a worker parses them (the cache keys by the bytes).
        write(tmp_path, "b.py", f"def b():\n    pass\n# after {fault}\n")
        assert [s.name for s in ws.outline("b.py").symbols] == ["b"]
        assert engine.outline_workers_started > before


#: The caller of the memory fault, in a process of its own: its lifetime peak of resident memory
#: (`ru_maxrss`, KiB) before and after the fault, which no earlier test has set.
_MEMORY_FAULT_CALLER = """
import json, resource, sys, time
from ripsight import Workspace
with Workspace(sys.argv[1]) as ws:
    ws.outline("a.py")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    refusal = ws._engine._outline_fault("memory")
    seconds = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps([refusal, seconds, before, after]))
"""


def test_the_memory_fault_is_stopped_by_the_workers_limit(tmp_path: Path) -> None:
    """The worker allocates until an allocation fails: its address-space limit ends it long
    before it could take the machine's memory (the caller's memory does not move: measured in
    a fresh process, whose peak only this call can raise)."""
    pytest.importorskip("resource")
    write(tmp_path, "a.py", PY_SOURCE)
    done = subprocess.run(
        [sys.executable, "-c", _MEMORY_FAULT_CALLER, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    refusal, seconds, before, after = json.loads(done.stdout)
    assert refusal in ("crashed", "deadline")
    assert seconds < BOUND_SECONDS
    assert (after - before) * 1024 < 64 << 20, (before, after)


def worker_children() -> list[int]:
    """The pids of this process's children that run the outline worker (Linux's /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and b"_outline_worker.py" in command:
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_the_parse_runs_in_a_child_process_under_its_limits(tmp_path: Path) -> None:
    """The outline comes from a child of this process running the worker script, whose
    address space and core dumps are limited (read back from /proc)."""
    from ripsight.workspace import OUTLINE_WORKER

    assert OUTLINE_WORKER[1] == "-I" and OUTLINE_WORKER[2].endswith("_outline_worker.py")
    write(tmp_path, "a.py", PY_SOURCE)
    with Workspace(tmp_path) as ws:
        # Parsed, not answered from the cache an earlier test filled with the same bytes.
        ws._engine.clear_outline_cache()
        assert ws.outline("a.py").total == 5
        children = worker_children()
        assert children, "no outline worker among this process's children"
        limits = Path(f"/proc/{children[0]}/limits").read_text()
        address_space = next(line for line in limits.splitlines() if "address space" in line)
        memory = int(LIMITS["outline_worker_memory_bytes"])
        assert address_space.split()[3:5] == [str(memory), str(memory)]
        core = next(line for line in limits.splitlines() if "core file size" in line)
        assert core.split()[4:6] == ["0", "0"]


def test_an_engine_without_a_worker_command_answers_unavailable(tmp_path: Path) -> None:
    from ripsight import _core

    write(tmp_path, "a.py", PY_SOURCE)
    engine = _core.Engine(
        str(tmp_path),
        exclude_dirs=[],
        deny=[],
        time_budget=10.0,
        threads=0,
        respect_ignore_files=True,
    )
    out = engine.outline("a.py", offset=0, limit=None)
    assert out.refused == "unavailable" and "empty" in out.detail


def test_a_file_written_a_moment_ago_is_cached_and_an_edit_is_seen(tmp_path: Path) -> None:
    """The cache keys an outline by the bytes: the second call on a file written just now
    comes from it (no 2 s wait for its times to settle), and an edit of the same size, made
    at once, is parsed again."""
    source = f"def first():\n    pass\n# {tmp_path.name}\n"
    write(tmp_path, "a.py", source)
    with Workspace(tmp_path) as ws:
        first = ws.outline("a.py")
        assert [s.name for s in first.symbols] == ["first"] and not first.cached
        again = ws.outline("a.py")
        assert again.cached and again.symbols == first.symbols
        write(tmp_path, "a.py", source.replace("first", "other"))
        edited = ws.outline("a.py")
        assert [s.name for s in edited.symbols] == ["other"] and not edited.cached
