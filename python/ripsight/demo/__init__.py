"""`ripsight demo`: an offline, scripted agent loop that shows the whole protocol at work.

A scripted "model" is asked, on a small repository generated deterministically in a temporary
directory, why its test is red. It answers in tool calls that are streamed chunk by chunk in the
three providers' formats (OpenAI chat, Anthropic, OpenAI Responses), merged by
`ToolCallAccumulator`, run by `Registry.execute_many`, and fed back. It walks glob -> grep ->
read_file, calls one tool that does not exist and sends one call with malformed arguments, then
states its conclusion. ``--selftest`` runs named checks and ends with ``N passed, M failed``.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import orjson

from ..providers import follow_up
from ..registry import Registry, default_registry
from ..streaming import ToolCallAccumulator
from ..types import ToolCall, ToolResult
from . import selftest
from .model import DemoReport, ScriptedModel
from .repo import QUESTION, make_demo_repo
from .selftest import CHECKS
from .streams import anthropic_events, openai_chat_chunks, responses_events

__all__ = [
    "CHECKS",
    "DemoReport",
    "anthropic_events",
    "main",
    "make_demo_repo",
    "openai_chat_chunks",
    "responses_events",
    "run_demo",
    "run_selftest",
]


def _preview(text: str, lines: int = 6, width: int = 96) -> list[str]:
    all_lines = text.splitlines()
    shown = all_lines[:lines]
    out: list[str] = []
    for line in shown:
        if len(line) <= width:
            out.append("    | " + line)
        else:  # an error sentence: wrap it so the whole guidance is visible
            wrapped = textwrap.wrap(line, width) or [""]
            out += ["    | " + wrapped[0]] + ["    |   " + w for w in wrapped[1:]]
    if len(all_lines) > len(shown):
        out.append(f"    | ... ({len(all_lines) - len(shown)} more lines)")
    return out


def _describe_follow_up(provider: str, messages: list[dict[str, Any]]) -> str:
    if provider == "openai-responses":
        calls = sum(m.get("type") == "function_call" for m in messages)
        outputs = sum(m.get("type") == "function_call_output" for m in messages)
        return (
            f"{calls} function_call + {outputs} function_call_output input items (OpenAI Responses)"
        )
    if provider == "anthropic":
        blocks = len(messages[1]["content"])
        return (
            f"assistant message with {blocks} tool_use blocks + user message with {blocks} "
            "tool_result blocks (Anthropic)"
        )
    tools = len(messages) - 1
    return f"assistant message with {tools} tool_calls + {tools} tool messages (OpenAI chat)"


def _card(number: int, call: ToolCall, result: ToolResult, out: TextIO) -> None:
    status = f"ERROR ({result.meta.get('code')})" if result.is_error else "ok"
    print(f"-- call {number}: {call.name}  [id {call.id}]", file=out)
    print(f"   arguments: {call.arguments}", file=out)
    print(
        f"   result:    {status}, {len(result.content):,} of {result.meta['original_chars']:,} "
        f"characters fed back, code {result.meta['code']}"
        + (f", stored as {result.meta['ref']}" if result.meta.get("truncated") else ""),
        file=out,
    )


def _epilogue(registry: Registry, out: TextIO) -> None:
    """After the investigation: a result stored by reference and read back, then the log."""
    print(file=out)
    print("== after the answer: a result too long for one reply is stored by reference", file=out)
    whole = ToolCall("call_demo_8", "read_file", '{"path": "data/prices.csv", "limit": 2000}')
    result = registry.execute(whole)
    _card(8, whole, result, out)
    note = next((line for line in result.content.splitlines() if line.startswith("[...")), "")
    for line in textwrap.wrap(note, 96):
        print(f"    | {line}", file=out)
    ref = result.meta.get("ref")
    if ref:
        match = re.search(r"offset=(\d+)", note)
        offset = int(match.group(1)) if match else 1
        page = ToolCall(
            "call_demo_9",
            "read_result",
            orjson.dumps({"ref": ref, "offset": offset, "limit": 3}).decode(),
        )
        paged = registry.execute(page)
        _card(9, page, paged, out)
        for line in _preview(paged.content):
            print(line, file=out)
    print(file=out)
    print("== the operation log (reg.log.records(): compact, never file contents)", file=out)
    print(
        f"   {'call id':<14} {'tool':<11} {'status':<15} {'outcome':<8} {'code':<15} chars",
        file=out,
    )
    for record in registry.log.records():
        print(
            f"   {record['call_id']:<14} {record['tool'] or '-':<11} {record['status']:<15} "
            f"{record['outcome']:<8} {record['code']:<15} {record['model_chars']:>5,}",
            file=out,
        )


def run_demo(out: TextIO = sys.stdout, root: Path | None = None) -> DemoReport:
    """Runs the scripted loop, printing a card per call and the conclusion."""
    report = DemoReport()
    with tempfile.TemporaryDirectory(prefix="ripsight-demo-") as tmp:
        repo = make_demo_repo(Path(root or tmp) / "shop")
        registry = default_registry(repo)
        model = ScriptedModel()
        acc = ToolCallAccumulator()
        print(
            f"ripsight demo: a scripted model investigates a generated repository ({repo})",
            file=out,
        )
        print(f"user> {QUESTION}", file=out)
        results: list[ToolResult] = []
        number = 0
        for turn_number in range(1, 10):
            turn = model.next_turn(results)
            if turn.answer is not None:
                report.answer = turn.answer
                print(file=out)
                print(f"model> {turn.answer}", file=out)
                break
            for event in turn.events:
                acc.feed(event)
            text = acc.text
            calls = acc.drain()
            print(file=out)
            print(
                f"== turn {turn_number}: {turn.fmt} stream, {len(turn.events)} events, "
                f"{len(calls)} tool call{'s' if len(calls) != 1 else ''} merged",
                file=out,
            )
            if text:
                print(f"model> {text}", file=out)
            results = registry.execute_many(calls)
            messages = follow_up(turn.provider, calls, results, text or None)
            for call, result in zip(calls, results):
                number += 1
                arguments = (
                    call.arguments
                    if isinstance(call.arguments, str)
                    else orjson.dumps(dict(call.arguments)).decode()
                )
                status = (
                    f"ERROR ({result.meta.get('error_type', 'error')})" if result.is_error else "ok"
                )
                print(f"-- call {number}: {call.name}  [id {call.id}]", file=out)
                print(f"   arguments: {arguments}", file=out)
                print(
                    f"   result:    {status}, {len(result.content):,} characters fed back"
                    f"{' (truncated)' if result.meta.get('truncated') else ''}",
                    file=out,
                )
                for line in _preview(result.content):
                    print(line, file=out)
            print(f"   fed back: {_describe_follow_up(turn.provider, messages)}", file=out)
            report.calls += calls
            report.results += results
        _epilogue(registry, out)
        registry.close()
    ok = bool(report.answer) and report.answer.startswith("The test is red because")
    report.exit_code = 0 if ok else 1
    print(file=out)
    print(
        f"conclusion: {'found the cause' if ok else 'no conclusion'} after "
        f"{len(report.calls)} tool calls "
        f"({sum(r.is_error for r in report.results)} answered with an error the model acted on).",
        file=out,
    )
    return report


def run_selftest(out: TextIO = sys.stdout) -> int:
    """Runs the demo quietly, then every check of `CHECKS`; the last line is
    ``N passed, M failed``."""
    return selftest.run_selftest(run_demo, out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ripsight demo", description=__doc__.splitlines()[0])
    parser.add_argument("--selftest", action="store_true", help="run the named checks")
    args = parser.parse_args(argv)
    if args.selftest:
        return run_selftest()
    return run_demo().exit_code


if __name__ == "__main__":
    sys.exit(main())
