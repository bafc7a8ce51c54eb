"""Type stubs of the Rust extension `ripsight._core`, written whole by scripts/gen_stub.py
from the built module (do not edit: run the script); `python -m mypy.stubtest ripsight._core`
checks them against it (tests/test_stub.py runs both).

The result classes are the engine's own structs (declared once, in Rust). Each has its fields
as read-only properties, ``FIELDS`` (their names in order), ``SCHEMA`` (the JSON Schema of
``to_dict()``, descriptions included), equality and a repr.
"""

import concurrent.futures
import os
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, Literal, TypedDict, final

from typing_extensions import Unpack

__all__ = [
    "DEFAULT_DENY_GLOBS",
    "DEFAULT_EXCLUDE_DIRS",
    "FILE_TYPES",
    "INDEX_STALENESS",
    "KEYWORDS",
    "LIMITS",
    "OUTLINE_LANGUAGES",
    "REFERENCE_GROUPINGS",
    "REFERENCE_ROLES",
    "SYMBOL_KINDS",
    "Callee",
    "Caller",
    "CallingDefinition",
    "CallsResult",
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
    "IndexFile",
    "IndexStatus",
    "InvalidArgumentError",
    "IsADirectoryPathError",
    "MapDefinition",
    "MapFile",
    "NotADirectoryPathError",
    "NotebookCell",
    "NotebookImage",
    "NotebookImages",
    "NotebookResult",
    "OutlineResult",
    "OutlineSymbol",
    "OutsideRootError",
    "PathNotFoundError",
    "PathRules",
    "PatternError",
    "PdfRead",
    "PdfReadPage",
    "ReadLine",
    "ReadResult",
    "Reference",
    "ReferencesResult",
    "RepoMapResult",
    "RipsightError",
    "RoleTotals",
    "SkipCounts",
    "SpecialFileError",
    "UnparsedFile",
    "UnreadableError",
    "__version__",
    "index_dir",
    "index_files",
    "prune_index_files",
    "serve_outline_worker",
    "truncate_middle",
]
__version__: str
DEFAULT_DENY_GLOBS: list[str]
DEFAULT_EXCLUDE_DIRS: list[str]
#: ripgrep's built-in file types (grep's and glob's ``type``): name -> the globs of its files.
FILE_TYPES: dict[str, list[str]]
INDEX_STALENESS: list[str]
#: Every keyword argument of the engine's calls: call name -> keyword -> (the Python type it
#: takes, its default). Each is declared once, in the binding, with its one check.
KEYWORDS: dict[str, dict[str, tuple[str, Any]]]
#: Every default and bound of the tools' parameters, by name (SPEC section 5).
LIMITS: dict[str, int | float]
#: The languages with a parser (python, javascript, ...).
OUTLINE_LANGUAGES: list[str]
#: How a references result lists what it found (reference, caller).
REFERENCE_GROUPINGS: list[str]
#: The roles of a reference (call, import, type, write, read, other).
REFERENCE_ROLES: list[str]
#: The kinds of definitions an outline names (class, function, method, ...).
SYMBOL_KINDS: list[str]

# ==== Results and options ====

