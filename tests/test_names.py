"""Names are data (SPEC §2.7): odd file names are shown quoted with escapes, the quoted form
passed back as `path` opens the same file, and the CLI writes no raw control bytes to a terminal."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import unicodedata
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ripsight import ToolCall, Workspace, default_registry
from ripsight.names import needs_quoting, quote_path, terminal_safe, unquote_path

ODD_NAMES = {
    "newline": "two\nlines.txt",
    "tab": "tab\there.txt",
    "line number": "a:12:b.txt",
    "leading space": " lead.txt",
    "trailing space": "trail.txt ",
    "escape sequence": "esc\x1b[31mred\x1b[0m.txt",
    "bidi override": "evil\u202etxt.exe",
    "quote": '"quoted".txt',
    "backslash": "back\\slash\\n.txt",
}
NON_UTF8 = b"bad\xffname\xc3.txt"

# Lone surrogates in the range surrogateescape uses, mixed into arbitrary text.
names = st.text(
    alphabet=st.one_of(st.characters(), st.sampled_from([chr(c) for c in range(0xDC80, 0xDD00)]))
)


@given(names)
def test_quote_round_trips(name: str) -> None:
    shown = quote_path(name)
    assert unquote_path(shown) == name
    if needs_quoting(name):
        assert shown.startswith('"') and shown.endswith('"')
        assert all(unicodedata.category(c) not in ("Cc", "Cf", "Cs", "Zl", "Zp") for c in shown), (
            shown
        )
        assert not re.search(r":\d", shown[1:-1].replace("\\\\", "")) or ":" in name
    else:
        assert shown == name


@given(st.text())
def test_terminal_safe_leaves_no_control_characters(text: str) -> None:
    safe = terminal_safe(text)
    assert all(c in "\n\t" or unicodedata.category(c) not in ("Cc", "Cf", "Cs") for c in safe)


def test_quoting_examples() -> None:
    assert quote_path("src/app.py") == "src/app.py"
    assert quote_path("日本語/ファイル.py") == "日本語/ファイル.py"
    assert quote_path("a:12:b.txt") == '"a:12:b.txt"'
    assert quote_path("a:b.txt") == "a:b.txt"
    assert quote_path("two\nlines") == '"two\\nlines"'
    assert quote_path(" x ") == '" x "'
    assert quote_path("esc\x1b[1m") == '"esc\\x1b[1m"'
    assert quote_path("nel\x85") == '"nel\\u0085"'
    assert quote_path(os.fsdecode(b"bad\xff")) == '"bad\\xff"'
    assert quote_path('"q"') == '"\\"q\\""'
    # Text that is not a valid quoted form is a name as it stands.
    for text in ['"a"b"', '"bad \\q escape"', '"', '"unterminated']:
        assert unquote_path(text) == text


def printed_paths(text: str) -> list[str]:
    """The path part of each `path:line:` line of grep output (quoted or not)."""
    found = []
    for line in text.splitlines():
        match = re.match(r'^("(?:[^"\\]|\\.)*"|[^"]*?):(\d+):', line)
        if match:
            found.append(match.group(1))
    return found


@pytest.fixture
def odd_tree(tmp_path: Path) -> Path:
    root = tmp_path / "names"
    root.mkdir()
    for label, name in ODD_NAMES.items():
        (root / name).write_text(f"hello {label}\n")
    return root


@pytest.mark.parametrize("label", sorted(ODD_NAMES))
def test_odd_names_are_listed_searched_and_read_back(odd_tree: Path, label: str) -> None:
    name = ODD_NAMES[label]
    reg = default_registry(odd_tree)
    shown = quote_path(name)
    assert (shown != name) is (label not in ("backslash",))

    listed = reg.execute(ToolCall("g", "glob", '{"pattern": "*"}')).content
    assert shown in listed.splitlines()[1:]
    assert len(listed.splitlines()) == 1 + len(ODD_NAMES), "one line per file"

    found = reg.execute(
        ToolCall("s", "grep", orjson.dumps({"pattern": f"hello {label}$"}).decode())
    ).content
    assert printed_paths(found) == [shown], found

    read = reg.execute(ToolCall("r", "read_file", orjson.dumps({"path": shown}).decode()))
    assert not read.is_error, read.content
    assert read.content.startswith(f"{shown}: line 1 of 1.")
    assert read.content.endswith(f"\thello {label}")
    # grep and glob scoped by the printed name work too.
    scoped = reg.execute(
        ToolCall("p", "grep", orjson.dumps({"pattern": "hello", "path": shown}).decode())
    )
    assert printed_paths(scoped.content) == [shown], scoped.content


def test_non_utf8_names_round_trip(tmp_path: Path) -> None:
    if sys.platform == "darwin":
        pytest.skip("APFS refuses names that are not UTF-8")
    root = tmp_path / "bytes"
    root.mkdir()
    with open(os.path.join(os.fsencode(root), NON_UTF8), "wb") as handle:
        handle.write(b"hello bytes\n")
    listed = Workspace(root).glob("*").paths
    assert listed == [os.fsdecode(NON_UTF8)], "typed results carry surrogateescape str paths"
    reg = default_registry(root)
    shown = quote_path(os.fsdecode(NON_UTF8))
    assert shown == '"bad\\xffname\\xc3.txt"'
    assert reg.execute(ToolCall("g", "glob", '{"pattern": "*"}')).content.endswith("\n" + shown)
    found = reg.execute(ToolCall("s", "grep", '{"pattern": "hello"}')).content
    assert printed_paths(found) == [shown]
    read = reg.execute(ToolCall("r", "read_file", orjson.dumps({"path": shown}).decode()))
    assert read.content == f"{shown}: line 1 of 1.\n     1\thello bytes"
    # The typed result's str opens the file from Python.
    with open(os.path.join(os.fsencode(root), os.fsencode(listed[0])), "rb") as handle:
        assert handle.read() == b"hello bytes\n"


# -- the CLI on a terminal -------------------------------------------------------------------


def run_on_pty(args: list[str], cwd: Path) -> bytes:
    """Runs `python -m ripsight ARGS` with stdout and stderr on a pseudo-terminal."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "ripsight", *args],
        cwd=cwd,
        stdout=follower,
        stderr=follower,
        stdin=subprocess.DEVNULL,
    )
    os.close(follower)
    out = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 30)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    process.wait(timeout=30)
    return out


