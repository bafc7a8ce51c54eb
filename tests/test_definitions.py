"""Definitions the SDKs accept: OpenAI strict mode (checked with the OpenAI Agents SDK's own
strict-schema check and the SDK param types), nulls treated as absent, and types a user's
`mypy --strict` accepts when passing definitions and messages to the SDKs."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from pydantic import TypeAdapter
from ripsight import Registry, ToolCall, ToolSpec, default_registry

HERE = Path(__file__).parent


def walk_objects(schema: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            found.append(schema)
        for value in schema.values():
            found += walk_objects(value)
    elif isinstance(schema, list):
        for value in schema:
            found += walk_objects(value)
    return found


@pytest.mark.parametrize("fmt", ["openai", "openai-responses"])
def test_strict_definitions_pass_the_agents_sdk_check(fmt: str, tmp_path: Path) -> None:
    strict_schema = pytest.importorskip("agents.strict_schema")
    reg = default_registry(tmp_path)
    loose = reg.definitions(fmt)
    for tool, plain in zip(reg.definitions(fmt, strict=True), loose):
        if fmt == "openai":
            assert tool["function"]["strict"] is True
            schema, original = tool["function"]["parameters"], plain["function"]["parameters"]
        else:
            assert tool["strict"] is True
            schema, original = tool["parameters"], plain["parameters"]
        # The SDK's check makes a schema strict; on ours it has nothing left to change.
        assert strict_schema.ensure_strict_json_schema(copy.deepcopy(schema)) == schema
        for obj in walk_objects(schema):
            assert obj["additionalProperties"] is False
            assert obj["required"] == list(obj["properties"])
        for name, prop in schema["properties"].items():
            optional = name not in original.get("required", [])
            assert ("null" in prop["type"]) is optional, (tool, name)
            if "enum" in prop:
                assert (None in prop["enum"]) is optional
            assert not {"default", "minLength", "maxLength"} & set(prop)


def test_strict_definitions_match_the_sdk_param_types(tmp_path: Path) -> None:
    from openai.types.chat import ChatCompletionFunctionToolParam
    from openai.types.responses import FunctionToolParam

    reg = default_registry(tmp_path)
    TypeAdapter(list[ChatCompletionFunctionToolParam]).validate_python(
        reg.definitions("openai", strict=True)
    )
    TypeAdapter(list[FunctionToolParam]).validate_python(
        reg.definitions("openai-responses", strict=True)
    )
    with pytest.raises(ValueError, match="OpenAI formats only"):
        reg.definitions("anthropic", strict=True)


def test_nulls_are_absent(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1  # TODO\n")
    reg = default_registry(tmp_path)
    strict = {tool["function"]["name"]: tool for tool in reg.definitions("openai", strict=True)}
    schema = strict["grep"]["function"]["parameters"]
    # What a strict-mode model sends: every property, null for the ones it does not set.
    arguments = {name: None for name in schema["properties"]}
    arguments["pattern"] = "TODO"
    strict_call = reg.execute(ToolCall("c1", "grep", orjson.dumps(arguments).decode()))
    plain_call = reg.execute(ToolCall("c2", "grep", '{"pattern": "TODO"}'))
    assert not strict_call.is_error
    assert strict_call.content == plain_call.content
    assert "ignored_arguments" not in strict_call.meta
    read = reg.execute(
        ToolCall("c3", "read_file", '{"path": "a.py", "offset": null, "limit": null}')
    )
    assert read.content.startswith("a.py: line 1 of 1.")


def test_strict_mode_of_a_host_tool_with_nested_objects() -> None:
    strict_schema = pytest.importorskip("agents.strict_schema")
    reg = Registry()
    reg.register(
        ToolSpec(
            "plan",
            "Plans.",
            {
                "type": "object",
                "properties": {
                    "steps": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "title": {"type": "string", "maxLength": 80},
                                "weight": {"type": "number", "default": 1},
                            },
                            "required": ["title"],
                        },
                    },
                    "owner": {"type": "object", "properties": {"name": {"type": "string"}}},
                },
                "required": ["steps"],
            },
            lambda c, a: "ok",
        )
    )
    schema = reg.definitions("openai", strict=True)[0]["function"]["parameters"]
    assert strict_schema.ensure_strict_json_schema(copy.deepcopy(schema)) == schema
    item = schema["properties"]["steps"]["items"]
    assert item["required"] == ["title", "weight"] and item["additionalProperties"] is False
    assert item["properties"]["weight"] == {"type": ["number", "null"]}
    assert schema["properties"]["owner"]["type"] == ["object", "null"]


@pytest.fixture(scope="module")
def mypy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mypy cache shared by this module's runs (the SDKs' stubs are read once)."""
    pytest.importorskip("mypy")
    pytest.importorskip("openai")
    pytest.importorskip("anthropic")
    return tmp_path_factory.mktemp("mypy-cache")


def run_mypy(cache: Path, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            str(cache),
            "--follow-imports=silent",
            str(path),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=path.parent,
        timeout=600,
    )


@pytest.mark.slow
def test_a_users_mypy_strict_accepts_definitions_and_messages(mypy: Path) -> None:
    out = run_mypy(mypy, HERE / "typecheck" / "user_code.py")
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.slow
def test_the_typing_check_can_fail(mypy: Path, tmp_path: Path) -> None:
    # Control: untyped dicts (what the definitions were before) are refused by the SDK's types.
    code = (HERE / "typecheck" / "user_code.py").read_text()
    code = code.replace('tools=reg.definitions("anthropic"),', "tools=untyped(),", 1)
    code += "\n\ndef untyped() -> list[dict[str, object]]:\n    return []\n"
    path = tmp_path / "user_code_untyped.py"
    path.write_text(code)
    out = run_mypy(mypy, path)
    assert out.returncode == 1 and 'Argument "tools"' in out.stdout, out.stdout


def run_pyright(path: Path) -> subprocess.CompletedProcess[str]:
    """basedpyright (pyright with its Node runtime in the wheel) on `path`, errors only."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "basedpyright",
            "--pythonpath",
            sys.executable,
            "--level",
            "error",
            str(path),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=path.parent,
        timeout=600,
    )


@pytest.mark.slow
def test_pyright_accepts_what_mypy_accepts_and_refuses_the_control(tmp_path: Path) -> None:
    pytest.importorskip("basedpyright")
    out = run_pyright(HERE / "typecheck" / "user_code.py")
    assert out.returncode == 0 and "0 errors" in out.stdout, out.stdout + out.stderr
    code = (HERE / "typecheck" / "user_code.py").read_text()
    code = code.replace('tools=reg.definitions("anthropic"),', "tools=untyped(),", 1)
    code += "\n\ndef untyped() -> list[dict[str, object]]:\n    return []\n"
    path = tmp_path / "user_code_untyped.py"
    path.write_text(code)
    out = run_pyright(path)
    assert out.returncode == 1 and "reportArgumentType" in out.stdout, out.stdout


def test_cli_tools_strict(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from ripsight.cli import main

    assert main(["tools", "--format", "openai", "--strict"]) == 0
    printed = orjson.loads(capsys.readouterr().out)
    assert printed == default_registry(tmp_path).definitions("openai", strict=True)
    assert main(["tools", "--format", "anthropic", "--strict"]) == 2
    assert "openai formats only" in capsys.readouterr().err
