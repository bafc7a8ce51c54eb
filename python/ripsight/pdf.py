"""PDFs as text, page by page, parsed where a hostile file cannot hurt the caller.

    >>> text = Workspace("/path/to/repo").read_pdf("docs/spec.pdf", pages="2-3")
    >>> text.page_count, [page.number for page in text.pages]
    (36, [2, 3])

The engine reads the file's bytes (``Workspace.read_bytes``: the boundary, the deny rules, at
most ``LIMITS["pdf_max_source_bytes"]``); this module hands them over a pipe to a child process
(``_pdf_worker.py``) that parses them with pypdfium2 under an address-space limit
(``pdf_worker_memory_bytes``) and a CPU limit (``pdf_worker_cpu_seconds``), and waits for the
answer at most ``pdf_deadline_ms``: a parser that crashes, spins, sleeps or runs out of memory
costs its child process and this call (a :class:`PdfError`), never the caller.

Why pypdfium2 (Apache-2.0 / BSD-3-Clause; wheels for every platform ripsight ships for:
manylinux2014 x86_64 and aarch64, macOS): PDFium is the parser of Chrome, fast and tolerant of broken files. Measured
against pypdf (BSD, pure Python) on the PDFs Debian ships, its text agrees better with
poppler's ``pdftotext`` and it is many times faster (figures in benches/README.md). PyMuPDF is
AGPL and not an option.

Why one long-lived worker (started on the first PDF, replaced after a crash or a kill) rather
than a process per call: a fresh interpreter that loads pypdfium2 costs about 60 ms before it
parses anything (more under load), a warm worker answers a small PDF in a few milliseconds
(benches/README.md has both). A worker busy with another call is not waited for: a second one
is started, and at most ``_MAX_IDLE`` stay warm.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import selectors
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from .errors import InvalidArgumentError, RipsightError
from .limits import LIMITS

__all__ = [
    "PDF_CODES",
    "PDF_DEADLINE_MS",
    "PDF_MAX_PAGES",
    "PDF_MAX_SOURCE_BYTES",
    "PDF_TEXT_SCHEMA",
    "PageRange",
    "PdfBusyError",
    "PdfCrashedError",
    "PdfDeadlineError",
    "PdfEncryptedError",
    "PdfError",
    "PdfMemoryError",
    "PdfPage",
    "PdfText",
    "PdfTooLargeError",
    "extract_pages",
    "is_pdf_name",
    "is_pdf_type",
    "parse_pages",
    "read_pdf_bytes",
    "too_large_error",
]

#: The largest PDF read, in bytes (the engine refuses to read more).
PDF_MAX_SOURCE_BYTES = int(LIMITS["pdf_max_source_bytes"])
#: The most pages one call shows.
PDF_MAX_PAGES = int(LIMITS["pdf_max_pages"])
#: Characters of one page's text the worker hands back at most.
PDF_PAGE_CHARS = int(LIMITS["pdf_page_chars"])
#: The worker's address-space limit, in bytes.
PDF_WORKER_MEMORY_BYTES = int(LIMITS["pdf_worker_memory_bytes"])
#: CPU seconds one call may use in the worker.
PDF_WORKER_CPU_SECONDS = int(LIMITS["pdf_worker_cpu_seconds"])
#: How long one call waits for the worker, in milliseconds, before killing it.
PDF_DEADLINE_MS = int(LIMITS["pdf_deadline_ms"])

_WORKER = Path(__file__).with_name("_pdf_worker.py")
_LENGTH = struct.Struct(">Q")
_MAX_IDLE = 2
_MAX_WORKERS = 4
_CHUNK = 1 << 16
#: After a kill, how long the call waits to reap the child (SIGKILL cannot be caught).
_REAP_SECONDS = 1.0


class PdfError(RipsightError):
    """A PDF that could not be read. Each subclass has its stable code as ``kind`` (all of them:
    `PDF_CODES`, which `ripsight.codes` reads); ``peak_rss_bytes`` is the parser process's peak resident
    memory when known."""

    kind = "pdf_unreadable"

    def __init__(self, message: str, peak_rss_bytes: int | None = None) -> None:
        super().__init__(message)
        self.reason = self.kind
        self.peak_rss_bytes = peak_rss_bytes


class PdfTooLargeError(PdfError):
    """The file is over `PDF_MAX_SOURCE_BYTES`: it was not read."""

    kind = "too_large"


class PdfEncryptedError(PdfError):
    """The PDF needs a password."""

    kind = "pdf_encrypted"


class PdfDeadlineError(PdfError):
    """The parser overran its wall-clock deadline or its CPU limit and was stopped."""

    kind = "pdf_deadline"


class PdfMemoryError(PdfError):
    """The parser ran out of its address space and said so."""

    kind = "pdf_memory"


class PdfCrashedError(PdfError):
    """The parser's process ended without an answer (a crash, a failed allocation)."""

    kind = "pdf_crashed"


