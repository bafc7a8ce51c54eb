"""The state of one conversation: what was delivered, what is stored by reference, what repeats,
what a person approved.

    >>> session = Session()
    >>> ref = session.references.put("x" * 20_000)
    >>> session.references.get(ref) is not None
    True

A `Registry` owns one `Session`; `Registry.reset_session()` replaces it. Nothing here touches the
filesystem: reads are compared by what the engine returned (its identity of the opened file when
it reports one, else the size, line count and the text of the delivered lines), never by a
`stat` of a model-given path.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from .approval import ApprovalMemory

__all__ = [
    "DEFAULT_REFERENCE_BYTES",
    "DEFAULT_REFERENCE_TTL",
    "DEFAULT_ROW_CHARS",
    "NoReadState",
    "NoRepeatMemo",
    "ReadRecord",
    "ReadState",
    "ReferenceStore",
    "RepeatMemo",
    "Session",
    "StoredResult",
    "file_stamp",
]

#: Bytes (UTF-8) the reference store of one session holds before evicting its oldest entries.
DEFAULT_REFERENCE_BYTES = 64 * 1024 * 1024
#: Seconds a stored result stays readable.
DEFAULT_REFERENCE_TTL = 3600.0
#: Rows a stored result is paged in: a line, or a piece of at most this many characters of a
#: longer one (so one page always fits a result budget).
DEFAULT_ROW_CHARS = 2000


# -- read state --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReadRecord:
    """One delivered read: the lines the model saw and what identified the file then.

    `stamp` is `file_stamp` of the result; `line_hashes` fingerprint the text of lines
    `first` .. `last`.
    """

    call_id: str
    first: int
    last: int
    total_lines: int
    stamp: tuple[Any, ...]
    line_hashes: tuple[int, ...]


def file_stamp(found: Any) -> tuple[Any, ...]:
    """What identifies a file's state, from an engine result (`ReadResult`, or the identity
    `Workspace.identify` returns): device, inode, size and modification time when the engine
    reports them (it takes them with `fstat` of the descriptor it opened), else only the size."""
    size = getattr(found, "size_bytes", getattr(found, "size", None))
    dev, inode = getattr(found, "dev", None), getattr(found, "inode", None)
    mtime = getattr(found, "mtime_ns", None)
    if dev is None or inode is None or mtime is None:
        return ("size", size)
    return ("id", dev, inode, size, mtime)


def _key(found: Any) -> Hashable:
    # The path the engine opened, relative to the root.
    return getattr(found, "path", None)


class ReadState:
    """Which file ranges this session has delivered, so an unchanged re-read answers short.

    Two checks, both on what the engine reports (Python never stats a model-given path):
    `lookup_identity` before a read, when the engine can identify a file without reading it
    (its identity unchanged and the range delivered: no read at all), and `lookup` after one
    (the same stamp, line count and text of the lines).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: dict[Hashable, list[ReadRecord]] = {}

    @staticmethod
    def record_for(call_id: str, result: Any) -> ReadRecord | None:
        """The record of delivering a text `ReadResult`, or None (binary, empty, past the end)."""
        lines = getattr(result, "lines", None)
        if getattr(result, "kind", None) != "text" or not lines:
            return None
        return ReadRecord(
            call_id=call_id,
            first=lines[0].number,
            last=lines[-1].number,
            total_lines=result.total_lines,
            stamp=file_stamp(result),
            line_hashes=tuple(hash((line.text, line.cut_from)) for line in lines),
        )

    def _records_of(self, found: Any) -> list[ReadRecord]:
        with self._lock:
            return list(self._records.get(_key(found), ()))

    def lookup_identity(self, identity: Any, offset: int, limit: int) -> ReadRecord | None:
        """The earlier delivery of lines `offset` .. `offset + limit - 1` of a file whose
        identity (device, inode, size, modification time) has not changed since."""
        stamp = file_stamp(identity)
        if stamp[0] != "id":
            return None
        for record in reversed(self._records_of(identity)):
            last_wanted = min(offset + limit - 1, record.total_lines)
            if record.stamp == stamp and record.first <= offset <= last_wanted <= record.last:
                return record
        return None

    def lookup(self, result: Any) -> ReadRecord | None:
        """The earlier delivery that already showed every line of `result`, unchanged."""
        fresh = self.record_for("", result)
        if fresh is None:
            return None
        for record in reversed(self._records_of(result)):
            if record.stamp != fresh.stamp or record.total_lines != fresh.total_lines:
                continue
            if not (record.first <= fresh.first and fresh.last <= record.last):
                continue
            start = fresh.first - record.first
            if record.line_hashes[start : start + len(fresh.line_hashes)] == fresh.line_hashes:
                return record
        return None

    def record(self, result: Any, record: ReadRecord) -> None:
        """Remembers a delivery; records of the file under another stamp are dropped."""
        key = _key(result)
        with self._lock:
            kept = [r for r in self._records.get(key, ()) if r.stamp == record.stamp]
            kept.append(record)
            self._records[key] = kept[-16:]

    def clear(self) -> None:
        with self._lock:
            self._records.clear()


