"""Type stubs of the Rust extension `ripsight._core`; `python -m mypy.stubtest ripsight._core`
checks them against the built module (tests/test_stub.py runs it).

The result classes are the engine's own structs (declared once, in Rust). Each has its fields
as read-only properties, ``FIELDS`` (their names in order), ``SCHEMA`` (the JSON Schema of
``to_dict()``, descriptions included), equality and a repr.
"""

import concurrent.futures
from typing import Any, ClassVar, final

__all__ = [
    "DEFAULT_DENY_GLOBS",
    "DEFAULT_EXCLUDE_DIRS",
    "FILE_TYPES",
    "LIMITS",
    "OUTLINE_LANGUAGES",
    "REFERENCE_GROUPINGS",
    "REFERENCE_ROLES",
    "SYMBOL_KINDS",
    "Caller",
    "CancelToken",
    "CancelledError",
    "CellOutput",
    "Definition",
    "DefinitionsResult",
    "DeniedError",
    "Engine",
    "EngineError",
    "FileBytes",
    "FileCount",
    "FileIdentity",
    "GlobResult",
    "GrepLine",
    "GrepResult",
    "IgnoreRule",
    "ImageResult",
    "IndexStatus",
    "InvalidArgumentError",
    "IsADirectoryPathError",
    "NotADirectoryPathError",
    "NotebookCell",
    "NotebookImage",
    "NotebookImages",
    "NotebookResult",
    "OutlineResult",
    "OutlineSymbol",
    "OutsideRootError",
    "PathNotFoundError",
    "PatternError",
    "ReadLine",
    "ReadResult",
    "Reference",
    "ReferencesResult",
    "RipsightError",
    "RoleTotals",
    "SkipCounts",
    "SpecialFileError",
    "UnparsedFile",
    "UnreadableError",
    "__version__",
    "serve_outline_worker",
    "truncate_middle",
]
__version__: str
DEFAULT_EXCLUDE_DIRS: list[str]
DEFAULT_DENY_GLOBS: list[str]
#: Every default and bound of the tools' parameters, by name (SPEC section 5).
LIMITS: dict[str, int | float]
#: The kinds of definitions an outline names (class, function, method, ...).
SYMBOL_KINDS: list[str]
#: The roles of a reference (call, import, type, write, read, other).
REFERENCE_ROLES: list[str]
#: How a references result lists what it found (reference, caller).
REFERENCE_GROUPINGS: list[str]
#: The languages with a parser (python, javascript, ...).
OUTLINE_LANGUAGES: list[str]
#: ripgrep's built-in file types (grep's and glob's ``type``): name -> the globs of its files.
FILE_TYPES: dict[str, list[str]]

# ==== Results ====

