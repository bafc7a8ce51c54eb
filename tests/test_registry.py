"""Registry definitions: one source, four formats, each checked against its SDK's own types."""

from __future__ import annotations

import re

import jsonschema
import pytest
from _protocol_helpers import registry_with
from pydantic import TypeAdapter
from ripsight import Registry, ToolSpec, default_registry
from ripsight.registry import FORMATS


def assert_typed_dict(typed_dict: type, value: dict) -> None:
    """Validates with pydantic and also refuses keys the TypedDict does not declare."""
    TypeAdapter(typed_dict).validate_python(value, strict=False)
    allowed = set(typed_dict.__required_keys__) | set(typed_dict.__optional_keys__)
    assert set(value) <= allowed, f"keys unknown to {typed_dict.__name__}: {set(value) - allowed}"
    assert set(typed_dict.__required_keys__) <= set(value)


@pytest.fixture
def registry() -> Registry:
    return registry_with()


def test_default_registry_has_the_builtin_tools(tmp_path):
    reg = default_registry(tmp_path)
    assert reg.names == [
        "find_calls",
        "find_definitions",
        "find_references",
        "glob",
        "grep",
        "outline",
        "read_file",
        "read_result",
        "repo_map",
    ]
    assert reg.workspace is not None and reg.workspace.root == str(tmp_path.resolve())


def test_openai_chat_definitions_match_sdk_types(registry):
    from openai.types.chat import ChatCompletionToolParam
    from openai.types.shared_params import FunctionDefinition

    tools = registry.definitions("openai")
    assert [t["function"]["name"] for t in tools] == [
        "find_calls",
        "find_definitions",
        "find_references",
        "glob",
        "grep",
        "outline",
        "read_file",
        "read_result",
        "repo_map",
    ]
    for tool in tools:
        assert_typed_dict(ChatCompletionToolParam, tool)
        assert_typed_dict(FunctionDefinition, tool["function"])
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", tool["function"]["name"])


def test_openai_responses_definitions_match_sdk_types(registry):
    from openai.types.responses import FunctionToolParam, ToolParam

    for tool in registry.definitions("openai-responses"):
        assert_typed_dict(FunctionToolParam, tool)
        TypeAdapter(ToolParam).validate_python(tool)
        assert tool["strict"] is False  # optional parameters are not allowed in strict mode


def test_anthropic_definitions_match_sdk_types(registry):
    from anthropic.types import ToolParam

    for tool in registry.definitions("anthropic"):
        assert_typed_dict(ToolParam, tool)
        assert tool["input_schema"]["type"] == "object"
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", tool["name"])


def test_mcp_definitions_match_sdk_types(registry):
    from mcp.types import Tool

    for tool in registry.definitions("mcp"):
        model = Tool.model_validate(tool)
        # Nothing was dropped: dumping the SDK model gives back the same JSON.
        assert model.model_dump(by_alias=True, exclude_none=True, mode="json") == tool
        assert model.annotations is not None
        assert model.annotations.read_only_hint is True
        assert model.annotations.destructive_hint is False
        assert model.input_schema["additionalProperties"] is False


def test_every_format_carries_the_same_source(registry):
    openai = registry.definitions("openai")
    responses = registry.definitions("openai-responses")
    anthropic = registry.definitions("anthropic")
    mcp = registry.definitions("mcp")
    for a, b, c, d in zip(openai, responses, anthropic, mcp):
        schema = a["function"]["parameters"]
        assert schema == b["parameters"] == c["input_schema"] == d["inputSchema"]
        description = a["function"]["description"]
        assert description == b["description"] == c["description"] == d["description"]


@pytest.mark.parametrize("name", ["glob", "grep", "read_file"])
def test_schemas_are_valid_and_fully_described(registry, name):
    spec = registry.get(name)
    assert spec is not None and spec.read_only and spec.concurrency_safe
    schema = spec.parameters
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["additionalProperties"] is False
    for key, prop in schema["properties"].items():
        assert prop.get("description"), f"{name}.{key} has no description"
        if key not in schema["required"]:
            assert "Default" in prop["description"], f"{name}.{key} does not state its default"
        if "default" in prop:
            jsonschema.validate(prop["default"], prop)
    assert len(spec.description) > 200
    assert "default" in spec.description.lower()


def test_spec_limits_are_stated(registry):
    assert "(default 200)" in registry.get("glob").description
    assert "(default 50)" in registry.get("grep").description
    assert "120 characters" in registry.get("grep").description
    assert "(default 400)" in registry.get("read_file").description
    assert "500 characters" in registry.get("read_file").description
    assert registry.get("glob").parameters["properties"]["limit"]["default"] == 200
    assert registry.get("grep").parameters["properties"]["limit"]["default"] == 50
    assert registry.get("read_file").parameters["properties"]["limit"]["default"] == 400


def test_definitions_are_copies(registry):
    tools = registry.definitions("anthropic")
    tools[0]["input_schema"]["properties"].clear()
    assert registry.definitions("anthropic")[0]["input_schema"]["properties"]


def test_format_aliases_and_unknown_format(registry):
    assert registry.definitions("responses") == registry.definitions("openai-responses")
    assert registry.definitions("claude") == registry.definitions("anthropic")
    with pytest.raises(ValueError, match="use one of: openai, openai-responses, anthropic, mcp"):
        registry.definitions("gemini")
    assert FORMATS == ("openai", "openai-responses", "anthropic", "mcp")


def test_custom_tool_registers_in_every_format():
    reg = Registry()
    reg.register(
        ToolSpec(
            name="count_lines",
            description="Counts lines.",
            parameters={"type": "object", "properties": {}, "additionalProperties": False},
            handler=lambda ctx, args: "3",
            effect="read",
            concurrency_safe=False,
        )
    )
    assert reg.definitions("openai")[0]["function"]["name"] == "count_lines"
    assert reg.definitions("mcp")[0]["annotations"]["readOnlyHint"] is True
    assert "count_lines" in reg and len(reg) == 1
    with pytest.raises(ValueError, match="type object"):
        reg.register(
            ToolSpec(
                name="bad",
                description="",
                parameters={"type": "array"},
                handler=lambda ctx, args: "",
            )
        )


def test_cli_tools_prints_each_format(capsys):
    import orjson
    from ripsight.cli import main

    for fmt in FORMATS:
        assert main(["tools", "--format", fmt]) == 0
        printed = orjson.loads(capsys.readouterr().out)
        assert printed == registry_with().definitions(fmt)
