"""`Workspace`: the typed Python API over the Rust engine, for embedding.

    >>> ws = Workspace("/path/to/repo")
    >>> ws.grep("TODO", glob="*.py").total_matches
    12

Every method releases the GIL while it walks, searches or reads, so threads scale. Invalid input
raises a :mod:`ripsight.errors` class (a bad regex is a ``PatternError``, also a ``ValueError``).
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

import ripsight._core as _engine

from .errors import InvalidArgumentError
from .file_types import unknown_types
from .limits import DEFAULT_LIMITS, TIME_BUDGET
from .pdf import (
    PDF_MAX_SOURCE_BYTES,
    PageRange,
    PdfText,
    parse_pages,
    pdf_text,
    read_options,
)

__all__ = [
    "DEFAULT_DENY_GLOBS",
    "DEFAULT_EXCLUDE_DIRS",
    "OUTLINE_LANGUAGES",
    "OUTLINE_WORKER",
    "PDF_WORKER",
    "REFERENCE_GROUPINGS",
    "REFERENCE_ROLES",
    "SYMBOL_KINDS",
    "CancelToken",
    "IndexFile",
    "Workspace",
    "index_dir",
    "index_files",
    "prune_index_files",
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
IndexFile = _engine.IndexFile

#: The index files of a cache directory (the warm index's, one per tree), from the engine:
#: `index_dir()` the default directory, `index_files(dir)` lists them with their trees, sizes,
#: last use and staleness, `prune_index_files(dir)` removes the stale ones. The age limit and
#: size cap default to ``LIMITS["index_cache_max_age_seconds"]`` and
#: ``LIMITS["index_cache_max_bytes"]``, which every index file written also applies.
index_dir = _engine.index_dir
index_files = _engine.index_files
prune_index_files = _engine.prune_index_files
ReferencesResult = _engine.ReferencesResult
CallsResult = _engine.CallsResult
RepoMapResult = _engine.RepoMapResult

#: The command that starts an outline worker: this interpreter, isolated from the user's
#: environment (-I), running the worker script beside this module. tree-sitter runs there,
#: never in this process.
OUTLINE_WORKER: tuple[str, ...] = (
    sys.executable,
    "-I",
    str(Path(__file__).with_name("_outline_worker.py")),
)
#: The command that starts a PDF worker, the same way (the pool gives it its limits). PDFium
#: runs there, never in this process.
PDF_WORKER: tuple[str, ...] = (
    sys.executable,
    "-I",
    str(Path(__file__).with_name("_pdf_worker.py")),
)
#: The kinds of definitions an outline names, in the engine's order.
SYMBOL_KINDS: tuple[str, ...] = tuple(_engine.SYMBOL_KINDS)
#: The roles of a reference, in the engine's order.
REFERENCE_ROLES: tuple[str, ...] = tuple(_engine.REFERENCE_ROLES)
#: How a references result lists what it found.
REFERENCE_GROUPINGS: tuple[str, ...] = tuple(_engine.REFERENCE_GROUPINGS)
#: The languages with a parser.
OUTLINE_LANGUAGES: tuple[str, ...] = tuple(_engine.OUTLINE_LANGUAGES)


def _defaults(call: str) -> dict[str, Any]:
    """The defaults of an engine call's keyword arguments, as the engine declares them (each
    option has one default, and one check, in the engine's binding)."""
    return {name: default for name, (_, default) in _engine.KEYWORDS[call].items()}


_ENGINE = _defaults("Engine")
_GLOB = _defaults("glob")
_GREP = _defaults("grep")
_READ_FILE = _defaults("read_file")
_OUTLINE = _defaults("outline")
_DEFINITIONS = _defaults("definitions")
_NOTEBOOK = _defaults("read_notebook")


_Result = TypeVar("_Result")


@functools.cache
def _positional(call: str) -> tuple[str, ...]:
    """The parameters the engine's `call` takes by position (its path, name or pattern)."""
    parameters = inspect.signature(getattr(_engine.Engine, call)).parameters.values()
    return tuple(p.name for p in parameters if p.kind is p.POSITIONAL_ONLY and p.name != "self")


def _forward(call: Callable[..., _Result], arguments: dict[str, Any]) -> _Result:
    """`call`, a method of the engine, given a `Workspace` method's arguments (its
    ``locals()``) by their names: those the engine takes by position by position, every other
    one as the keyword of its name (the engine checks each, and refuses one it does not take).
    A `Workspace` method states its arguments once, in its signature."""
    given = {name: value for name, value in arguments.items() if name != "self"}
    return call(*[given.pop(name) for name in _positional(call.__name__)], **given)


