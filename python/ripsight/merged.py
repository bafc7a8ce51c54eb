"""The results of a search over several roots, merged: each root's paths named from its root's
name (`root_names`), its errors too, and the typed results of the roots joined in root order
(`Record`, `Rooted`, the `merge_*` functions). `Roots` routes the calls; this module reads no
file and calls no workspace.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterable, Sequence
from typing import Any

from .errors import RipsightError
from .limits import REFERENCES_DEFINITIONS_LISTED

#: Each root's name and its part of a result (its ``to_dict()`` form), in root order.
Parts = Sequence[tuple[str, dict[str, Any]]]

__all__ = [
    "SEP",
    "Record",
    "Rooted",
    "grep_entries",
    "grep_shown",
    "joined",
    "merge_calls",
    "merge_definitions",
    "merge_glob",
    "merge_grep",
    "merge_references",
    "root_names",
    "rooted_error",
]

#: The separator between a root's name and the path inside it.
SEP = "/"


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


def joined(name: str, path: str) -> str:
    path = path.strip(SEP)
    return name if path in ("", ".") else f"{name}{SEP}{path}"


#: The attributes an engine error carries its facts in (`ripsight.errors`).
_ERROR_FACTS = ("reason", "path", "suggestions", "rule", "pattern", "issue", "detail")


def rooted_error(error: RipsightError, name: str) -> RipsightError:
    """`error`, raised by one root's workspace, with its paths named from the root's name (its
    facts kept, so the model is told what to do next as for one root)."""
    path = getattr(error, "path", None)
    if not isinstance(path, str):
        return error
    text = str(error)
    if text.startswith(path):
        text = joined(name, path) + text[len(path) :]
    suggestions = getattr(error, "suggestions", None)
    if suggestions:
        suggestions = [joined(name, s) for s in suggestions]
        text = text.split(" Similar paths: ")[0] + " Similar paths: " + ", ".join(suggestions) + "."
    rooted = type(error)(text)
    for fact in _ERROR_FACTS:
        if hasattr(error, fact):
            setattr(rooted, fact, getattr(error, fact))
    rooted.path = joined(name, path)  # type: ignore[attr-defined]
    if suggestions:
        rooted.suggestions = suggestions  # type: ignore[attr-defined]
    return rooted


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
        self.path = joined(name, result.path)

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


def _skipped(parts: Parts) -> dict[str, int]:
    return {key: sum(int(data["skipped"][key]) for _, data in parts) for key in _SKIP_FIELDS}


def _rule(name: str, rule: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if rule is None else {**rule, "file": joined(name, rule["file"])}


def _hiding_rules(parts: Parts) -> list[dict[str, Any]]:
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
    return "" if whole else joined(name, searched)


def merge_glob(parts: Parts, offset: int, whole: bool) -> Record:
    """One glob result from each root's (`parts`: the root's name and its part of the page)."""
    first = parts[0][1]
    paths = [joined(name, p) for name, data in parts for p in data["paths"]]
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


def grep_entries(data: dict[str, Any]) -> int:
    """The entries a grep result pages: matches (content), or files."""
    if data["output_mode"] == "content":
        return int(data["total_matches"])
    if data["output_mode"] == "files_without_match":
        return int(data["files_searched"]) - int(data["total_files"])
    return int(data["total_files"])


def grep_shown(data: dict[str, Any]) -> int:
    if data["output_mode"] == "content":
        return sum(1 for line in data["lines"] if line["is_match"])
    return len(data["files"])


def merge_grep(parts: Parts, offset: int, whole: bool) -> Record:
    """One grep result from each root's."""
    first = parts[0][1]
    lines = [
        {**line, "path": joined(name, line["path"])} for name, d in parts for line in d["lines"]
    ]
    files = [{**f, "path": joined(name, f["path"])} for name, d in parts for f in d["files"]]
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
    _page_counts(merged, offset, sum(grep_shown(d) for _, d in parts), grep_entries(merged))
    return Record(merged)


def _rooted(parts: Parts, key: str) -> list[dict[str, Any]]:
    """Every root's `key` list in root order, each item's path named from its root."""
    return [
        {**item, "path": joined(name, item["path"])} for name, data in parts for item in data[key]
    ]


#: The counters every search by name sums over the roots.
_NAMED_COUNTS = ("total", "files_searched", "candidate_files", "files_parsed", "files_cached",
                 "unparsed_total")  # fmt: skip


def _summed(
    merged: dict[str, Any], parts: Parts, counts: Sequence[str], offset: int, shown: int
) -> Record:
    """`merged` with `counts` summed over the roots, the skips and incompleteness of every
    root, and the page's counters for `shown` entries."""
    for key in counts:
        merged[key] = sum(int(data[key]) for _, data in parts)
    merged["skipped"] = _skipped(parts)
    merged["incomplete"] = any(data["incomplete"] for _, data in parts)
    _page_counts(merged, offset, shown, merged["total"])
    return Record(merged)


def merge_definitions(parts: Parts, offset: int, whole: bool) -> Record:
    """One find_definitions result from each root's."""
    merged = dict(parts[0][1])
    merged["definitions"] = _rooted(parts, "definitions")
    merged["unparsed"] = _rooted(parts, "unparsed")
    return _summed(merged, parts, _NAMED_COUNTS, offset, len(merged["definitions"]))


def merge_references(parts: Parts, offset: int, whole: bool) -> Record:
    """One find_references result from each root's: the page's references (or callers) in
    root order, the totals by role summed, the definitions of every root listed apart (as many
    as the engine lists, `definitions_total` counting them all)."""
    merged = dict(parts[0][1])
    for key in ("references", "callers", "unparsed"):
        merged[key] = _rooted(parts, key)
    merged["definitions"] = _rooted(parts, "definitions")[:REFERENCES_DEFINITIONS_LISTED]
    merged["totals"] = {
        role: sum(int(data["totals"][role]) for _, data in parts) for role in merged["totals"]
    }
    counts = (
        *_NAMED_COUNTS,
        "definitions_total",
        "files_cut",
        "resolved",
        "by_name",
        "bound_elsewhere",
    )
    shown = len(merged["references"]) + len(merged["callers"])
    return _summed(merged, parts, counts, offset, shown)


def merge_calls(parts: Parts, offset: int, whole: bool) -> Record:
    """One find_calls result from each root's: the page's callees in root order, the
    definitions of every root listed apart (as many as the engine lists, `definitions_total`
    counting them all), the totals summed."""
    merged = dict(parts[0][1])
    for key in ("calls", "unparsed"):
        merged[key] = _rooted(parts, key)
    merged["definitions"] = [
        {
            **found,
            "definition": {
                **found["definition"],
                "path": joined(name, found["definition"]["path"]),
            },
        }
        for name, data in parts
        for found in data["definitions"]
    ][:REFERENCES_DEFINITIONS_LISTED]
    counts = (*_NAMED_COUNTS, "definitions_total", "calls_total", "files_cut")
    return _summed(merged, parts, counts, offset, len(merged["calls"]))
