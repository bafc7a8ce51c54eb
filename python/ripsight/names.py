"""Names are data (SPEC §2.7): file names shown to a model unambiguously, and read back.

    >>> quote_path("src/app.py")
    'src/app.py'
    >>> quote_path("a:12:b.txt")
    '"a:12:b.txt"'
    >>> quote_path("two\\nlines.txt")
    '"two\\\\nlines.txt"'
    >>> unquote_path('"two\\\\nlines.txt"') == "two\\nlines.txt"
    True

A name is shown as it is unless it could be misread: a control or format character (newline,
tab, escape, bidi override ...) or a space other than U+0020 (what `str.isprintable` calls
nonprintable), a ``:`` followed by a digit (``path:line:`` in grep output),
leading or trailing whitespace, a leading double quote, or bytes that are not UTF-8 (which
arrive as lone surrogates, Python's ``surrogateescape``). Such a name is shown in double quotes
with backslash escapes: ``\\n \\t \\r \\" \\\\``, ``\\xNN`` for a control character below
U+0080 and for a raw byte that is not UTF-8 (``\\x80``-``\\xff``), ``\\uNNNN`` for any other
character that needs it. `unquote_path` turns that form back into the name, so a model can pass
what it was shown as ``path``.

`terminal_safe` makes text safe to write to a terminal: control and format characters become
visible escapes (newlines and tabs stay).
"""

from __future__ import annotations

import functools
import re
import unicodedata

__all__ = ["needs_quoting", "quote_path", "terminal_safe", "unquote_path"]

_SIMPLE = {"\n": "\\n", "\t": "\\t", "\r": "\\r", '"': '\\"', "\\": "\\\\"}
_UNSIMPLE = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
_LINE_NUMBER_LIKE = re.compile(r":\d")
_ESCAPE = re.compile(r"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.))", re.DOTALL)


def _is_odd(char: str) -> bool:
    """A character that is invisible, moves the cursor, is a space other than U+0020, or is no
    character at all (a surrogate carrying a raw byte): what `str.isprintable` calls
    nonprintable (categories C* and Z* but the ASCII space), checked in C."""
    return not char.isprintable()


def _is_control(char: str) -> bool:
    """What a terminal could act on: control, format, surrogate and line/paragraph separators."""
    return unicodedata.category(char) in ("Cc", "Cf", "Cs", "Zl", "Zp")


def needs_quoting(name: str) -> bool:
    """Whether `name` must be quoted to be read unambiguously (see the module docstring)."""
    if not name:
        return False
    if not name.isprintable() or name != name.strip() or name.startswith('"'):
        return True
    return _LINE_NUMBER_LIKE.search(name) is not None


def _escape(char: str) -> str:
    simple = _SIMPLE.get(char)
    if simple is not None:
        return simple
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    if not _is_odd(char):
        return char
    if code < 0x80:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


@functools.lru_cache(maxsize=4096)  # a page of grep output repeats the same few paths
def quote_path(name: str) -> str:
    """`name` as a model sees it: unchanged, or quoted with escapes when it could be misread."""
    if not needs_quoting(name):
        return name
    return '"' + "".join(_escape(char) for char in name) + '"'


def _unescape(match: re.Match[str]) -> str:
    byte, short, long, other = match.groups()
    if byte is not None:
        code = int(byte, 16)
        # \x80-\xff stand for raw bytes (surrogateescape); characters there are shown as \u00NN.
        return chr(0xDC00 + code) if code >= 0x80 else chr(code)
    if short is not None or long is not None:
        code = int(short or long, 16)
        if code > 0x10FFFF:
            raise ValueError("escape out of range")
        return chr(code)
    if other in _UNSIMPLE:
        return _UNSIMPLE[other]
    raise ValueError(f"unknown escape \\{other}")


def unquote_path(text: str) -> str:
    """The name a quoted form stands for; any other text is returned as it is.

    Text counts as quoted when it starts and ends with a double quote and everything between is
    valid: inner quotes escaped, escapes known. (A file whose name really starts with a quote is
    itself shown quoted, so it round-trips too.)
    """
    if len(text) < 2 or not (text.startswith('"') and text.endswith('"')):
        return text
    inner = text[1:-1]
    # Every double quote inside must be escaped (preceded by an odd run of backslashes).
    for match in re.finditer(r'(\\*)"', inner):
        if len(match.group(1)) % 2 == 0:
            return text
    try:
        return _ESCAPE.sub(_unescape, inner)
    except ValueError:
        return text


def _terminal_line(line: str) -> str:
    if line.isprintable():  # the common case, checked in C
        return line
    return "".join(
        char if char == "\t" or not _is_control(char) else _escape(char) for char in line
    )


def terminal_safe(text: str) -> str:
    """`text` with every control or format character but newline and tab shown as an escape,
    so writing it to a terminal cannot move the cursor, recolour, retitle or hide anything."""
    return "\n".join(_terminal_line(line) for line in text.split("\n"))