class PdfBusyError(PdfError):
    """Every parser process stayed busy with other calls until the deadline."""

    kind = "pdf_busy"


#: The code of every failure of a PDF read.
PDF_CODES: tuple[str, ...] = tuple(
    error.kind
    for error in (
        PdfTooLargeError,
        PdfError,
        PdfEncryptedError,
        PdfDeadlineError,
        PdfMemoryError,
        PdfCrashedError,
        PdfBusyError,
    )
)


@dataclass(frozen=True, slots=True)
class PdfPage:
    """One page's text (``text`` is cut to ``LIMITS["pdf_page_chars"]``; ``chars`` is the full
    length); an empty text means the page has no text layer (a scanned image, a drawing)."""

    number: int
    text: str
    chars: int

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "text": self.text, "chars": self.chars}


@dataclass(frozen=True, slots=True)
class PdfText:
    """Pages of one PDF.

    Attributes:
        path: the file's real path relative to the root.
        size_bytes: the file's size.
        page_count: pages in the document.
        pages: the pages read, in order.
        next_page: the first page not shown when more follow, else None.
        peak_rss_bytes: the parser process's peak resident memory so far.
    """

    path: str
    size_bytes: int
    page_count: int
    pages: tuple[PdfPage, ...]
    next_page: int | None
    peak_rss_bytes: int | None
    kind: str = "pdf"

    #: The JSON Schema of `to_dict` (`PDF_TEXT_SCHEMA`), as the engine's records carry theirs.
    SCHEMA: ClassVar[dict[str, Any]]

    @property
    def total(self) -> int:
        """The page count (the operation log's ``total``)."""
        return self.page_count

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "size_bytes": self.size_bytes,
            "page_count": self.page_count,
            "pages": [page.to_dict() for page in self.pages],
            "next_page": self.next_page,
        }


#: The JSON Schema of `PdfText.to_dict()` (the MCP server's structured copy of a PDF read).
PDF_TEXT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "The file's real path relative to the root."},
        "kind": {"type": "string", "enum": ["pdf"], "description": "Always pdf."},
        "size_bytes": {"type": "integer", "minimum": 0, "description": "File size in bytes."},
        "page_count": {"type": "integer", "minimum": 0, "description": "Pages in the document."},
        "pages": {
            "type": "array",
            "description": "The pages read, in order.",
            "items": {
                "type": "object",
                "properties": {
                    "number": {"type": "integer", "minimum": 1, "description": "Page number."},
                    "text": {
                        "type": "string",
                        "description": "The page's text (empty: no text layer, such as a "
                        f"scanned page), cut to {PDF_PAGE_CHARS:,} characters.",
                    },
                    "chars": {
                        "type": "integer",
                        "minimum": 0,
                        "description": "The length of the page's whole text.",
                    },
                },
                "required": ["number", "text", "chars"],
            },
        },
        "next_page": {
            "type": ["integer", "null"],
            "description": "The first page not shown when more follow (also when pages were "
            "left out to keep this structured copy within the result budget), else null.",
        },
    },
    "required": ["path", "kind", "size_bytes", "page_count", "pages", "next_page"],
}
PdfText.SCHEMA = PDF_TEXT_SCHEMA


