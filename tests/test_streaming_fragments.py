"""ToolCallAccumulator, fragments into calls: indexes, splits inside strings and characters,
ids, finish reasons, resends, cut-off streams, SSE text, and any split in any interleaving."""

from __future__ import annotations

import itertools
import random

import orjson
import pytest
from _protocol_helpers import registry_with
from _stream_helpers import GLOB_ARGS, GREP_ARGS, READ_ARGS, chunk, frag, merged
from hypothesis import given, settings
from hypothesis import strategies as st
from ripsight import ToolCall, ToolCallAccumulator
from ripsight.demo import openai_chat_chunks


@pytest.mark.parametrize("first_index", [0, 1, 7])
def test_index_may_start_anywhere(first_index):
    calls = [("call_a", "grep", GREP_ARGS), ("call_b", "read_file", READ_ARGS)]
    chunks = openai_chat_chunks(calls, random.Random(first_index), first_index=first_index)
    assert merged(chunks) == calls


def test_non_contiguous_indexes_drain_in_index_order():
    events = [
        chunk([frag(9, "c9", "glob", GLOB_ARGS)]),
        chunk([frag(0, "c0", "grep", GREP_ARGS)]),
        chunk([frag(3, "c3", "read_file", READ_ARGS)]),
        chunk(finish="tool_calls"),
    ]
    assert merged(events) == [
        ("c0", "grep", GREP_ARGS),
        ("c3", "read_file", READ_ARGS),
        ("c9", "glob", GLOB_ARGS),
    ]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("count", [2, 3])
def test_parallel_calls_interleaved(seed, count):
    calls = [
        ("call_a", "grep", GREP_ARGS),
        ("call_b", "read_file", READ_ARGS),
        ("call_c", "glob", GLOB_ARGS),
    ][:count]
    chunks = openai_chat_chunks(calls, random.Random(seed), first_index=1, interleave=True)
    assert merged(chunks) == calls


@pytest.mark.parametrize(
    "pieces",
    [
        ['{"pattern": "caf', 'é au lait"}'],  # inside a string
        ['{"pattern": "a\\', '"b\\"c"}'],  # inside an escape \"
        ['{"pattern": "\\u00', 'e9t\\u00e9"}'],  # inside a \u escape
        ['{"pattern": "x\\\\', '\\\\y"}'],  # between two backslashes
    ],
)
def test_splits_inside_strings_and_escapes(pieces):
    events = [
        chunk([frag(0, "c", "grep", pieces[0])]),
        chunk([frag(0, arguments=pieces[1])]),
        chunk(finish="tool_calls"),
    ]
    ((_, _, arguments),) = merged(events)
    assert arguments == "".join(pieces)
    assert orjson.loads(arguments) == orjson.loads("".join(pieces))


def test_split_inside_a_multibyte_character_given_as_bytes():
    data = '{"pattern": "café"}'.encode()
    cut = data.index("é".encode()) + 1  # between the two bytes of é
    events = [
        chunk([frag(0, "c", "grep", data[:cut])]),
        chunk([frag(0, arguments=data[cut:])]),
        chunk(finish="tool_calls"),
    ]
    assert merged(events) == [("c", "grep", '{"pattern": "café"}')]


def test_surrogate_pair_split_across_events_is_rejoined():
    # An emoji split between two SSE events decodes to two lone surrogates.
    events = [
        chunk([frag(0, "c", "grep", '{"pattern": "\ud83d')]),
        chunk([frag(0, arguments='\ude00"}')]),
        chunk(finish="tool_calls"),
    ]
    ((_, _, arguments),) = merged(events)
    assert orjson.loads(arguments) == {"pattern": "😀"}


def test_id_and_name_only_in_the_first_fragment_are_kept():
    events = [
        chunk([frag(0, "call_1", "grep", "")]),
        chunk([frag(0, arguments='{"pattern"')]),
        chunk([frag(0, id="", name="", arguments=': "x"}')]),
        chunk(finish="tool_calls"),
    ]
    assert merged(events) == [("call_1", "grep", '{"pattern": "x"}')]


def test_missing_id_gets_a_stable_generated_one():
    events = [chunk([frag(4, name="grep", arguments=GREP_ARGS)]), chunk(finish="tool_calls")]
    first = merged(events)
    assert first == [("call_ripsight_4", "grep", GREP_ARGS)]
    assert merged(events) == first