@final
class Callee:
    """One name called inside a definition's body, once, with how often."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str:
        """The file of the calling definition, relative to the root (raw bytes)."""
    @property
    def caller_line(self) -> int:
        """The calling definition's line (one of the result's definitions)."""
    @property
    def name(self) -> str:
        """The name called."""
    @property
    def count(self) -> int:
        """Calls to it in the body (nested definitions included)."""
    @property
    def first_line(self) -> int:
        """The line of the first of them."""
    @property
    def first_column(self) -> int:
        """Its 1-based column, in characters."""
    @property
    def text(self) -> str:
        """That line's text, cut to 160 characters."""
    @property
    def defined_line(self) -> int | None:
        """The line where the same file defines a name spelled as the callee (the first such
        definition); null when the file defines none."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class Caller:
    """One definition that uses the name (grouped by caller), with how often."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str:
        """The file, relative to the root (raw bytes)."""
    @property
    def name(self) -> str | None:
        """The enclosing definition's name; null for the top of the file."""
    @property
    def kind(self) -> str | None:
        """Its kind."""
    @property
    def line(self) -> int | None:
        """Its line (of the top of the file: null)."""
    @property
    def count(self) -> int:
        """References inside it (calls, with role "call")."""
    @property
    def first_line(self) -> int:
        """The line of the first of them."""
    @property
    def text(self) -> str:
        """That line's text, cut to 160 characters."""
    @property
    def resolved(self) -> int:
        """Of count, those bound to the definition asked for (the rest found by name)."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class CallingDefinition:
    """One definition of the name whose body is searched, with what it holds."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def definition(self) -> Definition:
        """The definition."""
    @property
    def calls(self) -> int:
        """Calls in its body (nested definitions included)."""
    @property
    def callees(self) -> int:
        """Distinct names called there."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class CallsResult:
    """What the definitions of a name call, one page of callees (found by name: no type resolution)."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def name(self) -> str:
        """The name as given."""
    @property
    def calls(self) -> list[Callee]:
        """This page of callees, by path, then definition, then first call."""
    @property
    def definitions(self) -> list[CallingDefinition]:
        """The definitions of the name searched (the first 20; definitions_total counts all)."""
    @property
    def definitions_total(self) -> int:
        """Definitions of the name in the candidates (after kind)."""
    @property
    def calls_total(self) -> int:
        """Call sites in all of those bodies, exact unless incomplete."""
    @property
    def total(self) -> int:
        """Callees listed over all pages (each once per definition), exact unless incomplete."""
    @property
    def offset(self) -> int:
        """Callees skipped before this page."""
    @property
    def withheld(self) -> int:
        """Callees after this page."""
    @property
    def next_offset(self) -> int | None:
        """The offset of the next page, when callees follow this one."""
    @property
    def files_searched(self) -> int:
        """Files searched by the prefilter."""
    @property
    def candidate_files(self) -> int:
        """Files that contain the name as a word and have a parser: the candidates."""
    @property
    def files_parsed(self) -> int:
        """Candidates parsed (now or from the cache)."""
    @property
    def files_cached(self) -> int:
        """Candidates whose parse came from the cache."""
    @property
    def files_cut(self) -> int:
        """Files with more references than a file's answer holds (the rest are not counted)."""
    @property
    def unparsed(self) -> list[UnparsedFile]:
        """Candidates without a parse (the first 20; unparsed_total counts all)."""
    @property
    def unparsed_total(self) -> int:
        """Candidates without a parse."""
    @property
    def incomplete(self) -> bool:
        """The time budget ran out: the definitions cover only part of the tree."""
    @property
    def skipped(self) -> SkipCounts:
        """What the prefilter's search passed over, by reason."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class CellOutput:
    """One output of a code cell."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def output_type(self) -> str:
        """stream, execute_result, display_data, error or other."""
    @property
    def name(self) -> str | None:
        """A stream's name (stdout, stderr), an error's name (ValueError...); else null."""
    @property
    def text(self) -> str:
        """The output's text (a stream's text, a result's text/plain, an error's traceback with ANSI
        escape codes removed), cut to what is left of the cell's output budget."""
    @property
    def cut_from(self) -> int | None:
        """The text's full length in characters when it was cut."""
    @property
    def images(self) -> list[NotebookImage]:
        """The images the output holds."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class Definition:
    """One definition found."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str:
        """The file, relative to the root (raw bytes, as for read_file)."""
    @property
    def line(self) -> int:
        """1-based line of its name."""
    @property
    def end_line(self) -> int:
        """1-based last line of the definition."""
    @property
    def kind(self) -> str:
        """What it is."""
    @property
    def name(self) -> str:
        """Its name."""
    @property
    def container(self) -> str | None:
        """The name of the definition that directly encloses it (a method's class), or null."""
    @property
    def language(self) -> str:
        """The language the file was parsed as."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class DefinitionsResult:
    """The definitions whose name matches, one page."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def name(self) -> str:
        """The name (or prefix, or regex) as given."""
    @property
    def matching(self) -> str:
        """How names were matched."""
    @property
    def prefilter(self) -> str:
        """The grep pattern that picked the candidate files."""
    @property
    def definitions(self) -> list[Definition]:
        """This page of definitions, by path then line."""
    @property
    def offset(self) -> int:
        """Definitions skipped before this page."""
    @property
    def total(self) -> int:
        """Definitions found (exact unless incomplete)."""
    @property
    def withheld(self) -> int:
        """Definitions after this page."""
    @property
    def next_offset(self) -> int | None:
        """The offset of the next page, when definitions follow this one."""
    @property
    def files_searched(self) -> int:
        """Files searched by the prefilter."""
    @property
    def candidate_files(self) -> int:
        """Files that contain the text and have a parser: the candidates."""
    @property
    def files_parsed(self) -> int:
        """Candidates outlined (parsed now or taken from the cache)."""
    @property
    def files_cached(self) -> int:
        """Candidates whose outline came from the cache."""
    @property
    def unparsed(self) -> list[UnparsedFile]:
        """Candidates without an outline (the first 20; unparsed_total counts all)."""
    @property
    def unparsed_total(self) -> int:
        """Candidates without an outline."""
    @property
    def incomplete(self) -> bool:
        """The time budget ran out: the definitions cover only part of the tree."""
    @property
    def skipped(self) -> SkipCounts:
        """What the prefilter's search passed over, by reason."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class FileBytes:
    """A whole file's bytes, read through the boundary, with the identity of what was opened."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str:
        """The file's real path relative to the root (raw bytes)."""
    @property
    def size_bytes(self) -> int:
        """File size in bytes (from fstat of the opened file; the bytes read when it changed while
        it was read)."""
    @property
    def dev(self) -> int:
        """Device number of the file that was read."""
    @property
    def inode(self) -> int:
        """Inode number of the file that was read."""
    @property
    def mtime_ns(self) -> int:
        """Modification time of the file that was read, in nanoseconds since the Unix epoch."""
    @property
    def max_bytes(self) -> int:
        """The cap the read was made with, in bytes."""
    @property
    def too_large(self) -> bool:
        """True when the file is larger than max_bytes: data is then empty."""
    @property
    def media_type(self) -> str | None:
        """The media type its first bytes show ("application/pdf", "image/png"...), or null."""
    @property
    def data(self) -> bytes: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class FileCount:
    """A file and its number of matching lines."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str:
        """File path relative to the root (raw bytes)."""
    @property
    def count(self) -> int:
        """Matching lines in the file."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class FileIdentity:
    """What `identify` found: the identity of the file a path opens and its real path."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str:
        """The file's real path relative to the root (raw bytes)."""
    @property
    def dev(self) -> int:
        """Device number."""
    @property
    def inode(self) -> int:
        """Inode number."""
    @property
    def size(self) -> int:
        """Size in bytes."""
    @property
    def mtime_ns(self) -> int:
        """Modification time in nanoseconds since the Unix epoch."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class GlobResult:
    """What a glob found."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def pattern(self) -> str:
        """The glob pattern as given."""
    @property
    def more_patterns(self) -> list[str]:
        """The further patterns as given."""
    @property
    def paths(self) -> list[str]:
        """This page of matching files, relative to the root, /-separated (raw bytes: a non-UTF-8
        name round-trips, as a str with surrogate escapes in Python)."""
    @property
    def total(self) -> int:
        """Exact number of matching files across all pages."""
    @property
    def offset(self) -> int:
        """Matching files skipped before this page."""
    @property
    def withheld(self) -> int:
        """Matching files after this page."""
    @property
    def next_offset(self) -> int | None:
        """The offset of the next page, when matching files follow this one."""
    @property
    def files_in_scope(self) -> int | None:
        """Files the searched directory holds (after ignore and deny rules), counted when nothing
        matched."""
    @property
    def anywhere_pattern(self) -> str | None:
        """For a slash-free pattern that found fewer than ANYWHERE_HINT_BELOW files: the "**/" form,
        when that finds more."""
    @property
    def anywhere_total(self) -> int | None:
        """Files the anywhere_pattern matches."""
    @property
    def searched(self) -> str:
        """The walked directory relative to the root ("" for the root): the path asked for, or the
        pattern's literal leading directory below it when the walk was pruned to it (src/**/*.rs
        walks src); files_in_scope counts this directory's files."""
    @property
    def skipped(self) -> SkipCounts:
        """What the walk passed over, by reason."""
    @property
    def hidden_by(self) -> list[IgnoreRule]:
        """The ignore rules that hid the most files and directories from the walk, most first (at
        most 3)."""
    @property
    def path_ignored_by(self) -> IgnoreRule | None:
        """The rule hiding the requested path (or a directory above it) from a walk of the root,
        when one does: it was listed anyway, as rg searches a path it is given."""
    @property
    def incomplete(self) -> bool:
        """True when the time budget ran out: the result and its totals cover only what was walked."""
    @property
    def elapsed_ms(self) -> float:
        """Engine time in milliseconds."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class GrepLine:
    """One shown line: a match or a context line."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str:
        """File path relative to the root (raw bytes: a non-UTF-8 name round-trips, as a str with
        surrogate escapes in Python)."""
    @property
    def line(self) -> int:
        """1-based line number."""
    @property
    def text(self) -> str:
        """The line's text, lossily decoded, without the line terminator, cut to max_line_chars
        characters around the match (cut parts are replaced by …)."""
    @property
    def is_match(self) -> bool:
        """False for a context line. A matching line past max_count that falls in the after-context
        of the last counted match is a match (rg prints it as one) that is not counted."""
    @property
    def counted(self) -> bool:
        """True for a match that totals and pages count: false for context lines and for those
        matches past max_count."""
    @property
    def cut(self) -> bool:
        """True when the text was cut."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class GrepResult:
    """What a search found."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def pattern(self) -> str:
        """The regex (or literal text) as given."""
    @property
    def output_mode(self) -> str:
        """The output mode of the call."""
    @property
    def lines(self) -> list[GrepLine]:
        """content mode: this page's matching lines with their context lines, by path then line,
        overlapping context merged (each line appears once)."""
    @property
    def files(self) -> list[FileCount]:
        """files_with_matches, count and files_without_match modes: this page of files with their
        counts (0 in files_without_match)."""
    @property
    def total_matches(self) -> int:
        """Exact number of matching lines."""
    @property
    def total_files(self) -> int:
        """Exact number of files with a match."""
    @property
    def offset(self) -> int:
        """Entries (matches, or files in the file modes: in files_without_match, the files searched
        without a match, files_searched - total_files) skipped before this page."""
    @property
    def withheld(self) -> int:
        """Entries after this page."""
    @property
    def next_offset(self) -> int | None:
        """The offset of the next page, when entries follow this one."""
    @property
    def files_searched(self) -> int:
        """Files searched."""
    @property
    def skipped(self) -> SkipCounts:
        """What the search passed over, by reason."""
    @property
    def hidden_by(self) -> list[IgnoreRule]:
        """The ignore rules that hid the most files and directories from the walk, most first (at
        most 3)."""
    @property
    def path_ignored_by(self) -> IgnoreRule | None:
        """The rule hiding the requested path (or a directory above it) from a walk of the root,
        when one does: it was searched anyway, as rg searches a path it is given."""
    @property
    def withheld_key_blocks(self) -> int:
        """Private-key blocks (PEM BEGIN ... PRIVATE KEY through its END line) in the files
        searched, with or without matches: their lines are withheld, neither searched, counted
        nor shown. The counts are the files' own, the same for every pattern. A search that stops
        early in a file (max_count, files_with_matches) counts the blocks it met."""
    @property
    def withheld_key_lines(self) -> int:
        """Lines of those blocks."""
    @property
    def withheld_key_files(self) -> int:
        """Files holding those blocks."""
    @property
    def incomplete(self) -> bool:
        """True when the time budget ran out: the result and its totals cover only what was
        searched."""
    @property
    def elapsed_ms(self) -> float:
        """Engine time in milliseconds."""
    @property
    def matches(self) -> list[GrepLine]:
        """The matching lines of the page (context lines left out)."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class IgnoreRule:
    """One rule of an ignore file, and how many files and directories it hid."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def file(self) -> str:
        """The ignore file, relative to the root, /-separated (../ steps for a file in a directory
        above the root)."""
    @property
    def line(self) -> int:
        """The rule's 1-based line number in that file."""
    @property
    def rule(self) -> str:
        """The rule as written (trailing spaces dropped)."""
    @property
    def hidden(self) -> int:
        """Files and directories it hid (a directory counted once); 1 for the requested path itself
        (path_ignored_by)."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class ImageResult:
    """An image as it is shown, or why it is not."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str:
        """The file, relative to the root (raw bytes, as for read_file)."""
    @property
    def media_type(self) -> str:
        """Media type of the shown bytes ("image/png", "image/jpeg", "image/gif", "image/webp");
        empty when nothing is shown."""
    @property
    def source_media_type(self) -> str:
        """Media type of the file as its bytes declare it; empty when not an image format this
        reader knows."""
    @property
    def width(self) -> int:
        """Width of the image in the file, in pixels (0 when its header was not read)."""
    @property
    def height(self) -> int:
        """Height of the image in the file, in pixels (0 when its header was not read)."""
    @property
    def shown_width(self) -> int:
        """Width of the shown image (0 when nothing is shown)."""
    @property
    def shown_height(self) -> int:
        """Height of the shown image (0 when nothing is shown)."""
    @property
    def data(self) -> bytes: ...
    @property
    def byte_size(self) -> int:
        """Size of the shown bytes."""
    @property
    def source_bytes(self) -> int:
        """Size of the file."""
    @property
    def downscaled(self) -> bool:
        """True when the image was scaled down to fit the bounds."""
    @property
    def reencoded(self) -> bool:
        """True when the shown bytes were encoded here rather than passed through from the file."""
    @property
    def partial(self) -> bool:
        """True when the file's data is cut short or damaged (its structure does not reach its end
        intact) and the decoder still made an image of it: what is shown is re-encoded from that,
        and part of it may be missing (a cut JPEG's last rows are grey); the detail says what is
        wrong."""
    @property
    def refused(self) -> str | None:
        """Why nothing is shown (too_large, too_many_pixels, unsupported, undecodable, cannot_fit,
        no_such_cell); null when the image is shown."""
    @property
    def detail(self) -> str:
        """The facts behind a refusal (the decoder's message, the declared size...) or a partial
        image (where its data ends); empty when the image is shown whole."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class IndexFile:
    """One index file of a cache directory: the tree it describes, its size and age, and whether
    (and why) it is stale."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str:
        """The file's path."""
    @property
    def content(self) -> str:
        """What it holds (ngrams, symbols)."""
    @property
    def root(self) -> str | None:
        """The root of the tree it describes (raw bytes); null when the key cannot be read."""
    @property
    def size_bytes(self) -> int:
        """Its size in bytes."""
    @property
    def last_used(self) -> float:
        """When it was last used (the later of its modification and access times), in seconds since
        the Unix epoch."""
    @property
    def stale(self) -> str | None:
        """Why it is stale (tree_gone, other_format, unreadable, too_old, over_size_cap); null when
        it is kept."""
    @property
    def removed(self) -> bool:
        """True when it was removed (by a prune; a listing removes nothing)."""
    @property
    def busy(self) -> bool:
        """True when a stale file was left because a process was writing it (its lock was held)."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class IndexStatus:
    """What `index_status()` reports."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def state(self) -> str:
        """Where the index is in its life."""
    @property
    def files(self) -> int:
        """Files in the live table."""
    @property
    def bytes(self) -> int:
        """Their bytes."""
    @property
    def index_bytes(self) -> int:
        """Size of the index file (posting lists, keys, the file table and its paths), mapped
        read-only: its pages are the page cache's, shared by every process on the tree."""
    @property
    def content_bytes(self) -> int:
        """Of index_bytes, the contents of the small files it holds: a search reads such a file from
        the map instead of opening it, while its identity is unchanged."""
    @property
    def content_files(self) -> int:
        """Files whose contents the index file holds (as written; a changed one is read from disk)."""
    @property
    def index_path(self) -> str | None:
        """Where the index file is (None: memory only)."""
    @property
    def indexed_files(self) -> int:
        """Files whose current contents the index describes."""
    @property
    def unindexed_files(self) -> int:
        """Files every query searches directly (changed since indexing, binary, too large)."""
    @property
    def mode(self) -> str:
        """How the table is kept fresh: a watcher's events, or a re-check at every call."""
    @property
    def recheck_reason(self) -> str | None:
        """Why the table is re-checked rather than watched, if it is."""
    @property
    def watched_dirs(self) -> int:
        """Directories watched."""
    @property
    def watched_files(self) -> int:
        """Files with several hard links whose inode is watched (a write through any name is seen)."""
    @property
    def rechecked_files(self) -> int:
        """Files with several hard links past the watch budget: re-checked at every call."""
    @property
    def fallback(self) -> str | None:
        """Why the table does not answer although it is built (the cold engine answers), if so."""
    @property
    def build_ms(self) -> float | None:
        """Wall time of the last build in milliseconds."""
    @property
    def rescans(self) -> int:
        """Re-walks forced by lost events (overflow) since the start."""
    @property
    def loaded(self) -> bool:
        """The index file was loaded (written by an earlier or another process), not built."""
    @property
    def merges(self) -> int:
        """Index files this process wrote after its first (merges of changed files, rebuilds)."""
    @property
    def adoptions(self) -> int:
        """Index files written by other processes that this one took over."""
    @property
    def warm_calls(self) -> int:
        """Calls whose files the table listed (and the index, for grep)."""
    @property
    def cold_calls(self) -> int:
        """Calls whose files the walk listed (the table could not; a call that fails its checks is
        neither)."""
    @property
    def symbols(self) -> str:
        """Where the symbol index (references and definitions) is in its life."""
    @property
    def symbol_files_parsed(self) -> int:
        """Files its build has parsed so far (of symbol_files_total)."""
    @property
    def symbol_files_total(self) -> int:
        """Files its build parses (every file of the table that may have a parser)."""
    @property
    def symbol_bytes(self) -> int:
        """Size of the symbol file (mapped read-only, shared like the index file)."""
    @property
    def symbol_overlay_files(self) -> int:
        """Files with a parser that the symbol file does not describe as they are now (changed or
        new since it was written, unparsable, or changed just before it was written): the
        navigation calls search them and parse the ones that hold the name directly."""
    @property
    def symbols_loaded(self) -> bool:
        """The symbol file was loaded (written by an earlier or another process), not built."""
    @property
    def symbols_build_ms(self) -> float | None:
        """Wall time of the symbol index's build (or load) in milliseconds."""
    @property
    def symbols_failure(self) -> str | None:
        """Why the symbol index could not be built, if so."""
    @property
    def symbol_merges(self) -> int:
        """Symbol files this process wrote after its first (merges of the files changed since,
        rebuilds)."""
    @property
    def symbol_adoptions(self) -> int:
        """Symbol files written by other processes that this one took over."""
    @property
    def refreshing(self) -> bool:
        """A background job (a merge, rebuild or adoption of either index) is running."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class MapDefinition:
    """One definition of a file of the map."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def name(self) -> str:
        """Its name."""
    @property
    def kind(self) -> str:
        """What it is."""
    @property
    def line(self) -> int:
        """1-based line of its name."""
    @property
    def end_line(self) -> int:
        """1-based last line."""
    @property
    def references(self) -> int:
        """References to it from other files of the map: bound to it, or found by name."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class MapFile:
    """One file of the map, in rank order."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str:
        """The file, relative to the root (raw bytes, as for read_file)."""
    @property
    def language(self) -> str:
        """The language it was parsed as."""
    @property
    def rank(self) -> float:
        """Its rank (the ranks of all files ranked sum to 1)."""
    @property
    def definitions(self) -> list[MapDefinition]:
        """Its most-used definitions shown, in line order."""
    @property
    def used_definitions(self) -> int:
        """Its definitions other files use (those shown among them)."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class NotebookCell:
    """One cell."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def number(self) -> int:
        """1-based cell number."""
    @property
    def kind(self) -> str:
        """code, markdown or raw."""
    @property
    def id(self) -> str | None:
        """The cell's id (nbformat 4.5 and later), else null."""
    @property
    def execution_count(self) -> int | None:
        """A code cell's execution count, null when it never ran."""
    @property
    def source(self) -> str:
        """The cell's source text."""
    @property
    def outputs(self) -> list[CellOutput]:
        """The outputs (the first 100)."""
    @property
    def outputs_withheld(self) -> int:
        """Outputs past the first 100, not shown."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class NotebookImage:
    """An image an output holds (read it with read_notebook_images)."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def media_type(self) -> str:
        """Its media type ("image/png", "image/svg+xml"...)."""
    @property
    def size_bytes(self) -> int:
        """Its size in bytes (decoded from base64; an SVG's text length)."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class NotebookImages:
    """The images of one notebook cell, prepared as read_image prepares a file."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str:
        """The notebook, relative to the root (raw bytes)."""
    @property
    def cell(self) -> int:
        """The 1-based cell asked for."""
    @property
    def total_cells(self) -> int:
        """Cells in the notebook (0 when it was refused)."""
    @property
    def images(self) -> list[ImageResult]:
        """Each image of the cell's outputs, in order (each may be refused on its own)."""
    @property
    def refused(self) -> str | None:
        """Why no image is read (too_large, undecodable, no_such_cell); null otherwise."""
    @property
    def detail(self) -> str:
        """The facts behind a refusal; else empty."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class NotebookResult:
    """A page of a notebook's cells, or why none are shown."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str:
        """The file, relative to the root (raw bytes, as for read_file)."""
    @property
    def size_bytes(self) -> int:
        """File size in bytes."""
    @property
    def nbformat(self) -> int:
        """The nbformat major version (4 or 3; 0 when the file does not say)."""
    @property
    def nbformat_minor(self) -> int:
        """The nbformat minor version."""
    @property
    def language(self) -> str | None:
        """The kernel's language (from the metadata), else null."""
    @property
    def total_cells(self) -> int:
        """Cells in the notebook (exact)."""
    @property
    def offset(self) -> int:
        """1-based first cell asked for."""
    @property
    def next_offset(self) -> int | None:
        """The offset that reads on, when more cells follow."""
    @property
    def cells(self) -> list[NotebookCell]:
        """The cells of the page."""
    @property
    def refused(self) -> str | None:
        """Why no cells are shown (too_large, undecodable); null otherwise."""
    @property
    def detail(self) -> str:
        """The facts behind a refusal (the parser's message, the size); else empty."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class OutlineResult:
    """One page of a file's outline, or why it has none."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str:
        """The file's real path relative to the root (raw bytes, as for read_file)."""
    @property
    def language(self) -> str | None:
        """The language it was parsed as (python, rust, markdown...); null when it has no parser."""
    @property
    def size_bytes(self) -> int:
        """File size in bytes."""
    @property
    def symbols(self) -> list[OutlineSymbol]:
        """The page of definitions, in source order."""
    @property
    def offset(self) -> int:
        """Definitions skipped before the page."""
    @property
    def total(self) -> int:
        """Definitions in the file (those up to max_depth, when given): exact."""
    @property
    def withheld(self) -> int:
        """Definitions after the page."""
    @property
    def next_offset(self) -> int | None:
        """The offset of the next page, or null when this page reaches the end."""
    @property
    def refused(self) -> str | None:
        """Why the file has no outline (no_parser, binary, too_large, minified, timeout, crashed,
        deadline, busy, unavailable); null when it has one."""
    @property
    def detail(self) -> str:
        """The facts behind a refusal (the size and the cap, the longest line...); empty otherwise."""
    @property
    def has_errors(self) -> bool:
        """The parser met text it could not parse; the outline covers what it could."""
    @property
    def cached(self) -> bool:
        """The outline came from the cache (these bytes were parsed before)."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class OutlineSymbol:
    """One definition of an outline."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def kind(self) -> str:
        """What it is (class, function, method, struct, heading...)."""
    @property
    def name(self) -> str:
        """Its name (whitespace runs made one space, cut to 200 characters)."""
    @property
    def line(self) -> int:
        """1-based line of its name (read_file's line numbers)."""
    @property
    def end_line(self) -> int:
        """1-based last line of its definition (of a heading: of its section)."""
    @property
    def depth(self) -> int:
        """How many definitions enclose it (0: at the top of the file)."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class PdfRead:
    """A PDF's pages as its parser read them, or why it could not."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str:
        """The file's real path relative to the root (raw bytes)."""
    @property
    def size_bytes(self) -> int:
        """File size in bytes."""
    @property
    def too_large(self) -> bool:
        """True when the file is over pdf_max_source_bytes: it was neither read nor parsed."""
    @property
    def page_count(self) -> int:
        """Pages in the document (0 when it could not be read)."""
    @property
    def pages(self) -> list[PdfReadPage]:
        """The pages read, in order."""
    @property
    def failure(self) -> str | None:
        """Why there are no pages (unreadable, encrypted, memory, deadline, crashed, busy,
        unavailable); null when the parser answered with pages."""
    @property
    def detail(self) -> str:
        """The facts behind a failure (the parser's own words for an unreadable file); empty
        otherwise."""
    @property
    def exit_status(self) -> int | None:
        """The exit status of a parser process that ended without an answer, when known (a negative
        number is the signal that ended it)."""
    @property
    def peak_rss_bytes(self) -> int | None:
        """The parser process's peak resident memory so far, in bytes: as it said in its answer, or
        as it was when the engine killed it (its deadline passed; Linux)."""
    @property
    def deadline_ms(self) -> int:
        """The wall-clock deadline the parse had, in milliseconds."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class PdfReadPage:
    """One page's text as the parser read it."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def number(self) -> int:
        """Page number (1-based)."""
    @property
    def text(self) -> str:
        """The page's text, cut to pdf_page_chars characters (empty: no text layer)."""
    @property
    def chars(self) -> int:
        """The length of the page's whole text, in characters."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class ReadLine:
    """One shown line."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def number(self) -> int:
        """1-based line number."""
    @property
    def text(self) -> str:
        """The line without its terminator, cut to max_line_chars characters."""
    @property
    def cut_from(self) -> int | None:
        """The line's full length in characters when it was cut (invalid bytes count as the
        replacement characters they are shown as)."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class ReadResult:
    """What a read returned."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str:
        """The file, relative to the root (its real path, raw bytes: a non-UTF-8 name round-trips,
        as a str with surrogate escapes in Python)."""
    @property
    def kind(self) -> str:
        """text, empty, or binary (content not shown)."""
    @property
    def binary_type(self) -> str | None:
        """For a binary file: a type guess such as "PNG image (image/png)" or "ELF executable
        (application/x-executable)"; null when unknown."""
    @property
    def size_bytes(self) -> int:
        """File size in bytes."""
    @property
    def dev(self) -> int:
        """Device number of the file that was read (with inode and mtime_ns, what the read state
        keys on)."""
    @property
    def inode(self) -> int:
        """Inode number of the file that was read."""
    @property
    def mtime_ns(self) -> int:
        """Modification time of the file that was read, in nanoseconds since the Unix epoch."""
    @property
    def lines(self) -> list[ReadLine]:
        """The lines read (none when offset lies past the end)."""
    @property
    def offset(self) -> int:
        """1-based first line requested."""
    @property
    def total_lines(self) -> int:
        """Lines in the file (exact up to 1 GiB, else an estimate, see total_lines_estimated)."""
    @property
    def total_lines_estimated(self) -> bool:
        """True when total_lines is estimated from the size."""
    @property
    def next_offset(self) -> int | None:
        """The offset that reads on, when more lines follow."""
    @property
    def encoding(self) -> str:
        """ "utf-8", "utf-8-bom", "utf-16le", "utf-16be", or "utf-8-lossy" when invalid bytes were
        replaced (with or without a BOM); "binary" for binary files."""
    @property
    def line_ending(self) -> str:
        """ "LF", "CRLF", "mixed" (both LF and CRLF, or CR and CRLF), "CR" or "none" (no line break)."""
    @property
    def withheld_key_lines(self) -> list[int]:
        """Numbers of this page's lines that lie in a private-key block (PEM BEGIN ... PRIVATE KEY
        through its END line, or to the end of the file): their text is withheld (empty)."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class Reference:
    """One reference to the name."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str:
        """The file, relative to the root (raw bytes, as for read_file)."""
    @property
    def line(self) -> int:
        """1-based line."""
    @property
    def column(self) -> int:
        """1-based column, in characters."""
    @property
    def role(self) -> str:
        """How it uses the name (call, import, type, write, read, other)."""
    @property
    def enclosing(self) -> str | None:
        """The name of the innermost definition holding it; null at the top of the file."""
    @property
    def enclosing_kind(self) -> str | None:
        """That definition's kind."""
    @property
    def enclosing_line(self) -> int | None:
        """That definition's line."""
    @property
    def text(self) -> str:
        """The line's text, cut to 160 characters."""
    @property
    def language(self) -> str:
        """The language the file was parsed as."""
    @property
    def binding(self) -> str:
        """Whether it was bound to the definition asked for or found by name (by_name when none was
        asked for)."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class ReferencesResult:
    """The references to a name, one page (found by name: no type resolution)."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def name(self) -> str:
        """The name as given."""
    @property
    def group_by(self) -> str:
        """How the page lists them (reference, caller)."""
    @property
    def references(self) -> list[Reference]:
        """This page of references, by path then position (group_by reference)."""
    @property
    def callers(self) -> list[Caller]:
        """This page of callers, by path then line (group_by caller)."""
    @property
    def definitions(self) -> list[Definition]:
        """Where the name is defined (the first 20; definitions_total counts all)."""
    @property
    def definitions_total(self) -> int:
        """Definitions of the name in the candidates."""
    @property
    def totals(self) -> RoleTotals:
        """References by role, exact (after path, glob and kind; before role)."""
    @property
    def total(self) -> int:
        """Entries of the listing (references, or callers), exact unless incomplete."""
    @property
    def offset(self) -> int:
        """Entries skipped before this page."""
    @property
    def withheld(self) -> int:
        """Entries after this page."""
    @property
    def next_offset(self) -> int | None:
        """The offset of the next page, when entries follow this one."""
    @property
    def files_searched(self) -> int:
        """Files searched by the prefilter."""
    @property
    def candidate_files(self) -> int:
        """Files that contain the name as a word and have a parser: the candidates."""
    @property
    def files_parsed(self) -> int:
        """Candidates parsed (now or from the cache)."""
    @property
    def files_cached(self) -> int:
        """Candidates whose parse came from the cache."""
    @property
    def files_cut(self) -> int:
        """Files with more references than a file's answer holds (the rest are not counted)."""
    @property
    def unparsed(self) -> list[UnparsedFile]:
        """Candidates without a parse (the first 20; unparsed_total counts all)."""
    @property
    def unparsed_total(self) -> int:
        """Candidates without a parse."""
    @property
    def incomplete(self) -> bool:
        """The time budget ran out: the references cover only part of the tree."""
    @property
    def skipped(self) -> SkipCounts:
        """What the prefilter's search passed over, by reason."""
    @property
    def definition(self) -> Definition | None:
        """The definition asked for (definition), when one was."""
    @property
    def resolved(self) -> int:
        """References bound to it (counted as the totals are)."""
    @property
    def by_name(self) -> int:
        """References found by name (all of them when no definition was asked for)."""
    @property
    def bound_elsewhere(self) -> int:
        """References left out because they cannot mean it: their file binds the name to another
        definition, or (C) the definition is in a project their file does not see."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class RepoMapResult:
    """The files of a tree ranked by how much the rest uses them, cut to a character budget."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def files(self) -> list[MapFile]:
        """The files shown, most important first."""
    @property
    def files_ranked(self) -> int:
        """Files ranked (every file parsed under path)."""
    @property
    def files_left(self) -> int:
        """Ranked files left out by the budget."""
    @property
    def definitions_left(self) -> int:
        """Used definitions of the files shown that were left out (by the budget or the per-file
        cap)."""
    @property
    def chars(self) -> int:
        """Characters of the listing (each file's and definition's line with its newline)."""
    @property
    def max_chars(self) -> int:
        """The budget of the listing, in characters."""
    @property
    def files_listed(self) -> int:
        """Source files with a parser for code under path."""
    @property
    def files_parsed(self) -> int:
        """Files parsed (now or from the cache)."""
    @property
    def files_cached(self) -> int:
        """Files whose parse came from the cache."""
    @property
    def unparsed(self) -> list[UnparsedFile]:
        """Files without a parse (the first 20; unparsed_total counts all)."""
    @property
    def unparsed_total(self) -> int:
        """Files without a parse."""
    @property
    def files_over_cap(self) -> int:
        """Source files not parsed because there were more than the cap (the shallowest were parsed,
        in path order within a depth)."""
    @property
    def max_files(self) -> int:
        """The cap on files parsed."""
    @property
    def files_not_reached(self) -> int:
        """Source files not parsed because the time budget ran out."""
    @property
    def partial(self) -> bool:
        """The map covers only part of the tree (over the cap, out of time, or the listing's walk
        stopped early)."""
    @property
    def focus_unmatched(self) -> list[str]:
        """Focus paths that are no ranked file and hold none."""
    @property
    def names_undefined(self) -> list[str]:
        """Focus names that no ranked file defines."""
    @property
    def iterations(self) -> int:
        """Iterations of the ranking."""
    @property
    def bound(self) -> bool:
        """The references were bound through includes and imports where they reach a definition (the
        symbol index's graph), else found by name; false: all by name."""
    @property
    def skipped(self) -> SkipCounts:
        """What the listing's walk passed over, by reason."""
    @property
    def elapsed_ms(self) -> float:
        """Engine time in milliseconds."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class RoleTotals:
    """References counted by role."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def calls(self) -> int:
        """Calls."""
    @property
    def imports(self) -> int:
        """Imports."""
    @property
    def types(self) -> int:
        """Uses as a type."""
    @property
    def writes(self) -> int:
        """Writes."""
    @property
    def reads(self) -> int:
        """Reads."""
    @property
    def others(self) -> int:
        """Declarations without a value."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class SkipCounts:
    """What a walk or search passed over, by reason, so "nothing found" can be told apart from
    "nothing looked at"."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def ignored(self) -> int:
        """Skip-set directories (such as .git and node_modules) pruned by a walk, each counted once."""
    @property
    def ignored_by_rules(self) -> int:
        """Files and directories hidden by ignore files (.gitignore, .ignore, .ripsightignore,
        .git/info/exclude); a hidden directory is counted once, without walking into it."""
    @property
    def binary(self) -> int:
        """Binary files (a NUL byte), not searched."""
    @property
    def denied(self) -> int:
        """Files or directories covered by a deny rule (secrets policy)."""
    @property
    def unreadable(self) -> int:
        """Entries that could not be read (permissions, vanished, I/O errors)."""
    @property
    def special(self) -> int:
        """FIFOs, sockets and devices, never opened."""
    @property
    def too_large(self) -> int:
        """Files over the size limit of a search."""
    @property
    def line_too_long(self) -> int:
        """Files with a line longer than a search holds in memory (grep::MAX_LINE_BYTES), not
        searched."""
    @property
    def outside_root(self) -> int:
        """Requested paths (or links in them) leading outside the root, not followed."""
    @property
    def symlink(self) -> int:
        """Symlinks met in a walk (never followed by walks; pass one as path to look inside)."""
    def to_dict(self) -> dict[str, Any]: ...

