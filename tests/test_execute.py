"""The never-throw execution entry: one result per call, carrying its id, whatever was sent."""

from __future__ import annotations

import asyncio
import threading

import pytest
import ripsight
import ripsight.budget as budget_module
from _protocol_helpers import AVAILABLE, FakeWorkspace, registry_with
from ripsight import Registry, ToolCall, ToolResult, ToolSpec, default_registry
from ripsight.errors import OutsideRootError, PathNotFoundError
from ripsight.types import ToolOutput

EMPTY = {"type": "object", "properties": {}, "additionalProperties": False}


@pytest.fixture
def fake(tmp_path) -> FakeWorkspace:
    (tmp_path / "a.py").write_text("".join(f"line {i}\n" for i in range(1, 31)))
    return FakeWorkspace(tmp_path)


@pytest.fixture
def reg(fake) -> Registry:
    return registry_with(fake)


def run(reg: Registry, name: str, arguments: str = "{}", call_id: str = "call_1") -> ToolResult:
    result = reg.execute(ToolCall(call_id, name, arguments))
    assert result.call_id == call_id
    return result


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("Read", f"There is no tool named Read. Did you mean read_file? {AVAILABLE}"),
        ("grep_search", f"There is no tool named grep_search. Did you mean grep? {AVAILABLE}"),
        (
            "search_file_content",
            f"There is no tool named search_file_content. Did you mean grep? {AVAILABLE}",
        ),
        ("list_files", f"There is no tool named list_files. Did you mean glob? {AVAILABLE}"),
        ("find", f"There is no tool named find. Did you mean glob? {AVAILABLE}"),
        ("GLOB", f"There is no tool named GLOB. Did you mean glob? {AVAILABLE}"),
        (
            "functions.grep",
            f"There is no tool named functions.grep. Did you mean grep? {AVAILABLE}",
        ),
        (
            "edit_file",
            (
                "There is no tool named edit_file. These tools are read-only: they can find, "
                f"search and read files but cannot change files or run commands. {AVAILABLE}"
            ),
        ),
        ("weather", f"There is no tool named weather. {AVAILABLE}"),
        (
            "",
            (
                "The tool call has no tool name, so nothing was run. "
                f"{AVAILABLE[:-1]}. Call one of them by name."
            ),
        ),
    ],
)
def test_unknown_tool(reg, name, message):
    result = run(reg, name, '{"path": "a.py"}')
    assert result.is_error
    assert result.content == message
    assert result.meta["error_type"] == "unknown_tool"


def test_malformed_json_names_the_place(reg, fake):
    result = run(reg, "read_file", '{"path": "a.py", "offset": }')
    assert result.is_error and result.meta["error_type"] == "malformed_json"
    assert result.content == (
        "read_file: The arguments are not valid JSON: unexpected character, expected a JSON "
        'value at line 1, column 28 (character 27): the text up to there is `{"path": "a.py", '
        '"offset": ` and it continues with `}`. Nothing was run. Send the arguments again as '
        'one complete JSON object, for example {"path": "..."}.'
    )
    assert fake.calls == []


def test_arguments_that_are_not_an_object(reg):
    result = run(reg, "grep", '["TODO"]')
    assert result.is_error and result.meta["error_type"] == "invalid_arguments"
    assert result.content == (
        "grep: The arguments must be a JSON object, got an array. Send them as one JSON object "
        'with named fields, for example {"pattern": "TODO"}.'
    )


def test_invalid_arguments_are_all_reported(reg, fake):
    result = run(reg, "grep", '{"pattern": "x", "limit": "5", "context": -2, "file_path": "a"}')
    assert result.is_error and result.meta["error_type"] == "invalid_arguments"
    assert result.content == (
        "Invalid arguments for grep (2 problems); nothing was run:\n"
        '- "limit" must be an integer, got the string "5" (write it without quotes: 5).\n'
        '- "context" must be at least 0, got -2.\n'
        'Note: ignored unknown argument "file_path" (did you mean "path"?). grep accepts: '
        "pattern, path, glob, type, type_not, literal, case_insensitive, context, before_context, "
        "after_context, multiline, max_count, invert_match, max_depth, include_ignored, "
        "output_mode, limit, offset.\n"
        "Fix the arguments and call grep again."
    )
    assert result.meta["ignored_arguments"] == ["file_path"]
    assert fake.calls == []


