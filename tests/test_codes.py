"""One enumeration of the machine codes (`ripsight.codes`): docs/protocol.md's table is it, the
engine's error kinds are in it, and every failure has one code everywhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ripsight import (
    CancelledError,
    EngineError,
    InvalidArgumentError,
    PathNotFoundError,
    RipsightError,
    ToolCall,
    _core,
    codes,
    default_registry,
    errors,
)
from ripsight.validation import parse_arguments

PROTOCOL = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"


def _without_parentheses(text: str) -> str:
    out, depth = [], 0
    for ch in text:
        depth += ch == "("
        if depth == 0:
            out.append(ch)
        depth -= ch == ")" and depth > 0
    return "".join(out)


def _documented_table() -> list[tuple[str, str, tuple[str, ...]]]:
    text = PROTOCOL.read_text(encoding="utf-8")
    table = text.split("| status | outcome | codes |", 1)[1].split("\n- ", 1)[0]
    rows = []
    for line in table.strip().splitlines()[1:]:
        status, outcome, cell = (part.strip() for part in line.strip().strip("|").split("|", 2))
        named = re.findall(r"`(\w+)`", _without_parentheses(cell))
        rows.append((status.strip("`"), outcome.strip("`"), tuple(named)))
    return rows


def test_the_documented_table_is_the_enumeration() -> None:
    assert _documented_table() == [
        (status, outcome, tuple(names)) for status, outcome, names in codes.CODES
    ]


def test_every_engine_error_kind_is_a_code_of_a_failure() -> None:
    classes = [
        value
        for value in vars(_core).values()
        if isinstance(value, type)
        and issubclass(value, RipsightError)
        and value is not RipsightError
    ]
    assert len(classes) == len(codes.ENGINE_CODES) == 11
    failures = {code for status, _, names in codes.CODES if status != "done" for code in names}
    assert {cls.kind for cls in classes} <= failures
    # The engine's error kinds are the codes: one failure, one name.
    assert InvalidArgumentError.kind == codes.INVALID_ARGUMENTS == "invalid_arguments"
    assert EngineError.kind == "io_error"


def test_a_code_names_one_outcome() -> None:
    seen: dict[str, str] = {}
    for _, outcome, names in codes.CODES:
        for code in names:
            assert seen.setdefault(code, outcome) == outcome, code


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (PathNotFoundError("x"), "not_found"),
        (InvalidArgumentError("x"), "invalid_arguments"),
        (CancelledError("x"), "cancelled"),
        (EngineError("x"), "io_error"),
        (RipsightError("a host's own"), "internal"),
        (type("HostNotFound", (PathNotFoundError,), {})("x"), "not_found"),
    ],
)
def test_the_code_of_an_error_is_its_class_kind(error: BaseException, code: str) -> None:
    assert codes.error_code(error) == code


def test_outcomes() -> None:
    assert codes.outcome_of("done", codes.NO_MATCH) == "empty"
    assert codes.outcome_of("done", codes.TRUNCATED) == "partial"
    assert codes.outcome_of("done", "a_host_tools_own") == "failure"
    assert codes.outcome_of("runtime_error", codes.OK) == "failure"


def test_invalid_arguments_is_one_code_at_every_stage(tmp_path: Path) -> None:
    # The schema's check (contract_error), the engine's own check (runtime_error), the record
    # in the log and the parser of the arguments all name it the same way.
    (tmp_path / "a.py").write_text("x\n")
    reg = default_registry(tmp_path)
    schema = reg.execute(ToolCall("c1", "grep", '{"pattern": "x", "limit": 0}'))
    engine = reg.execute(ToolCall("c2", "read_file", '{"path": "a\\u0000.py"}'))
    for result in (schema, engine):
        assert result.meta["code"] == result.meta["error_type"] == "invalid_arguments"
    assert [r.code for r in reg.log.records()] == ["invalid_arguments", "invalid_arguments"]
    assert [r.status for r in reg.log.records()] == ["contract_error", "runtime_error"]
    with pytest.raises(ValueError) as raised:
        parse_arguments("[1]")
    assert raised.value.kind == "invalid_arguments"  # type: ignore[attr-defined]


def test_the_errors_module_exports_every_engine_class() -> None:
    exported = {getattr(errors, name) for name in errors.__all__ if name != "model_text"}
    assert {cls.kind for cls in exported if cls is not RipsightError} == set(codes.ENGINE_CODES)