@final
class UnparsedFile:
    """A candidate file that has no outline."""

    FIELDS: ClassVar[tuple[str, ...]]
    SCHEMA: ClassVar[dict[str, Any]]
    @property
    def path(self) -> str:
        """The file, relative to the root (raw bytes)."""
    @property
    def refused(self) -> str:
        """Why (too_large, minified, binary, timeout, crashed, deadline, busy, unavailable)."""
    @property
    def detail(self) -> str:
        """The facts behind it."""
    def to_dict(self) -> dict[str, Any]: ...

class _EngineOptions(TypedDict, total=False):
    """The keyword arguments of Engine (KEYWORDS['Engine'])."""

    exclude_dirs: Iterable[str]
    deny: Iterable[str]
    time_budget: float
    threads: int
    respect_ignore_files: bool
    index: bool
    index_dir: str | os.PathLike[str] | None
    persist: bool
    index_build: bool

class _CallsOptions(TypedDict, total=False):
    """The keyword arguments of calls (KEYWORDS['calls'])."""

    path: str | os.PathLike[str] | None
    glob: str | Sequence[str] | None
    kind: str | Sequence[str] | None
    limit: int | None
    offset: int

class _DefinitionsOptions(TypedDict, total=False):
    """The keyword arguments of definitions (KEYWORDS['definitions'])."""

    match: Literal["exact", "prefix", "regex"]
    path: str | os.PathLike[str] | None
    glob: str | Sequence[str] | None
    kind: str | Sequence[str] | None
    limit: int | None
    offset: int

