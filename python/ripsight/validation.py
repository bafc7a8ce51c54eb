"""Argument checking driven by each tool's JSON Schema, with messages written for a model.

    >>> schema = {"type": "object", "properties": {"limit": {"type": "integer", "minimum": 1}},
    ...           "additionalProperties": False}
    >>> check_arguments(schema, {"limit": "5"}).errors
    ['"limit" must be an integer, got the string "5" (write it without quotes: 5).']

JSON types are checked without coercion (``"5"`` is not an integer, ``true`` is not one either),
``null`` counts as absent, unknown keys are dropped and reported with the closest accepted name,
and every problem is collected rather than only the first.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from .codes import INVALID_ARGUMENTS, MALFORMED_JSON

__all__ = [
    "EXCLUDE_ALIASES",
    "FLAG_ALIASES",
    "ArgumentsError",
    "CheckedArguments",
    "FlagAlias",
    "IgnoredArgument",
    "MappedArgument",
    "check_arguments",
    "closest_name",
    "describe_json_error",
    "describe_value",
    "flag_alias",
    "json_type_name",
    "parse_arguments",
]

# Names models trained on other agents' tools use for our parameters: the hint "did you mean"
# of an unknown key (a boolean's names are `FLAG_ALIASES`, which are mapped, never hinted).
ARGUMENT_ALIASES: dict[str, tuple[str, ...]] = {
    "path": (
        "file_path",
        "filepath",
        "filename",
        "file",
        "file_name",
        "directory",
        "dir",
        "dir_path",
        "folder",
        "cwd",
        "target_file",
        "absolute_path",
        "relative_path",
        "target_directory",
        "search_path",
        "root",
    ),
    "pattern": (
        "query",
        "regex",
        "search",
        "search_term",
        "term",
        "expression",
        "text",
        "glob_pattern",
        "name_pattern",
        "keyword",
    ),
    "glob": (
        "include",
        "includes",
        "file_pattern",
        "file_glob",
        "files",
        "filter",
        "include_pattern",
        "glob_filter",
        "-g",
    ),
    "type": ("file_type", "filetype", "types", "lang", "language", "-t", "t"),
    "type_not": ("exclude_type", "not_type", "type_exclude", "-T", "T"),
    "max_count": ("max_matches_per_file", "max_per_file", "matches_per_file", "-m", "m"),
    "max_depth": ("depth", "maxdepth", "max_level", "levels", "-d"),
    "limit": (
        "max_results",
        "head_limit",
        "max_lines",
        "num_lines",
        "count",
        "lines",
        "n",
        "max",
        "max_matches",
        "max_files",
        "length",
    ),
    "offset": (
        "start_line",
        "line",
        "start",
        "from",
        "line_number",
        "skip",
        "start_index",
        "page",
        "begin",
    ),
    "context": (
        "context_lines",
        "-C",
        "C",
        "lines_of_context",
        "around",
    ),
    "before_context": ("before", "-B", "B", "lines_before", "context_before"),
    "after_context": ("after", "-A", "A", "lines_after", "context_after"),
    "output_mode": ("mode", "output", "format"),
    "sort": ("sort_by", "order", "order_by"),
}


@dataclass(frozen=True, slots=True)
class FlagAlias:
    """A boolean argument of another agent's tool (or an rg flag) that one of ours means:
    `target`, with the opposite value when `negated` (``respect_gitignore=true`` is
    ``include_ignored=false``)."""

    target: str
    negated: bool = False

    def value(self, given: bool) -> bool:
        """Our `target`'s value that means the alias's `given` value."""
        return given != self.negated


_IGNORE_FILES_APPLY = FlagAlias("include_ignored", negated=True)
_IGNORED_INCLUDED = FlagAlias("include_ignored")
_CASE_MATTERS = FlagAlias("case_insensitive", negated=True)
_CASE_IGNORED = FlagAlias("case_insensitive")
_PATTERN_IS_REGEX = FlagAlias("literal", negated=True)
_PATTERN_IS_TEXT = FlagAlias("literal")
_INVERTED = FlagAlias("invert_match")
_MULTILINE = FlagAlias("multiline")

#: Boolean arguments models trained on other agents' tools send, by name, and what they mean
#: here. Each is read as its value of ours, with a note in the result (a negation such as
#: Gemini CLI's ``respect_git_ignore`` gets the opposite value: it is never a hint to the
#: argument of the opposite sense). Words match in any case, with or without ``_`` and ``-``;
#: rg's one-letter flags (``-s`` is case-sensitive, ``-S`` smart case) match exactly.
FLAG_ALIASES: dict[str, FlagAlias] = {
    # Gemini CLI's glob and read_many_files; rg's --no-ignore and -u (--unrestricted)
    "respect_gitignore": _IGNORE_FILES_APPLY,
    "respect_git_ignore": _IGNORE_FILES_APPLY,
    "respect_ignore": _IGNORE_FILES_APPLY,
    "respect_ignore_files": _IGNORE_FILES_APPLY,
    "use_gitignore": _IGNORE_FILES_APPLY,
    "no_ignore": _IGNORED_INCLUDED,
    "include_gitignored": _IGNORED_INCLUDED,
    "unrestricted": _IGNORED_INCLUDED,
    "-u": _IGNORED_INCLUDED,
    # Gemini CLI's glob and Cursor's grep_search: case_sensitive; rg's -s and -i (Claude Code's)
    "case_sensitive": _CASE_MATTERS,
    "match_case": _CASE_MATTERS,
    "-s": _CASE_MATTERS,
    "ignore_case": _CASE_IGNORED,
    "insensitive": _CASE_IGNORED,
    "nocase": _CASE_IGNORED,
    "i": _CASE_IGNORED,
    "-i": _CASE_IGNORED,
    # Windsurf's grep_search: IsRegex; rg's -F (--fixed-strings)
    "is_regex": _PATTERN_IS_REGEX,
    "use_regex": _PATTERN_IS_REGEX,
    "fixed_strings": _PATTERN_IS_TEXT,
    "fixed_string": _PATTERN_IS_TEXT,
    "plain": _PATTERN_IS_TEXT,
    "F": _PATTERN_IS_TEXT,
    "-F": _PATTERN_IS_TEXT,
    # rg's -v (--invert-match) and -U (--multiline)
    "invert": _INVERTED,
    "inverted": _INVERTED,
    "negate": _INVERTED,
    "not_matching": _INVERTED,
    "v": _INVERTED,
    "-v": _INVERTED,
    "multi_line": _MULTILINE,
    "dotall": _MULTILINE,
    "U": _MULTILINE,
    "-U": _MULTILINE,
}


#: Names other agents give the globs of files to leave out (Gemini CLI's read_many_files
#: ``exclude``): read as ``glob`` entries with a leading ``!``, which leave files out here (a
#: hint to ``glob`` would search only those files).
EXCLUDE_ALIASES = (
    "exclude",
    "excludes",
    "exclude_pattern",
    "exclude_patterns",
    "exclude_glob",
    "exclude_globs",
)


def _flag_key(name: str) -> str:
    return name if name.startswith("-") else name.lower().replace("_", "").replace("-", "")


_FLAGS_BY_KEY = {_flag_key(name): alias for name, alias in FLAG_ALIASES.items()}


def flag_alias(name: str) -> FlagAlias | None:
    """The argument of ours a boolean argument named `name` means, if it is a known one."""
    return _FLAGS_BY_KEY.get(_flag_key(name))


_JSON_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean (true or false)",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


class ArgumentsError(ValueError):
    """The argument text is not a JSON object; the message says where and why, for the model."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True, slots=True)
