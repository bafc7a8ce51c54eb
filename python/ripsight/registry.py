"""The registry: tool lookup, argument checking and the never-throw pipeline every call goes through.

    >>> reg = default_registry("/path/to/repo")
    >>> tools = reg.definitions("openai")            # or "openai-responses", "anthropic", "mcp"
    >>> res = reg.execute(ToolCall(id="call_1", name="grep", arguments='{"pattern": "TODO"}'))
    >>> res.call_id, res.is_error, res.meta["code"]
    ('call_1', False, 'ok')

Every call of every tool, built-in or registered by the host, passes the same steps (SPEC §3):
accept the call id; record a running operation in `log`; look the tool up (aliases,
did-you-mean); parse and check the arguments; ask the `policy` and the `before` hook; execute;
classify the outcome; finish the operation; return one bounded result. Whatever the model sent,
`execute` answers with exactly one `ToolResult` whose ``meta["code"]`` is a stable machine code.
A result over the budget keeps its head and tail and, when the registry has `read_result`, is
stored whole in the session under a ``ref_...`` reference that tool pages through.
"""

from __future__ import annotations

import asyncio
import bisect
import itertools
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Literal, overload

from . import _core
from .errors import RipsightError, model_text
from .limits import DEFAULT_LIMITS, ToolLimits
from .oplog import OperationLog, Status
from .providers import FORMATS, definitions
from .session import ReadState, Session, StoredResult
from .tools import builtin_tools
from .types import ToolCall, ToolContext, ToolOutput, ToolResult, ToolSpec
from .validation import ArgumentsError, check_arguments, closest_name, parse_arguments
from .workspace import Workspace

if TYPE_CHECKING:
    from anthropic.types import ToolParam
    from openai.types.chat import ChatCompletionFunctionToolParam
    from openai.types.responses import FunctionToolParam

__all__ = ["FORMATS", "Policy", "Registry", "default_registry"]

#: ``policy(tool_name, arguments) -> None`` to allow a call, or a reason (str) to deny it.
Policy = Callable[[str, dict[str, Any]], "str | None"]
#: ``before(tool_name, arguments)``: runs after the policy allowed a call, before it runs.
BeforeHook = Callable[[str, dict[str, Any]], None]
#: ``after(tool_name, arguments, result)``: may return a replacement result, or None.
AfterHook = Callable[[str, dict[str, Any], ToolResult], "ToolResult | None"]

# Tool names that models trained on other agents use for ours.
TOOL_ALIASES: dict[str, tuple[str, ...]] = {
    "read_file": (
        "read",
        "view",
        "cat",
        "open",
        "open_file",
        "view_file",
        "readfile",
        "read_files",
        "get_file",
        "file_read",
        "show_file",
        "str_replace_based_edit_tool",
        "read_many_files",
        "fetch_file",
        "get_file_contents",
    ),
    "grep": (
        "grep_search",
        "search_file_content",
        "search",
        "rg",
        "ripgrep",
        "search_files",
        "find_in_files",
        "search_code",
        "code_search",
        "codebase_search",
        "search_text",
        "text_search",
        "grep_tool",
        "file_search_content",
    ),
    "glob": (
        "list_files",
        "find",
        "find_files",
        "ls",
        "list_dir",
        "list_directory",
        "glob_search",
        "file_search",
        "find_file",
        "list",
        "dir",
        "tree",
        "find_by_name",
        "search_files_by_name",
        "glob_files",
        "listdir",
    ),
}
_WRITE_VERBS = (
    "edit",
    "write",
    "create",
    "delete",
    "remove",
    "replace",
    "apply",
    "patch",
    "run",
    "bash",
    "exec",
    "shell",
    "command",
    "move",
    "rename",
    "insert",
    "update",
    "save",
    "mkdir",
    "terminal",
    "execute",
)

logger = logging.getLogger("ripsight.registry")

_MAX_WORKERS = min(8, (os.cpu_count() or 2) * 2)
_INTERRUPTS = (KeyboardInterrupt, SystemExit, GeneratorExit, asyncio.CancelledError)
_REF_TOOL = "read_result"

