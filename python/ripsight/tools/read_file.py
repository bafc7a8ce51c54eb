"""`read_file`: a file's numbered lines (definition, handler, the text the model sees)."""

from __future__ import annotations

import functools
from typing import Any

from .. import codes
from .._core import ImageResult, NotebookImages, NotebookResult, OutlineResult, ReadResult
from ..errors import InvalidArgumentError
from ..limits import DEFAULT_LIMITS, LIMITS, ToolLimits
from ..names import quote_path
from ..pdf import PageRange, PdfText
from ..roots import Roots
from ..session import ReadRecord, ReadState
from ..types import ToolCommand, ToolContext, ToolOutput, ToolResult, ToolSpec, result_schema
from ..workspace import Workspace
from . import media
from ._common import (
    ENGINE_RESULT_KEY,
    MAX_OFFSET,
    check_paths,
    json_text,
    limit_property,
    offset_property,
    plural,
    resolved_maximum,
    size_text,
    thousands,
    unquote_paths,
    workspace_of,
)
from .outline import compact_outline
from .read_pdf import (
    check_pages,
    is_pdf_name,
    is_pdf_type,
    not_a_pdf,
    pages_property,
    pdf_description,
    run_read_pdf,
)

#: The share of the result budget a page that stops before the end gives the file's outline.
READ_OUTLINE_SHARE = float(LIMITS["read_outline_share"])

__all__ = [
    "READ_FILE_DESCRIPTION",
    "READ_FILE_SCHEMA",
    "format_read",
    "read_file_description",
    "read_file_schema",
    "read_file_tool",
]


def read_file_description(limits: ToolLimits = DEFAULT_LIMITS) -> str:
    """The model-facing description of `read_file` under these limits: the text files'
    paragraph, then what it returns for each other kind of file."""
    kinds = [
        media.media_sentences(limits),
        pdf_description(),
    ]
    return f"""\
Read a text file's lines, numbered like `cat -n` (line number, tab, text). Use it after glob or \
grep to see code in context.

Reads `limit` lines (default {limits.read_limit}) starting at line `offset` (1-based, default \
1); the header states the range and the file's total line count, and when more follows the \
result says which `offset` reads on. A default read (from line 1, `limit` unset) that stops \
before the end of a source file also shows the file's outline (its classes, functions... with \
their lines: read on at the one you need); after any other range one line says how many \
definitions the outline holds; outline=false leaves both out, outline=true always shows the \
outline. Lines over {limits.read_line_chars} characters are cut, \
saying how long they were. Binary files are not dumped (the result gives size and type). The \
header names the encoding and line-ending style when they are not plain UTF-8 with LF. Paths \
are relative to the workspace root (absolute paths inside it work too); files outside the root \
or covered by the secrets policy cannot be read. To read a large file, read a range around the \
line grep found.

{" ".join(kinds)}"""


def read_file_schema(limits: ToolLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """JSON Schema of `read_file`'s arguments under these limits."""
    return {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "Path of the file to read, relative to the workspace root, e.g. "
                '"src/app.py".',
            },
            "offset": offset_property(
                1, "1-based number of the first line to read (of a notebook: the first cell)."
            ),
            "limit": limit_property(
                limits.read_limit,
                resolved_maximum(limits.read_max_limit),
                "Maximum number of lines to read (of a notebook: cells, default "
                f"{limits.notebook_limit}, at most {limits.notebook_max_limit})",
            ),
            "cell": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_OFFSET,
                "description": "Jupyter notebooks only: the 1-based number of a cell whose "
                "image outputs to show (the cell listing names them). Default: none (the cells "
                "are listed).",
            },
            "pages": pages_property(),
            "outline": {
                "type": "boolean",
                "description": "After a page that stops before the end of a source file: true "
                "shows the file's outline (its definitions with their lines), false nothing of "
                "it. Default: the outline after a read from line 1 of the default length, one "
                "line saying how to list it after any other range.",
            },
        },
        "required": ["path"],
        "additionalProperties": False,
    }


#: The definition under the SPEC section 5 defaults.
READ_FILE_DESCRIPTION = read_file_description()
READ_FILE_SCHEMA: dict[str, Any] = read_file_schema()


_ENCODING_NAMES = {
    "utf-8-bom": "UTF-8 with BOM",
    "utf-16le": "UTF-16LE (with BOM)",
    "utf-16be": "UTF-16BE (with BOM)",
    "utf-8-lossy": "not valid UTF-8; invalid bytes are shown as U+FFFD",
}


