"""The options every command shares: the `ToolLimits` flags and the workspace the tools work
in, and the registry they describe."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from ..limits import TIME_BUDGET
from ..oplog import OperationLog
from ..registry import Registry

__all__ = [
    "BUDGET_FLAGS",
    "LIMIT_FLAGS",
    "add_limit_arguments",
    "add_workspace_arguments",
    "limits_from_args",
    "operation_log_from_args",
    "registry_from_args",
    "root_of",
    "workspace_error",
]


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, got {text}")
    return value


def _int_at_least(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def _ratio(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be from 0 to 1, got {text}")
    return value


def _limit_flag_specs() -> dict[str, tuple[str, Callable[[str], Any], str, str]]:
    """flag -> (ToolLimits field, parser, metavar, help); defaults and minimums from ToolLimits."""
    from ..limits import DEFAULT_LIMITS as d
    from ..limits import MIN_LINE_CHARS, MIN_RESULT_CHARS

    return {
        "--glob-limit": (
            "glob_limit",
            _int_at_least(1),
            "N",
            (
                f"paths a listing returns unless it asks for another number (default: "
                f"{d.glob_limit}); one may ask for up to {d.glob_max_limit}, or this number when "
                "it is larger"
            ),
        ),
        "--grep-limit": (
            "grep_limit",
            _int_at_least(1),
            "N",
            (
                "matches (or files) a search returns unless it asks for another number "
                f"(default: {d.grep_limit}); one may ask for up to {d.grep_max_limit}, or this "
                "number when it is larger"
            ),
        ),
        "--grep-line-chars": (
            "grep_line_chars",
            _int_at_least(MIN_LINE_CHARS),
            "N",
            (
                "grep cuts each shown line to this many characters, around the match "
                f"(default: {d.grep_line_chars}, minimum {MIN_LINE_CHARS})"
            ),
        ),
        "--read-limit": (
            "read_limit",
            _int_at_least(1),
            "N",
            (
                "lines a read returns unless it asks for another number "
                f"(default: {d.read_limit}); one may ask for up to {d.read_max_limit}, or this "
                "number when it is larger"
            ),
        ),
        "--read-line-chars": (
            "read_line_chars",
            _int_at_least(MIN_LINE_CHARS),
            "N",
            (
                "a read cuts each line to this many characters, saying how long it was "
                f"(default: {d.read_line_chars}, minimum {MIN_LINE_CHARS})"
            ),
        ),
        "--max-result-chars": (
            "max_result_chars",
            _int_at_least(MIN_RESULT_CHARS),
            "N",
            (
                "budget of one result's text; longer text is cut in the middle "
                f"(default: {d.max_result_chars}, minimum {MIN_RESULT_CHARS})"
            ),
        ),
        "--head-ratio": (
            "head_ratio",
            _ratio,
            "R",
            (
                "share of that budget kept from the head of a cut result, the rest from the tail "
                f"(default: {d.head_ratio})"
            ),
        ),
    }


#: Every limit flag; `glob`, `grep` and `read` take the ones that apply to them.
LIMIT_FLAGS = (
    "--glob-limit",
    "--grep-limit",
    "--grep-line-chars",
    "--read-limit",
    "--read-line-chars",
    "--max-result-chars",
    "--head-ratio",
)
BUDGET_FLAGS = ("--max-result-chars", "--head-ratio")


def add_limit_arguments(parser: argparse.ArgumentParser, flags: Sequence[str]) -> None:
    """The `ToolLimits` flags named in `flags`; each defaults to None (the ToolLimits default).

    The tool definitions are generated from these limits, so the schema defaults, maxima and
    descriptions a client lists state the configured numbers.
    """
    specs = _limit_flag_specs()
    group = parser.add_argument_group(
        "limits",
        "defaults of the tools; the tool definitions state them to the model",
    )
    for flag in flags:
        field, parse, metavar, text = specs[flag]
        group.add_argument(flag, dest=field, type=parse, metavar=metavar, help=text)


def limits_from_args(args: argparse.Namespace) -> Any:
    """The `ToolLimits` the limit flags describe (unset flags keep the defaults)."""
    import dataclasses

    from ..limits import ToolLimits

    names = [f.name for f in dataclasses.fields(ToolLimits)]
    given = {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}
    return ToolLimits(**given)


def add_workspace_arguments(
    parser: argparse.ArgumentParser, time_budget: float = TIME_BUDGET
) -> None:
    """The options of the `Workspace` and `Registry` the command works in (shared by all tools;
    `time_budget`: the default the help states, when unset)."""
    from ..workspace import DEFAULT_DENY_GLOBS, DEFAULT_EXCLUDE_DIRS

    group = parser.add_argument_group("workspace")
    group.add_argument(
        "--root",
        default=None,
        metavar="DIR",
        help="the directory every path is relative to and nothing outside of which is read "
        "(default: the current directory)",
    )
    group.add_argument(
        "--exclude-dir",
        action="append",
        default=[],
        metavar="NAME",
        help="skip directories with this name at any depth; repeatable; adds to the default "
        f"set ({', '.join(DEFAULT_EXCLUDE_DIRS)})",
    )
    group.add_argument(
        "--no-default-excludes",
        action="store_true",
        help="do not skip the default directory set (only --exclude-dir names are skipped)",
    )
    group.add_argument(
        "--deny",
        action="append",
        default=[],
        metavar="GLOB",
        help="files never listed, searched or read; repeatable; adds to the default secrets "
        f"policy ({', '.join(DEFAULT_DENY_GLOBS)}), which cannot be switched off",
    )
    group.add_argument(
        "--no-ignore-files",
        action="store_true",
        help="do not honour .gitignore, .ignore and .ripsightignore",
    )
    group.add_argument(
        "--time-budget",
        type=_positive_float,
        default=None,
        metavar="SECONDS",
        help="time one walk or search may take before it returns what it found so far, "
        f"marked incomplete (default: {time_budget:g})",
    )


def operation_log_from_args(args: argparse.Namespace) -> OperationLog | None:
    """The `OperationLog` ``--log FILE`` asks for: SQLite for a ``.db``, ``.sqlite`` or
    ``.sqlite3`` file, JSON Lines otherwise; None without the flag."""
    path = getattr(args, "log", None)
    if not path:
        return None
    if str(path).lower().endswith((".db", ".sqlite", ".sqlite3")):
        return OperationLog(sqlite=path)
    return OperationLog(jsonl=path)


def workspace_options(args: argparse.Namespace, index: bool = False) -> dict[str, Any]:
    """The `Workspace` options the flags describe (with the warm index when `index`, its file
    kept in memory only with ``--no-persist``)."""
    from ..workspace import DEFAULT_DENY_GLOBS, DEFAULT_EXCLUDE_DIRS

    excludes = [] if args.no_default_excludes else list(DEFAULT_EXCLUDE_DIRS)
    excludes += [d for d in args.exclude_dir if d not in excludes]
    deny = list(DEFAULT_DENY_GLOBS) + [g for g in args.deny if g not in DEFAULT_DENY_GLOBS]
    return {
        "exclude_dirs": excludes,
        "deny": deny,
        "time_budget": TIME_BUDGET if args.time_budget is None else args.time_budget,
        "respect_ignore_files": not args.no_ignore_files,
        "index": index,
        "persist": not getattr(args, "no_persist", False),
    }


def registry_from_args(
    args: argparse.Namespace, index: bool = False, root: Any = None, limits: Any = None
) -> Registry:
    """A registry with the built-in tools, bound to the workspace the options describe (`root`:
    a `Workspace`, a `Roots` or another root in place of ``--root``; `limits`: in place of
    the limit flags')."""
    from ..registry import default_registry

    return default_registry(
        root_of(args) if root is None else root,
        limits=limits_from_args(args) if limits is None else limits,
        log=operation_log_from_args(args),
        **workspace_options(args, index),
    )


def root_of(args: argparse.Namespace) -> str:
    """The root the options name: ``--root``, else the current directory.

    ``--root`` defaults to None, not ".", so that "no root given" (the command may search a
    path elsewhere as its own root, as rg does) stays apart from an explicit ``--root .``,
    which confines like any other root."""
    root = getattr(args, "root", None)
    return "." if root is None else str(root)


def workspace_error(args: argparse.Namespace, error: Exception) -> str:
    return f"cannot use --root {root_of(args)!r} with these options: {error}"
