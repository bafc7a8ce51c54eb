"""`read_file` on a PDF: its pages' text, the page count, and how to read on.

`read_file` hands a call here for a name ending in ``.pdf`` (any case) and for a file the
engine sniffs as a PDF. The engine reads the bytes (`Workspace.read_bytes`); `ripsight.pdf`
parses them in a child process; this module writes what the model sees.
"""

from __future__ import annotations

from typing import Any

from .. import codes
from ..errors import InvalidArgumentError
from ..names import quote_path
from ..pdf import (
    PDF_MAX_PAGES,
    PDF_MAX_SOURCE_BYTES,
    PageRange,
    PdfText,
    is_pdf_name,
    is_pdf_type,
    parse_pages,
)
from ..types import ToolContext, ToolOutput
from ._common import ENGINE_RESULT_KEY, plural, size_text, thousands, workspace_of

__all__ = [
    "check_pages",
    "format_pdf",
    "is_pdf_name",
    "is_pdf_type",
    "not_a_pdf",
    "pages_property",
    "pdf_description",
    "run_read_pdf",
]

#: Room kept in the result budget for the header and the read-on sentence.
_FRAME_CHARS = 400


def pdf_description() -> str:
    """The sentences of read_file's description about PDFs."""
    return (
        f"A PDF (at most {PDF_MAX_SOURCE_BYTES >> 20} MiB) is read as text, page by page: pass "
        f'`pages` ("3", "1-5", "10-20"; at most {PDF_MAX_PAGES} pages a call); without it the '
        "first pages that fit the result are shown. The header gives the page count, and the "
        "result says which `pages` read on; a page without a text layer (a scanned image) is "
        "marked as such."
    )


def pages_property() -> dict[str, Any]:
    """`pages`: which pages of a PDF to read."""
    return {
        "type": "string",
        "minLength": 1,
        "description": f'PDF files only: one page ("3") or a range ("1-5"), at most '
        f"{PDF_MAX_PAGES} pages a call. Default: the first pages that fit the result.",
    }


def check_pages(args: dict[str, Any]) -> list[str]:
    """`pages` parsed, once, into its `PageRange` in `args` (read_file's `ToolSpec.check`); a
    problem with it as a sentence."""
    pages = args.get("pages")
    if isinstance(pages, str):
        try:
            args["pages"] = parse_pages(pages)
        except InvalidArgumentError as error:
            return [str(error)]
    return []


def not_a_pdf(path: str) -> InvalidArgumentError:
    """The one refusal of `pages` for a file that is not a PDF (by its name or its bytes)."""
    return InvalidArgumentError(
        f"pages applies to PDF files only, and {quote_path(path)} is not one; call read_file "
        "without pages."
    )


def _span(first: int, last: int) -> str:
    return f"page {thousands(first)}" if first == last else f"pages {first:,}-{last:,}"


def _read_on(next_page: int, count: int) -> str:
    last = min(count, next_page + PDF_MAX_PAGES - 1)
    spec = str(next_page) if last == next_page else f"{next_page}-{last}"
    return (
        f'More pages follow: call read_file with pages="{spec}" to read on (at most '
        f"{PDF_MAX_PAGES} pages a call)."
    )


def format_pdf(result: PdfText, requested: PageRange | None = None) -> str:
    """The text a model sees for the pages of a PDF."""
    path = quote_path(result.path)
    count = result.page_count
    about = f"PDF, {plural(count, 'page')}, {size_text(result.size_bytes)}"
    if count == 0:
        return f"{path}: {about}; it has no pages, so there is no text to show."
    if not result.pages:
        first = requested.first if requested else 1
        return (
            f"{path}: {about}. pages starts at {thousands(first)}, past the last page. Call "
            f'read_file with pages from "1" to "{count}".'
        )
    first, last = result.pages[0].number, result.pages[-1].number
    lines = [f"{path}: {about}; {_span(first, last)} shown."]
    if requested is not None and requested.last > count:
        asked = requested.last
        lines.append(f"(pages asked up to {asked:,}; the document ends at page {count:,}.)")
    for page in result.pages:
        lines.append(f"--- page {page.number:,} of {count:,} ---")
        if not page.text.strip():
            lines.append(
                "[no extractable text on this page: it may be a scanned image or a drawing]"
            )
            continue
        lines.append(page.text.rstrip("\n"))
        if page.chars > len(page.text):
            lines.append(f"[... page text cut at {len(page.text):,} of {page.chars:,} characters]")
    if result.next_page is not None:
        lines.append(_read_on(result.next_page, count))
    return "\n".join(lines)


def run_read_pdf(context: ToolContext, args: dict[str, Any]) -> ToolOutput:
    """read_file's answer for a PDF; `pages` is the `PageRange` `check_pages` made of it."""
    pages: PageRange | None = args.get("pages")
    budget = max(context.max_result_chars - _FRAME_CHARS, 1)
    result = workspace_of(context).read_pdf(
        args["path"], pages=pages, budget=budget, cancel=context.cancel
    )
    if not result.pages:
        code = codes.PAST_END if result.page_count else codes.EMPTY_FILE
    elif all(not page.text.strip() for page in result.pages):
        code = codes.NO_TEXT
    else:
        code = codes.OK
    return ToolOutput(format_pdf(result, pages), meta={ENGINE_RESULT_KEY: result}, code=code)
