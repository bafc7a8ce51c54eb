"""How `ripsight mcp` puts an approval question to the person: the registry's
`approve` callback in the server (`Asker`), by the mechanism of the protocol version the client
negotiated.

- 2026-07-28: the call answers with an input request (an elicitation form in an
  ``InputRequiredResult``); the client asks the person and calls again with the answer under the
  ``requestState`` the server issued, and the policy's ask finds it (`Asker.open`).
- Older versions: the server sends ``elicitation/create`` for the call and waits for the answer.
- A client that declares no elicitation: the call is refused, saying how to allow such calls.

The form offers *allow once*, *allow for this session* (the tool on the call's path and below)
and *deny*; declining or dismissing it is a deny.
"""

from __future__ import annotations

import contextvars
import copy
import hashlib
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import anyio.from_thread
from mcp import types

from .approval import ApprovalRequest, Decision, Rule, call_path

__all__ = ["ASKING", "INPUT_REQUEST_VERSION", "Asker", "Asking"]

#: The first protocol version whose tools/call asks through an input request.
INPUT_REQUEST_VERSION = "2026-07-28"
#: The person's choices, as the question's form offers them.
ALLOW_ONCE, ALLOW_SESSION, DENY = "allow once", "allow for this session", "deny"
_QUESTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "decision": {
            "type": "string",
            "title": "Decision",
            "enum": [ALLOW_ONCE, ALLOW_SESSION, DENY],
            "default": ALLOW_ONCE,
        }
    },
    "required": ["decision"],
}


def _question(request: ApprovalRequest) -> str:
    """The question the person reads: the exact call and why it needs them."""
    shown = json.dumps(dict(request.arguments), ensure_ascii=False, sort_keys=True)
    where = call_path(request.arguments) or "the whole tree"
    return (
        f"The model asks to run {request.tool} {shown}, which needs your approval: "
        f"{request.reason}. Allow it once, allow {request.tool} on {where} (and below) for "
        "this session, or deny it?"
    )


def _session_rule(request: ApprovalRequest) -> Rule:
    return Rule(tool=request.tool, path=call_path(request.arguments) or ".")


def _decision(result: Any, request: ApprovalRequest) -> Decision:
    """The person's answer (an ``ElicitResult``, or its wire form) as a `Decision`."""
    data = result.model_dump(mode="json") if hasattr(result, "model_dump") else dict(result)
    action = data.get("action")
    choice = (data.get("content") or {}).get("decision")
    if action == "accept" and choice == ALLOW_ONCE:
        return Decision.allow()
    if action == "accept" and choice == ALLOW_SESSION:
        return Decision.allow(_session_rule(request))
    if action == "cancel":
        return Decision.deny("The person dismissed the question")
    return Decision.deny("The person declined")


def _can_elicit(session: Any) -> bool:
    """Whether the client declared form elicitation (a bare ``elicitation: {}`` counts)."""
    capabilities = getattr(session, "client_capabilities", None)
    if capabilities is None:  # SDK 1.x
        params = getattr(session, "client_params", None)
        capabilities = getattr(params, "capabilities", None)
    elicitation = getattr(capabilities, "elicitation", None)
    if elicitation is None:
        return False
    return (
        getattr(elicitation, "form", None) is not None or getattr(elicitation, "url", None) is None
    )


def _cannot_ask() -> Decision:
    return Decision.deny(
        "This MCP client cannot put the question to the person (it declares no elicitation). "
        "To allow such calls, start ripsight mcp without the --ask rule that covers them (or "
        "drop it from the --config file), or use a client that supports elicitation"
    )


def _question_key(request: ApprovalRequest) -> str:
    text = json.dumps([request.tool, dict(request.arguments), request.reason], sort_keys=True)
    return "approve-" + hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class Asking:
    """One tools/call's way to the person: the session and request, whether the negotiated
    version asks through an input request, the answers the client sent back with it, and the
    questions this call leaves open."""

    session: Any
    request_id: Any
    input_request: bool
    answers: dict[str, Any] = field(default_factory=dict)
    pending: dict[str, Any] = field(default_factory=dict)
    loop: Any = None
    #: While the question waits for the person (``elicitation/create`` sent, no answer yet):
    #: when it was sent (`time.monotonic`), for the call's progress notifications.
    waiting_since: float | None = None


ASKING: contextvars.ContextVar[Asking | None] = contextvars.ContextVar(
    "ripsight_mcp_asking", default=None
)


class Asker:
    """The registry's `approve` callback in the server: the question goes to the person through
    the call's negotiated mechanism (`Asking`). The questions an input request left open are
    kept by their `request_state` until the deadline, so an answer counts only for a question
    this server asked."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self._lock = threading.Lock()
        self._asked: dict[str, tuple[float, frozenset[str]]] = {}

    def open(self, state: str | None, responses: dict[str, Any] | None) -> dict[str, Any]:
        """The answers of a retried call that count: those to questions asked under `state`."""
        now = time.monotonic()
        with self._lock:
            self._asked = {k: v for k, v in self._asked.items() if now - v[0] < self.deadline}
            asked = self._asked.pop(state, None) if state else None
        if asked is None or not responses:
            return {}
        return {key: value for key, value in responses.items() if key in asked[1]}

    def leave_open(self, keys: list[str]) -> str:
        """Keeps the keys of the questions an input request carries; returns its state."""
        state = secrets.token_urlsafe(16)
        with self._lock:
            self._asked[state] = (time.monotonic(), frozenset(keys))
        return state

    def __call__(self, request: ApprovalRequest) -> Decision:
        asking = ASKING.get()
        if asking is None:
            return Decision.deny("The server could not reach the client to ask")
        if asking.input_request:
            key = _question_key(request)
            answer = asking.answers.get(key)
            if answer is not None:
                return _decision(answer, request)
            if not _can_elicit(asking.session):
                return _cannot_ask()
            asking.pending[key] = types.ElicitRequest.model_validate(
                {
                    "method": "elicitation/create",
                    "params": {
                        "mode": "form",
                        "message": _question(request),
                        "requestedSchema": _QUESTION_SCHEMA,
                    },
                }
            )
            return Decision.later()
        if not _can_elicit(asking.session):
            return _cannot_ask()
        # elicit_form where the SDK has it (elicit is its older name, in every SDK since 1.9).
        elicit = getattr(asking.session, "elicit_form", None) or asking.session.elicit
        asking.waiting_since = time.monotonic()
        try:
            result = anyio.from_thread.run(
                elicit,
                _question(request),
                copy.deepcopy(_QUESTION_SCHEMA),
                asking.request_id,
                token=asking.loop,
            )
        finally:
            asking.waiting_since = None
        return _decision(result, request)