def test_finish_reason_stop_with_calls_is_still_a_tool_turn():
    acc = ToolCallAccumulator()
    acc.feed(chunk([frag(0, "c", "grep", GREP_ARGS)]))
    acc.feed(chunk(finish="stop"))
    assert acc.finish_reason == "stop" and acc.is_tool_turn
    assert len(acc.drain()) == 1
    acc.feed(chunk(content="Hello"))
    acc.feed(chunk(finish="stop"))
    assert not acc.is_tool_turn and acc.text == "Hello" and acc.drain() == []


def test_tool_calls_finish_reason_without_calls_is_a_tool_turn():
    acc = ToolCallAccumulator()
    acc.feed(chunk(finish="tool_calls"))
    assert acc.is_tool_turn and acc.drain() == []


def test_deltas_without_index_merge_by_id():
    events = [
        chunk([frag(None, "call_a", "grep", '{"pattern": ')]),
        chunk([frag(None, "call_b", "glob", '{"pattern": "*.md"')]),
        chunk([frag(None, "call_a", arguments='"x"}')]),
        chunk([frag(None, "call_b", arguments="}")]),
        chunk(finish="tool_calls"),
    ]
    assert merged(events) == [
        ("call_a", "grep", '{"pattern": "x"}'),
        ("call_b", "glob", '{"pattern": "*.md"}'),
    ]


def test_deltas_without_index_or_id_go_to_the_single_open_call():
    acc = ToolCallAccumulator()
    for event in [
        chunk([frag(None, "call_a", "grep", '{"pat')]),
        chunk([frag(None, arguments='tern": "x"}')]),
        chunk(finish="tool_calls"),
    ]:
        acc.feed(event)
    assert acc.ambiguous_merges == 0
    assert [(c.id, c.arguments) for c in acc.drain()] == [("call_a", '{"pattern": "x"}')]


def test_calls_sharing_one_index_with_different_ids():
    events = [
        chunk([frag(0, "call_a", "grep", GREP_ARGS)]),
        chunk([frag(0, "call_b", "read_file", '{"path": ')]),
        chunk([frag(0, arguments='"a.py"}')]),
        chunk([frag(0, "call_c", "glob", GLOB_ARGS)]),
        chunk(finish="tool_calls"),
    ]
    assert merged(events) == [
        ("call_a", "grep", GREP_ARGS),
        ("call_b", "read_file", '{"path": "a.py"}'),
        ("call_c", "glob", GLOB_ARGS),
    ]


def test_provider_resending_the_whole_object_in_each_fragment():
    events = [
        chunk([frag(0, "c", "grep", GREP_ARGS)]),
        chunk([frag(0, arguments=GREP_ARGS)]),
        chunk([frag(0, arguments=GREP_ARGS)]),
        chunk(finish="tool_calls"),
    ]
    assert merged(events) == [("c", "grep", GREP_ARGS)]


def test_cumulative_snapshots_and_a_final_full_resend():
    snapshots = [GREP_ARGS[:5], GREP_ARGS[:17], GREP_ARGS]
    events = [chunk([frag(0, "c", "grep", snapshots[0])])]
    events += [chunk([frag(0, arguments=s)]) for s in snapshots[1:]]
    assert merged(events + [chunk(finish="tool_calls")]) == [("c", "grep", GREP_ARGS)]
    deltas = [GREP_ARGS[:10], GREP_ARGS[10:30], GREP_ARGS[30:], GREP_ARGS]
    events = [chunk([frag(0, "c", "grep", deltas[0])])]
    events += [chunk([frag(0, arguments=d)]) for d in deltas[1:]]
    assert merged(events + [chunk(finish="tool_calls")]) == [("c", "grep", GREP_ARGS)]


def test_empty_argument_fragments():
    events = [
        chunk([frag(0, "c", "grep", "")]),
        chunk([frag(0, arguments="")]),
        chunk([frag(0, arguments=GREP_ARGS[:7])]),
        chunk([frag(0, arguments="")]),
        chunk([frag(0, arguments=GREP_ARGS[7:])]),
        chunk([frag(1, "d", "glob", "")]),
        chunk(finish="tool_calls"),
    ]
    assert merged(events) == [("c", "grep", GREP_ARGS), ("d", "glob", "")]


def test_stream_cut_off_mid_arguments_is_an_error_not_a_repair():
    acc = ToolCallAccumulator()
    acc.feed(chunk([frag(0, "call_cut", "grep", '{"pattern": "TODO", "pa')]))
    (call,) = acc.drain()
    assert call.incomplete and call.arguments == '{"pattern": "TODO", "pa'
    result = registry_with().execute(call)
    assert result.is_error and result.meta["error_type"] == "incomplete_arguments"
    assert result.content == (
        "grep: the stream ended before the arguments of this call were complete (23 characters "
        'arrived: \'{"pattern": "TODO", "pa\'), so nothing was run. Call grep again with the '
        "complete arguments."
    )