class _GlobOptions(TypedDict, total=False):
    """The keyword arguments of glob (KEYWORDS['glob'])."""

    path: str | os.PathLike[str] | None
    limit: int | None
    offset: int
    sort: Literal["path", "mtime"]
    type: str | Sequence[str] | None
    max_depth: int | None
    include_ignored: bool

class _GrepOptions(TypedDict, total=False):
    """The keyword arguments of grep (KEYWORDS['grep'])."""

    path: str | os.PathLike[str] | None
    glob: str | Sequence[str] | None
    literal: bool
    case_insensitive: bool
    context: int
    multiline: bool
    output_mode: Literal["content", "files_with_matches", "count", "files_without_match"]
    limit: int | None
    offset: int
    max_line_chars: int
    before_context: int | None
    after_context: int | None
    type: str | Sequence[str] | None
    type_not: str | Sequence[str] | None
    max_count: int | None
    invert_match: bool
    max_depth: int | None
    include_ignored: bool

class _OutlineOptions(TypedDict, total=False):
    """The keyword arguments of outline (KEYWORDS['outline'])."""

    offset: int
    limit: int | None
    max_depth: int | None

class _ReadBytesOptions(TypedDict, total=False):
    """The keyword arguments of read_bytes (KEYWORDS['read_bytes'])."""

    max_bytes: int

