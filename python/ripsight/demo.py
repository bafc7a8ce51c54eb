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
import io
import random
import re
import sys
import tempfile
import textwrap
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import orjson

from .providers import follow_up
from .registry import Registry, default_registry
from .streaming import ToolCallAccumulator
from .tools import builtin_tools
from .types import ToolCall, ToolResult, ToolSpec

__all__ = [
    "DemoReport",
    "anthropic_events",
    "main",
    "make_demo_repo",
    "openai_chat_chunks",
    "responses_events",
    "run_demo",
    "run_selftest",
]

QUESTION = (
    "CI is red: `FAILED tests/test_pricing.py::test_ten_percent_off - assert 10.0 == 90.0`. "
    "Why is my test red?"
)

_PRICING = '''\
"""Prices, discounts and rounding."""

from __future__ import annotations

CURRENCY = "EUR"


def round_price(value: float) -> float:
    """Rounds to cents, half up."""
    return float(int(value * 100 + 0.5)) / 100


def apply_discount(price: float, percent: float) -> float:
    """The price after a discount of `percent` per cent (10 means 10% off)."""
    return price * percent / 100


def with_tax(price: float, rate: float = 0.2) -> float:
    return round_price(price * (1 + rate))
'''

_TEST_PRICING = """\
from shop.pricing import apply_discount, with_tax


def test_tax_is_added():
    assert with_tax(10.0) == 12.0


def test_ten_percent_off():
    assert apply_discount(100.0, 10) == 90.0


def test_no_discount():
    assert apply_discount(50.0, 0) == 50.0
"""

_CART = '''\
"""A shopping cart."""

from __future__ import annotations

from dataclasses import dataclass, field

from .pricing import apply_discount, round_price


@dataclass
class Cart:
    items: list[tuple[str, float]] = field(default_factory=list)
    discount_percent: float = 0.0

    def add(self, name: str, price: float) -> None:
        self.items.append((name, price))

    def total(self) -> float:
        subtotal = sum(price for _, price in self.items)
        return round_price(apply_discount(subtotal, self.discount_percent))
'''

_TEST_CART = """\
from shop.cart import Cart


def test_empty_cart_costs_nothing():
    assert Cart().total() == 0.0
"""


def make_demo_repo(root: Path, seed: int = 7) -> Path:
    """Writes the demo repository under `root` (deterministic for a given seed); returns root."""
    rng = random.Random(seed)
    files: dict[str, str] = {
        "README.md": "# shop\n\nA tiny shop library. Run the tests with `pytest`.\n",
        "pyproject.toml": '[project]\nname = "shop"\nversion = "0.3.1"\n\n'
        '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
        ".gitignore": "build/\n*.egg-info/\n.venv/\n",
        "src/shop/__init__.py": '"""shop: carts, prices and stock."""\n',
        "src/shop/pricing.py": _PRICING,
        "src/shop/cart.py": _CART,
        "tests/test_pricing.py": _TEST_PRICING,
        "tests/test_cart.py": _TEST_CART,
        "docs/changelog.md": "## 0.3.1\n\n- apply_discount takes a percentage now (was a fraction).\n",
    }
    for name in ("inventory", "shipping", "catalog", "invoices"):
        body = [f'"""{name.capitalize()} helpers."""', ""]
        for i in range(rng.randint(2, 4)):
            body += [
                f"def {name}_{i}(value: int) -> int:",
                f"    return value * {rng.randint(2, 9)} + {rng.randint(0, 99)}",
                "",
                "",
            ]
        files[f"src/shop/{name}.py"] = "\n".join(body).rstrip() + "\n"
    # A long data file: reading it whole gives a result over the budget, stored by reference.
    files["data/prices.csv"] = "sku,price,stock\n" + "".join(
        f"SKU-{i:05d},{rng.randint(100, 99_999) / 100:.2f},{rng.randint(0, 500)}\n"
        for i in range(1, 1201)
    )
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


# -- simulated provider streams --------------------------------------------------------------------


def _pieces(text: str, rng: random.Random, smallest: int = 1, largest: int = 9) -> list[str]:
    pieces, i = [], 0
    while i < len(text):
        step = rng.randint(smallest, largest)
        pieces.append(text[i : i + step])
        i += step
    return pieces or [""]


