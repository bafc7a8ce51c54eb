#!/usr/bin/env python3
"""What each MCP client the README documents hands its model from each tool of `ripsight mcp`.

For every client of `ripsight.mcp_clients.CLIENT_VIEWS`, the real MCP SDK client starts the real
server on a small tree, introduces itself with the client's ``clientInfo.name`` and calls every
tool the server lists (the registry's, so a tool added later is measured too): calls that page,
that skip files, that carry notes, a PDF, a result cut in the middle. What reaches the model is
what the client's documented behaviour takes from the answer (`ripsight.mcp_clients.model_sees`).
Where that is the structured copy alone, each fact the text states is looked for in it:

- ``answer``: the first entries the text lists;
- ``total``: the count in the text's first line;
- ``paging``: the text says how to read on (an ``offset=``, ``pages=``, or a middle cut), and
  the copy has a ``next_offset`` or ``next_page``;
- ``skipped``: each count of the text's ``Skipped:`` line;
- ``incomplete``: the text says the search stopped early, and the copy is marked so;
- ``notes``: each quoted word and number of a ``Note:`` line (an argument read another way, a
  pattern that only matches at the top level).

    python scripts/client_views.py            # prints the README's table
    python scripts/client_views.py --write    # writes it into README.md
    python scripts/client_views.py --check    # exits 1 when README.md's table differs

tests/test_mcp_views.py runs the measurement under the installed MCP SDK (CI: 1.x and 2.x) and
compares it with the README.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
BEGIN = "<!-- client-views: written by scripts/client_views.py -->"
END = "<!-- /client-views -->"

sys.path.insert(0, str(REPO / "tests"))  # the PDF builder of the tests

#: The facts `missing` looks for, in the table's order.
FACTS = ("answer", "total", "paging", "skipped", "incomplete", "notes")

#: Seconds one client's session may take (a hang guard: it takes about two).
SESSION_TIMEOUT = 120.0


def make_tree(root: Path) -> Path:
    """The measured tree: 300 small Python files (paging), a secret and a binary file (skipped),
    a long text, a 30-page PDF."""
    from _pdfs import many_pages_pdf

    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(
        "def main():\n    # TODO: wire\n    helper()\n\n\ndef helper():\n    return 1\n"
    )
    (root / "big").mkdir()
    for i in range(300):
        body = "".join(f"def fn{i}_{j}():\n    helper()  # TODO {j}\n" for j in range(5))
        (root / "big" / f"f{i:03d}.py").write_text(body)
    (root / ".env").write_text("SECRET=1\n")
    (root / "blob.bin").write_bytes(b"\0\1\2TODO" * 50)
    (root / "long.txt").write_text("".join(f"line {i}\n" for i in range(2000)))
    (root / "doc.pdf").write_bytes(many_pages_pdf(30))
    return root


#: The calls of each known tool: (what it shows, arguments). ``{ref}`` is the stored result
#: of an earlier call whose text was cut in the middle.
CALLS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "glob": [
        ("paging", {"pattern": "**/*.py"}),
        ("note", {"pattern": "*.py"}),
    ],
    "grep": [
        ("paging", {"pattern": "TODO"}),
        ("files", {"pattern": "TODO", "output_mode": "files_with_matches"}),
        ("cut", {"pattern": "def", "path": "big", "limit": 500}),
        ("note", {"pattern": "TODO", "path": "src", "respect_git_ignore": True}),
    ],
    "read_file": [
        ("paging", {"path": "long.txt"}),
        ("pdf", {"path": "doc.pdf"}),
    ],
    "outline": [("paging", {"path": "big/f000.py", "limit": 2})],
    "find_definitions": [("one", {"name": "helper"})],
    "find_references": [("paging", {"name": "helper"})],
    "read_result": [("ref", {"ref": "{ref}", "offset": 166})],
}


def guessed_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments for a tool `CALLS` does not know, from its input schema's required
    properties: a path names the tree's source file, any other string is a name in it."""
    arguments: dict[str, Any] = {}
    properties = schema.get("properties", {})
    for name in schema.get("required", []):
        kind = properties.get(name, {}).get("type")
        if kind == "integer":
            arguments[name] = 1
        elif kind == "boolean":
            arguments[name] = False
        else:
            arguments[name] = "src/app.py" if "path" in name else "helper"
    return arguments


