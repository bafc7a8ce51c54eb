"""`Roots`: several root directories served as one tree, each its own `Workspace`.

    >>> roots = Roots.open(["/src/web", "/src/api"])
    >>> roots.names
    ('web', 'api')
    >>> roots.grep("TODO").lines[0].path
    'web/src/app.ts'

Every path a result shows begins with its root's name (the root directory's name; a second
root of the same name is ``web-2``, a third ``web-3``), and that path reads back: `read_file`,
`outline` and a `path` argument take it. A search without `path` (or with ``"."``) runs in every
root, in root order; a `path` whose first component names a root runs in that root only.

Each root is its own `Workspace`, and so its own capability: its boundary, deny rules, ignore
files, time budget and warm index are its own, and no path of one root reaches another's files
(``web/../api/x`` is ``../api/x`` inside ``web``: outside its root, refused). The engine answers
each root; this module routes the paths, and `merged` joins the typed results; neither reads a
file.
Paging is exact over the concatenation in root order: each root is asked for its part of the
page (``offset`` less the entries of the roots before it), and once the page is full, the roots
after it are still searched for their totals, all at the same time. The roots of one search
share one time budget: each root's budget is counted from the search's start
(`CancelToken.start_clock`), so a root searched later gets what the earlier ones left. A root inside another root is served under both
names, as two trees.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .errors import InvalidArgumentError, OutsideRootError, PathNotFoundError, RipsightError
from .limits import DEFAULT_LIMITS
from .merged import (
    SEP,
    Record,
    Rooted,
    grep_entries,
    grep_shown,
    joined,
    merge_calls,
    merge_definitions,
    merge_glob,
    merge_grep,
    merge_references,
    root_names,
    rooted_error,
)
from .workspace import CancelToken, Workspace

__all__ = ["Record", "Rooted", "Roots", "root_names"]

logger = logging.getLogger("ripsight.roots")


def _clocked(cancel: CancelToken | None) -> CancelToken:
    """The token a search over the roots gives each root: `cancel`'s (or a new one's)
    cancellation and count, its time budget counted from now, so the roots share one budget
    (those searched later get what the earlier ones left)."""
    return (cancel if cancel is not None else CancelToken()).start_clock()


# -- several roots -------------------------------------------------------------------------------

Search = Callable[[Workspace, "str | None", int, "int | None"], Any]


class Roots:
    """Several `Workspace`s served as one tree, each under its root's name (`root_names`).

    Args:
        workspaces: the roots, in the order searches visit them (at least one).
        problems: sentences about roots that were given but could not be opened (not a
            directory, unreadable); the tools add them to their answers, so the model knows a
            root is missing.

    `Roots.open` opens the workspaces from paths. Methods take the arguments `Workspace`'s take
    and answer with the same fields (`Record`, `Rooted`); a `path` begins with a root's name.
    """

    __slots__ = ("_by_name", "problems")

    def __init__(self, workspaces: Iterable[Workspace], problems: Iterable[str] = ()) -> None:
        spaces = list(workspaces)
        self._by_name: dict[str, Workspace] = dict(
            zip(root_names(ws.root for ws in spaces), spaces, strict=True)
        )
        self.problems: tuple[str, ...] = tuple(problems)

    @classmethod
    def open(
        cls, roots: Iterable[str | os.PathLike[str]], *, strict: bool = True, **options: Any
    ) -> Roots:
        """A `Workspace(root, **options)` per root. A root that cannot be opened raises
        (`strict`) or is left out with a sentence in `problems` (what a server does)."""
        spaces: list[Workspace] = []
        problems: list[str] = []
        for root in roots:
            try:
                spaces.append(Workspace(root, **options))
            except (RipsightError, OSError) as error:
                if strict:
                    raise
                problems.append(f"the root {os.fspath(root)!r} is not served: {error}".rstrip("."))
                logger.warning("root %s not served: %s", os.fspath(root), error)
        return cls(spaces, problems)

    @property
    def names(self) -> tuple[str, ...]:
        """The roots' names, in order."""
        return tuple(self._by_name)

    @property
    def workspaces(self) -> dict[str, Workspace]:
        """Each root's workspace by its name, in order."""
        return dict(self._by_name)

    @property
    def root(self) -> str:
        """Every root directory, one per line, each after its name (``web: /src/web``)."""
        return "\n".join(f"{name}: {ws.root}" for name, ws in self._by_name.items())

    # -- paths -----------------------------------------------------------------------------------

    def locate(self, path: str | os.PathLike[str] | None) -> tuple[str, Workspace, str] | None:
        """The root a path names, and the path inside it (``"."`` for the root itself); None
        for every root (no path, ``""``, ``"."``). Raises `PathNotFoundError` for a path whose
        first component names no root."""
        if path is None:
            return None
        text = os.fspath(path)
        if os.path.isabs(text):
            return self._locate_absolute(text)
        while text.startswith("./"):
            text = text[2:]
        if text.strip(SEP) in ("", "."):
            return None
        name, _, rest = text.partition(SEP)
        workspace = self._by_name.get(name)
        if workspace is None:
            raise PathNotFoundError(self._unknown(text))
        return name, workspace, rest or "."

    def _locate_absolute(self, text: str) -> tuple[str, Workspace, str]:
        # The deepest root holding it: a root inside another answers for its own files.
        best: tuple[str, Workspace, str] | None = None
        for name, ws in self._by_name.items():
            inside = os.path.relpath(text, ws.root)
            if inside == ".." or inside.startswith("../"):
                continue
            if best is None or len(ws.root) > len(best[1].root):
                best = (name, ws, inside)
        if best is None:
            names = ", ".join(f"{name}/" for name in self._by_name)
            error = OutsideRootError(
                f"{text} is outside every root; only files inside them can be read. Every "
                f"path begins with a root's name: {names}."
            )
            error.path = text
            raise error
        return best

    def _unknown(self, path: str) -> str:
        names = ", ".join(f"{name}/" for name in self._by_name)
        if names:
            text = (
                f"{path}: not found. The workspace has several roots, and every path begins "
                f"with a root's name: {names}."
            )
        else:
            text = f"{path}: not found. No root is served."
        if self.problems:
            text += " Not served: " + "; ".join(self.problems) + "."
        return text

    def _scope(
        self, path: str | os.PathLike[str] | None
    ) -> tuple[list[tuple[str, Workspace]], str | None, bool]:
        """The roots a search visits, the path inside them, and whether that is every root."""
        located = self.locate(path)
        if located is None:
            if not self._by_name:
                raise PathNotFoundError(self._unknown(os.fspath(path or ".")))
            return list(self._by_name.items()), None, True
        name, ws, inside = located
        return [(name, ws)], inside, False

    def _paged(
        self,
        path: str | os.PathLike[str] | None,
        offset: int,
        limit: int | None,
        search: Search,
        shown: Callable[[dict[str, Any]], int],
        entries: Callable[[dict[str, Any]], int],
        merge: Callable[[Sequence[tuple[str, dict[str, Any]]], int, bool], Record],
        listed: tuple[str, ...],
    ) -> Record:
        """Runs `search` in each root in turn for its part of the page (exact paging over the
        roots' concatenation) and merges the parts, in root order.

        A root's part depends on how many entries the roots before it hold, so the roots are
        searched one after the other until the page is full; the roots after it are searched
        for their totals only, which depend on no other root: those run at the same time, each
        in its own thread (the engine releases the GIL), and their errors are raised in root
        order."""
        roots, inside, whole = self._scope(path)
        parts: list[tuple[str, dict[str, Any]]] = []
        before = 0  # entries of the roots already searched
        room = limit
        for index, (name, ws) in enumerate(roots):
            if room == 0:
                parts += self._totals(roots[index:], inside, search, listed)
                break
            try:
                found = search(ws, inside, max(0, offset - before), room)
            except RipsightError as error:
                raise rooted_error(error, name) from None
            data = found.to_dict()
            parts.append((name, data))
            before += entries(data)
            if room is not None:
                room -= shown(data)
        return merge(parts, offset, whole)

    @staticmethod
    def _totals(
        roots: Sequence[tuple[str, Workspace]],
        inside: str | None,
        search: Search,
        listed: tuple[str, ...],
    ) -> list[tuple[str, dict[str, Any]]]:
        """The roots after a full page, searched at the same time for their totals only: the
        entries (`listed`) each showed go."""
        with ThreadPoolExecutor(max_workers=len(roots)) as pool:
            running = [pool.submit(search, ws, inside, 0, 1) for _, ws in roots]
            parts = []
            for (name, _), future in zip(roots, running):
                try:
                    data = future.result().to_dict()
                except RipsightError as error:
                    raise rooted_error(error, name) from None
                for key in listed:
                    data[key] = []
                parts.append((name, data))
        return parts

    # -- the searches ----------------------------------------------------------------------------

    def _across(
        self,
        method: str,
        first: Any,
        path: str | os.PathLike[str] | None,
        offset: int,
        limit: int | None,
        merge: Callable[[Sequence[tuple[str, dict[str, Any]]], int, bool], Record],
        listed: tuple[str, ...],
        options: dict[str, Any],
        shown: Callable[[dict[str, Any]], int] | None = None,
        entries: Callable[[dict[str, Any]], int] | None = None,
    ) -> Record:
        """`Workspace.<method>` over the roots (`_paged`): each root is given `first` (the
        pattern or the name), the path inside it, its part of the page and `options`, each as
        the keyword of its name, the roots sharing one time budget (`_clocked`). A part shows
        the entries of its `listed` fields and holds its ``total`` unless `shown` and
        `entries` count them otherwise."""
        options = {**options, "cancel": _clocked(options.get("cancel"))}

        def search(ws: Workspace, inside: str | None, skip: int, room: int | None) -> Any:
            return getattr(ws, method)(first, path=inside, limit=room, offset=skip, **options)

        def listed_entries(data: dict[str, Any]) -> int:
            return sum(len(data[key]) for key in listed)

        def total(data: dict[str, Any]) -> int:
            return int(data["total"])

        return self._paged(
            path, offset, limit, search, shown or listed_entries, entries or total, merge, listed
        )

    def glob(
        self,
        pattern: str | Sequence[str],
        path: str | os.PathLike[str] | None = None,
        limit: int | None = 200,
        offset: int = 0,
        sort: Any = "path",
        cancel: CancelToken | None = None,
        **options: Any,
    ) -> Record:
        """`Workspace.glob` over the roots (``sort="mtime"`` orders each root's part)."""
        options = {"sort": sort, "cancel": cancel, **options}
        return self._across("glob", pattern, path, offset, limit, merge_glob, ("paths",), options)

    def grep(
        self,
        pattern: str,
        path: str | os.PathLike[str] | None = None,
        *,
        limit: int | None = 50,
        offset: int = 0,
        **options: Any,
    ) -> Record:
        """`Workspace.grep` over the roots (keyword arguments beside `pattern` and `path`)."""
        return self._across(
            "grep",
            pattern,
            path,
            offset,
            limit,
            merge_grep,
            ("lines", "files"),
            options,
            grep_shown,
            grep_entries,
        )

    def definitions(
        self,
        name: str,
        match: Any = "exact",
        path: str | os.PathLike[str] | None = None,
        *,
        limit: int | None = 50,
        offset: int = 0,
        **options: Any,
    ) -> Record:
        """`Workspace.definitions` over the roots."""
        options = {"match": match, **options}
        return self._across(
            "definitions", name, path, offset, limit, merge_definitions, ("definitions",), options
        )

    def references(
        self,
        name: str,
        path: str | os.PathLike[str] | None = None,
        glob: str | Sequence[str] | None = None,
        *,
        limit: int | None = 50,
        offset: int = 0,
        **options: Any,
    ) -> Record:
        """`Workspace.references` over the roots (role, kind, group_by and cancel as keyword
        arguments)."""
        options = {"glob": glob, **options}
        listed = ("references", "callers")
        return self._across(
            "references", name, path, offset, limit, merge_references, listed, options
        )

    def calls(
        self,
        name: str,
        path: str | os.PathLike[str] | None = None,
        glob: str | Sequence[str] | None = None,
        *,
        limit: int | None = DEFAULT_LIMITS.calls_limit,
        offset: int = 0,
        **options: Any,
    ) -> Record:
        """`Workspace.calls` over the roots (kind and cancel as keyword arguments)."""
        options = {"glob": glob, **options}
        return self._across("calls", name, path, offset, limit, merge_calls, ("calls",), options)

    def repo_map(
        self,
        path: str | os.PathLike[str] | None = None,
        paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
        **options: Any,
    ) -> Record:
        """`Workspace.repo_map` of the one root `path` names (a map ranks the files of one
        tree: the roots' trees do not use each other's names), its paths named from that root;
        focus `paths` are given as results name them (from the root's name). Raises
        `InvalidArgumentError` when `path` names no single root."""
        located = self.locate(path)
        if located is None:
            raise InvalidArgumentError(
                f"repo_map maps one root at a time and {len(self)} are served "
                f"({', '.join(self.names)}): pass path naming one, e.g. path={self.names[0]!r}"
            )
        name, ws, inside = located
        focus = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths or ())
        within: list[str] = []
        for entry in focus:
            place = self.locate(entry)
            if place is not None and place[0] == name:
                within.append(place[2])
        try:
            found = ws.repo_map(inside, paths=within, **options).to_dict()
        except RipsightError as error:
            raise rooted_error(error, name) from None
        for key in ("files", "unparsed"):
            found[key] = [{**item, "path": joined(name, item["path"])} for item in found[key]]
        found["focus_unmatched"] = [joined(name, p) for p in found["focus_unmatched"]]
        return Record(found)

    # -- one file --------------------------------------------------------------------------------

    def _one(self, method: str, path: str | os.PathLike[str], *args: Any, **kwargs: Any) -> Any:
        located = self.locate(path)
        if located is None:
            raise PathNotFoundError(
                f"{os.fspath(path) or '.'}: names every root, not a file. "
                + self._unknown(os.fspath(path) or ".").split(". ", 1)[1]
            )
        name, ws, inside = located
        try:
            return Rooted(getattr(ws, method)(inside, *args, **kwargs), name)
        except RipsightError as error:
            raise rooted_error(error, name) from None

    def identify(self, path: str | os.PathLike[str], cancel: CancelToken | None = None) -> Any:
        return self._one("identify", path, cancel=cancel)

    def read_file(self, path: str | os.PathLike[str], *args: Any, **kwargs: Any) -> Any:
        return self._one("read_file", path, *args, **kwargs)

    def outline(self, path: str | os.PathLike[str], *args: Any, **kwargs: Any) -> Any:
        return self._one("outline", path, *args, **kwargs)

    def read_image(self, path: str | os.PathLike[str], **kwargs: Any) -> Any:
        return self._one("read_image", path, **kwargs)

    def read_notebook(self, path: str | os.PathLike[str], *args: Any, **kwargs: Any) -> Any:
        return self._one("read_notebook", path, *args, **kwargs)

    def read_notebook_images(self, path: str | os.PathLike[str], cell: int, **kwargs: Any) -> Any:
        return self._one("read_notebook_images", path, cell, **kwargs)

    def read_bytes(self, path: str | os.PathLike[str], *args: Any, **kwargs: Any) -> Any:
        return self._one("read_bytes", path, *args, **kwargs)

    def read_pdf(self, path: str | os.PathLike[str], *args: Any, **kwargs: Any) -> Any:
        return self._one("read_pdf", path, *args, **kwargs)

    # -- the warm indexes ------------------------------------------------------------------------

    def index_status(self) -> dict[str, Any]:
        """Each root's `Workspace.index_status`, by name."""
        return {name: ws.index_status() for name, ws in self._by_name.items()}

    def wait_index(self, timeout: float | None = None) -> bool:
        """Waits for every root's index (`timeout` for each); True when all are ready."""
        return all([ws.wait_index(timeout) for ws in self._by_name.values()])  # noqa: C419 - wait for each

    @property
    def revision(self) -> int | None:
        """A number that changes whenever any root's tree does; None when a root has none."""
        revisions = [ws.revision for ws in self._by_name.values()]
        if any(r is None for r in revisions):
            return None
        return hash(tuple(revisions)) & ((1 << 63) - 1)

    def close(self) -> None:
        for ws in self._by_name.values():
            ws.close()

    def __iter__(self) -> Iterator[Workspace]:
        return iter(self._by_name.values())

    def __len__(self) -> int:
        return len(self._by_name)

    def __enter__(self) -> Roots:  # noqa: PYI034 - Self needs Python 3.11
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Roots({[ws.root for ws in self._by_name.values()]!r})"
