"""The tools from a shell: `glob`, `grep`, `read`, `outline` and `defs`, each a subcommand
whose options are generated from its tool's schema, printing the text a model would see (the
registry's formatted, bounded result) or, with --json, `ripsight.to_dict` of the engine's typed
result."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from ..types import ToolSpec
from .options import (
    BUDGET_FLAGS,
    add_limit_arguments,
    add_workspace_arguments,
    registry_from_args,
    workspace_error,
)
from .output import EXIT_NO_MATCH, EXIT_OK, fail, json_text, write_text

__all__ = [
    "TOOL_COMMANDS",
    "Subcommand",
    "ToolCommand",
    "add_schema_arguments",
    "add_tool_parser",
    "run_tool",
    "tool_subcommand",
]


@dataclass(frozen=True)
class ToolCommand:
    """What the command line adds to a tool's schema for its subcommand: everything else (the
    options, their types, choices and help) is generated from the schema, so a property added
    to a tool is a flag of its command with no edit here.

    Attributes:
        tool: the tool the command calls.
        positionals: properties taken as positional arguments, in order (an optional one may be
            left out; one taking a list takes one value there); every other property is an
            option ``--name-with-dashes``.
        short: another name of an option, rg's: a one-letter flag (``-t``) or rg's long name
            where it differs (``--no-ignore`` for ``--include-ignored``).
        shortcuts: flags that set an option to one value (``-l`` for
            ``--output-mode files_with_matches``), exclusive with it; a flag without a short
            form has "" there.
        limit_flags: the `ToolLimits` flags of this tool.
        found: the typed result's count whose 0 makes the exit status 1 (no match), if any.
    """

    tool: str
    help: str
    description: str
    epilog: str
    positionals: tuple[str, ...]
    short: Mapping[str, str] = field(default_factory=dict)
    shortcuts: Mapping[str, tuple[tuple[str, str, str], ...]] = field(default_factory=dict)
    limit_flags: tuple[str, ...] = ()
    found: str | None = None


TOOL_COMMANDS: dict[str, ToolCommand] = {
    "glob": ToolCommand(
        tool="glob",
        help="find files by name pattern",
        description="Find files by glob pattern and print what a model would see. "
        '"**" crosses directories, "*" does not: "**/*.py" is every Python file, "*.py" '
        "only the top level.",
        epilog="exit status: 0 files found, 1 no file matches, 2 usage or input error "
        "(one line on stderr)",
        positionals=("pattern", "path"),
        short={"type": "-t", "max_depth": "-d", "include_ignored": "--no-ignore"},
        limit_flags=("--glob-limit",),
        found="total",
    ),
    "grep": ToolCommand(
        tool="grep",
        help="search file contents with a regex",
        description="Search file contents with a Rust regex (ripgrep syntax) and print what a "
        "model would see: path:line:text, ordered by path then line.",
        epilog="exit status: 0 matches found, 1 no match, 2 usage or input error such as an "
        "invalid regex (one line on stderr)",
        positionals=("pattern", "path"),
        short={
            "glob": "-g",
            "literal": "-F",
            "case_insensitive": "-i",
            "context": "-C",
            "before_context": "-B",
            "after_context": "-A",
            "multiline": "-U",
            "type": "-t",
            "type_not": "-T",
            "max_count": "-m",
            "invert_match": "-v",
            "max_depth": "-d",
            "include_ignored": "--no-ignore",
        },
        shortcuts={
            "output_mode": (
                ("-l", "--files-with-matches", "files_with_matches"),
                ("-c", "--count", "count"),
                ("", "--files-without-match", "files_without_match"),
            )
        },
        limit_flags=("--grep-limit", "--grep-line-chars"),
        found="total_matches",
    ),
    "read": ToolCommand(
        tool="read_file",
        help="read a file's numbered lines",
        description="Read a text file's lines, numbered like cat -n, and print what a model "
        "would see (the read_file tool).",
        epilog="exit status: 0 file read (also: empty, binary, offset past the end, each said "
        "in the text), 2 usage or input error such as a missing file or a path outside the "
        "root (one line on stderr)",
        positionals=("path",),
        limit_flags=("--read-limit", "--read-line-chars"),
    ),
    "outline": ToolCommand(
        tool="outline",
        help="list a file's definitions",
        description="List one file's definitions (classes, functions, methods... Markdown "
        "headings) in source order with their line ranges, and print what a model would see "
        "(the outline tool).",
        epilog="exit status: 0 outline shown (also: a file without one, said in the text), 2 "
        "usage or input error such as a missing file (one line on stderr)",
        positionals=("path",),
    ),
    "defs": ToolCommand(
        tool="find_definitions",
        help="find where a name is defined",
        description="Find the definitions of a name across the tree (path:line kind name) and "
        "print what a model would see (the find_definitions tool).",
        epilog="exit status: 0 definitions found, 1 none, 2 usage or input error (one line on "
        "stderr)",
        positionals=("name", "path"),
        short={"glob": "-g", "kind": "-k"},
        found="total",
    ),
    "refs": ToolCommand(
        tool="find_references",
        help="find where a name is used, and who calls it",
        description="Find the references to a name across the tree (path:line:col role — in "
        "its enclosing definition), found by name without type resolution, or with "
        "--group-by caller who calls it, and print what a model would see (the "
        "find_references tool).",
        epilog="exit status: 0 references found, 1 none, 2 usage or input error (one line on "
        "stderr)",
        positionals=("name", "path"),
        short={"glob": "-g", "kind": "-k", "role": "-r"},
        found="total",
    ),
}

#: A subcommand: what adds its parser, and what runs it (returning the exit code).
Subcommand: TypeAlias = (
    "tuple[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], "
    "argparse.ArgumentParser], Callable[[argparse.Namespace], int]]"
)

#: The Python type an option's text is parsed to, by JSON Schema type. Only the type: ranges
#: and lengths are the registry's to check, with its message saying what to do.
_SCHEMA_TYPES: dict[str, Callable[[str], Any]] = {"integer": int, "number": float, "string": str}


def _schema_help(prop: Mapping[str, Any]) -> str:
    # argparse expands % in help texts.
    return " ".join(str(prop.get("description", "")).split()).replace("%", "%%")


def _add_option(
    parser: argparse.ArgumentParser | argparse._MutuallyExclusiveGroup,
    dest: str,
    names: list[str],
    prop: Mapping[str, Any],
) -> None:
    kind = prop.get("type")
    options: dict[str, Any] = {"dest": dest, "help": _schema_help(prop)}
    if isinstance(kind, list):  # ["string", "array"]: one value or several, as repeated flags
        kind = "array" if "array" in kind else next((k for k in kind if k != "null"), "string")
    if kind == "boolean":
        # Unset is None, not False, so the call leaves the argument out and the schema's
        # default applies, as when a model leaves it out.
        options.update(action="store_true", default=None)
    elif kind == "array":
        items = prop.get("items", {})
        options.update(action="append", type=_SCHEMA_TYPES.get(items.get("type"), str))
        if "enum" in items:
            options["choices"] = items["enum"]
    else:
        options["type"] = _SCHEMA_TYPES.get(kind if isinstance(kind, str) else "", str)
        if "enum" in prop:
            options["choices"] = prop["enum"]
        elif kind in ("integer", "number"):
            options["metavar"] = "N"
    parser.add_argument(*names, **options)


def add_schema_arguments(
    parser: argparse.ArgumentParser, spec: ToolSpec, command: ToolCommand
) -> None:
    """The arguments of `command`, generated from the schema of its tool (`spec`): the
    positionals in order, then an option for every other property (named like it, dashes for
    underscores), with the command's short aliases and shortcuts."""
    properties: Mapping[str, Any] = spec.parameters.get("properties", {})
    required = set(spec.parameters.get("required", ()))
    for name in command.positionals:
        prop = properties[name]
        kind = prop.get("type")
        parser.add_argument(
            name,
            nargs=None if name in required else "?",
            metavar=name.upper(),
            type=_SCHEMA_TYPES.get(kind, str) if isinstance(kind, str) else str,
            help=_schema_help(prop),
        )
    for name, prop in properties.items():
        if name in command.positionals:
            continue
        flag = "--" + name.replace("_", "-")
        names = [command.short[name], flag] if name in command.short else [flag]
        shortcuts = command.shortcuts.get(name, ())
        target: argparse.ArgumentParser | argparse._MutuallyExclusiveGroup = parser
        if shortcuts:
            target = parser.add_mutually_exclusive_group()
        _add_option(target, name, names, prop)
        for short, long, value in shortcuts:
            target.add_argument(
                *(flag_name for flag_name in (short, long) if flag_name),
                dest=name,
                action="store_const",
                const=value,
                help=f"same as {flag} {value}",
            )


