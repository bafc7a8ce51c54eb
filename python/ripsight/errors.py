"""The exceptions ripsight raises, and what a model is told about them.

The classes are defined by the engine (``ripsight._core``) and re-exported here. Every class
derives from :class:`RipsightError` and from the built-in exception that fits, so
``except FileNotFoundError`` and ``except ValueError`` work as a Python programmer expects.

An engine error's message states facts only; its attributes carry the same facts as data
(``reason``, ``path``, ``suggestions``, ``rule``, ``pattern``, ``issue``, ``detail``). :func:`model_text`
adds the sentence that tells a model what to do next: it is the one place that knows the
tools' argument names.
"""

from __future__ import annotations

from ._core import (
    CancelledError,
    DeniedError,
    EngineError,
    InvalidArgumentError,
    IsADirectoryPathError,
    NotADirectoryPathError,
    OutsideRootError,
    PathNotFoundError,
    PatternError,
    RipsightError,
    SpecialFileError,
    UnreadableError,
)

__all__ = [
    "CancelledError",
    "DeniedError",
    "EngineError",
    "InvalidArgumentError",
    "IsADirectoryPathError",
    "NotADirectoryPathError",
    "OutsideRootError",
    "PathNotFoundError",
    "PatternError",
    "RipsightError",
    "SpecialFileError",
    "UnreadableError",
    "model_text",
]

_REGEX_HELP = (
    "The pattern is a Rust regex: escape special characters such as ( ) [ ] { } . * + ? | \\ "
    "with a backslash, or set literal=true to search for the text as written."
)
_GLOB_HELP = (
    "Glob syntax: `*` matches within one directory level, `**` across levels (as a whole path "
    "component: `**/x`, `a/**/b`, `a/**`), `?` one character, `{a,b}` alternatives, `[abc]` a "
    "character class; for example `**/*.py` or `src/**/*.{ts,tsx}`."
)

#: What to do about each kind of pattern problem (``PatternError.issue``).
_PATTERN_ADVICE = {
    "regex": "\n" + _REGEX_HELP,
    "line_break": "\nThe pattern matches a line break: set multiline=true to match across lines.",
    "too_large": "\nSearch for a shorter, distinctive piece of the text instead.",
    "glob": ". " + _GLOB_HELP,
    "empty_pattern": "; use `*` for the files of this directory or `**/*` for every file below it.",
    "empty_glob": "; pass a file pattern such as `*.py` or `src/**/*.ts`, or leave glob out to "
    "search every file.",
    "absolute_glob": "; patterns match paths relative to `path`, such as `**/*.py` or `src/*.rs`.",
    "parent_glob": ". To list another directory of the workspace, pass it as `path` (for example "
    'path="src", pattern="**/*.py").',
    "deny_rule": "; deny rules use glob syntax such as '*.pem' or 'secrets/**'.",
    "ask_rule": "; ask rules use glob syntax such as '*.pdf' or 'private/**'.",
}


def _advice(error: RipsightError) -> str:
    """The sentence that tells a model what to do after `error`, or ""."""
    path = getattr(error, "path", None)
    if isinstance(error, PathNotFoundError) and path is not None:
        suggestions = getattr(error, "suggestions", None) or []
        if suggestions:
            return f" Did you mean: {', '.join(suggestions)}?"
        return " Use glob to find the file's real path."
    if isinstance(error, OutsideRootError) and path is not None:
        return " Use a path relative to the root, without '..'."
    if isinstance(error, DeniedError) and path is not None:
        return " Do not try other ways to read it."
    if isinstance(error, IsADirectoryPathError) and path is not None:
        return (
            f' To see what it holds, call glob with path="{path}" and pattern="*" (or "**/*" '
            "for every depth)."
        )
    if isinstance(error, NotADirectoryPathError) and path is not None:
        named = path.rstrip()
        while named.endswith(("/", "/.")):
            named = named.removesuffix("/").removesuffix("/.")
        if named and named != path.rstrip():
            # `a.txt/`: a trailing slash names a directory, as open(2) reads it.
            return f' A trailing "/" names a directory; to read the file, pass path="{named}".'
        return " Pass a directory as path, or read the file with read_file."
    reason = getattr(error, "reason", None)
    if reason == "path_too_long":
        return " Use a shorter path; glob lists the real names of a directory's files."
    if reason == "link_loop":
        return " Pass the file's real path instead; glob lists real paths (walks follow no link)."
    if isinstance(error, EngineError) and str(error).startswith("internal error"):
        return " Try a narrower request."
    return ""


#: The regex advice of a tool whose regex is no grep pattern: how it takes the text as written.
_REGEX_AS_WRITTEN = {
    "find_definitions": 'set match="exact" (the default) to find the name as written.',
}


def model_text(error: RipsightError, tool: str | None = None) -> str:
    """What a model reads for `error` (raised by the tool `tool`): the engine's facts and what
    to do next.

    An error raised by the engine carries its facts as attributes; one raised elsewhere (or
    constructed by hand) is shown as its message.
    """
    text = str(error)
    issue = getattr(error, "issue", None)
    if isinstance(error, PatternError) and issue in _PATTERN_ADVICE:
        advice = _PATTERN_ADVICE[issue]
        if issue == "regex" and tool in _REGEX_AS_WRITTEN:
            advice = advice.split(", or set literal=true")[0] + ", or " + _REGEX_AS_WRITTEN[tool]
        return text + advice
    if isinstance(error, PathNotFoundError) and getattr(error, "suggestions", None):
        # The engine lists the close names as a fact; the advice asks about them instead.
        text = text.split(" Similar paths: ")[0]
    return text + _advice(error)