def openai_chat_chunks(
    calls: Sequence[tuple[str, str, str]],
    rng: random.Random,
    *,
    first_index: int = 0,
    interleave: bool = False,
    text: str | None = None,
    finish_reason: str | None = "tool_calls",
) -> list[dict[str, Any]]:
    """Chat Completions chunks for `calls` = (id, name, arguments); id and name only come first."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-demo",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": "scripted-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    chunks = [chunk({"role": "assistant", "content": text or None})]
    queues: list[list[dict[str, Any]]] = []
    for n, (call_id, name, arguments) in enumerate(calls):
        index = first_index + n
        pieces = _pieces(arguments, rng)
        queue = [
            {
                "index": index,
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": ""},
            }
        ]
        queue += [{"index": index, "function": {"arguments": p}} for p in pieces]
        queues.append(queue)
    if interleave:
        while any(queues):
            queue = rng.choice([q for q in queues if q])
            chunks.append(chunk({"tool_calls": [queue.pop(0)]}))
    else:
        for queue in queues:
            chunks += [chunk({"tool_calls": [fragment]}) for fragment in queue]
    if finish_reason is not None:
        chunks.append(chunk({}, finish_reason))
    return chunks


def anthropic_events(
    calls: Sequence[tuple[str, str, str]], rng: random.Random, *, text: str | None = None
) -> list[dict[str, Any]]:
    """Anthropic Messages stream events: a text block, then one tool_use block per call."""
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_demo",
                "type": "message",
                "role": "assistant",
                "content": [],
                "model": "scripted-model",
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 0, "output_tokens": 0},
            },
        }
    ]
    index = 0
    if text:
        events += [
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text},
            },
            {"type": "content_block_stop", "index": 0},
        ]
        index = 1
    for call_id, name, arguments in calls:
        events.append(
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}},
            }
        )
        for piece in _pieces(arguments, rng):
            events.append(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": piece},
                }
            )
        events.append({"type": "content_block_stop", "index": index})
        index += 1
    events += [
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 42},
        },
        {"type": "message_stop"},
    ]
    return events


def responses_events(
    calls: Sequence[tuple[str, str, str]], rng: random.Random
) -> list[dict[str, Any]]:
    """OpenAI Responses stream events for function calls (added, deltas, done, completed)."""
    events: list[dict[str, Any]] = []
    seq = 0

    def add(event: dict[str, Any]) -> None:
        nonlocal seq
        event["sequence_number"] = seq
        seq += 1
        events.append(event)

    for output_index, (call_id, name, arguments) in enumerate(calls):
        item_id = f"fc_demo_{output_index}"
        item = {
            "type": "function_call",
            "id": item_id,
            "call_id": call_id,
            "name": name,
            "arguments": "",
            "status": "in_progress",
        }
        add({"type": "response.output_item.added", "output_index": output_index, "item": item})
        for piece in _pieces(arguments, rng):
            add(
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": item_id,
                    "output_index": output_index,
                    "delta": piece,
                }
            )
        add(
            {
                "type": "response.function_call_arguments.done",
                "item_id": item_id,
                "output_index": output_index,
                "arguments": arguments,
            }
        )
        add(
            {
                "type": "response.output_item.done",
                "output_index": output_index,
                "item": dict(item, arguments=arguments, status="completed"),
            }
        )
    add({"type": "response.completed", "response": {"id": "resp_demo", "status": "completed"}})
    return events


# -- the scripted model ----------------------------------------------------------------------------


@dataclass
class Turn:
    """One model turn: its streamed form, or a final answer."""

    fmt: str
    events: list[dict[str, Any]] = field(default_factory=list)
    answer: str | None = None

    @property
    def provider(self) -> str:
        """The follow-up message format of this turn's stream."""
        if self.fmt.startswith("anthropic"):
            return "anthropic"
        return "openai-responses" if self.fmt.startswith("openai responses") else "openai"


_NUMBERED = re.compile(r"^\s*(\d+)\t(.*)$")


def _numbered_lines(text: str) -> list[tuple[int, str]]:
    out = []
    for line in text.splitlines():
        match = _NUMBERED.match(line)
        if match:
            out.append((int(match.group(1)), match.group(2)))
    return out


