"""Shared helpers of the protocol-layer tests (not a conftest: fixtures live in the test files)."""

from __future__ import annotations

import os
from types import SimpleNamespace
from typing import Any

from ripsight import _core
from ripsight.registry import Registry
from ripsight.tools import builtin_tools

#: What every unknown-tool answer ends with: the built-in tools, in name order.
AVAILABLE = "Available tools: find_calls, find_definitions, find_references, glob, grep, outline, read_file, read_result, repo_map."


def _default(prop: dict[str, Any]) -> Any:
    """A neutral value of a schema property: 0, "", False, None, [] or a nested record."""
    kind = prop["type"]
    if isinstance(kind, list):
        return None
    if kind == "object":
        return SimpleNamespace(**{k: _default(v) for k, v in prop["properties"].items()})
    if kind == "string":
        return prop.get("enum", [""])[0]
    return {"integer": 0, "number": 0.0, "boolean": False, "array": []}[kind]


def _fake(cls: Any, defaults: dict[str, Any], values: dict[str, Any]) -> SimpleNamespace:
    """A stand-in for an engine result: every field of the engine's declaration (its SCHEMA),
    neutral unless `defaults` or `values` say otherwise."""
    base = {name: _default(prop) for name, prop in cls.SCHEMA["properties"].items()}
    base.update(defaults)
    base.update(values)
    unknown = set(base) - set(cls.FIELDS)
    assert not unknown, f"{cls.__name__} has no field {sorted(unknown)}"
    return SimpleNamespace(**base)


def _next_offset(base: SimpleNamespace, shown: int) -> int | None:
    return base.offset + shown if base.withheld and shown else None


def skips(**values: int) -> SimpleNamespace:
    return _fake(_core.SkipCounts, {}, values)


def glob_result(**values: Any) -> SimpleNamespace:
    result = _fake(_core.GlobResult, {"pattern": "**/*.py", "elapsed_ms": 1.0}, values)
    if "next_offset" not in values:
        result.next_offset = _next_offset(result, len(result.paths))
    return result


def gline(path: str, line: int, text: str, is_match: bool = True, cut: bool = False):
    return SimpleNamespace(
        path=path, line=line, text=text, is_match=is_match, counted=is_match, cut=cut
    )


def grep_result(**values: Any) -> SimpleNamespace:
    result = _fake(_core.GrepResult, {"pattern": "TODO", "elapsed_ms": 1.0}, values)
    if "next_offset" not in values:
        shown = (
            sum(1 for line in result.lines if line.is_match)
            if result.output_mode == "content"
            else len(result.files)
        )
        result.next_offset = _next_offset(result, shown)
    return result


def rline(number: int, text: str, cut_from: int | None = None) -> SimpleNamespace:
    return SimpleNamespace(number=number, text=text, cut_from=cut_from)


def read_result(**values: Any) -> SimpleNamespace:
    defaults = {
        "path": "src/app.py",
        "size_bytes": 100,
        "offset": 1,
        "line_ending": "LF",
        "encoding": "utf-8",
        "dev": 1,
        "inode": 1,
    }
    return _fake(_core.ReadResult, defaults, values)


class FakeWorkspace:
    """Stands in for `Workspace` in handler tests: reads real small files with Python, so the
    registry's wiring (read state, meta, errors) is testable before the engine exists."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = os.path.realpath(root)
        self.calls: list[tuple[str, tuple, dict]] = []
        self.fail_with: BaseException | None = None

    def _record(self, name: str, *args: Any, **kwargs: Any) -> None:
        self.calls.append((name, args, kwargs))
        if self.fail_with is not None:
            raise self.fail_with

    def glob(self, pattern: str, **kwargs: Any) -> SimpleNamespace:
        self._record("glob", pattern, **kwargs)
        return glob_result(pattern=pattern, paths=["a.py"], total=1)

    def grep(self, pattern: str, **kwargs: Any) -> SimpleNamespace:
        self._record("grep", pattern, **kwargs)
        return grep_result(
            pattern=pattern,
            lines=[gline("a.py", 1, "x = 1")],
            total_matches=1,
            total_files=1,
            files_searched=1,
        )

    def _identity(self, path: str) -> dict[str, Any]:
        st = os.stat(os.path.join(self.root, path))
        return {"dev": st.st_dev, "inode": st.st_ino, "mtime_ns": st.st_mtime_ns}

    def identify(self, path: str, cancel: Any = None) -> SimpleNamespace:
        """The engine's `identify`: the fake stats the (test-chosen) path itself."""
        if self.fail_with is not None:
            raise self.fail_with
        st = os.stat(os.path.join(self.root, path))
        return SimpleNamespace(path=path, size=st.st_size, **self._identity(path))

    def read_file(
        self,
        path: str,
        offset: int = 1,
        limit: int = 400,
        max_line_chars: int = 500,
        cancel: Any = None,
    ) -> SimpleNamespace:
        self._record(
            "read_file",
            path,
            offset=offset,
            limit=limit,
            max_line_chars=max_line_chars,
            cancel=cancel,
        )
        with open(os.path.join(self.root, path), encoding="utf-8") as handle:
            all_lines = handle.read().splitlines()
        shown = all_lines[offset - 1 : offset - 1 + limit]
        last = offset - 1 + len(shown)
        return read_result(
            path=path,
            size_bytes=os.path.getsize(os.path.join(self.root, path)),
            **self._identity(path),
            lines=[rline(offset + i, t) for i, t in enumerate(shown)],
            offset=offset,
            total_lines=len(all_lines),
            next_offset=last + 1 if last < len(all_lines) else None,
        )


