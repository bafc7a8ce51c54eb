"""Merging streamed tool-call fragments into finished calls, for every provider's stream shape.

    >>> acc = ToolCallAccumulator()
    >>> for chunk in stream:            # OpenAI chat chunks, Responses events or Anthropic events
    ...     acc.feed(chunk)             # dicts or the SDKs' own objects
    >>> calls = acc.drain()             # list[ToolCall], in index order

Argument text is only appended while the stream runs and parsed by `Registry.execute` after it
ends. A stream cut off in the middle of a call's arguments yields a call marked ``incomplete``,
which `execute` answers with an error: the arguments are never "repaired" by guessing.

Handled breakages seen in real providers and frameworks: indexes that start at any number or
skip numbers; fragments of parallel calls interleaved; id and name only in the first fragment;
a missing id (a stable one is generated); deltas without an ``index`` (merged by id, else into
the open call); several calls sharing one index with different ids; providers that re-send the
whole argument text in each fragment; empty fragments; UTF-16 surrogate pairs or UTF-8 bytes
split across fragments.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from .types import ToolCall

__all__ = ["ToolCallAccumulator"]

_TOOL_FINISH = {"tool_calls", "function_call", "tool_use"}
# Finish reasons after which an unparsable argument text means "cut off".
_CUT_FINISH = {
    "length",
    "max_tokens",
    "incomplete",
    "failed",
    "content_filter",
    "error",
    "model_context_window_exceeded",
    "pause_turn",
    "refusal",
}
_ANTHROPIC_EVENTS = {
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
    "error",
}


class _Slot:
    __slots__ = ("call_id", "closed", "final", "fragments", "index", "initial", "name", "seq")

    def __init__(self, index: int, seq: int) -> None:
        self.index = index
        self.seq = seq
        self.call_id: str | None = None
        self.name: str | None = None
        self.fragments: list[str | bytes] = []
        self.final: str | None = None
        self.initial: str | None = None
        self.closed = False


def _as_dict(event: Any) -> Any:
    if isinstance(event, Mapping):
        return event
    dump = getattr(event, "model_dump", None)
    if callable(dump):
        return dump()
    to_dict = getattr(event, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    return event


def _index(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def _parses_as_object(text: str) -> bool:
    try:
        return isinstance(orjson.loads(text), dict)
    except orjson.JSONDecodeError:
        return False


def _join(parts: list[str | bytes]) -> str:
    if any(isinstance(p, bytes) for p in parts):
        data = b"".join(
            p if isinstance(p, bytes) else p.encode("utf-8", "surrogatepass") for p in parts
        )
        text = data.decode("utf-8", "surrogatepass")
    else:
        text = "".join(parts)  # type: ignore[arg-type]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # A surrogate pair split across two events arrives as two lone surrogates: pair them up.
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def _merge_fragments(parts: list[str | bytes]) -> str:
    joined = _join(parts)
    if len(parts) < 2 or _parses_as_object(joined) or any(isinstance(p, bytes) for p in parts):
        return joined
    texts = [_join([p]) for p in parts]
    # A provider that re-sends the whole argument object in every fragment.
    if all(_parses_as_object(t) for t in texts):
        return texts[-1]
    # Cumulative snapshots: each fragment extends the previous one.
    if all(b.startswith(a) for a, b in itertools.pairwise(texts)) and _parses_as_object(texts[-1]):
        return texts[-1]
    # Deltas followed by one final fragment holding the whole text.
    if _parses_as_object(texts[-1]) and texts[-1].startswith("".join(texts[:-1])):
        return texts[-1]
    return joined


class ToolCallAccumulator:
    """Collects tool-call fragments from one model turn's stream; `drain` returns the calls.

    Attributes:
        finish_reason: the turn's finish or stop reason once seen (``"tool_calls"``,
            ``"tool_use"``, ``"stop"``, ``"length"``, ``"completed"``...).
        finished: the stream's end was seen (finish reason, ``message_stop``,
            ``response.completed``, ``[DONE]``).
    """

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._slots: list[_Slot] = []
        self._by_index: dict[int, list[_Slot]] = {}
        self._by_id: dict[str, _Slot] = {}
        self._item_index: dict[str, int] = {}
        self._block_types: dict[int, str] = {}
        self._last: _Slot | None = None
        self._seq = 0
        self._text: list[str] = []
        self.finish_reason: str | None = None
        self.finished = False
        self.ambiguous_merges = 0

    # -- public API -------------------------------------------------------------------------------

    def feed(self, event: Any) -> None:
        """Takes one chunk or event: a dict, an SDK object, or a raw SSE ``data:`` line."""
        if event is None:
            return
        if isinstance(event, (str, bytes, bytearray)):
            for payload in self._sse_payloads(event):
                self.feed(payload)
            return
        if not isinstance(event, Mapping) and getattr(event, "type", None) == "chunk":
            # openai's `chat.completions.stream()` helper wraps each raw chunk in a ChunkEvent.
            event = getattr(event, "chunk", event)
        data = _as_dict(event)
        if not isinstance(data, Mapping):
            raise TypeError(
                f"cannot read a stream event of type {type(event).__name__}; pass the chunk "
                "or event object (or its dict)"
            )
        if data.get("type") == "chunk" and isinstance(data.get("chunk"), Mapping):
            data = data["chunk"]
        kind = data.get("type")
        if "choices" in data:
            self._feed_chat(data)
        elif isinstance(kind, str) and kind.startswith("response."):
            self._feed_responses(data)
        elif kind in _ANTHROPIC_EVENTS:
            self._feed_anthropic(data)
        elif "delta" in data or "message" in data:
            self._feed_choice(data)
        elif "tool_calls" in data:
            self._feed_delta(data)
        elif "function" in data:
            self._chat_fragment(data)
        # Anything else (usage chunks, the SDK helpers' derived events such as Anthropic's
        # "text"/"input_json" or OpenAI's "content.delta"/"tool_calls.function.arguments.delta",
        # which repeat what the raw events carry) holds nothing to merge.

    def feed_many(self, events: Iterable[Any]) -> None:
        for event in events:
            self.feed(event)

    @property
    def text(self) -> str:
        """The assistant text streamed alongside the calls (for the follow-up message)."""
        return "".join(self._text)

    @property
    def has_calls(self) -> bool:
        return any(s.name or s.fragments or s.final or s.initial for s in self._slots)

    @property
    def is_tool_turn(self) -> bool:
        """The finish reason says tool calls, or at least one call merged (even with "stop")."""
        return (self.finish_reason in _TOOL_FINISH) or self.has_calls

    def drain(self) -> list[ToolCall]:
        """The merged calls in index order; resets the accumulator for the next turn."""
        cut = (not self.finished) or (self.finish_reason in _CUT_FINISH)
        slots = sorted(self._slots, key=lambda s: (s.index, s.seq))
        calls: list[ToolCall] = []
        for slot in slots:
            if slot.final is not None:
                arguments = slot.final
            elif slot.fragments:
                arguments = _merge_fragments(slot.fragments)
            elif slot.initial is not None:
                arguments = slot.initial
            else:
                arguments = ""
            complete = slot.closed or not cut
            incomplete = (
                not complete and bool(arguments.strip()) and not _parses_as_object(arguments)
            )
            call_id = slot.call_id or (
                f"call_ripsight_{slot.index}"
                if slot.seq == 0
                else f"call_ripsight_{slot.index}_{slot.seq}"
            )
            calls.append(
                ToolCall(
                    id=call_id, name=slot.name or "", arguments=arguments, incomplete=incomplete
                )
            )
        self._reset()
        return calls

    # -- routing ----------------------------------------------------------------------------------

    def _new_slot(self, index: int) -> _Slot:
        siblings = self._by_index.setdefault(index, [])
        slot = _Slot(index, len(siblings))
        siblings.append(slot)
        self._slots.append(slot)
        self._seq += 1
        return slot

    def _route(self, index: int | None, call_id: str | None) -> _Slot:
        if call_id and call_id in self._by_id:
            slot = self._by_id[call_id]
            if index is None or slot.index == index:
                return slot
        if index is None:
            if call_id:
                next_index = max(self._by_index, default=-1) + 1
                return self._new_slot(next_index)
            if self._last is not None:
                if len(self._slots) > 1:
                    self.ambiguous_merges += 1
                return self._last
            return self._new_slot(0)
        siblings = self._by_index.get(index)
        if not siblings:
            return self._new_slot(index)
        current = siblings[-1]
        if call_id and current.call_id and call_id != current.call_id:
            # Several calls sharing one index, told apart by their ids.
            return self._new_slot(index)
        return current

    def _touch(self, slot: _Slot, call_id: Any = None, name: Any = None) -> None:
        if isinstance(call_id, str) and call_id and slot.call_id is None:
            slot.call_id = call_id
            self._by_id[call_id] = slot
        if isinstance(name, str) and name:
            slot.name = name
        self._last = slot

    # -- OpenAI chat completions -----------------------------------------------------------------

    def _feed_chat(self, data: Mapping[str, Any]) -> None:
        for choice in data.get("choices") or ():
            choice = _as_dict(choice)
            if not isinstance(choice, Mapping):
                continue
            if _index(choice.get("index")) not in (None, 0):
                continue  # n > 1: only the first choice's calls are this turn's calls
            self._feed_choice(choice)

    def _feed_choice(self, choice: Mapping[str, Any]) -> None:
        delta = _as_dict(choice.get("delta") or choice.get("message") or {})
        if isinstance(delta, Mapping):
            self._feed_delta(delta)
        reason = choice.get("finish_reason")
        if isinstance(reason, str) and reason:
            self.finish_reason = reason
            self.finished = True

    def _feed_delta(self, delta: Mapping[str, Any]) -> None:
        content = delta.get("content")
        if isinstance(content, str):
            self._text.append(content)
        for fragment in delta.get("tool_calls") or ():
            fragment = _as_dict(fragment)
            if isinstance(fragment, Mapping):
                self._chat_fragment(fragment)
        legacy = delta.get("function_call")
        if isinstance(legacy, Mapping):
            self._chat_fragment({"index": 0, "function": legacy})

    def _chat_fragment(self, fragment: Mapping[str, Any]) -> None:
        call_id = fragment.get("id") or None
        function = _as_dict(fragment.get("function") or {})
        if not isinstance(function, Mapping):
            function = {}
        slot = self._route(
            _index(fragment.get("index")), call_id if isinstance(call_id, str) else None
        )
        self._touch(slot, call_id, function.get("name"))
        arguments = function.get("arguments")
        if isinstance(arguments, (str, bytes)) and arguments:
            slot.fragments.append(arguments)
        elif isinstance(arguments, Mapping):
            slot.final = orjson.dumps(arguments).decode()

    # -- OpenAI Responses --------------------------------------------------------------------------

    def _feed_responses(self, data: Mapping[str, Any]) -> None:
        kind = data["type"]
        index = _index(data.get("output_index"))
        if kind in ("response.output_item.added", "response.output_item.done"):
            item = _as_dict(data.get("item") or {})
            if not isinstance(item, Mapping) or item.get("type") != "function_call":
                return
            item_id = item.get("id")
            if index is None and isinstance(item_id, str):
                index = self._item_index.get(item_id)
            slot = self._route(index, item.get("call_id") or None)
            if isinstance(item_id, str):
                self._item_index[item_id] = slot.index
            self._touch(slot, item.get("call_id"), item.get("name"))
            arguments = item.get("arguments")
            if kind.endswith(".done"):
                slot.closed = True
                if isinstance(arguments, str):
                    slot.final = arguments
            elif isinstance(arguments, str) and arguments:
                slot.fragments.append(arguments)
        elif kind in (
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
        ):
            item_id = data.get("item_id")
            if index is None and isinstance(item_id, str):
                index = self._item_index.get(item_id)
            slot = self._route(index, None)
            if isinstance(item_id, str):
                self._item_index.setdefault(item_id, slot.index)
            self._last = slot
            if kind.endswith(".delta"):
                delta = data.get("delta")
                if isinstance(delta, (str, bytes)) and delta:
                    slot.fragments.append(delta)
            else:
                arguments = data.get("arguments")
                if isinstance(arguments, str):
                    slot.final = arguments
                slot.closed = True
        elif kind == "response.output_text.delta":
            delta = data.get("delta")
            if isinstance(delta, str):
                self._text.append(delta)
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            self.finish_reason = kind.split(".", 1)[1]
            self.finished = True

    # -- Anthropic messages ------------------------------------------------------------------------

    def _feed_anthropic(self, data: Mapping[str, Any]) -> None:
        kind = data["type"]
        index = _index(data.get("index"))
        if kind == "content_block_start":
            block = _as_dict(data.get("content_block") or {})
            if not isinstance(block, Mapping):
                return
            if index is not None:
                self._block_types[index] = str(block.get("type"))
            if block.get("type") == "tool_use":
                slot = self._route(index, block.get("id") or None)
                self._touch(slot, block.get("id"), block.get("name"))
                initial = block.get("input")
                if isinstance(initial, Mapping) and initial:
                    slot.initial = orjson.dumps(initial).decode()
            elif block.get("type") == "text" and isinstance(block.get("text"), str):
                self._text.append(block["text"])
        elif kind == "content_block_delta":
            delta = _as_dict(data.get("delta") or {})
            if not isinstance(delta, Mapping):
                return
            if delta.get("type") == "input_json_delta":
                if index is not None and self._block_types.get(index, "tool_use") != "tool_use":
                    return  # a server tool's input (web search...), not a call for us
                slot = self._route(index, None)
                self._last = slot
                partial = delta.get("partial_json")
                if isinstance(partial, (str, bytes)) and partial:
                    slot.fragments.append(partial)
            elif delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
                self._text.append(delta["text"])
        elif kind == "content_block_stop":
            if index is not None and index in self._by_index:
                self._by_index[index][-1].closed = True
        elif kind == "message_delta":
            delta = _as_dict(data.get("delta") or {})
            reason = delta.get("stop_reason") if isinstance(delta, Mapping) else None
            if isinstance(reason, str) and reason:
                self.finish_reason = reason
        elif kind == "message_stop":
            self.finished = True
        elif kind == "error":
            self.finish_reason = "error"
            self.finished = True

    # -- raw server-sent events ---------------------------------------------------------------------

    def _sse_payloads(self, raw: str | bytes | bytearray) -> list[Any]:
        text = raw.decode("utf-8", "replace") if isinstance(raw, (bytes, bytearray)) else raw
        payloads: list[Any] = []
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        data_lines = [line[5:].strip() for line in lines if line.startswith("data:")]
        if not data_lines and lines and not lines[0].startswith(("event:", "id:", "retry:", ":")):
            data_lines = ["\n".join(lines)]
        for payload in data_lines:
            if payload == "[DONE]":
                self.finished = True
                continue
            try:
                payloads.append(orjson.loads(payload))
            except orjson.JSONDecodeError:
                raise ValueError(
                    f"a stream line is not JSON: {payload[:80]!r}; pass parsed chunks or SSE "
                    "'data:' lines"
                ) from None
        return payloads