class NoReadState(ReadState):
    """Read state that remembers nothing, so every read is delivered in full: for a server that
    outlives conversations and cannot tell them apart (an MCP server), where "already shown in
    your earlier call" could point a new conversation at text it never saw."""

    def record(self, result: Any, record: ReadRecord) -> None:
        return None


# -- outputs by reference ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoredResult:
    """A result kept whole in the reference store, split into rows for paging."""

    ref: str
    text: str
    rows: tuple[str, ...]
    stored_at: float
    expires_at: float
    size_bytes: int

    def page(self, offset: int, limit: int, max_chars: int) -> tuple[str, int, int]:
        """Rows `offset`.. (1-based), at most `limit` of them and `max_chars` characters (at
        least one row); returns the text, the first and the last row number."""
        first = max(1, offset)
        parts: list[str] = []
        used = 0
        last = first - 1
        for index in range(first - 1, min(len(self.rows), first - 1 + limit)):
            row = self.rows[index]
            if parts and used + len(row) > max_chars:
                break
            parts.append(row)
            used += len(row)
            last = index + 1
        return "".join(parts), first, last


def _split_rows(text: str, row_chars: int) -> tuple[str, ...]:
    rows: list[str] = []
    start = 0
    length = len(text)
    while start < length:
        end = text.find("\n", start)
        end = length if end < 0 else end + 1
        while end - start > row_chars:
            rows.append(text[start : start + row_chars])
            start += row_chars
        rows.append(text[start:end])
        start = end
    return tuple(rows)


