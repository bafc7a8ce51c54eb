"""The tool calls `ripsight mcp` is answering: each with its engine cancel token, so a call the
client cancels, or leaves by closing stdin, stops its search, and the exit waits for the worker
threads of the calls still running.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from . import _core

__all__ = ["Call", "InFlight", "new_token"]


def new_token() -> Any:
    """A fresh engine cancel token, or None while the engine offers none."""
    token_class = getattr(_core, "CancelToken", None)
    return token_class() if token_class is not None else None


class Call:
    """One tool call: its cancel token, when (and why) it was cancelled, and whether its worker
    thread started and finished (guarded by `InFlight`'s lock)."""

    __slots__ = ("cancelled_at", "finished", "name", "reason", "started", "token")

    def __init__(self, name: str) -> None:
        self.name = name
        self.token = new_token()
        self.cancelled_at: float | None = None
        self.reason = ""
        self.started = False
        self.finished = False

    def cancel(self, reason: str) -> None:
        if self.cancelled_at is None:
            self.cancelled_at = time.perf_counter()
            self.reason = reason
        if self.token is not None:
            self.token.cancel()


class InFlight:
    """The calls not yet finished, so closing stdin can cancel them all (from any thread) and
    the exit can wait for their threads.

    A call counts from its request until its worker thread finishes, or until its request is
    given up when no worker started: a call the client cancelled is answered at once, but its
    thread runs until the engine sees the token, and the exit waits for that (so the engine's
    threads are stopped, not killed). A call that arrives after stdin closed is cancelled at
    once.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._calls: set[Call] = set()
        self._closed_because: str | None = None

    def add(self, call: Call) -> None:
        with self._lock:
            self._calls.add(call)
            closed_because = self._closed_because
        if closed_because is not None:
            call.cancel(closed_because)

    def begin(self, call: Call) -> bool:
        """In the worker thread: False when the request was already given up (do nothing)."""
        with self._lock:
            call.started = not call.finished
            return call.started

    def end(self, call: Call) -> None:
        with self._lock:
            call.finished = True
            self._calls.discard(call)
            self._idle.notify_all()

    def give_up(self, call: Call) -> None:
        """The request is over; ends the call unless its worker started (the worker ends it)."""
        with self._lock:
            if call.started:
                return
        self.end(call)

    @property
    def closed(self) -> bool:
        """True once `cancel_all` ran (the client closed stdin)."""
        with self._lock:
            return self._closed_because is not None

    def cancel_all(self, reason: str) -> int:
        with self._lock:
            self._closed_because = reason
            calls = list(self._calls)
        for call in calls:
            call.cancel(reason)
        return len(calls)

    def wait_idle(self, timeout: float) -> bool:
        """Blocks until every call finished (True) or `timeout` seconds passed (False)."""
        with self._lock:
            return self._idle.wait_for(lambda: not self._calls, timeout)
