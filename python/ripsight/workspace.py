"""`Workspace`: the typed Python API over the Rust engine, for embedding.

    >>> ws = Workspace("/path/to/repo")
    >>> ws.grep("TODO", glob="*.py").total_matches
    12

Every method releases the GIL while it walks, searches or reads, so threads scale. Invalid input
raises a :mod:`ripsight.errors` class (a bad regex is a ``PatternError``, also a ``ValueError``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

import ripsight._core as _engine

from .errors import InvalidArgumentError
from .file_types import unknown_types
from .limits import DEFAULT_LIMITS, MIN_LINE_CHARS, TIME_BUDGET
from .pdf import PDF_MAX_SOURCE_BYTES, PdfText, parse_pages, read_pdf_bytes, too_large_error

__all__ = [
    "DEFAULT_DENY_GLOBS",
    "DEFAULT_EXCLUDE_DIRS",
    "OUTLINE_LANGUAGES",
    "OUTLINE_WORKER",
    "REFERENCE_GROUPINGS",
    "REFERENCE_ROLES",
    "SYMBOL_KINDS",
    "CancelToken",
    "Workspace",
    "to_dict",
]

DEFAULT_EXCLUDE_DIRS: tuple[str, ...] = tuple(_engine.DEFAULT_EXCLUDE_DIRS)
DEFAULT_DENY_GLOBS: tuple[str, ...] = tuple(_engine.DEFAULT_DENY_GLOBS)

CancelToken = _engine.CancelToken
GlobResult = _engine.GlobResult
GrepResult = _engine.GrepResult
ReadResult = _engine.ReadResult
FileIdentity = _engine.FileIdentity
ImageResult = _engine.ImageResult
NotebookResult = _engine.NotebookResult
NotebookImages = _engine.NotebookImages
FileBytes = _engine.FileBytes
OutlineResult = _engine.OutlineResult
DefinitionsResult = _engine.DefinitionsResult
ReferencesResult = _engine.ReferencesResult

#: The command that starts an outline worker: this interpreter, isolated from the user's
#: environment (-I), running the worker script beside this module. tree-sitter runs there,
#: never in this process.
OUTLINE_WORKER: tuple[str, ...] = (
    sys.executable,
    "-I",
    str(Path(__file__).with_name("_outline_worker.py")),
)
#: The kinds of definitions an outline names, in the engine's order.
SYMBOL_KINDS: tuple[str, ...] = tuple(_engine.SYMBOL_KINDS)
#: The roles of a reference, in the engine's order.
REFERENCE_ROLES: tuple[str, ...] = tuple(_engine.REFERENCE_ROLES)
#: How a references result lists what it found.
REFERENCE_GROUPINGS: tuple[str, ...] = tuple(_engine.REFERENCE_GROUPINGS)
#: The languages with a parser.
OUTLINE_LANGUAGES: tuple[str, ...] = tuple(_engine.OUTLINE_LANGUAGES)


#: The largest integer the engine takes (its counts and offsets are 64-bit).
_MAX_ENGINE_INT = 2**64 - 1


def _check_int(name: str, value: Any, minimum: int, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgumentError(
            f"{name} must be an integer, got {type(value).__name__} {value!r}"
        )
    if value < minimum:
        raise InvalidArgumentError(f"{name} must be at least {minimum}, got {value}")
    if value > _MAX_ENGINE_INT:
        # Not echoed: such a number can have thousands of digits.
        raise InvalidArgumentError(
            f"{name} must be at most {_MAX_ENGINE_INT} (64 bits), got a {value.bit_length()}-bit "
            "number"
        )


def _check_text(name: str, value: Any) -> None:
    """A pattern must be Unicode text the engine can take: no lone surrogate (a path may hold
    the surrogate escapes of a non-UTF-8 name; a pattern is text to match)."""
    if not isinstance(value, str):
        return
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        char = value[error.start]
        raise InvalidArgumentError(
            f"{name} holds a lone surrogate (U+{ord(char):04X}) at character {error.start + 1}; "
            "it must be valid Unicode text"
        ) from None


def _strings_arg(name: str, value: str | Sequence[str] | None) -> list[str] | None:
    """An argument that takes one string or several (rg's repeated -g, -t): a list, each
    checked as text."""
    if value is None:
        return None
    if isinstance(value, str):
        values = [value]
    elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        values = list(value)
    else:
        raise InvalidArgumentError(
            f"{name} must be a string or a list of strings, got {type(value).__name__} {value!r}"
        )
    for one in values:
        _check_text(name, one)
    return values


def _types_arg(name: str, value: str | Sequence[str] | None) -> list[str] | None:
    """`type` / `type_not`: ripgrep's file type names, each one the engine knows."""
    names = _strings_arg(name, value)
    problems = unknown_types(names or ())
    if problems:
        raise InvalidArgumentError(f"{name}: " + "; ".join(problems))
    return names


def _path_arg(path: str | os.PathLike[str] | None) -> str | None:
    return None if path is None else os.fspath(path)


class Workspace:
    """One root directory and its policy; `glob`, `grep` and `read_file` never leave it.

    Args:
        root: the directory every path is relative to.
        exclude_dirs: directory names skipped at any depth (default: .git, .hg, .svn,
            node_modules, dist, __pycache__).
        deny: globs of files never listed, searched or read (default: DEFAULT_DENY_GLOBS:
            .env, .env.*, *.pem, *.key, id_rsa*, id_ed25519*, .netrc, .git-credentials,
            id_ecdsa*, id_dsa*, *.p12, *.pfx, *.jks, *.keystore, .pgpass, .pypirc, .npmrc,
            .envrc, **/.aws/credentials, **/.docker/config.json, **/.kube/config).
        time_budget: seconds one walk or search may take before it returns a partial result
            marked incomplete (default 10).
        threads: worker threads; 0 means one per core.
        respect_ignore_files: honour .gitignore (inside git repositories), .ignore and
            .ripsightignore (default True).
        index: keep a live table of the tree and an n-gram index of its contents, built in the
            background and kept fresh by a file watcher (SPEC §2.8). Answers are the same as
            without it; calls made before it is ready are answered without it. `close()` stops
            its threads (default False).
        index_dir: with ``index=True``, the directory of the index file (default: the user's
            cache directory, ``$XDG_CACHE_HOME/ripsight/index`` or ``~/.cache/ripsight/index``
            on Linux, ``~/Library/Caches/ripsight/index`` on macOS). One file per tree, memory-
            mapped and shared by every process on the tree; a later process loads it instead
            of rebuilding and checks it against the tree (files whose size, times or inode
            changed are searched directly until merged into a new file).
        persist: with ``index=True``, keep the index file on disk (default True); False keeps
            it in this process's memory only (unless `index_dir` is given).

    Every method takes ``cancel``, a :class:`CancelToken`: another thread's ``cancel.cancel()``
    stops the call, which raises :class:`ripsight.errors.CancelledError`. Ctrl-C stops a call
    too, raising ``KeyboardInterrupt`` within 100 ms.
    """

    __slots__ = ("_engine",)

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        exclude_dirs: Iterable[str] = DEFAULT_EXCLUDE_DIRS,
        deny: Iterable[str] = DEFAULT_DENY_GLOBS,
        time_budget: float = TIME_BUDGET,
        threads: int = 0,
        respect_ignore_files: bool = True,
        index: bool = False,
        index_dir: str | os.PathLike[str] | None = None,
        persist: bool = True,
    ) -> None:
        _check_int("threads", threads, 0)
        self._engine = _engine.Engine(
            os.fspath(root),
            exclude_dirs=[str(d) for d in exclude_dirs],
            deny=[str(g) for g in deny],
            time_budget=float(time_budget),
            threads=threads,
            respect_ignore_files=bool(respect_ignore_files),
            index=bool(index),
            index_dir=None if index_dir is None else os.fspath(index_dir),
            persist=bool(persist),
            outline_worker=list(OUTLINE_WORKER),
        )

    @property
    def root(self) -> str:
        """The canonical absolute root directory."""
        return self._engine.root

    def glob(
        self,
        pattern: str | Sequence[str],
        path: str | os.PathLike[str] | None = None,
        limit: int | None = DEFAULT_LIMITS.glob_limit,
        offset: int = 0,
        sort: Literal["path", "mtime"] = "path",
        cancel: CancelToken | None = None,
        *,
        type: str | Sequence[str] | None = None,
        max_depth: int | None = None,
        include_ignored: bool = False,
    ) -> GlobResult:
        """Files under `path` matching `pattern` (``**/*.py``, ``src/*.{c,h}``), one page.

        `pattern` may be a list, applied in order as rg's repeated -g: the last that matches a
        file decides, a leading ``!`` excludes (also below a directory it matches). `type`
        keeps files of ripgrep's file types (``"py"``, ``["rust", "toml"]``), `max_depth`
        lists at most that many levels below `path` (rg --max-depth: 1 is its own files),
        `include_ignored` lists what ignore files hide too (rg --no-ignore; the skip set and
        deny rules still apply). ``limit=None`` returns every match (default 200 per page).
        The result states the exact total, what was withheld, and what ignore rules hid.
        """
        _check_int("limit", limit, 1, allow_none=True)
        _check_int("offset", offset, 0)
        _check_int("max_depth", max_depth, 0, allow_none=True)
        patterns = _strings_arg("pattern", pattern)
        if not patterns:
            raise InvalidArgumentError("pattern must name at least one glob")
        return self._engine.glob(
            patterns[0],
            path=_path_arg(path),
            limit=limit,
            offset=offset,
            sort=sort,
            cancel=cancel,
            more_patterns=patterns[1:],
            types=_types_arg("type", type),
            max_depth=max_depth,
            include_ignored=bool(include_ignored),
        )

    def grep(
        self,
        pattern: str,
        path: str | os.PathLike[str] | None = None,
        glob: str | Sequence[str] | None = None,
        literal: bool = False,
        case_insensitive: bool = False,
        context: int = 0,
        multiline: bool = False,
        output_mode: Literal[
            "content", "files_with_matches", "count", "files_without_match"
        ] = "content",
        limit: int | None = DEFAULT_LIMITS.grep_limit,
        offset: int = 0,
        max_line_chars: int = DEFAULT_LIMITS.grep_line_chars,
        cancel: CancelToken | None = None,
        before_context: int | None = None,
        after_context: int | None = None,
        *,
        type: str | Sequence[str] | None = None,
        type_not: str | Sequence[str] | None = None,
        max_count: int | None = None,
        invert_match: bool = False,
        max_depth: int | None = None,
        include_ignored: bool = False,
    ) -> GrepResult:
        """Lines matching a Rust regex, ordered by path then line, one page of `limit` entries.

        ``limit=None`` returns every match (default 50). Totals are exact; each shown line is cut
        to `max_line_chars` characters (default 120, at least 20), around the match when it
        lies further in. `context` lines are shown before and after each match (rg -C);
        `before_context` and `after_context` (rg -B, -A) override one side. `glob` is one
        file glob or a list, as rg's repeated -g: the last that matches decides, a leading `!`
        excludes (directories too), a leading `/` anchors at the root. A file given as `path`
        is searched whatever `glob` and `type` say, as rg searches a path it is given.

        As rg's long options: `type` / `type_not` (-t / -T: ripgrep's file types, e.g. ``"py"``;
        a file `glob` names is searched whatever its type), `max_count` (-m: matches per file),
        `invert_match` (-v: the lines that do not match), `max_depth` (--max-depth: 1 is
        `path`'s own files), `include_ignored` (--no-ignore: what ignore files hide is searched
        too; the skip set and deny rules still apply), ``output_mode="files_without_match"``
        (the files searched without a match).
        """
        _check_int("context", context, 0)
        _check_int("before_context", before_context, 0, allow_none=True)
        _check_int("after_context", after_context, 0, allow_none=True)
        _check_int("max_line_chars", max_line_chars, MIN_LINE_CHARS)
        _check_int("limit", limit, 1, allow_none=True)
        _check_int("offset", offset, 0)
        _check_int("max_count", max_count, 1, allow_none=True)
        _check_int("max_depth", max_depth, 0, allow_none=True)
        _check_text("pattern", pattern)
        globs = _strings_arg("glob", glob)
        return self._engine.grep(
            pattern,
            path=_path_arg(path),
            glob=globs,
            literal=bool(literal),
            case_insensitive=bool(case_insensitive),
            context=context,
            multiline=bool(multiline),
            output_mode=output_mode,
            limit=limit,
            offset=offset,
            max_line_chars=max_line_chars,
            cancel=cancel,
            before_context=before_context,
            after_context=after_context,
            types=_types_arg("type", type),
            types_not=_types_arg("type_not", type_not),
            max_count=max_count,
            invert_match=bool(invert_match),
            max_depth=max_depth,
            include_ignored=bool(include_ignored),
        )

    def identify(
        self, path: str | os.PathLike[str], cancel: CancelToken | None = None
    ) -> FileIdentity:
        """Opens `path` as `read_file` would (boundary, deny rules, regular files only) and
        returns the opened file's real path (relative to the root), device, inode, size and
        modification time, reading nothing. Raises what `read_file` raises."""
        return self._engine.identify(os.fspath(path), cancel=cancel)

    def read_file(
        self,
        path: str | os.PathLike[str],
        offset: int = 1,
        limit: int = DEFAULT_LIMITS.read_limit,
        max_line_chars: int = DEFAULT_LIMITS.read_line_chars,
        cancel: CancelToken | None = None,
    ) -> ReadResult:
        """Lines `offset` .. `offset + limit - 1` of one file (default 400 lines), numbered, with
        the file's line total. Each line is cut to `max_line_chars` characters (default 500, at
        least 20); a cut line's `cut_from` gives its full length.
        """
        _check_int("offset", offset, 1)
        _check_int("limit", limit, 1)
        _check_int("max_line_chars", max_line_chars, MIN_LINE_CHARS)
        return self._engine.read_file(
            os.fspath(path),
            offset=offset,
            limit=limit,
            max_line_chars=max_line_chars,
            cancel=cancel,
        )

    # ==== Outlines and definitions (the engine's crate::outline) ====

    def outline(
        self,
        path: str | os.PathLike[str],
        offset: int = 0,
        limit: int | None = DEFAULT_LIMITS.outline_limit,
        max_depth: int | None = None,
        cancel: CancelToken | None = None,
    ) -> OutlineResult:
        """The definitions of one file in source order (kind, name, line range, nesting), a
        page of `limit` (default 200; None: all) from `offset`, with the exact total; those
        nested deeper than `max_depth` left out. A file without a parser, binary, over 1 MiB or
        minified comes back with `refused` set and no symbols; so does one whose parse was
        stopped (its time cap, a crash of the parser's process). tree-sitter runs in a child
        process; outlines are cached by file identity. Raises what `read_file` raises."""
        _check_int("offset", offset, 0)
        _check_int("limit", limit, 1, allow_none=True)
        _check_int("max_depth", max_depth, 0, allow_none=True)
        return self._engine.outline(
            os.fspath(path), offset=offset, limit=limit, max_depth=max_depth, cancel=cancel
        )

    def definitions(
        self,
        name: str,
        match: Literal["exact", "prefix", "regex"] = "exact",
        path: str | os.PathLike[str] | None = None,
        glob: str | Sequence[str] | None = None,
        kind: str | Sequence[str] | None = None,
        limit: int | None = DEFAULT_LIMITS.definitions_limit,
        offset: int = 0,
        cancel: CancelToken | None = None,
    ) -> DefinitionsResult:
        """Where `name` is defined: the definitions whose name is `name` (`match="prefix"`:
        starts with it; `"regex"`: a Rust regex matches it), by path then line, a page of
        `limit` (default 50; None: all) with the exact total. `path` and `glob` narrow the
        files as grep's do; `kind` keeps only those kinds (one or a list of `SYMBOL_KINDS`).
        The candidate files are those grep finds the name in (the warm index's grep when the
        workspace has one); only they are parsed."""
        _check_int("offset", offset, 0)
        _check_int("limit", limit, 1, allow_none=True)
        _check_text("name", name)
        return self._engine.definitions(
            name,
            matching=match,
            path=_path_arg(path),
            glob=_strings_arg("glob", glob),
            kinds=_strings_arg("kind", kind) or [],
            limit=limit,
            offset=offset,
            cancel=cancel,
        )

    def references(
        self,
        name: str,
        path: str | os.PathLike[str] | None = None,
        glob: str | Sequence[str] | None = None,
        role: str | Sequence[str] | None = None,
        kind: str | Sequence[str] | None = None,
        group_by: Literal["reference", "caller"] = "reference",
        limit: int | None = DEFAULT_LIMITS.references_limit,
        offset: int = 0,
        cancel: CancelToken | None = None,
    ) -> ReferencesResult:
        """Every reference to `name` (an identifier used as code, not in a comment or a
        string), found by name as tags-based tools find them: no type resolution, so two things
        of one name share their references. Each has its role (one of `REFERENCE_ROLES`) and
        the definition that encloses it; `role` and `kind` (of that definition) narrow them,
        `path` and `glob` narrow the files as grep's do. `group_by="caller"` lists each
        enclosing definition once with its count (with `role="call"`: who calls `name`). A page
        of `limit` (default 50; None: all), with exact totals by role and the name's
        definitions listed apart."""
        _check_int("offset", offset, 0)
        _check_int("limit", limit, 1, allow_none=True)
        _check_text("name", name)
        return self._engine.references(
            name,
            path=_path_arg(path),
            glob=_strings_arg("glob", glob),
            roles=_strings_arg("role", role) or [],
            kinds=_strings_arg("kind", kind) or [],
            group_by=group_by,
            limit=limit,
            offset=offset,
            cancel=cancel,
        )

    # ==== Images and notebooks (the engine's crate::media) ====

    def read_image(
        self,
        path: str | os.PathLike[str],
        *,
        max_edge: int = DEFAULT_LIMITS.image_max_edge,
        max_pixels: int = DEFAULT_LIMITS.image_max_pixels,
        max_bytes: int = DEFAULT_LIMITS.image_max_bytes,
        max_source_bytes: int = DEFAULT_LIMITS.image_max_source_bytes,
        max_decode_pixels: int = DEFAULT_LIMITS.image_max_decode_pixels,
        cancel: CancelToken | None = None,
    ) -> ImageResult:
        """One PNG, JPEG, GIF (first frame) or WebP image as a model is shown it: the original
        bytes when it is within `max_edge` (long edge, default 1568 px), `max_pixels` (default
        1,150,000) and `max_bytes` (default 3,750,000), else scaled down and re-encoded to fit.
        A file over `max_source_bytes` or declaring more than `max_decode_pixels` pixels, or
        one that does not decode, comes back with `refused` set and nothing shown. Raises what
        `read_file` raises for the path (missing, outside the root, denied...)."""
        bounds = {
            "max_edge": max_edge,
            "max_pixels": max_pixels,
            "max_bytes": max_bytes,
            "max_source_bytes": max_source_bytes,
            "max_decode_pixels": max_decode_pixels,
        }
        for name, value in bounds.items():
            _check_int(name, value, 1)
        return self._engine.read_image(os.fspath(path), **bounds, cancel=cancel)

    def read_notebook(
        self,
        path: str | os.PathLike[str],
        offset: int = 1,
        limit: int = DEFAULT_LIMITS.notebook_limit,
        *,
        max_output_chars: int = DEFAULT_LIMITS.notebook_output_chars,
        max_bytes: int = DEFAULT_LIMITS.notebook_max_bytes,
        cancel: CancelToken | None = None,
    ) -> NotebookResult:
        """Cells `offset` .. `offset + limit - 1` (1-based, default 20 cells) of a Jupyter
        notebook (nbformat 4 or 3), with the exact cell total; each cell's output text is cut
        to `max_output_chars` (default 2000). A notebook over `max_bytes` (default
        64,000,000) or one that does not parse comes back with `refused` set."""
        _check_int("offset", offset, 1)
        _check_int("limit", limit, 1)
        _check_int("max_output_chars", max_output_chars, 0)
        _check_int("max_bytes", max_bytes, 1)
        return self._engine.read_notebook(
            os.fspath(path),
            offset=offset,
            limit=limit,
            max_output_chars=max_output_chars,
            max_bytes=max_bytes,
            cancel=cancel,
        )

    def read_notebook_images(
        self,
        path: str | os.PathLike[str],
        cell: int,
        *,
        max_bytes: int = DEFAULT_LIMITS.notebook_max_bytes,
        max_edge: int = DEFAULT_LIMITS.image_max_edge,
        max_pixels: int = DEFAULT_LIMITS.image_max_pixels,
        max_image_bytes: int = DEFAULT_LIMITS.image_max_bytes,
        max_source_bytes: int = DEFAULT_LIMITS.image_max_source_bytes,
        max_decode_pixels: int = DEFAULT_LIMITS.image_max_decode_pixels,
        cancel: CancelToken | None = None,
    ) -> NotebookImages:
        """The image outputs of notebook cell `cell` (1-based), each prepared as `read_image`
        prepares a file (`max_image_bytes` is its `max_bytes`)."""
        bounds = {
            "cell": cell,
            "max_bytes": max_bytes,
            "max_edge": max_edge,
            "max_pixels": max_pixels,
            "max_image_bytes": max_image_bytes,
            "max_source_bytes": max_source_bytes,
            "max_decode_pixels": max_decode_pixels,
        }
        for name, value in bounds.items():
            _check_int(name, value, 1)
        return self._engine.read_notebook_images(os.fspath(path), **bounds, cancel=cancel)

    # ==== Whole files: raw bytes, PDFs (issue 18) ====

    def read_bytes(
        self,
        path: str | os.PathLike[str],
        max_bytes: int = PDF_MAX_SOURCE_BYTES,
        cancel: CancelToken | None = None,
    ) -> FileBytes:
        """The whole file's bytes, read as `read_file` opens a file (boundary, deny rules,
        regular files only), with the opened file's identity. A file over `max_bytes` (default
        50 MiB) is not read: the result has ``too_large=True`` and empty ``data``."""
        _check_int("max_bytes", max_bytes, 0)
        return self._engine.read_bytes(os.fspath(path), max_bytes=max_bytes, cancel=cancel)

    def read_pdf(
        self,
        path: str | os.PathLike[str],
        pages: str | None = None,
        budget: int = DEFAULT_LIMITS.max_result_chars,
        cancel: CancelToken | None = None,
    ) -> PdfText:
        """The text of a PDF's pages: those `pages` names ("3", "1-5"; at most 20), or without
        it the first pages whose text fits `budget` characters. The engine reads the bytes; a
        child process parses them under memory, CPU and wall-clock limits. Raises what
        `read_bytes` raises, :class:`ripsight.pdf.PdfError` (too large, unreadable, encrypted,
        the parser stopped) and ``InvalidArgumentError`` (a bad `pages`)."""
        if pages is not None:
            parse_pages(pages)  # a bad `pages` is refused before the file is read
        read = self.read_bytes(path, cancel=cancel)
        if read.too_large:
            raise too_large_error(read.path, read.size_bytes)
        return read_pdf_bytes(read.path, read.size_bytes, read.data, pages, budget)

    # ==== The warm index (SPEC §2.8) ====

    def index_status(self) -> dict[str, Any]:
        """The index's state: ``{"state": "off" | "building" | "ready" | "fallback" | "closed",
        "mode": "watch" | "recheck", "files", "bytes", "index_bytes" (size of the mapped index
        file), "index_path", ...}`` (the fields of ``IndexStatus``; only ``state`` without an
        index). "recheck" means no file watcher keeps the table fresh here (another platform,
        ``RIPSIGHT_PORTABLE=1``, a watch limit): every call re-checks the tree first. "fallback"
        means the table could not be kept at all: every call is answered without the index."""
        status = self._engine.index_status()
        return {"state": "off"} if status is None else status.to_dict()

    def wait_index(self, timeout: float | None = None) -> bool:
        """Blocks until the index is ready (or `timeout` seconds pass); True when ready."""
        if timeout is not None and not isinstance(timeout, (int, float)):
            raise InvalidArgumentError(
                f"timeout must be a number of seconds or None, got {timeout!r}"
            )
        return self._engine.wait_index(None if timeout is None else float(timeout))

    @property
    def revision(self) -> int | None:
        """With ``index=True``: a number that changes whenever the tree does (while the index
        cannot tell, during its first build or after a watch failed, every read gives a new
        number). ``None`` without an index."""
        return self._engine.revision

    def close(self) -> None:
        """Stops the index's threads and file watcher; later calls are answered without it."""
        self._engine.close()

    def __enter__(self) -> Workspace:  # noqa: PYI034 - Self needs Python 3.11
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Workspace({self.root!r})"