class _ReadFileOptions(TypedDict, total=False):
    """The keyword arguments of read_file (KEYWORDS['read_file'])."""

    offset: int
    limit: int
    max_line_chars: int

class _ReadImageOptions(TypedDict, total=False):
    """The keyword arguments of read_image (KEYWORDS['read_image'])."""

    max_edge: int
    max_pixels: int
    max_bytes: int
    max_source_bytes: int
    max_decode_pixels: int

class _ReadNotebookOptions(TypedDict, total=False):
    """The keyword arguments of read_notebook (KEYWORDS['read_notebook'])."""

    offset: int
    limit: int
    max_output_chars: int
    max_bytes: int

class _ReadNotebookImagesOptions(TypedDict, total=False):
    """The keyword arguments of read_notebook_images (KEYWORDS['read_notebook_images'])."""

    max_bytes: int
    max_edge: int
    max_pixels: int
    max_image_bytes: int
    max_source_bytes: int
    max_decode_pixels: int

class _ReadPdfOptions(TypedDict, total=False):
    """The keyword arguments of read_pdf (KEYWORDS['read_pdf'])."""

    first: int
    last: int
    budget: int
    deadline_ms: int

class _ReferencesOptions(TypedDict, total=False):
    """The keyword arguments of references (KEYWORDS['references'])."""

    path: str | os.PathLike[str] | None
    glob: str | Sequence[str] | None
    role: str | Sequence[str] | None
    kind: str | Sequence[str] | None
    group_by: Literal["reference", "caller"]
    limit: int | None
    offset: int
    definition: str | None

