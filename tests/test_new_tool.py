"""A new tool is one module: dropped into `ripsight.tools`, its spec alone puts it in every
provider's definitions, the MCP server's list (with its output schema and structured result),
the command line (a subcommand that runs it) and the package's exports, with no other edit.

The toy's "engine" is a plain Python handler that counts a letter in a word and returns a
record-like typed result (a class with ``SCHEMA`` and ``to_dict``, as the engine's records).
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import ripsight.tools
from _mcp_helpers import wire
from ripsight import default_registry
from ripsight.cli import main
from ripsight.registry import FORMATS
from ripsight.tools import builtin_tools
from ripsight.types import ToolCall

TOY_MODULE = "toy_letters"

TOY_SOURCE = '''\
"""`count_letters`: how often a letter occurs in a word (a toy tool: this module is all of it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ..limits import DEFAULT_LIMITS, ToolLimits
from ..types import ToolCommand, ToolContext, ToolOutput, ToolSpec
from ._common import ENGINE_RESULT_KEY

__all__ = ["LetterCount", "count_letters_tool"]


@dataclass(frozen=True)
class LetterCount:
    word: str
    letter: str
    total: int

    SCHEMA: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "word": {"type": "string", "description": "The word searched."},
            "letter": {"type": "string", "description": "The letter counted."},
            "total": {"type": "integer", "description": "How often the letter occurs."},
        },
        "required": ["word", "letter", "total"],
    }

    def to_dict(self) -> dict[str, Any]:
        return {"word": self.word, "letter": self.letter, "total": self.total}


def run(context: ToolContext, args: dict[str, Any]) -> ToolOutput:
    word, letter = args["word"], args["letter"]
    result = LetterCount(word, letter, word.count(letter))
    return ToolOutput(
        f"{word} holds {letter} {result.total} times.", meta={ENGINE_RESULT_KEY: result}
    )


def count_letters_tool(limits: ToolLimits = DEFAULT_LIMITS) -> ToolSpec:
    return ToolSpec(
        name="count_letters",
        description="Count how often a letter occurs in a word.",
        parameters={
            "type": "object",
            "properties": {
                "word": {"type": "string", "minLength": 1, "description": "The word."},
                "letter": {"type": "string", "minLength": 1, "description": "The letter."},
            },
            "required": ["word", "letter"],
            "additionalProperties": False,
        },
        handler=run,
        title="Count letters",
        results=(LetterCount,),
        command=ToolCommand(
            name="letters",
            help="count a letter in a word",
            description="Count how often a letter occurs in a word.",
            epilog="exit status: 0 found, 1 not found, 2 usage error",
            positionals=("word", "letter"),
            found="total",
        ),
    )


TOOL = count_letters_tool
'''


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The toy module, placed in the `ripsight.tools` package (a second folder of it)."""
    folder = tmp_path / "more_tools"
    folder.mkdir()
    (folder / f"{TOY_MODULE}.py").write_text(TOY_SOURCE, encoding="utf-8")
    monkeypatch.setattr(ripsight.tools, "__path__", [*ripsight.tools.__path__, str(folder)])
    importlib.invalidate_caches()
    name = f"ripsight.tools.{TOY_MODULE}"
    try:
        yield importlib.import_module(name)
    finally:
        sys.modules.pop(name, None)


def _names(definitions: list[Any], fmt: str) -> list[str]:
    if fmt == "openai":
        return [d["function"]["name"] for d in definitions]
    return [d["name"] for d in definitions]


def test_a_tool_module_is_a_builtin_tool_of_every_provider(toy: Any, tmp_path: Path) -> None:
    assert "count_letters" in [spec.name for spec in builtin_tools()]
    registry = default_registry(tmp_path)
    for fmt in FORMATS:
        assert "count_letters" in _names(registry.definitions(fmt), fmt), fmt
    answer = registry.execute(ToolCall("c1", "count_letters", {"word": "banana", "letter": "a"}))
    assert (answer.is_error, answer.content) == (False, "banana holds a 3 times.")


def test_a_tool_module_is_exported(toy: Any) -> None:
    assert ripsight.tools.count_letters_tool is toy.count_letters_tool
    assert {"LetterCount", "count_letters_tool"} <= set(ripsight.tools.__all__)
    assert "count_letters_tool" in dir(ripsight.tools)
    with pytest.raises(AttributeError):
        _ = ripsight.tools.no_such_name


def test_a_tool_module_is_served_over_mcp_with_its_output_schema(toy: Any, tmp_path: Path) -> None:
    from ripsight.mcp_server import NOTES_FIELD, _instructions, _Tools

    registry = default_registry(tmp_path)
    assert "count_letters (count letters)" in _instructions(registry)
    tools = _Tools(registry, 2, True)
    listed = {tool["name"]: tool for tool in wire(anyio.run(tools.list))}
    schema = listed["count_letters"]["outputSchema"]
    # The record's schema, and the server's notes on a call's arguments.
    notes = schema["properties"].pop(NOTES_FIELD)
    assert schema == toy.LetterCount.SCHEMA and notes["type"] == "array"

    async def call() -> Any:
        with anyio.fail_after(30):
            return await tools.call(1, "count_letters", {"word": "banana", "letter": "n"})

    reply = wire(anyio.run(call))
    assert reply["isError"] is False
    assert reply["structuredContent"] == {"word": "banana", "letter": "n", "total": 2}


def test_a_tool_module_is_a_subcommand(
    toy: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ["--root", str(tmp_path)]
    assert main(["letters", "banana", "a", *root]) == 0
    assert capsys.readouterr().out == "banana holds a 3 times.\n"
    assert main(["letters", "banana", "a", "--json", *root]) == 0
    assert json.loads(capsys.readouterr().out) == {"word": "banana", "letter": "a", "total": 3}
    assert main(["letters", "banana", "z", *root]) == 1  # its `found` count is 0
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "count a letter in a word" in capsys.readouterr().out


def test_without_the_module_there_is_no_such_tool(tmp_path: Path) -> None:
    # The fixture leaves nothing behind: the built-in tools are the package's own modules.
    assert "count_letters" not in [spec.name for spec in builtin_tools()]
    assert "count_letters" not in default_registry(tmp_path).names
