"""PDFs as text, page by page, parsed where a hostile file cannot hurt the caller.

    >>> text = Workspace("/path/to/repo").read_pdf("docs/spec.pdf", pages="2-3")
    >>> text.page_count, [page.number for page in text.pages]
    (36, [2, 3])

The engine does the work (``Engine.read_pdf``): it reads the file's bytes through the boundary
and the deny rules (at most ``LIMITS["pdf_max_source_bytes"]``) and hands them, from its one
pool of worker processes, to a child process (``_pdf_worker.py``) that parses them with
pypdfium2 under an address-space limit (``pdf_worker_memory_bytes``) and a CPU limit
(``pdf_worker_cpu_seconds``); it waits for the answer at most ``pdf_deadline_ms`` and kills the
process when that passes: a parser that crashes, spins, sleeps or runs out of memory costs its
child process and this call, never the caller. It returns the pages, or why there are none, as
a record (``PdfRead``); this module turns that into a :class:`PdfText` or a :class:`PdfError`
with its sentence.

Why pypdfium2 (Apache-2.0 / BSD-3-Clause; wheels for every platform ripsight ships for:
manylinux2014 x86_64 and aarch64, macOS): PDFium is the parser of Chrome, fast and tolerant of broken files. Measured
against pypdf (BSD, pure Python) on the PDFs Debian ships, its text agrees better with
poppler's ``pdftotext`` and it is many times faster (figures in benches/README.md). PyMuPDF is
AGPL and not an option.

Why long-lived workers (started on the first PDF, replaced after a crash or a kill) rather
than a process per call: a fresh interpreter that loads pypdfium2 costs about 60 ms before it
parses anything (more under load), a warm worker answers a small PDF in a few milliseconds
(benches/README.md has both). A worker busy with another call is not waited for: a second one
is started, up to ``LIMITS["pdf_workers"]`` at once, and the engine keeps a few warm.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from .errors import InvalidArgumentError, RipsightError
from .limits import LIMITS

if TYPE_CHECKING:
    from ._core import PdfRead

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
    "is_pdf_name",
    "is_pdf_type",
    "parse_pages",
    "pdf_text",
    "read_options",
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
#: Parser processes at work at once, at most.
PDF_WORKERS = int(LIMITS["pdf_workers"])


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


# -- the engine's answer -------------------------------------------------------------------------


def read_options(pages: PageRange | None, budget: int) -> dict[str, int]:
    """The keyword arguments of ``Engine.read_pdf`` for `pages`, or without them the first
    pages whose text fits `budget` characters (at most `PDF_MAX_PAGES`, at least one)."""
    if pages is None:
        return {"first": 1, "last": PDF_MAX_PAGES, "budget": max(budget, 1)}
    return {"first": pages.first, "last": pages.last, "budget": 0}


def pdf_text(read: PdfRead) -> PdfText:
    """The pages of the engine's `read`. Raises `PdfError` (too large, unreadable, encrypted,
    the parser stopped) with its sentence."""
    path = read.path
    if read.too_large:
        raise too_large_error(path, read.size_bytes)
    if read.failure is not None:
        raise _failure_error(read)
    shown = tuple(PdfPage(page.number, page.text, page.chars) for page in read.pages)
    after = shown[-1].number + 1 if shown else None
    return PdfText(
        path=path,
        size_bytes=read.size_bytes,
        page_count=read.page_count,
        pages=shown,
        next_page=after if after is not None and after <= read.page_count else None,
        peak_rss_bytes=read.peak_rss_bytes,
    )


def too_large_error(path: str, size_bytes: int) -> PdfError:
    """The error of a PDF over `PDF_MAX_SOURCE_BYTES` (not read)."""
    return PdfTooLargeError(
        f"{path} is a PDF of {size_bytes:,} bytes, over the {PDF_MAX_SOURCE_BYTES >> 20} MiB "
        "read_file reads. Search text files with grep instead, or ask the user for a smaller "
        "extract."
    )


def _failure_error(read: PdfRead) -> PdfError:
    path, peak, failure = read.path, read.peak_rss_bytes, read.failure
    if failure == "encrypted":
        return PdfEncryptedError(
            f"{path} is a password-protected PDF; its text cannot be read without the password.",
            peak,
        )
    if failure == "memory":
        limit = PDF_WORKER_MEMORY_BYTES >> 20
        return PdfMemoryError(
            f"{path}: the PDF parser ran out of memory ({limit} MiB) on this file; it cannot "
            'be read whole. Ask for fewer pages (pages="1"), or read another file.',
            peak,
        )
    if failure == "unreadable":
        return PdfError(
            f"{path} is not a readable PDF (the parser says: {read.detail or 'no detail'}); "
            "it may be damaged, truncated or not a PDF at all.",
            peak,
        )
    seconds = f"{read.deadline_ms / 1000:g}"
    if failure == "deadline":
        return PdfDeadlineError(
            f"{path}: the PDF parser did not finish within its time ({seconds} "
            f"s, {PDF_WORKER_CPU_SECONDS} CPU seconds) and was stopped; the file may be "
            'malformed or built to make parsers work for long. Ask for fewer pages (pages="1"), '
            "or read another file.",
            peak,
        )
    if failure == "busy":
        return PdfBusyError(
            f"{path} was not read: every PDF parser process ({PDF_WORKERS}) stayed busy with "
            f"other calls for {seconds} s. Call read_file again once they are answered."
        )
    if failure == "unavailable":
        return PdfCrashedError(
            f"{path} was not read: the PDF parser's process could not be started "
            f"({read.detail}). Text files can still be read."
        )
    status = read.exit_status
    how = f" (exit status {status})" if status is not None else ""
    return PdfCrashedError(
        f"{path}: the PDF parser's process ended without an answer{how}: it crashed or ran out "
        f"of its {PDF_WORKER_MEMORY_BYTES >> 20} MiB on this file, which is probably damaged "
        "or built to exhaust parsers. Other files can still be read.",
        peak,
    )
