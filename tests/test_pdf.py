"""read_file on PDFs: real PDFs against poppler's pdftotext and pdfinfo, the `pages` argument,
and a hostile corpus, each answered in bounded time and memory with the caller alive.

The real PDFs are ones Debian ships (libtasn1-doc, shared-mime-info; .ci/run installs them and
poppler-utils). The hostile ones are written by `_pdfs`.
"""

from __future__ import annotations

import collections
import difflib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _pdfs import (
    encrypted_pdf,
    many_pages_pdf,
    nested_forms_pdf,
    object_loop_pdf,
    page_tree_loop_pdf,
    random_bytes,
    text_pdf,
)
from ripsight import ToolCall, Workspace, default_registry
from ripsight.pdf import PDF_MAX_PAGES, PdfError, parse_pages, pdf_text

REAL_PDFS = [
    Path("/usr/share/doc/libtasn1-doc/libtasn1.pdf"),
    Path("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"),
]
#: A hang guard for the child processes the tests start (each must answer far sooner).
CHILD_TIMEOUT = 120


def _need(found: bool, what: str) -> None:
    if not found:
        if os.environ.get("CI"):
            pytest.fail(f"{what} is missing; .ci/run installs it")
        pytest.skip(f"{what} is not installed (apt-get install poppler-utils libtasn1-doc)")


@pytest.fixture(scope="module")
def real_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _need(shutil.which("pdftotext") is not None, "pdftotext (poppler-utils)")
    for path in REAL_PDFS:
        _need(path.is_file(), str(path))
    root = tmp_path_factory.mktemp("real")
    for path in REAL_PDFS:
        shutil.copy(path, root / path.name)
    return root


def _poppler(path: Path, page: int) -> str:
    return subprocess.run(
        ["pdftotext", "-f", str(page), "-l", str(page), "-enc", "UTF-8", str(path), "-"],
        capture_output=True,
        text=True,
        check=True,
        timeout=CHILD_TIMEOUT,
    ).stdout


def _page_count(path: Path) -> int:
    info = subprocess.run(
        ["pdfinfo", str(path)], capture_output=True, text=True, check=True, timeout=CHILD_TIMEOUT
    ).stdout
    return next(int(line.split()[1]) for line in info.splitlines() if line.startswith("Pages:"))


def _ordered(a: str, b: str) -> float:
    left, right = a.split(), b.split()
    return difflib.SequenceMatcher(None, left, right, autojunk=False).ratio()


def _bag(a: str, b: str) -> float:
    """Words in common, order aside (two-column pages are read in different orders)."""
    left, right = collections.Counter(a.split()), collections.Counter(b.split())
    total = sum((left | right).values())
    return sum((left & right).values()) / total if total else 1.0


