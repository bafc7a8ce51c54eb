"""The steps of the registry's pipeline (SPEC §3), each a function of the call and what the
steps before it found: it returns what the call goes on with, or raises the `Answer` that ends
the call (a refusal the model can act on, a failure, or the tool's own answer).

`Registry.execute` runs them in order and finishes every call the same way (the result budget,
the `after` hook, the operation record): a step knows nothing of the registry.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from . import codes
from .approval import Approval, Ask
from .budget import bound_replacement
from .codes import Status, error_code
from .errors import RipsightError, model_text
from .limits import ToolLimits
from .lookup import suggest_tool, unknown_tool_message
from .oplog import CallRecord
from .types import (
    ImagePart,
    ToolCall,
    ToolContext,
    ToolOutput,
    ToolResult,
    ToolSpec,
    call_name_field,
)
from .validation import ArgumentsError, check_arguments, describe_value, parse_arguments

__all__ = [
    "INTERRUPTS",
    "REF_TOOL",
    "AfterHook",
    "Answer",
    "AskApproval",
    "BeforeHook",
    "Policy",
    "admit",
    "after_hook",
    "checked_arguments",
    "classify",
    "invalid_call",
    "look_up",
    "read_call",
    "run_handler",
]

#: ``policy(tool_name, arguments) -> None`` to allow a call, a reason (str) to deny it, or
#: ``Ask(reason)`` to ask the host's `approve` callback.
Policy = Callable[[str, dict[str, Any]], "str | Ask | None"]
#: ``before(tool_name, arguments)``: runs after the policy allowed a call, before it runs; it
#: may return ``Ask(reason)`` too.
BeforeHook = Callable[[str, dict[str, Any]], "Ask | None"]
#: Asks for approval of the call being admitted, for a reason; says how it was decided.
AskApproval = Callable[[str], Approval]
#: ``after(tool_name, arguments, result)``: may return a replacement result, or None.
AfterHook = Callable[[str, dict[str, Any], ToolResult], "ToolResult | None"]

#: What stops a call instead of answering it: Ctrl-C, exit, a cancelled asyncio task.
INTERRUPTS = (KeyboardInterrupt, SystemExit, GeneratorExit, asyncio.CancelledError)
#: The tool that pages stored results: a registry that has it stores what it cuts, except that
#: tool's own pages.
REF_TOOL = "read_result"


class Answer(Exception):
    """How a call ends, before it is bounded: the text the model gets, the status and the code.
    A step that ends the call early raises it.

    `ran`: the tool ran, so the `after` hook sees the result; `is_error`: the result is an
    error (default: unless the status is ``done``); `on_delivered`: the tool's callback once
    the result is final; `stored`: a cut result may be stored by reference; `images`: the
    images shown beside the text.
    """

    def __init__(
        self,
        text: str,
        status: Status,
        code: str,
        *,
        ran: bool = False,
        is_error: bool | None = None,
        on_delivered: Callable[[ToolResult], None] | None = None,
        stored: bool = True,
        images: tuple[ImagePart, ...] = (),
    ) -> None:
        super().__init__(text)
        self.text, self.status, self.code, self.ran = text, status, code, ran
        self.is_error = status != "done" if is_error is None else is_error
        self.on_delivered, self.stored = on_delivered, stored
        self.images = images


def read_call(call: Any) -> ToolCall | None:
    """Step 1: the call as a `ToolCall`, or None when it cannot be one (see `invalid_call`)."""
    try:
        return ToolCall.from_any(call)
    except INTERRUPTS:
        raise
    except BaseException:  # noqa: BLE001 - answered as an invalid call
        return None


def invalid_call(call: Any, names: list[str]) -> Answer:
    """The answer to a call `read_call` could not read: what is wrong with it, said in JSON's
    terms (a model sees JSON, whatever the host passed on)."""
    available = ", ".join(names) or "(none)"
    raw = call_name_field(call)
    if raw is not None and not isinstance(raw, str):
        return Answer(
            f"The tool name must be a string, but this call's name is {describe_value(raw)}, "
            f"so nothing was run. Available tools: {available}. Call one of them by name.",
            "contract_error",
            codes.UNKNOWN_TOOL,
        )
    shape = (
        describe_value(call)
        if call is None or isinstance(call, (bool, int, float, str, list, tuple))
        else f"an object of type {type(call).__name__}"
    )
    return Answer(
        f"The tool call could not be understood: it is {shape}, not an object with a tool name "
        f"and arguments, so nothing was run. Call a tool by name with a JSON object of "
        f"arguments. Available tools: {available}.",
        "contract_error",
        codes.INVALID_CALL,
    )


def look_up(tools: Mapping[str, ToolSpec], name: str, meta: dict[str, Any]) -> ToolSpec:
    """Step 3: the tool the call names; the answer for one that does not exist names the
    closest (``meta["suggestion"]``)."""
    spec = tools.get(name)
    if spec is not None:
        return spec
    names = sorted(tools)
    suggestion = suggest_tool(name, names) if name.strip() else None
    if suggestion:
        meta["suggestion"] = suggestion
    raise Answer(unknown_tool_message(name, names), "contract_error", codes.UNKNOWN_TOOL)


def checked_arguments(
    spec: ToolSpec, call: ToolCall, meta: dict[str, Any], record: CallRecord
) -> tuple[dict[str, Any], str]:
    """Step 4: the call's arguments parsed and checked against the tool's schema (defaults
    filled in), and the note naming the keys that were read as others or dropped ("" when
    none were)."""
    name = call.name
    if call.incomplete and not _parses_as_object(call.arguments):
        raise Answer(
            _incomplete_message(name, call.arguments),
            "contract_error",
            codes.INCOMPLETE_ARGUMENTS,
        )
    try:
        arguments, notes = parse_arguments(call.arguments)
    except ArgumentsError as error:
        text = str(error).replace(_GENERIC_EXAMPLE, _example(spec.parameters))
        raise Answer(f"{name}: {text}", "contract_error", error.kind) from None
    if notes:
        meta["argument_notes"] = notes
    record.update(input=arguments)
    checked = check_arguments(spec.parameters, arguments)
    if spec.check is not None:
        checked.errors.extend(spec.check(checked.values))
    said: list[str] = []
    if checked.mapped:
        meta["mapped_arguments"] = {m.name: m.target for m in checked.mapped}
        said.append("Note: " + "; ".join(m.sentence() for m in checked.mapped) + ".")
    if checked.ignored:
        meta["ignored_arguments"] = [i.name for i in checked.ignored]
        said.append(
            "Note: "
            + "; ".join(i.sentence() for i in checked.ignored)
            + f". {name} accepts: {', '.join(spec.parameters.get('properties', {}))}."
        )
    note = "\n".join(said)
    if note:
        meta["argument_note"] = note
    if not checked.ok:
        count = len(checked.errors)
        problems = f"{count} problem{'s' if count != 1 else ''}"
        lines = [
            f"Invalid arguments for {name} ({problems}); nothing was run:",
            *(f"- {e}" for e in checked.errors),
        ]
        if note:
            lines.append(note)
        lines.append(f"Fix the arguments and call {name} again.")
        raise Answer("\n".join(lines), "contract_error", codes.INVALID_ARGUMENTS)
    if spec.prepare is not None:
        # Before the policy (step 5): it must judge the arguments the tool will use.
        spec.prepare(checked.values)
    return checked.values, note


def run_handler(
    spec: ToolSpec, context: ToolContext, values: dict[str, Any], meta: dict[str, Any], note: str
) -> Any:
    """Step 6: the handler; an error it raises becomes the answer."""
    try:
        return spec.handler(context, values)
    except INTERRUPTS:
        raise
    except RipsightError as error:
        code = error_code(error)
        text = model_text(error, spec.name) or f"{spec.name} failed ({type(error).__name__})."
        if note:
            text = f"{text}\n{note}"
        status: Status = "cancelled" if code == codes.CANCELLED else "runtime_error"
        raise Answer(text, status, code, ran=True) from None
    except BaseException as error:  # noqa: BLE001 - pyo3's PanicException is a BaseException
        meta["exception"] = f"{type(error).__name__}: {error}"
        raise Answer(
            f"{spec.name} failed with an internal error ({type(error).__name__}); this is a bug "
            "in the tool, not in your call. Try a narrower request or another tool.",
            "runtime_error",
            codes.INTERNAL,
            ran=True,
        ) from None


def admit(
    policy: Policy | None,
    before: BeforeHook | None,
    name: str,
    values: dict[str, Any],
    meta: dict[str, Any],
    ask: AskApproval | None = None,
) -> None:
    """Step 5: the application's policy, then its `before` hook; either may answer
    ``Ask(reason)``, and then the call runs only if `ask` gets it approved (what was decided is
    ``meta["approval"]``)."""
    if policy is not None:
        try:
            reason = policy(name, values)
        except INTERRUPTS:
            raise
        except BaseException as error:  # noqa: BLE001 - pyo3's PanicException too
            meta["exception"] = f"{type(error).__name__}: {error}"
            raise Answer(
                f"{name} was not run: the application's policy check failed "
                f"({type(error).__name__}), so the call is refused.",
                "denied",
                codes.POLICY_ERROR,
            ) from None
        if isinstance(reason, Ask):
            _approved(ask, name, reason.reason, meta)
        elif reason is not None:
            meta["policy_reason"] = str(reason)
            raise Answer(
                f"{name} was not run: the application's policy denies this call: {reason}",
                "denied",
                codes.DENIED,
            )
    if before is not None:
        try:
            asked = before(name, values)
        except INTERRUPTS:
            raise
        except BaseException as error:  # noqa: BLE001 - a hook failure becomes a result
            meta["exception"] = f"{type(error).__name__}: {error}"
            raise Answer(
                f"{name} was not run: a check before it failed ({type(error).__name__}). "
                "This is a problem of the application, not of your call.",
                "runtime_error",
                codes.HOOK_FAILED,
            ) from None
        if isinstance(asked, Ask):
            _approved(ask, name, asked.reason, meta)


def _approved(ask: AskApproval | None, name: str, reason: str, meta: dict[str, Any]) -> None:
    """Returns when the call was approved; otherwise raises the refusal, which says that
    approval was needed and not given, and why."""
    approval = ask(reason) if ask is not None else None
    if approval is not None:
        meta["approval"] = approval.record()
        if approval.allowed:
            return
    needs = f"{name} was not run: it needs a person's approval ({reason})"
    if approval is not None and approval.decider == "cancelled":
        raise Answer(
            f"{needs}, and it was cancelled while it waited.", "cancelled", codes.CANCELLED
        )
    if approval is None or approval.decider == "no_callback":
        text = f"{needs}, and this application has no way to ask for it, so it is refused."
    elif approval.later:
        text = (
            f"{needs}; the question was put to them. Call {name} again with the same "
            "arguments once they have answered."
        )
    elif approval.decider == "deadline":
        text = f"{needs}, and {approval.message}, so it is refused."
    elif approval.decider == "callback_error":
        text = f"{needs}, and asking for it failed, so it is refused."
    elif approval.decider == "session_rule":
        text = f"{needs}, and such calls were declined for this session."
    elif approval.message:
        text = f"{needs}, and it was not given: {approval.message.rstrip('.')}."
    else:
        text = f"{needs}, and it was declined."
    if approval is None or not approval.later:
        text += " Do not repeat the call unchanged: go on without it, or ask the user."
    elif approval.message:
        text += f" {approval.message.rstrip('.')}."
    code = codes.APPROVAL_PENDING if approval is not None and approval.later else codes.NOT_APPROVED
    raise Answer(text, "denied", code)


def classify(spec: ToolSpec, output: Any, meta: dict[str, Any], note: str) -> Answer:
    """Step 7: what the handler returned, as an answer (its text after the note on dropped
    arguments)."""
    images: tuple[ImagePart, ...] = ()
    if isinstance(output, ToolOutput):
        meta.update(output.meta)
        code = output.code or (codes.TOOL_ERROR if output.is_error else codes.OK)
        text, is_error, delivered = output.text, output.is_error, output.on_delivered
        images = tuple(output.images)
    elif isinstance(output, str):
        text, is_error, code, delivered = output, False, codes.OK, None
    else:
        return Answer(
            f"{spec.name} returned no text (a bug in the tool). Try another tool.",
            "runtime_error",
            codes.INTERNAL,
            ran=True,
        )
    return Answer(
        f"{note}\n{text}" if note else text,
        "done",
        code,
        ran=True,
        is_error=is_error,
        on_delivered=delivered,
        stored=spec.name != REF_TOOL,
        images=images,
    )


def after_hook(
    after: AfterHook, record: CallRecord, result: ToolResult, status: Status, limits: ToolLimits
) -> tuple[ToolResult, Status]:
    """The application's `after` hook: its replacement (bounded too), or the result withheld
    when it raises."""
    assert record.arguments is not None
    try:
        replaced = after(record.tool, record.arguments, result)
    except INTERRUPTS:
        raise
    except BaseException as error:  # noqa: BLE001 - a hook failure becomes a result
        return _after_hook_failed(record, error, result.meta["duration_ms"]), "runtime_error"
    if isinstance(replaced, ToolResult) and replaced is not result:
        return bound_replacement(replaced, str(result.meta["code"]), limits), status
    return result, status


def _after_hook_failed(record: CallRecord, error: BaseException, duration_ms: float) -> ToolResult:
    """The answer when the `after` hook raised: the tool's result is withheld."""
    message = (
        f"{record.tool} ran, but a check after it failed ({type(error).__name__}), so its "
        "result is withheld. This is a problem of the application, not of your call."
    )
    meta = {
        "tool": record.tool,
        "error_type": codes.HOOK_FAILED,
        "exception": f"{type(error).__name__}: {error}",
        "code": codes.HOOK_FAILED,
        "truncated": False,
        "original_chars": len(message),
        "chars": len(message),
        "duration_ms": duration_ms,
    }
    return ToolResult(record.call_id, message, True, record.tool, meta)


#: The example argument object `parse_arguments` gives, which names no tool's arguments.
_GENERIC_EXAMPLE = '{"pattern": "TODO"}'


def _example(schema: Mapping[str, Any]) -> str:
    """An argument object of the tool `schema` describes, for its messages: its required
    properties, each with a placeholder of its type."""
    properties = schema.get("properties", {})
    required = [n for n in schema.get("required", ()) if n in properties] or list(properties)[:1]
    if required == ["pattern"]:
        return _GENERIC_EXAMPLE
    placeholders = {"integer": 1, "number": 1, "boolean": True}
    example = {n: placeholders.get(str(properties[n].get("type")), "...") for n in required}
    return orjson.dumps(example).decode().replace('":', '": ').replace(',"', ', "')


def _parses_as_object(arguments: Any) -> bool:
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