def control_bytes(out: bytes) -> list[int]:
    text = out.decode("utf-8", "replace")
    return [ord(c) for c in text if c not in "\r\n\t" and unicodedata.category(c) in ("Cc", "Cf")]


@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX")
def test_cli_writes_no_raw_control_bytes_to_a_terminal(odd_tree: Path) -> None:
    (odd_tree / "colours.txt").write_text("red \x1b[31mALERT\x1b[0m \x07 bell \x1b]0;title\x07\n")
    outputs = {
        "glob": run_on_pty(["glob", "*", "--root", "."], odd_tree),
        "grep": run_on_pty(["grep", "hello|ALERT", "--root", "."], odd_tree),
        "read": run_on_pty(["read", "colours.txt", "--root", "."], odd_tree),
        "read odd": run_on_pty(
            ["read", quote_path(ODD_NAMES["escape sequence"]), "--root", "."], odd_tree
        ),
        "error": run_on_pty(["read", "missing\x1b[2J.txt", "--root", "."], odd_tree),
    }
    for what, out in outputs.items():
        assert out, what
        assert control_bytes(out) == [], (what, out)
    assert b"\\x1b[31mALERT\\x1b[0m" in outputs["read"]
    assert b'"esc\\x1b[31mred\\x1b[0m.txt"' in outputs["glob"]
    assert b"hello escape sequence" in outputs["read odd"]


def test_cli_output_to_a_pipe_is_unchanged(odd_tree: Path) -> None:
    (odd_tree / "colours.txt").write_text("red \x1b[31mALERT\x1b[0m\n")
    out = subprocess.run(
        [sys.executable, "-m", "ripsight", "read", "colours.txt"],
        cwd=odd_tree,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout
    assert b"\x1b[31mALERT" in out


def test_cli_json_carries_non_utf8_names_as_escapes() -> None:
    import json

    from ripsight.cli.output import json_text

    value = {"paths": [os.fsdecode(NON_UTF8), "plain.txt"], "total": 2}
    text = json_text(value)
    text.encode("utf-8")  # valid UTF-8 on the wire
    assert json.loads(text) == value
    assert os.fsencode(json.loads(text)["paths"][0]) == NON_UTF8
    assert json_text({"a": "b"}) == '{"a":"b"}'
