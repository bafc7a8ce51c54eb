"""The registry: the catalogue of a session's tools, and the never-throw pipeline every call goes
through.

    >>> reg = default_registry("/path/to/repo")
    >>> tools = reg.definitions("openai")            # or "openai-responses", "anthropic", "mcp"
    >>> res = reg.execute(ToolCall(id="call_1", name="grep", arguments='{"pattern": "TODO"}'))
    >>> res.call_id, res.is_error, res.meta["code"]
    ('call_1', False, 'ok')

Every call of every tool, built-in or registered by the host, passes the same steps (SPEC §3):
accept the call id; record a running operation in `log`; look the tool up (aliases,
did-you-mean); parse and check the arguments; ask the `policy` and the `before` hook; execute;
classify the outcome; finish the operation; return one bounded result. Whatever the model sent,
`execute` answers with exactly one `ToolResult` whose ``meta["code"]`` is a stable machine code
(`ripsight.codes`). The registry keeps the catalogue and runs the steps; each concern has a
module of its own: the steps in `steps`, names in `lookup`, the result budget and references
in `budget`, batches in `batches`, the operation record in `oplog`.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal, overload

from . import codes
from .batches import Batches, is_concurrency_safe
from .budget import bound, bound_images, with_budget
from .limits import DEFAULT_LIMITS, ToolLimits
from .lookup import TOOL_ALIASES, unknown_tool_message
from .oplog import CallRecord, OperationLog, result_summary
from .providers import FORMATS, definitions
from .session import DEFAULT_ROW_CHARS, NoReadState, NoRepeatMemo, ReadState, RepeatMemo, Session
from .steps import (
    INTERRUPTS,
    REF_TOOL,
    AfterHook,
    Answer,
    BeforeHook,
    Policy,
    admit,
    after_hook,
    checked_arguments,
    classify,
    look_up,
    read_call,
    run_handler,
)
from .tools import ENGINE_RESULT_KEY, builtin_tools
from .types import ToolCall, ToolContext, ToolResult, ToolSpec
from .workspace import CancelToken, Workspace

if TYPE_CHECKING:
    from anthropic.types import ToolParam
    from openai.types.chat import ChatCompletionFunctionToolParam
    from openai.types.responses import FunctionToolParam

__all__ = ["FORMATS", "TOOL_ALIASES", "Policy", "Registry", "default_registry"]

logger = logging.getLogger("ripsight.registry")


class Registry:
    """The tools of one session, bound to one `Workspace`.

    Args:
        workspace: the workspace the built-in tools work in (None for definitions only, or
            for host tools that need none).
        limits: the `ToolLimits`; the registry applies their result budget
            (``max_result_chars``, default 8000, keeping ``head_ratio`` of it, default 0.6, from
            the head). The tools' own limits live in their specs: register
            ``builtin_tools(limits)`` with the same object (`default_registry` does).
        max_result_chars, head_ratio: shorthands that replace those two fields of `limits`.
        max_workers: threads for a parallel batch (default min(8, 2 x cores)).
        log: the `OperationLog` every call is recorded in (default: an in-memory ring).
        policy: ``policy(tool_name, arguments) -> str | None``, asked after the arguments
            check: None allows the call, a string denies it with that reason.
        before: ``before(tool_name, arguments)``, run after the policy allowed a call.
        after: ``after(tool_name, arguments, result) -> ToolResult | None``, run after a call
            ran (a returned result replaces it). A hook that raises turns into an error result.
        session: the conversation state (default: a new `Session`).
    """

    def __init__(
        self,
        workspace: Workspace | None = None,
        *,
        limits: ToolLimits = DEFAULT_LIMITS,
        max_result_chars: int | None = None,
        head_ratio: float | None = None,
        max_workers: int | None = None,
        log: OperationLog | None = None,
        policy: Policy | None = None,
        before: BeforeHook | None = None,
        after: AfterHook | None = None,
        session: Session | None = None,
    ) -> None:
        self.workspace = workspace
        self.limits = with_budget(limits, max_result_chars, head_ratio)
        self.log = log if log is not None else OperationLog()
        self.policy = policy
        self.before = before
        self.after = after
        # Stored results are paged in rows narrow enough for one page to fit the budget.
        row_chars = max(100, min(DEFAULT_ROW_CHARS, self.limits.max_result_chars // 4))
        self.session = session if session is not None else Session(row_chars=row_chars)
        self._tools: dict[str, ToolSpec] = {}
        self._batches = Batches(max_workers)

    @property
    def max_result_chars(self) -> int:
        """Budget of one result's text (``limits.max_result_chars``)."""
        return self.limits.max_result_chars

    @property
    def head_ratio(self) -> float:
        """Share of the budget kept from the head (``limits.head_ratio``)."""
        return self.limits.head_ratio

    def forget_between_calls(self) -> None:
        """For a server that outlives conversations and cannot tell them apart (an MCP
        server): every read is delivered in full and every call answered in full, never
        "already shown" or "same as call N", which could point a new conversation at text it
        never saw. Kept across `reset_session`."""
        self.session.reads = NoReadState()
        self.session.repeats = NoRepeatMemo()

    def reset_session(self) -> None:
        """Starts a new conversation: forgets delivered reads, stored results and repeats."""
        reads, repeats = self.session.reads, self.session.repeats
        self.session = Session(
            reference_bytes=self.session.references.max_bytes,
            reference_ttl=self.session.references.ttl,
            row_chars=self.session.references.row_chars,
        )
        # Keep the kinds the owner chose (the MCP server's remember nothing).
        if type(reads) is not ReadState:
            reads.clear()
            self.session.reads = reads
        if type(repeats) is not RepeatMemo:
            repeats.clear()
            self.session.repeats = repeats

    # -- the catalogue -------------------------------------------------------------------------

    def register(self, spec: ToolSpec) -> ToolSpec:
        """Adds a tool (replacing one of the same name); returns it."""
        if not isinstance(spec, ToolSpec):
            raise TypeError("register() takes a ToolSpec")
        if spec.parameters.get("type") != "object":
            raise ValueError(f"{spec.name}: parameters must be a JSON Schema of type object")
        self._tools[spec.name] = spec
        return spec

    def unregister(self, name: str) -> None:
        self._tools.pop(name, None)

    @property
    def names(self) -> list[str]:
        """Tool names, sorted."""
        return sorted(self._tools)

    def get(self, name: str) -> ToolSpec | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    @overload
    def definitions(
        self, fmt: Literal["openai"] = ..., strict: bool = ...
    ) -> list[ChatCompletionFunctionToolParam]: ...
    @overload
    def definitions(
        self, fmt: Literal["openai-responses"], strict: bool = ...
    ) -> list[FunctionToolParam]: ...
    @overload
    def definitions(self, fmt: Literal["anthropic"], strict: bool = ...) -> list[ToolParam]: ...
    @overload
    def definitions(self, fmt: str, strict: bool = ...) -> list[Any]: ...

    def definitions(self, fmt: str = "openai", strict: bool = False) -> list[Any]:
        """Tool definitions for one API, generated from the same specs.

        ``"openai"``: Chat Completions ``tools``; ``"openai-responses"``: Responses ``tools``;
        ``"anthropic"``: Messages ``tools``; ``"mcp"``: MCP ``Tool`` objects as JSON (camelCase).
        ``strict=True`` (OpenAI formats) gives strict-mode schemas: every property required,
        the optional ones nullable; a null argument counts as absent.

            >>> default_registry(".").definitions("anthropic")[0]["name"]
            'glob'
        """
        return definitions([self._tools[name] for name in self.names], fmt, strict=strict)

    def unknown_tool_message(self, name: str) -> str:
        """The sentence a model gets when it calls a tool that does not exist."""
        return unknown_tool_message(name, self.names)

    # -- the pipeline --------------------------------------------------------------------------

    def execute(self, call: Any, *, cancel: CancelToken | None = None) -> ToolResult:
        """Runs one call through the pipeline; never raises (except on Ctrl-C and exit).

        `cancel` reaches the tool (`ToolContext.cancel`, and from there every engine call):
        cancelling it from another thread stops the call, which answers with code
        ``cancelled``.

        >>> reg.execute(ToolCall("c1", "Read", "{}")).content
        'There is no tool named Read. Did you mean read_file? Available tools: find_definitions, ...'
        """
        parsed = read_call(call)
        call_id, name = (parsed.id, parsed.name) if parsed else ToolCall.peek(call)
        record = CallRecord(self.log, call_id, name, parsed.arguments if parsed else None)
        meta: dict[str, Any] = {}
        try:
            return self._finish(record, self._pipeline(parsed, record, cancel, meta), meta)
        except INTERRUPTS:
            record.finish("cancelled", codes.CANCELLED, 0, None)
            raise
        except BaseException as error:  # noqa: BLE001 - pyo3's PanicException is a BaseException
            meta = {"exception": f"{type(error).__name__}: {error}"}
            text = (
                "The tool failed with an internal error; this is a bug in the tool, not in your "
                "call. Try a narrower request or another tool."
            )
            return self._finish(record, Answer(text, "runtime_error", codes.INTERNAL), meta)

    def _pipeline(
        self,
        call: ToolCall | None,
        record: CallRecord,
        cancel: CancelToken | None,
        meta: dict[str, Any],
    ) -> Answer:
        """Steps 3-7: look the tool up, check the arguments, admit the call, run it, classify
        what it returned."""
        try:
            if call is None:
                raise Answer(
                    "The tool call could not be understood (it has no name or arguments), so "
                    "nothing was run. Call a tool by name with a JSON object of arguments.",
                    "contract_error",
                    codes.INVALID_CALL,
                )
            meta["tool"] = call.name
            spec = look_up(self._tools, call.name, meta)
            values, note = checked_arguments(spec, call, meta, record)
            record.arguments = values
            admit(self.policy, self.before, call.name, values, meta)
            context = ToolContext(
                self.workspace, record.call_id, self.session, self.max_result_chars, cancel
            )
            output = run_handler(spec, context, values, meta, note)
        except Answer as answer:
            return answer
        return classify(spec, output, meta, note)

    def _finish(self, record: CallRecord, answer: Answer, meta: dict[str, Any]) -> ToolResult:
        """Steps 8-9: bound the text, build the result, run the after hook, finish the record."""
        status, code = answer.status, answer.code
        stores = answer.stored and REF_TOOL in self._tools
        content, cut = bound(answer.text, self.limits, self.session.references if stores else None)
        meta.update(cut)
        if cut["truncated"] and code == codes.OK:
            code = codes.TRUNCATED
        if answer.is_error:
            meta.setdefault("error_type", code)
        meta["code"] = code
        meta["duration_ms"] = record.elapsed_ms()
        # Images have their own budget beside the text's; an error result shows none.
        budget = 0 if answer.is_error else self.limits.image_max_bytes
        images, dropped = bound_images(answer.images, budget)
        if answer.images:
            meta.update(images=len(images), image_bytes=sum(len(i.data) for i in images))
            if dropped:
                meta["images_dropped"] = dropped
        result = original = ToolResult(
            record.call_id, content, answer.is_error, record.tool, meta, images
        )
        if answer.ran and self.after is not None and record.arguments is not None:
            result, status = after_hook(self.after, record, result, status, self.limits)
        output = result_summary(result.content, meta, meta.get(ENGINE_RESULT_KEY))
        record.finish(status, str(result.meta.get("code", code)), len(result.content), output)
        if answer.on_delivered is not None and result is original and not result.is_error:
            try:
                answer.on_delivered(result)
            except Exception:
                logger.debug("on_delivered of %s failed", record.tool, exc_info=True)
        return result

    # -- batches -------------------------------------------------------------------------------

    def is_concurrency_safe(self, call: Any) -> bool:
        """Whether `call` may run beside others in a batch: an unknown tool's call is (it only
        gets an error); otherwise its tool decides from the checked arguments, and a call whose
        arguments do not parse or check is not."""
        return is_concurrency_safe(self._tools, call)

    def execute_many(self, calls: Iterable[Any]) -> list[ToolResult]:
        """Runs one model turn's calls; exactly one result per call, in call order.

        Consecutive concurrency-safe calls run in parallel threads (the engine releases the GIL);
        a call that is not concurrency-safe runs alone, after everything before it.
        """
        return self._batches.run(self.execute, list(calls), self.is_concurrency_safe)

    async def aexecute(self, call: Any) -> ToolResult:
        """`execute` in a worker thread, for asyncio agents."""
        return await asyncio.to_thread(self.execute, call)

    async def aexecute_many(self, calls: Iterable[Any]) -> list[ToolResult]:
        """`execute_many` for asyncio: same batching, same order, the event loop stays free."""
        return await self._batches.arun(self.aexecute, list(calls), self.is_concurrency_safe)

    def close(self) -> None:
        """Stops the worker threads of parallel batches (they also stop at interpreter exit)."""
        self._batches.close()

    def __enter__(self) -> Registry:  # noqa: PYI034 - Self needs Python 3.11
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        root = self.workspace.root if self.workspace is not None else None
        return f"Registry(tools={self.names}, root={root!r})"


