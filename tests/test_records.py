"""The result classes glob, grep and read_file return, as Python sees them: frozen records whose
attributes, repr, equality and `to_dict()` all follow one declaration (`record!` in the engine).

What the values are is the engine's (rust_core/tests/{walk,grep,read}.rs); the JSON Schemas
(`SCHEMA`) are checked against the stub in test_stub.py and against `to_dict()` in test_mcp.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ripsight import Workspace


def calls(root: Path) -> dict[str, Any]:
    """One record of each class, from one set of calls on `root`."""
    ws = Workspace(root)
    found = ws.grep("return", context=1)
    counted = ws.grep("def", output_mode="count")
    listed = ws.glob("*.py")
    read = ws.read_file("a.py")
    return {
        "GlobResult": listed,
        "SkipCounts": listed.skipped,
        "GrepResult": found,
        "GrepLine": found.lines[0],
        "FileCount": counted.files[0],
        "ReadResult": read,
        "ReadLine": read.lines[0],
    }


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("records")
    (root / "a.py").write_text("def f():\n    return 1\n")
    return root


def shown(value: Any) -> str:
    """A field as the repr shows it: lists by their length, everything else by its repr."""
    return f"[{len(value)} items]" if isinstance(value, list) else repr(value)


@pytest.mark.parametrize(
    "name",
    ["GlobResult", "SkipCounts", "GrepResult", "GrepLine", "FileCount", "ReadResult", "ReadLine"],
)
def test_results_are_frozen_records(root: Path, name: str) -> None:
    record = calls(root)[name]
    cls = type(record)
    assert (cls.__name__, cls.__module__) == (name, "ripsight._core")
    fields = cls.FIELDS
    values = {field: getattr(record, field) for field in fields}
    for field in fields:
        with pytest.raises(AttributeError):
            setattr(record, field, values[field])
    with pytest.raises(AttributeError):
        record.extra = 1
    assert (
        repr(record) == f"{name}(" + ", ".join(f"{f}={shown(v)}" for f, v in values.items()) + ")"
    )
    data = record.to_dict()
    assert list(data) == list(fields)
    assert json.loads(json.dumps(data)) == data  # plain data, all the way down
    for field, value in values.items():
        if hasattr(value, "to_dict"):
            assert data[field] == value.to_dict()
        elif isinstance(value, list):
            assert data[field] == [v.to_dict() if hasattr(v, "to_dict") else v for v in value]
        else:
            assert data[field] == value


def test_records_compare_by_value(root: Path) -> None:
    first, again = calls(root), calls(root)
    # Whole results differ in elapsed_ms; the records inside them compare by their fields.
    for name in ("SkipCounts", "GrepLine", "FileCount", "ReadLine"):
        assert first[name] == again[name], name
        assert first[name] is not again[name]
    grep = first["GrepResult"]
    assert grep.lines[0] != grep.lines[1]
    assert first["ReadLine"] != first["ReadResult"].lines[1]


def test_grep_lines_print_as_rg_does_and_matches_leave_context_out(root: Path) -> None:
    grep = calls(root)["GrepResult"]
    assert [str(line) for line in grep.lines] == ["a.py-1-def f():", "a.py:2:    return 1"]
    assert grep.matches == [grep.lines[1]]
