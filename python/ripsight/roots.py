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
each root; this module only routes paths and merges the typed results, reading no file itself.
Paging is exact over the concatenation in root order: each root is asked for its part of the
page (``offset`` less the entries of the roots before it), and once the page is full, the roots
after it are still searched for their totals, all at the same time. The roots of one search
share one time budget: each root's budget is counted from the search's start
(`CancelToken.start_clock`), so a root searched later gets what the earlier ones left. A root inside another root is served under both
names, as two trees.
"""

from __future__ import annotations

import copy
import logging
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .errors import InvalidArgumentError, OutsideRootError, PathNotFoundError, RipsightError
from .limits import DEFAULT_LIMITS, REFERENCES_DEFINITIONS_LISTED
from .workspace import CancelToken, Workspace

__all__ = ["Record", "Rooted", "Roots", "root_names"]

logger = logging.getLogger("ripsight.roots")

#: The separator between a root's name and the path inside it.
_SEP = "/"


def root_names(roots: Iterable[str]) -> list[str]:
    """The name each root is shown under, in order: the directory's name, and ``name-2``,
    ``name-3``... for later roots of a name already taken (``"root"`` for ``/``)."""
    names: list[str] = []
    for root in roots:
        base = os.path.basename(os.path.normpath(root)) or "root"
        name, n = base, 1
        while name in names:
            n += 1
            name = f"{base}-{n}"
        names.append(name)
    return names


def _joined(name: str, path: str) -> str:
    path = path.strip(_SEP)
    return name if path in ("", ".") else f"{name}{_SEP}{path}"


#: The attributes an engine error carries its facts in (`ripsight.errors`).
_ERROR_FACTS = ("reason", "path", "suggestions", "rule", "pattern", "issue", "detail")


def _rooted_error(error: RipsightError, name: str) -> RipsightError:
    """`error`, raised by one root's workspace, with its paths named from the root's name (its
    facts kept, so the model is told what to do next as for one root)."""
    path = getattr(error, "path", None)
    if not isinstance(path, str):
        return error
    text = str(error)
    if text.startswith(path):
        text = _joined(name, path) + text[len(path) :]
    suggestions = getattr(error, "suggestions", None)
    if suggestions:
        suggestions = [_joined(name, s) for s in suggestions]
        text = text.split(" Similar paths: ")[0] + " Similar paths: " + ", ".join(suggestions) + "."
    rooted = type(error)(text)
    for fact in _ERROR_FACTS:
        if hasattr(error, fact):
            setattr(rooted, fact, getattr(error, fact))
    rooted.path = _joined(name, path)  # type: ignore[attr-defined]
    if suggestions:
        rooted.suggestions = suggestions  # type: ignore[attr-defined]
    return rooted


def _clocked(cancel: CancelToken | None) -> CancelToken:
    """The token a search over the roots gives each root: `cancel`'s (or a new one's)
    cancellation and count, its time budget counted from now, so the roots share one budget
    (those searched later get what the earlier ones left)."""
    return (cancel if cancel is not None else CancelToken()).start_clock()


def _wrap(value: Any) -> Any:
    if isinstance(value, dict):
        return Record(value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


class Record:
    """An engine result merged from several roots: the fields of its ``to_dict()`` form as
    read-only attributes (nested results too), and ``to_dict()``. It reads as the engine's
    result does, so the tools format it with the same code."""

    __slots__ = ("_data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getattr__(self, name: str) -> Any:
        if name == "matches" and "lines" in self._data:  # GrepResult.matches
            return [line for line in _wrap(self._data["lines"]) if line.is_match]
        try:
            return _wrap(self._data[name])
        except KeyError:
            raise AttributeError(name) from None

    def to_dict(self) -> dict[str, Any]:
        return copy.deepcopy(self._data)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Record) and other._data == self._data

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Record({self._data!r})"


class Rooted:
    """One file's result from one root (a read, an outline, an image...): the engine's result
    with its `path` named from the root's name, every other attribute its own."""

    __slots__ = ("_result", "path")

    def __init__(self, result: Any, name: str) -> None:
        self._result = result
        self.path = _joined(name, result.path)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._result, name)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = self._result.to_dict()
        data["path"] = self.path
        return data

    def __repr__(self) -> str:
        return f"Rooted({self._result!r}, path={self.path!r})"


# -- merging the typed results of several roots --------------------------------------------------

_SKIP_FIELDS = (
    "ignored",
    "ignored_by_rules",
    "binary",
    "denied",
    "unreadable",
    "special",
    "too_large",
    "line_too_long",
    "outside_root",
    "symlink",
)


def _skipped(parts: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, int]:
    return {key: sum(int(data["skipped"][key]) for _, data in parts) for key in _SKIP_FIELDS}