def test_misnamed_required_argument(reg):
    result = run(reg, "read_file", '{"file_path": "a.py"}')
    assert result.content == (
        "Invalid arguments for read_file (1 problem); nothing was run:\n"
        '- missing required argument "path" (string): Path of the file to read, relative to the '
        'workspace root, e.g. "src/app.py".\n'
        'Note: ignored unknown argument "file_path" (did you mean "path"?). read_file accepts: '
        "path, offset, limit, cell, pages, outline.\n"
        "Fix the arguments and call read_file again."
    )


def test_ignored_argument_is_named_in_a_successful_result(reg, fake):
    result = run(reg, "glob", '{"pattern": "*.py", "recursive": true}')
    assert not result.is_error
    assert result.content.splitlines()[0] == (
        'Note: ignored unknown argument "recursive". glob accepts: pattern, path, type, '
        "max_depth, include_ignored, limit, offset, sort."
    )
    assert result.meta["ignored_arguments"] == ["recursive"]
    assert fake.calls == [
        (
            "glob",
            ("*.py",),
            {
                "path": None,
                "limit": 200,
                "offset": 0,
                "sort": "path",
                "cancel": None,
                "type": None,
                "max_depth": None,
                "include_ignored": False,
            },
        )
    ]


def test_ripsight_errors_become_results(reg, fake):
    fake.fail_with = OutsideRootError(
        "../etc/passwd is outside the workspace root; only files inside it can be read. "
        "Use a path relative to the root, without '..'."
    )
    result = run(reg, "read_file", '{"path": "../etc/passwd"}')
    assert result.is_error and result.meta["error_type"] == "outside_root"
    assert result.content == str(fake.fail_with)
    fake.fail_with = PathNotFoundError("src/ap.py does not exist. Did you mean: src/app.py?")
    result = run(reg, "read_file", '{"path": "src/ap.py"}')
    assert result.meta["error_type"] == "not_found"
    assert result.content == "src/ap.py does not exist. Did you mean: src/app.py?"


class PanicException(BaseException):
    """Stands in for pyo3's PanicException, which derives from BaseException."""


@pytest.mark.parametrize(
    "error", [ValueError("boom"), RecursionError(), MemoryError(), PanicException("rust panicked")]
)
def test_any_exception_inside_a_tool_becomes_an_error_result(reg, fake, error):
    fake.fail_with = error
    result = run(reg, "grep", '{"pattern": "x"}')
    assert result.is_error and result.meta["error_type"] == "internal"
    assert result.content == (
        f"grep failed with an internal error ({type(error).__name__}); this is a bug in the "
        "tool, not in your call. Try a narrower request or another tool."
    )
    assert result.meta["exception"].startswith(type(error).__name__)


@pytest.mark.parametrize("error", [KeyboardInterrupt(), SystemExit(3)])
def test_interrupts_and_exit_propagate(reg, fake, error):
    fake.fail_with = error
    with pytest.raises(type(error)):
        reg.execute(ToolCall("c", "grep", '{"pattern": "x"}'))


def test_handler_returning_no_text():
    reg = Registry()
    reg.register(ToolSpec("odd", "", EMPTY, handler=lambda ctx, args: 42))  # type: ignore[arg-type]
    result = reg.execute(ToolCall("c", "odd", "{}"))
    assert (
        result.is_error
        and result.content == "odd returned no text (a bug in the tool). Try another tool."
    )


def test_registry_without_workspace(reg):
    result = registry_with(None).execute(ToolCall("c", "glob", '{"pattern": "*"}'))
    assert result.is_error and result.meta["error_type"] == "invalid_arguments"
    assert "no workspace" in result.content


@pytest.mark.parametrize("garbage", [None, 42, "grep", object(), {"id": 5}, []])
def test_garbage_calls_get_one_error_result(reg, garbage):
    result = reg.execute(garbage)
    assert isinstance(result, ToolResult) and result.is_error


def test_calls_from_sdk_objects_and_dicts(reg, fake):
    from anthropic.types import ToolUseBlock
    from openai.types.chat import ChatCompletionMessageFunctionToolCall
    from openai.types.responses import ResponseFunctionToolCall

    calls = [
        ChatCompletionMessageFunctionToolCall(
            id="call_o", type="function", function={"name": "glob", "arguments": '{"pattern": "*"}'}
        ),
        ToolUseBlock(id="toolu_a", type="tool_use", name="glob", input={"pattern": "*"}),
        ResponseFunctionToolCall(
            call_id="call_r",
            id="fc_1",
            type="function_call",
            name="glob",
            arguments='{"pattern": "*"}',
        ),
        {"id": "call_d", "name": "glob", "arguments": {"pattern": "*"}},
    ]
    results = reg.execute_many(calls)
    assert [r.call_id for r in results] == ["call_o", "toolu_a", "call_r", "call_d"]
    assert not any(r.is_error for r in results)