def format_read(result: ReadResult) -> str:
    """The text a model sees for a `Workspace.read_file` result."""
    path = quote_path(result.path)
    if result.kind == "empty":
        return f"{path} is empty (0 bytes)."
    if result.kind == "binary":
        kind = f"{result.binary_type}, " if result.binary_type else ""
        return (
            f"{path} is a binary file ({kind}{size_text(result.size_bytes)}); its content is not "
            "shown. Use grep or glob to find related text files."
        )
    about = "about " if result.total_lines_estimated else ""
    estimated = " (estimated from the file size)" if result.total_lines_estimated else ""
    total = f"{about}{plural(result.total_lines, 'line')}"
    if not result.lines:
        return (
            f"{path}: offset {result.offset} is past the end: the file has {total}{estimated}. "
            f"Call read_file with an offset from 1 to {thousands(result.total_lines)}."
        )
    first = result.lines[0].number
    last = result.lines[-1].number
    span = (
        f"line {thousands(first)}"
        if first == last
        else f"lines {thousands(first)}-{thousands(last)}"
    )
    lines = [f"{path}: {span} of {about}{thousands(result.total_lines)}{estimated}."]
    details: list[str] = []
    if result.encoding not in ("utf-8", "", None):
        details.append(f"Encoding: {_ENCODING_NAMES.get(result.encoding, result.encoding)}.")
    if result.line_ending in ("CRLF", "CR"):
        details.append(f"Line endings: {result.line_ending}.")
    elif result.line_ending == "mixed":
        details.append("Line endings: mixed (LF and CRLF).")
    if details:
        lines.append(" ".join(details))
    withheld = set(result.withheld_key_lines)
    if withheld:
        lines.append(
            f"{_runs_text(sorted(withheld))} {'is' if len(withheld) == 1 else 'are'} withheld: "
            "they hold a private key, which the secrets policy never shows."
        )
    width = max(6, len(str(last)))
    for line in result.lines:
        if line.number in withheld:
            continue
        text = line.text
        if line.cut_from is not None:
            text += f" [... line cut at {thousands(len(line.text))} of {thousands(line.cut_from)} characters]"
        lines.append(f"{line.number:>{width}}\t{text}")
    if result.next_offset is not None:
        lines.append(
            f"More lines follow: call read_file with offset={result.next_offset} to read on."
        )
    return "\n".join(lines)