class IgnoredArgument:
    """An unknown key that was dropped, with the accepted name it most likely meant."""

    name: str
    suggestion: str | None

    def sentence(self) -> str:
        if self.suggestion:
            return f'ignored unknown argument "{self.name}" (did you mean "{self.suggestion}"?)'
        return f'ignored unknown argument "{self.name}"'


@dataclass(frozen=True, slots=True)
class MappedArgument:
    """An argument of another name (`FLAG_ALIASES`, `EXCLUDE_ALIASES`), read as the value of
    ours it means."""

    name: str
    given: Any
    target: str
    value: Any

    def sentence(self) -> str:
        return (
            f'read "{self.name}": {_show(self.given)} as "{self.target}": {_show(self.value)}, '
            "which means the same"
        )


@dataclass(frozen=True, slots=True)
class CheckedArguments:
    """The outcome of `check_arguments`."""

    values: dict[str, Any]
    errors: list[str] = field(default_factory=list)
    ignored: list[IgnoredArgument] = field(default_factory=list)
    mapped: list[MappedArgument] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def json_type_name(value: Any) -> str:
    """The JSON type of a parsed value, as a model would name it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _show(value: Any, limit: int = 60) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        # What JavaScript's JSON writers print for them (orjson writes null).
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


def describe_value(value: Any) -> str:
    """A value as a model would name it: ``an object``, ``an array``, ``null``, ``the integer
    5``, ``the string "x"``."""
    kind = json_type_name(value)
    if kind in ("object", "array"):
        return f"an {kind}"
    if value is None:
        return "null"
    return f"the {kind} {_show(value)}"


def closest_name(
    name: str, candidates: Iterable[str], aliases: Mapping[str, Iterable[str]] | None = None
) -> str | None:
    """The accepted name a near miss most likely meant, or None.

    >>> closest_name("file_path", ["pattern", "path", "limit"], ARGUMENT_ALIASES)
    'path'
    """
    candidates = list(candidates)
    lowered = {c.lower(): c for c in candidates}
    if name.lower() in lowered:
        return lowered[name.lower()]
    normalised = name.lower().replace("-", "_")
    if aliases:
        for target, names in aliases.items():
            if target in candidates and normalised in {a.lower() for a in names}:
                return target
    for candidate in candidates:
        if len(candidate) >= 4 and (candidate in normalised or normalised in candidate):
            return candidate
    match = difflib.get_close_matches(normalised, candidates, n=1, cutoff=0.6)
    return match[0] if match else None


def _type_matches(value: Any, expected: str) -> bool:
    if expected == "string":
        return isinstance(value, str)
    if expected == "integer":
        if isinstance(value, bool):
            return False
        if isinstance(value, int):
            return True
        # JSON has one number type: 5.0 is the integer 5 (JSON Schema agrees); 5.5 is not.
        return isinstance(value, float) and math.isfinite(value) and value.is_integer()
    if expected == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if expected == "boolean":
        return isinstance(value, bool)
    if expected == "array":
        return isinstance(value, (list, tuple))
    if expected == "object":
        return isinstance(value, Mapping)
    if expected == "null":
        return value is None
    return True


def _type_hint(value: Any, expected: str) -> str:
    """Extra guidance for the common mix-ups."""
    if isinstance(value, str):
        stripped = value.strip()
        if expected in ("integer", "number"):
            try:
                number = orjson.loads(stripped)
            except orjson.JSONDecodeError:
                return ""
            if _type_matches(number, expected):
                return f" (write it without quotes: {stripped})"
        if expected == "boolean" and stripped.lower() in ("true", "false"):
            return f" (write it without quotes: {stripped.lower()})"
    if expected == "integer" and isinstance(value, bool):
        return " (a boolean is not a number)"
    if expected == "integer" and isinstance(value, float):
        return " (use a whole number)"
    if expected == "string" and isinstance(value, (list, tuple)):
        return " (pass one string; call the tool again for another value)"
    return ""


def _plural_items(count: int) -> str:
    return f"{count} item" if count == 1 else f"{count} items"


def _check_value(name: str, value: Any, schema: Mapping[str, Any], errors: list[str]) -> Any:
    """Checks one value against its property schema; returns it (integers normalised)."""
    expected = schema.get("type")
    types = [expected] if isinstance(expected, str) else list(expected or [])
    if types and not any(_type_matches(value, t) for t in types):
        wanted = " or ".join(_JSON_TYPE_NAMES.get(t, t) for t in types if t != "null")
        errors.append(
            f'"{name}" must be {wanted}, got {describe_value(value)}{_type_hint(value, types[0])}.'
        )
        return value
    if "integer" in types and isinstance(value, float):
        value = int(value)
    enum = schema.get("enum")
    if enum is not None and value not in enum:
        choices = ", ".join(_show(e) for e in enum)
        message = f'"{name}" must be one of {choices}; got {_show(value)}'
        if isinstance(value, str):
            near = closest_name(value, [e for e in enum if isinstance(e, str)])
            if near is not None:
                message += f' (did you mean "{near}"?)'
        errors.append(message + ".")
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        minimum = schema.get("minimum")
        maximum = schema.get("maximum")
        if minimum is not None and value < minimum:
            errors.append(f'"{name}" must be at least {minimum}, got {_show(value)}.')
        elif maximum is not None and value > maximum:
            errors.append(f'"{name}" must be at most {maximum}, got {_show(value)}.')
    if isinstance(value, str):
        min_length = schema.get("minLength")
        max_length = schema.get("maxLength")
        if min_length is not None and len(value) < min_length:
            if min_length == 1:
                errors.append(f'"{name}" must not be empty.')
            else:
                errors.append(f'"{name}" must be at least {min_length} characters long.')
        elif max_length is not None and len(value) > max_length:
            errors.append(
                f'"{name}" must be at most {max_length} characters long, got {len(value)}.'
            )
    min_items = schema.get("minItems")
    if isinstance(value, (list, tuple)) and min_items is not None and len(value) < min_items:
        errors.append(f'"{name}" must hold at least {_plural_items(min_items)}.')
    if isinstance(value, (list, tuple)) and isinstance(schema.get("items"), Mapping):
        value = [
            _check_value(f"{name}[{i}]", item, schema["items"], errors)
            for i, item in enumerate(value)
        ]
    return value


def _read_flag(
    name: str,
    value: Any,
    alias: FlagAlias,
    values: dict[str, Any],
    errors: list[str],
    mapped: list[MappedArgument],
) -> None:
    """A known boolean of another name (`FLAG_ALIASES`): its value of ours goes into `values`;
    a value that is not a boolean, or one that contradicts the argument of ours (given, or
    read from another alias), is an error saying which value of ours means what."""
    target = alias.target
    if not isinstance(value, bool):
        errors.append(
            f'"{name}" is not an argument of this tool: "{target}": '
            f"{_show(alias.value(True))} means {name}=true, and "
            f'"{target}": {_show(alias.value(False))} means {name}=false.'
        )
        return
    ours = alias.value(value)
    if target in values and not isinstance(values[target], bool):
        return  # ours is not a boolean either: that is the error to fix first
    if target in values and values[target] != ours:
        errors.append(
            f'"{name}": {_show(value)} means "{target}": {_show(ours)}, but "{target}" is '
            f'{_show(values[target])}; send only "{target}".'
        )
        return
    values[target] = ours
    mapped.append(MappedArgument(name, value, target, ours))


def _read_exclude(
    name: str,
    value: Any,
    values: dict[str, Any],
    errors: list[str],
    mapped: list[MappedArgument],
) -> None:
    """Globs to leave out (`EXCLUDE_ALIASES`), added to ``glob`` with a leading ``!`` (after
    the globs given: the last glob that matches decides)."""
    excluded = [value] if isinstance(value, str) else value
    if not (
        isinstance(excluded, list)
        and excluded
        and all(isinstance(v, str) and v.strip("!") for v in excluded)
    ):
        errors.append(
            f'"{name}" is not an argument of this tool: "glob": "!*.md" leaves out the files '
            'that "*.md" names (a list such as ["*.py", "!test_*.py"] applies each in turn).'
        )
        return
    given = values.get("glob")
    if not (given is None or isinstance(given, (str, list))):
        return  # glob is refused already: that is the error to fix first
    globs = [given] if isinstance(given, str) else list(given or [])
    added = ["!" + v.removeprefix("!") for v in excluded]
    values["glob"] = [*globs, *added]
    mapped.append(MappedArgument(name, value, "glob", added[0] if len(added) == 1 else added))


def check_arguments(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> CheckedArguments:
    """Checks parsed arguments against an object schema; fills in each property's default.

    Returns every error at once. A `null` value counts as absent (so the default applies);
    a known boolean of another agent's name is read as the argument of ours it means
    (`FLAG_ALIASES`: ``respect_gitignore=true`` is ``include_ignored=false``); other keys the
    schema does not know are dropped and reported with the closest accepted name.
    """
    properties: Mapping[str, Any] = schema.get("properties", {})
    required = list(schema.get("required", ()))
    errors: list[str] = []
    ignored: list[IgnoredArgument] = []
    mapped: list[MappedArgument] = []
    values: dict[str, Any] = {}
    flags: list[tuple[str, Any, FlagAlias]] = []
    excludes: list[tuple[str, Any]] = []
    for key, value in arguments.items():
        key = str(key)
        if key not in properties:
            alias = flag_alias(key)
            if key.lower() in EXCLUDE_ALIASES:
                if "glob" in properties and value is not None:
                    excludes.append((key, value))
                else:
                    ignored.append(IgnoredArgument(key, None))
            elif alias is None:
                suggestion = closest_name(key, properties, ARGUMENT_ALIASES)
                ignored.append(IgnoredArgument(key, suggestion))
            elif alias.target in properties and value is not None:
                flags.append((key, value, alias))
            else:  # never a hint: the closest name may mean the opposite
                ignored.append(IgnoredArgument(key, None))
            continue
        if value is None:
            continue
        values[key] = _check_value(key, value, properties[key], errors)
    # After the arguments of ours: an alias that contradicts one is refused, whatever the order.
    for key, value, alias in flags:
        _read_flag(key, value, alias, values, errors, mapped)
    for key, value in excludes:
        _read_exclude(key, value, values, errors, mapped)
    for key in required:
        if key not in values:
            prop = properties.get(key, {})
            kind = prop.get("type")
            kind_text = f" ({kind})" if isinstance(kind, str) else ""
            described = " ".join(str(prop.get("description", "")).split())
            errors.append(
                f'missing required argument "{key}"{kind_text}'
                + (f": {described}" if described else ".")
            )
    for key, prop in properties.items():
        if key not in values and "default" in prop and prop["default"] is not None:
            values[key] = prop["default"]
    return CheckedArguments(values=values, errors=errors, ignored=ignored, mapped=mapped)


def _json_state_at_end(text: str) -> tuple[bool, list[str]]:
    """Whether `text` ends inside a string, and which brackets are still open."""
    in_string = False
    escaped = False
    stack: list[str] = []
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append(ch)
        elif ch in "}]" and stack:
            stack.pop()
    return in_string, stack


def _quote(text: str) -> str:
    return "`" + text.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t") + "`"


def describe_json_error(text: str, error: orjson.JSONDecodeError) -> str:
    """Says where the JSON broke and what was expected, quoting the text around that place.

    >>> try:
    ...     orjson.loads('{"a": }')
    ... except orjson.JSONDecodeError as e:
    ...     describe_json_error('{"a": }', e)
    'unexpected character, expected a JSON value at line 1, column 7 (character 6): the text up to there is `{"a": ` and it continues with `}`'
    """
    pos = max(0, min(error.pos, len(text)))
    where = f"line {error.lineno}, column {error.colno} (character {pos})"
    before = text[max(0, pos - 40) : pos]
    if len(before) < pos:
        before = "..." + before
    if pos >= len(text.rstrip()) and text.strip():
        in_string, stack = _json_state_at_end(text)
        missing = "".join("}" if b == "{" else "]" for b in reversed(stack))
        problems = []
        if in_string:
            problems.append("inside a string (the closing quote is missing)")
        if missing:
            count = len(stack)
            problems.append(
                f"with {count} bracket{'s' if count != 1 else ''} still open "
                f"(missing {_quote(missing)})"
            )
        state = ", ".join(problems)
        return (
            f"{error.msg} at {where}: the text ends {state + ', ' if state else ''}"
            f"after {_quote(before)}; it looks cut off"
        )
    after = text[pos : pos + 20]
    return (
        f"{error.msg} at {where}: the text up to there is {_quote(before)} and it continues "
        f"with {_quote(after)}"
    )


def parse_arguments(raw: Any) -> tuple[dict[str, Any], list[str]]:
    """Turns a call's raw arguments into a dict; raises `ArgumentsError` with model-facing text.

    Returns the arguments and a list of notes (for metadata). Empty text counts as ``{}``, as
    providers send for calls without arguments. A JSON string that itself holds one JSON object
    (double-encoded arguments, which some models produce) is unwrapped once.
    """
    notes: list[str] = []
    if isinstance(raw, Mapping):
        return dict(raw), notes
    if isinstance(raw, (bytes, bytearray)):
        raw = bytes(raw).decode("utf-8", errors="replace")
    if not isinstance(raw, str):
        raise ArgumentsError(
            f"The arguments must be a JSON object, got {describe_value(raw)}. "
            'Send them as one JSON object, for example {"pattern": "TODO"}.',
            INVALID_ARGUMENTS,
        )
    if not raw.strip():
        return {}, notes
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise ArgumentsError(
            "The arguments are not valid JSON: "
            + describe_json_error(raw, error)
            + ". Nothing was run. Send the arguments again as one complete JSON object, "
            'for example {"pattern": "TODO"}.',
            MALFORMED_JSON,
        ) from None
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            inner = orjson.loads(value)
        except orjson.JSONDecodeError:
            inner = None
        if isinstance(inner, dict):
            notes.append("arguments were a JSON string holding an object; unwrapped once")
            value = inner
    if not isinstance(value, dict):
        raise ArgumentsError(
            f"The arguments must be a JSON object, got {describe_value(value)}. "
            'Send them as one JSON object with named fields, for example {"pattern": "TODO"}.',
            INVALID_ARGUMENTS,
        )
    return value, notes
