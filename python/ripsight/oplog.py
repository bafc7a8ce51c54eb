"""The operation log: one compact record per tool call, kept apart from what the model sees.

    >>> log = OperationLog()                          # bounded in-memory ring (the default)
    >>> log = OperationLog(jsonl="calls.jsonl")       # also appended as JSON Lines
    >>> log = OperationLog(sqlite="calls.db")         # also stored in SQLite (table operations)
    >>> reg = default_registry(".", log=log)
    >>> reg.log.records()[-1]["status"]
    'done'

Every call becomes an operation before anything about it is checked (so a malformed call is
evidence too), and is finished exactly once with a status (`STATUSES`), a classified outcome
(`OUTCOMES`) and a stable machine code. A record holds compact forms only: the arguments with
long values clipped and secret-looking values redacted, and the output as sizes and counts —
never the text of a result, so never a byte of a file. A sink that fails (a full disk, a locked
database) is counted in `sink_errors` and never changes a result.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import logging
import os
import re
import sqlite3
import threading
import time
import uuid
from collections.abc import Mapping
from typing import Any

import orjson

from .codes import OUTCOMES, STATUSES, Outcome, Status, outcome_of

__all__ = [
    "OUTCOMES",
    "STATUSES",
    "CallRecord",
    "Operation",
    "OperationLog",
    "Outcome",
    "Status",
    "compact_arguments",
    "outcome_of",
    "result_summary",
]

logger = logging.getLogger("ripsight.oplog")

#: Longest string value kept in a record's arguments (longer ones are clipped, saying how long).
MAX_VALUE_CHARS = 200

_SECRET_KEY = re.compile(
    r"(pass(word|wd|phrase)?|secret|token|api[_-]?key|auth(orization)?|cookie|credential|"
    r"private[_-]?key|session[_-]?id|bearer)",
    re.IGNORECASE,
)
_SECRET_VALUE = re.compile(
    r"(-----BEGIN [A-Z ]*PRIVATE KEY-----|\b(sk|rk|pk)-[A-Za-z0-9_-]{16,}|\bgh[pousr]_[A-Za-z0-9]{20,}"
    r"|\bxox[abpr]-[A-Za-z0-9-]{10,}|\bAKIA[0-9A-Z]{16}\b|\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"
    r"|\bBearer\s+[A-Za-z0-9._~+/-]{16,})"
)
_REDACTED = "[redacted]"


def _compact_value(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        if _SECRET_VALUE.search(value):
            return _REDACTED
        if len(value) > MAX_VALUE_CHARS:
            return value[:MAX_VALUE_CHARS] + f"... [{len(value):,} characters]"
        return value
    if isinstance(value, bool) or value is None or isinstance(value, (int, float)):
        return value
    if depth >= 3:
        return f"[{type(value).__name__}]"
    if isinstance(value, Mapping):
        return compact_arguments(value, depth + 1)
    if isinstance(value, (list, tuple)):
        kept = [_compact_value(v, depth + 1) for v in list(value)[:20]]
        if len(value) > 20:
            kept.append(f"... [{len(value):,} items]")
        return kept
    return f"[{type(value).__name__}]"


def compact_arguments(arguments: Any, depth: int = 0) -> Any:
    """Arguments as a record keeps them: long strings clipped, secret-looking keys and values
    replaced by ``[redacted]``; raw argument text (that did not parse) by its length only."""
    if isinstance(arguments, (str, bytes, bytearray)):
        return {"_unparsed_chars": len(arguments)}
    if not isinstance(arguments, Mapping):
        return {"_type": type(arguments).__name__}
    out: dict[str, Any] = {}
    for index, (key, value) in enumerate(arguments.items()):
        if index >= 50:
            out["..."] = f"[{len(arguments):,} keys]"
            break
        name = str(key)[:MAX_VALUE_CHARS]
        out[name] = _REDACTED if _SECRET_KEY.search(name) else _compact_value(value, depth)
    return out


class _JsonlSink:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._lock = threading.Lock()

    def write(self, record: Mapping[str, Any]) -> None:
        line = orjson.dumps(record, default=str) + b"\n"
        with self._lock, open(self.path, "ab") as handle:
            handle.write(line)

    def close(self) -> None:
        return None


_COLUMNS = (
    "op_id",
    "call_id",
    "tool",
    "status",
    "outcome",
    "code",
    "started_at",
    "duration_ms",
    "model_chars",
    "input",
    "output",
    "approval",
)


class _SqliteSink:
    """Connects on first write, so a database that cannot be opened is a failing sink (counted)
    rather than an error at construction."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            try:
                # WAL: readers see committed operations while the server keeps writing.
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute(
                    "CREATE TABLE IF NOT EXISTS operations (op_id TEXT PRIMARY KEY, "
                    "call_id TEXT, tool TEXT, status TEXT, outcome TEXT, code TEXT, "
                    "started_at REAL, duration_ms REAL, model_chars INTEGER, input TEXT, "
                    "output TEXT, approval TEXT)"
                )
                # A database written before approvals existed gets the column.
                columns = {row[1] for row in db.execute("PRAGMA table_info(operations)")}
                if "approval" not in columns:
                    db.execute("ALTER TABLE operations ADD COLUMN approval TEXT")
            except BaseException:
                db.close()
                raise
            self._db = db
        return self._db

    def write(self, record: Mapping[str, Any]) -> None:
        row = []
        for column in _COLUMNS:
            value = record.get(column)
            if column in ("input", "output") or (column == "approval" and value is not None):
                value = orjson.dumps(value, default=str).decode()
            row.append(value)
        with self._lock:
            self._connect().execute(
                f"INSERT OR REPLACE INTO operations ({', '.join(_COLUMNS)}) "
                f"VALUES ({', '.join('?' for _ in _COLUMNS)})",
                row,
            )

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