def registry_with(workspace: Any = None, **kwargs: Any) -> Registry:
    registry = Registry(workspace, **kwargs)
    for spec in builtin_tools():
        registry.register(spec)
    return registry


class PyWorkspace(FakeWorkspace):
    """A tiny pure-Python stand-in for the engine (no ignore rules, small trees only), so the
    demo loop can be exercised before the Rust engine is merged."""

    def _files(self, base: str) -> list[str]:
        out = []
        for folder, dirs, files in os.walk(os.path.join(self.root, base)):
            dirs[:] = sorted(d for d in dirs if d not in (".git", "__pycache__"))
            for name in files:
                out.append(
                    os.path.relpath(os.path.join(folder, name), self.root).replace(os.sep, "/")
                )
        return sorted(out)

    @staticmethod
    def _neutral(options: dict[str, Any]) -> None:
        """The stand-in knows no file types, depths or ignore files: those options stay unset."""
        assert not any(options.values()), f"the stand-in engine cannot honour {options}"

    def glob(
        self, pattern: str, path=None, limit=200, offset=0, sort="path", cancel=None, **options
    ):
        import fnmatch

        self._neutral(options)
        self._record("glob", pattern, path=path, limit=limit, offset=offset, sort=sort)
        regex = fnmatch.translate(pattern.replace("**/", "\x00")).replace("\x00", "(?:.*/)?")
        import re

        found = [p for p in self._files(path or "") if re.match(regex, p)]
        page = found[offset : offset + limit]
        return glob_result(
            pattern=pattern,
            paths=page,
            total=len(found),
            offset=offset,
            withheld=max(0, len(found) - offset - len(page)),
            files_in_scope=None if found else len(self._files(path or "")),
            searched=path or "",
        )

    def grep(
        self,
        pattern: str,
        path=None,
        glob=None,
        literal=False,
        case_insensitive=False,
        context=0,
        before_context=None,
        after_context=None,
        multiline=False,
        output_mode="content",
        limit=50,
        offset=0,
        max_line_chars=120,
        cancel=None,
        **options,
    ):
        import fnmatch
        import re

        self._neutral(options)

        before = context if before_context is None else before_context
        after = context if after_context is None else after_context
        globs = [glob] if isinstance(glob, str) else list(glob or [])

        self._record("grep", pattern, path=path, glob=glob)
        regex = re.compile(
            re.escape(pattern) if literal else pattern, re.IGNORECASE if case_insensitive else 0
        )
        lines, total, files = [], 0, set()
        names = self._files(path or "")
        for name in names:
            base = name.rsplit("/", 1)[-1]
            if globs and not any(fnmatch.fnmatch(base, g) for g in globs):
                continue
            with open(os.path.join(self.root, name), encoding="utf-8", errors="replace") as f:
                text = f.read().splitlines()
            hits = [i for i, t in enumerate(text) if regex.search(t)]
            total += len(hits)
            files.update([name] if hits else [])
            shown: dict[int, bool] = {}
            for i in hits:
                for j in range(max(0, i - before), min(len(text), i + after + 1)):
                    shown[j] = shown.get(j, False) or j == i
            for j in sorted(shown):
                lines.append(gline(name, j + 1, text[j], shown[j]))
        return grep_result(
            pattern=pattern,
            lines=lines,
            total_matches=total,
            total_files=len(files),
            files_searched=len(names),
        )