class _RepoMapOptions(TypedDict, total=False):
    """The keyword arguments of repo_map (KEYWORDS['repo_map'])."""

    path: str | os.PathLike[str] | None
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None
    names: str | Sequence[str] | None
    max_chars: int
    definitions_per_file: int
    max_files: int

# ==== Errors: each is a RipsightError and the built-in that fits ====

class RipsightError(Exception):
    """Base class of every ripsight error."""

    kind: ClassVar[str]
    #: The engine's name of what went wrong ("not_found", "path_too_long", "link_loop"...).
    reason: str

class CancelledError(RipsightError, concurrent.futures.CancelledError):
    """The call's CancelToken was cancelled before it finished."""

class DeniedError(RipsightError, PermissionError):
    """A deny rule (secrets policy) covers the path (`rule` names it)."""

    path: str
    rule: str

class EngineError(RipsightError, RuntimeError):
    """An I/O failure or an internal error (a Rust panic reaches Python as this)."""

    path: str

class InvalidArgumentError(RipsightError, ValueError):
    """An argument out of range or of the wrong kind (negative offset, unknown sort...)."""

class IsADirectoryPathError(RipsightError, IsADirectoryError):
    """A file was expected, the path is a directory."""

    path: str

class NotADirectoryPathError(RipsightError, NotADirectoryError):
    """A directory was expected, the path is a file."""

    path: str

