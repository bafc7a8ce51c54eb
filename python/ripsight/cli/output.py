"""What the command line writes, and how it ends: exit codes, text made safe for a terminal,
JSON that keeps non-UTF-8 names, and one-line errors on stderr."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

import orjson

from ..names import terminal_safe

__all__ = ["EXIT_ERROR", "EXIT_NO_MATCH", "EXIT_OK", "fail", "json_text", "one_line", "write_text"]

#: Exit codes of the tool commands: 0 results, 1 no match (grep, glob, defs), 2 usage or input
#: error with one line on stderr.
EXIT_OK, EXIT_NO_MATCH, EXIT_ERROR = 0, 1, 2


def one_line(text: str) -> str:
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def write_text(stream: TextIO, text: str) -> None:
    """Writes text the tools produced: on a terminal with every control character escaped
    (names and file contents can hold escape sequences); elsewhere as is, the bytes of
    non-UTF-8 names (surrogateescape) restored."""
    if _isatty(stream):
        stream.write(terminal_safe(text))
        return
    try:
        stream.write(text)
    except UnicodeEncodeError:
        buffer = getattr(stream, "buffer", None)
        if buffer is None:
            stream.write(terminal_safe(text))
            return
        stream.flush()
        buffer.write(text.encode(getattr(stream, "encoding", None) or "utf-8", "surrogateescape"))


def json_text(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        # A non-UTF-8 name (a lone surrogate) is no valid UTF-8 for orjson; the stdlib writes it
        # as a \udcXX escape, which json.loads turns back into the same str (and os.fsencode
        # into the same bytes).
        return json.dumps(value, ensure_ascii=True, separators=(",", ":"))


def fail(command: str, message: str) -> int:
    write_text(sys.stderr, f"ripsight {command}: {one_line(message)}\n")
    return EXIT_ERROR