def test_length_finish_marks_unparsable_arguments_incomplete_but_not_complete_ones():
    acc = ToolCallAccumulator()
    acc.feed(chunk([frag(0, "a", "grep", GREP_ARGS)]))
    acc.feed(chunk([frag(1, "b", "grep", '{"pattern": "x')]))
    acc.feed(chunk(finish="length"))
    first, second = acc.drain()
    assert not first.incomplete and second.incomplete


def test_complete_arguments_without_a_finish_chunk_run_normally():
    acc = ToolCallAccumulator()
    acc.feed(chunk([frag(0, "a", "grep", GREP_ARGS)]))
    (call,) = acc.drain()
    assert not call.incomplete


def test_malformed_but_finished_arguments_are_a_json_error():
    acc = ToolCallAccumulator()
    acc.feed(chunk([frag(0, "a", "grep", '{"pattern": "x",}')]))
    acc.feed(chunk(finish="tool_calls"))
    (call,) = acc.drain()
    assert not call.incomplete
    assert registry_with().execute(call).meta["error_type"] == "malformed_json"


def test_legacy_function_call_and_full_message():
    events = [
        chunk(),
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {"function_call": {"name": "grep", "arguments": '{"pattern":'}},
                }
            ]
        },
        {"choices": [{"index": 0, "delta": {"function_call": {"arguments": ' "x"}'}}}]},
    ]
    assert merged(events) == [("call_ripsight_0", "grep", '{"pattern": "x"}')]
    message = {
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "grep", "arguments": GREP_ARGS},
                        },
                        {
                            "id": "c2",
                            "type": "function",
                            "function": {"name": "glob", "arguments": GLOB_ARGS},
                        },
                    ],
                },
            }
        ]
    }
    assert merged([message]) == [("c1", "grep", GREP_ARGS), ("c2", "glob", GLOB_ARGS)]


def test_only_the_first_choice_counts():
    event = chunk([frag(0, "c", "grep", GREP_ARGS)])
    event["choices"].append({"index": 1, "delta": {"tool_calls": [frag(0, "z", "glob", "{}")]}})
    assert merged([event]) == [("c", "grep", GREP_ARGS)]


def test_drain_resets():
    acc = ToolCallAccumulator()
    acc.feed(chunk([frag(0, "c", "grep", GREP_ARGS)], finish="tool_calls"))
    assert len(acc.drain()) == 1
    assert acc.drain() == [] and acc.finish_reason is None and not acc.is_tool_turn


def test_raw_sse_lines():
    lines = [
        "data: " + orjson.dumps(chunk([frag(2, "c", "grep", GREP_ARGS[:9])])).decode(),
        "data: " + orjson.dumps(chunk([frag(2, arguments=GREP_ARGS[9:])])).decode() + "\n\n",
        b"data: " + orjson.dumps(chunk(finish="tool_calls")),
        "data: [DONE]",
    ]
    acc = ToolCallAccumulator()
    for line in lines:
        acc.feed(line)
    assert acc.finished
    assert [(c.id, c.arguments) for c in acc.drain()] == [("c", GREP_ARGS)]
    with pytest.raises(ValueError, match="not JSON"):
        ToolCallAccumulator().feed("data: {oops")


def test_unknown_event_types_raise_a_clear_type_error():
    with pytest.raises(TypeError, match="cannot read a stream event"):
        ToolCallAccumulator().feed(42)


def test_toolcall_from_the_accumulator_is_a_plain_toolcall():
    acc = ToolCallAccumulator()
    acc.feed(chunk([frag(0, "c", "grep", GREP_ARGS)], finish="tool_calls"))
    (call,) = acc.drain()
    assert call == ToolCall("c", "grep", GREP_ARGS)


def test_several_complete_calls_in_one_chunk_without_index():
    event = chunk(
        [
            {"id": "g1", "type": "function", "function": {"name": "grep", "arguments": GREP_ARGS}},
            {"id": "g2", "type": "function", "function": {"name": "glob", "arguments": GLOB_ARGS}},
        ],
        finish="tool_calls",
    )
    assert merged([event]) == [("g1", "grep", GREP_ARGS), ("g2", "glob", GLOB_ARGS)]