class ScriptedModel:
    """Plays the model: each turn is decided from the results fed back, like a careful agent."""

    def __init__(self, seed: int = 11) -> None:
        self.rng = random.Random(seed)
        self.step = 0
        self.function: str | None = None
        self.definition: tuple[str, int] | None = None

    def next_turn(self, results: list[ToolResult]) -> Turn:
        step, self.step = self.step, self.step + 1
        rng = self.rng
        if step == 0:
            return Turn(
                "openai chat",
                openai_chat_chunks(
                    [("call_demo_1", "glob", '{"pattern": "**/*.py"}')],
                    rng,
                    text="Let me look at the layout first.",
                ),
            )
        if step == 1:
            return Turn(
                "anthropic",
                anthropic_events(
                    [
                        (
                            "toolu_demo_2",
                            "grep",
                            '{"pattern": "def test_ten_percent_off", "path": "tests", "context": 2}',
                        ),
                        ("toolu_demo_3", "Read", '{"file_path": "tests/test_pricing.py"}'),
                    ],
                    rng,
                    text="The failing test is test_ten_percent_off; let me see what it calls.",
                ),
            )
        if step == 2:
            called = re.search(r"assert (\w+)\(", results[0].content) if results else None
            self.function = called.group(1) if called else "apply_discount"
            arguments = orjson.dumps({"pattern": f"def {self.function}\\(", "glob": "*.py"})
            return Turn(
                "openai responses",
                responses_events([("call_demo_4", "grep", arguments.decode())], rng),
            )
        if step == 3:
            found = (
                re.search(r"^([^\s:]+):(\d+):def ", results[0].content, re.MULTILINE)
                if results
                else None
            )
            if found is None:
                return Turn("final", answer="I could not find where the function is defined.")
            self.definition = (found.group(1), int(found.group(2)))
            path, line = self.definition
            # A model slip: a stray comma makes the arguments invalid JSON.
            malformed = f'{{"path": "{path}", "offset": {max(1, line - 2)},, "limit": 12}}'
            return Turn(
                "openai responses", responses_events([("call_demo_5", "read_file", malformed)], rng)
            )
        if step == 4:
            assert self.definition is not None
            path, line = self.definition
            return Turn(
                "openai chat (parallel, interleaved, index from 1)",
                openai_chat_chunks(
                    [
                        (
                            "call_demo_6",
                            "read_file",
                            orjson.dumps(
                                {"path": path, "offset": max(1, line - 2), "limit": 12}
                            ).decode(),
                        ),
                        ("call_demo_7", "read_file", '{"path": "tests/test_pricing.py"}'),
                    ],
                    rng,
                    first_index=1,
                    interleave=True,
                ),
            )
        return Turn("final", answer=self._conclude(results))

    def _conclude(self, results: list[ToolResult]) -> str:
        if len(results) < 2 or any(r.is_error for r in results) or self.definition is None:
            return "I could not read the code I need, so I cannot say why the test is red."
        path, def_line = self.definition
        source = _numbered_lines(results[0].content)
        test = _numbered_lines(results[1].content)
        returned = next(
            ((n, t.strip()) for n, t in source if n > def_line and t.strip().startswith("return ")),
            None,
        )
        test_def = next((n for n, t in test if "def test_ten_percent_off" in t), 0)
        asserted = next(
            ((n, t.strip()) for n, t in test if n > test_def and t.strip().startswith("assert ")),
            None,
        )
        if returned is None or asserted is None:
            return "The code did not show the lines I expected; I cannot conclude."
        numbers = re.search(r"\(([\d.]+),\s*([\d.]+)\)\s*==\s*([\d.]+)", asserted[1])
        detail = ""
        if numbers and returned[1] == "return price * percent / 100":
            price, percent, expected = (float(x) for x in numbers.groups())
            detail = (
                f", so {self.function}({numbers.group(1)}, {numbers.group(2)}) gives "
                f"{price * percent / 100} while the test expects {expected}"
            )
        return (
            f"The test is red because {self.function} in {path} returns the discount amount "
            f"instead of the discounted price: line {returned[0]} is `{returned[1]}`{detail} "
            f"(tests/test_pricing.py line {asserted[0]}). The fix is "
            "`return price * (1 - percent / 100)`."
        )


# -- the loop --------------------------------------------------------------------------------------


@dataclass
class DemoReport:
    calls: list[ToolCall] = field(default_factory=list)
    results: list[ToolResult] = field(default_factory=list)
    answer: str = ""
    exit_code: int = 1


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


# -- selftest --------------------------------------------------------------------------------------


def _check_walk_order(report: DemoReport) -> None:
    names = [c.name for c in report.calls]
    expected = ["glob", "grep", "Read", "grep", "read_file", "read_file", "read_file"]
    assert names == expected, f"call order {names}, expected {expected}"
    assert len(report.results) == len(report.calls), "not one result per call"
    assert [r.call_id for r in report.results] == [c.id for c in report.calls], "ids differ"


def _check_interleaved(_: DemoReport) -> None:
    rng = random.Random(3)
    calls = [
        ("call_a", "grep", '{"pattern": "caf\\u00e9 \\"quoted\\" \\\\ end", "context": 2}'),
        ("call_b", "read_file", '{"path": "src/\u00e9t\u00e9.py", "offset": 10}'),
    ]
    acc = ToolCallAccumulator()
    for chunk in openai_chat_chunks(calls, rng, first_index=1, interleave=True):
        acc.feed(chunk)
    merged = acc.drain()
    got = [(c.id, c.name, c.arguments) for c in merged]
    assert got == list(calls), f"merged {got}"