def test_meta_on_every_result(reg):
    for result in (run(reg, "nope"), run(reg, "glob", "{"), run(reg, "glob", '{"pattern": "*"}')):
        assert set(result.meta) >= {"duration_ms", "truncated", "original_chars", "chars"}
        assert result.meta["duration_ms"] >= 0
        assert result.meta["original_chars"] == len(result.content)
        assert result.meta["truncated"] is False


def test_truncation_is_applied_once_at_the_entry(monkeypatch):
    seen: list[tuple[int, int, float]] = []

    def fake_truncate(text: str, max_chars: int, head_ratio: float) -> tuple[str, int, int]:
        seen.append((len(text), max_chars, head_ratio))
        if len(text) <= max_chars:
            return text, 0, len(text)
        head = int(max_chars * head_ratio)
        return (
            text[:head] + "[cut]" + text[-(max_chars - head - 5) :],
            len(text) - max_chars + 5,
            len(text),
        )

    monkeypatch.setattr(budget_module, "_truncate_middle", fake_truncate)
    reg = Registry()
    reg.register(
        ToolSpec("big", "", EMPTY, handler=lambda ctx, args: "A" * 100 + "b" * 19_800 + "Z" * 100)
    )
    result = reg.execute(ToolCall("c", "big", "{}"))
    assert seen == [(20_000, 8000, 0.6)]
    assert result.meta["truncated"] is True
    assert result.meta["original_chars"] == 20_000
    assert result.meta["chars"] == len(result.content) == 8000
    assert result.content.startswith("A" * 100) and result.content.endswith("Z" * 100)


def test_real_truncation_keeps_both_ends():
    reg = Registry()
    reg.register(
        ToolSpec("big", "", EMPTY, handler=lambda ctx, args: "HEAD" + "é" * 19_992 + "TAIL")
    )
    result = reg.execute(ToolCall("c", "big", "{}"))
    assert len(result.content) <= 8000
    assert result.content.startswith("HEAD") and result.content.endswith("TAIL")
    assert result.meta["truncated"] is True and result.meta["original_chars"] == 20_000


def test_custom_budget():
    reg = Registry(max_result_chars=500, head_ratio=0.5)
    assert reg.max_result_chars == 500
    with pytest.raises(ValueError):
        Registry(max_result_chars=10)


# -- read state -----------------------------------------------------------------------------------


def test_unchanged_reread_is_a_short_notice(reg, fake, tmp_path):
    first = run(reg, "read_file", '{"path": "a.py"}', "call_1")
    assert "line 30" in first.content
    again = run(reg, "read_file", '{"path": "a.py"}', "call_2")
    assert again.content == (
        "Already shown: a.py lines 1-30 are part of the result of your earlier read_file call "
        "(id call_1), and the file has not changed since, so the text is not repeated. Use that "
        "result, or call read_file with another offset to see other lines."
    )
    assert again.meta["read_state"] == "unchanged" and not again.is_error
    part = run(reg, "read_file", '{"path": "a.py", "offset": 5, "limit": 3}', "call_3")
    assert part.content.startswith(
        "Already shown: a.py lines 5-7 are part of the result of your "
        "earlier read_file call (id call_1)"
    )
    # The engine identifies the file (fstat of what it opened) before each later call; with the
    # identity unchanged and the range delivered, nothing is read again.
    assert len([c for c in fake.calls if c[0] == "read_file"]) == 1


def test_changed_file_is_read_afresh(reg, fake, tmp_path):
    run(reg, "read_file", '{"path": "a.py"}', "call_1")
    (tmp_path / "a.py").write_text("new content\n")
    again = run(reg, "read_file", '{"path": "a.py"}', "call_2")
    assert "new content" in again.content
    third = run(reg, "read_file", '{"path": "a.py"}', "call_3")
    assert "(id call_2)" in third.content


def test_other_range_is_read(reg, fake):
    run(reg, "read_file", '{"path": "a.py", "limit": 10}', "call_1")
    other = run(reg, "read_file", '{"path": "a.py", "offset": 8, "limit": 10}', "call_2")
    assert "line 17" in other.content
    assert len([c for c in fake.calls if c[0] == "read_file"]) == 2