def _rule(name: str, rule: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if rule is None else {**rule, "file": _joined(name, rule["file"])}


def _hiding_rules(parts: Sequence[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The rules that hid the most, over every root (as many as one root reports at most)."""
    most = max((len(data["hidden_by"]) for _, data in parts), default=0)
    rules = [_rule(name, r) for name, data in parts for r in data["hidden_by"]]
    return sorted(rules, key=lambda r: -int(r["hidden"]) if r else 0)[:most]  # type: ignore[return-value]


def _page_counts(data: dict[str, Any], offset: int, shown: int, total: int) -> None:
    """The page's counters, as the engine states them."""
    data["offset"] = offset
    data["withheld"] = max(0, total - offset - shown)
    data["next_offset"] = offset + shown if data["withheld"] else None


def _searched(name: str, searched: str, whole: bool) -> str:
    return "" if whole else _joined(name, searched)


def merge_glob(parts: Sequence[tuple[str, dict[str, Any]]], offset: int, whole: bool) -> Record:
    """One glob result from each root's (`parts`: the root's name and its part of the page)."""
    first = parts[0][1]
    paths = [_joined(name, p) for name, data in parts for p in data["paths"]]
    total = sum(int(data["total"]) for _, data in parts)
    in_scope = [data["files_in_scope"] for _, data in parts if data["files_in_scope"] is not None]
    anywhere = [data for _, data in parts if data["anywhere_pattern"] is not None]
    merged = {
        "pattern": first["pattern"],
        "more_patterns": first["more_patterns"],
        "paths": paths,
        "total": total,
        "files_in_scope": sum(in_scope) if in_scope else None,
        "anywhere_pattern": anywhere[0]["anywhere_pattern"] if anywhere else None,
        "anywhere_total": sum(int(d["anywhere_total"] or 0) for d in anywhere)
        if anywhere
        else None,
        "searched": _searched(parts[0][0], first["searched"], whole),
        "skipped": _skipped(parts),
        "hidden_by": _hiding_rules(parts),
        "path_ignored_by": None if whole else _rule(parts[0][0], first["path_ignored_by"]),
        "incomplete": any(data["incomplete"] for _, data in parts),
        "elapsed_ms": sum(float(data["elapsed_ms"]) for _, data in parts),
    }
    _page_counts(merged, offset, len(paths), total)
    return Record({key: merged[key] for key in first})


def _grep_entries(data: dict[str, Any]) -> int:
    """The entries a grep result pages: matches (content), or files."""
    if data["output_mode"] == "content":
        return int(data["total_matches"])
    if data["output_mode"] == "files_without_match":
        return int(data["files_searched"]) - int(data["total_files"])
    return int(data["total_files"])


def _grep_shown(data: dict[str, Any]) -> int:
    if data["output_mode"] == "content":
        return sum(1 for line in data["lines"] if line["is_match"])
    return len(data["files"])


def merge_grep(parts: Sequence[tuple[str, dict[str, Any]]], offset: int, whole: bool) -> Record:
    """One grep result from each root's."""
    first = parts[0][1]
    lines = [
        {**line, "path": _joined(name, line["path"])} for name, d in parts for line in d["lines"]
    ]
    files = [{**f, "path": _joined(name, f["path"])} for name, d in parts for f in d["files"]]
    merged = dict(first)
    merged.update(
        lines=lines,
        files=files,
        skipped=_skipped(parts),
        hidden_by=_hiding_rules(parts),
        path_ignored_by=None if whole else _rule(parts[0][0], first["path_ignored_by"]),
        incomplete=any(data["incomplete"] for _, data in parts),
    )
    for key in ("total_matches", "total_files", "files_searched", "withheld_key_blocks",
                "withheld_key_lines"):  # fmt: skip
        merged[key] = sum(int(data[key]) for _, data in parts)
    merged["elapsed_ms"] = sum(float(data["elapsed_ms"]) for _, data in parts)
    _page_counts(merged, offset, sum(_grep_shown(d) for _, d in parts), _grep_entries(merged))
    return Record(merged)


def merge_definitions(
    parts: Sequence[tuple[str, dict[str, Any]]], offset: int, whole: bool
) -> Record:
    """One find_definitions result from each root's."""
    merged = dict(parts[0][1])
    merged["definitions"] = [
        {**found, "path": _joined(name, found["path"])}
        for name, data in parts
        for found in data["definitions"]
    ]
    merged["unparsed"] = [
        {**item, "path": _joined(name, item["path"])}
        for name, data in parts
        for item in data["unparsed"]
    ]
    for key in (
        "total",
        "files_searched",
        "candidate_files",
        "files_parsed",
        "files_cached",
        "unparsed_total",
    ):
        merged[key] = sum(int(data[key]) for _, data in parts)
    merged["skipped"] = _skipped(parts)
    merged["incomplete"] = any(data["incomplete"] for _, data in parts)
    _page_counts(merged, offset, len(merged["definitions"]), merged["total"])
    return Record(merged)


def merge_references(
    parts: Sequence[tuple[str, dict[str, Any]]], offset: int, whole: bool
) -> Record:
    """One find_references result from each root's: the page's references (or callers) in
    root order, the totals by role summed, the definitions of every root listed apart (as many
    as the engine lists, `definitions_total` counting them all)."""
    merged = dict(parts[0][1])
    for key in ("references", "callers", "unparsed"):
        merged[key] = [
            {**item, "path": _joined(name, item["path"])}
            for name, data in parts
            for item in data[key]
        ]
    merged["definitions"] = [
        {**found, "path": _joined(name, found["path"])}
        for name, data in parts
        for found in data["definitions"]
    ][:REFERENCES_DEFINITIONS_LISTED]
    merged["totals"] = {
        role: sum(int(data["totals"][role]) for _, data in parts) for role in merged["totals"]
    }
    for key in (
        "definitions_total",
        "total",
        "files_searched",
        "candidate_files",
        "files_parsed",
        "files_cached",
        "files_cut",
        "unparsed_total",
    ):
        merged[key] = sum(int(data[key]) for _, data in parts)
    merged["skipped"] = _skipped(parts)
    merged["incomplete"] = any(data["incomplete"] for _, data in parts)
    shown = len(merged["references"]) + len(merged["callers"])
    _page_counts(merged, offset, shown, merged["total"])
    return Record(merged)


def merge_calls(parts: Sequence[tuple[str, dict[str, Any]]], offset: int, whole: bool) -> Record:
    """One find_calls result from each root's: the page's callees in root order, the
    definitions of every root listed apart (as many as the engine lists, `definitions_total`
    counting them all), the totals summed."""
    merged = dict(parts[0][1])
    for key in ("calls", "unparsed"):
        merged[key] = [
            {**item, "path": _joined(name, item["path"])}
            for name, data in parts
            for item in data[key]
        ]
    merged["definitions"] = [
        {
            **found,
            "definition": {
                **found["definition"],
                "path": _joined(name, found["definition"]["path"]),
            },
        }
        for name, data in parts
        for found in data["definitions"]
    ][:REFERENCES_DEFINITIONS_LISTED]
    for key in (
        "definitions_total",
        "calls_total",
        "total",
        "files_searched",
        "candidate_files",
        "files_parsed",
        "files_cached",
        "files_cut",
        "unparsed_total",
    ):
        merged[key] = sum(int(data[key]) for _, data in parts)
    merged["skipped"] = _skipped(parts)
    merged["incomplete"] = any(data["incomplete"] for _, data in parts)
    _page_counts(merged, offset, len(merged["calls"]), merged["total"])
    return Record(merged)


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
        if text.strip(_SEP) in ("", "."):
            return None
        name, _, rest = text.partition(_SEP)
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
                raise _rooted_error(error, name) from None
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
                    raise _rooted_error(error, name) from None
                for key in listed:
                    data[key] = []
                parts.append((name, data))
        return parts

    # -- the searches ----------------------------------------------------------------------------

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
        cancel = _clocked(cancel)

        def search(ws: Workspace, inside: str | None, skip: int, room: int | None) -> Any:
            return ws.glob(pattern, inside, room, skip, sort, cancel, **options)

        return self._paged(
            path,
            offset,
            limit,
            search,
            lambda data: len(data["paths"]),
            lambda data: int(data["total"]),
            merge_glob,
            ("paths",),
        )

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
        options["cancel"] = _clocked(options.get("cancel"))

        def search(ws: Workspace, inside: str | None, skip: int, room: int | None) -> Any:
            return ws.grep(pattern, inside, limit=room, offset=skip, **options)

        return self._paged(
            path, offset, limit, search, _grep_shown, _grep_entries, merge_grep, ("lines", "files")
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
        options["cancel"] = _clocked(options.get("cancel"))

        def search(ws: Workspace, inside: str | None, skip: int, room: int | None) -> Any:
            return ws.definitions(name, match, inside, limit=room, offset=skip, **options)

        return self._paged(
            path,
            offset,
            limit,
            search,
            lambda data: len(data["definitions"]),
            lambda data: int(data["total"]),
            merge_definitions,
            ("definitions",),
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
        options["cancel"] = _clocked(options.get("cancel"))

        def search(ws: Workspace, inside: str | None, skip: int, room: int | None) -> Any:
            return ws.references(name, inside, glob, limit=room, offset=skip, **options)

        return self._paged(
            path,
            offset,
            limit,
            search,
            lambda data: len(data["references"]) + len(data["callers"]),
            lambda data: int(data["total"]),
            merge_references,
            ("references", "callers"),
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
        options["cancel"] = _clocked(options.get("cancel"))

        def search(ws: Workspace, inside: str | None, skip: int, room: int | None) -> Any:
            return ws.calls(name, inside, glob, limit=room, offset=skip, **options)

        return self._paged(
            path,
            offset,
            limit,
            search,
            lambda data: len(data["calls"]),
            lambda data: int(data["total"]),
            merge_calls,
            ("calls",),
        )

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
            raise _rooted_error(error, name) from None
        for key in ("files", "unparsed"):
            found[key] = [{**item, "path": _joined(name, item["path"])} for item in found[key]]
        found["focus_unmatched"] = [_joined(name, p) for p in found["focus_unmatched"]]
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
            raise _rooted_error(error, name) from None

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
