"""ripsight.truncate_middle: head and tail kept, the middle replaced by a note, within budget."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ripsight import InvalidArgumentError, truncate_middle
from ripsight._core import truncate_middle as core_truncate

NOTE = re.compile(r"\[\.\.\. (\d+) of (\d+) characters cut from the middle[^\]]*\]")


def split(out: str) -> tuple[str, str, int, int]:
    """(head, tail, cut, total) of a truncated text with the full note."""
    match = NOTE.search(out)
    assert match, out[:200]
    head = out[: match.start()]
    tail = out[match.end() :]
    head = head.removesuffix("\n")
    tail = tail.removeprefix("\n")
    return head, tail, int(match.group(1)), int(match.group(2))


def test_short_text_is_returned_unchanged() -> None:
    assert truncate_middle("hello") == "hello"
    assert truncate_middle("x" * 8000) == "x" * 8000
    assert truncate_middle("") == ""


def test_default_budget_is_8000_characters() -> None:
    text = "".join(f"line {i}\n" for i in range(5000))
    out = truncate_middle(text)
    assert len(out) <= 8000
    assert len(out) > 7500
    head, tail, cut, total = split(out)
    assert total == len(text)
    assert text.startswith(head)
    assert text.endswith(tail)
    # The counts in the note are exact.
    assert len(head) + len(tail) + cut == total


def test_note_says_how_to_see_the_middle() -> None:
    out = truncate_middle("x" * 20_000)
    note = NOTE.search(out)
    assert note
    assert "offset" in note.group(0)
    assert "narrow the search" in note.group(0)


def test_head_gets_about_sixty_percent() -> None:
    out = truncate_middle("abcdefghij" * 3000, 5000)
    head, tail, _, _ = split(out)
    assert abs(len(head) / (len(head) + len(tail)) - 0.6) < 0.01


@pytest.mark.parametrize("ratio", [0.0, 0.25, 0.5, 0.9, 1.0])
def test_head_ratio(ratio: float) -> None:
    out = truncate_middle("q" * 50_000, 4000, ratio)
    head, tail, _, _ = split(out)
    assert len(out) <= 4000
    assert abs(len(head) / (len(head) + len(tail)) - ratio) < 0.01


def test_cuts_land_on_line_boundaries_when_close() -> None:
    text = "".join(f"{i:05d} some log text here\n" for i in range(10_000))
    head, tail, _, _ = split(truncate_middle(text, 3000))
    assert head.endswith("\n")
    assert re.match(r"\d{5} some log", tail)


def test_multibyte_characters_are_counted_and_never_split() -> None:
    text = "é中🎉\u0301" * 10_000  # two-, three- and four-byte characters and a combining mark
    out = truncate_middle(text, 1000)
    assert len(out) <= 1000
    head, tail, cut, total = split(out)
    assert total == 40_000
    assert text.startswith(head) and text.endswith(tail)
    assert len(head) + len(tail) + cut == total
    out.encode("utf-8")  # a split surrogate or byte would fail here


@pytest.mark.parametrize("budget", [0, 1, 2, 5, 20, 30, 60, 100, 180, 200, 201, 400])
def test_small_budgets_never_exceed_max_chars(budget: int) -> None:
    text = "0123456789" * 1000
    out = truncate_middle(text, budget)
    assert len(out) <= budget
    if budget == 0:
        assert out == ""


def test_core_reports_cut_and_total() -> None:
    text, cut, total = core_truncate("y" * 10_000, 1000, 0.6)
    assert total == 10_000
    assert len(text) <= 1000
    assert cut == total - text.count("y")


def test_invalid_ratio_is_refused() -> None:
    with pytest.raises(InvalidArgumentError):
        truncate_middle("abc" * 10, 5, -0.1)


def test_large_input_is_linear_enough_to_finish() -> None:
    text = "z" * 20_000_000
    out = truncate_middle(text)
    _, _, cut, total = split(out)
    assert total == 20_000_000
    assert cut > 19_990_000


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=3000)
    | st.text(alphabet="ab\n é🎉", max_size=3000),
    budget=st.integers(min_value=0, max_value=3500),
    ratio=st.floats(min_value=0.0, max_value=1.0),
)
def test_property_within_budget_and_faithful(text: str, budget: int, ratio: float) -> None:
    out = truncate_middle(text, budget, ratio)
    assert len(out) <= budget
    if len(text) <= budget:
        assert out == text
        return
    match = NOTE.search(out)
    if match and int(match.group(2)) == len(text):
        head, tail, cut, total = split(out)
        assert text.startswith(head)
        assert text.endswith(tail)
        assert len(head) + len(tail) + cut == total
