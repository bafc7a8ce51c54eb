"""Outputs by reference: a result over the budget keeps head and tail, is stored whole under a
``ref_`` reference, and `read_result` pages it back exactly; references are per session, expire
and are evicted oldest first. Also: repeated grep/glob calls on an unchanged revision."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from _protocol_helpers import FakeWorkspace, registry_with
from ripsight import Registry, Session, ToolCall, ToolResult, ToolSpec, default_registry
from ripsight.session import ReferenceStore
from ripsight.tools import builtin_tools
from ripsight.tools.read_result import UNKNOWN_REFERENCE

EMPTY: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
REF = re.compile(r"ref_[0-9a-f]{20}")


def big_text(chars: int, seed: int = 7) -> str:
    """Lines of random length (some far longer than a row), ending without a newline."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    while size < chars:
        n = rng.choice([0, 1, 5, 40, 120, 900, 5000])
        line = "".join(rng.choice("abcdefghij é漢😀\t") for _ in range(n))
        parts.append(line)
        size += len(line) + 1
    return "\n".join(parts)[:chars]


def registry_returning(text: str, **kwargs: Any) -> Registry:
    reg = Registry(**kwargs)
    for spec in builtin_tools():
        reg.register(spec)
    reg.register(ToolSpec("dump", "", EMPTY, lambda c, a: text))
    return reg


def page(reg: Registry, ref: str, offset: int, call_id: str = "p") -> ToolResult:
    args = orjson.dumps({"ref": ref, "offset": offset}).decode()
    return reg.execute(ToolCall(call_id, "read_result", args))


def read_back(reg: Registry, ref: str) -> str:
    """The stored result, rebuilt from read_result pages (the text after each header line)."""
    parts: list[str] = []
    offset: int | None = 1
    pages = 0
    while offset is not None:
        result = page(reg, ref, offset, f"p{pages}")
        assert not result.is_error, result.content
        assert len(result.content) <= reg.max_result_chars
        assert not result.meta["truncated"]
        header, _, rest = result.content.partition("\n")
        assert header.startswith(f"{ref}: lines {result.meta['first']:,}-")
        parts.append(rest[: result.meta["page_chars"]])
        offset = result.meta["next_offset"]
        if offset is not None:
            assert f'call read_result with ref="{ref}" and offset={offset}.' in result.content
        pages += 1
    return "".join(parts)


@pytest.mark.parametrize("ending", ["", "\n"])
def test_200000_characters_round_trip_exactly(ending: str) -> None:
    text = big_text(200_000) + ending
    reg = registry_returning(text)
    result = reg.execute(ToolCall("c1", "dump", "{}"))
    assert len(result.content) <= 8000 and result.meta["truncated"]
    assert result.meta["code"] == "truncated" and not result.is_error
    ref = result.meta["ref"]
    assert REF.fullmatch(ref) and ref in result.content
    note = re.search(
        r"\[\.\.\. ([\d,]+) of 200,00\d characters cut from the middle \(the result's "
        r"lines ([\d,]+)-([\d,]+) of ([\d,]+)\)\. The whole result is stored as " + ref,
        result.content,
    )
    assert note, result.content[4000:5000]
    head, tail = (
        result.content[: note.start()],
        result.content[result.content.index("...]\n") + 5 :],
    )
    assert text.startswith(head.rstrip("\n")) and text.endswith(tail)
    assert len(head) > 3000 and len(tail) > 2000
    assert read_back(reg, ref) == text
    # The offset named in the note reads the first cut line.
    first_cut = int(note.group(2).replace(",", ""))
    assert page(reg, ref, first_cut).meta["first"] == first_cut


