"""The PDF parser's child process: pages' text out of bytes fed over a pipe.

Started by the engine's pool of workers (``Workspace`` gives it the command ``python -I <this
file>``), never imported by the package. It takes its limits from the environment the pool
gives it (``RIPSIGHT_WORKER_MEMORY_BYTES``, ``RIPSIGHT_WORKER_CPU_SECONDS``: the engine's
``rust_core/src/workers/limits.rs``). It limits its own address space (``RLIMIT_AS``) before it
loads the parser, so the parser's C code runs under the limit from its first allocation, and
before each request it sets its CPU limit (``RLIMIT_CPU``, soft) to what it has used so far plus
the request's seconds: the kernel's SIGXCPU ends a parse that spins. The engine's wall-clock
deadline covers the rest (a parse that sleeps or blocks) by killing this process.

Frames, both ways: an 8-byte big-endian length, then that many bytes (the engine's workers'
wire). The first frame it writes says it is ready (``_READY``), once the parser is loaded. A
request is one frame: a line of JSON (``first``, ``last``, ``budget``, ``page_chars``), a
newline, then the PDF's bytes; the answer is one JSON frame. The process
serves requests until its standard input closes. It imports nothing from ripsight (and so not
the engine).
"""

from __future__ import annotations

import importlib
import json
import os
import resource
import struct
import sys
from typing import Any, BinaryIO

_LENGTH = struct.Struct(">Q")
#: The first frame's bytes (the engine checks the prefix ``ripsight-pdf-worker ``).
_READY = b"ripsight-pdf-worker 1"
#: The longest header line read.
_MAX_HEADER = 4096
#: What the line heading a page ("--- page 12 of 36 ---") costs in the result budget, at most.
_PAGE_HEAD_CHARS = 40


def _read_exact(stream: BinaryIO, size: int) -> bytes | None:
    # A buffered read of a blocking pipe waits for all `size` bytes (or the end), filling one
    # allocation: the source is held once, not twice.
    data = stream.read(size)
    return data if len(data) == size else None


def _read_request(stream: BinaryIO) -> tuple[bytes, bytes] | None:
    """The header line and the PDF's bytes of one request frame; None at the end of the input
    (or of a frame cut short, or one without its header line)."""
    head = _read_exact(stream, _LENGTH.size)
    if head is None:
        return None
    size = _LENGTH.unpack(head)[0]
    header = stream.readline(min(size, _MAX_HEADER))
    if not header.endswith(b"\n"):
        return None
    data = _read_exact(stream, size - len(header))
    return None if data is None else (header, data)


def _write_frame(stream: BinaryIO, payload: bytes) -> None:
    stream.write(_LENGTH.pack(len(payload)) + payload)
    stream.flush()


def _peak_rss_bytes() -> int:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def _limit_cpu(seconds: int) -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = int(usage.ru_utime + usage.ru_stime) + 1
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = used + seconds
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _extract(pdfium: Any, data: bytes, request: dict[str, Any]) -> dict[str, Any]:
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as error:
        detail = str(error)[:300]
        kind = "encrypted" if "password" in detail.lower() else "unreadable"
        return {"ok": False, "error": kind, "detail": detail}
    try:
        count = len(document)
        first, last = int(request["first"]), int(request["last"])
        budget, page_chars = int(request["budget"]), int(request["page_chars"])
        pages: list[dict[str, Any]] = []
        used = 0
        for number in range(first, min(last, count) + 1):
            page = document[number - 1]
            try:
                textpage = page.get_textpage()
                try:
                    text = textpage.get_text_bounded()
                finally:
                    textpage.close()
            finally:
                page.close()
            text = text.replace("\r\n", "\n")
            # A page costs its text and the line that heads it; a page that would overrun the
            # budget is left for the next call, unless it is the first.
            cost = min(len(text), page_chars) + _PAGE_HEAD_CHARS
            if budget and pages and used + cost > budget:
                break
            pages.append({"number": number, "text": text[:page_chars], "chars": len(text)})
            used += cost
        return {"ok": True, "page_count": count, "pages": pages}
    finally:
        document.close()


def main() -> int:
    # Both are set by the pool that starts this process; run by hand, it stops at once.
    memory = int(os.environ["RIPSIGHT_WORKER_MEMORY_BYTES"])
    cpu_seconds = int(os.environ["RIPSIGHT_WORKER_CPU_SECONDS"])
    try:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    except (ValueError, OSError):
        pass  # macOS does not enforce RLIMIT_AS (and may refuse it): the deadline still holds
    # Loaded under the limit (and untyped: the module's functions take it as `Any`).
    pdfium = importlib.import_module("pypdfium2")

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    _write_frame(stdout, _READY)
    while True:
        frame = _read_request(stdin)
        if frame is None:
            return 0
        header, data = frame
        del frame
        request = json.loads(header)
        _limit_cpu(cpu_seconds)
        try:
            answer = _extract(pdfium, data, request)
        except MemoryError:
            answer = {"ok": False, "error": "memory", "detail": "out of memory"}
        except Exception as error:  # noqa: BLE001 - any parser failure is an answer
            detail = f"{type(error).__name__}: {error}"[:300]
            answer = {"ok": False, "error": "unreadable", "detail": detail}
        del data
        answer["peak_rss_bytes"] = _peak_rss_bytes()
        _write_frame(stdout, json.dumps(answer, ensure_ascii=False).encode("utf-8"))


if __name__ == "__main__":
    sys.exit(main())
