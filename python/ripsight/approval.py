"""Approvals: the third answer of a policy, *ask*, and how the registry gets the person's word.

    >>> def policy(tool, arguments):
    ...     return Ask("reads outside src/") if not arguments["path"].startswith("src") else None
    >>> def approve(request):                     # or an async def
    ...     return Decision.allow(Rule(tool=request.tool, path="docs"))   # for the session
    >>> reg = default_registry(".", policy=policy, approve=approve)

A policy (or a `before` hook) that returns `Ask(reason)` hands the call to the host's `approve`
callback with the exact call (`ApprovalRequest`: the tool, the checked arguments as the policy saw
them, the reason). The callback answers a `Decision`: allow, deny with a message, either of them
for the rest of the session for a `Rule` it states, or "later" (the question was put to the person
elsewhere, and the same call made again will find the answer). An approval is for exactly the
input approved: the session remembers it, and a call that differs in any argument asks again
unless a rule covers it. No callback, a callback that raises or answers something else, and no
answer within the deadline (``LIMITS["approval_deadline_seconds"]``) refuse the call.

An `Approval` says what happened, for the operation log: the reason, the decision, who decided
(`DECIDERS`) and the wait; never a byte of a file.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

import orjson

from ._core import PathRules
from .limits import APPROVAL_DEADLINE

__all__ = [
    "CALLER_LOOP",
    "DECIDERS",
    "Approval",
    "ApprovalMemory",
    "ApprovalRequest",
    "Approver",
    "Ask",
    "AskRules",
    "Decision",
    "Rule",
    "call_path",
    "frozen_arguments",
    "seek_approval",
]

#: Who decided a call that needed approval: the host's callback, a rule or an input approved
#: earlier in the session, or nobody (no callback, a callback that failed, the deadline).
#: A call cancelled while it waits is decided by nobody either.
Decider = Literal[
    "callback",
    "session_rule",
    "approved_before",
    "no_callback",
    "callback_error",
    "deadline",
    "cancelled",
]
DECIDERS: tuple[Decider, ...] = (
    "callback",
    "session_rule",
    "approved_before",
    "no_callback",
    "callback_error",
    "deadline",
    "cancelled",
)
#: Seconds between two looks at the call's cancel token while it waits for an answer.
_CANCEL_POLL = 0.05

#: The event loop of the `aexecute` that runs a call, so an async `approve` callback runs on the
#: host's loop (asyncio.to_thread hands the context to the worker thread).
CALLER_LOOP: contextvars.ContextVar[asyncio.AbstractEventLoop | None] = contextvars.ContextVar(
    "ripsight_caller_loop", default=None
)


@dataclass(frozen=True, slots=True)
class Ask:
    """A policy's (or `before` hook's) answer: the call needs a person's approval, for `reason`."""

    reason: str


def call_path(arguments: Mapping[str, Any]) -> str:
    """The path a call names (its ``path`` argument), relative to the root, ``/``-separated,
    without ``./`` and trailing slashes: "" for the root or a call that names none."""
    path = arguments.get("path")
    if not isinstance(path, str):
        return ""
    parts = [part for part in path.replace("\\", "/").split("/") if part not in ("", ".")]
    return "/".join(parts)