# Codes of failures, by the `kind` of the ripsight error that caused them.
# The stable code of each ripsight error class, most specific first (looked up by name so that
# classes the engine defines itself map the same way).
_CODE_OF_ERROR = (
    ("CancelledError", "cancelled"),
    ("PathNotFoundError", "not_found"),
    ("OutsideRootError", "outside_root"),
    ("DeniedError", "denied"),
    ("IsADirectoryPathError", "is_a_directory"),
    ("NotADirectoryPathError", "not_a_directory"),
    ("SpecialFileError", "special_file"),
    ("PatternError", "invalid_pattern"),
    ("InvalidArgumentError", "invalid_arguments"),
    ("UnreadableError", "permission_denied"),
    ("EngineError", "io_error"),
)


def _error_code(error: BaseException) -> str:
    """The stable machine code of a ripsight error."""
    names = {cls.__name__ for cls in type(error).__mro__}
    for name, code in _CODE_OF_ERROR:
        if name in names:
            return code
    kind = getattr(error, "kind", None)
    return kind if isinstance(kind, str) and kind else "error"


def _truncate_middle(text: str, max_chars: int, head_ratio: float) -> tuple[str, int, int]:
    return _core.truncate_middle(text, max_chars, head_ratio)


def _output_summary(engine_result: Any) -> dict[str, Any]:
    """Counts and sizes of an engine result, for the operation log (never its text)."""
    summary: dict[str, Any] = {}
    for name in (
        "total",
        "total_matches",
        "total_files",
        "files_searched",
        "withheld",
        "total_lines",
        "size_bytes",
        "kind",
        "incomplete",
        "next_offset",
    ):
        value = getattr(engine_result, name, None)
        if isinstance(value, (bool, int, float, str)):
            summary[name] = value
    for name in ("paths", "lines", "files"):
        value = getattr(engine_result, name, None)
        if isinstance(value, (list, tuple)):
            summary[f"{name}_shown"] = len(value)
    return summary


