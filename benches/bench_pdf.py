"""PDF parsers compared on real PDFs: pypdfium2 (ripsight's choice) against pypdf.

For each PDF and each page, both parsers' text is compared with poppler's ``pdftotext -f N -l
N`` (an independent reader): agreement is the similarity of the two word sequences
(difflib's ratio, 1.0 = the same words in the same order), and speed is the median wall time
of extracting every page's text, in this process, after a warm-up. It also times ripsight's own
path per call: a warm worker process against a fresh process per call.

    python benches/bench_pdf.py [PDF ...]     (default: the PDFs Debian's libtasn1-doc and
                                               shared-mime-info packages ship)

Needs pdftotext/pdfinfo (poppler-utils), pypdfium2 and pypdf (``pip install pypdf``).
"""

from __future__ import annotations

import difflib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_PDFS = [
    "/usr/share/doc/libtasn1-doc/libtasn1.pdf",
    "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
]


def words(text: str) -> list[str]:
    return text.split()


def agreement(a: str, b: str) -> float:
    left, right = words(a), words(b)
    if not left and not right:
        return 1.0
    return difflib.SequenceMatcher(None, left, right, autojunk=False).ratio()


def poppler_pages(path: str, count: int) -> list[str]:
    return [
        subprocess.run(
            ["pdftotext", "-f", str(n), "-l", str(n), "-enc", "UTF-8", path, "-"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
        for n in range(1, count + 1)
    ]


def page_count(path: str) -> int:
    info = subprocess.run(["pdfinfo", path], capture_output=True, text=True, check=True, timeout=60)
    return next(
        int(line.split()[1]) for line in info.stdout.splitlines() if line.startswith("Pages:")
    )


def pdfium_pages(data: bytes) -> list[str]:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(data)
    out = []
    for page in document:
        textpage = page.get_textpage()
        out.append(textpage.get_text_bounded())
        textpage.close()
        page.close()
    document.close()
    return out


def pypdf_pages(data: bytes) -> list[str]:
    import io

    import pypdf

    return [page.extract_text() or "" for page in pypdf.PdfReader(io.BytesIO(data)).pages]


def median_ms(function, data: bytes, repeats: int = 5) -> float:
    function(data)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function(data)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def per_call_latency(path: str, repeats: int = 10) -> tuple[float, float]:
    """Median ms of one read_pdf call on `path` (page 1) with a warm worker, and with a fresh
    worker per call (the engine's idle workers closed before each call)."""
    from ripsight import Workspace

    ws = Workspace(Path(path).parent)
    name = Path(path).name
    ws.read_pdf(name, pages="1")
    warm, cold = [], []
    for _ in range(repeats):
        started = time.perf_counter()
        ws.read_pdf(name, pages="1")
        warm.append((time.perf_counter() - started) * 1000)
    for _ in range(repeats):
        ws._engine._close_idle_workers()
        started = time.perf_counter()
        ws.read_pdf(name, pages="1")
        cold.append((time.perf_counter() - started) * 1000)
    return statistics.median(warm), statistics.median(cold)


def main(paths: list[str]) -> None:
    print(f"load average {os.getloadavg()[0]:.1f}; Python {sys.version.split()[0]}")
    for path in paths:
        data = Path(path).read_bytes()
        count = page_count(path)
        reference = poppler_pages(path, count)
        print(f"\n{path}: {count} pages (pdfinfo), {len(data):,} bytes")
        for name, function in (("pypdfium2", pdfium_pages), ("pypdf", pypdf_pages)):
            texts = function(data)
            scores = [agreement(t, r) for t, r in zip(texts, reference)]
            print(
                f"  {name:10} pages {len(texts):3}  agreement with pdftotext: median "
                f"{statistics.median(scores):.3f}, min {min(scores):.3f}  "
                f"all pages: {median_ms(function, data):8.1f} ms (median of 5)"
            )
        warm, cold = per_call_latency(path)
        print(
            f"  ripsight per call (page 1): warm worker {warm:.1f} ms, process per call {cold:.1f} ms"
        )


if __name__ == "__main__":
    main(sys.argv[1:] or DEFAULT_PDFS)
