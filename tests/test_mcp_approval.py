"""`ripsight mcp --ask GLOB` through the official SDK clients (issue 28): the question reaches
the person through the negotiated protocol's mechanism, the 2026-07-28 input request (SDK 2.x's
`Client`, which answers it with its elicitation callback and calls again) or
``elicitation/create`` (the handshake versions: SDK 2.x's and 1.x's `ClientSession`); accepted,
declined and cancelled; a client that declares no elicitation; the operation log of each.

.ci/run runs this module under both SDK majors.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from _mcp_helpers import (
    ALLOW_ONCE,
    ALLOW_SESSION,
    APPROVAL_MARKER,
    DECLINE,
    DENY,
    REFUSAL_IDS,
    REFUSALS,
    check_refused_by_the_person,
    make_private_tree,
    wire,
)
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client

pytestmark = pytest.mark.slow  # an MCP server process per session

SDK_MAJOR = int(importlib.metadata.version("mcp").split(".")[0])
#: The SDK 1.x client awaits the elicitation callback inside its receive loop: nothing else the
#: server sends (an answer, a progress notification) reaches it while the person decides.
ONE_RECEIVE_LOOP = pytest.mark.skipif(
    SDK_MAJOR < 2,
    reason="the SDK 1.x client awaits the elicitation callback inside its receive loop, so no "
    "other message reaches it while the person decides",
)
# A hang guard, not a speed assertion.
SESSION_TIMEOUT = 60.0
MARKER = APPROVAL_MARKER

#: How the question travels: an input request (2026-07-28, SDK 2.x's Client only), or
#: elicitation/create (a handshake version, either SDK's ClientSession).
MECHANISMS = [
    pytest.param(
        "input_request",
        marks=pytest.mark.skipif(
            SDK_MAJOR < 2, reason="the 2026-07-28 input request exists in the MCP SDK 2.x only"
        ),
    ),
    "elicitation",
]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_private_tree(tmp_path / "repo")


def _server(root: Path, log: Path, *flags: str) -> StdioServerParameters:
    args = ["-m", "ripsight.cli", "mcp", "--root", str(root), "--no-index", "--log", str(log)]
    # The whole environment (the SDK passes a few variables only): PYTHONPATH names the
    # package under test when it is not the one installed.
    return StdioServerParameters(command=sys.executable, args=[*args, *flags], env=dict(os.environ))


Answer = Callable[[str], Any]


class Person:
    """The client's elicitation callback: records each question, answers from a list."""

    def __init__(self, *answers: dict[str, Any]) -> None:
        self.answers = list(answers)
        self.questions: list[str] = []

    async def __call__(self, context: Any, params: Any) -> Any:
        self.questions.append(params.message)
        answer = self.answers.pop(0)
        return types.ElicitResult.model_validate(answer)


def run(
    params: StdioServerParameters,
    mechanism: str,
    person: Callable[[Any, Any], Awaitable[Any]] | None,
    body: Callable[[Callable[[str, dict[str, Any]], Awaitable[Any]]], Awaitable[Any]],
    errlog: Path,
) -> Any:
    """Starts the server, connects as `mechanism` says (with `person` as the elicitation
    callback, None for a client without elicitation), runs `body` with a call function."""

    async def main() -> Any:
        with errlog.open("w") as err:
            if mechanism == "input_request":
                from mcp.client import Client

                stdio = stdio_client(params, errlog=err)
                async with Client(stdio, elicitation_callback=person) as client:
                    assert client.protocol_version >= "2026-07-28", client.protocol_version
                    return await body(client.call_tool)
            async with (
                stdio_client(params, errlog=err) as (read, write),
                ClientSession(read, write, elicitation_callback=person) as session,
            ):
                init = await session.initialize()
                assert wire(init)["protocolVersion"] < "2026-07-28"
                return await body(session.call_tool)

    result = asyncio.run(asyncio.wait_for(main(), SESSION_TIMEOUT))
    assert "Traceback" not in errlog.read_text(), errlog.read_text()
    return result


def _text(result: Any) -> tuple[str, bool]:
    data = wire(result)
    return data["content"][0]["text"], bool(data.get("isError"))


