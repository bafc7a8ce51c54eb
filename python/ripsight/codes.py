"""The stable machine codes of results, with the status and outcome each means: one enumeration
for the registry, the tools and the operation log.

    >>> outcome_of("done", NO_MATCH), error_code(PathNotFoundError("x"))
    ('empty', 'not_found')

Every result carries one in ``ToolResult.meta["code"]``, and the operation log records it. The
codes of the failures the engine raises are the engine's own error kinds (the ``kind`` of each
exception class it defines), read from the engine here rather than written again; the others
belong to the protocol. `CODES` is docs/protocol.md's table of codes, row for row
(tests/test_codes.py holds the two together).
"""

from __future__ import annotations

from typing import Literal

import ripsight._core as _engine

from . import pdf
from .errors import (
    CancelledError,
    DeniedError,
    InvalidArgumentError,
    PathNotFoundError,
    RipsightError,
)

__all__ = [
    "CODES",
    "ENGINE_CODES",
    "OUTCOMES",
    "PDF_CODES",
    "STATUSES",
    "Outcome",
    "Status",
    "error_code",
    "outcome_of",
]

#: Where a call stands in the operation log: running, then one of the others, once.
Status = Literal["running", "done", "contract_error", "denied", "runtime_error", "cancelled"]
#: What a finished call amounts to.
Outcome = Literal["success", "empty", "partial", "failure"]
STATUSES: tuple[Status, ...] = (
    "running",
    "done",
    "contract_error",
    "denied",
    "runtime_error",
    "cancelled",
)
OUTCOMES: tuple[Outcome, ...] = ("success", "empty", "partial", "failure")

# -- the engine's error kinds ------------------------------------------------------------------

#: The code of each failure the engine raises, in the engine's order: the ``kind`` of every
#: exception class it defines.
ENGINE_CODES: tuple[str, ...] = tuple(
    value.kind
    for value in vars(_engine).values()
    if isinstance(value, type) and issubclass(value, RipsightError) and value is not RipsightError
)
NOT_FOUND = PathNotFoundError.kind
DENIED = DeniedError.kind
INVALID_ARGUMENTS = InvalidArgumentError.kind
CANCELLED = CancelledError.kind

# -- the protocol's codes ----------------------------------------------------------------------

# A call that ran and was answered.
OK = "ok"
UNCHANGED = "unchanged"
SAME_AS = "same_as"
NO_MATCH = "no_match"
EMPTY_FILE = "empty_file"
PAST_END = "past_end"
TRUNCATED = "truncated"
TIME_BUDGET = "time_budget"
BINARY = "binary"
TOOL_ERROR = "tool_error"
UNKNOWN_REF = "unknown_ref"
# An image or notebook read_file does not show (the engine's refusals).
TOO_LARGE = "too_large"
TOO_MANY_PIXELS = "too_many_pixels"
UNSUPPORTED_FORMAT = "unsupported_format"
UNDECODABLE = "undecodable"
# A call that broke the protocol's contract: nothing ran.
UNKNOWN_TOOL = "unknown_tool"
MALFORMED_JSON = "malformed_json"
INCOMPLETE_ARGUMENTS = "incomplete_arguments"
INVALID_CALL = "invalid_call"
# The application's policy refused the call, or failed.
POLICY_ERROR = "policy_error"
# The call needed a person's approval and did not get it (declined, no way to ask, no answer in
# time, the asking failed), or the question was put to them and the call is to be made again.
NOT_APPROVED = "not_approved"
APPROVAL_PENDING = "approval_pending"
# The application's hook failed, or the tool did (a bug: not the model's doing).
HOOK_FAILED = "hook_failed"
INTERNAL = "internal"
# read_file on a PDF (ripsight.pdf): pages without a text layer.
NO_TEXT = "no_text"
# outline: a file no outline is made of (no parser, binary, too large, minified), or whose
# parse was stopped (its time cap, a crash of the parser's process, none free).
NO_OUTLINE = "no_outline"
PARSE_FAILED = "parse_failed"
#: The failures of a PDF read: the ``kind`` of each `ripsight.pdf.PdfError` class.
PDF_CODES = pdf.PDF_CODES

#: Every code, by the status of the calls that end with it and the outcome it means. A code of a
#: host tool's own (``ToolOutput(is_error=True, code=...)``) is a ``done`` failure beside them.
CODES: tuple[tuple[Status, Outcome, tuple[str, ...]], ...] = (
    ("done", "success", (OK, UNCHANGED, SAME_AS)),
    ("done", "empty", (NO_MATCH, EMPTY_FILE, PAST_END, NO_TEXT, NO_OUTLINE)),
    ("done", "partial", (TRUNCATED, TIME_BUDGET, BINARY)),
    (
        "done",
        "failure",
        (
            TOOL_ERROR,
            UNKNOWN_REF,
            TOO_LARGE,
            TOO_MANY_PIXELS,
            UNSUPPORTED_FORMAT,
            UNDECODABLE,
            PARSE_FAILED,
        ),
    ),
    (
        "contract_error",
        "failure",
        (UNKNOWN_TOOL, MALFORMED_JSON, INVALID_ARGUMENTS, INCOMPLETE_ARGUMENTS, INVALID_CALL),
    ),
    ("denied", "failure", (DENIED, POLICY_ERROR, NOT_APPROVED, APPROVAL_PENDING)),
    (
        "runtime_error",
        "failure",
        (*(code for code in ENGINE_CODES if code != CANCELLED), HOOK_FAILED, INTERNAL, *PDF_CODES),
    ),
    ("cancelled", "failure", (CANCELLED,)),
)

_OUTCOME_OF_DONE: dict[str, Outcome] = {
    code: outcome for status, outcome, codes in CODES if status == "done" for code in codes
}


def outcome_of(status: str, code: str) -> Outcome:
    """The outcome a finished call's status and code mean: an answered call's code says it,
    any other code of an answered call (a host tool's own) is a failure, as is every other
    status."""
    if status != "done":
        return "failure"
    return _OUTCOME_OF_DONE.get(code, "failure")


def error_code(error: BaseException) -> str:
    """The code of a failure the engine's errors (and the PDF reader's) describe: the ``kind``
    of the error's class (a subclass a host defines inherits it); an error of no known kind is
    `INTERNAL`."""
    kind = getattr(type(error), "kind", None)
    known = isinstance(kind, str) and (kind in ENGINE_CODES or kind in PDF_CODES)
    return kind if known and isinstance(kind, str) else INTERNAL