def test_truncated_or_failed_reads_are_not_remembered(tmp_path):
    (tmp_path / "big.txt").write_text("".join(f"{'x' * 50} {i}\n" for i in range(400)))
    fake = FakeWorkspace(tmp_path)
    reg = registry_with(fake, max_result_chars=500)

    def cut(text, max_chars, head_ratio):
        return (
            (text[:max_chars], len(text) - max_chars, len(text))
            if len(text) > max_chars
            else (text, 0, len(text))
        )

    budget_truncate = budget_module._truncate_middle
    budget_module._truncate_middle = cut
    try:
        first = run(reg, "read_file", '{"path": "big.txt"}', "c1")
        assert first.meta["truncated"]
        second = run(reg, "read_file", '{"path": "big.txt"}', "c2")
        assert "Already shown" not in second.content
    finally:
        budget_module._truncate_middle = budget_truncate

    # A read that failed showed nothing: the same file, unchanged, is delivered in full at the
    # next call, and only a read that delivered it is remembered.
    (tmp_path / "small.txt").write_text("hello from small\n")
    fake.fail_with = ripsight.UnreadableError("small.txt: the disk failed")
    failed = run(reg, "read_file", '{"path": "small.txt"}', "c3")
    assert failed.is_error and "hello from small" not in failed.content
    fake.fail_with = None
    delivered = run(reg, "read_file", '{"path": "small.txt"}', "c4")
    assert not delivered.is_error and "hello from small" in delivered.content
    assert "Already shown" not in delivered.content
    again = run(reg, "read_file", '{"path": "small.txt"}', "c5")
    assert "Already shown" in again.content and "(id c4)" in again.content, again.content


def test_reset_session_forgets_reads(reg, fake):
    run(reg, "read_file", '{"path": "a.py"}', "c1")
    reg.reset_session()
    assert "Already shown" not in run(reg, "read_file", '{"path": "a.py"}', "c2").content


# -- batches --------------------------------------------------------------------------------------


def barrier_registry(parties: int) -> tuple[Registry, list[str]]:
    barrier = threading.Barrier(parties, timeout=10)
    order: list[str] = []
    lock = threading.Lock()
    active = [0, 0]

    def meet(ctx, args):
        barrier.wait(timeout=10)  # only passes when `parties` calls run at the same time
        return f"met {args['n']}"

    def alone(ctx, args):
        with lock:
            active[0] += 1
            active[1] = max(active[1], active[0])
        with lock:
            order.append(args["n"])
            active[0] -= 1
        return f"alone {args['n']} max={active[1]}"

    schema = {
        "type": "object",
        "properties": {"n": {"type": "string"}},
        "required": ["n"],
        "additionalProperties": False,
    }
    reg = Registry(max_workers=4)  # enough threads for the barrier on any machine
    reg.register(ToolSpec("meet", "", schema, meet, concurrency_safe=True))
    reg.register(ToolSpec("alone", "", schema, alone, concurrency_safe=False))
    return reg, order


def test_execute_many_runs_safe_calls_in_parallel_and_keeps_order():
    reg, _ = barrier_registry(3)
    calls = [ToolCall(f"c{i}", "meet", f'{{"n": "{i}"}}') for i in range(3)]
    calls.insert(1, ToolCall("bad", "nope", "{}"))
    results = reg.execute_many(calls)
    assert [r.call_id for r in results] == ["c0", "bad", "c1", "c2"]
    assert [r.content for r in results if not r.is_error] == ["met 0", "met 1", "met 2"]
    reg.close()


def test_unsafe_calls_run_alone_between_batches():
    reg, _order = barrier_registry(2)
    calls = [
        ToolCall("a", "meet", '{"n": "a"}'),
        ToolCall("b", "meet", '{"n": "b"}'),
        ToolCall("x", "alone", '{"n": "x"}'),
        ToolCall("c", "meet", '{"n": "c"}'),
        ToolCall("d", "meet", '{"n": "d"}'),
    ]
    results = reg.execute_many(calls)
    assert [r.call_id for r in results] == ["a", "b", "x", "c", "d"]
    assert not any(r.is_error for r in results), [r.content for r in results]
    assert results[2].content == "alone x max=1"