# -- which files are PDFs ------------------------------------------------------------------------


def is_pdf_name(path: str) -> bool:
    """True for a name ending in ``.pdf`` (any case)."""
    return path.lower().endswith(".pdf")


def is_pdf_type(binary_type: str | None) -> bool:
    """True when the engine's type guess of a binary file names a PDF."""
    return bool(binary_type) and "application/pdf" in str(binary_type)


# -- the pages argument --------------------------------------------------------------------------

_PAGES = re.compile(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?")


@dataclass(frozen=True, slots=True)
class PageRange:
    """The pages a ``pages`` argument names, from `first` to `last` (1-based, inclusive): its
    typed value, parsed once (`parse_pages`)."""

    first: int
    last: int

    def __str__(self) -> str:
        return str(self.first) if self.first == self.last else f"{self.first}-{self.last}"


def parse_pages(spec: str) -> PageRange:
    """``"3"`` -> pages 3 to 3, ``"1-5"`` -> pages 1 to 5; at most `PDF_MAX_PAGES` pages. Raises
    :class:`InvalidArgumentError` with a sentence saying what is wrong and what to write."""
    example = f'Write one page ("3") or a range ("1-5"), at most {PDF_MAX_PAGES} pages a call.'
    match = _PAGES.fullmatch(spec)
    if match is None:
        raise InvalidArgumentError(f"pages={spec!r} is not a page or a page range. {example}")
    first = int(match.group(1))
    last = int(match.group(2)) if match.group(2) is not None else first
    if first == 0 or last == 0:
        raise InvalidArgumentError(f"pages={spec!r}: pages are numbered from 1. {example}")
    if last < first:
        raise InvalidArgumentError(
            f'pages={spec!r} is reversed: write the first page first ("{last}-{first}").'
        )
    if last - first + 1 > PDF_MAX_PAGES:
        raise InvalidArgumentError(
            f"pages={spec!r} asks for {last - first + 1} pages; at most {PDF_MAX_PAGES} pages "
            f'are read a call: ask for "{first}-{first + PDF_MAX_PAGES - 1}", then read on.'
        )
    return PageRange(first, last)


# -- the worker ----------------------------------------------------------------------------------


class _Stopped(Exception):
    """The worker ended or was killed; `kind` says why."""

    def __init__(self, kind: str, peak_rss_bytes: int | None, exit_code: int | None) -> None:
        super().__init__(kind)
        self.kind = kind
        self.peak_rss_bytes = peak_rss_bytes
        self.exit_code = exit_code


class _Worker:
    """One child process running ``_pdf_worker.py``."""

    def __init__(self) -> None:
        # The child sets its own limits (preexec_fn is unsafe with threads); -I keeps the
        # user's environment (PYTHONPATH, the current directory) out of its import path.
        self.process = subprocess.Popen(
            [sys.executable, "-I", str(_WORKER), str(PDF_WORKER_MEMORY_BYTES)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            start_new_session=True,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin = self.process.stdin.fileno()
        self.stdout = self.process.stdout.fileno()
        os.set_blocking(self.stdin, False)
        os.set_blocking(self.stdout, False)

    def exchange(self, frames: list[bytes], deadline: float) -> bytes:
        """Writes `frames` and reads one answer frame, both before `deadline` (monotonic);
        raises `_Stopped` when the worker ends or the deadline passes (the worker is then
        killed)."""
        views: list[memoryview] = []
        for frame in frames:
            views += [memoryview(_LENGTH.pack(len(frame))), memoryview(frame)]
        views = [view for view in views if len(view)]
        received = bytearray()
        expected: int | None = None
        with selectors.DefaultSelector() as selector:
            selector.register(self.stdin, selectors.EVENT_WRITE)
            selector.register(self.stdout, selectors.EVENT_READ)
            writing = True
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise self.kill("deadline")
                for key, _ in selector.select(left):
                    if key.fd == self.stdin:
                        try:
                            written = os.write(self.stdin, views[0][:_CHUNK])
                        except BrokenPipeError:
                            raise self.kill("crashed") from None
                        views[0] = views[0][written:]
                        while views and not len(views[0]):
                            views.pop(0)
                        if not views and writing:
                            selector.unregister(self.stdin)
                            writing = False
                        continue
                    chunk = os.read(self.stdout, _CHUNK)
                    if not chunk:
                        raise self.kill("crashed")
                    received += chunk
                    if expected is None and len(received) >= _LENGTH.size:
                        expected = _LENGTH.unpack_from(received)[0] + _LENGTH.size
                    if expected is not None and len(received) >= expected:
                        return bytes(received[_LENGTH.size : expected])

    def kill(self, kind: str) -> _Stopped:
        """Kills the process, reaps it, and returns the `_Stopped` to raise (with its peak
        memory, from the kernel's accounting of the reaped child)."""
        with contextlib.suppress(OSError):
            self.process.kill()
        peak: int | None = None
        stopped_at = time.monotonic() + _REAP_SECONDS
        while time.monotonic() < stopped_at:
            try:
                pid, status, usage = os.wait4(self.process.pid, os.WNOHANG)
            except ChildProcessError:
                break
            if pid:
                self.process.returncode = os.waitstatus_to_exitcode(status)
                peak = usage.ru_maxrss if sys.platform == "darwin" else usage.ru_maxrss * 1024
                # The kernel's verdict outranks ours: a worker that died by itself on a
                # limit (SIGXCPU, SIGSEGV on a failed allocation) says so here.
                if kind == "crashed" and self.process.returncode == -24:  # SIGXCPU
                    kind = "deadline"
                break
            time.sleep(0.002)
        self.close()
        return _Stopped(kind, peak, self.process.returncode)

    def close(self) -> None:
        """Closes the pipes (an idle worker then exits by itself) and reaps the process, killing
        it when it has not ended within `_REAP_SECONDS`."""
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        if self.process.returncode is None:
            try:
                self.process.wait(_REAP_SECONDS)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    self.process.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(_REAP_SECONDS)


class _Pool:
    """Warm workers, at most `_MAX_IDLE` kept between calls and `_MAX_WORKERS` at work at once
    (each may take `PDF_WORKER_MEMORY_BYTES`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self.running = threading.BoundedSemaphore(_MAX_WORKERS)

    def take(self) -> _Worker:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.process.poll() is None:
                    return worker
                worker.close()
        return _Worker()

    def give_back(self, worker: _Worker) -> None:
        with self._lock:
            if len(self._idle) < _MAX_IDLE and worker.process.poll() is None:
                self._idle.append(worker)
                return
        worker.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.close()


_POOL = _Pool()


def extract_pages(
    data: bytes, first: int, last: int, budget: int = 0, deadline_ms: int | None = None
) -> dict[str, Any]:
    """The worker's answer for pages `first`..`last` of the PDF in `data`: ``{"ok": True,
    "page_count", "pages": [{"number", "text", "chars"}], "peak_rss_bytes"}`` or ``{"ok": False,
    "error", "detail", "peak_rss_bytes"}``; with a `budget`, pages stop once their text reaches
    it (at least one is read). Raises `_Stopped` when the worker was killed or died. The
    deadline (default `PDF_DEADLINE_MS`) covers starting a worker too."""
    deadline = time.monotonic() + (PDF_DEADLINE_MS if deadline_ms is None else deadline_ms) / 1000
    header = json.dumps(
        {
            "first": first,
            "last": last,
            "budget": budget,
            "page_chars": PDF_PAGE_CHARS,
            "cpu_seconds": PDF_WORKER_CPU_SECONDS,
        }
    ).encode()
    if not _POOL.running.acquire(timeout=max(deadline - time.monotonic(), 0)):
        raise _Stopped("busy", None, None)
    try:
        worker = _POOL.take()
        try:
            answer = worker.exchange([header, data], deadline)
        except _Stopped:
            raise
        except BaseException:
            worker.kill("crashed")
            raise
        _POOL.give_back(worker)
    finally:
        _POOL.running.release()
    decoded: dict[str, Any] = json.loads(answer)
    return decoded


def read_pdf_bytes(
    path: str, size_bytes: int, data: bytes, pages: PageRange | None, budget: int
) -> PdfText:
    """The text of `data` (the PDF at `path`, as the engine read it): the pages `pages` names,
    or without it the first pages whose text fits `budget` characters (at most
    `PDF_MAX_PAGES`, at least one). Raises `PdfError` (unreadable, encrypted, killed)."""
    if pages is None:
        first, last, budget_left = 1, PDF_MAX_PAGES, max(budget, 1)
    else:
        first, last, budget_left = pages.first, pages.last, 0
    try:
        answer = extract_pages(data, first, last, budget_left)
    except _Stopped as stopped:
        raise _stopped_error(path, stopped) from None
    if not answer.get("ok"):
        raise _failed_error(path, answer)
    count = int(answer["page_count"])
    shown = tuple(
        PdfPage(int(p["number"]), str(p["text"]), int(p["chars"])) for p in answer["pages"]
    )
    after = shown[-1].number + 1 if shown else None
    return PdfText(
        path=path,
        size_bytes=size_bytes,
        page_count=count,
        pages=shown,
        next_page=after if after is not None and after <= count else None,
        peak_rss_bytes=answer.get("peak_rss_bytes"),
    )


def too_large_error(path: str, size_bytes: int) -> PdfError:
    """The error of a PDF over `PDF_MAX_SOURCE_BYTES` (not read)."""
    return PdfTooLargeError(
        f"{path} is a PDF of {size_bytes:,} bytes, over the {PDF_MAX_SOURCE_BYTES >> 20} MiB "
        "read_file reads. Search text files with grep instead, or ask the user for a smaller "
        "extract."
    )


def _deadline_s() -> str:
    return f"{PDF_DEADLINE_MS / 1000:g}"


def _stopped_error(path: str, stopped: _Stopped) -> PdfError:
    if stopped.kind == "deadline":
        return PdfDeadlineError(
            f"{path}: the PDF parser did not finish within its time ({_deadline_s()} "
            f"s, {PDF_WORKER_CPU_SECONDS} CPU seconds) and was stopped; the file may be "
            'malformed or built to make parsers work for long. Ask for fewer pages (pages="1"), '
            "or read another file.",
            stopped.peak_rss_bytes,
        )
    if stopped.kind == "busy":
        return PdfBusyError(
            f"{path} was not read: every PDF parser process ({_MAX_WORKERS}) stayed busy with "
            f"other calls for {_deadline_s()} s. Call read_file again once they are answered."
        )
    how = f" (exit status {stopped.exit_code})" if stopped.exit_code is not None else ""
    return PdfCrashedError(
        f"{path}: the PDF parser's process ended without an answer{how}: it crashed or ran out "
        f"of its {PDF_WORKER_MEMORY_BYTES >> 20} MiB on this file, which is probably damaged "
        "or built to exhaust parsers. Other files can still be read.",
        stopped.peak_rss_bytes,
    )


def _failed_error(path: str, answer: dict[str, Any]) -> PdfError:
    peak = answer.get("peak_rss_bytes")
    error = answer.get("error")
    if error == "encrypted":
        return PdfEncryptedError(
            f"{path} is a password-protected PDF; its text cannot be read without the password.",
            peak,
        )
    if error == "memory":
        limit = PDF_WORKER_MEMORY_BYTES >> 20
        return PdfMemoryError(
            f"{path}: the PDF parser ran out of memory ({limit} MiB) on this file; it cannot "
            'be read whole. Ask for fewer pages (pages="1"), or read another file.',
            peak,
        )
    return PdfError(
        f"{path} is not a readable PDF (the parser says: {answer.get('detail', 'no detail')}); "
        "it may be damaged, truncated or not a PDF at all.",
        peak,
    )
