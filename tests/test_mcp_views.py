"""What each documented MCP client's model sees from each tool (`ripsight.mcp_clients`,
`scripts/client_views.py`): the clients that show the model only the structured copy get the
text, a structured copy carries the text's facts (notes included), and the README's table is the
measurement, taken with the installed MCP SDK client (CI: 1.x and 2.x) against the real server.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest
from ripsight import ToolCall, default_registry
from ripsight.mcp_clients import CLIENT_VIEWS, TEXT_ONLY_CLIENTS, model_sees
from ripsight.mcp_results import NOTES_FIELD, OUTPUT_SCHEMAS, call_result

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "client_views.py"


def _harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("client_views", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["client_views"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


views = _harness()


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return views.make_tree(tmp_path_factory.mktemp("views") / "repo")  # type: ignore[no-any-return]


def _answer(tree: Path, tool: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The text and the structured copy the server sends for a call."""
    registry = default_registry(tree)
    result = registry.execute(ToolCall(id="1", name=tool, arguments=arguments))
    reply = call_result(result, registry.get(tool), True, registry.limits.max_result_chars)
    wire = reply.model_dump(mode="json", by_alias=True)
    return result.content, wire["structuredContent"]


def test_the_text_only_clients_are_those_whose_model_sees_only_the_json() -> None:
    assert {"claude-code", "codex-mcp-client"} <= TEXT_ONLY_CLIENTS
    for client in CLIENT_VIEWS:
        assert client.source, client.client
        assert all(
            (name in TEXT_ONLY_CLIENTS) == (client.view == "structured") for name in client.names
        )


def test_what_a_view_hands_the_model() -> None:
    result = {"content": [{"type": "text", "text": "3 files"}], "structuredContent": {"total": 3}}
    assert model_sees("text", result) == "3 files"
    assert model_sees("structured", result) == '{"total": 3}'
    assert model_sees("both", result) == '3 files\n{"total": 3}'
    assert model_sees("structured", {**result, "structuredContent": None}) == "3 files"


def test_an_empty_copy_misses_every_fact_the_text_states(tree: Path) -> None:
    # The measurement can fail: each fact is looked for, and a copy without it is caught.
    text, structured = _answer(tree, "grep", {"pattern": "TODO", "bogus": 1})
    assert views.missing(text, structured) == []
    assert views.missing(text, {}) == ["answer", "total", "paging", "skipped", "notes"]
    without_notes = {k: v for k, v in structured.items() if k != NOTES_FIELD}
    assert views.missing(text, without_notes) == ["notes"]
    text, structured = _answer(tree, "read_file", {"path": "long.txt"})
    assert views.missing(text, {**structured, "next_offset": None}) == ["paging"]


def test_the_structured_copy_carries_the_notes_on_the_arguments(tree: Path) -> None:
    text, structured = _answer(tree, "glob", {"pattern": "**/*.py", "respect_git_ignore": True})
    assert text.startswith('Note: read "respect_git_ignore": true as "include_ignored": false')
    assert structured[NOTES_FIELD] == [text.splitlines()[0]]
    jsonschema.validate(structured, OUTPUT_SCHEMAS["glob"])
    _, plain = _answer(tree, "glob", {"pattern": "**/*.py"})
    assert NOTES_FIELD not in plain


@pytest.mark.slow  # a server process per documented client
def test_the_readme_table_is_what_each_client_sees(tree: Path) -> None:
    measured = views.measure(tree)
    tools = set(default_registry(tree).names)
    for client, seen in measured:
        assert set(seen) == tools, client.client  # every tool of the registry is measured
        for tool, cell in ((tool, seen[tool].cell) for tool in sorted(seen)):
            assert "without" not in cell, (client.client, tool, cell)
            if client.view == "structured" and client.names:
                assert cell == "text", (client.client, tool)  # the server left the JSON out
            if client.view == "text":
                assert cell == "text", (client.client, tool)
    json_cells = [seen[tool].cell for client, seen in measured for tool in seen if not client.names]
    assert "JSON" in json_cells  # an unnamed client that shows the JSON was measured on it
    assert views.table(measured) == views._readme_table()
