"""Type stubs of the Rust extension `ripsight._core` (hand-maintained; tests/test_stub.py checks names)."""

from typing import final

__version__: str
DEFAULT_EXCLUDE_DIRS: list[str]
DEFAULT_DENY_GLOBS: list[str]
# The default limits (SPEC section 5); `ripsight.limits.ToolLimits` takes its defaults from these.
DEFAULT_GLOB_LIMIT: int
DEFAULT_GREP_LIMIT: int
DEFAULT_GREP_LINE_CHARS: int
DEFAULT_READ_LIMIT: int
DEFAULT_READ_LINE_CHARS: int
DEFAULT_MAX_RESULT_CHARS: int
DEFAULT_HEAD_RATIO: float
MIN_LINE_CHARS: int

@final
class SkipCounts:
    """What a walk or search passed over, by reason."""

    @property
    def ignored(self) -> int:
        """Skip-set directories pruned (each once); files hidden by ignore files are not counted."""
    @property
    def binary(self) -> int: ...
    @property
    def denied(self) -> int: ...
    @property
    def unreadable(self) -> int: ...
    @property
    def special(self) -> int: ...
    @property
    def too_large(self) -> int: ...
    @property
    def outside_root(self) -> int:
        """Requested paths (or links in them) leading outside the root."""
    @property
    def symlink(self) -> int:
        """Symlinks met by a walk: never followed (pass one as `path` to look inside)."""

@final
class GlobResult:
    @property
    def pattern(self) -> str: ...
    @property
    def paths(self) -> list[str]:
        """This page of matching files, relative to the root, `/`-separated."""
    @property
    def total(self) -> int:
        """Exact number of matching files across all pages."""
    @property
    def offset(self) -> int: ...
    @property
    def withheld(self) -> int:
        """Matching files after this page; the next page starts at `offset + len(paths)`."""
    @property
    def files_in_scope(self) -> int | None:
        """Files the searched directory holds, counted when nothing matched."""
    @property
    def anywhere_pattern(self) -> str | None:
        """For a slash-free pattern that found little: the `**/` form that would find more."""
    @property
    def anywhere_total(self) -> int | None: ...
    @property
    def searched(self) -> str:
        """The searched directory relative to the root ("" for the root)."""
    @property
    def skipped(self) -> SkipCounts: ...
    @property
    def incomplete(self) -> bool:
        """True when the time budget ran out: totals cover only what was walked."""
    @property
    def elapsed_ms(self) -> float: ...

@final
class GrepLine:
    @property
    def path(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def text(self) -> str:
        """The line without its terminator, cut to `max_line_chars` (default 120; a window around
        a late match)."""
    @property
    def is_match(self) -> bool:
        """False for a context line."""
    @property
    def cut(self) -> bool: ...

@final
class FileCount:
    @property
    def path(self) -> str: ...
    @property
    def count(self) -> int: ...

@final
class GrepResult:
    @property
    def pattern(self) -> str: ...
    @property
    def output_mode(self) -> str: ...
    @property
    def lines(self) -> list[GrepLine]:
        """Content mode: this page's matches with context lines, by path then line."""
    @property
    def matches(self) -> list[GrepLine]:
        """The matching lines of `lines` (context left out)."""
    @property
    def files(self) -> list[FileCount]:
        """files_with_matches and count modes: this page of files."""
    @property
    def total_matches(self) -> int:
        """Exact number of matching lines."""
    @property
    def total_files(self) -> int:
        """Exact number of files with a match."""
    @property
    def offset(self) -> int: ...
    @property
    def withheld(self) -> int:
        """Entries (matches, or files in the file modes) after this page."""
    @property
    def files_searched(self) -> int: ...
    @property
    def skipped(self) -> SkipCounts: ...
    @property
    def incomplete(self) -> bool: ...
    @property
    def elapsed_ms(self) -> float: ...

@final
class ReadLine:
    @property
    def number(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def cut_from(self) -> int | None:
        """The line's full length in characters when it was cut to `max_line_chars` (default
        500)."""

@final
class ReadResult:
    @property
    def path(self) -> str: ...
    @property
    def kind(self) -> str:
        """"text", "empty" or "binary"."""
    @property
    def binary_type(self) -> str | None: ...
    @property
    def size_bytes(self) -> int: ...
    @property
    def lines(self) -> list[ReadLine]: ...
    @property
    def offset(self) -> int: ...
    @property
    def total_lines(self) -> int:
        """Line terminators, plus one when text follows the last; exact up to 1 GiB."""
    @property
    def total_lines_estimated(self) -> bool:
        """True above 1 GiB when the read stopped before the end: `total_lines` is extrapolated."""
    @property
    def next_offset(self) -> int | None:
        """The `offset` that reads on, when more lines follow the shown ones."""
    @property
    def encoding(self) -> str:
        """"utf-8", "utf-8-bom", "utf-16le", "utf-16be", "utf-8-lossy" (invalid bytes shown as
        U+FFFD) or "binary". Describes the whole file unless `total_lines_estimated`, then the
        bytes read (the start of the file through the shown lines)."""
    @property
    def line_ending(self) -> str:
        """"LF", "CRLF", "mixed", "CR" or "none"; same coverage as `encoding`."""
    @property
    def dev(self) -> int:
        """Device of the file that was read (`fstat` of the engine's descriptor)."""
    @property
    def inode(self) -> int: ...
    @property
    def mtime_ns(self) -> int: ...

@final
class FileIdentity:
    """What `Engine.identify` found: the opened file's identity and real path (from the root)."""

    @property
    def path(self) -> str: ...
    @property
    def dev(self) -> int: ...
    @property
    def inode(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def mtime_ns(self) -> int: ...

@final
class Engine:
    def __init__(
        self,
        root: str,
        /,
        *,
        exclude_dirs: list[str],
        deny: list[str],
        time_budget: float,
        threads: int,
        respect_ignore_files: bool,
    ) -> None: ...
    @property
    def root(self) -> str: ...
    def glob(
        self, pattern: str, /, *, path: str | None, limit: int | None, offset: int, sort: str
    ) -> GlobResult: ...
    def grep(
        self,
        pattern: str,
        /,
        *,
        path: str | None,
        glob: str | None,
        literal: bool,
        case_insensitive: bool,
        context: int,
        multiline: bool,
        output_mode: str,
        limit: int | None,
        offset: int,
        max_line_chars: int = 120,
    ) -> GrepResult:
        """`max_line_chars` below `MIN_LINE_CHARS` raises InvalidArgumentError."""
    def identify(self, path: str, /) -> FileIdentity:
        """Opens `path` as `read_file` would and returns the file's identity, reading nothing."""
    def read_file(
        self, path: str, /, *, offset: int, limit: int, max_line_chars: int = 500
    ) -> ReadResult:
        """`max_line_chars` below `MIN_LINE_CHARS` raises InvalidArgumentError."""

def truncate_middle(
    text: str, /, max_chars: int = 8000, head_ratio: float = 0.6
) -> tuple[str, int, int]:
    """Returns (text, characters cut, characters in the original)."""
