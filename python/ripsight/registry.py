"""The registry: one source for tool definitions, argument checking and never-throw execution.

    >>> reg = default_registry("/path/to/repo")
    >>> tools = reg.definitions("openai")            # or "openai-responses", "anthropic", "mcp"
    >>> res = reg.execute(ToolCall(id="call_1", name="grep", arguments='{"pattern": "TODO"}'))
    >>> res.call_id, res.is_error
    ('call_1', False)

`execute` answers every call with exactly one `ToolResult`, whatever the model sent: unknown tool,
broken JSON, invalid arguments, a path outside the root, or an exception inside the tool all become
error results whose text says what to do instead. Every result passes once through middle
truncation here, and only here.
"""

from __future__ import annotations

import asyncio
import copy
import os
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from . import _core
from .errors import RipsightError, model_text
from .limits import DEFAULT_LIMITS, ToolLimits
from .types import ToolCall, ToolOutput, ToolResult, ToolSpec
from .validation import ArgumentsError, check_arguments, closest_name, parse_arguments
from .workspace import Workspace

__all__ = ["FORMATS", "ReadState", "Registry", "ToolContext", "default_registry"]

#: The definition formats `Registry.definitions` exports.
FORMATS = ("openai", "openai-responses", "anthropic", "mcp")
_FORMAT_ALIASES = {
    "openai-chat": "openai",
    "chat": "openai",
    "responses": "openai-responses",
    "openai_responses": "openai-responses",
    "claude": "anthropic",
}

# Tool names that models trained on other agents use for ours.
TOOL_ALIASES: dict[str, tuple[str, ...]] = {
    "read_file": ("read", "view", "cat", "open", "open_file", "view_file", "readfile",
                  "read_files", "get_file", "file_read", "show_file", "str_replace_based_edit_tool",
                  "read_many_files", "fetch_file", "get_file_contents"),
    "grep": ("grep_search", "search_file_content", "search", "rg", "ripgrep", "search_files",
             "find_in_files", "search_code", "code_search", "codebase_search", "search_text",
             "text_search", "grep_tool", "file_search_content"),
    "glob": ("list_files", "find", "find_files", "ls", "list_dir", "list_directory", "glob_search",
             "file_search", "find_file", "list", "dir", "tree", "find_by_name", "search_files_by_name",
             "glob_files", "listdir"),
}
_WRITE_VERBS = ("edit", "write", "create", "delete", "remove", "replace", "apply", "patch", "run",
                "bash", "exec", "shell", "command", "move", "rename", "insert", "update", "save",
                "mkdir", "terminal", "execute")

_MAX_WORKERS = min(8, (os.cpu_count() or 2) * 2)


def _truncate_middle(text: str, max_chars: int, head_ratio: float) -> tuple[str, int, int]:
    return _core.truncate_middle(text, max_chars, head_ratio)


@dataclass(frozen=True, slots=True)
class ReadRecord:
    """One delivered read: the range the model saw and the file's identity at that moment."""

    call_id: str
    first: int
    last: int
    total_lines: int
    stamp: tuple[int, int, int]