class OutsideRootError(RipsightError, PermissionError):
    """The path resolves (symlinks included) to a place outside the workspace root."""

    path: str

class PathNotFoundError(RipsightError, FileNotFoundError):
    """The path does not exist (`suggestions` holds close names)."""

    path: str
    suggestions: list[str]

class PatternError(RipsightError, ValueError):
    """A regex or glob that does not compile (`pattern`, `issue`, `detail`)."""

    pattern: str
    issue: str
    detail: str

class SpecialFileError(RipsightError, OSError):
    """A FIFO, socket or device: never opened, since reading it could block forever."""

    path: str
    file_kind: str

class UnreadableError(RipsightError, PermissionError):
    """The operating system refused access to the file."""

    path: str

# ==== The engine ====

@final
class CancelToken:
    """A flag another thread sets to stop a running call (Ctrl-C in Python, a client's
    `notifications/cancelled` in the MCP server). Clones share the flag."""

    def __new__(cls) -> CancelToken: ...
    @property
    def cancelled(self) -> bool:
        """True once `cancel()` was called."""
    @property
    def files_searched(self) -> int:
        """Files searched so far by the calls made with this token (readable while they run)."""
    def cancel(self) -> None:
        """Stops every call made with this token (it then raises `CancelledError`)."""
    def start_clock(self) -> CancelToken:
        """A token sharing this one's cancellation and count whose calls count their time budget
        from now: calls made with it one after the other share one budget."""