def _runs_text(numbers: list[int]) -> str:
    """ "Line 4", "Lines 2-5" or "Lines 2-5 and 9-12" for ascending line numbers."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and runs[-1][1] + 1 == number:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    parts = [thousands(a) if a == b else f"{thousands(a)}-{thousands(b)}" for a, b in runs]
    word = "Line" if len(numbers) == 1 else "Lines"
    return f"{word} {', '.join(parts[:-1]) + ' and ' if len(parts) > 1 else ''}{parts[-1]}"


def _already_shown(path: str, first: int, last: int, earlier: ReadRecord) -> ToolOutput:
    return ToolOutput(
        f"Already shown: {quote_path(path)} lines {thousands(first)}-{thousands(last)} are part "
        f"of the result of your earlier read_file call (id {earlier.call_id}), and the file has "
        "not changed since, so the text is not repeated. Use that result, or call read_file "
        "with another offset to see other lines.",
        meta={"read_state": "unchanged", "earlier_call_id": earlier.call_id},
        code=codes.UNCHANGED,
    )


def run_read_file(
    context: ToolContext, args: dict[str, Any], limits: ToolLimits = DEFAULT_LIMITS
) -> ToolOutput:
    """Handler of `read_file`; lines are cut to `limits.read_line_chars`.

    A range this session already delivered, of a file unchanged since, is answered with a short
    notice naming the earlier call instead of the text. When the engine can identify a file
    without reading it (`Workspace.identify`), an unchanged identity answers before any read;
    otherwise the read runs and its size, line count and lines are compared.
    """
    check_paths(args)
    workspace = workspace_of(context)
    path, offset, limit = args["path"], args["offset"], args["limit"]
    shown = _read_by_kind(context, workspace, args, limits)
    if shown is not None:
        return shown
    outline = _outline_mode(args, limits)
    return _run_text(context, workspace, path, offset, limit, limits, args.get("pages"), outline)


def _outline_mode(args: dict[str, Any], limits: ToolLimits) -> str:
    """What a page that stops before the end shows of the file's outline: "full" (asked for,
    or a default read: the file's first section and its outline), "pointer" (one line, after
    an explicit range) or "none" (outline=false)."""
    asked = args.get("outline")
    if asked is not None:
        return "full" if asked else "none"
    default_read = args["offset"] == 1 and args["limit"] == limits.read_limit
    return "full" if default_read else "pointer"


def _read_by_kind(
    context: ToolContext, workspace: Workspace | Roots, args: dict[str, Any], limits: ToolLimits
) -> ToolOutput | None:
    """The answer of the reader `read_kind` picks for the path, or None for a plain read (the
    path's kind is "text", or its bytes are not of the kind its name says, or `pages` asks for
    a PDF's pages of a file not named as one: the plain read's sniff decides)."""
    path, cancel, cell = args["path"], context.cancel, args.get("cell")
    kind = read_kind(path)
    if cell is not None and kind != "notebook":
        raise InvalidArgumentError(
            f"cell applies to Jupyter notebooks (.ipynb) only, and {quote_path(path)} is not "
            "one; call read_file without cell."
        )
    if args.get("pages") is not None and kind != "pdf":
        return None
    if kind == "image":
        shown = media.run_image(workspace, path, limits, cancel)
        return None if shown.meta.get("refused") == "unsupported" else shown
    if kind == "notebook":
        if cell is not None:
            return media.run_notebook_images(workspace, path, cell, limits, cancel)
        offset, limit = args["offset"], args["limit"]
        shown = media.run_notebook(workspace, path, offset, limit, limits, cancel)
        if shown.meta.get("refused") != "undecodable":
            return shown
        # Not a notebook after all: its lines, under the parser's word.
        text = _run_text(context, workspace, path, offset, limit, limits)
        return ToolOutput(
            f"{quote_path(path)} is not a valid notebook ({shown.meta.get('detail')}); its "
            f"text follows.\n{text.text}",
            meta=text.meta,
            code=text.code,
            on_delivered=text.on_delivered,
        )
    # ---- PDFs (issue 18): by name before the engine reads; by what it sniffed after (in
    # `_run_text`) ----
    if kind == "pdf":
        return run_read_pdf(context, args)
    return None


def read_kind(path: str) -> str:
    """Which reader `read_file` hands `path` to, by its name's ending (any case): "image"
    (.png .jpg .jpeg .gif .webp), "notebook" (.ipynb), "pdf" (.pdf) or "text" (everything
    else, which an image or a PDF the engine sniffs as one still leaves for its reader)."""
    name = path.lower()
    if name.endswith(media.IMAGE_EXTENSIONS):
        return "image"
    if name.endswith(media.NOTEBOOK_EXTENSIONS):
        return "notebook"
    if is_pdf_name(path):
        return "pdf"
    return "text"


def _run_text(
    context: ToolContext,
    workspace: Workspace | Roots,
    path: str,
    offset: int,
    limit: int,
    limits: ToolLimits,
    pages: PageRange | None = None,
    outline: str = "full",
) -> ToolOutput:
    """A plain read of `path`'s lines (an image or a PDF sniffed from its bytes goes to its
    reader; `pages` is refused, here only, for any file that is not a PDF); `outline`: see
    `_outline_mode`."""
    reads = context.session.reads
    identify = getattr(workspace, "identify", None)
    if identify is not None and pages is None:  # with pages, the read must sniff the bytes
        try:
            seen = identify(path, cancel=context.cancel)
        except Exception:  # noqa: BLE001 - the read below reports the error as it should
            seen = None
        earlier = reads.lookup_identity(seen, offset, limit) if seen is not None else None
        if earlier is not None:
            return _already_shown(
                path, offset, min(offset + limit - 1, earlier.total_lines), earlier
            )
    result = workspace.read_file(
        path,
        offset=offset,
        limit=limit,
        max_line_chars=limits.read_line_chars,
        cancel=context.cancel,
    )
    if result.kind == "binary" and is_pdf_type(result.binary_type):
        return run_read_pdf(context, {"path": path, "pages": pages})
    if pages is not None:
        raise not_a_pdf(result.path)
    # ---- end of PDFs ----
    outline_text: str | None = None
    if result.kind == "text" and result.next_offset is not None and outline != "none":
        if outline == "full":
            result, outline_text = _with_outline(context, workspace, result, limits)
        else:
            outline_text = _outline_pointer(context, workspace, result, limits)
    earlier = reads.lookup(result)
    if earlier is not None:
        return _already_shown(path, result.lines[0].number, result.lines[-1].number, earlier)
    record = ReadState.record_for(context.call_id, result)

    def delivered(answer: ToolResult) -> None:
        # Only a read the model saw whole counts as shown.
        if record is not None and not answer.meta.get("truncated"):
            reads.record(result, record)

    if result.kind == "binary" and (result.binary_type or "").startswith(media.IMAGE_TYPES):
        # Named otherwise, a file that only looks like an image stays a binary file.
        shown = media.run_image(workspace, path, limits, context.cancel)
        if shown.meta.get("refused") not in ("unsupported", "undecodable"):
            return shown
    if result.kind == "empty":
        code = codes.EMPTY_FILE
    elif result.kind == "binary":
        code = codes.BINARY
    elif not result.lines:
        code = codes.PAST_END
    else:
        code = codes.OK
    text = format_read(result)
    meta: dict[str, Any] = {ENGINE_RESULT_KEY: result}
    if outline_text is not None:
        text += "\n" + outline_text
        meta["outline"] = True
    return ToolOutput(text, meta=meta, on_delivered=delivered, code=code)


def _outline_of(
    context: ToolContext, workspace: Workspace | Roots, path: str, limits: ToolLimits
) -> OutlineResult | None:
    try:
        return workspace.outline(path, limit=limits.outline_max_limit, cancel=context.cancel)
    except Exception:  # noqa: BLE001 - the page stands without an outline
        return None


def _outline_pointer(
    context: ToolContext, workspace: Workspace | Roots, result: ReadResult, limits: ToolLimits
) -> str | None:
    """The one line a page of an explicit range gets instead of the outline."""
    outline = _outline_of(context, workspace, result.path, limits)
    if outline is None or outline.refused is not None or not outline.total:
        return None
    lines = "its line" if outline.total == 1 else "their lines"
    return (
        f"Outline: {plural(outline.total, 'definition')} (call outline with "
        f"path={json_text(result.path)} for {lines})."
    )


def _with_outline(
    context: ToolContext, workspace: Workspace | Roots, result: ReadResult, limits: ToolLimits
) -> tuple[ReadResult, str | None]:
    """A page that stops before the end of a file, with the file's compact outline: the
    outline gets at most `READ_OUTLINE_SHARE` of the result budget, and when the page's text
    and the outline together would overrun the budget, the page is read again shorter (its
    first lines: a deterministic first section, never cut in the middle). A file without an
    outline (no parser, too large...) keeps its page as it was."""
    budget = context.max_result_chars
    outline = _outline_of(context, workspace, result.path, limits)
    if outline is None:
        return result, None
    text = compact_outline(outline, int(budget * READ_OUTLINE_SHARE))
    if text is None:
        return result, None
    room = budget - len(text) - 1
    page = format_read(result)
    if len(page) <= room:
        return result, text
    # The lines that fit: each costs its text, its number and a tab; the header and the "more
    # lines follow" sentence are kept out of the room first.
    overhead = len(page) - sum(len(line.text) + 8 for line in result.lines)
    used, fit = 0, 0
    for line in result.lines:
        cost = len(line.text) + 8 + (60 if line.cut_from is not None else 0)
        if used + cost > room - overhead:
            break
        used += cost
        fit += 1
    if fit == 0:
        return result, None
    shorter = workspace.read_file(
        result.path,
        offset=result.offset,
        limit=fit,
        max_line_chars=limits.read_line_chars,
        cancel=context.cancel,
    )
    if shorter.kind != "text" or not shorter.lines:
        return result, None
    return shorter, text


def read_file_tool(limits: ToolLimits = DEFAULT_LIMITS) -> ToolSpec:
    """`read_file`, its definition and line cap generated from `limits`."""
    # A text file's lines, an image (its bytes are in the image part, not here), a page of
    # notebook cells, a notebook cell's images, or a PDF's pages.
    results = (ReadResult, ImageResult, NotebookResult, NotebookImages, PdfText)
    schema = result_schema(results)
    assert schema is not None
    text = schema["anyOf"][0]["properties"]["lines"]["items"]["properties"]["text"]
    text["description"] = (
        f"The line without its terminator, cut to {limits.read_line_chars} characters."
    )
    return ToolSpec(
        name="read_file",
        description=read_file_description(limits),
        parameters=read_file_schema(limits),
        handler=functools.partial(run_read_file, limits=limits),
        title="Read a file",
        prepare=unquote_paths,
        check=check_pages,
        results=results,
        output_schema=schema,
        paging={"lines": "number", "cells": "number", "pages": "page"},
        command=ToolCommand(
            name="read",
            help="read a file's numbered lines",
            description="Read a text file's lines, numbered like cat -n, and print what a "
            "model would see (the read_file tool).",
            epilog="exit status: 0 file read (also: empty, binary, offset past the end, each "
            "said in the text), 2 usage or input error such as a missing file or a path "
            "outside the root (one line on stderr)",
            positionals=("path",),
            limit_flags=("--read-limit", "--read-line-chars"),
        ),
    )


#: This module's tool (`ripsight.tools.builtin_tools` finds the built-in tools by this name).
TOOL = read_file_tool