@dataclass(frozen=True, slots=True)
class Rule:
    """Calls a session decision covers: a tool (None: any) and, at most one of, a path prefix
    (``path="docs"`` covers ``docs`` and what lies below it; ``"."`` the whole tree) or a glob
    read as deny rules are (``glob="*.pdf"``, ``glob="private/**"``). Without either it covers
    every call of the tool."""

    tool: str | None = None
    path: str | None = None
    glob: str | None = None
    _rules: PathRules | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.path is not None and self.glob is not None:
            raise ValueError("a Rule takes a path prefix or a glob, not both")
        for name in ("tool", "path", "glob"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise TypeError(f"Rule.{name} must be a string or None, got {value!r}")
        if self.glob is not None:
            object.__setattr__(self, "_rules", PathRules([self.glob]))

    def covers(self, tool: str, arguments: Mapping[str, Any]) -> bool:
        """Whether a call of `tool` with these (checked) arguments falls under the rule."""
        if self.tool is not None and self.tool != tool:
            return False
        path = call_path(arguments)
        if self.path is not None:
            prefix = call_path({"path": self.path})
            return prefix == "" or path == prefix or path.startswith(prefix + "/")
        if self._rules is not None:
            return self._rules.covering(path) is not None
        return True

    def to_dict(self) -> dict[str, str]:
        """The rule as a record keeps it (the fields that are set)."""
        fields = {"tool": self.tool, "path": self.path, "glob": self.glob}
        return {key: value for key, value in fields.items() if value is not None}


Verdict = Literal["allow", "deny", "later"]


@dataclass(frozen=True, slots=True)
class Decision:
    """The host's answer to an `ApprovalRequest`.

    ``Decision.allow()`` runs the call (and the same call again); ``Decision.deny("why")``
    refuses it with that message to the model; given a `Rule`, either holds for every call
    the rule covers for the rest of the session. ``Decision.later("...")`` refuses the call
    now because the question was put to the person outside it: the same call, made again, asks
    again (and finds their answer). The callback may also return True (allow) or False (deny).
    """

    verdict: Verdict
    message: str = ""
    rule: Rule | None = None

    @classmethod
    def allow(cls, rule: Rule | None = None) -> Decision:
        return cls("allow", "", rule)

    @classmethod
    def deny(cls, message: str = "", rule: Rule | None = None) -> Decision:
        return cls("deny", message, rule)

    @classmethod
    def later(cls, message: str = "") -> Decision:
        return cls("later", message)


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """The exact call that needs approval: the tool, the checked arguments the tool will use (as
    the policy saw them; a read-only copy), the policy's reason and the call's id."""

    tool: str
    arguments: Mapping[str, Any]
    reason: str
    call_id: str


#: ``approve(request) -> Decision | bool``, or an async function returning one.
Approver = Callable[[ApprovalRequest], "Decision | bool | Awaitable[Decision | bool]"]


@dataclass(slots=True)
class Approval:
    """How a call that needed approval was decided: `allowed`, the `decider` (`DECIDERS`), the
    `wait` in milliseconds, the decision's message and session rule, and whether the question
    was left for `later`."""

    reason: str
    allowed: bool
    decider: Decider
    wait_ms: float
    message: str = ""
    rule: Rule | None = None
    later: bool = False
    error: str = ""

    def record(self) -> dict[str, Any]:
        """What the operation log keeps: reason, decision, who decided, the wait."""
        decision = "allowed" if self.allowed else ("asked_later" if self.later else "denied")
        out: dict[str, Any] = {
            "reason": self.reason,
            "decision": decision,
            "decided_by": self.decider,
            "wait_ms": self.wait_ms,
        }
        if self.message:
            out["message"] = self.message
        if self.rule is not None:
            out["rule"] = self.rule.to_dict()
        if self.error:
            out["error"] = self.error
        return out


class ApprovalMemory:
    """What a session remembers of its approvals: the rules decided for the session (the latest
    first) and the exact inputs allowed. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[tuple[Rule, bool]] = []
        self._allowed: set[bytes] = set()

    @staticmethod
    def _key(tool: str, arguments: Mapping[str, Any]) -> bytes:
        return orjson.dumps(
            {"tool": tool, "arguments": dict(arguments)},
            option=orjson.OPT_SORT_KEYS,
            default=repr,
        )

    def lookup(self, tool: str, arguments: Mapping[str, Any]) -> tuple[bool, Decider, Rule] | None:
        """The remembered answer for this call: (allowed, decider, rule), or None."""
        with self._lock:
            for rule, allowed in self._rules:
                if rule.covers(tool, arguments):
                    return allowed, "session_rule", rule
            if self._key(tool, arguments) in self._allowed:
                return True, "approved_before", Rule(tool=tool)
        return None

    def remember(self, tool: str, arguments: Mapping[str, Any], decision: Decision) -> None:
        """Keeps an allowed input, and a decision's session rule."""
        with self._lock:
            if decision.rule is not None:
                self._rules.insert(0, (decision.rule, decision.verdict == "allow"))
            elif decision.verdict == "allow":
                self._allowed.add(self._key(tool, arguments))

    @property
    def rules(self) -> list[tuple[Rule, bool]]:
        """The session's rules, the latest first, each with whether it allows."""
        with self._lock:
            return list(self._rules)

    def clear(self) -> None:
        with self._lock:
            self._rules.clear()
            self._allowed.clear()


async def _until_given_up(awaitable: Awaitable[Any], given_up: threading.Event) -> Any:
    """`awaitable`'s value; cancelled once the wait for it was given up (the deadline passed,
    the call was cancelled), so an async callback does not run on unseen."""
    task = asyncio.ensure_future(awaitable)
    while not task.done():
        if given_up.is_set():
            task.cancel()
            break
        await asyncio.wait({task}, timeout=_CANCEL_POLL)
    return await task


def _run_callback(
    approve: Approver,
    request: ApprovalRequest,
    loop: asyncio.AbstractEventLoop | None,
    answer: Future[Any],
    given_up: threading.Event,
) -> None:
    """In its own thread: the callback's answer into `answer`; an async one awaited on the
    caller's loop when there is one, else on a loop of this thread."""
    try:
        value: Any = approve(request)
        if inspect.isawaitable(value):
            waiting = _until_given_up(value, given_up)
            if loop is not None and loop.is_running():
                value = asyncio.run_coroutine_threadsafe(waiting, loop).result()
            else:
                value = asyncio.run(waiting)
        answer.set_result(value)
    except BaseException as error:  # noqa: BLE001 - a failing callback is a refusal
        answer.set_exception(error)


def seek_approval(
    approve: Approver | None,
    memory: ApprovalMemory,
    request: ApprovalRequest,
    deadline: float = APPROVAL_DEADLINE,
    cancel: Any = None,
) -> Approval:
    """Decides a call that needs approval: by the session's memory, else by the callback within
    `deadline` seconds (in a thread of its own, so a callback that never returns is left
    behind, not waited for). A `cancel` token (anything with ``cancelled``) cancelled meanwhile
    ends the wait."""
    started = time.perf_counter()

    def waited() -> float:
        return round((time.perf_counter() - started) * 1000.0, 3)

    remembered = memory.lookup(request.tool, request.arguments)
    if remembered is not None:
        allowed, decider, rule = remembered
        return Approval(request.reason, allowed, decider, waited(), rule=rule)
    if approve is None:
        return Approval(request.reason, False, "no_callback", waited())
    answer: Future[Any] = Future()
    given_up = threading.Event()
    # In the caller's context: a callback may read what the caller set (the MCP request).
    context = contextvars.copy_context()
    threading.Thread(
        target=context.run,
        args=(_run_callback, approve, request, CALLER_LOOP.get(), answer, given_up),
        name="ripsight-approval",
        daemon=True,
    ).start()
    ends = time.monotonic() + deadline
    value: Any = None
    try:
        while True:
            remaining = ends - time.monotonic()
            if remaining <= 0:
                raise FutureTimeout
            if cancel is not None and getattr(cancel, "cancelled", False):
                given_up.set()
                return Approval(request.reason, False, "cancelled", waited())
            try:
                value = answer.result(timeout=min(remaining, _CANCEL_POLL))
                break
            except FutureTimeout:
                continue
    except FutureTimeout:
        given_up.set()
        message = f"no answer came within {deadline:g} s"
        return Approval(request.reason, False, "deadline", waited(), message)
    except BaseException as error:  # noqa: BLE001 - includes a cancelled coroutine
        error_text = f"{type(error).__name__}: {error}"
        return Approval(request.reason, False, "callback_error", waited(), error=error_text)
    if isinstance(value, bool):
        value = Decision.allow() if value else Decision.deny()
    if not isinstance(value, Decision):
        error_text = f"the callback returned {type(value).__name__}, not a Decision"
        return Approval(request.reason, False, "callback_error", waited(), error=error_text)
    if value.verdict == "later":
        return Approval(request.reason, False, "callback", waited(), value.message, later=True)
    memory.remember(request.tool, request.arguments, value)
    allowed = value.verdict == "allow"
    return Approval(request.reason, allowed, "callback", waited(), value.message, value.rule)


def frozen_arguments(arguments: Mapping[str, Any]) -> Mapping[str, Any]:
    """A read-only view of a copy of the arguments, for the callback."""
    return MappingProxyType(orjson.loads(orjson.dumps(dict(arguments), default=repr)))


_GLOB_CHARS = frozenset("*?[{\\")


def _literal_dir(glob: str) -> str:
    """The components of a path rule before its first wildcard ("" when it starts with one)."""
    parts: list[str] = []
    for part in glob.strip("/").split("/"):
        if _GLOB_CHARS & set(part):
            break
        parts.append(part)
    return "/".join(parts)


class AskRules:
    """A policy that asks for approval of the calls that reach paths `globs` cover, read as
    deny rules are (`Rule`'s glob; ``ripsight mcp --ask GLOB``).

    A call asks when its ``path`` is covered (the path, or a directory above it), or when it
    names a directory above the fixed part of a rule with a slash (a grep of ``.`` or of
    ``private`` with the rule ``private/**``): a search from there reaches the covered files. A
    rule without a slash (``*.pdf``), or one that starts with a wildcard, asks for the calls
    that name a covered path. Calls without a ``path`` argument (read_result) never ask.
    """

    def __init__(self, globs: Sequence[str]) -> None:
        self.globs = [str(glob) for glob in globs]
        self._rules = PathRules(self.globs)
        self._dirs = [
            (glob, _literal_dir(glob))
            for glob in self.globs
            if "/" in glob.strip("/") and _literal_dir(glob)
        ]

    def __call__(self, tool: str, arguments: Mapping[str, Any]) -> Ask | None:
        if "path" not in arguments:
            return None
        path = call_path(arguments)
        rule = self._rules.covering(path)
        if rule is not None:
            return Ask(f"{path} is covered by the ask rule {rule!r}")
        for glob, fixed in self._dirs:
            if path == "" or fixed == path or fixed.startswith(path + "/"):
                where = path or "the whole tree"
                return Ask(f"a {tool} of {where} reaches the paths the ask rule {glob!r} covers")
        return None

    def __bool__(self) -> bool:
        return bool(self.globs)