#: The engine's result classes; their fields and schemas are declared once, in the engine.
RESULT_CLASSES = (
    _engine.GlobResult,
    _engine.GrepResult,
    _engine.GrepLine,
    _engine.FileCount,
    _engine.ReadResult,
    _engine.ReadLine,
    _engine.SkipCounts,
    _engine.IgnoreRule,
    _engine.FileIdentity,
    _engine.IndexStatus,
    _engine.ImageResult,
    _engine.NotebookResult,
    _engine.NotebookCell,
    _engine.CellOutput,
    _engine.NotebookImage,
    _engine.NotebookImages,
    _engine.FileBytes,
    _engine.OutlineResult,
    _engine.OutlineSymbol,
    _engine.DefinitionsResult,
    _engine.Definition,
    _engine.UnparsedFile,
    _engine.ReferencesResult,
    _engine.Reference,
    _engine.Caller,
    _engine.RoleTotals,
)
_FIELDS: dict[str, tuple[str, ...]] = {cls.__name__: cls.FIELDS for cls in RESULT_CLASSES}


def to_dict(value: Any) -> Any:
    """A result (or anything holding results) as plain JSON-ready data, with stable field names."""
    if isinstance(value, (*RESULT_CLASSES, PdfText)):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return [to_dict(v) for v in value]
    return value
