"""The never-throw execution entry on calls a model botches: a specific answer to each kind of
junk, and any JSON value in any field (fuzzed) answered once, with its id, never as an internal
error.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from _protocol_helpers import AVAILABLE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ripsight import ToolCall, ToolResult, default_registry

# -- never raises ----------------------------------------------------------------------------------

_FUZZ_ROOT = tempfile.mkdtemp(prefix="ripsight-fuzz-")
Path(_FUZZ_ROOT, "src").mkdir()
Path(_FUZZ_ROOT, "src", "app.py").write_text("def main():\n    return 1\n")
_FUZZ_REGISTRY = default_registry(_FUZZ_ROOT, time_budget=2.0)

names = st.sampled_from(["glob", "grep", "read_file", "Read", "", "grep_search"]) | st.text(
    max_size=20
)
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(-5, 3000)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
argument_texts = st.one_of(
    st.text(max_size=80),
    st.dictionaries(
        st.sampled_from(
            [
                "pattern",
                "path",
                "glob",
                "limit",
                "offset",
                "context",
                "output_mode",
                "literal",
                "file_path",
                "sort",
            ]
        )
        | st.text(max_size=8),
        json_scalars | st.lists(json_scalars, max_size=2),
        max_size=5,
    ).map(json.dumps),
)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(call_id=st.text(max_size=10), name=names, arguments=argument_texts)
def test_execute_never_raises(call_id, name, arguments):
    result = _FUZZ_REGISTRY.execute(ToolCall(call_id, name, arguments))
    assert isinstance(result, ToolResult)
    assert result.call_id == call_id
    assert isinstance(result.content, str) and result.content
    assert result.meta.get("error_type") != "internal", (result.content, result.meta)
    assert len(result.content) <= 8000


# -- model junk: any JSON value in any field ------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "code", "content"),
    [
        (
            {"id": "c1", "name": 7, "arguments": "{}"},
            "unknown_tool",
            (
                "The tool name must be a string, but this call's name is the integer 7, so nothing "
                f"was run. {AVAILABLE} Call one of them by name."
            ),
        ),
        (
            {"id": "c1", "function": {"name": ["grep"], "arguments": "{}"}},
            "unknown_tool",
            (
                "The tool name must be a string, but this call's name is an array, so nothing was "
                f"run. {AVAILABLE} Call one of them by name."
            ),
        ),
        (
            {"id": "c1", "name": None, "arguments": "{}"},
            "unknown_tool",
            (
                f"The tool call has no tool name, so nothing was run. {AVAILABLE} Call one of them "
                "by name."
            ),
        ),
        (
            {"id": "c1", "name": "grep", "arguments": True},
            "invalid_arguments",
            (
                "grep: The arguments must be a JSON object, got the boolean true. Send them as one "
                'JSON object with named fields, for example {"pattern": "TODO"}.'
            ),
        ),
        (
            {"id": "c1", "name": "grep", "arguments": "null"},
            "invalid_arguments",
            (
                "grep: The arguments must be a JSON object, got null. Send them as one JSON object "
                'with named fields, for example {"pattern": "TODO"}.'
            ),
        ),
        (
            {"id": "c1", "name": "grep", "arguments": {"pattern": float("nan")}},
            "invalid_arguments",
            (
                'Invalid arguments for grep (1 problem); nothing was run:\n- "pattern" must be a '
                "string, got the number NaN.\nFix the arguments and call grep again."
            ),
        ),
        (
            {"id": "c1", "name": "grep\x00", "arguments": "{}"},
            "unknown_tool",
            f'There is no tool named "grep\\u0000". Did you mean grep? {AVAILABLE}',
        ),
        (
            ["grep", {"pattern": "x"}],
            "invalid_call",
            (
                "The tool call could not be understood: it is an array, not an object with a tool "
                "name and arguments, so nothing was run. Call a tool by name with a JSON object of "
                f"arguments. {AVAILABLE}"
            ),
        ),
    ],
)
def test_junk_gets_a_specific_answer(call, code, content):
    result = default_registry(_FUZZ_ROOT).execute(call)
    assert (result.meta["code"], result.content) == (code, content)
    assert result.is_error


@pytest.mark.parametrize(
    ("name", "content"),
    [
        (
            None,
            f"The tool call has no tool name, so nothing was run. {AVAILABLE} Call one of them by name.",
        ),
        (
            7,
            (
                "The tool name must be a string, but this call's name is the integer 7, so nothing "
                f"was run. {AVAILABLE} Call one of them by name."
            ),
        ),
        (
            2.5,
            (
                "The tool name must be a string, but this call's name is the number 2.5, so nothing "
                f"was run. {AVAILABLE} Call one of them by name."
            ),
        ),
        (
            ["grep"],
            (
                "The tool name must be a string, but this call's name is an array, so nothing was "
                f"run. {AVAILABLE} Call one of them by name."
            ),
        ),
    ],
)
def test_a_tool_call_built_with_a_name_that_is_no_string_is_the_callers_mistake(name, content):
    """Issue 37, item 9: a `ToolCall` made by a host with a junk name (the dataclass does not
    check its fields) is answered as the same dict would be, never as an internal error; alone
    and in a turn of calls."""
    reg = default_registry(_FUZZ_ROOT)
    call = ToolCall("c1", name, "{}")
    result = reg.execute(call)
    assert (result.meta["code"], result.content, result.call_id) == ("unknown_tool", content, "c1")
    assert result.is_error
    [in_turn, fine] = reg.execute_many([call, ToolCall("c2", "glob", '{"pattern": "*"}')])
    assert (in_turn.meta["code"], in_turn.content) == ("unknown_tool", content)
    assert not fine.is_error
    assert [r.status for r in reg.log.records()][-2:] == ["contract_error", "done"]


def test_a_call_id_of_another_type_is_echoed_as_its_text():
    reg = default_registry(_FUZZ_ROOT)
    assert reg.execute({"id": 0, "name": "glob", "arguments": {}}).call_id == "0"
    assert reg.execute({"id": None, "name": 7}).call_id == ""
    assert reg.execute({"id": "c9", "name": [1]}).call_id == "c9"


json_values = st.recursive(
    json_scalars | st.floats() | st.sampled_from(["grep", "glob", "read_file", "pattern", "{}"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.text(max_size=8) | st.sampled_from(["pattern", "path"]), inner, max_size=3
        )
    ),
    max_leaves=8,
)
call_fields = st.dictionaries(
    st.sampled_from(["id", "call_id", "name", "arguments", "input", "function", "type"]),
    json_values | st.fixed_dictionaries({"name": json_values, "arguments": json_values}),
    max_size=5,
)


class _SdkCall:
    """An SDK object as the providers' clients give them: fields readable by `model_dump`."""

    def __init__(self, fields: dict[str, object]) -> None:
        self.fields = fields

    def model_dump(self) -> dict[str, object]:
        return dict(self.fields)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fields=call_fields, sdk=st.booleans())
def test_junk_in_every_field_gets_one_answer_never_internal(fields, sdk):
    result = _FUZZ_REGISTRY.execute(_SdkCall(fields) if sdk else fields)
    assert isinstance(result, ToolResult) and isinstance(result.content, str) and result.content
    assert result.meta["code"] != "internal", (result.content, result.meta)
    call_id = fields.get("call_id") or fields.get("id")
    if isinstance(call_id, str):
        assert result.call_id == call_id


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(call=json_values)
def test_a_call_of_any_json_value_gets_one_answer_never_internal(call):
    result = _FUZZ_REGISTRY.execute(call)
    assert isinstance(result, ToolResult) and result.content
    assert result.meta["code"] != "internal", (result.content, result.meta)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(call_id=json_values, name=json_values, arguments=json_values)
def test_a_tool_call_with_junk_in_any_field_gets_one_answer_never_internal(
    call_id, name, arguments
):
    result = _FUZZ_REGISTRY.execute(ToolCall(call_id, name, arguments))
    assert isinstance(result, ToolResult) and result.content
    assert result.meta["code"] != "internal", (result.content, result.meta)