def _records(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_an_accepted_question_runs_the_call_once(
    tree: Path, tmp_path: Path, mechanism: str
) -> None:
    log = tmp_path / "ops.jsonl"
    person = Person(ALLOW_ONCE, ALLOW_ONCE)

    async def body(call: Callable[[str, dict[str, Any]], Awaitable[Any]]) -> Any:
        free = await call("read_file", {"path": "src/app.py"})
        asked = await call("read_file", {"path": "private/notes.txt"})
        again = await call("read_file", {"path": "private/notes.txt"})
        other = await call("read_file", {"path": "private/notes.txt", "offset": 1, "limit": 5})
        return [_text(r) for r in (free, asked, again, other)]

    params = _server(tree, log, "--ask", "private/**")
    free, asked, again, other = run(params, mechanism, person, body, tmp_path / "err.log")
    assert not free[1] and "def main" in free[0]
    assert not asked[1] and MARKER in asked[0], asked
    assert not again[1] and MARKER in again[0]  # the same input: approved before
    assert not other[1] and MARKER in other[0]  # another input: asked again
    assert len(person.questions) == 2
    assert "read_file" in person.questions[0] and "private/notes.txt" in person.questions[0]
    assert "'private/**'" in person.questions[0]
    approvals = [r["approval"] for r in _records(log) if r["approval"]]
    decided = [(a["decision"], a["decided_by"]) for a in approvals]
    if mechanism == "input_request":
        # Each question first answers with the input request, then the call runs on the retry.
        assert decided == [
            ("asked_later", "callback"),
            ("allowed", "callback"),
            ("allowed", "approved_before"),
            ("asked_later", "callback"),
            ("allowed", "callback"),
        ]
    else:
        assert decided == [
            ("allowed", "callback"),
            ("allowed", "approved_before"),
            ("allowed", "callback"),
        ]
    assert MARKER not in log.read_text()


@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize(("answer", "says"), REFUSALS, ids=REFUSAL_IDS)
def test_a_declined_or_cancelled_question_refuses_the_call(
    tree: Path, tmp_path: Path, mechanism: str, answer: dict[str, Any], says: str
) -> None:
    log = tmp_path / "ops.jsonl"

    async def body(call: Callable[[str, dict[str, Any]], Awaitable[Any]]) -> Any:
        return _text(await call("grep", {"pattern": "QZX", "path": "private"}))

    params = _server(tree, log, "--ask", "private/**")
    text, is_error = run(params, mechanism, Person(answer), body, tmp_path / "err.log")
    check_refused_by_the_person(text, is_error, says, log)


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_allowed_for_the_session_covers_the_tool_on_that_path(
    tree: Path, tmp_path: Path, mechanism: str
) -> None:
    log = tmp_path / "ops.jsonl"
    person = Person(ALLOW_SESSION, DENY)

    async def body(call: Callable[[str, dict[str, Any]], Awaitable[Any]]) -> Any:
        results = [
            await call("grep", {"pattern": "QZX", "path": "private"}),
            await call("grep", {"pattern": "more", "path": "private"}),
            await call("read_file", {"path": "private/more.txt"}),
        ]
        return [_text(r) for r in results]

    params = _server(tree, log, "--ask", "private/**")
    first, second, read = run(params, mechanism, person, body, tmp_path / "err.log")
    assert not first[1] and not second[1] and MARKER in second[0]
    assert read[1] and "read_file was not run" in read[0]  # another tool: asked, denied
    assert len(person.questions) == 2
    rules = [r["approval"] for r in _records(log) if r["tool"] == "grep" and r["approval"]]
    assert rules[-1]["decided_by"] == "session_rule"
    assert rules[-1]["rule"] == {"tool": "grep", "path": "private"}


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_client_without_elicitation_is_told_how_to_allow_the_call(
    tree: Path, tmp_path: Path, mechanism: str
) -> None:
    log = tmp_path / "ops.jsonl"

    async def body(call: Callable[[str, dict[str, Any]], Awaitable[Any]]) -> Any:
        return _text(await call("read_file", {"path": "private/notes.txt"}))

    params = _server(tree, log, "--ask", "private/**")
    text, is_error = run(params, mechanism, None, body, tmp_path / "err.log")
    assert is_error and MARKER not in text
    assert "it declares no elicitation" in text
    assert "start ripsight mcp without the --ask rule that covers them" in text
    assert _records(log)[-1]["code"] == "not_approved"


def test_a_person_who_does_not_answer_in_time_is_a_refusal(tree: Path, tmp_path: Path) -> None:
    log = tmp_path / "ops.jsonl"

    async def slow(context: Any, params: Any) -> Any:
        await asyncio.sleep(3)
        return types.ElicitResult.model_validate(ALLOW_ONCE)

    async def body(call: Callable[[str, dict[str, Any]], Awaitable[Any]]) -> Any:
        return _text(await call("read_file", {"path": "private/notes.txt"}))

    flags = ("--ask", "private/**", "--approval-deadline", "0.5")
    text, is_error = run(_server(tree, log, *flags), "elicitation", slow, body, tmp_path / "e.log")
    assert is_error and "and no answer came within 0.5 s, so it is refused." in text, text
    assert _records(log)[-1]["approval"]["decided_by"] == "deadline"


@ONE_RECEIVE_LOOP
def test_progress_says_that_the_call_waits_for_the_person(tree: Path, tmp_path: Path) -> None:
    """Issue 37, item 10: while the question waits (elicitation/create sent, no answer yet), the
    progress notifications of the call say so; once answered, the call runs."""
    log = tmp_path / "ops.jsonl"
    seen: list[str] = []
    answered = asyncio.Event()

    async def slow(context: Any, params: Any) -> Any:
        await asyncio.sleep(2.0)  # four progress periods of the server's (0.5 s)
        answered.set()
        return types.ElicitResult.model_validate(ALLOW_ONCE)

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen.append(f"{'answered' if answered.is_set() else 'asking'}: {message}")

    async def body(call: Any) -> Any:
        return _text(
            await call("read_file", {"path": "private/notes.txt"}, progress_callback=progress)
        )

    flags = ("--ask", "private/**", "--approval-deadline", "30")
    text, is_error = run(_server(tree, log, *flags), "elicitation", slow, body, tmp_path / "e.log")
    assert not is_error and MARKER in text, text
    asking = [m for m in seen if m.startswith("asking: ")]
    assert len(asking) >= 2, seen
    assert all(
        m.startswith("asking: read_file waiting for the person to approve it (") for m in asking
    ), seen


def test_ask_rules_come_from_a_config_file_too(tree: Path, tmp_path: Path) -> None:
    config = tmp_path / "ripsight.toml"
    config.write_text('ask = ["*.txt"]\ndeny = ["app.py"]\n')
    log = tmp_path / "ops.jsonl"

    async def body(call: Callable[[str, dict[str, Any]], Awaitable[Any]]) -> Any:
        return [
            _text(await call("read_file", {"path": "private/more.txt"})),
            _text(await call("read_file", {"path": "src/app.py"})),
        ]

    params = _server(tree, log, "--config", str(config))
    asked, denied = run(params, "elicitation", Person(DECLINE), body, tmp_path / "err.log")
    assert asked[1] and "'*.txt'" in asked[0]
    assert denied[1] and "denied by the workspace policy (rule 'app.py')" in denied[0]


def test_mcp_help_documents_the_ask_flags() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ripsight.cli", "mcp", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    for flag in ("--ask GLOB", "--config FILE", "--approval-deadline SECONDS"):
        assert flag in done.stdout


@ONE_RECEIVE_LOOP
@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_call_waiting_for_the_person_holds_no_slot(
    tree: Path, tmp_path: Path, mechanism: str
) -> None:
    log = tmp_path / "ops.jsonl"
    other_answered = asyncio.Event()

    async def person(context: Any, params: Any) -> Any:
        # Answers once the other call was answered: with one slot, a waiting call that held it
        # would keep the other from running, and this would give up.
        try:
            await asyncio.wait_for(other_answered.wait(), 20)
        except asyncio.TimeoutError:
            return types.ElicitResult.model_validate(DENY)
        return types.ElicitResult.model_validate(ALLOW_ONCE)

    async def body(call: Callable[[str, dict[str, Any]], Awaitable[Any]]) -> Any:
        async def other() -> Any:
            await asyncio.sleep(0.3)  # after the asking call started
            result = await call("read_file", {"path": "src/app.py"})
            other_answered.set()
            return result

        asked, free = await asyncio.gather(
            call("read_file", {"path": "private/notes.txt"}), other()
        )
        return _text(asked), _text(free)

    flags = ("--ask", "private/**", "--max-concurrent-calls", "1")
    asked, free = run(_server(tree, log, *flags), mechanism, person, body, tmp_path / "e.log")
    assert not free[1] and "def main" in free[0]
    assert not asked[1] and MARKER in asked[0], asked