def test_aexecute_many_matches_execute_many():
    reg, _ = barrier_registry(2)
    calls = [
        ToolCall("a", "meet", '{"n": "a"}'),
        ToolCall("b", "meet", '{"n": "b"}'),
        ToolCall("x", "alone", '{"n": "x"}'),
        ToolCall("e", "grep", "{}"),
    ]
    results = asyncio.run(reg.aexecute_many(calls))
    assert [r.call_id for r in results] == ["a", "b", "x", "e"]
    assert [r.is_error for r in results] == [False, False, False, True]
    assert asyncio.run(reg.aexecute(ToolCall("z", "alone", '{"n": "z"}'))).call_id == "z"


def test_handler_sees_context(fake):
    seen = []
    reg = Registry(fake)
    reg.register(ToolSpec("peek", "", EMPTY, lambda ctx, args: seen.append(ctx) or "ok"))
    reg.execute(ToolCall("call_9", "peek", "{}"))
    assert seen[0].call_id == "call_9" and seen[0].workspace is fake


def test_tool_output_error_flag():
    reg = Registry()
    reg.register(
        ToolSpec(
            "soft", "", EMPTY, lambda ctx, args: ToolOutput("nothing", meta={"x": 1}, is_error=True)
        )
    )
    result = reg.execute(ToolCall("c", "soft", "{}"))
    assert result.is_error and result.meta["x"] == 1 and result.content == "nothing"


# -- against the real engine ----------------------------------------------------------------------


def test_real_engine_outside_root_and_missing_file(tmp_path):
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "app.py").write_text("x = 1\n")
    (tmp_path / "secret.txt").write_text("s\n")
    reg = default_registry(tmp_path / "repo")
    outside = reg.execute(ToolCall("c1", "read_file", '{"path": "../secret.txt"}'))
    assert outside.is_error and outside.meta["error_type"] == "outside_root"
    assert "outside the workspace root" in outside.content
    missing = reg.execute(ToolCall("c2", "read_file", '{"path": "ap.py"}'))
    assert missing.is_error and missing.meta["error_type"] == "not_found"
    assert "app.py" in missing.content
    found = reg.execute(ToolCall("c3", "grep", '{"pattern": "x = 1"}'))
    assert found.content.splitlines()[1] == "app.py:1:x = 1"


def test_nul_in_a_path_is_refused_before_the_engine(reg, fake):
    result = run(reg, "read_file", '{"path": "a\\u0000.py"}')
    assert result.is_error and result.meta["error_type"] == "invalid_arguments"
    assert result.content == (
        "path contains a NUL character (\\0), which no file name or pattern can hold; remove it "
        "and call the tool again."
    )
    assert fake.calls == []


def test_absurd_offsets_are_refused_by_the_schema(reg):
    result = run(reg, "read_file", '{"path": "a.py", "offset": 100000000000000000000}')
    assert result.meta["error_type"] == "invalid_arguments"
    assert '"offset" must be at most 1000000000000' in result.content


def test_empty_batch(reg):
    assert reg.execute_many([]) == []
    assert asyncio.run(reg.aexecute_many([])) == []


# -- cancellation -------------------------------------------------------------------------------


def test_the_calls_cancel_token_reaches_every_engine_call(reg, fake):
    token = object()
    for name, arguments in (
        ("glob", '{"pattern": "*.py"}'),
        ("grep", '{"pattern": "x"}'),
        ("read_file", '{"path": "a.py"}'),
    ):
        result = reg.execute(ToolCall("c", name, arguments), cancel=token)
        assert not result.is_error, result.content
        assert fake.calls[-1][0] == name and fake.calls[-1][2]["cancel"] is token
    seen = []
    reg.register(ToolSpec("host", "", EMPTY, lambda ctx, args: seen.append(ctx.cancel) or "ok"))
    reg.execute(ToolCall("c", "host", "{}"), cancel=token)
    reg.execute(ToolCall("c", "host", "{}"))
    assert seen == [token, None]


def test_a_cancelled_token_answers_cancelled(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    reg = default_registry(tmp_path)
    token = ripsight.CancelToken()
    token.cancel()
    for name, arguments in (("grep", '{"pattern": "x"}'), ("read_file", '{"path": "a.py"}')):
        result = reg.execute(ToolCall("c", name, arguments), cancel=token)
        assert result.is_error and result.meta["code"] == "cancelled", result.content
    assert [r.status for r in reg.log.records()] == ["cancelled", "cancelled"]
    assert not reg.execute(ToolCall("c", "grep", '{"pattern": "x"}')).is_error