def test_a_real_grep_result_is_stored_and_paged(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("".join(f"match {i} {'z' * 60}\n" for i in range(400)))
    reg = default_registry(tmp_path)
    result = reg.execute(ToolCall("g", "grep", '{"pattern": "match", "limit": 400}'))
    ref = result.meta["ref"]
    whole = read_back(reg, ref)
    assert whole.startswith("400 matches in 1 file")
    assert all(f"a.txt:{i + 1}:match {i} " in whole for i in range(400))


def test_unknown_references_all_answer_alike() -> None:
    now = [0.0]
    text = big_text(30_000)
    a = registry_returning(text, session=Session(reference_ttl=60, clock=lambda: now[0]))
    b = registry_returning(text)
    ref = a.execute(ToolCall("c1", "dump", "{}")).meta["ref"]
    ref_b = b.execute(ToolCall("c1", "dump", "{}")).meta["ref"]
    assert ref != ref_b, "the same text gets a different reference in another session"
    assert not page(a, ref, 1).is_error

    answers = [page(b, ref, 1), page(a, "ref_" + "0" * 20, 1), page(a, "nonsense", 1)]
    now[0] = 61.0
    answers.append(page(a, ref, 1))  # expired
    for answer in answers:
        assert answer.content == UNKNOWN_REFERENCE
        assert answer.is_error and answer.meta["code"] == "unknown_ref"
    assert ref not in UNKNOWN_REFERENCE


def test_the_same_text_twice_is_one_entry() -> None:
    text = big_text(20_000)
    reg = registry_returning(text)
    first = reg.execute(ToolCall("c1", "dump", "{}"))
    second = reg.execute(ToolCall("c2", "dump", "{}"))
    assert first.meta["ref"] == second.meta["ref"]
    assert len(reg.session.references) == 1


def test_the_cap_evicts_oldest_first() -> None:
    store = ReferenceStore(max_bytes=30_000, ttl=100)
    refs = [store.put(str(i) * 10_000) for i in range(3)]
    assert all(r is not None for r in refs) and len(store) == 3
    fourth = store.put("x" * 12_000)
    assert fourth is not None
    assert store.get(refs[0]) is None and store.get(refs[1]) is None  # two had to go
    assert store.get(refs[2]) is not None and store.get(fourth) is not None
    assert store.size_bytes == 22_000
    # Storing an entry again makes it the youngest.
    store.put("2" * 10_000)
    store.put("y" * 8_001)
    assert store.get(refs[2]) is not None and store.get(fourth) is None
    # A text larger than the whole cap is not stored (the result is cut as before).
    assert store.put("z" * 30_001) is None


def test_cap_counts_utf8_bytes() -> None:
    store = ReferenceStore(max_bytes=10, ttl=100)
    assert store.put("é" * 5) is not None and store.size_bytes == 10
    assert store.put("é" * 6) is None


def test_without_read_result_the_middle_is_cut_with_no_reference() -> None:
    reg = Registry()
    reg.register(ToolSpec("dump", "", EMPTY, lambda c, a: "A" * 10_000 + "Z" * 10_000))
    result = reg.execute(ToolCall("c1", "dump", "{}"))
    assert result.meta["truncated"] and "ref" not in result.meta
    assert not REF.search(result.content)


def test_reset_session_forgets_references() -> None:
    reg = registry_returning(big_text(20_000))
    ref = reg.execute(ToolCall("c1", "dump", "{}")).meta["ref"]
    reg.reset_session()
    assert page(reg, ref, 1).content == UNKNOWN_REFERENCE


def test_read_result_past_the_end_and_paging_limits() -> None:
    text = "\n".join(f"line {i}" for i in range(3000))
    reg = registry_returning(text)
    ref = reg.execute(ToolCall("c1", "dump", "{}")).meta["ref"]
    past = page(reg, ref, 5000)
    assert past.content == (
        f"{ref} has 3,000 lines; offset 5,000 is past the end. Call "
        "read_result with an offset from 1 to 3,000."
    )
    assert past.meta["code"] == "past_end" and not past.is_error
    limited = reg.execute(
        ToolCall("c2", "read_result", orjson.dumps({"ref": ref, "offset": 10, "limit": 3}).decode())
    )
    assert limited.content == (
        f"{ref}: lines 10-12 of the original result's 3,000 lines, counted from its first "
        f"line ({len(text):,} characters in all).\n"
        "line 9\nline 10\nline 11\nMore lines follow: call read_result "
        f'with ref="{ref}" and offset=13.'
    )


def test_page_header_counts_the_original_results_lines_and_says_so() -> None:
    # A read_file result: its first line is the tool's header, so the result's line 168 holds
    # the file's line 167, and the header must not pass for the file's numbering.
    lines = "".join(f"{n:>6}\tvalue_{n}\n" for n in range(1, 3001))
    reg = registry_returning(f"big.py: lines 1-3000 of 3000.\n{lines}")
    ref = reg.execute(ToolCall("c1", "dump", "{}")).meta["ref"]
    result = reg.execute(
        ToolCall(
            "c2", "read_result", orjson.dumps({"ref": ref, "offset": 168, "limit": 3}).decode()
        )
    )
    header, first, *_ = result.content.split("\n")
    assert header.startswith(
        f"{ref}: lines 168-170 of the original result's 3,001 lines, counted from its first line ("
    )
    assert first == "   167\tvalue_167"


def test_a_page_of_a_cut_read_names_the_file_lines_it_shows(tmp_path: Path) -> None:
    """A page headed `lines 168-170` once showed the file's lines 167-169. A real
    read_file with an offset and a limit, cut and stored, paged with an offset and a limit: the
    header's count of the result's lines matches the lines shown, and the file's line numbers
    it names are those the lines carry, each line the file's line of that number."""
    (tmp_path / "big.py").write_text("".join(f"value_{n} = {n}\n" for n in range(1, 3001)))
    reg = default_registry(tmp_path)
    read = reg.execute(
        ToolCall(
            "c1",
            "read_file",
            orjson.dumps({"path": "big.py", "offset": 100, "limit": 2000}).decode(),
        )
    )
    assert not read.is_error, read.content
    ref = read.meta["ref"]
    for offset, limit in ((168, 3), (2, 1), (1500, 40)):
        args = orjson.dumps({"ref": ref, "offset": offset, "limit": limit}).decode()
        result = reg.execute(ToolCall(f"p{offset}", "read_result", args))
        header, *shown = result.content.split("\n")
        shown = [line for line in shown if line and not line.startswith("More lines follow")]
        counted = f"{ref}: lines {offset:,}-{offset + limit - 1:,} of the original result's "
        assert header.startswith(counted), header
        assert len(shown) == limit, result.content
        numbers = [int(line.split("\t", 1)[0]) for line in shown]
        assert numbers == list(range(numbers[0], numbers[0] + limit)), shown
        own = f"the numbers in them are the file's own, lines {numbers[0]:,}-{numbers[-1]:,}."
        assert header.endswith(own), header
        assert [line.split("\t", 1)[1] for line in shown] == [f"value_{n} = {n}" for n in numbers]
        # The result's first line is the tool's header: its line k holds the file's line
        # 100 + k - 2 (the read started at line 100).
        assert numbers[0] == 100 + offset - 2, (offset, numbers)


# -- repeated calls on an unchanged revision ------------------------------------------------


class RevisionWorkspace(FakeWorkspace):
    """A stand-in with a tree revision, as `Workspace(root, index=True)` reports one."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.revision = 1
        self.bump_during_call = False

    def grep(self, pattern: str, **kwargs: Any) -> Any:
        result = super().grep(pattern, **kwargs)
        if self.bump_during_call:
            self.revision += 1
        return result


def calls_of(fake: FakeWorkspace, name: str) -> int:
    return sum(1 for call in fake.calls if call[0] == name)


def test_a_repeated_grep_on_an_unchanged_revision_is_same_as_the_earlier_call(
    tmp_path: Path,
) -> None:
    fake = RevisionWorkspace(tmp_path)
    reg = registry_with(fake)
    first = reg.execute(ToolCall("c1", "grep", '{"pattern": "x"}'))
    again = reg.execute(ToolCall("c2", "grep", '{"limit": 50, "pattern": "x"}'))
    assert again.content == (
        "Same as call c1: the files have not changed since that call, so grep with these "
        "arguments gives the same result, which is not repeated. Use that result, or call grep "
        "with other arguments."
    )
    assert again.meta["code"] == "same_as" and not again.is_error
    assert calls_of(fake, "grep") == 1
    assert first.meta["code"] == "ok"
    other = reg.execute(ToolCall("c3", "grep", '{"pattern": "y"}'))
    assert "Same as" not in other.content
    fake.revision = 2
    fresh = reg.execute(ToolCall("c4", "grep", '{"pattern": "x"}'))
    assert "Same as" not in fresh.content and calls_of(fake, "grep") == 3
    assert "Same as call c4" in reg.execute(ToolCall("c5", "grep", '{"pattern": "x"}')).content
    # glob too, independently of grep.
    reg.execute(ToolCall("g1", "glob", '{"pattern": "x"}'))
    assert "Same as call g1" in reg.execute(ToolCall("g2", "glob", '{"pattern": "x"}')).content
    records = [r for r in reg.log.records() if r["code"] == "same_as"]
    assert [(r["status"], r["outcome"]) for r in records] == [("done", "success")] * 3


def test_no_revision_no_same_as(tmp_path: Path) -> None:
    fake = FakeWorkspace(tmp_path)  # no revision: the index is off
    reg = registry_with(fake)
    for i in range(3):
        assert "Same as" not in reg.execute(ToolCall(f"c{i}", "grep", '{"pattern": "x"}')).content
    assert calls_of(fake, "grep") == 3


def test_a_registry_that_forgets_between_calls_answers_every_repeat_in_full(
    tmp_path: Path,
) -> None:
    # The MCP server's setting, kept across reset_session.
    fake = RevisionWorkspace(tmp_path)
    reg = registry_with(fake)
    reg.forget_between_calls()
    for session in range(2):
        for i in range(3):
            answer = reg.execute(ToolCall(f"c{session}{i}", "grep", '{"pattern": "x"}'))
            assert "Same as" not in answer.content and answer.meta["code"] == "ok"
        reg.reset_session()
    assert calls_of(fake, "grep") == 6


def test_a_tree_changing_during_the_call_is_not_remembered(tmp_path: Path) -> None:
    fake = RevisionWorkspace(tmp_path)
    fake.bump_during_call = True
    reg = registry_with(fake)
    reg.execute(ToolCall("c1", "grep", '{"pattern": "x"}'))
    fake.bump_during_call = False
    assert "Same as" not in reg.execute(ToolCall("c2", "grep", '{"pattern": "x"}')).content


def test_errors_are_not_remembered_and_refs_are_named(tmp_path: Path) -> None:
    fake = RevisionWorkspace(tmp_path)
    reg = registry_with(fake, max_result_chars=500)
    fake.fail_with = FileNotFoundError("gone")
    reg.execute(ToolCall("c1", "grep", '{"pattern": "x"}'))
    fake.fail_with = None
    first = reg.execute(ToolCall("c2", "grep", '{"pattern": "x", "path": "' + "d/" * 300 + '"}'))
    assert "Same as" not in first.content and first.meta.get("ref")
    again = reg.execute(ToolCall("c3", "grep", '{"pattern": "x", "path": "' + "d/" * 300 + '"}'))
    assert again.content.startswith("Same as call c2:")
    assert f'call read_result with ref="{first.meta["ref"]}"' in again.content


def test_same_arguments_in_another_session_run_again(tmp_path: Path) -> None:
    fake = RevisionWorkspace(tmp_path)
    reg = registry_with(fake)
    reg.execute(ToolCall("c1", "grep", '{"pattern": "x"}'))
    reg.reset_session()
    assert "Same as" not in reg.execute(ToolCall("c2", "grep", '{"pattern": "x"}')).content


def test_same_as_with_the_real_warm_index(tmp_path: Path) -> None:
    """A "same as" answer with the engine's warm index (SPEC §2.8): a repeat, not an edit."""
    from ripsight import Workspace

    (tmp_path / "a.py").write_text("x = 1  # TODO\n")
    ws = Workspace(tmp_path, index=True)
    try:
        assert ws.wait_index(timeout=30)
        reg = default_registry(ws)
        first = reg.execute(ToolCall("c1", "grep", '{"pattern": "TODO"}'))
        again = reg.execute(ToolCall("c2", "grep", '{"pattern": "TODO"}'))
        assert "1 match" in first.content
        assert again.content.startswith("Same as call c1:"), again.content
        (tmp_path / "b.py").write_text("y = 2  # TODO\n")
        fresh = reg.execute(ToolCall("c3", "grep", '{"pattern": "TODO"}'))
        assert fresh.content.startswith("2 matches in 2 files"), fresh.content
    finally:
        ws.close()


def test_each_navigation_argument_reaches_the_engine_method_of_its_name() -> None:
    # The handlers of find_definitions, find_references and find_calls are driven by their
    # schemas: the required name positional, a choice (kind, role) as a list, path and glob None
    # when left out or empty, the rest as validated.
    from ripsight.tools import FIND_CALLS_SCHEMA, FIND_DEFINITIONS_SCHEMA, FIND_REFERENCES_SCHEMA
    from ripsight.tools._navigation import engine_arguments

    page = {"limit": 5, "offset": 0}
    assert engine_arguments(
        FIND_REFERENCES_SCHEMA, {"name": "f", "role": "call", "group_by": "caller", **page}
    ) == (
        ["f"],
        {
            "role": ["call"],
            "group_by": "caller",
            "kind": [],
            "definition": None,
            "path": None,
            "glob": None,
            **page,
        },
    )
    assert engine_arguments(
        FIND_DEFINITIONS_SCHEMA,
        {"name": "f", "match": "prefix", "kind": ["class"], "path": "", "glob": "*.py", **page},
    ) == (
        ["f"],
        {"match": "prefix", "kind": ["class"], "path": None, "glob": "*.py", **page},
    )
    assert engine_arguments(FIND_CALLS_SCHEMA, {"name": "f", "path": "src", **page}) == (
        ["f"],
        {"kind": [], "path": "src", "glob": None, **page},
    )