# -- what the text states, and whether the structured copy says it too ---------------------------

_NUMBER = re.compile(r"\d[\d,]*")
_QUOTED = re.compile(r'"([^"]+)"')
_WORD = re.compile(r"[A-Za-z_][\w./-]{3,}")
_READ_ON = re.compile(r"offset=\d|pages=\"|page=\d|cut from the middle")


def _numbers(text: str) -> list[int]:
    return [int(match.replace(",", "")) for match in _NUMBER.findall(text)]


def _values(data: Any) -> Iterator[Any]:
    """Every scalar in `data`, nested lists and objects walked."""
    if isinstance(data, dict):
        for value in data.values():
            yield from _values(value)
    elif isinstance(data, list):
        for value in data:
            yield from _values(value)
    else:
        yield data


def missing(text: str, structured: dict[str, Any]) -> list[str]:
    """The facts (`FACTS`) the text states and the structured copy does not."""
    dump = json.dumps(structured, ensure_ascii=False)
    numbers = {value for value in _values(structured) if isinstance(value, int)}
    lines = text.splitlines()
    notes = [line for line in lines if line.startswith("Note:")]
    body = [line for line in lines if not line.startswith(("Note:", "Skipped:", "["))]
    gone: list[str] = []
    # answer: the first word of each of the first entries (not the sentence on reading on).
    entries = [_WORD.search(line) for line in body[1:4] if not _READ_ON.search(line)]
    if any(word is not None and word.group() not in dump for word in entries):
        gone.append("answer")
    # total: the first count of the header (the text's first line that is not a note).
    header = _numbers(body[0]) if body else []
    if header and header[0] not in numbers:
        gone.append("total")
    if _READ_ON.search(text) and structured.get("next_offset", structured.get("next_page")) is None:
        gone.append("paging")
    skipped = [line for line in lines if line.startswith("Skipped:")]
    if any(count not in numbers for line in skipped for count in _numbers(line)):
        gone.append("skipped")
    if re.search(r"\bincomplete\b|time budget", text) and structured.get("incomplete") is not True:
        gone.append("incomplete")
    for note in notes:
        said = _QUOTED.findall(note)
        if any(word not in dump for word in said) or any(
            count not in numbers for count in _numbers(note)
        ):
            gone.append("notes")
            break
    return gone


# -- the measurement -----------------------------------------------------------------------------


@dataclass
class Seen:
    """What one client's model got from one tool, over its calls."""

    cells: set[str] = field(default_factory=set)
    missing: set[str] = field(default_factory=set)

    def add(self, view: str, result: dict[str, Any]) -> None:
        from ripsight.mcp_clients import model_sees

        structured = result.get("structuredContent")
        text = model_sees("text", result)
        if view == "text" or structured is None:
            self.cells.add("text")
        elif view == "both":
            self.cells.add("text + JSON")
        else:
            assert model_sees("structured", result) == json.dumps(structured, ensure_ascii=False)
            self.cells.add("JSON")
            self.missing |= set(missing(text, structured))

    @property
    def cell(self) -> str:
        """The table's cell: what reached the model, and what the JSON lacked."""
        cell = " or ".join(sorted(self.cells, key=("text", "text + JSON", "JSON").index))
        if self.missing:
            cell += ", without " + ", ".join(f for f in FACTS if f in self.missing)
        return cell


def _wire(value: Any) -> Any:
    return value.model_dump(mode="json", by_alias=True)