class Operation(dict[str, Any]):
    """One operation record: a dict (JSON-ready) whose keys also read as attributes
    (``record["status"]`` or ``record.status``)."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class OperationLog:
    """The registry's record of calls: a bounded ring in memory, plus optional durable sinks.

    Args:
        capacity: finished operations the in-memory ring keeps (the oldest drop out); running
            ones are kept until they finish.
        jsonl: a file each finished operation is appended to, one JSON object per line.
        sqlite: an SQLite database; finished operations go to its ``operations`` table
            (columns: op_id, call_id, tool, status, outcome, code, started_at, duration_ms,
            model_chars, input, output and approval as JSON text).

    A record is a dict with ``op_id``, ``call_id``, ``tool``, ``status``, ``outcome``, ``code``,
    ``started_at`` (Unix time), ``duration_ms``, ``model_chars`` (the size of the text the model
    got), ``input`` (compact arguments), ``output`` (sizes and counts) and ``approval`` (None, or
    for a call that needed a person's approval: the reason, the decision, who decided and the
    wait; `ripsight.approval.Approval.record`). Sinks receive each operation once, when it
    finishes.
    """

    def __init__(
        self,
        *,
        capacity: int = 10_000,
        jsonl: str | os.PathLike[str] | None = None,
        sqlite: str | os.PathLike[str] | None = None,
    ) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self._lock = threading.Lock()
        self._ring: collections.OrderedDict[str, dict[str, Any]] = collections.OrderedDict()
        self._running: dict[str, dict[str, Any]] = {}
        # Operation ids: unique across processes (random prefix) and ordered within one log.
        self._prefix = uuid.uuid4().hex[:16] + "-"
        self._counter = itertools.count(1)
        self._sinks: list[Any] = []
        self.sink_errors = 0
        self.last_sink_error: str | None = None
        if jsonl is not None:
            self._sinks.append(_JsonlSink(jsonl))
        if sqlite is not None:
            self._sinks.append(_SqliteSink(sqlite))

    # -- the registry's side -----------------------------------------------------------------

    def start(self, call_id: str, tool: str, arguments: Any) -> str:
        """Inserts a running operation (before any check of the call); returns its id."""
        op_id = f"{self._prefix}{next(self._counter):08x}"
        record: dict[str, Any] = {
            "op_id": op_id,
            "call_id": call_id,
            "tool": tool,
            "status": "running",
            "outcome": None,
            "code": None,
            "started_at": time.time(),
            "duration_ms": None,
            "model_chars": None,
            "input": compact_arguments(arguments),
            "output": None,
            "approval": None,
        }
        with self._lock:
            self._running[op_id] = record
        return op_id

    def update(self, op_id: str, **fields: Any) -> None:
        """Changes fields of a running operation (the tool name once it is known, the arguments
        once parsed)."""
        with self._lock:
            record = self._running.get(op_id)
            if record is not None:
                if "input" in fields:
                    fields["input"] = compact_arguments(fields["input"])
                record.update(fields)

    def finish(
        self,
        op_id: str,
        *,
        status: Status,
        code: str,
        duration_ms: float,
        model_chars: int,
        output: Mapping[str, Any] | None = None,
        **fields: Any,
    ) -> dict[str, Any] | None:
        """Finishes an operation once (a second finish is ignored) and hands it to the sinks;
        `fields` (such as the call id and tool once known) are set too."""
        with self._lock:
            record = self._running.pop(op_id, None)
            if record is None:
                return None
            record.update(fields)
            record.update(
                status=status,
                outcome=outcome_of(status, code),
                code=code,
                duration_ms=duration_ms,
                model_chars=model_chars,
                output=dict(output or {}),
            )
            finished = dict(record)
            self._ring[op_id] = record
            while len(self._ring) > self.capacity:
                self._ring.popitem(last=False)
        for sink in self._sinks:
            try:
                sink.write(finished)
            except Exception as error:  # noqa: BLE001 - a sink never changes a result
                with self._lock:
                    self.sink_errors += 1
                    self.last_sink_error = f"{type(error).__name__}: {error}"
        return finished

    # -- the application's side --------------------------------------------------------------

    def records(self) -> list[Operation]:
        """The finished operations in the ring, oldest first, then the running ones (copies)."""
        with self._lock:
            return [Operation(r) for r in (*self._ring.values(), *self._running.values())]

    def clear(self) -> None:
        """Empties the ring (the sinks keep what they have)."""
        with self._lock:
            self._ring.clear()

    def close(self) -> None:
        """Closes the sinks (an SQLite connection); the ring stays readable."""
        for sink in self._sinks:
            with contextlib.suppress(Exception):
                sink.close()

    def __len__(self) -> int:
        with self._lock:
            return len(self._ring) + len(self._running)

    def __repr__(self) -> str:
        return f"OperationLog({len(self)} operations, capacity={self.capacity})"


# -- the registry's side: one call's operation ---------------------------------------------------

#: The counts and sizes of an engine result (GlobResult, GrepResult, ReadResult) a record keeps.
_SUMMARY_FIELDS = (
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
)


def result_summary(content: str, meta: Mapping[str, Any], engine_result: Any) -> dict[str, Any]:
    """What a record keeps of a result: its sizes, whether and where it was stored and the
    arguments dropped (from its `meta`), and the counts of the engine's typed result — never
    its text."""
    output: dict[str, Any] = {
        "chars": len(content),
        "original_chars": meta.get("original_chars", len(content)),
        "truncated": bool(meta.get("truncated")),
    }
    if meta.get("ref"):
        output["ref"] = meta["ref"]
    if meta.get("ignored_arguments"):
        output["ignored_arguments"] = list(meta["ignored_arguments"])
    if meta.get("images"):
        output.update(images=meta["images"], image_bytes=meta.get("image_bytes", 0))
    if engine_result is not None:
        for name in _SUMMARY_FIELDS:
            value = getattr(engine_result, name, None)
            if isinstance(value, (bool, int, float, str)):
                output[name] = value
        for name in ("paths", "lines", "files", "pages"):
            value = getattr(engine_result, name, None)
            if isinstance(value, (list, tuple)):
                output[f"{name}_shown"] = len(value)
    return output


class CallRecord:
    """One call's operation, as the registry keeps it: started in `log` at once (before anything
    about the call is checked), updated as the pipeline learns the call, finished exactly once.
    A log that fails never changes the call: its errors are logged at debug level and dropped.

    `call_id` and `tool` are what the answer will carry; `arguments` the checked arguments,
    once they are.
    """

    __slots__ = ("arguments", "call_id", "log", "op_id", "started", "tool")

    def __init__(self, log: OperationLog, call_id: str, tool: str, raw_arguments: Any) -> None:
        self.log = log
        self.call_id = call_id
        self.tool = tool
        self.started = time.perf_counter()
        self.arguments: dict[str, Any] | None = None
        self.op_id: str | None = None
        try:
            self.op_id = log.start(call_id, tool, raw_arguments)
        except Exception:
            logger.debug("operation log start failed", exc_info=True)

    def elapsed_ms(self) -> float:
        return round((time.perf_counter() - self.started) * 1000.0, 3)

    def update(self, **fields: Any) -> None:
        """Sets fields of the running operation (the checked arguments as ``input``...)."""
        if self.op_id is None:
            return
        try:
            self.log.update(self.op_id, call_id=self.call_id, tool=self.tool, **fields)
        except Exception:
            logger.debug("operation log update failed", exc_info=True)

    def finish(
        self,
        status: Status,
        code: str,
        model_chars: int,
        output: Mapping[str, Any] | None,
        approval: Mapping[str, Any] | None = None,
    ) -> None:
        """Finishes the operation (a second finish is ignored by the log); `approval` is what
        the record keeps of an approval the call needed."""
        if self.op_id is None:
            return
        try:
            self.log.finish(
                self.op_id,
                status=status,
                code=code,
                duration_ms=self.elapsed_ms(),
                model_chars=model_chars,
                output=output,
                call_id=self.call_id,
                tool=self.tool,
                approval=compact_arguments(approval) if approval is not None else None,
            )
        except Exception:
            logger.debug("operation log finish failed", exc_info=True)