def default_registry(
    root: str | os.PathLike[str] | Workspace,
    *,
    limits: ToolLimits = DEFAULT_LIMITS,
    max_result_chars: int | None = None,
    head_ratio: float | None = None,
    log: OperationLog | None = None,
    policy: Policy | None = None,
    before: BeforeHook | None = None,
    after: AfterHook | None = None,
    **workspace_options: Any,
) -> Registry:
    """A registry with `find_definitions`, `glob`, `grep`, `outline`, `read_file` and
    `read_result` bound to one workspace.

        >>> reg = default_registry("/path/to/repo", deny=[".env", "*.pem"])
        >>> reg.names
        ['find_definitions', 'find_references', 'glob', 'grep', 'outline', 'read_file', 'read_result']
        >>> small = default_registry("/path/to/repo", limits=ToolLimits(grep_limit=20))

    `limits` (default: SPEC section 5) drives everything: the definitions the model reads
    (schema defaults and maxima, the numbers in descriptions), the defaults filled into calls,
    the line caps, and the result budget. `max_result_chars` and `head_ratio` are shorthands
    that replace those fields of `limits`. `log`, `policy`, `before` and `after` go to the
    `Registry`. `root` may be a `Workspace`; otherwise `workspace_options` (``index``,
    ``deny``, ``time_budget`` ...) go to `Workspace(root, ...)`.
    """
    limits = with_budget(limits, max_result_chars, head_ratio)
    workspace = root if isinstance(root, Workspace) else Workspace(root, **workspace_options)
    registry = Registry(
        workspace, limits=limits, log=log, policy=policy, before=before, after=after
    )
    for spec in builtin_tools(limits):
        registry.register(spec)
    return registry
