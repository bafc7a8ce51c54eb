"""Batches: one model turn's calls, exactly one result each, in call order.

Consecutive concurrency-safe calls run in parallel threads (the engine releases the GIL); a call
that is not safe runs alone, after everything before it. A tool decides its calls' safety from
their checked arguments; a call whose arguments do not parse or check is never safe.

The bound of a parallel batch is its worker *slots*, held only while a tool runs: a call that
waits for a person's approval holds none, so the others of its batch run meanwhile (the pool has
`WAITING_THREADS` threads beyond the slots for such calls).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from typing import Any

from .types import ToolCall, ToolResult, ToolSpec
from .validation import ArgumentsError, check_arguments, parse_arguments

__all__ = ["DEFAULT_MAX_WORKERS", "WAITING_THREADS", "Batches", "Slot", "is_concurrency_safe"]

#: Calls of a parallel batch whose tools run at once unless the registry is given another number.
DEFAULT_MAX_WORKERS = min(8, (os.cpu_count() or 2) * 2)
#: Threads of the pool beyond the slots: calls of a batch that may wait (for approval, or for a
#: slot) at once without keeping the others from a thread.
WAITING_THREADS = 32

#: A worker slot: held (``with slot:``) while a call's tool runs.
Slot = AbstractContextManager[Any]
#: ``execute(call, slot)``: one call through the pipeline, its tool run holding `slot` (None: a
#: call that runs alone).
BatchExecute = Callable[[Any, "Slot | None"], ToolResult]

#: A batch: (position in the turn, call) pairs that run together.
Batch = list[tuple[int, Any]]


def is_concurrency_safe(tools: Mapping[str, ToolSpec], call: Any) -> bool:
    """Whether `call` may run beside others: an unknown tool's call is (it only gets an error);
    otherwise its tool decides from the checked arguments, and a call whose arguments do not
    parse or check is not."""
    try:
        parsed = ToolCall.from_any(call)
    except Exception:  # noqa: BLE001 - answered with an error, which is safe
        return True
    spec = tools.get(parsed.name)
    if spec is None:
        return True
    try:
        arguments, _ = parse_arguments(parsed.arguments)
    except ArgumentsError:
        return spec.is_concurrency_safe(None)
    checked = check_arguments(spec.parameters, arguments)
    return spec.is_concurrency_safe(checked.values if checked.ok else None)


class Batches:
    """Splits a turn's calls into batches and runs them, on a thread pool started on first use.

    Args:
        max_workers: tools of a parallel batch that run at once (default `DEFAULT_MAX_WORKERS`).
    """

    def __init__(self, max_workers: int | None = None) -> None:
        self.max_workers = max_workers or DEFAULT_MAX_WORKERS
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(self.max_workers)

    @staticmethod
    def plan(calls: Sequence[Any], is_safe: Callable[[Any], bool]) -> list[Batch]:
        """Consecutive safe calls share a batch; an unsafe call is a batch of its own."""
        batches: list[Batch] = []
        current: Batch = []
        for i, call in enumerate(calls):
            if is_safe(call):
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
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    max_workers=self.max_workers + WAITING_THREADS,
                    thread_name_prefix="ripsight-tool",
                )
            return self._pool

    def run(
        self, execute: BatchExecute, calls: Sequence[Any], is_safe: Callable[[Any], bool]
    ) -> list[ToolResult]:
        """`execute` of every call, batch after batch; the results in call order."""
        results: list[ToolResult | None] = [None] * len(calls)
        for batch in self.plan(calls, is_safe):
            if len(batch) == 1:
                i, call = batch[0]
                results[i] = execute(call, None)
                continue
            futures = [
                (i, self._executor().submit(execute, call, self._slots)) for i, call in batch
            ]
            for i, future in futures:
                results[i] = future.result()
        return [r for r in results if r is not None]

    async def arun(
        self, execute: BatchExecute, calls: Sequence[Any], is_safe: Callable[[Any], bool]
    ) -> list[ToolResult]:
        """`run` for asyncio: the same batches, slots and order, the event loop left free (each
        call in a pool thread, with the caller's context)."""
        loop = asyncio.get_running_loop()
        results: list[ToolResult | None] = [None] * len(calls)

        def start(call: Any, slot: Slot | None) -> asyncio.Future[ToolResult]:
            context = contextvars.copy_context()
            work = functools.partial(context.run, execute, call, slot)
            return loop.run_in_executor(self._executor(), work)

        for batch in self.plan(calls, is_safe):
            slot = self._slots if len(batch) > 1 else None
            done = await asyncio.gather(*(start(call, slot) for _, call in batch))
            for (i, _), result in zip(batch, done):
                results[i] = result
        return [r for r in results if r is not None]

    def close(self) -> None:
        """Stops the pool's threads (they also stop at interpreter exit)."""
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None