# -- real PDFs -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [path.name for path in REAL_PDFS])
def test_real_pdfs_agree_with_pdftotext_page_by_page(real_root: Path, name: str) -> None:
    ws = Workspace(real_root)
    count = _page_count(real_root / name)
    texts: dict[int, str] = {}
    for first in range(1, count + 1, PDF_MAX_PAGES):
        last = min(count, first + PDF_MAX_PAGES - 1)
        read = ws.read_pdf(name, pages=f"{first}-{last}")
        assert read.page_count == count
        texts.update((page.number, page.text) for page in read.pages)
    assert sorted(texts) == list(range(1, count + 1))
    ordered = []
    for number, text in texts.items():
        reference = _poppler(real_root / name, number)
        assert _bag(text, reference) >= 0.9, (number, text[:200], reference[:200])
        ordered.append(_ordered(text, reference))
    ordered.sort()
    assert ordered[len(ordered) // 2] >= 0.98, ordered


def test_a_pdf_without_pages_shows_the_first_pages_that_fit(real_root: Path) -> None:
    reg = default_registry(real_root)
    result = reg.execute(ToolCall("c1", "read_file", {"path": "libtasn1.pdf"}))
    assert not result.is_error and result.meta["code"] == "ok", result.content
    assert not result.meta["truncated"]
    assert result.content.startswith(
        "libtasn1.pdf: PDF, 36 pages, 256.8 KiB, 262,961 bytes; pages 1-"
    )
    shown = result.meta["engine_result"].pages
    nxt = shown[-1].number + 1
    assert result.content.endswith(
        f'More pages follow: call read_file with pages="{nxt}-{nxt + 19}" to read on (at most '
        "20 pages a call)."
    )
    assert "--- page 1 of 36 ---\nLibtasn1\n" in result.content
    record = reg.log.records()[-1]
    assert record["code"] == "ok"
    assert record["output"]["total"] == 36
    assert record["output"]["pages_shown"] == len(shown)
    assert "Libtasn1" not in json.dumps(record)  # sizes and counts only


def test_the_pages_argument(real_root: Path) -> None:
    reg = default_registry(real_root)

    def read(pages: str) -> Any:
        return reg.execute(
            ToolCall("c", "read_file", {"path": "shared-mime-info-spec.pdf", "pages": pages})
        )

    one = read("3")
    assert one.meta["code"] == "ok"
    assert [p.number for p in one.meta["engine_result"].pages] == [3]
    assert one.content.startswith("shared-mime-info-spec.pdf: PDF, 17 pages, ")
    assert "; page 3 shown.\n--- page 3 of 17 ---\n" in one.content
    assert 'call read_file with pages="4-17"' in one.content
    tail = read("16-25")
    assert [p.number for p in tail.meta["engine_result"].pages] == [16, 17]
    assert "(pages asked up to 25; the document ends at page 17.)" in tail.content
    assert "More pages follow" not in tail.content
    past = read("18")
    assert (past.is_error, past.meta["code"]) == (False, "past_end")
    assert past.content.endswith(
        'pages starts at 18, past the last page. Call read_file with pages from "1" to "17".'
    )


@pytest.mark.parametrize(
    ("pages", "message"),
    [
        ("x", "pages='x' is not a page or a page range."),
        ("1-", "pages='1-' is not a page or a page range."),
        ("0", "pages='0': pages are numbered from 1."),
        ("5-2", "pages='5-2' is reversed: write the first page first (\"2-5\")."),
        (
            "1-21",
            (
                "pages='1-21' asks for 21 pages; at most 20 pages are read a call: ask for "
                '"1-20", then read on.'
            ),
        ),
    ],
)
def test_bad_pages_are_refused_with_a_sentence(tmp_path: Path, pages: str, message: str) -> None:
    (tmp_path / "a.pdf").write_bytes(text_pdf(["one"]))
    result = default_registry(tmp_path).execute(
        ToolCall("c", "read_file", {"path": "a.pdf", "pages": pages})
    )
    # Refused at the check step, with the schema's problems, before anything is read.
    assert result.is_error and result.meta["code"] == "invalid_arguments"
    assert result.content.startswith(
        f"Invalid arguments for read_file (1 problem); nothing was run:\n- {message}"
    ), result.content
    with pytest.raises(ValueError):
        parse_pages(pages)


@pytest.mark.parametrize("name", ["a.txt", "a.png", "a.ipynb", "a"])
def test_pages_on_a_file_that_is_not_a_pdf_is_refused_with_one_text(
    tmp_path: Path, name: str
) -> None:
    # By its name (an image, a notebook) or by its bytes (a text file): the same refusal.
    (tmp_path / name).write_text("text\n")
    result = default_registry(tmp_path).execute(
        ToolCall("c", "read_file", {"path": name, "pages": "1"})
    )
    assert result.is_error and result.meta["code"] == "invalid_arguments"
    assert result.content == (
        f"pages applies to PDF files only, and {name} is not one; call read_file without pages."
    )


def test_pages_is_parsed_once_into_its_typed_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ripsight import pdf
    from ripsight.tools import read_pdf

    calls: list[str] = []

    def counted(spec: str) -> pdf.PageRange:
        calls.append(spec)
        return pdf.parse_pages(spec)

    monkeypatch.setattr(read_pdf, "parse_pages", counted)
    (tmp_path / "a.pdf").write_bytes(text_pdf(["one", "two", "three"]))
    seen: list[object] = []
    registry = default_registry(tmp_path, policy=lambda tool, args: seen.append(args["pages"]))
    result = registry.execute(ToolCall("c", "read_file", {"path": "a.pdf", "pages": "2-3"}))
    assert result.meta["code"] == "ok", result.content
    assert calls == ["2-3"] and seen == [pdf.PageRange(2, 3)]
    assert str(seen[0]) == "2-3" and str(pdf.PageRange(4, 4)) == "4"


def test_a_page_without_text_says_so_and_a_sniffed_pdf_is_read(tmp_path: Path) -> None:
    (tmp_path / "scan").write_bytes(text_pdf(["Words here", ""]))
    reg = default_registry(tmp_path)
    both = reg.execute(ToolCall("c", "read_file", {"path": "scan", "pages": "1-2"}))
    assert both.meta["code"] == "ok"
    assert both.content.endswith(
        "--- page 1 of 2 ---\nWords here\n--- page 2 of 2 ---\n[no extractable text on this "
        "page: it may be a scanned image or a drawing]"
    )
    blank = reg.execute(ToolCall("c", "read_file", {"path": "scan", "pages": "2"}))
    assert (blank.is_error, blank.meta["code"]) == (False, "no_text")


def test_a_pdf_over_the_source_cap_is_refused_unread(tmp_path: Path) -> None:
    with (tmp_path / "huge.pdf").open("wb") as out:
        out.truncate((50 << 20) + 1)  # sparse: nothing to write
    ws = Workspace(tmp_path)
    read = ws.read_bytes("huge.pdf")
    assert (read.too_large, read.data, read.size_bytes) == (True, b"", (50 << 20) + 1)
    result = default_registry(tmp_path).execute(ToolCall("c", "read_file", {"path": "huge.pdf"}))
    assert result.is_error and result.meta["code"] == "too_large"
    assert result.content.startswith("huge.pdf is a PDF of 52,428,801 bytes, over the 50 MiB ")
    with pytest.raises(PdfError):
        ws.read_pdf("huge.pdf")


def test_an_unreadable_pdf_is_a_coded_error_and_the_log_keeps_no_text(tmp_path: Path) -> None:
    (tmp_path / "bad.pdf").write_bytes(b"%PDF-1.7\nThe secret Hunter2 lies here\n" * 50)
    reg = default_registry(tmp_path)
    result = reg.execute(ToolCall("c", "read_file", {"path": "bad.pdf"}))
    assert result.is_error and result.meta["code"] == "pdf_unreadable", result.content
    assert result.content.startswith("bad.pdf is not a readable PDF (the parser says: ")
    record = reg.log.records()[-1]
    assert (record["status"], record["outcome"], record["code"]) == (
        "runtime_error",
        "failure",
        "pdf_unreadable",
    )
    assert "Hunter2" not in json.dumps(record)


def test_a_password_protected_pdf_says_so(tmp_path: Path) -> None:
    (tmp_path / "locked.pdf").write_bytes(encrypted_pdf())
    result = default_registry(tmp_path).execute(ToolCall("c", "read_file", {"path": "locked.pdf"}))
    assert result.is_error and result.meta["code"] == "pdf_encrypted", result.content
    assert result.content == (
        "locked.pdf is a password-protected PDF; its text cannot be read without the password."
    )


def test_read_bytes_hands_python_bytes_and_keeps_them_out_of_its_schema(tmp_path: Path) -> None:
    (tmp_path / "a.pdf").write_bytes(b"%PDF-1.7\n")
    read = Workspace(tmp_path).read_bytes("a.pdf")
    assert isinstance(read.data, bytes) and read.data == b"%PDF-1.7\n"
    assert "data=<9 bytes>" in repr(read)
    # Bytes fields stay out of the JSON Schema and to_dict(), so no structured copy embeds
    # megabytes; the size is a field of its own.
    assert "data" not in read.SCHEMA["properties"]
    assert "data" not in read.to_dict() and read.to_dict()["size_bytes"] == 9


def test_the_deny_rules_cover_pdfs(tmp_path: Path) -> None:
    (tmp_path / "secret.pdf").write_bytes(text_pdf(["Hunter2 inside"]))
    result = default_registry(tmp_path, deny=["*.pdf"]).execute(
        ToolCall("c", "read_file", {"path": "secret.pdf"})
    )
    assert result.is_error and result.meta["code"] == "denied"
    assert "Hunter2" not in result.content


# -- hostile PDFs, each in a child process running the pipeline ------------------------------------

_DRIVER = """
import json, resource, sys, time
from ripsight import ToolCall, Workspace, default_registry
root, name, deadline_ms = sys.argv[1], sys.argv[2], int(sys.argv[3])
ws = Workspace(root)
reg = default_registry(ws)
engine = ws._engine

class Shortened:
    # The engine, its PDF reads given a shorter deadline (the binding's deadline_ms).
    def __getattr__(self, attribute):
        return getattr(engine, attribute)

    def read_pdf(self, path, **options):
        return engine.read_pdf(path, deadline_ms=deadline_ms, **options)

# A warm worker first: the hostile call's time is its parse, not a worker's start.
warm = reg.execute(ToolCall("c0", "read_file", {"path": "good.pdf"}))
assert warm.meta["code"] == "ok", warm.content
if deadline_ms:
    ws._engine = Shortened()
started = time.monotonic()
hostile = reg.execute(ToolCall("c1", "read_file", {"path": name}))
seconds = time.monotonic() - started
ws._engine = engine
after = reg.execute(ToolCall("c2", "read_file", {"path": "good.pdf"}))
engine._close_idle_workers()  # every worker reaped: the children's peak counts them all
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({
    "seconds": seconds, "code": hostile.meta["code"], "is_error": hostile.is_error,
    "text": hostile.content, "after": after.content, "after_code": after.meta["code"],
    "peak_rss_bytes": peak if sys.platform == "darwin" else peak * 1024,
}))
"""


def _hostile(tmp_path: Path, name: str, data: bytes, deadline_ms: int = 0) -> dict[str, Any]:
    (tmp_path / name).write_bytes(data)
    (tmp_path / "good.pdf").write_bytes(text_pdf(["Still alive"]))
    done = subprocess.run(
        [sys.executable, "-c", _DRIVER, str(tmp_path), name, str(deadline_ms)],
        check=False,
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    assert answer["seconds"] < 5, answer
    assert answer["peak_rss_bytes"] < 300 << 20, answer
    assert answer["after_code"] == "ok" and "Still alive" in answer["after"], answer
    return answer


def test_a_page_tree_that_contains_itself(tmp_path: Path) -> None:
    answer = _hostile(tmp_path, "loop.pdf", page_tree_loop_pdf())
    assert answer["is_error"] and answer["code"] == "pdf_unreadable", answer
    assert answer["text"].startswith("loop.pdf is not a readable PDF (the parser says: ")


def test_objects_that_refer_to_themselves(tmp_path: Path) -> None:
    answer = _hostile(tmp_path, "self.pdf", object_loop_pdf())
    assert answer["code"] == "no_text", answer
    assert "[no extractable text on this page" in answer["text"]


def test_ten_thousand_pages_answer_one_bounded_page_set(tmp_path: Path) -> None:
    answer = _hostile(tmp_path, "many.pdf", many_pages_pdf(10_000))
    assert answer["code"] == "ok", answer
    assert answer["text"].startswith("many.pdf: PDF, 10,000 pages, ")
    assert "; pages 1-20 shown." in answer["text"]
    assert answer["text"].endswith(
        'call read_file with pages="21-40" to read on (at most 20 pages a call).'
    )


def test_a_truncated_pdf(tmp_path: Path, real_root: Path) -> None:
    whole = (real_root / "libtasn1.pdf").read_bytes()
    answer = _hostile(tmp_path, "cut.pdf", whole[: len(whole) // 2])
    assert answer["is_error"] and answer["code"] == "pdf_unreadable", answer


def test_random_bytes_named_pdf(tmp_path: Path) -> None:
    answer = _hostile(tmp_path, "noise.pdf", random_bytes())
    assert answer["is_error"] and answer["code"] == "pdf_unreadable", answer
    assert "Data format error" in answer["text"]


def test_exponential_forms_end_by_a_limit(tmp_path: Path) -> None:
    # 2^40 draws: the parser's process dies on its memory or CPU limit, or the deadline kills it.
    answer = _hostile(tmp_path, "forms.pdf", nested_forms_pdf(40))
    assert answer["is_error"] and answer["code"] in ("pdf_crashed", "pdf_deadline"), answer
    assert "Other files can still be read." in answer["text"] or "stopped" in answer["text"]


def test_the_deadline_kills_a_parse_that_runs_long(tmp_path: Path) -> None:
    # Forms nested as above that draw no text: the parse takes time but not memory, so the
    # deadline ends it, never the memory limit (with text, the two raced at about 300 ms).
    answer = _hostile(tmp_path, "forms.pdf", nested_forms_pdf(40, text=False), deadline_ms=300)
    assert answer["is_error"] and answer["code"] == "pdf_deadline", answer
    assert answer["seconds"] < 2, answer
    assert answer["text"].startswith(
        "forms.pdf: the PDF parser did not finish within its time (0.3 s, 3 CPU seconds) and "
        "was stopped"
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads VmHWM from /proc")
def test_a_worker_killed_at_its_deadline_still_reports_its_peak_memory(tmp_path: Path) -> None:
    """Issue 37, item 10: the engine reads the killed worker's peak (VmHWM) before the kill, so
    the failure says what the parse took, as an answered one does."""
    (tmp_path / "forms.pdf").write_bytes(nested_forms_pdf(40, text=False))
    (tmp_path / "good.pdf").write_bytes(text_pdf(["Still alive"]))
    ws = Workspace(tmp_path)
    answered = ws._engine.read_pdf("good.pdf")
    assert answered.failure is None and answered.peak_rss_bytes is not None
    read = ws._engine.read_pdf("forms.pdf", deadline_ms=300)
    assert read.failure == "deadline", read
    # At least the interpreter with PDFium loaded, at most the worker's address-space limit.
    assert read.peak_rss_bytes is not None, read
    assert 5 << 20 < read.peak_rss_bytes <= 256 << 20, read.peak_rss_bytes
    with pytest.raises(PdfError) as raised:
        pdf_text(read)
    assert raised.value.peak_rss_bytes == read.peak_rss_bytes


def test_parallel_pdf_reads_are_all_answered(tmp_path: Path) -> None:
    for i in range(4):
        (tmp_path / f"d{i}.pdf").write_bytes(text_pdf([f"Document {i}"]))
    reg = default_registry(tmp_path)
    calls = [ToolCall(f"c{i}", "read_file", {"path": f"d{i}.pdf"}) for i in range(4)]
    results = reg.execute_many(calls)
    for i, result in enumerate(results):
        assert result.meta["code"] == "ok", result.content
        assert f"Document {i}" in result.content


def test_a_warm_worker_reads_the_next_pdf(tmp_path: Path) -> None:
    for name in ("a.pdf", "b.pdf"):
        (tmp_path / name).write_bytes(text_pdf([f"In {name}"]))
    ws = Workspace(tmp_path)
    assert ws.read_pdf("a.pdf").pages[0].text.startswith("In a.pdf")
    started = ws._engine.pdf_workers_started
    assert started >= 1
    assert ws.read_pdf("b.pdf").pages[0].text.startswith("In b.pdf")
    assert ws._engine.pdf_workers_started == started


def test_a_pdf_worker_that_cannot_start_costs_the_call_a_sentence(tmp_path: Path) -> None:
    from ripsight import _core

    (tmp_path / "a.pdf").write_bytes(text_pdf(["one"]))
    engine = _core.Engine(str(tmp_path), pdf_worker=["/nonexistent/pdf-worker"])
    read = engine.read_pdf("a.pdf")
    assert (read.failure, read.pages, read.path) == ("unavailable", [], "a.pdf")
    with pytest.raises(PdfError) as raised:
        pdf_text(read)
    assert raised.value.kind == "pdf_crashed"
    assert str(raised.value).startswith(
        "a.pdf was not read: the PDF parser's process could not be started (/nonexistent/"
    )
    with pytest.raises(ValueError, match="first"):
        engine.read_pdf("a.pdf", first=3, last=2)