async def _session(
    root: Path, client_name: str | None, body: Callable[[Any], Awaitable[Any]]
) -> Any:
    from mcp import ClientSession, types
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ripsight.cli", "mcp", "--no-index", "--root", str(root)],
        env=dict(os.environ),  # SDK 1.x passes on only a few variables by default
    )
    options: dict[str, Any] = {}
    if client_name is not None:
        options["client_info"] = types.Implementation(name=client_name, version="0")
    with tempfile.TemporaryFile("w+") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, **options) as session,
        ):
            await session.initialize()
            return await body(session)


async def _client(root: Path, client_name: str | None, view: str) -> dict[str, Seen]:
    """Calls every listed tool as the client `client_name` (None: the SDK's own name)."""

    async def body(session: Any) -> dict[str, Seen]:
        seen: dict[str, Seen] = {}
        listed = _wire(await session.list_tools())["tools"]
        ref = "ref_0"
        # read_result last: it reads what an earlier call stored.
        for tool in sorted(listed, key=lambda tool: tool["name"] == "read_result"):
            name = tool["name"]
            calls = CALLS.get(name) or [("guessed", guessed_arguments(tool["inputSchema"]))]
            seen[name] = Seen()
            for _, arguments in calls:
                arguments = {k: ref if v == "{ref}" else v for k, v in arguments.items()}
                result = _wire(await session.call_tool(name, arguments))
                found = re.search(r"ref_[0-9a-f]+", model_text(result))
                ref = found.group() if found else ref
                seen[name].add(view, result)
        return seen

    return await asyncio.wait_for(_session(root, client_name, body), SESSION_TIMEOUT)  # type: ignore[no-any-return]


def model_text(result: dict[str, Any]) -> str:
    from ripsight.mcp_clients import model_sees

    return model_sees("text", result)


def measure(root: Path | None = None) -> list[tuple[Any, dict[str, Seen]]]:
    """Each documented client with what its model got from each tool."""
    from ripsight.mcp_clients import CLIENT_VIEWS

    with tempfile.TemporaryDirectory() as tmp:
        tree = root or make_tree(Path(tmp) / "repo")
        return [
            (client, asyncio.run(_client(tree, (client.names or (None,))[0], client.view)))
            for client in CLIENT_VIEWS
        ]


_SEES = {
    "text": "the text",
    "structured": "the JSON alone when there is one",
    "both": "the text and the JSON",
}


def table(measured: list[tuple[Any, dict[str, Seen]]]) -> str:
    """The README's table: a row per client, a column per tool."""
    from ripsight.mcp_clients import TEXT_ONLY_CLIENTS

    tools = sorted({name for _, seen in measured for name in seen})
    rows = [
        "| client | its model sees | " + " | ".join(tools) + " | how we know |",
        "|---" * (len(tools) + 3) + "|",
    ]
    for client, seen in measured:
        sees = _SEES[client.view]
        if set(client.names) & TEXT_ONLY_CLIENTS:
            sees += "; ripsight sends it the text only"
        cells = [seen[name].cell if name in seen else "not listed" for name in tools]
        rows.append(f"| {client.client} | {sees} | " + " | ".join(cells) + f" | {client.source} |")
    return "\n".join(rows) + "\n"


def _readme_table() -> str:
    text = README.read_text()
    start, end = text.index(BEGIN) + len(BEGIN) + 1, text.index(END)
    return text[start:end]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the table into README.md")
    parser.add_argument("--check", action="store_true", help="exit 1 when README.md differs")
    options = parser.parse_args()
    made = table(measure())
    if options.check:
        if made != _readme_table():
            print("README.md's client table differs from the measurement:\n" + made)
            return 1
        return 0
    if options.write:
        text = README.read_text()
        start, end = text.index(BEGIN) + len(BEGIN) + 1, text.index(END)
        README.write_text(text[:start] + made + text[end:])
        return 0
    print(made, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