@final
class SkipCounts:
    """What a walk or search passed over, by reason."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def ignored(self) -> int: ...
    @property
    def ignored_by_rules(self) -> int:
        """Files and directories hidden by ignore files (a directory counted once)."""
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
    def line_too_long(self) -> int: ...
    @property
    def outside_root(self) -> int: ...
    @property
    def symlink(self) -> int: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class IgnoreRule:
    """One rule of an ignore file, and how many files and directories it hid."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def file(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def rule(self) -> str: ...
    @property
    def hidden(self) -> int: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class GlobResult:
    """What a glob found."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def pattern(self) -> str: ...
    @property
    def more_patterns(self) -> list[str]: ...
    @property
    def paths(self) -> list[str]: ...
    @property
    def total(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def withheld(self) -> int: ...
    @property
    def next_offset(self) -> int | None: ...
    @property
    def files_in_scope(self) -> int | None: ...
    @property
    def anywhere_pattern(self) -> str | None: ...
    @property
    def anywhere_total(self) -> int | None: ...
    @property
    def searched(self) -> str: ...
    @property
    def skipped(self) -> SkipCounts: ...
    @property
    def hidden_by(self) -> list[IgnoreRule]: ...
    @property
    def path_ignored_by(self) -> IgnoreRule | None: ...
    @property
    def incomplete(self) -> bool: ...
    @property
    def elapsed_ms(self) -> float: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class GrepLine:
    """One shown line of a grep result; ``str()`` gives ``path:line:text``."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def is_match(self) -> bool: ...
    @property
    def cut(self) -> bool: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class FileCount:
    """A file and its number of matching lines."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str: ...
    @property
    def count(self) -> int: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class GrepResult:
    """What a search found."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def pattern(self) -> str: ...
    @property
    def output_mode(self) -> str:
        """ "content", "files_with_matches", "count" or "files_without_match"."""
    @property
    def lines(self) -> list[GrepLine]: ...
    @property
    def matches(self) -> list[GrepLine]:
        """The matching lines of the page (context lines left out)."""
    @property
    def files(self) -> list[FileCount]: ...
    @property
    def total_matches(self) -> int: ...
    @property
    def total_files(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def withheld(self) -> int: ...
    @property
    def next_offset(self) -> int | None: ...
    @property
    def files_searched(self) -> int: ...
    @property
    def skipped(self) -> SkipCounts: ...
    @property
    def hidden_by(self) -> list[IgnoreRule]: ...
    @property
    def path_ignored_by(self) -> IgnoreRule | None: ...
    @property
    def withheld_key_blocks(self) -> int: ...
    @property
    def withheld_key_lines(self) -> int: ...
    @property
    def incomplete(self) -> bool: ...
    @property
    def elapsed_ms(self) -> float: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class ReadLine:
    """One shown line of a read."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def number(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def cut_from(self) -> int | None: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class ReadResult:
    """What a read returned."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str: ...
    @property
    def kind(self) -> str:
        """ "text", "empty" or "binary"."""
    @property
    def binary_type(self) -> str | None: ...
    @property
    def size_bytes(self) -> int: ...
    @property
    def dev(self) -> int: ...
    @property
    def inode(self) -> int: ...
    @property
    def mtime_ns(self) -> int: ...
    @property
    def lines(self) -> list[ReadLine]: ...
    @property
    def offset(self) -> int: ...
    @property
    def total_lines(self) -> int: ...
    @property
    def total_lines_estimated(self) -> bool: ...
    @property
    def next_offset(self) -> int | None: ...
    @property
    def encoding(self) -> str: ...
    @property
    def line_ending(self) -> str: ...
    @property
    def withheld_key_lines(self) -> list[int]: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class FileIdentity:
    """What `Engine.identify` found: the opened file's identity and real path (from the root)."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
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
    def to_dict(self) -> dict[str, Any]: ...

@final
class FileBytes:
    """What `Engine.read_bytes` read: a whole file's bytes and the opened file's identity."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str: ...
    @property
    def size_bytes(self) -> int: ...
    @property
    def dev(self) -> int: ...
    @property
    def inode(self) -> int: ...
    @property
    def mtime_ns(self) -> int: ...
    @property
    def max_bytes(self) -> int: ...
    @property
    def too_large(self) -> bool: ...
    @property
    def media_type(self) -> str | None: ...
    @property
    def data(self) -> bytes: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class IndexStatus:
    """What `Engine.index_status` reports about the warm index (SPEC section 2.8)."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def state(self) -> str:
        """ "building", "ready", "fallback" or "closed"."""
    @property
    def files(self) -> int: ...
    @property
    def bytes(self) -> int: ...
    @property
    def index_bytes(self) -> int: ...
    @property
    def index_path(self) -> str | None: ...
    @property
    def indexed_files(self) -> int: ...
    @property
    def unindexed_files(self) -> int: ...
    @property
    def mode(self) -> str:
        """ "watch" (a file watcher's events) or "recheck" (every call re-checks the tree)."""
    @property
    def recheck_reason(self) -> str | None: ...
    @property
    def watched_dirs(self) -> int: ...
    @property
    def watched_files(self) -> int: ...
    @property
    def rechecked_files(self) -> int: ...
    @property
    def fallback(self) -> str | None: ...
    @property
    def build_ms(self) -> float | None: ...
    @property
    def rescans(self) -> int: ...
    @property
    def loaded(self) -> bool: ...
    @property
    def merges(self) -> int: ...
    @property
    def adoptions(self) -> int: ...
    @property
    def warm_calls(self) -> int: ...
    @property
    def cold_calls(self) -> int: ...
    def to_dict(self) -> dict[str, Any]: ...

# ==== Errors: each is a RipsightError and the built-in that fits ====

# ---- images and notebooks (rust_core/src/media) ----

@final
class ImageResult:
    """An image as it is shown, or why it is not (`refused`, `detail`)."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str: ...
    @property
    def media_type(self) -> str: ...
    @property
    def source_media_type(self) -> str: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def shown_width(self) -> int: ...
    @property
    def shown_height(self) -> int: ...
    @property
    def data(self) -> bytes:
        """The shown image's encoded bytes (left out of `to_dict()`)."""
    @property
    def byte_size(self) -> int: ...
    @property
    def source_bytes(self) -> int: ...
    @property
    def downscaled(self) -> bool: ...
    @property
    def reencoded(self) -> bool: ...
    @property
    def refused(self) -> str | None:
        """ "too_large", "too_many_pixels", "unsupported", "undecodable", "cannot_fit",
        "no_such_cell", or None when the image is shown."""
    @property
    def detail(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class NotebookImage:
    """An image a notebook output holds."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def media_type(self) -> str: ...
    @property
    def size_bytes(self) -> int: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class CellOutput:
    """One output of a code cell."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def output_type(self) -> str:
        """ "stream", "execute_result", "display_data", "error" or "other"."""
    @property
    def name(self) -> str | None: ...
    @property
    def text(self) -> str: ...
    @property
    def cut_from(self) -> int | None: ...
    @property
    def images(self) -> list[NotebookImage]: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class NotebookCell:
    """One notebook cell."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def number(self) -> int: ...
    @property
    def kind(self) -> str:
        """ "code", "markdown" or "raw"."""
    @property
    def id(self) -> str | None: ...
    @property
    def execution_count(self) -> int | None: ...
    @property
    def source(self) -> str: ...
    @property
    def outputs(self) -> list[CellOutput]: ...
    @property
    def outputs_withheld(self) -> int: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class NotebookResult:
    """A page of a notebook's cells, or why none are shown (`refused`, `detail`)."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str: ...
    @property
    def size_bytes(self) -> int: ...
    @property
    def nbformat(self) -> int: ...
    @property
    def nbformat_minor(self) -> int: ...
    @property
    def language(self) -> str | None: ...
    @property
    def total_cells(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def next_offset(self) -> int | None: ...
    @property
    def cells(self) -> list[NotebookCell]: ...
    @property
    def refused(self) -> str | None: ...
    @property
    def detail(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class NotebookImages:
    """The images of one notebook cell, each prepared as `Engine.read_image` prepares a file."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str: ...
    @property
    def cell(self) -> int: ...
    @property
    def total_cells(self) -> int: ...
    @property
    def images(self) -> list[ImageResult]: ...
    @property
    def refused(self) -> str | None: ...
    @property
    def detail(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...

# ---- end of images and notebooks ----

@final
class OutlineSymbol:
    """One definition of an outline."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def kind(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def end_line(self) -> int: ...
    @property
    def depth(self) -> int: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class OutlineResult:
    """What `Engine.outline` returns: one page of a file's definitions, or why it has none."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str: ...
    @property
    def language(self) -> str | None: ...
    @property
    def size_bytes(self) -> int: ...
    @property
    def symbols(self) -> list[OutlineSymbol]: ...
    @property
    def offset(self) -> int: ...
    @property
    def total(self) -> int: ...
    @property
    def withheld(self) -> int: ...
    @property
    def next_offset(self) -> int | None: ...
    @property
    def refused(self) -> str | None: ...
    @property
    def detail(self) -> str: ...
    @property
    def has_errors(self) -> bool: ...
    @property
    def cached(self) -> bool: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class Definition:
    """One definition `Engine.definitions` found; str() is ``path:line kind name``."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def end_line(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def container(self) -> str | None: ...
    @property
    def language(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class UnparsedFile:
    """A candidate file of `Engine.definitions` that has no outline, and why."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str: ...
    @property
    def refused(self) -> str: ...
    @property
    def detail(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class Reference:
    """One reference `Engine.references` found; str() is ``path:line:col role — in name``."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...
    @property
    def role(self) -> str: ...
    @property
    def enclosing(self) -> str | None: ...
    @property
    def enclosing_kind(self) -> str | None: ...
    @property
    def enclosing_line(self) -> int | None: ...
    @property
    def text(self) -> str: ...
    @property
    def language(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class Caller:
    """One definition that uses the name, with how often (`Engine.references`, by caller)."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str: ...
    @property
    def name(self) -> str | None: ...
    @property
    def kind(self) -> str | None: ...
    @property
    def line(self) -> int | None: ...
    @property
    def count(self) -> int: ...
    @property
    def first_line(self) -> int: ...
    @property
    def text(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class RoleTotals:
    """References counted by role."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def calls(self) -> int: ...
    @property
    def imports(self) -> int: ...
    @property
    def types(self) -> int: ...
    @property
    def writes(self) -> int: ...
    @property
    def reads(self) -> int: ...
    @property
    def others(self) -> int: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class ReferencesResult:
    """What `Engine.references` returns: one page of the references to a name (by name)."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def name(self) -> str: ...
    @property
    def group_by(self) -> str: ...
    @property
    def references(self) -> list[Reference]: ...
    @property
    def callers(self) -> list[Caller]: ...
    @property
    def definitions(self) -> list[Definition]: ...
    @property
    def definitions_total(self) -> int: ...
    @property
    def totals(self) -> RoleTotals: ...
    @property
    def total(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def withheld(self) -> int: ...
    @property
    def next_offset(self) -> int | None: ...
    @property
    def files_searched(self) -> int: ...
    @property
    def candidate_files(self) -> int: ...
    @property
    def files_parsed(self) -> int: ...
    @property
    def files_cached(self) -> int: ...
    @property
    def files_cut(self) -> int: ...
    @property
    def unparsed(self) -> list[UnparsedFile]: ...
    @property
    def unparsed_total(self) -> int: ...
    @property
    def incomplete(self) -> bool: ...
    @property
    def skipped(self) -> SkipCounts: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class DefinitionsResult:
    """What `Engine.definitions` returns: one page of the definitions whose name matches."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def name(self) -> str: ...
    @property
    def matching(self) -> str: ...
    @property
    def prefilter(self) -> str: ...
    @property
    def definitions(self) -> list[Definition]: ...
    @property
    def offset(self) -> int: ...
    @property
    def total(self) -> int: ...
    @property
    def withheld(self) -> int: ...
    @property
    def next_offset(self) -> int | None: ...
    @property
    def files_searched(self) -> int: ...
    @property
    def candidate_files(self) -> int: ...
    @property
    def files_parsed(self) -> int: ...
    @property
    def files_cached(self) -> int: ...
    @property
    def unparsed(self) -> list[UnparsedFile]: ...
    @property
    def unparsed_total(self) -> int: ...
    @property
    def incomplete(self) -> bool: ...
    @property
    def skipped(self) -> SkipCounts: ...
    def to_dict(self) -> dict[str, Any]: ...

class RipsightError(Exception):
    """Base class of every ripsight error."""

    kind: ClassVar[str]
    #: The engine's name of what went wrong ("not_found", "path_too_long", "link_loop"...).
    reason: str

class PathNotFoundError(RipsightError, FileNotFoundError):
    path: str
    suggestions: list[str]

class OutsideRootError(RipsightError, PermissionError):
    path: str

class DeniedError(RipsightError, PermissionError):
    path: str
    rule: str

class IsADirectoryPathError(RipsightError, IsADirectoryError):
    path: str

class NotADirectoryPathError(RipsightError, NotADirectoryError):
    path: str

class SpecialFileError(RipsightError, OSError):
    path: str
    file_kind: str

class PatternError(RipsightError, ValueError):
    pattern: str
    issue: str
    detail: str

class InvalidArgumentError(RipsightError, ValueError): ...

class UnreadableError(RipsightError, PermissionError):
    path: str

class CancelledError(RipsightError, concurrent.futures.CancelledError): ...

class EngineError(RipsightError, RuntimeError):
    path: str

# ==== The engine ====

@final
class CancelToken:
    """Cancels the calls made with it: they stop and raise `CancelledError`."""

    def __new__(cls) -> CancelToken: ...
    def cancel(self) -> None: ...
    @property
    def cancelled(self) -> bool: ...

@final
class Engine:
    def __new__(
        cls,
        root: str,
        /,
        *,
        exclude_dirs: list[str],
        deny: list[str],
        time_budget: float,
        threads: int,
        respect_ignore_files: bool,
        index: bool = False,
        index_dir: str | None = None,
        persist: bool = True,
        outline_worker: list[str] | None = None,
    ) -> Engine: ...
    @property
    def outline_workers_started(self) -> int:
        """Outline worker processes this engine's pool has started."""
    @property
    def root(self) -> str: ...
    @property
    def revision(self) -> int | None: ...
    def index_status(self) -> IndexStatus | None: ...
    def wait_index(self, timeout: float | None = None) -> bool: ...
    def close(self) -> None: ...
    def glob(
        self,
        pattern: str,
        /,
        *,
        path: str | None,
        limit: int | None,
        offset: int,
        sort: str,
        cancel: CancelToken | None = None,
        more_patterns: list[str] | None = None,
        types: list[str] | None = None,
        max_depth: int | None = None,
        include_ignored: bool = False,
    ) -> GlobResult: ...
    def grep(
        self,
        pattern: str,
        /,
        *,
        path: str | None,
        glob: list[str] | None,
        literal: bool,
        case_insensitive: bool,
        context: int,
        multiline: bool,
        output_mode: str,
        limit: int | None,
        offset: int,
        max_line_chars: int | None = None,
        cancel: CancelToken | None = None,
        before_context: int | None = None,
        after_context: int | None = None,
        types: list[str] | None = None,
        types_not: list[str] | None = None,
        max_count: int | None = None,
        invert_match: bool = False,
        max_depth: int | None = None,
        include_ignored: bool = False,
    ) -> GrepResult:
        """`max_line_chars` (None: ``LIMITS["grep_line_chars"]``) below
        ``LIMITS["min_line_chars"]`` raises InvalidArgumentError."""
    def identify(self, path: str, /, *, cancel: CancelToken | None = None) -> FileIdentity:
        """Opens `path` as `read_file` would and returns the file's identity, reading nothing."""
    def read_file(
        self,
        path: str,
        /,
        *,
        offset: int,
        limit: int,
        max_line_chars: int | None = None,
        cancel: CancelToken | None = None,
    ) -> ReadResult:
        """`max_line_chars` (None: ``LIMITS["read_line_chars"]``) below
        ``LIMITS["min_line_chars"]`` raises InvalidArgumentError."""
    def read_image(
        self,
        path: str,
        /,
        *,
        max_edge: int,
        max_pixels: int,
        max_bytes: int,
        max_source_bytes: int,
        max_decode_pixels: int,
        cancel: CancelToken | None = None,
    ) -> ImageResult:
        """Reads one image and prepares it within the bounds (``LIMITS["image_*"]``)."""
    def read_notebook(
        self,
        path: str,
        /,
        *,
        offset: int,
        limit: int,
        max_output_chars: int,
        max_bytes: int,
        cancel: CancelToken | None = None,
    ) -> NotebookResult:
        """Cells `offset` (1-based) .. `offset + limit - 1` of a notebook."""
    def read_notebook_images(
        self,
        path: str,
        /,
        *,
        cell: int,
        max_bytes: int,
        max_edge: int,
        max_pixels: int,
        max_image_bytes: int,
        max_source_bytes: int,
        max_decode_pixels: int,
        cancel: CancelToken | None = None,
    ) -> NotebookImages:
        """The images of notebook cell `cell` (1-based), each prepared as `read_image` does."""
    def read_bytes(
        self, path: str, /, *, max_bytes: int, cancel: CancelToken | None = None
    ) -> FileBytes:
        """The whole file when it holds at most `max_bytes` bytes, else `too_large` (unread)."""
    def outline(
        self,
        path: str,
        /,
        *,
        offset: int,
        limit: int | None,
        max_depth: int | None = None,
        cancel: CancelToken | None = None,
    ) -> OutlineResult:
        """One page of a file's definitions, parsed in an outline worker process."""
    def definitions(
        self,
        name: str,
        /,
        *,
        matching: str,
        path: str | None,
        glob: list[str] | None,
        kinds: list[str],
        limit: int | None,
        offset: int,
        cancel: CancelToken | None = None,
    ) -> DefinitionsResult:
        """The definitions whose name matches, in the files grep finds the name in."""
    def references(
        self,
        name: str,
        /,
        *,
        path: str | None,
        glob: list[str] | None,
        roles: list[str],
        kinds: list[str],
        group_by: str,
        limit: int | None,
        offset: int,
        cancel: CancelToken | None = None,
    ) -> ReferencesResult:
        """The references to a name (by name), in the files grep finds it in as a word."""
    def clear_outline_cache(self) -> None:
        """Forgets the cached outlines (of every engine with the same worker command)."""
    def _outline_fault(self, fault: str) -> str:
        """Test hook: a fault request to an outline worker, and how it ended."""

def serve_outline_worker() -> int:
    """The outline worker process's main loop (standard input to standard output)."""

def truncate_middle(
    text: str, /, max_chars: int | None = None, head_ratio: float | None = None
) -> tuple[str, int, int]:
    """Returns (text, characters cut, characters in the original); None takes the default
    (``LIMITS["max_result_chars"]``, ``LIMITS["head_ratio"]``)."""
