"""The MCP clients the README documents, and what each hands its model from a tool result.

A result of `ripsight mcp` carries the text (``content``) and, for a tool with a typed result,
the structured copy (``structuredContent``). Clients differ in which of the two reaches the
model, and ripsight cannot see that over the protocol: it is declared here once, with where it
is written down, and the server reads it (`TEXT_ONLY_CLIENTS`). `scripts/client_views.py`
measures, through the real MCP SDK client against the real server, what each client's model
gets from every tool of the registry, and writes the README's table.

    >>> model_sees("structured", {"content": [{"type": "text", "text": "3 files"}],
    ...                           "structuredContent": {"total": 3}})
    '{"total": 3}'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["CLIENT_VIEWS", "TEXT_ONLY_CLIENTS", "ClientView", "View", "model_sees"]

#: What a client hands its model from a tool result: ``"text"`` the text blocks only;
#: ``"structured"`` the ``structuredContent`` as JSON when the result has one, else the text;
#: ``"both"`` the text, then the JSON.
View = Literal["text", "structured", "both"]


@dataclass(frozen=True)
class ClientView:
    """One client as the README names it: the ``clientInfo.name`` values it sends at
    ``initialize`` (none when it is a library whose name is its host's, or not known), what
    its model sees (`View`) and where that is written down."""

    client: str
    names: tuple[str, ...]
    view: View
    source: str


#: The clients the README documents, in its order.
CLIENT_VIEWS: tuple[ClientView, ...] = (
    ClientView(
        "Claude Desktop",
        ("claude-ai",),
        "text",
        "no public statement found; treated as the text, which it shows the person",
    ),
    ClientView(
        "Claude Code",
        ("claude-code",),
        "structured",
        "anthropics/claude-code#79944 (2.1.280, both with and without an outputSchema), #55677",
    ),
    ClientView(
        "Codex",
        ("codex-mcp-client",),
        "structured",
        "openai/codex#38287; codex-rs/protocol/src/models.rs prefers a non-null "
        "structuredContent (cited in vercel-labs/fx#609, anomalyco/opencode#32074)",
    ),
    ClientView(
        "Gemini CLI",
        ("gemini-cli-mcp-client",),
        "text",
        "google-gemini/gemini-cli packages/core/src/tools/mcp-tool.ts: "
        "transformMcpContentToParts reads only `content`",
    ),
    ClientView(
        "OpenAI Agents SDK",
        (),
        "text",
        "agents.mcp.util: the text unless use_structured_content=True",
    ),
    ClientView(
        "LangChain (langchain-mcp-adapters)",
        (),
        "text",
        "the ToolMessage content is the text; the JSON is its artifact",
    ),
    ClientView(
        "PydanticAI",
        (),
        "structured",
        "pydantic_ai.mcp returns structuredContent when present "
        "(tests/test_mcp_clients.py runs it)",
    ),
)

#: ``clientInfo.name`` of the clients whose model sees only the ``structuredContent`` of a
#: result that has one: the server sends them the text only (no ``outputSchema``, no
#: ``structuredContent``), so the model reads the bounded text with its paging hints and
#: notes, which the structured copy does not all carry (`scripts/client_views.py` measures it).
TEXT_ONLY_CLIENTS: frozenset[str] = frozenset(
    name for client in CLIENT_VIEWS if client.view == "structured" for name in client.names
)


def model_sees(view: View, result: Mapping[str, Any]) -> str:
    """What a client with `view` hands its model from `result`, a ``CallToolResult`` in its
    wire form (camelCase): its text blocks joined, or the structured copy as JSON."""
    text = "\n".join(str(block.get("text", "")) for block in result.get("content") or () if block)
    structured = result.get("structuredContent")
    if view == "text" or structured is None:
        return text
    data = json.dumps(structured, ensure_ascii=False)
    return data if view == "structured" else f"{text}\n{data}"
