"""The scripted model: each turn decided from the results fed back, like a careful agent; and
the report of a run."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..types import ToolCall, ToolResult
from .streams import anthropic_events, openai_chat_chunks, responses_events

__all__ = ["DemoReport", "ScriptedModel", "Turn"]


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
        if step == 4 and self.definition is not None:
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


@dataclass
class DemoReport:
    calls: list[ToolCall] = field(default_factory=list)
    results: list[ToolResult] = field(default_factory=list)
    answer: str = ""
    exit_code: int = 1