class _Pending:
    """One call on its way through the pipeline: what the operation record will say."""

    __slots__ = ("arguments", "call_id", "name", "op_id", "started")

    def __init__(self, call_id: str, name: str, op_id: str | None, started: float) -> None:
        self.call_id = call_id
        self.name = name
        self.op_id = op_id
        self.started = started
        self.arguments: dict[str, Any] | None = None


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
        self.limits = _with_budget(limits, max_result_chars, head_ratio)
        self.log = log if log is not None else OperationLog()
        self.policy = policy
        self.before = before
        self.after = after
        # Stored results are paged in rows narrow enough for one page to fit the budget.
        row_chars = max(100, min(2000, self.limits.max_result_chars // 4))
        self.session = session if session is not None else Session(row_chars=row_chars)
        self._tools: dict[str, ToolSpec] = {}
        self._max_workers = max_workers or _MAX_WORKERS
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    @property
    def max_result_chars(self) -> int:
        """Budget of one result's text (``limits.max_result_chars``)."""
        return self.limits.max_result_chars

    @property
    def head_ratio(self) -> float:
        """Share of the budget kept from the head (``limits.head_ratio``)."""
        return self.limits.head_ratio

    @property
    def read_state(self) -> ReadState:
        """Which file ranges this session delivered (``session.reads``)."""
        return self.session.reads

    @read_state.setter
    def read_state(self, state: ReadState) -> None:
        self.session.reads = state

    # -- the tools -----------------------------------------------------------------------------

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

    def reset_session(self) -> None:
        """Starts a new conversation: forgets delivered reads, stored results and repeats."""
        reads = self.session.reads
        self.session = Session(
            reference_bytes=self.session.references.max_bytes,
            reference_ttl=self.session.references.ttl,
            row_chars=self.session.references.row_chars,
        )
        # Keep the kind of read state the owner chose (the MCP server's remembers nothing).
        if type(reads) is not ReadState:
            reads.clear()
            self.session.reads = reads

    # -- definitions ---------------------------------------------------------------------------

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

    # -- lookup --------------------------------------------------------------------------------

    def unknown_tool_message(self, name: str) -> str:
        """The sentence a model gets when it calls a tool that does not exist."""
        available = ", ".join(self.names) or "(none)"
        if not name.strip():
            return (
                f"The tool call has no tool name, so nothing was run. Available tools: "
                f"{available}. Call one of them by name."
            )
        suggestion = self._suggest_tool(name)
        if suggestion:
            return (
                f"There is no tool named {name}. Did you mean {suggestion}? "
                f"Available tools: {available}."
            )
        lowered = name.lower()
        if any(verb in lowered for verb in _WRITE_VERBS):
            return (
                f"There is no tool named {name}. These tools are read-only: they can find, "
                f"search and read files but cannot change files or run commands. "
                f"Available tools: {available}."
            )
        return f"There is no tool named {name}. Available tools: {available}."

    def _suggest_tool(self, name: str) -> str | None:
        names = self.names
        normalised = name.strip().lower().replace("-", "_").replace(" ", "_")
        for prefix in ("functions.", "tools.", "default_api.", "ripsight."):
            normalised = normalised.removeprefix(prefix)
        for candidate in names:
            if candidate.lower() == normalised:
                return candidate
        for target, aliases in TOOL_ALIASES.items():
            if target in self._tools and normalised in aliases:
                return target
        if any(verb in normalised for verb in _WRITE_VERBS):
            return None
        return closest_name(normalised, names)

    # -- the pipeline --------------------------------------------------------------------------

    def execute(self, call: Any) -> ToolResult:
        """Runs one call through the pipeline; never raises (except on Ctrl-C and exit).

        >>> reg.execute(ToolCall("c1", "Read", "{}")).content
        'There is no tool named Read. Did you mean read_file? Available tools: glob, grep, read_file, read_result.'
        """
        started = time.perf_counter()
        call_id, name = _safe_call_id(call), _safe_name(call)
        pending = _Pending(call_id, name, self._log_start(call_id, name, call), started)
        try:
            return self._execute(call, pending)
        except _INTERRUPTS:
            self._log_finish(pending, "cancelled", "cancelled", 0, None)
            raise
        except BaseException as error:  # noqa: BLE001 - pyo3's PanicException is a BaseException
            meta = {"error_type": "internal", "exception": f"{type(error).__name__}: {error}"}
            return self._answer(
                pending,
                "The tool failed with an internal error; this is a bug in the tool, not in your "
                "call. Try a narrower request or another tool.",
                status="runtime_error",
                code="internal",
                meta=meta,
            )

    def _execute(self, raw_call: Any, pending: _Pending) -> ToolResult:
        try:
            call = ToolCall.from_any(raw_call)
        except Exception:  # noqa: BLE001
            return self._answer(
                pending,
                "The tool call could not be understood (it has no name or arguments), so nothing "
                "was run. Call a tool by name with a JSON object of arguments.",
                status="contract_error",
                code="invalid_call",
                meta={"error_type": "invalid_call"},
            )
        pending.call_id = call.id if isinstance(call.id, str) else str(call.id)
        name = pending.name = call.name if isinstance(call.name, str) else str(call.name)
        meta: dict[str, Any] = {"tool": name}

        # Look the tool up.
        spec = self._tools.get(name)
        if spec is None:
            meta["error_type"] = "unknown_tool"
            suggestion = self._suggest_tool(name) if name.strip() else None
            if suggestion:
                meta["suggestion"] = suggestion
            return self._answer(
                pending,
                self.unknown_tool_message(name),
                status="contract_error",
                code="unknown_tool",
                meta=meta,
            )

        # Parse and check the arguments.
        if call.incomplete and not _parses_as_object(call.arguments):
            meta["error_type"] = "incomplete_arguments"
            return self._answer(
                pending,
                _incomplete_message(name, call.arguments),
                status="contract_error",
                code="incomplete_arguments",
                meta=meta,
            )
        try:
            arguments, notes = parse_arguments(call.arguments)
        except ArgumentsError as error:
            meta["error_type"] = error.kind
            return self._answer(
                pending, f"{name}: {error}", status="contract_error", code=error.kind, meta=meta
            )
        if notes:
            meta["argument_notes"] = notes
        self._log_update(pending, input=arguments)
        checked = check_arguments(spec.parameters, arguments)
        ignored_note = ""
        if checked.ignored:
            meta["ignored_arguments"] = [i.name for i in checked.ignored]
            ignored_note = (
                "Note: "
                + "; ".join(i.sentence() for i in checked.ignored)
                + f". {name} accepts: {', '.join(spec.parameters.get('properties', {}))}."
            )
        if not checked.ok:
            meta["error_type"] = "invalid_arguments"
            count = len(checked.errors)
            lines = [
                (
                    f"Invalid arguments for {name} ({count} problem{'s' if count != 1 else ''}); "
                    "nothing was run:"
                )
            ]
            lines += [f"- {e}" for e in checked.errors]
            if ignored_note:
                lines.append(ignored_note)
            lines.append(f"Fix the arguments and call {name} again.")
            return self._answer(
                pending,
                "\n".join(lines),
                status="contract_error",
                code="invalid_arguments",
                meta=meta,
            )
        values = checked.values
        if spec.prepare is not None:
            # Before the policy: it must judge the arguments the tool will use.
            spec.prepare(values)
        pending.arguments = values

        # Policy, then the before hook.
        denied = self._ask_policy(name, values, meta)
        if denied is not None:
            return self._answer(pending, denied[0], status="denied", code=denied[1], meta=meta)
        if self.before is not None:
            try:
                self.before(name, values)
            except _INTERRUPTS:
                raise
            except BaseException as error:  # noqa: BLE001 - a hook failure becomes a result
                meta["error_type"] = "hook_failed"
                meta["exception"] = f"{type(error).__name__}: {error}"
                return self._answer(
                    pending,
                    f"{name} was not run: a check before it failed ({type(error).__name__}). "
                    "This is a problem of the application, not of your call.",
                    status="runtime_error",
                    code="hook_failed",
                    meta=meta,
                )

        # Execute.
        context = ToolContext(
            self.workspace, pending.call_id, self.session, self.limits.max_result_chars
        )
        try:
            output = spec.handler(context, values)
        except _INTERRUPTS:
            raise
        except RipsightError as error:
            code = _error_code(error)
            meta["error_type"] = getattr(error, "kind", code)
            text = model_text(error) or f"{name} failed ({type(error).__name__})."
            if ignored_note:
                text = f"{text}\n{ignored_note}"
            return self._answer(
                pending,
                text,
                status="cancelled" if code == "cancelled" else "runtime_error",
                code=code,
                meta=meta,
                ran=True,
            )
        except BaseException as error:  # noqa: BLE001 - pyo3's PanicException is a BaseException
            meta["error_type"] = "internal"
            meta["exception"] = f"{type(error).__name__}: {error}"
            return self._answer(
                pending,
                f"{name} failed with an internal error ({type(error).__name__}); this is a bug "
                "in the tool, not in your call. Try a narrower request or another tool.",
                status="runtime_error",
                code="internal",
                meta=meta,
                ran=True,
            )

        # Classify and answer.
        if isinstance(output, ToolOutput):
            text, is_error = output.text, output.is_error
            meta.update(output.meta)
            code = output.code or ("tool_error" if is_error else "ok")
            delivered = output.on_delivered
        elif isinstance(output, str):
            text, is_error, code, delivered = output, False, "ok", None
        else:
            meta["error_type"] = "internal"
            return self._answer(
                pending,
                f"{name} returned no text (a bug in the tool). Try another tool.",
                status="runtime_error",
                code="internal",
                meta=meta,
                ran=True,
            )
        if is_error:
            meta.setdefault("error_type", code)
        if ignored_note:
            text = f"{ignored_note}\n{text}"
        return self._answer(
            pending,
            text,
            status="done",
            code=code,
            meta=meta,
            is_error=is_error,
            ran=True,
            on_delivered=delivered,
            stored=name != _REF_TOOL,
        )

    def _ask_policy(
        self, name: str, arguments: dict[str, Any], meta: dict[str, Any]
    ) -> tuple[str, str] | None:
        if self.policy is None:
            return None
        try:
            reason = self.policy(name, arguments)
        except _INTERRUPTS:
            raise
        except BaseException as error:  # noqa: BLE001 - pyo3's PanicException is a BaseException
            meta["error_type"] = "policy_error"
            meta["exception"] = f"{type(error).__name__}: {error}"
            message = (
                f"{name} was not run: the application's policy check failed "
                f"({type(error).__name__}), so the call is refused."
            )
            return message, "policy_error"
        if reason is None:
            return None
        meta["error_type"] = "denied"
        meta["policy_reason"] = str(reason)
        return (
            f"{name} was not run: the application's policy denies this call: {reason}",
            "denied",
        )

    def _answer(
        self,
        pending: _Pending,
        text: str,
        *,
        status: Status,
        code: str,
        meta: dict[str, Any],
        is_error: bool | None = None,
        ran: bool = False,
        on_delivered: Callable[[ToolResult], None] | None = None,
        stored: bool = True,
    ) -> ToolResult:
        """Steps 7-9: bound the text, build the result, run the after hook, finish the record."""
        failed = status != "done" if is_error is None else is_error
        content, bound = self._bound(text, stored=stored)
        meta.update(bound)
        if bound["truncated"] and code == "ok":
            code = "truncated"
        meta["code"] = code
        meta["duration_ms"] = round((time.perf_counter() - pending.started) * 1000.0, 3)
        result = original = ToolResult(
            call_id=pending.call_id, content=content, is_error=failed, name=pending.name, meta=meta
        )
        if ran and self.after is not None and pending.arguments is not None:
            try:
                replaced = self.after(pending.name, pending.arguments, result)
            except _INTERRUPTS:
                raise
            except BaseException as error:  # noqa: BLE001 - a hook failure becomes a result
                status, code, failed = "runtime_error", "hook_failed", True
                hook_meta = {
                    "tool": pending.name,
                    "error_type": "hook_failed",
                    "exception": f"{type(error).__name__}: {error}",
                    "code": code,
                    "truncated": False,
                }
                message = (
                    f"{pending.name} ran, but a check after it failed ({type(error).__name__}), "
                    "so its result is withheld. This is a problem of the application, not of "
                    "your call."
                )
                hook_meta.update(original_chars=len(message), chars=len(message))
                hook_meta["duration_ms"] = meta["duration_ms"]
                result = ToolResult(pending.call_id, message, True, pending.name, hook_meta)
            else:
                if isinstance(replaced, ToolResult) and replaced is not result:
                    result = self._bounded_replacement(replaced, code)
        engine_result = meta.get("engine_result")
        output: dict[str, Any] = {
            "chars": len(result.content),
            "original_chars": meta.get("original_chars", len(result.content)),
            "truncated": bool(meta.get("truncated")),
        }
        if meta.get("ref"):
            output["ref"] = meta["ref"]
        if meta.get("ignored_arguments"):
            output["ignored_arguments"] = list(meta["ignored_arguments"])
        if engine_result is not None:
            output.update(_output_summary(engine_result))
        self._log_finish(
            pending, status, str(result.meta.get("code", code)), len(result.content), output
        )
        if on_delivered is not None and result is original and not result.is_error:
            try:
                on_delivered(result)
            except Exception:
                logger.debug("on_delivered of %s failed", pending.name, exc_info=True)
        return result

    def _bounded_replacement(self, replaced: ToolResult, code: str) -> ToolResult:
        """An `after` hook's replacement result, held to the same budget and carrying a code."""
        meta = dict(replaced.meta)
        meta.setdefault("code", code)
        content = replaced.content if isinstance(replaced.content, str) else str(replaced.content)
        if len(content) > self.max_result_chars:
            content, bound = self._bound(content, stored=False)
            meta.update(bound)
        return ToolResult(replaced.call_id, content, bool(replaced.is_error), replaced.name, meta)

    def _bound(self, text: str, *, stored: bool) -> tuple[str, dict[str, Any]]:
        """The text cut to the budget: head and tail kept; the whole stored by reference when
        the registry has `read_result`, else the engine's middle truncation."""
        budget = self.max_result_chars
        original = len(text)
        meta: dict[str, Any] = {"original_chars": original}
        if original <= budget:
            meta.update(truncated=False, chars=original)
            return text, meta
        content: str | None = None
        if stored and _REF_TOOL in self._tools:
            try:
                content, ref = self._by_reference(text)
            except Exception as error:  # noqa: BLE001 - fall back to a plain cut
                meta["reference_error"] = repr(error)
            else:
                if ref is not None:
                    meta["ref"] = ref
        if content is None:
            try:
                content, _cut, _total = _truncate_middle(text, budget, self.head_ratio)
            except Exception as error:  # noqa: BLE001 - the entry point must not raise
                content = text[:budget]
                meta["truncate_error"] = repr(error)
        meta.update(truncated=content != text, chars=len(content))
        return content, meta

    def _by_reference(self, text: str) -> tuple[str | None, str | None]:
        store = self.session.references
        ref = store.put(text)
        entry = store.get(ref) if ref is not None else None
        if ref is None or entry is None:
            return None, None
        return _head_and_tail(entry, self.max_result_chars, self.head_ratio), ref

    # -- the operation log (its failures never change a result) --------------------------------

    def _log_start(self, call_id: str, name: str, call: Any) -> str | None:
        try:
            return self.log.start(call_id, name, _raw_arguments(call))
        except Exception:
            logger.debug("operation log start failed", exc_info=True)
            return None

    def _log_update(self, pending: _Pending, **fields: Any) -> None:
        if pending.op_id is None:
            return
        try:
            self.log.update(pending.op_id, call_id=pending.call_id, tool=pending.name, **fields)
        except Exception:
            logger.debug("operation log update failed", exc_info=True)

    def _log_finish(
        self,
        pending: _Pending,
        status: Status,
        code: str,
        model_chars: int,
        output: Mapping[str, Any] | None,
    ) -> None:
        if pending.op_id is None:
            return
        try:
            self.log.finish(
                pending.op_id,
                status=status,
                code=code,
                duration_ms=round((time.perf_counter() - pending.started) * 1000.0, 3),
                model_chars=model_chars,
                output=output,
                call_id=pending.call_id,
                tool=pending.name,
            )
        except Exception:
            logger.debug("operation log finish failed", exc_info=True)

    # -- batches -------------------------------------------------------------------------------

    def is_concurrency_safe(self, call: Any) -> bool:
        """Whether `call` may run beside others in a batch: an unknown tool's call is (it only
        gets an error); otherwise its tool decides from the checked arguments, and a call whose
        arguments do not parse or check is not."""
        try:
            parsed = ToolCall.from_any(call)
        except Exception:  # noqa: BLE001
            return True
        spec = self._tools.get(parsed.name) if isinstance(parsed.name, str) else None
        if spec is None:
            return True
        try:
            arguments, _ = parse_arguments(parsed.arguments)
        except ArgumentsError:
            return spec.is_concurrency_safe(None)
        checked = check_arguments(spec.parameters, arguments)
        return spec.is_concurrency_safe(checked.values if checked.ok else None)

    def _batches(self, calls: Sequence[Any]) -> list[list[tuple[int, Any]]]:
        batches: list[list[tuple[int, Any]]] = []
        current: list[tuple[int, Any]] = []
        for i, call in enumerate(calls):
            if self.is_concurrency_safe(call):
                current.append((i, call))
                continue
            if current:
                batches.append(current)
                current = []
            batches.append([(i, call)])
        if current:
            batches.append(current)
        return batches

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    max_workers=self._max_workers, thread_name_prefix="ripsight-tool"
                )
            return self._pool

    def execute_many(self, calls: Iterable[Any]) -> list[ToolResult]:
        """Runs one model turn's calls; exactly one result per call, in call order.

        Consecutive concurrency-safe calls run in parallel threads (the engine releases the GIL);
        a call that is not concurrency-safe runs alone, after everything before it.
        """
        calls = list(calls)
        results: list[ToolResult | None] = [None] * len(calls)
        for batch in self._batches(calls):
            if len(batch) == 1:
                i, call = batch[0]
                results[i] = self.execute(call)
                continue
            futures = [(i, self._executor().submit(self.execute, call)) for i, call in batch]
            for i, future in futures:
                results[i] = future.result()
        return [r for r in results if r is not None]

    async def aexecute(self, call: Any) -> ToolResult:
        """`execute` in a worker thread, for asyncio agents."""
        return await asyncio.to_thread(self.execute, call)

    async def aexecute_many(self, calls: Iterable[Any]) -> list[ToolResult]:
        """`execute_many` for asyncio: same batching, same order, the event loop stays free."""
        calls = list(calls)
        results: list[ToolResult | None] = [None] * len(calls)
        for batch in self._batches(calls):
            done = await asyncio.gather(*(self.aexecute(call) for _, call in batch))
            for (i, _), result in zip(batch, done):
                results[i] = result
        return [r for r in results if r is not None]

    def close(self) -> None:
        """Stops the worker threads of parallel batches (they also stop at interpreter exit)."""
        with self._pool_lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None

    def __enter__(self) -> Registry:  # noqa: PYI034 - Self needs Python 3.11
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        root = self.workspace.root if self.workspace is not None else None
        return f"Registry(tools={self.names}, root={root!r})"


def _head_and_tail(entry: StoredResult, budget: int, head_ratio: float) -> str:
    """Head and tail of a stored result within `budget` characters, with a note naming the
    reference and the rows (the units `read_result` pages in) that were cut."""
    text = entry.text
    total = len(text)
    rows = len(entry.rows)
    starts = list(itertools.accumulate((len(r) for r in entry.rows), initial=0))

    def note(cut: int, first: int, last: int) -> str:
        return (
            f"\n[... {cut:,} of {total:,} characters cut from the middle (lines {first:,}-"
            f"{last:,} of {rows:,}). The whole result is stored as {entry.ref}: call "
            f'read_result with ref="{entry.ref}" and offset={first} to read the cut lines ...]\n'
        )

    room = max(0, budget - len(note(total, rows, rows)))
    head = int(room * head_ratio)
    tail = room - head
    # End the head and start the tail at a line break when one is near.
    newline = text.rfind("\n", 0, head)
    if newline >= 0 and newline + 1 >= head * 0.8:
        head = newline + 1
    tail_start = total - tail
    newline = text.find("\n", tail_start - 1, total)
    if 0 <= newline and newline + 1 - tail_start <= tail * 0.2:
        tail_start = newline + 1
    first = bisect.bisect_right(starts, head) - 1 + 1
    last = bisect.bisect_right(starts, max(head, tail_start - 1)) - 1 + 1
    return text[:head] + note(tail_start - head, first, min(last, rows)) + text[tail_start:]


def _raw_arguments(call: Any) -> Any:
    try:
        if isinstance(call, ToolCall):
            return call.arguments
        if isinstance(call, Mapping):
            function = call.get("function")
            if isinstance(function, Mapping):
                return function.get("arguments")
            return call.get("arguments", call.get("input"))
        return getattr(call, "arguments", getattr(call, "input", None))
    except Exception:  # noqa: BLE001
        return None


def _safe_call_id(call: Any) -> str:
    try:
        value = getattr(call, "id", None)
        if value is None and isinstance(call, Mapping):
            value = call.get("id") or call.get("call_id")
        if value is None:
            value = getattr(call, "call_id", None)
        return value if isinstance(value, str) else ("" if value is None else str(value))
    except Exception:  # noqa: BLE001
        return ""


def _safe_name(call: Any) -> str:
    try:
        value = getattr(call, "name", None)
        if value is None and isinstance(call, Mapping):
            function = call.get("function")
            value = function.get("name") if isinstance(function, Mapping) else call.get("name")
        return value if isinstance(value, str) else ""
    except Exception:  # noqa: BLE001
        return ""


def _parses_as_object(arguments: Any) -> bool:
    if isinstance(arguments, Mapping):
        return True
    try:
        value, _ = parse_arguments(arguments)
    except ArgumentsError:
        return False
    return isinstance(value, dict)


def _incomplete_message(name: str, arguments: Any) -> str:
    text = arguments if isinstance(arguments, str) else ""
    shown = text if len(text) <= 80 else "..." + text[-77:]
    return (
        f"{name}: the stream ended before the arguments of this call were complete "
        f"({len(text)} characters arrived: {shown!r}), so nothing was run. "
        f"Call {name} again with the complete arguments."
    )


def _with_budget(
    limits: ToolLimits, max_result_chars: int | None, head_ratio: float | None
) -> ToolLimits:
    if not isinstance(limits, ToolLimits):
        raise TypeError(f"limits must be a ToolLimits, got {type(limits).__name__}")
    changes: dict[str, Any] = {}
    if max_result_chars is not None:
        changes["max_result_chars"] = max_result_chars
    if head_ratio is not None:
        changes["head_ratio"] = head_ratio
    return limits.replace(**changes) if changes else limits


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
    """A registry with `glob`, `grep`, `read_file` and `read_result` bound to one workspace.

        >>> reg = default_registry("/path/to/repo", deny=[".env", "*.pem"])
        >>> reg.names
        ['glob', 'grep', 'read_file', 'read_result']
        >>> small = default_registry("/path/to/repo", limits=ToolLimits(grep_limit=20))

    `limits` (default: SPEC section 5) drives everything: the definitions the model reads
    (schema defaults and maxima, the numbers in descriptions), the defaults filled into calls,
    the line caps, and the result budget. `max_result_chars` and `head_ratio` are shorthands
    that replace those fields of `limits`. `log`, `policy`, `before` and `after` go to the
    `Registry`. `root` may be a `Workspace`; otherwise `workspace_options` (``index``,
    ``deny``, ``time_budget`` ...) go to `Workspace(root, ...)`.
    """
    limits = _with_budget(limits, max_result_chars, head_ratio)
    workspace = root if isinstance(root, Workspace) else Workspace(root, **workspace_options)
    registry = Registry(
        workspace, limits=limits, log=log, policy=policy, before=before, after=after
    )
    for spec in builtin_tools(limits):
        registry.register(spec)
    return registry