@final
class Engine:
    """One workspace root with its policy; all methods release the GIL."""

    def __new__(
        cls,
        root: str,
        /,
        *,
        outline_worker: list[str] | None = None,
        pdf_worker: list[str] | None = None,
        **options: Unpack[_EngineOptions],
    ) -> Engine: ...
    @property
    def outline_workers_started(self) -> int:
        """Outline worker processes this engine's pool has started."""
    @property
    def pdf_workers_started(self) -> int:
        """PDF worker processes this engine's pool has started."""
    @property
    def revision(self) -> int | None:
        """Changes whenever the tree does; `None` without an index."""
    @property
    def root(self) -> str:
        """The canonical root directory."""
    def calls(
        self, name: str, /, *, cancel: CancelToken | None = None, **options: Unpack[_CallsOptions]
    ) -> CallsResult: ...
    def clear_outline_cache(self) -> None:
        """Forgets the cached outlines of this engine's worker command (benchmarks measure uncached
        calls with it)."""
    def close(self) -> None:
        """Stops the index's threads and watcher; the engine answers cold from then on."""
    def definitions(
        self,
        name: str,
        /,
        *,
        cancel: CancelToken | None = None,
        **options: Unpack[_DefinitionsOptions],
    ) -> DefinitionsResult:
        """`options`: see `options::DEFINITIONS`."""
    def glob(
        self,
        pattern: str | Sequence[str],
        /,
        *,
        cancel: CancelToken | None = None,
        **options: Unpack[_GlobOptions],
    ) -> GlobResult:
        """`pattern`: one glob or several; `options`: see `options::GLOB`."""
    def grep(
        self, pattern: str, /, *, cancel: CancelToken | None = None, **options: Unpack[_GrepOptions]
    ) -> GrepResult:
        """`options`: see `options::GREP`."""
    def identify(
        self, path: str | os.PathLike[str], /, *, cancel: CancelToken | None = None
    ) -> FileIdentity:
        """Opens `path` as `read_file` would (boundary, deny rules, regular files only) and returns
        the opened file's identity without reading it."""
    def index_status(self) -> IndexStatus | None:
        """The warm index's state, `None` without one."""
    def outline(
        self,
        path: str | os.PathLike[str],
        /,
        *,
        cancel: CancelToken | None = None,
        **options: Unpack[_OutlineOptions],
    ) -> OutlineResult:
        """`options`: see `options::OUTLINE`."""
    def read_bytes(
        self,
        path: str | os.PathLike[str],
        /,
        *,
        cancel: CancelToken | None = None,
        **options: Unpack[_ReadBytesOptions],
    ) -> FileBytes:
        """The whole of `path`'s bytes when it holds at most `max_bytes` (else `too_large`, unread);
        `options`: see `options::READ_BYTES`."""
    def read_file(
        self,
        path: str | os.PathLike[str],
        /,
        *,
        cancel: CancelToken | None = None,
        **options: Unpack[_ReadFileOptions],
    ) -> ReadResult:
        """`options`: see `options::READ_FILE`."""
    def read_image(
        self,
        path: str | os.PathLike[str],
        /,
        *,
        cancel: CancelToken | None = None,
        **options: Unpack[_ReadImageOptions],
    ) -> ImageResult:
        """`options`: the bounds, see `options::READ_IMAGE`."""
    def read_notebook(
        self,
        path: str | os.PathLike[str],
        /,
        *,
        cancel: CancelToken | None = None,
        **options: Unpack[_ReadNotebookOptions],
    ) -> NotebookResult:
        """`options`: see `options::READ_NOTEBOOK`."""
    def read_notebook_images(
        self,
        path: str | os.PathLike[str],
        cell: int,
        /,
        *,
        cancel: CancelToken | None = None,
        **options: Unpack[_ReadNotebookImagesOptions],
    ) -> NotebookImages:
        """The images of cell `cell` (1-based); `options`: see `options::READ_NOTEBOOK_IMAGES`."""
    def read_pdf(
        self,
        path: str | os.PathLike[str],
        /,
        *,
        cancel: CancelToken | None = None,
        **options: Unpack[_ReadPdfOptions],
    ) -> PdfRead:
        """The pages of the PDF at `path` (read through the boundary, parsed by a PDF worker);
        `options`: see `options::READ_PDF`. What the parser could not do is the record's
        `failure`, not an exception."""
    def references(
        self,
        name: str,
        /,
        *,
        cancel: CancelToken | None = None,
        **options: Unpack[_ReferencesOptions],
    ) -> ReferencesResult: ...
    def repo_map(
        self, *, cancel: CancelToken | None = None, **options: Unpack[_RepoMapOptions]
    ) -> RepoMapResult:
        """`options`: see `options::REPO_MAP`."""
    def wait_index(self, timeout: float | None = None) -> bool:
        """Waits for the first build (at most `timeout` seconds); true when the index is ready."""
    def _close_idle_workers(self) -> None:
        """Ends the idle outline and PDF workers of this engine's commands, so that every worker the
        process started has ended (tests count their memory) or the next call starts one
        (benchmarks time a start)."""
    def _outline_fault(self, fault: str) -> str:
        """Test hook: sends a fault request ("abort", "spin", "sleep", "memory", "exit") to an
        outline worker of this engine's pool and says how it ended ("answered", or the refusal a
        parse would get: "crashed", "deadline"...). The tests use it to prove that a worker that
        crashes, loops or runs out of memory costs its caller one answer."""

@final
class PathRules:
    """Compiled path rules, with the text of each to name the one that matched."""

    def __new__(cls, globs: list[str]) -> PathRules: ...
    def covering(self, path: str) -> str | None:
        """The rule covering `path` (relative to the root, `/`-separated), or None."""

def index_dir() -> str | None:
    """The default directory of index files (`ripsight/index/` in the user's cache directory), or
    None where the platform has none."""

def index_files(
    dir: str | None = None, *, max_age_seconds: float | None = None, max_bytes: int | None = None
) -> list[IndexFile]:
    """Every index file in `dir` (default: `index_dir()`), most recently used first, each marked
    with why it is stale under the age limit and the size cap (default: `LIMITS`'
    `index_cache_max_age_seconds` and `index_cache_max_bytes`). Removes nothing."""

def prune_index_files(
    dir: str | None = None, *, max_age_seconds: float | None = None, max_bytes: int | None = None
) -> list[IndexFile]:
    """`index_files`, with every stale file removed (`removed`), except one a process is writing
    (`busy`)."""

def serve_outline_worker() -> int:
    """The outline worker's main (`python -I ripsight/_outline_worker.py` calls it): limits this
    process, then answers parse requests on standard input until it closes. Returns the exit
    status."""

def truncate_middle(
    text: str, /, max_chars: int | None = None, head_ratio: float | None = None
) -> tuple[str, int, int]:
    """Middle truncation; returns `(text, cut_chars, total_chars)`."""