class ReferenceStore:
    """Whole results of one session, content-addressed, with an expiry and a byte cap.

    A reference is ``ref_`` and 20 hex digits of an HMAC of the text under a key drawn for this
    store, so the same text stored twice in one session gets the same reference and a reference
    says nothing in another session (which answers it exactly as a made-up one).

        >>> store = ReferenceStore(max_bytes=1 << 20, ttl=60)
        >>> ref = store.put("a\\nb\\n")
        >>> store.get(ref).rows
        ('a\\n', 'b\\n')
    """

    def __init__(
        self,
        *,
        max_bytes: int = DEFAULT_REFERENCE_BYTES,
        ttl: float = DEFAULT_REFERENCE_TTL,
        row_chars: int = DEFAULT_ROW_CHARS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_bytes < 1 or ttl <= 0 or row_chars < 1:
            raise ValueError("max_bytes, ttl and row_chars must be positive")
        self.max_bytes = max_bytes
        self.ttl = float(ttl)
        self.row_chars = row_chars
        self._clock = clock
        self._key = os.urandom(32)
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, StoredResult] = OrderedDict()
        self._bytes = 0

    def reference(self, text: str) -> str:
        """The reference `text` has (or would have) in this store."""
        digest = hmac.new(self._key, text.encode("utf-8", "surrogatepass"), hashlib.sha256)
        return "ref_" + digest.hexdigest()[:20]

    def put(self, text: str) -> str | None:
        """Stores `text` whole; returns its reference, or None when it alone exceeds the cap.

        Storing evicts expired entries, then the oldest ones until the new one fits.
        """
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > self.max_bytes:
            return None
        ref = self.reference(text)
        now = self._clock()
        with self._lock:
            self._expire(now)
            old = self._entries.pop(ref, None)
            if old is not None:
                self._bytes -= old.size_bytes
            while self._entries and self._bytes + size > self.max_bytes:
                _, evicted = self._entries.popitem(last=False)
                self._bytes -= evicted.size_bytes
            self._entries[ref] = StoredResult(
                ref=ref,
                text=text,
                rows=old.rows if old is not None else _split_rows(text, self.row_chars),
                stored_at=now,
                expires_at=now + self.ttl,
                size_bytes=size,
            )
            self._bytes += size
        return ref

    def get(self, ref: str) -> StoredResult | None:
        """The stored result, or None (never stored here, expired, or evicted)."""
        now = self._clock()
        with self._lock:
            self._expire(now)
            return self._entries.get(ref)

    def _expire(self, now: float) -> None:
        while self._entries:
            ref, entry = next(iter(self._entries.items()))
            if entry.expires_at > now:
                # Entries are kept in storing order and share one ttl, so the rest are younger.
                break
            del self._entries[ref]
            self._bytes -= entry.size_bytes

    @property
    def size_bytes(self) -> int:
        with self._lock:
            return self._bytes

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0


# -- repeated calls ----------------------------------------------------------------------------


class RepeatMemo:
    """Calls answered on a tree revision: (tool, arguments, revision) -> the id of the call that
    answered and the reference its whole result was stored under, if it was cut. Filled only
    while the workspace reports a revision (the index is on)."""

    def __init__(self, max_entries: int = 4096) -> None:
        self._lock = threading.Lock()
        self._calls: OrderedDict[tuple[str, str, int], tuple[str, str | None]] = OrderedDict()
        self._max = max_entries

    def lookup(self, tool: str, arguments: str, revision: int) -> tuple[str, str | None] | None:
        with self._lock:
            return self._calls.get((tool, arguments, revision))

    def record(
        self, tool: str, arguments: str, revision: int, call_id: str, ref: str | None = None
    ) -> None:
        with self._lock:
            self._calls[(tool, arguments, revision)] = (call_id, ref)
            self._calls.move_to_end((tool, arguments, revision))
            while len(self._calls) > self._max:
                self._calls.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._calls.clear()


class NoRepeatMemo(RepeatMemo):
    """A memo that remembers nothing, so every call is answered in full: for a server that
    outlives conversations and cannot tell them apart (an MCP server), where "same as call N"
    could point a new conversation at a call it never saw (and would leave out the typed
    result that a tool's output schema promises its client)."""

    def record(
        self, tool: str, arguments: str, revision: int, call_id: str, ref: str | None = None
    ) -> None:
        return None


class Session:
    """Everything one conversation remembers: delivered reads, stored results, repeated calls,
    the approvals a person gave (inputs and rules for the session)."""

    def __init__(
        self,
        *,
        reference_bytes: int = DEFAULT_REFERENCE_BYTES,
        reference_ttl: float = DEFAULT_REFERENCE_TTL,
        row_chars: int = DEFAULT_ROW_CHARS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.reads = ReadState()
        self.references = ReferenceStore(
            max_bytes=reference_bytes, ttl=reference_ttl, row_chars=row_chars, clock=clock
        )
        self.repeats = RepeatMemo()
        self.approvals = ApprovalMemory()