class ReadState:
    """Which file ranges this session has already delivered, so an unchanged re-read is short.

    Files are identified by `os.stat` (inode, size, modification time); nothing is read here.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: dict[str, list[ReadRecord]] = {}

    @staticmethod
    def stamp(path: str) -> tuple[int, int, int] | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def lookup(self, path: str, offset: int, limit: int) -> ReadRecord | None:
        """The earlier delivery covering lines offset..offset+limit-1 of an unchanged file."""
        with self._lock:
            records = list(self._records.get(path, ()))
        if not records:
            return None
        stamp = self.stamp(path)
        if stamp is None:
            return None
        for record in reversed(records):
            if record.stamp != stamp:
                continue
            last_wanted = min(offset + limit - 1, record.total_lines)
            if record.first <= offset and last_wanted <= record.last and offset <= last_wanted:
                return record
        return None

    def record(self, path: str, record: ReadRecord) -> None:
        with self._lock:
            kept = [r for r in self._records.get(path, ()) if r.stamp == record.stamp]
            kept.append(record)
            self._records[path] = kept

    def clear(self) -> None:
        with self._lock:
            self._records.clear()


@dataclass(frozen=True, slots=True)
class ToolContext:
    """What a handler gets besides its arguments."""

    workspace: Workspace | None
    call_id: str
    read_state: ReadState


def _normalise_format(fmt: str) -> str:
    key = str(fmt).strip().lower()
    key = _FORMAT_ALIASES.get(key, key)
    if key not in FORMATS:
        raise ValueError(
            f"unknown definition format {fmt!r}; use one of: {', '.join(FORMATS)}"
        )
    return key


class Registry:
    """The tools of one session, bound to one `Workspace`.

    Args:
        workspace: the workspace the built-in tools work in (None for definitions only).
        limits: the `ToolLimits`; the registry applies their result budget
            (``max_result_chars``, default 8000, cut in the middle keeping ``head_ratio``,
            default 0.6, from the head). The tools' own limits live in their specs: register
            ``builtin_tools(limits)`` with the same object (`default_registry` does).
        max_result_chars, head_ratio: shorthands that replace those two fields of `limits`.
        max_workers: threads for a parallel batch (default min(8, 2 x cores)).
    """

    def __init__(
        self,
        workspace: Workspace | None = None,
        *,
        limits: ToolLimits = DEFAULT_LIMITS,
        max_result_chars: int | None = None,
        head_ratio: float | None = None,
        max_workers: int | None = None,
    ) -> None:
        self.workspace = workspace
        self.limits = _with_budget(limits, max_result_chars, head_ratio)
        self.read_state = ReadState()
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
        """Forgets which reads were delivered (start of a new conversation)."""
        self.read_state.clear()

    # -- definitions ---------------------------------------------------------------------------

    def definitions(self, fmt: str = "openai") -> list[dict[str, Any]]:
        """Tool definitions for one API, generated from the same specs.

        ``"openai"``: Chat Completions ``tools``; ``"openai-responses"``: Responses ``tools``;
        ``"anthropic"``: Messages ``tools``; ``"mcp"``: MCP ``Tool`` objects as JSON (camelCase).

            >>> default_registry(".").definitions("anthropic")[0]["name"]
            'glob'
        """
        key = _normalise_format(fmt)
        out: list[dict[str, Any]] = []
        for name in self.names:
            spec = self._tools[name]
            schema = copy.deepcopy(dict(spec.parameters))
            if key == "openai":
                out.append(
                    {
                        "type": "function",
                        "function": {
                            "name": spec.name,
                            "description": spec.description,
                            "parameters": schema,
                        },
                    }
                )
            elif key == "openai-responses":
                out.append(
                    {
                        "type": "function",
                        "name": spec.name,
                        "description": spec.description,
                        "parameters": schema,
                        "strict": False,
                    }
                )
            elif key == "anthropic":
                out.append(
                    {"name": spec.name, "description": spec.description, "input_schema": schema}
                )
            else:
                tool: dict[str, Any] = {"name": spec.name}
                if spec.title:
                    tool["title"] = spec.title
                tool["description"] = spec.description
                tool["inputSchema"] = schema
                tool["annotations"] = {
                    "title": spec.title or spec.name,
                    "readOnlyHint": spec.read_only,
                    "destructiveHint": not spec.read_only,
                    "idempotentHint": spec.read_only,
                    "openWorldHint": False,
                }
                out.append(tool)
        return out

    # -- execution -----------------------------------------------------------------------------

    def unknown_tool_message(self, name: str) -> str:
        """The sentence a model gets when it calls a tool that does not exist."""
        available = ", ".join(self.names) or "(none)"
        shown = name if name else ""
        if not shown.strip():
            return (
                f"The tool call has no tool name, so nothing was run. Available tools: "
                f"{available}. Call one of them by name."
            )
        suggestion = self._suggest_tool(name)
        if suggestion:
            return (
                f"There is no tool named {shown}. Did you mean {suggestion}? "
                f"Available tools: {available}."
            )
        lowered = name.lower()
        if any(verb in lowered for verb in _WRITE_VERBS):
            return (
                f"There is no tool named {shown}. These tools are read-only: they can find, "
                f"search and read files but cannot change files or run commands. "
                f"Available tools: {available}."
            )
        return f"There is no tool named {shown}. Available tools: {available}."

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

    def _finish(
        self,
        call_id: str,
        name: str,
        text: str,
        is_error: bool,
        meta: dict[str, Any],
        started: float,
    ) -> ToolResult:
        original = len(text)
        try:
            content, cut, _total = _truncate_middle(text, self.max_result_chars, self.head_ratio)
        except Exception as error:  # noqa: BLE001 - the entry point must not raise
            content, cut = text[: self.max_result_chars], max(0, original - self.max_result_chars)
            meta["truncate_error"] = repr(error)
        truncated = bool(cut) or content != text
        meta["truncated"] = truncated
        meta["original_chars"] = original
        meta["chars"] = len(content)
        meta["duration_ms"] = round((time.perf_counter() - started) * 1000.0, 3)
        return ToolResult(call_id=call_id, content=content, is_error=is_error, name=name, meta=meta)

    def execute(self, call: Any) -> ToolResult:
        """Runs one call and returns its result; never raises (except on Ctrl-C and exit).

            >>> reg.execute(ToolCall("c1", "Read", "{}")).content
            'There is no tool named Read. Did you mean read_file? Available tools: glob, grep, read_file.'
        """
        started = time.perf_counter()
        meta: dict[str, Any] = {}
        try:
            return self._execute(call, started, meta)
        except (KeyboardInterrupt, SystemExit, GeneratorExit, asyncio.CancelledError):
            raise
        except BaseException as error:  # noqa: BLE001 - pyo3's PanicException is a BaseException
            call_id = _safe_call_id(call)
            meta["error_type"] = "internal"
            meta["exception"] = f"{type(error).__name__}: {error}"
            return self._finish(
                call_id,
                _safe_name(call),
                "The tool failed with an internal error; this is a bug in the tool, not in your "
                "call. Try a narrower request or another tool.",
                True,
                meta,
                started,
            )

    def _execute(self, call: Any, started: float, meta: dict[str, Any]) -> ToolResult:
        try:
            call = ToolCall.from_any(call)
        except Exception:  # noqa: BLE001
            meta["error_type"] = "invalid_call"
            return self._finish(
                _safe_call_id(call),
                "",
                "The tool call could not be understood (it has no name or arguments), so nothing "
                "was run. Call a tool by name with a JSON object of arguments.",
                True,
                meta,
                started,
            )
        call_id = call.id if isinstance(call.id, str) else str(call.id)
        name = call.name if isinstance(call.name, str) else str(call.name)
        meta["tool"] = name
        spec = self._tools.get(name)
        if spec is None:
            meta["error_type"] = "unknown_tool"
            suggestion = self._suggest_tool(name) if name.strip() else None
            if suggestion:
                meta["suggestion"] = suggestion
            return self._finish(call_id, name, self.unknown_tool_message(name), True, meta, started)

        if call.incomplete and not _parses_as_object(call.arguments):
            meta["error_type"] = "incomplete_arguments"
            return self._finish(
                call_id, name, _incomplete_message(name, call.arguments), True, meta, started
            )
        try:
            arguments, notes = parse_arguments(call.arguments)
        except ArgumentsError as error:
            meta["error_type"] = error.kind
            return self._finish(call_id, name, f"{name}: {error}", True, meta, started)
        if notes:
            meta["argument_notes"] = notes

        checked = check_arguments(spec.parameters, arguments)
        if checked.ignored:
            meta["ignored_arguments"] = [i.name for i in checked.ignored]
        ignored_note = ""
        if checked.ignored:
            ignored_note = (
                "Note: "
                + "; ".join(i.sentence() for i in checked.ignored)
                + f". {name} accepts: {', '.join(spec.parameters.get('properties', {}))}."
            )
        if not checked.ok:
            meta["error_type"] = "invalid_arguments"
            count = len(checked.errors)
            lines = [
                (f"Invalid arguments for {name} ({count} problem{'s' if count != 1 else ''}); "
                "nothing was run:")
            ]
            lines += [f"- {e}" for e in checked.errors]
            if ignored_note:
                lines.append(ignored_note)
            lines.append(f"Fix the arguments and call {name} again.")
            return self._finish(call_id, name, "\n".join(lines), True, meta, started)

        context = ToolContext(self.workspace, call_id, self.read_state)
        try:
            output = spec.handler(context, checked.values)
        except (KeyboardInterrupt, SystemExit, GeneratorExit, asyncio.CancelledError):
            raise
        except RipsightError as error:
            meta["error_type"] = getattr(error, "kind", "error")
            text = model_text(error) or f"{name} failed ({type(error).__name__})."
            if ignored_note:
                text = f"{text}\n{ignored_note}"
            return self._finish(call_id, name, text, True, meta, started)
        except BaseException as error:  # noqa: BLE001 - includes pyo3's PanicException
            meta["error_type"] = "internal"
            meta["exception"] = f"{type(error).__name__}: {error}"
            return self._finish(
                call_id,
                name,
                f"{name} failed with an internal error ({type(error).__name__}); this is a bug in "
                "the tool, not in your call. Try a narrower request or another tool.",
                True,
                meta,
                started,
            )

        if isinstance(output, ToolOutput):
            text, is_error = output.text, output.is_error
            extra = dict(output.meta)
        elif isinstance(output, str):
            text, is_error, extra = output, False, {}
        else:
            meta["error_type"] = "internal"
            return self._finish(
                call_id,
                name,
                f"{name} returned no text (a bug in the tool). Try another tool.",
                True,
                meta,
                started,
            )
        pending_read = extra.pop("_read_record", None)
        meta.update(extra)
        if ignored_note:
            text = f"{ignored_note}\n{text}"
        result = self._finish(call_id, name, text, is_error, meta, started)
        if pending_read is not None and not result.meta.get("truncated") and not is_error:
            path, record = pending_read
            self.read_state.record(path, record)
        return result

    # -- batches -------------------------------------------------------------------------------

    def _is_concurrency_safe(self, call: Any) -> bool:
        name = getattr(call, "name", None)
        if name is None and isinstance(call, Mapping):
            name = call.get("name") or (call.get("function") or {}).get("name")
        spec = self._tools.get(name) if isinstance(name, str) else None
        # Unknown tools only produce an error result: safe to answer in parallel.
        return spec is None or spec.concurrency_safe

    def _batches(self, calls: Sequence[Any]) -> list[list[tuple[int, Any]]]:
        batches: list[list[tuple[int, Any]]] = []
        current: list[tuple[int, Any]] = []
        for i, call in enumerate(calls):
            if self._is_concurrency_safe(call):
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
    **workspace_options: Any,
) -> Registry:
    """A registry with `glob`, `grep` and `read_file` bound to one workspace.

        >>> reg = default_registry("/path/to/repo", deny=[".env", "*.pem"])
        >>> reg.names
        ['glob', 'grep', 'read_file']
        >>> small = default_registry("/path/to/repo", limits=ToolLimits(grep_limit=20))

    `limits` (default: SPEC section 5) drives everything: the definitions the model reads
    (schema defaults and maxima, the numbers in descriptions), the defaults filled into calls,
    the line caps, and the result budget. `max_result_chars` and `head_ratio` are shorthands
    that replace those fields of `limits`. `root` may be a `Workspace`; otherwise
    `workspace_options` go to `Workspace(root, ...)`.
    """
    from .tools import builtin_tools

    limits = _with_budget(limits, max_result_chars, head_ratio)
    workspace = root if isinstance(root, Workspace) else Workspace(root, **workspace_options)
    registry = Registry(workspace, limits=limits)
    for spec in builtin_tools(limits):
        registry.register(spec)
    return registry