def test_sse_text_with_event_lines():
    text = (
        "event: content_block_start\n"
        'data: {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", '
        '"id": "toolu_9", "name": "glob", "input": {}}}\n\n'
        'event: ping\ndata: {"type": "ping"}\n\n'
        "event: content_block_delta\n"
        'data: {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", '
        '"partial_json": "{\\"pattern\\": \\"*\\"}"}}\n\n'
        'event: message_stop\ndata: {"type": "message_stop"}\n\n'
    )
    assert merged([text]) == [("toolu_9", "glob", '{"pattern": "*"}')]


def test_sse_lines_fed_one_by_one():
    lines = [
        "retry: 3000",
        "event: content_block_start",
        (
            'data: {"type": "content_block_start", "index": 0, "content_block": {"type": '
            '"tool_use", "id": "toolu_1", "name": "glob", "input": {}}}'
        ),
        "",
        "event: content_block_delta",
        (
            'data: {"type": "content_block_delta", "index": 0, "delta": {"type": '
            '"input_json_delta", "partial_json": "{\\"pattern\\": \\"*\\"}"}}'
        ),
        ": keep-alive comment",
        'data: {"type": "message_stop"}',
    ]
    assert merged(lines) == [("toolu_1", "glob", '{"pattern": "*"}')]


# -- the property -----------------------------------------------------------------------------------


json_leaf = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)


json_objects = st.dictionaries(
    st.text(max_size=8),
    st.recursive(
        json_leaf,
        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
        max_leaves=6,
    ),
    max_size=5,
)


@st.composite
def streams(draw):
    count = draw(st.integers(1, 3))
    indexes = sorted(
        draw(st.lists(st.integers(0, 50), min_size=count, max_size=count, unique=True))
    )
    calls = []
    queues = []
    for n, index in enumerate(indexes):
        text = orjson.dumps(draw(json_objects)).decode()
        cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8)))
        bounds = [0, *cuts, len(text)]
        pieces = [text[a:b] for a, b in itertools.pairwise(bounds)]
        calls.append((index, f"id_{n}", f"tool_{n}", text))
        queues.append([(index, n, p) for p in pieces])
    order = []
    while any(queues):
        choice = draw(st.sampled_from([q for q in queues if q]))
        order.append(choice.pop(0))
    return calls, order


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(streams(), st.sampled_from(["openai", "anthropic", "responses"]))
def test_any_split_any_interleaving_merges_back(stream, fmt):
    calls, order = stream
    by_index = {index: (call_id, name) for index, call_id, name, _ in calls}
    events = []
    started = set()
    for index, _, piece in order:
        call_id, name = by_index[index]
        first = index not in started
        started.add(index)
        if fmt == "openai":
            fragment = {"index": index, "function": {"arguments": piece}}
            if first:
                fragment.update(id=call_id, type="function")
                fragment["function"]["name"] = name
            events.append(chunk([fragment]))
        elif fmt == "anthropic":
            if first:
                events.append(
                    {
                        "type": "content_block_start",
                        "index": index,
                        "content_block": {
                            "type": "tool_use",
                            "id": call_id,
                            "name": name,
                            "input": {},
                        },
                    }
                )
            events.append(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": piece},
                }
            )
        else:
            if first:
                events.append(
                    {
                        "type": "response.output_item.added",
                        "output_index": index,
                        "item": {
                            "type": "function_call",
                            "id": f"fc_{index}",
                            "call_id": call_id,
                            "name": name,
                            "arguments": "",
                        },
                    }
                )
            events.append(
                {
                    "type": "response.function_call_arguments.delta",
                    "output_index": index,
                    "item_id": f"fc_{index}",
                    "delta": piece,
                }
            )
    for index, _, _, _ in calls:
        if index not in started:  # a call whose arguments are empty text: "{}" has 2 chars, so
            raise AssertionError("every call has at least one fragment")
    events.append(
        {
            "openai": chunk(finish="tool_calls"),
            "anthropic": {"type": "message_stop"},
            "responses": {"type": "response.completed", "response": {}},
        }[fmt]
    )
    acc = ToolCallAccumulator()
    for event in events:
        acc.feed(event)
    got = acc.drain()
    assert [(c.id, c.name, c.arguments) for c in got] == [
        (call_id, name, text) for _, call_id, name, text in calls
    ]
    assert all(not c.incomplete for c in got)
    assert [orjson.loads(c.arguments) for c in got] == [orjson.loads(t) for *_, t in calls]
