"""The exact text a model sees for each tool result (snapshot-style: a change shows in review)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from _protocol_helpers import (
    FakeWorkspace,
    gline,
    glob_result,
    grep_result,
    read_result,
    registry_with,
    rline,
    skips,
)
from ripsight import ToolCall, default_registry
from ripsight.tools import format_glob, format_grep, format_read

# -- glob ----------------------------------------------------------------------------------------


def test_glob_all_shown():
    text = format_glob(glob_result(paths=["src/a.py", "src/b.py"], total=2))
    assert text == '2 files match "**/*.py" in the workspace root:\nsrc/a.py\nsrc/b.py'


def test_glob_page_with_next_offset():
    text = format_glob(
        glob_result(
            pattern="**/*.rs",
            paths=["a.rs", "b.rs", "c.rs"],
            total=1234,
            offset=200,
            withheld=1031,
            searched="crates",
        )
    )
    assert text == (
        '1,234 files match "**/*.rs" under crates; showing 201-203:\n'
        "a.rs\nb.rs\nc.rs\n"
        "1,031 more not shown: call glob again with offset=203 for the next page."
    )


def test_glob_anywhere_hint_with_few_results():
    text = format_glob(
        glob_result(
            pattern="*.py",
            paths=["setup.py"],
            total=1,
            anywhere_pattern="**/*.py",
            anywhere_total=1234,
        )
    )
    assert text == (
        '1 file matches "*.py" in the workspace root:\n'
        "setup.py\n"
        'Note: "*" never crosses "/", so "*.py" only matches at the top level of the workspace '
        'root; "**/*.py" matches 1,234 files at any depth.'
    )


def test_glob_empty_says_how_many_files_the_directory_holds():
    text = format_glob(
        glob_result(
            pattern="*.py",
            files_in_scope=57,
            anywhere_pattern="**/*.py",
            anywhere_total=40,
            skipped=skips(ignored=12, denied=2),
        )
    )
    assert text == (
        'No files match "*.py" in the workspace root, which holds 57 files.\n'
        'Note: "*" never crosses "/", so "*.py" only matches at the top level of the workspace '
        'root; "**/*.py" matches 40 files at any depth.\n'
        "Skipped: 2 files denied by the secrets policy, 12 directories skipped by name "
        "(excluded directories: version control, dependencies, build output)."
    )


def test_glob_empty_directory():
    text = format_glob(glob_result(pattern="*.go", files_in_scope=0, searched="empty"))
    assert text == 'No files match "*.go" under empty, which holds no files.'


def test_glob_incomplete_and_skips_and_mtime_order():
    text = format_glob(
        glob_result(
            paths=["x.py"],
            total=1,
            incomplete=True,
            skipped=skips(unreadable=1, outside_root=2, ignored=9),
        ),
        sort="mtime",
    )
    assert text == (
        '1 file matches "**/*.py" in the workspace root (newest first):\n'
        "x.py\n"
        "Incomplete: the time budget ran out before the walk finished, so the list and the total "
        "cover only part of the workspace root. Narrow the search with a more specific pattern "
        "or path.\n"
        "Skipped: 1 unreadable entry, 2 symlinks pointing outside the root."
    )


def test_glob_offset_past_the_end():
    text = format_glob(glob_result(paths=[], total=10, offset=50))
    assert text == (
        '10 files match "**/*.py" in the workspace root, but offset=50 is past the '
        "end; use an offset below 10."
    )


# -- grep ----------------------------------------------------------------------------------------

LINES = [
    gline("src/a.py", 3, "import os", False),
    gline("src/a.py", 4, "# TODO: fix"),
    gline("src/a.py", 5, "x = 1", False),
    gline("src/a.py", 9, "# TODO later"),
    gline("src/b.py", 1, "# TODO b"),
]


def test_grep_content_with_context_and_separators():
    text = format_grep(
        grep_result(lines=LINES, total_matches=3, total_files=2, files_searched=40), context=1
    )
    assert text == (
        '3 matches in 2 files for "TODO" (40 files searched):\n'
        "src/a.py-3-import os\n"
        "src/a.py:4:# TODO: fix\n"
        "src/a.py-5-x = 1\n"
        "--\n"
        "src/a.py:9:# TODO later\n"
        "--\n"
        "src/b.py:1:# TODO b"
    )


def test_grep_content_without_context_has_no_separators():
    matches = [line for line in LINES if line.is_match]
    text = format_grep(
        grep_result(lines=matches, total_matches=3, total_files=2, files_searched=40)
    )
    assert text == (
        '3 matches in 2 files for "TODO" (40 files searched):\n'
        "src/a.py:4:# TODO: fix\nsrc/a.py:9:# TODO later\nsrc/b.py:1:# TODO b"
    )


def test_grep_whose_only_candidates_were_skipped_does_not_blame_path_and_glob():
    text = format_grep(
        grep_result(pattern="x", files_searched=0, skipped=skips(line_too_long=1)),
        path="min.js",
    )
    assert text == (
        'No matches for "x" under min.js (0 files searched). Every file in scope was skipped '
        "(see below). The search is case-sensitive; pass case_insensitive=true to ignore case.\n"
        "Skipped: 1 file with a line too long to search."
    )


def test_grep_repeats_at_most_200_characters_of_a_long_pattern():
    pattern = "(a|b)" * 200_000
    for result in (
        grep_result(pattern=pattern, files_searched=3),
        grep_result(pattern=pattern, lines=[gline("a", 1, "ab")], total_matches=1, total_files=1),
    ):
        first = format_grep(result).splitlines()[0]
        assert f'"{pattern[:200]}…" (1,000,000 characters)' in first
        assert len(first) < 400


def test_grep_page_scope_cut_lines_and_skips():
    text = format_grep(
        grep_result(
            pattern=r"fn \w+",
            lines=[gline("a.rs", 1, "fn a()"), gline("a.rs", 2, "y" * 120, cut=True)],
            total_matches=120,
            total_files=30,
            offset=50,
            withheld=68,
            files_searched=1000,
            skipped=skips(binary=3, denied=1, ignored=4),
        ),
        path="crates",
        glob="*.rs",
    )
    assert text == (
        '120 matches in 30 files for "fn \\w+" under crates in files matching "*.rs" '
        "(1,000 files searched); showing matches 51-52:\n"
        "a.rs:1:fn a()\n"
        f"a.rs:2:{'y' * 120}\n"
        "68 more matches not shown: call grep again with offset=52 for the next page, or narrow "
        "the search with path or glob.\n"
        "1 line longer than 120 characters is shown in part (around the match); read_file shows "
        "up to 500 characters per line.\n"
        "Skipped: 3 binary files, 1 file denied by the secrets policy."
    )


def test_grep_no_matches():
    text = format_grep(
        grep_result(pattern="Foo", files_searched=12, skipped=skips(binary=2, ignored=5))
    )
    assert text == (
        'No matches for "Foo" (12 files searched). The search is case-sensitive; pass '
        "case_insensitive=true to ignore case.\n"
        "Skipped: 2 binary files, 5 directories skipped by name (excluded directories: "
        "version control, dependencies, build output)."
    )
    assert format_grep(grep_result(pattern="Foo", files_searched=12), case_insensitive=True) == (
        'No matches for "Foo" (12 files searched).'
    )
    assert format_grep(grep_result(pattern="42", files_searched=0), glob="*.zig") == (
        'No matches for "42" in files matching "*.zig" (0 files searched). No file was '
        "searched: check path and glob."
    )


def test_grep_files_with_matches_and_count():
    files = [SimpleNamespace(path="a.py", count=2), SimpleNamespace(path="b.py", count=1)]
    text = format_grep(
        grep_result(
            output_mode="files_with_matches",
            files=files,
            total_matches=3,
            total_files=2,
            files_searched=9,
        )
    )
    assert text == '2 files match "TODO" (3 matching lines, 9 files searched):\na.py\nb.py'
    text = format_grep(
        grep_result(
            output_mode="count",
            files=files[:1],
            total_matches=3,
            total_files=2,
            files_searched=9,
            withheld=1,
        )
    )
    assert text == (
        '2 files match "TODO" (3 matching lines, 9 files searched); showing counts 1-1:\n'
        "a.py:2\n"
        "1 more file not shown: call grep again with offset=1 for the next page."
    )


def test_grep_incomplete():
    text = format_grep(
        grep_result(
            lines=LINES[:2], total_matches=1, total_files=1, files_searched=4000, incomplete=True
        ),
        context=1,
    )
    assert text == (
        '1 match in 1 file for "TODO" (4,000 files searched):\n'
        "src/a.py-3-import os\n"
        "src/a.py:4:# TODO: fix\n"
        "Incomplete: the time budget ran out after 4,000 files searched, so there may be more "
        "matches and the totals are lower bounds. Narrow the search with path or glob."
    )


def test_grep_offset_past_the_end():
    text = format_grep(grep_result(total_matches=3, total_files=2, files_searched=40, offset=10))
    assert text == (
        '3 matches in 2 files for "TODO" (40 files searched), but offset=10 is past '
        "the end; use an offset below 3."
    )


# -- read_file -----------------------------------------------------------------------------------


def test_read_whole_file_cat_n_style():
    text = format_read(
        read_result(
            lines=[rline(1, "import os"), rline(2, ""), rline(3, "def main():")], total_lines=3
        )
    )
    assert text == "src/app.py: lines 1-3 of 3.\n     1\timport os\n     2\t\n     3\tdef main():"


def test_read_page_with_encoding_cut_line_and_next_offset():
    text = format_read(
        read_result(
            lines=[rline(399, "a"), rline(400, "b" * 500, cut_from=12345)],
            offset=399,
            total_lines=1234,
            next_offset=401,
            encoding="utf-16le",
            line_ending="CRLF",
        )
    )
    assert text == (
        "src/app.py: lines 399-400 of 1,234.\n"
        "Encoding: UTF-16LE (with BOM). Line endings: CRLF.\n"
        "   399\ta\n"
        f"   400\t{'b' * 500} [... line cut at 500 of 12,345 characters]\n"
        "More lines follow: call read_file with offset=401 to read on."
    )


def test_read_estimated_total_and_wide_numbers():
    text = format_read(
        read_result(
            lines=[rline(40_000_000, "log line")],
            offset=40_000_000,
            total_lines=52_000_000,
            total_lines_estimated=True,
            next_offset=40_000_001,
        )
    )
    assert text == (
        "src/app.py: line 40,000,000 of about 52,000,000 (estimated from the file size).\n"
        "40000000\tlog line\n"
        "More lines follow: call read_file with offset=40000001 to read on."
    )


def test_read_offset_past_the_end():
    assert format_read(read_result(offset=500, total_lines=120)) == (
        "src/app.py: offset 500 is past the end: the file has 120 lines. Call read_file with an "
        "offset from 1 to 120."
    )


def test_read_empty_and_binary():
    assert format_read(read_result(kind="empty", size_bytes=0, path="empty.txt")) == (
        "empty.txt is empty (0 bytes)."
    )
    assert format_read(
        read_result(kind="binary", binary_type="PNG image", size_bytes=123456, path="logo.png")
    ) == (
        "logo.png is a binary file (PNG image, 120.6 KiB, 123,456 bytes); its content is not "
        "shown. Use grep or glob to find related text files."
    )
    assert format_read(read_result(kind="binary", size_bytes=512, path="data.bin")) == (
        "data.bin is a binary file (512 bytes); its content is not shown. Use grep or glob to "
        "find related text files."
    )


@pytest.mark.parametrize(
    ("encoding", "ending", "detail"),
    [
        ("utf-8", "LF", None),
        ("utf-8", "none", None),
        ("utf-8-bom", "LF", "Encoding: UTF-8 with BOM."),
        ("utf-8", "CRLF", "Line endings: CRLF."),
        (
            "utf-8-lossy",
            "mixed",
            (
                "Encoding: not valid UTF-8; invalid bytes are shown as U+FFFD. Line endings: mixed "
                "(LF and CRLF)."
            ),
        ),
        ("utf-16be", "CR", "Encoding: UTF-16BE (with BOM). Line endings: CR."),
    ],
)
def test_read_names_encoding_and_line_endings_only_when_not_plain(encoding, ending, detail):
    text = format_read(
        read_result(lines=[rline(1, "x")], total_lines=1, encoding=encoding, line_ending=ending)
    )
    expected = ["src/app.py: line 1 of 1."] + ([detail] if detail else []) + ["     1\tx"]
    assert text == "\n".join(expected)


def test_handlers_pass_arguments_through(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    fake = FakeWorkspace(tmp_path)
    reg = registry_with(fake)
    reg.execute(
        ToolCall(
            "c1",
            "grep",
            '{"pattern": "x", "glob": "*.py", "context": 2, '
            '"output_mode": "count", "limit": 5, "offset": 1}',
        )
    )
    assert fake.calls[-1] == (
        "grep",
        ("x",),
        {
            "path": None,
            "glob": "*.py",
            "literal": False,
            "case_insensitive": False,
            "context": 2,
            "before_context": None,
            "after_context": None,
            "multiline": False,
            "output_mode": "count",
            "limit": 5,
            "offset": 1,
            "max_line_chars": 120,
            "cancel": None,
            "type": None,
            "type_not": None,
            "max_count": None,
            "invert_match": False,
            "max_depth": None,
            "include_ignored": False,
        },
    )
    result = reg.execute(ToolCall("c2", "read_file", '{"path": "a.py"}'))
    assert result.content == "a.py: line 1 of 1.\n     1\tx = 1"


# -- the real engine: the same texts end to end -------------------------------------------------


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("import os\n\n\ndef main():\n    return 1  # TODO\n")
    (tmp_path / "src" / "util.py").write_text("# TODO: more\n")
    (tmp_path / "setup.py").write_text("# setup\n")
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 64)
    (tmp_path / ".env").write_text("TODO=secret\n")
    (tmp_path / "crlf.txt").write_bytes(b"a\r\nb\r\n")
    (tmp_path / "long.txt").write_text("y" * 700 + " TODO\n")
    return tmp_path


def content(reg, name: str, arguments: str) -> str:
    result = reg.execute(ToolCall("c", name, arguments))
    assert not result.is_error, result.content
    return result.content


def test_real_glob_text(repo):
    reg = default_registry(repo)
    assert content(reg, "glob", '{"pattern": "**/*.py"}') == (
        '3 files match "**/*.py" in the workspace root:\nsetup.py\nsrc/app.py\nsrc/util.py\n'
        "Skipped: 1 file denied by the secrets policy."
    )
    assert content(reg, "glob", '{"pattern": "*.py"}') == (
        '1 file matches "*.py" in the workspace root:\nsetup.py\n'
        'Note: "*" never crosses "/", so "*.py" only matches at the top level of the workspace '
        'root; "**/*.py" matches 3 files at any depth.\n'
        "Skipped: 1 file denied by the secrets policy."
    )
    assert content(reg, "glob", '{"pattern": "*.go"}') == (
        'No files match "*.go" in the workspace root, which holds 7 files.\n'
        "Skipped: 1 file denied by the secrets policy."
    )
    assert content(reg, "glob", '{"pattern": "**/*.py", "limit": 1, "offset": 1}') == (
        '3 files match "**/*.py" in the workspace root; showing 2-2:\nsrc/app.py\n'
        "1 more not shown: call glob again with offset=2 for the next page.\n"
        "Skipped: 1 file denied by the secrets policy."
    )


def test_real_grep_text(repo):
    reg = default_registry(repo)
    lines = content(reg, "grep", '{"pattern": "TODO"}').splitlines()
    assert lines[0] == '3 matches in 3 files for "TODO" (6 files searched):'
    assert lines[1].startswith("long.txt:1:") and lines[1].endswith(" TODO")
    assert lines[2:] == [
        "src/app.py:5:    return 1  # TODO",
        "src/util.py:1:# TODO: more",
        (
            "1 line longer than 120 characters is shown in part (around the match); read_file "
            "shows up to 500 characters per line."
        ),
        "Skipped: 1 binary file, 1 file denied by the secrets policy.",
    ]
    assert content(reg, "grep", '{"pattern": "def main", "context": 1}') == (
        '1 match in 1 file for "def main" (6 files searched):\n'
        "src/app.py-3-\nsrc/app.py:4:def main():\nsrc/app.py-5-    return 1  # TODO\n"
        "Skipped: 1 binary file, 1 file denied by the secrets policy."
    )


def test_real_read_text(repo):
    reg = default_registry(repo)
    page = (
        "src/app.py: lines 1-2 of 5.\n     1\timport os\n     2\t\n"
        "More lines follow: call read_file with offset=3 to read on.\n"
    )
    # An explicit range that stops before the end: one line about the file's outline.
    assert content(reg, "read_file", '{"path": "src/app.py", "limit": 2}') == page + (
        'Outline: 1 definition (call outline with path="src/app.py" for its line).'
    )
    # outline=true shows the outline itself (as a default read of a long file does), false
    # nothing of it (new registries: a range read again is "already shown").
    assert content(
        default_registry(repo),
        "read_file",
        '{"path": "src/app.py", "limit": 2, "offset": 1, "outline": true}',
    ) == page + (
        "Outline (1 definition; line, kind, name; call outline for line ranges):\n"
        "     4  function main"
    )
    fresh = default_registry(repo)
    assert content(fresh, "read_file", '{"path": "src/app.py", "limit": 2, "outline": false}') == (
        page.rstrip("\n")
    )
    assert content(reg, "read_file", '{"path": "crlf.txt"}') == (
        "crlf.txt: lines 1-2 of 2.\nLine endings: CRLF.\n     1\ta\n     2\tb"
    )
    assert content(reg, "read_file", '{"path": "empty.txt"}') == "empty.txt is empty (0 bytes)."
    # A .png goes to the image reader; this one's header is corrupt (a CRC of zero).
    corrupt = reg.execute(ToolCall("c", "read_file", '{"path": "logo.png"}'))
    assert corrupt.is_error and corrupt.meta["code"] == "undecodable"
    assert corrupt.content.startswith("logo.png cannot be shown as an image:")
    assert content(reg, "read_file", '{"path": "long.txt"}').endswith(
        " [... line cut at 500 of 705 characters]"
    )
    assert content(reg, "read_file", '{"path": "src/app.py", "offset": 50}') == (
        "src/app.py: offset 50 is past the end: the file has 5 lines. Call read_file with an "
        "offset from 1 to 5."
    )
    again = reg.execute(ToolCall("c2", "read_file", '{"path": "src/app.py", "limit": 2}'))
    assert again.content.startswith(
        "Already shown: src/app.py lines 1-2 are part of the result "
        "of your earlier read_file call (id c)"
    )


def test_real_errors(repo):
    reg = default_registry(repo)
    denied = reg.execute(ToolCall("c", "read_file", '{"path": ".env"}'))
    assert denied.is_error and denied.meta["error_type"] == "denied"
    missing = reg.execute(ToolCall("c", "read_file", '{"path": "src/ap.py"}'))
    assert missing.meta["error_type"] == "not_found"
    assert missing.content == "src/ap.py does not exist. Did you mean: src/app.py?"
    bad = reg.execute(ToolCall("c", "grep", '{"pattern": "("}'))
    assert bad.is_error and bad.meta["error_type"] == "invalid_pattern"
