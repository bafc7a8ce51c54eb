"""Private-key blocks inside ordinary files: what the model is told by grep and read_file.

The engine's withholding itself is tested in rust_core/tests/keys.rs; here the sentences, and
that no byte of a key reaches the text or the structured result.
"""

from __future__ import annotations

import json

from _protocol_helpers import grep_result, read_result, rline
from ripsight import ToolCall, Workspace, default_registry
from ripsight.tools import format_grep, format_read

KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "QyNTUxOQAAACBHbWNlZSBzZWNyZXQga2V5IG1hdGVyaWFsIGhlcmUhAAAAAAAAAAAAAAAA\n"
    "-----END OPENSSH PRIVATE KEY-----\n"
)


def test_grep_says_what_it_withheld():
    text = format_grep(
        grep_result(
            total_matches=2,
            total_files=1,
            files_searched=3,
            withheld_key_blocks=1,
            withheld_key_lines=4,
            withheld_key_files=1,
        )
    )
    assert text.endswith(
        "Withheld: 4 lines of a private-key block in 1 file were not searched; the secrets "
        "policy never shows key material, so text inside it is neither matched nor counted."
    )


def test_grep_that_found_nothing_still_says_what_it_did_not_search():
    text = format_grep(
        grep_result(
            files_searched=3,
            withheld_key_blocks=3,
            withheld_key_lines=12,
            withheld_key_files=2,
        )
    )
    assert text.startswith('No matches for "TODO" (3 files searched).')
    assert "Withheld: 12 lines of 3 private-key blocks in 2 files were not searched" in text


def test_read_leaves_out_withheld_rows_and_names_them():
    withheld = (2, 3, 4, 7)
    lines = [rline(n, "" if n in withheld else f"line {n}") for n in range(1, 9)]
    text = format_read(read_result(lines=lines, total_lines=8, withheld_key_lines=list(withheld)))
    assert text == (
        "src/app.py: lines 1-8 of 8.\n"
        "Lines 2-4 and 7 are withheld: they hold a private key, which the secrets policy never "
        "shows.\n"
        "     1\tline 1\n"
        "     5\tline 5\n"
        "     6\tline 6\n"
        "     8\tline 8"
    )


def _run(reg, name: str, arguments: dict) -> tuple[str, str]:
    result = reg.execute(ToolCall(id="k", name=name, arguments=json.dumps(arguments)))
    engine = result.meta.get("engine_result")
    dumped = json.dumps(engine.to_dict()) if engine is not None else ""
    return result.content, dumped


def test_no_key_byte_reaches_the_model_or_the_structured_result(make_tree):
    root = make_tree(
        {
            "deploy/notes.txt": f"Use this key:\n{KEY}Then run deploy.\n",
            "tools/keys.py": f'KEY = """\n{KEY}"""\nprint(KEY)\n',
            "crlf.txt": ("top\n" + KEY + "bottom\n").replace("\n", "\r\n"),
        }
    )
    reg = default_registry(root)
    body = KEY.splitlines()[1:3]
    for name, arguments in [
        ("grep", {"pattern": "b3Blbn|QyNTUxOQ"}),
        ("grep", {"pattern": "PRIVATE KEY", "output_mode": "files_with_matches"}),
        ("grep", {"pattern": "key|Key|KEY", "context": 5}),
        ("grep", {"pattern": "(?s)BEGIN.*END", "multiline": True}),
        ("read_file", {"path": "deploy/notes.txt"}),
        ("read_file", {"path": "tools/keys.py", "offset": 3, "limit": 2}),
        ("read_file", {"path": "crlf.txt"}),
    ]:
        text, dumped = _run(reg, name, arguments)
        assert not any(line in text for line in body), (name, arguments, text)
        assert not any(line in dumped for line in body), (name, arguments)
        assert "PRIVATE KEY-----" not in text + dumped, (name, arguments)
    # Text inside a key is not found, and the answer says the key's lines were not searched.
    withheld = "Withheld: 12 lines of 3 private-key blocks in 3 files were not searched"
    text, _ = _run(reg, "grep", {"pattern": "b3Blbn"})
    assert text.startswith('No matches for "b3Blbn"') and withheld in text, text
    text, _ = _run(reg, "grep", {"pattern": "key", "case_insensitive": True, "context": 2})
    assert "tools/keys.py:1:KEY = " in text and withheld in text, text
    fresh = default_registry(root)
    text, _ = _run(fresh, "read_file", {"path": "tools/keys.py", "offset": 3, "limit": 2})
    assert text == (
        "tools/keys.py: lines 3-4 of 7.\n"
        "Lines 3-4 are withheld: they hold a private key, which the secrets policy never shows.\n"
        "More lines follow: call read_file with offset=5 to read on."
    )


def test_the_withheld_counts_are_the_same_for_every_pattern_cold_and_warm(make_tree):
    """The counts are the files' own: a pattern found nowhere, one found beside the keys and
    one the index proves absent from every file give the same counts, cold and warm (the
    index searches the files that may hold a key whatever the pattern)."""
    root = make_tree(
        {
            "deploy/notes.txt": f"Use this key:\n{KEY}Then run deploy.\n",
            "tools/keys.py": f'KEY = """\n{KEY}"""\nprint(KEY)\n',
            **{f"src/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(30)},
        }
    )
    patterns = ["b3BlbnNzaC1rZXkt", "deploy", "zzqqxxnothere", "return"]
    cold = Workspace(root)
    with Workspace(root, index=True) as warm:
        assert warm.wait_index(30)
        for pattern in patterns:
            for mode in ("content", "files_with_matches", "count", "files_without_match"):
                answers = [ws.grep(pattern, output_mode=mode) for ws in (cold, warm)]
                counts = [
                    (a.withheld_key_blocks, a.withheld_key_lines, a.withheld_key_files)
                    for a in answers
                ]
                assert counts == [(2, 8, 2)] * 2, (pattern, mode, counts)
        assert warm.index_status()["warm_calls"] > 0
