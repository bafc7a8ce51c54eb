"""ripgrep's built-in file types (grep's and glob's ``type``), and what to say of a name that is
not one.

    >>> FILE_TYPES["py"]
    ('*.py', '*.pyi')
    >>> unknown_types(["rust", "pyhton"])
    ['"pyhton" is not a file type (did you mean "python"?)']

The names and their globs come from the engine (the ``ignore`` crate's definitions, the same as
``rg --type-list``); nothing here lists them again.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

import ripsight._core as _engine

__all__ = ["FILE_TYPES", "unknown_types"]

#: Every file type by name, with the globs its files' names match.
FILE_TYPES: Mapping[str, tuple[str, ...]] = {
    name: tuple(globs) for name, globs in sorted(_engine.FILE_TYPES.items())
}

#: The name that selects every type (``rg -t all``).
_ALL = "all"

#: Language names whose type is named otherwise, which no spelling distance finds.
_LANGUAGE_NAMES = {
    "javascript": "js",
    "golang": "go",
    "shell": "sh",
    "c++": "cpp",
    "c#": "csharp",
    "objective-c": "objc",
}


def _suggestion(name: str) -> str | None:
    """The type a name that is not one most likely meant: a language's usual name, the type
    whose files have that extension (``rs``: rust), or the closest spelling."""
    lowered = name.lower().strip().removeprefix(".").removeprefix("*.")
    if lowered in FILE_TYPES:
        return lowered
    if lowered in _LANGUAGE_NAMES:
        return _LANGUAGE_NAMES[lowered]
    by_extension = [t for t, globs in FILE_TYPES.items() if f"*.{lowered}" in globs]
    if by_extension:
        return by_extension[0]
    close = difflib.get_close_matches(lowered, [*FILE_TYPES, _ALL], n=1, cutoff=0.6)
    return close[0] if close else None


def unknown_types(names: Iterable[str]) -> list[str]:
    """A sentence for each name that is not a file type, with the type it likely meant."""
    problems = []
    for name in names:
        if name == _ALL or name in FILE_TYPES:
            continue
        near = _suggestion(name)
        hint = (
            f' (did you mean "{near}"?)'
            if near
            else " (file types are named like py, rust, js, ts, go, c, cpp, java, md, json)"
        )
        problems.append(f'"{name}" is not a file type{hint}')
    return problems