def _check_truncation(_: DemoReport) -> None:
    registry = Registry()
    registry.register(
        ToolSpec(
            name="echo_big",
            description="Returns 20,000 characters.",
            parameters={"type": "object", "properties": {}, "additionalProperties": False},
            handler=lambda ctx, args: "HEAD-START " + "x" * 19_980 + " TAIL-END",
        )
    )
    result = registry.execute(ToolCall("call_big", "echo_big", "{}"))
    assert result.meta["original_chars"] == 20_000, result.meta
    assert len(result.content) <= 8000, f"{len(result.content)} characters fed back"
    assert result.content.startswith("HEAD-START"), "head lost"
    assert result.content.endswith("TAIL-END"), "tail lost"
    assert result.meta["truncated"] is True, "truncation not recorded in meta"


def _check_unknown_tool(report: DemoReport) -> None:
    result = next(r for c, r in zip(report.calls, report.results) if c.name == "Read")
    assert result.is_error, "unknown tool not an error"
    assert result.content == (
        "There is no tool named Read. Did you mean read_file? "
        "Available tools: glob, grep, read_file, read_result."
    ), result.content


def _check_malformed(report: DemoReport) -> None:
    result = report.results[4]
    assert result.is_error and result.meta.get("error_type") == "malformed_json", result.meta
    assert "line 1, column" in result.content and "Nothing was run" in result.content


def _check_cut_off(_: DemoReport) -> None:
    chunks = openai_chat_chunks(
        [("call_cut", "grep", '{"pattern": "TODO", "path": "src"}')],
        random.Random(5),
        finish_reason=None,
    )
    acc = ToolCallAccumulator()
    for chunk in chunks[:-2]:
        acc.feed(chunk)
    (call,) = acc.drain()
    assert call.incomplete, "cut-off call not marked incomplete"
    registry = Registry()
    for spec in builtin_tools():
        registry.register(spec)
    result = registry.execute(call)
    assert result.is_error and result.call_id == "call_cut", result
    assert "stream ended before the arguments" in result.content, result.content


def _check_outside_root(_: DemoReport) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        make_demo_repo(Path(tmp) / "shop")
        (Path(tmp) / "secret.txt").write_text("outside\n")
        registry = default_registry(Path(tmp) / "shop")
        result = registry.execute(ToolCall("call_out", "read_file", '{"path": "../secret.txt"}'))
        assert result.is_error and result.meta.get("error_type") == "outside_root", result
        assert "outside the workspace root" in result.content, result.content


def _check_definitions(_: DemoReport) -> None:
    registry = default_registry(".")
    for fmt in ("openai", "openai-responses", "anthropic", "mcp"):
        tools = registry.definitions(fmt)
        assert len(tools) == 4, f"{fmt}: {len(tools)} tools"


def _check_loop_ends(report: DemoReport) -> None:
    assert report.exit_code == 0, f"loop ended without a conclusion: {report.answer!r}"
    assert "line 15 is `return price * percent / 100`" in report.answer, report.answer


CHECKS: list[tuple[str, Callable[[DemoReport], None]]] = [
    ("walk order glob -> grep -> read_file, one result per call", _check_walk_order),
    ("interleaved fragments from index 1 merge into two calls", _check_interleaved),
    ("20,000-character result truncated, both ends kept", _check_truncation),
    ("unknown tool answered with the closest name", _check_unknown_tool),
    ("malformed arguments answered with where the JSON broke", _check_malformed),
    ("stream cut off mid-arguments gives an error, not a repair", _check_cut_off),
    ("path outside the root refused", _check_outside_root),
    ("definitions exported in four formats", _check_definitions),
    ("loop ends cleanly with a conclusion", _check_loop_ends),
]


def run_selftest(out: TextIO = sys.stdout) -> int:
    """Runs the demo quietly, then every check; the last line is ``N passed, M failed``."""
    try:
        report = run_demo(out=io.StringIO())
    except Exception:  # noqa: BLE001 - reported as failed checks below
        report = DemoReport(answer=traceback.format_exc(limit=3))
    passed = failed = 0
    for name, check in CHECKS:
        try:
            check(report)
        except Exception as error:  # noqa: BLE001
            failed += 1
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
            print(f"FAIL  {name}: {reason[:300]}", file=out)
        else:
            passed += 1
            print(f"ok    {name}", file=out)
    print(f"{passed} passed, {failed} failed", file=out)
    return 0 if failed == 0 else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ripsight demo", description=__doc__.splitlines()[0])
    parser.add_argument("--selftest", action="store_true", help="run the named checks")
    args = parser.parse_args(argv)
    if args.selftest:
        return run_selftest()
    return run_demo().exit_code


if __name__ == "__main__":
    sys.exit(main())
