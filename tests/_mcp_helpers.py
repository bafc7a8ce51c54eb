"""Helpers of the MCP tests (server, clients, wheel): the small repository most of them serve, a
session with the MCP SDK's stdio client, a tree whose search outlasts any client's patience, the
wire form of SDK objects, and a hand-speaking JSON-RPC client.

Kept free of MCP SDK imports at import time (the functions that need the SDK import it when
called) so that a test module can import it before it decides to skip.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import queue
import random
import re
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from _children import Lines, stop
from _pdfs import text_pdf

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters

# A hang guard, not a speed assertion: a broken server must fail the test, not block the run.
SESSION_TIMEOUT = 60.0


def make_demo_tree(tmp_path: Path) -> Path:
    """A small repository under `tmp_path`, plus a file beside it that the server must never
    read."""
    root = tmp_path / "repo"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "build").mkdir()
    (root / "src" / "app.py").write_text(
        "import os\n\n\ndef main():\n    # TODO: read the config\n    return os.getcwd()\n"
    )
    (root / "src" / "pkg" / "__init__.py").write_text("from .util import helper\n")
    (root / "src" / "pkg" / "util.py").write_text(
        "def helper(x):\n    return x * 2  # TODO tests\n"
    )
    (root / "README.md").write_text("# demo\n\nRun `main()`.\n")
    (root / "build" / "generated.py").write_text("TODO = 'generated'\n")
    (root / ".env").write_text("API_KEY=TODO-secret\n")
    (root / "notes.secret").write_text("TODO private\n")
    (tmp_path / "outside.txt").write_text("TODO outside the root\n")
    (root / "doc.pdf").write_bytes(text_pdf(["First page", "Second page"]))
    return root


def server_params(root: Path | None, *flags: str, cwd: Path | None = None) -> StdioServerParameters:
    """`ripsight mcp` as this Python runs it (the checkout's through PYTHONPATH, or the
    installed wheel), serving `root` (its working directory when None) with `flags`. It gets
    this process's whole environment: the SDK would pass only a few variables, and the server
    would then write its index files into the user's cache, not the test session's."""
    from mcp.client.stdio import StdioServerParameters

    args = ["-m", "ripsight.cli", "mcp"]
    if root is not None:
        args += ["--root", str(root)]
    return StdioServerParameters(
        command=sys.executable,
        args=[*args, *flags],
        cwd=str(cwd) if cwd else None,
        env=dict(os.environ),
    )


def run_session(
    params: StdioServerParameters,
    body: Callable[[ClientSession], Awaitable[Any]],
    errlog: Path,
) -> Any:
    """Starts the server, initializes a session, runs `body`, shuts down; returns body's value."""
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    async def main() -> Any:
        with errlog.open("w") as err:
            async with (
                stdio_client(params, errlog=err) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return await body(session)

    async def guarded() -> Any:
        return await asyncio.wait_for(main(), SESSION_TIMEOUT)

    result = asyncio.run(guarded())
    assert "Traceback" not in errlog.read_text(), errlog.read_text()
    return wire(result)


def without_timing(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key != "elapsed_ms"}


def text_of(result: Any) -> str:
    """The one text block of a tool result in wire form."""
    assert len(result["content"]) == 1 and result["content"][0]["type"] == "text"
    return str(result["content"][0]["text"])


def expected_text(root: Path, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
    """The text and error flag the registry gives for the call in this process."""
    from ripsight import ToolCall, default_registry

    expected = default_registry(root).execute(ToolCall("local", name, arguments))
    return expected.content, expected.is_error


#: A grep the engine answers slowly on `make_slow_tree`: a Unicode word boundary beside
#: non-ASCII letters keeps the regex engine off its fast automata, and no literal narrows the
#: search. About 3.5 MB/s per core on the development machine, so the 150 MB tree takes about
#: 20 s on two cores without a time budget; each 0.7 MB file takes about 0.2 s.
SLOW_GREP: dict[str, Any] = {"pattern": r"(?:\b\w+\s+){6}\b\w{20}\b"}

_WORDS = ("café", "naïve", "über", "straße", "alpha", "beta", "gamma", "déjà", "vu", "kernel")


def make_slow_tree(root: Path, files: int = 200, lines_per_file: int = 10_000) -> Path:
    """`files` files of `lines_per_file` lines of twelve short words, some with non-ASCII
    letters (150 MB by default): `SLOW_GREP` finds nothing in them and must read all of it to
    say so."""
    rng = random.Random(7)
    block = "".join(
        " ".join(rng.choice(_WORDS) for _ in range(12)) + "\n" for _ in range(lines_per_file)
    )
    for i in range(files):
        directory = root / f"d{i % 20:02d}"
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"f{i:04d}.txt").write_text(block, encoding="utf-8")
    return root


#: The text of the files an ``--ask private/**`` rule covers (`make_private_tree`): a refused
#: call's answer and the operation log never show it.
APPROVAL_MARKER = "QZX-MCP-APPROVAL-9d41"

#: A person's answers to the approval question (``ElicitResult`` in wire form).
ALLOW_ONCE = {"action": "accept", "content": {"decision": "allow once"}}
ALLOW_SESSION = {"action": "accept", "content": {"decision": "allow for this session"}}
DENY = {"action": "accept", "content": {"decision": "deny"}}
DECLINE = {"action": "decline"}
CANCEL = {"action": "cancel"}
#: The answers that refuse a call, with what the refusal says, and their test ids.
REFUSALS = [
    (DENY, "and it was not given: The person declined."),
    (DECLINE, "and it was not given: The person declined."),
    (CANCEL, "and it was not given: The person dismissed the question."),
]
REFUSAL_IDS = ["deny", "decline", "cancel"]


def check_refused_by_the_person(text: str, is_error: bool, says: str, log: Path) -> None:
    """A grep the person refused: an error result saying why (`says`), nothing of the private
    files, and the operation log's last record a denial by the person's answer."""
    assert is_error and APPROVAL_MARKER not in text
    assert text.startswith("grep was not run: it needs a person's approval ("), text
    assert says in text, text
    final = json.loads(log.read_text().splitlines()[-1])
    assert (final["status"], final["code"]) == ("denied", "not_approved")
    assert (final["approval"]["decision"], final["approval"]["decided_by"]) == (
        "denied",
        "callback",
    )


def check_question_names_the_call(question: str) -> None:
    """The question put to the person for read_file on private/notes.txt names the call and
    the rule that asks."""
    assert "read_file" in question and "private/notes.txt" in question, question
    assert "'private/**'" in question, question


def check_session_rule_for_grep(log: Path) -> None:
    """The last grep the log records ran under the session rule the person gave (grep on
    private/)."""
    rules = [r["approval"] for r in _log(log) if r["tool"] == "grep" and r["approval"]]
    assert rules[-1]["decided_by"] == "session_rule"
    assert rules[-1]["rule"] == {"tool": "grep", "path": "private"}


def check_told_how_to_allow(text: str, is_error: bool, log: Path) -> None:
    """A call needing approval from a client that declares no elicitation: refused, saying how
    to allow such calls, with nothing of the private file."""
    assert is_error and APPROVAL_MARKER not in text
    assert "it declares no elicitation" in text
    assert "start ripsight mcp without the --ask rule that covers them" in text
    assert _log(log)[-1]["code"] == "not_approved"


def _log(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def make_private_tree(root: Path) -> Path:
    """src/app.py, free to read, and two files under private/ holding `APPROVAL_MARKER`."""
    (root / "src").mkdir(parents=True)
    (root / "private").mkdir()
    (root / "src" / "app.py").write_text("def main():\n    return 1\n")
    (root / "private" / "notes.txt").write_text(f"{APPROVAL_MARKER} private notes\n")
    (root / "private" / "more.txt").write_text(f"{APPROVAL_MARKER} more\n")
    return root


def make_roots(parent: Path) -> list[Path]:
    """Three roots under `parent` (web, api, docs), each with src/main.txt saying TODO."""
    made = []
    for name, text in (("web", "TODO in web\n"), ("api", "TODO in api\n"), ("docs", "TODO docs\n")):
        root = parent / name
        (root / "src").mkdir(parents=True)
        (root / "src" / "main.txt").write_text(text)
        made.append(root)
    return made


def check_image_answer(answer: dict[str, Any], root: Path, path: str) -> None:
    """read_file's answer on the image `path` of `root`, in wire form: the text and the image
    block as the registry gives them, and a structured copy without the image's bytes."""
    from ripsight import ToolCall, default_registry

    expected = default_registry(root).execute(ToolCall("local", "read_file", {"path": path}))
    assert answer["isError"] is False
    text, picture = answer["content"]
    assert (text["type"], text["text"]) == ("text", expected.content)
    assert picture["type"] == "image" and picture["mimeType"] == expected.images[0].media_type
    assert base64.b64decode(picture["data"]) == expected.images[0].data
    structured = answer["structuredContent"]
    assert "data" not in structured and structured["byte_size"] == len(expected.images[0].data)


def wire(value: Any) -> Any:
    """SDK objects as their JSON-RPC form (camelCase names), lists and tuples item by item.

    SDK 1.x models name their fields as the wire does (``structuredContent``), SDK 2.x in snake
    case (``structured_content``); the wire form is the same under both."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, (list, tuple)):
        return type(value)(wire(item) for item in value)
    return value


class RawClient:
    """`ripsight mcp` in a subprocess, spoken to by hand: requests and notifications the SDK
    clients do not send on demand (``notifications/cancelled``, closing stdin mid-call), with
    stderr read line by line as it comes."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert self.process.stdout is not None
        self.stdout_lines = Lines(self.process.stdout)
        self.stderr_lines: queue.Queue[str] = queue.Queue()
        self.stderr_seen: list[str] = []
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr_lines.put(line.decode("utf-8", "replace"))

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        self.process.stdin.flush()

    def response(self, request_id: int, timeout: float = 60) -> dict[str, Any]:
        """The answer to request `request_id`; fails when none comes within `timeout` s."""
        deadline = time.monotonic() + timeout
        while True:
            line = self.stdout_lines.next(max(0.0, deadline - time.monotonic()))
            assert line, "the server closed stdout before answering"
            message = json.loads(line)
            if message.get("id") == request_id:
                return message  # type: ignore[no-any-return]

    def initialize(self) -> dict[str, Any]:
        self.send(
            {
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"},
                },
            }
        )
        init = self.response(0)
        self.send({"method": "notifications/initialized"})
        return init

    def wait_for_log(self, pattern: str, timeout: float) -> re.Match[str]:
        """The first stderr line (from now on) matching `pattern`; fails after `timeout` s."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                line = self.stderr_lines.get(timeout=max(0.0, remaining))
            except queue.Empty:
                raise AssertionError(
                    f"no stderr line matched {pattern!r} within {timeout} s; stderr so far:\n"
                    + "".join(self.stderr_seen[-30:])
                ) from None
            self.stderr_seen.append(line)
            match = re.search(pattern, line)
            if match:
                return match

    def close(self) -> None:
        stop(self.process)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
