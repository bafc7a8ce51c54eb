"""The registry: the catalogue of a session's tools, and the never-throw pipeline every call goes
through.

    >>> reg = default_registry("/path/to/repo")
    >>> tools = reg.definitions("openai")            # or "openai-responses", "anthropic", "mcp"
    >>> res = reg.execute(ToolCall(id="call_1", name="grep", arguments='{"pattern": "TODO"}'))
    >>> res.call_id, res.is_error, res.meta["code"]
    ('call_1', False, 'ok')

Every call of every tool, built-in or registered by the host, passes the same steps (SPEC §3):
accept the call id; record a running operation in `log`; look the tool up (aliases,
did-you-mean); parse and check the arguments; ask the `policy` and the `before` hook (and, when
either answers ``Ask(reason)``, the host's `approve` callback); execute;
classify the outcome; finish the operation; return one bounded result. Whatever the model sent,
`execute` answers with exactly one `ToolResult` whose ``meta["code"]`` is a stable machine code
(`ripsight.codes`). The registry keeps the catalogue and runs the steps; each concern has a
module of its own: the steps in `steps`, names in `lookup`, the result budget and references
in `budget`, batches in `batches`, the operation record in `oplog`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

from . import codes
from .approval import (
    CALLER_LOOP,
    Approval,
    ApprovalRequest,
    Approver,
    frozen_arguments,
    seek_approval,
)
from .batches import Batches, Slot, is_concurrency_safe
from .budget import bound, bound_images, with_budget
from .limits import APPROVAL_DEADLINE, DEFAULT_LIMITS, ToolLimits
from .lookup import TOOL_ALIASES, unknown_tool_message
from .oplog import CallRecord, OperationLog, result_summary
from .providers import FORMATS, definitions
from .roots import Roots
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
    invalid_call,
    look_up,
    read_call,
    run_handler,
)
from .tools import ENGINE_RESULT_KEY, builtin_tools
from .types import ToolCall, ToolContext, ToolResult, ToolSpec
from .workspace import CancelToken, Workspace

if sys.version_info >= (3, 13):
    from warnings import deprecated
else:
    from typing_extensions import deprecated

if TYPE_CHECKING:
    from anthropic.types import ToolParam
    from openai.types.chat import ChatCompletionFunctionToolParam
    from openai.types.responses import FunctionToolParam

__all__ = ["FORMATS", "TOOL_ALIASES", "Policy", "Registry", "default_registry"]

logger = logging.getLogger("ripsight.registry")


class Registry:
    """The tools of one session, bound to one `Workspace` (or the `Roots` of several).

    Args:
        workspace: the workspace (or `Roots`) the built-in tools work in (None for definitions only, or
            for host tools that need none).
        limits: the `ToolLimits`; the registry applies their result budget
            (``max_result_chars``, default 8000, keeping ``head_ratio`` of it, default 0.6, from
            the head). The tools' own limits live in their specs: register
            ``builtin_tools(limits)`` with the same object (`default_registry` does).
        max_result_chars, head_ratio: shorthands that replace those two fields of `limits`.
        max_workers: threads for a parallel batch (default min(8, 2 x cores)).
        log: the `OperationLog` every call is recorded in (default: an in-memory ring).
        policy: ``policy(tool_name, arguments) -> str | Ask | None``, asked after the
            arguments check: None allows the call, a string denies it with that reason,
            ``Ask(reason)`` asks `approve`.
        before: ``before(tool_name, arguments)``, run after the policy allowed a call; it may
            return ``Ask(reason)`` too.
        approve: ``approve(ApprovalRequest) -> Decision | bool`` (or an async function): the
            person's word on a call the policy or the hook asked about (`ripsight.approval`).
            Without it such a call is refused.
        approval_deadline: seconds `approve` has to answer before the call is refused (default
            ``LIMITS["approval_deadline_seconds"]``, 120).
        after: ``after(tool_name, arguments, result) -> ToolResult | None``, run after a call
            ran (a returned result replaces it). A hook that raises turns into an error result.
        session: the conversation state (default: a new `Session`).
    """

    def __init__(
        self,
        workspace: Workspace | Roots | None = None,
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
        approve: Approver | None = None,
        approval_deadline: float = APPROVAL_DEADLINE,
    ) -> None:
        if isinstance(approval_deadline, bool) or not isinstance(approval_deadline, (int, float)):
            raise TypeError(f"approval_deadline must be a number, got {approval_deadline!r}")
        if not approval_deadline > 0:
            raise ValueError(
                f"approval_deadline must be more than 0 seconds, got {approval_deadline}"
            )
        self.workspace = workspace
        self.approve = approve
        self.approval_deadline = float(approval_deadline)
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

    @property
    @deprecated(
        "Registry.read_state is deprecated and goes in a later release: read or set "
        "Registry.session.reads (or call forget_between_calls() to remember nothing)"
    )
    def read_state(self) -> ReadState:
        """Which file ranges this session delivered: ``session.reads``. Deprecated (it warns):
        a host that set it to `NoReadState` to turn read memos off calls
        `forget_between_calls`."""
        return self.session.reads

    @read_state.setter
    @deprecated(
        "Registry.read_state is deprecated and goes in a later release: read or set "
        "Registry.session.reads (or call forget_between_calls() to remember nothing)"
    )
    def read_state(self, state: ReadState) -> None:
        self.session.reads = state

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
        # The approvals a person gave go with the conversation (a new Session has none).
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

    def execute(
        self, call: Any, *, cancel: CancelToken | None = None, slot: Slot | None = None
    ) -> ToolResult:
        """Runs one call through the pipeline; never raises (except on Ctrl-C and exit).
        A call that needs approval waits for it here (at most `approval_deadline` seconds);
        `slot`, a context manager such as a semaphore that bounds the tools running at once, is
        held only while the tool runs, never during that wait.

        `cancel` reaches the tool (`ToolContext.cancel`, and from there every engine call):
        cancelling it from another thread stops the call, which answers with code
        ``cancelled``.

        >>> reg.execute(ToolCall("c1", "Read", "{}")).content
        'There is no tool named Read. Did you mean read_file? Available tools: find_definitions, ...'
        """
        return self._execute(call, cancel, slot)

    def _execute(self, call: Any, cancel: CancelToken | None, slot: Slot | None) -> ToolResult:
        """`execute`, the tool itself run while holding `slot` (a worker slot of a batch)."""
        parsed = read_call(call)
        call_id, name = (parsed.id, parsed.name) if parsed else ToolCall.peek(call)
        record = CallRecord(self.log, call_id, name, parsed.arguments if parsed else None)
        meta: dict[str, Any] = {}
        try:
            answer = self._pipeline(call, parsed, record, cancel, meta, slot)
            return self._finish(record, answer, meta)
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
        raw: Any,
        call: ToolCall | None,
        record: CallRecord,
        cancel: CancelToken | None,
        meta: dict[str, Any],
        slot: Slot | None = None,
    ) -> Answer:
        """Steps 3-7: look the tool up, check the arguments, admit the call (waiting for an
        approval holds no slot), run it, classify what it returned (`raw`: the call as sent,
        for the answer when it could not be read)."""
        try:
            if call is None:
                raise invalid_call(raw, self.names)
            meta["tool"] = call.name
            spec = look_up(self._tools, call.name, meta)
            values, note = checked_arguments(spec, call, meta, record)
            record.arguments = values
            admit(
                self.policy,
                self.before,
                call.name,
                values,
                meta,
                lambda reason: self._ask(record, call.name, values, reason, cancel),
            )
            context = ToolContext(
                self.workspace, record.call_id, self.session, self.max_result_chars, cancel
            )
            with slot if slot is not None else contextlib.nullcontext():
                output = run_handler(spec, context, values, meta, note)
        except Answer as answer:
            return answer
        return classify(spec, output, meta, note)

    def _ask(
        self,
        record: CallRecord,
        tool: str,
        values: dict[str, Any],
        reason: str,
        cancel: CancelToken | None,
    ) -> Approval:
        """Seeks approval of a call (the running operation says it waits), by the session's
        memory or the `approve` callback; cancelling the call ends the wait."""
        record.update(approval={"reason": reason, "decision": "waiting"})
        request = ApprovalRequest(tool, frozen_arguments(values), reason, record.call_id)
        approval = seek_approval(
            self.approve, self.session.approvals, request, self.approval_deadline, cancel
        )
        log = logger.info if approval.decider in ("deadline", "callback_error") else logger.debug
        log("%s %s: approval %s by %s", record.call_id, tool, approval.allowed, approval.decider)
        return approval

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
        record.finish(
            status,
            str(result.meta.get("code", code)),
            len(result.content),
            output,
            meta.get("approval"),
        )
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
        a call that is not concurrency-safe runs alone, after everything before it. A call
        waiting for approval holds no worker slot: the others of its batch run meanwhile.
        """
        return self._batches.run(self._execute_in_batch, list(calls), self.is_concurrency_safe)

    def _execute_in_batch(self, call: Any, slot: Slot | None) -> ToolResult:
        return self._execute(call, None, slot)

    async def aexecute(self, call: Any) -> ToolResult:
        """`execute` in a worker thread, for asyncio agents; an async `approve` callback runs
        on this event loop."""
        token = CALLER_LOOP.set(asyncio.get_running_loop())
        try:
            return await asyncio.to_thread(self.execute, call)
        finally:
            CALLER_LOOP.reset(token)

    async def aexecute_many(self, calls: Iterable[Any]) -> list[ToolResult]:
        """`execute_many` for asyncio: same batching, same order, the event loop stays free."""
        token = CALLER_LOOP.set(asyncio.get_running_loop())
        try:
            return await self._batches.arun(
                self._execute_in_batch, list(calls), self.is_concurrency_safe
            )
        finally:
            CALLER_LOOP.reset(token)

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
    root: str | os.PathLike[str] | Workspace | Roots | Sequence[str | os.PathLike[str] | Workspace],
    *,
    limits: ToolLimits = DEFAULT_LIMITS,
    max_result_chars: int | None = None,
    head_ratio: float | None = None,
    log: OperationLog | None = None,
    policy: Policy | None = None,
    before: BeforeHook | None = None,
    after: AfterHook | None = None,
    approve: Approver | None = None,
    approval_deadline: float = APPROVAL_DEADLINE,
    **workspace_options: Any,
) -> Registry:
    """A registry with `find_definitions`, `glob`, `grep`, `outline`, `read_file` and
    `read_result` bound to one workspace.

        >>> reg = default_registry("/path/to/repo", deny=[".env", "*.pem"])
        >>> reg.names
        ['find_calls', 'find_definitions', 'find_references', 'glob', 'grep', 'outline', 'read_file', 'read_result']
        >>> small = default_registry("/path/to/repo", limits=ToolLimits(grep_limit=20))

    `limits` (default: SPEC section 5) drives everything: the definitions the model reads
    (schema defaults and maxima, the numbers in descriptions), the defaults filled into calls,
    the line caps, and the result budget. `max_result_chars` and `head_ratio` are shorthands
    that replace those fields of `limits`. `log`, `policy`, `before`, `after`, `approve` and
    `approval_deadline` go to the `Registry`. `root` may be a `Workspace`; otherwise `workspace_options` (``index``,
    ``deny``, ``time_budget`` ...) go to `Workspace(root, ...)`.

    `root` may also be a list of roots (paths or `Workspace`s) or a `Roots`: the tools then
    serve every root, each path in a result beginning with its root's name (`ripsight.roots`).
    A list of one root is that root, served exactly as without the list.

        >>> default_registry(["/src/web", "/src/api"]).execute(call).content  # web/..., api/...
    """
    limits = with_budget(limits, max_result_chars, head_ratio)
    workspace = _workspace(root, workspace_options)
    registry = Registry(
        workspace,
        limits=limits,
        log=log,
        policy=policy,
        before=before,
        after=after,
        approve=approve,
        approval_deadline=approval_deadline,
    )
    for spec in builtin_tools(limits):
        registry.register(spec)
    return registry


def _workspace(
    root: str | os.PathLike[str] | Workspace | Roots | Sequence[str | os.PathLike[str] | Workspace],
    options: dict[str, Any],
) -> Workspace | Roots:
    """The workspace of `default_registry`'s `root`: one `Workspace`, or `Roots` for several."""
    if isinstance(root, (Workspace, Roots)):
        return root
    if isinstance(root, (str, os.PathLike)):
        return Workspace(root, **options)
    spaces = [r if isinstance(r, Workspace) else Workspace(r, **options) for r in root]
    if not spaces:
        raise ValueError("default_registry() needs at least one root")
    return spaces[0] if len(spaces) == 1 else Roots(spaces)