def add_tool_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    spec: ToolSpec | None = None,
) -> argparse.ArgumentParser:
    """The subcommand `name` of `TOOL_COMMANDS`, its arguments generated from `spec` (default:
    the built-in tool under the default limits)."""
    from ..tools import builtin_tools

    command = TOOL_COMMANDS[name]
    if spec is None:
        spec = next(s for s in builtin_tools() if s.name == command.tool)
    parser = sub.add_parser(
        name, help=command.help, description=command.description, epilog=command.epilog
    )
    add_schema_arguments(parser, spec, command)
    _add_output_arguments(parser)
    add_workspace_arguments(parser)
    add_limit_arguments(parser, (*command.limit_flags, *BUDGET_FLAGS))
    return _intermixed(parser)


def run_tool(args: argparse.Namespace, tool: str) -> int:
    """Runs one tool call through the registry and prints the result; returns the exit code.

    The call's arguments are the options named like the tool's schema properties (the parsers
    use those names as destinations), so the schema stays the one list of a tool's arguments.
    """
    from ..errors import RipsightError
    from ..tools import ENGINE_RESULT_KEY
    from ..types import ToolCall
    from ..workspace import to_dict

    try:
        registry = registry_from_args(args)
    except (RipsightError, ValueError, TypeError, OSError) as error:
        return fail(args.command, workspace_error(args, error))
    with registry:
        properties = registry.get(tool).parameters["properties"]  # type: ignore[union-attr]
        arguments = {name: getattr(args, name, None) for name in properties}
        call = ToolCall(
            id="cli",
            name=tool,
            arguments={key: value for key, value in arguments.items() if value is not None},
        )
        result = registry.execute(call)
    if result.is_error:
        return fail(args.command, result.content)
    engine_result = result.meta.get(ENGINE_RESULT_KEY)
    if args.json:
        if engine_result is None:
            return fail(args.command, "the tool returned no structured result (a bug)")
        write_text(sys.stdout, json_text(to_dict(engine_result)))
    else:
        write_text(sys.stdout, result.content)
    sys.stdout.write("\n")
    sys.stdout.flush()
    found = TOOL_COMMANDS[args.command].found
    if found is not None and engine_result is not None and getattr(engine_result, found) == 0:
        return EXIT_NO_MATCH
    return EXIT_OK


def tool_subcommand(name: str) -> Subcommand:
    """The parser builder and the command of the subcommand `name` of `TOOL_COMMANDS`."""
    tool = TOOL_COMMANDS[name].tool
    return (lambda sub: add_tool_parser(sub, name)), (lambda args: run_tool(args, tool))


class _IntermixedParser(argparse.ArgumentParser):
    """Lets options follow positionals (`ripsight grep TODO -l src`), as grep and rg allow.

    Plain argparse binds both positionals at the first one and then rejects `src`.
    """

    _parsing = False

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[no-untyped-def]
        # Inside the two passes of parse_known_intermixed_args, and after "--" (which the
        # intermixed passes lose): plain parsing, so `grep -F -- -x` searches for "-x".
        if self._parsing or (args is not None and "--" in args):
            return super().parse_known_args(args, namespace)
        self._parsing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._parsing = False


def _intermixed(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.__class__ = _IntermixedParser
    return parser


def _add_output_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the structured result as one line of JSON (the fields of the Python API's "
        "typed result, see ripsight.to_dict) instead of the text a model sees",
    )
