"""read_file through ripsight.Workspace, on trees generated in tmp_path."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from _trees import ELF, PDF, PNG, ZIP, make_tree, numbered
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ripsight import (
    DeniedError,
    IsADirectoryPathError,
    PathNotFoundError,
    SpecialFileError,
    Workspace,
    to_dict,
)
from ripsight.errors import model_text


def texts(result) -> list[str]:
    return [line.text for line in result.lines]


# ---- ranges and totals ----------------------------------------------------------------------


def test_default_range_total_and_next_offset(tmp_path: Path) -> None:
    make_tree(tmp_path, {"src/app.py": numbered(1000)})
    ws = Workspace(tmp_path)
    r = ws.read_file("src/app.py")
    assert r.kind == "text"
    assert r.path == "src/app.py"
    assert len(r.lines) == 400
    assert [line.number for line in r.lines[:3]] == [1, 2, 3]
    assert r.lines[0].text == "line 1"
    assert r.lines[-1].text == "line 400"
    assert r.total_lines == 1000
    assert r.total_lines_estimated is False
    assert r.next_offset == 401
    assert r.offset == 1
    assert r.encoding == "utf-8"
    assert r.line_ending == "LF"


def test_offsets_page_through_the_whole_file(tmp_path: Path) -> None:
    make_tree(tmp_path, {"f.txt": numbered(1000)})
    ws = Workspace(tmp_path)
    seen: list[str] = []
    offset: int | None = 1
    while offset is not None:
        r = ws.read_file("f.txt", offset=offset, limit=333)
        assert r.lines[0].number == offset
        seen.extend(texts(r))
        offset = r.next_offset
    assert seen == [f"line {i}" for i in range(1, 1001)]


def test_last_page_has_no_next_offset(tmp_path: Path) -> None:
    make_tree(tmp_path, {"f.txt": numbered(10)})
    r = Workspace(tmp_path).read_file("f.txt", offset=8, limit=5)
    assert texts(r) == ["line 8", "line 9", "line 10"]
    assert r.next_offset is None
    assert r.total_lines == 10


def test_final_line_without_newline_counts(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a": "one\ntwo", "b": "one\ntwo\n", "c": "\n"})
    ws = Workspace(tmp_path)
    assert ws.read_file("a").total_lines == 2
    assert texts(ws.read_file("a")) == ["one", "two"]
    assert ws.read_file("b").total_lines == 2
    assert texts(ws.read_file("c")) == [""]


def test_offset_past_the_end_is_not_an_error(tmp_path: Path) -> None:
    make_tree(tmp_path, {"f.txt": numbered(12)})
    r = Workspace(tmp_path).read_file("f.txt", offset=500)
    assert r.lines == []
    assert r.total_lines == 12
    assert r.next_offset is None
    assert r.offset == 500


def test_long_lines_are_cut_at_500_characters(tmp_path: Path) -> None:
    make_tree(tmp_path, {"min.js": "a" * 5000 + "\n" + "é" * 501 + "\n" + "z" * 500 + "\nend\n"})
    r = Workspace(tmp_path).read_file("min.js")
    assert r.lines[0].text == "a" * 500
    assert r.lines[0].cut_from == 5000
    assert r.lines[1].text == "é" * 500
    assert r.lines[1].cut_from == 501
    assert r.lines[2].text == "z" * 500
    assert r.lines[2].cut_from is None
    assert r.lines[3].text == "end"


def test_to_dict_gives_plain_data(tmp_path: Path) -> None:
    make_tree(tmp_path, {"f.txt": "a\nb\n"})
    d = to_dict(Workspace(tmp_path).read_file("f.txt"))
    assert d["lines"] == [
        {"number": 1, "text": "a", "cut_from": None},
        {"number": 2, "text": "b", "cut_from": None},
    ]
    assert d["total_lines"] == 2


# ---- line endings and encodings -------------------------------------------------------------


def test_crlf_is_stripped_and_reported(tmp_path: Path) -> None:
    make_tree(tmp_path, {"win.txt": b"first\r\nsecond\r\n"})
    r = Workspace(tmp_path).read_file("win.txt")
    assert texts(r) == ["first", "second"]
    assert r.line_ending == "CRLF"


def test_mixed_line_endings(tmp_path: Path) -> None:
    make_tree(tmp_path, {"mixed.txt": b"a\r\nb\nc\r\n"})
    r = Workspace(tmp_path).read_file("mixed.txt")
    assert texts(r) == ["a", "b", "c"]
    assert r.line_ending == "mixed"


def test_classic_mac_line_endings(tmp_path: Path) -> None:
    make_tree(tmp_path, {"mac.txt": b"a\rb\rc\r"})
    r = Workspace(tmp_path).read_file("mac.txt")
    assert texts(r) == ["a", "b", "c"]
    assert r.line_ending == "CR"


def test_utf8_bom_is_stripped_and_reported(tmp_path: Path) -> None:
    make_tree(tmp_path, {"bom.cs": b"\xef\xbb\xbfusing System;\nclass A {}\n"})
    r = Workspace(tmp_path).read_file("bom.cs")
    assert texts(r) == ["using System;", "class A {}"]
    assert r.encoding == "utf-8-bom"


@pytest.mark.parametrize(
    ("codec", "bom", "name"),
    [
        ("utf-16-le", b"\xff\xfe", "utf-16le"),
        ("utf-16-be", b"\xfe\xff", "utf-16be"),
    ],
)
def test_utf16_with_bom_is_decoded(tmp_path: Path, codec: str, bom: bytes, name: str) -> None:
    text = "héllo 🎉 wörld\r\nsecond line\r\nthird\r\n"
    make_tree(tmp_path, {"u16.txt": bom + text.encode(codec)})
    r = Workspace(tmp_path).read_file("u16.txt")
    assert r.kind == "text"
    assert texts(r) == ["héllo 🎉 wörld", "second line", "third"]
    assert r.encoding == name
    assert r.line_ending == "CRLF"
    assert r.total_lines == 3


def test_invalid_utf8_is_shown_lossily(tmp_path: Path) -> None:
    make_tree(tmp_path, {"latin1.txt": "naïve café\n".encode("latin-1") + b"plain\n"})
    r = Workspace(tmp_path).read_file("latin1.txt")
    assert texts(r) == ["na\ufffdve caf\ufffd", "plain"]
    assert r.encoding == "utf-8-lossy"


def test_empty_file(tmp_path: Path) -> None:
    make_tree(tmp_path, {"empty.py": b""})
    r = Workspace(tmp_path).read_file("empty.py")
    assert r.kind == "empty"
    assert r.lines == []
    assert r.total_lines == 0
    assert r.size_bytes == 0


# ---- binary files ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("logo.png", PNG, "PNG"),
        ("paper.pdf", PDF, "PDF"),
        ("a.out", ELF, "ELF"),
        ("bundle.zip", ZIP, "ZIP"),
    ],
)
def test_binary_files_are_not_dumped(
    tmp_path: Path, name: str, content: bytes, expected: str
) -> None:
    make_tree(tmp_path, {name: content})
    r = Workspace(tmp_path).read_file(name)
    assert r.kind == "binary"
    assert r.lines == []
    assert r.size_bytes == len(content)
    assert r.binary_type is not None and expected in r.binary_type


def test_unknown_binary_has_no_type_guess(tmp_path: Path) -> None:
    make_tree(tmp_path, {"data.bin": b"abc\x00def" * 10})
    r = Workspace(tmp_path).read_file("data.bin")
    assert r.kind == "binary"
    assert r.binary_type is None
    assert r.size_bytes == 70


def test_nul_after_the_first_8_kib_is_text(tmp_path: Path) -> None:
    make_tree(tmp_path, {"late.txt": b"x\n" * 5000 + b"\x00\n"})
    r = Workspace(tmp_path).read_file("late.txt", offset=5001)
    assert r.kind == "text"
    assert texts(r) == ["\x00"]


# ---- directories, special files, missing files ----------------------------------------------


def test_directory_is_refused_with_advice(tmp_path: Path) -> None:
    make_tree(tmp_path, {"src/a.py": "x\n"})
    with pytest.raises(IsADirectoryPathError) as info:
        Workspace(tmp_path).read_file("src")
    assert "glob" in model_text(info.value)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    ws = Workspace(tmp_path)
    outcome: dict[str, BaseException | object] = {}

    def attempt() -> None:
        try:
            outcome["result"] = ws.read_file("pipe")
        except BaseException as error:  # noqa: BLE001 - handed to the main thread
            outcome["error"] = error

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=10)
    if worker.is_alive():
        # Unblock the stuck open() so the process can exit, then fail.
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        pytest.fail("read_file blocked on a FIFO")
    assert isinstance(outcome.get("error"), SpecialFileError), outcome
    assert "FIFO" in str(outcome["error"])


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="needs unix sockets")
def test_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    if len(str(path)) > 100:
        pytest.skip("temporary path too long for a unix socket")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(SpecialFileError) as info:
            Workspace(tmp_path).read_file("s.sock")
        assert "socket" in str(info.value)


def test_missing_file_suggests_the_real_one(tmp_path: Path) -> None:
    make_tree(tmp_path, {"src/handlers/user_service.py": "x\n", "README.md": "# r\n"})
    ws = Workspace(tmp_path)
    with pytest.raises(PathNotFoundError) as info:
        ws.read_file("src/handlers/user_servcie.py")
    assert "src/handlers/user_service.py" in str(info.value)
    with pytest.raises(PathNotFoundError) as info:
        ws.read_file("readme.md")
    assert "README.md" in str(info.value)
    # The same file name in another directory.
    with pytest.raises(PathNotFoundError) as info:
        ws.read_file("src/user_service.py")
    assert "src/handlers/user_service.py" in str(info.value)


def test_missing_file_without_close_names_points_to_glob(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.txt": "x\n"})
    with pytest.raises(PathNotFoundError) as info:
        Workspace(tmp_path).read_file("totally/different/thing.rs")
    assert "glob" in model_text(info.value)


def test_suggestions_never_name_denied_files(tmp_path: Path) -> None:
    make_tree(tmp_path, {".env": "API_KEY=hunter2\n", "id_rsa": "secret\n"})
    ws = Workspace(tmp_path)
    for typo in (".enx", "id_rsb"):
        with pytest.raises(PathNotFoundError) as info:
            ws.read_file(typo)
        assert ".env" not in str(info.value).replace(typo, "")
        assert "id_rsa" not in str(info.value).replace(typo, "")


# ---- ignore and deny rules ------------------------------------------------------------------


def test_ignored_files_can_be_read_explicitly(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    make_tree(
        tmp_path,
        {
            ".gitignore": "build/\n*.log\n",
            ".ripsightignore": "vendor/\n",
            "build/gen.py": "generated = True\n",
            "debug.log": "boom\n",
            "vendor/lib.js": "var x;\n",
        },
    )
    ws = Workspace(tmp_path)
    assert texts(ws.read_file("build/gen.py")) == ["generated = True"]
    assert texts(ws.read_file("debug.log")) == ["boom"]
    assert texts(ws.read_file("vendor/lib.js")) == ["var x;"]


def test_denied_files_are_refused(tmp_path: Path) -> None:
    make_tree(tmp_path, {".env": "API_KEY=hunter2\n", "certs/server.pem": "-----BEGIN-----\n"})
    ws = Workspace(tmp_path)
    for path in (".env", "certs/server.pem"):
        with pytest.raises(DeniedError) as info:
            ws.read_file(path)
        assert "policy" in str(info.value)
        assert "hunter2" not in str(info.value)


def test_custom_deny_rules(tmp_path: Path) -> None:
    make_tree(tmp_path, {"secrets/prod.yaml": "password: x\n", "app.py": "x\n"})
    ws = Workspace(tmp_path, deny=["secrets/**"])
    with pytest.raises(DeniedError):
        ws.read_file("secrets/prod.yaml")
    assert texts(ws.read_file("app.py")) == ["x"]


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
    import json

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


# ---- against a reference model --------------------------------------------------------------


def model_lines(data: bytes) -> list[str]:
    """What read_file shows: split at \\n (one trailing \\r stripped) or, for text with \\r but no
    \\n at all, at \\r; decoded like bytes.decode("utf-8", "replace")."""
    if not data:
        return []
    if b"\n" not in data and b"\r" in data:
        parts = data.split(b"\r")
        if data.endswith(b"\r"):
            parts.pop()
        return [p.decode("utf-8", "replace") for p in parts]
    parts = data.split(b"\n")
    if data.endswith(b"\n"):
        parts.pop()
    return [(p[:-1] if p.endswith(b"\r") else p).decode("utf-8", "replace") for p in parts]


PIECES = [
    b"a",
    b"bc",
    b" ",
    b"\n",
    b"\n",
    b"\r\n",
    b"\r",
    "é".encode(),
    "中".encode(),
    "🎉".encode(),
    b"\xff",
    b"\xe2\x82",
    b"x" * 600,
]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    pieces=st.lists(st.sampled_from(PIECES), max_size=80),
    offset=st.integers(min_value=1, max_value=40),
    limit=st.integers(min_value=1, max_value=40),
)
def test_matches_the_reference_model(
    tmp_path: Path, pieces: list[bytes], offset: int, limit: int
) -> None:
    data = b"".join(pieces)
    if data[:1] in (b"\xff", b"\xfe", b"\xef"):  # keep byte-order marks out of this test
        data = b"a" + data
    (tmp_path / "m.txt").write_bytes(data)
    r = Workspace(tmp_path).read_file("m.txt", offset=offset, limit=limit)
    expected = model_lines(data)
    if not expected:
        assert r.kind == "empty"
        return
    assert r.total_lines == len(expected)
    window = expected[offset - 1 : offset - 1 + limit]
    assert [line.text for line in r.lines] == [line[:500] for line in window]
    assert [line.cut_from for line in r.lines] == [
        len(line) if len(line) > 500 else None for line in window
    ]
    assert [line.number for line in r.lines] == list(range(offset, offset + len(window)))
    more = bool(window) and offset - 1 + len(window) < len(expected)
    assert r.next_offset == (offset + len(window) if more else None)
    try:
        data.decode("utf-8")
        assert r.encoding == "utf-8"
    except UnicodeDecodeError:
        assert r.encoding == "utf-8-lossy"