def _check_types(name: str, value: object) -> None:
    """`type` / `type_not`: a name that is not one of ripgrep's file types is refused with the
    type it likely meant (the engine checks the value's type and refuses unknown names too,
    without the hint)."""
    names = [value] if isinstance(value, str) else value if isinstance(value, (list, tuple)) else []
    problems = unknown_types(n for n in names if isinstance(n, str))
    if problems:
        raise InvalidArgumentError(f"{name}: " + "; ".join(problems))


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
        index_build: with ``index=True``, build the index files when there are no valid ones
            for the tree (default True); False only loads the files already there (the command
            line's way, `ripsight index` building them): without them every call is answered
            cold, and no merge or rebuild runs in the background.

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
        threads: int = _ENGINE["threads"],
        respect_ignore_files: bool = _ENGINE["respect_ignore_files"],
        index: bool = _ENGINE["index"],
        index_dir: str | os.PathLike[str] | None = None,
        persist: bool = _ENGINE["persist"],
        index_build: bool = _ENGINE["index_build"],
    ) -> None:
        self._engine = _engine.Engine(
            os.fspath(root),
            outline_worker=list(OUTLINE_WORKER),
            pdf_worker=list(PDF_WORKER),
            exclude_dirs=exclude_dirs,
            deny=deny,
            time_budget=time_budget,
            threads=threads,
            respect_ignore_files=respect_ignore_files,
            index=index,
            index_dir=index_dir,
            persist=persist,
            index_build=index_build,
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
        offset: int = _GLOB["offset"],
        sort: Literal["path", "mtime"] = _GLOB["sort"],
        cancel: CancelToken | None = None,
        *,
        type: str | Sequence[str] | None = None,
        max_depth: int | None = None,
        include_ignored: bool = _GLOB["include_ignored"],
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
        _check_types("type", type)
        return _forward(self._engine.glob, locals())

    def grep(
        self,
        pattern: str,
        path: str | os.PathLike[str] | None = None,
        glob: str | Sequence[str] | None = None,
        literal: bool = _GREP["literal"],
        case_insensitive: bool = _GREP["case_insensitive"],
        context: int = _GREP["context"],
        multiline: bool = _GREP["multiline"],
        output_mode: Literal[
            "content", "files_with_matches", "count", "files_without_match"
        ] = _GREP["output_mode"],
        limit: int | None = DEFAULT_LIMITS.grep_limit,
        offset: int = _GREP["offset"],
        max_line_chars: int = DEFAULT_LIMITS.grep_line_chars,
        cancel: CancelToken | None = None,
        before_context: int | None = None,
        after_context: int | None = None,
        *,
        type: str | Sequence[str] | None = None,
        type_not: str | Sequence[str] | None = None,
        max_count: int | None = None,
        invert_match: bool = _GREP["invert_match"],
        max_depth: int | None = None,
        include_ignored: bool = _GREP["include_ignored"],
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
        _check_types("type", type)
        _check_types("type_not", type_not)
        return _forward(self._engine.grep, locals())

    def identify(
        self, path: str | os.PathLike[str], cancel: CancelToken | None = None
    ) -> FileIdentity:
        """Opens `path` as `read_file` would (boundary, deny rules, regular files only) and
        returns the opened file's real path (relative to the root), device, inode, size and
        modification time, reading nothing. Raises what `read_file` raises."""
        return _forward(self._engine.identify, locals())

    def read_file(
        self,
        path: str | os.PathLike[str],
        offset: int = _READ_FILE["offset"],
        limit: int = DEFAULT_LIMITS.read_limit,
        max_line_chars: int = DEFAULT_LIMITS.read_line_chars,
        cancel: CancelToken | None = None,
    ) -> ReadResult:
        """Lines `offset` .. `offset + limit - 1` of one file (default 400 lines), numbered, with
        the file's line total. Each line is cut to `max_line_chars` characters (default 500, at
        least 20); a cut line's `cut_from` gives its full length.
        """
        return _forward(self._engine.read_file, locals())

    # ==== Outlines and definitions (the engine's crate::outline) ====

    def outline(
        self,
        path: str | os.PathLike[str],
        offset: int = _OUTLINE["offset"],
        limit: int | None = DEFAULT_LIMITS.outline_limit,
        max_depth: int | None = None,
        cancel: CancelToken | None = None,
    ) -> OutlineResult:
        """The definitions of one file in source order (kind, name, line range, nesting), a
        page of `limit` (default 200; None: all) from `offset`, with the exact total; those
        nested deeper than `max_depth` left out. A file without a parser, binary, over 1 MiB or
        minified comes back with `refused` set and no symbols; so does one whose parse was
        stopped (its time cap, a crash of the parser's process). tree-sitter runs in a child
        process; outlines are cached by the bytes they were parsed from. Raises what
        `read_file` raises."""
        return _forward(self._engine.outline, locals())

    def definitions(
        self,
        name: str,
        match: Literal["exact", "prefix", "regex"] = _DEFINITIONS["match"],
        path: str | os.PathLike[str] | None = None,
        glob: str | Sequence[str] | None = None,
        kind: str | Sequence[str] | None = None,
        limit: int | None = DEFAULT_LIMITS.definitions_limit,
        offset: int = _DEFINITIONS["offset"],
        cancel: CancelToken | None = None,
    ) -> DefinitionsResult:
        """Where `name` is defined: the definitions whose name is `name` (`match="prefix"`:
        starts with it; `"regex"`: a Rust regex matches it), by path then line, a page of
        `limit` (default 50; None: all) with the exact total. `path` and `glob` narrow the
        files as grep's do; `kind` keeps only those kinds (one or a list of `SYMBOL_KINDS`).
        With ``index=True``, once the symbol index is ready (``index_status()["symbols"]``),
        the definitions are read from it, and only files changed since it was written are
        parsed; before, the candidate files are those grep finds the name in (the warm index's
        grep), and only they are parsed. The answers are the same."""
        return _forward(self._engine.definitions, locals())

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
        definition: str | None = None,
        cancel: CancelToken | None = None,
    ) -> ReferencesResult:
        """Every reference to `name` (an identifier used as code, not in a comment or a
        string), found by name as tags-based tools find them: no type resolution, so two things
        of one name share their references. Each has its role (one of `REFERENCE_ROLES`) and
        the definition that encloses it; `role` and `kind` (of that definition) narrow them,
        `path` and `glob` narrow the files as grep's do. `group_by="caller"` lists each
        enclosing definition once with its count (with `role="call"`: who calls `name`). A page
        of `limit` (default 50; None: all), with exact totals by role and the name's
        definitions listed apart. With ``index=True`` it answers from the symbol index once
        that is ready (the same answer; files changed since it was written are parsed).

        `definition` ("PATH:LINE", a line the definition covers) asks for the references of
        that one definition of `name`: with the symbol index, each file's references are bound
        through its includes or imports (see docs/navigation.md); those bound to another
        definition are left out (counted in `bound_elsewhere`), the rest listed with their
        `binding` ("resolved" or "by_name"), counted in `resolved` and `by_name`. Without the
        symbol index every reference is found by name."""
        return _forward(self._engine.references, locals())

    def calls(
        self,
        name: str,
        path: str | os.PathLike[str] | None = None,
        glob: str | Sequence[str] | None = None,
        kind: str | Sequence[str] | None = None,
        limit: int | None = DEFAULT_LIMITS.calls_limit,
        offset: int = 0,
        cancel: CancelToken | None = None,
    ) -> CallsResult:
        """What the definitions named `name` call: for each (`kind` keeps only those kinds, one
        or a list of `SYMBOL_KINDS`; `path` and `glob` narrow the files as grep's do), the
        names called in its body, nested definitions included, each once with its number of
        calls, its first call and the line where the same file defines that name, if it does.
        Found by name as references are (`obj.close()` calls `close`, whichever it is). A page
        of `limit` callees (default 100; None: all), with exact totals."""
        return _forward(self._engine.calls, locals())

    def repo_map(
        self,
        path: str | os.PathLike[str] | None = None,
        paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
        names: str | Sequence[str] | None = None,
        max_chars: int = DEFAULT_LIMITS.repo_map_chars,
        definitions_per_file: int = DEFAULT_LIMITS.repo_map_definitions,
        max_files: int = int(_engine.LIMITS["repo_map_max_files"]),
        cancel: CancelToken | None = None,
    ) -> RepoMapResult:
        """A map of the tree under `path` (default: the root): its files ranked by how much
        the other files use what they define (a PageRank over the files; references bound
        through includes and imports with a ready symbol index, `bound`, else found by name),
        each with up to `definitions_per_file` of its most-used definitions and their
        lines, cut to `max_chars` characters of listing. `paths` (files or directories) and
        `names` (identifiers) personalise the ranking toward what the conversation is about.
        With a warm index whose symbol index is ready, the files come from it (the files
        changed since it was written parsed again); otherwise they are parsed in the outline
        workers (or taken from their cache), at most `max_files` of them within the time
        budget, and `partial` says when the map covers only part of the tree, and the counts
        say why."""
        return _forward(self._engine.repo_map, locals())

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
        return _forward(self._engine.read_image, locals())

    def read_notebook(
        self,
        path: str | os.PathLike[str],
        offset: int = _NOTEBOOK["offset"],
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
        return _forward(self._engine.read_notebook, locals())

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
        return _forward(self._engine.read_notebook_images, locals())

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
        return _forward(self._engine.read_bytes, locals())

    def read_pdf(
        self,
        path: str | os.PathLike[str],
        pages: str | PageRange | None = None,
        budget: int = DEFAULT_LIMITS.max_result_chars,
        cancel: CancelToken | None = None,
    ) -> PdfText:
        """The text of a PDF's pages: those `pages` names ("3", "1-5"; at most 20; or a
        `PageRange` parsed already), or without it the first pages whose text fits `budget`
        characters. The engine reads the bytes and a child process from its pool of workers
        parses them under memory, CPU and wall-clock limits. Raises what `read_bytes` raises,
        :class:`ripsight.pdf.PdfError` (too large, unreadable, encrypted, the parser stopped) and
        ``InvalidArgumentError`` (a bad `pages`)."""
        if isinstance(budget, bool) or not isinstance(budget, int):
            # Python's own: the budget never crosses into the engine.
            raise InvalidArgumentError(
                f"budget must be an integer, got {type(budget).__name__} {budget!r}"
            )
        if isinstance(pages, str):
            pages = parse_pages(pages)  # a bad `pages` is refused before the file is read
        read = self._engine.read_pdf(path, cancel=cancel, **read_options(pages, budget))
        return pdf_text(read)

    # ==== The warm index (SPEC §2.8) ====

    def index_status(self) -> dict[str, Any]:
        """The index's state: ``{"state": "off" | "building" | "ready" | "fallback" | "closed",
        "mode": "watch" | "recheck", "files", "bytes", "index_bytes" (size of the mapped index
        file), "index_path", ...}`` (the fields of ``IndexStatus``; only ``state`` without an
        index). "recheck" means no file watcher keeps the table fresh here (another platform,
        ``RIPSIGHT_PORTABLE=1``, a watch limit): every call re-checks the tree first. "fallback"
        means the table could not be kept at all: every call is answered without the index.
        ``"symbols"`` is the symbol index's phase (``"off"``, ``"waiting"``, ``"building"``
        with ``symbol_files_parsed`` of ``symbol_files_total``, ``"ready"``, ``"failed"``);
        ``symbol_merges`` and ``symbol_adoptions`` count the symbol files this process wrote
        since (merges of the changed files) and took over from other processes."""
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
    _engine.IndexFile,
    _engine.OutlineResult,
    _engine.OutlineSymbol,
    _engine.DefinitionsResult,
    _engine.Definition,
    _engine.UnparsedFile,
    _engine.ReferencesResult,
    _engine.Reference,
    _engine.Caller,
    _engine.RoleTotals,
    _engine.CallsResult,
    _engine.CallingDefinition,
    _engine.Callee,
    _engine.RepoMapResult,
    _engine.MapFile,
    _engine.MapDefinition,
)
_FIELDS: dict[str, tuple[str, ...]] = {cls.__name__: cls.FIELDS for cls in RESULT_CLASSES}


def to_dict(value: Any) -> Any:
    """A result (or anything holding results) as plain JSON-ready data, with stable field names:
    the engine's records, `PdfText`, and any tool's typed result with a ``to_dict`` method."""
    if isinstance(value, (*RESULT_CLASSES, PdfText)) or (
        not isinstance(value, type) and callable(getattr(value, "to_dict", None))
    ):
        return value.to_dict()  # an engine result, or one merged from several roots
    if isinstance(value, (list, tuple)):
        return [to_dict(v) for v in value]
    return value
