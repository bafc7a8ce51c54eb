"""The `ripsight` command line.

    ripsight demo [--selftest]            the offline scripted agent loop
    ripsight tools [--format openai]      tool definitions as JSON
    ripsight glob|grep|read ... [--json]  one tool call: the text a model sees, or the typed result
    ripsight mcp [--root DIR] [--no-index] [--no-persist]
                                          MCP server on stdio (warm index by default, its file
                                          shared with every process on the tree)

Each subcommand is one ``add_<name>_parser`` function plus one ``cmd_<name>(args) -> int``
function, registered in `SUBCOMMANDS`; adding a subcommand (glob, grep, read, mcp, bench) means
adding one pair and one entry.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import orjson

from .limits import MAX_CONCURRENT_CALLS, MCP_TIME_BUDGET, TIME_BUDGET
from .names import terminal_safe
from .oplog import OperationLog
from .registry import FORMATS, Registry
from .types import ToolSpec

__all__ = ["SUBCOMMANDS", "TOOL_COMMANDS", "ToolCommand", "build_parser", "main"]


def add_demo_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "demo",
        help="run the offline scripted agent loop",
        description="A scripted model asks, on a generated repository, why its test is red, "
        "and walks glob -> grep -> read_file through the registry.",
    )
    parser.add_argument(
        "--selftest",
        action="store_true",
        help="run the named checks instead; the last line is 'N passed, M failed'",
    )
    return parser


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo, run_selftest

    if args.selftest:
        return run_selftest(sys.stdout)
    return run_demo(sys.stdout).exit_code


def add_tools_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "tools",
        help="print the tool definitions",
        description="Print the tool definitions in one provider's format, as JSON.",
    )
    parser.add_argument(
        "--format",
        "-f",
        choices=FORMATS,
        default="openai",
        help="openai (chat completions), openai-responses, anthropic or mcp (default: openai)",
    )
    parser.add_argument("--compact", action="store_true", help="one line of JSON")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="OpenAI strict-mode schemas (openai and openai-responses formats): every property "
        "required, optional ones nullable",
    )
    add_limit_arguments(parser, LIMIT_FLAGS)
    return parser


def cmd_tools(args: argparse.Namespace) -> int:
    from .tools import builtin_tools

    limits = limits_from_args(args)
    registry = Registry(limits=limits)
    for spec in builtin_tools(limits):
        registry.register(spec)
    if args.strict and args.format not in ("openai", "openai-responses"):
        return _fail("tools", f"--strict applies to the openai formats only, not {args.format}")
    option = 0 if args.compact else orjson.OPT_INDENT_2
    definitions = registry.definitions(args.format, strict=args.strict)
    sys.stdout.write(orjson.dumps(definitions, option=option).decode())
    sys.stdout.write("\n")
    return 0


# -- glob / grep / read: the tools from a shell ----------------------------------------------------
#
# Each prints the text a model would see (the registry's formatted, bounded result) or, with
# --json, `ripsight.to_dict` of the engine's typed result. Exit codes: 0 results, 1 no match
# (grep, and glob with no paths), 2 usage or input error with one line on stderr.

EXIT_OK, EXIT_NO_MATCH, EXIT_ERROR = 0, 1, 2


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
    from .limits import DEFAULT_LIMITS as d
    from .limits import MIN_LINE_CHARS, MIN_RESULT_CHARS

    return {
        "--glob-limit": (
            "glob_limit",
            _int_at_least(1),
            "N",
            (
                f"paths one glob call returns unless the call sets limit (default: {d.glob_limit}); "
                f"calls may ask for up to {d.glob_max_limit}, or this number when it is larger"
            ),
        ),
        "--grep-limit": (
            "grep_limit",
            _int_at_least(1),
            "N",
            (
                "matches (or files) one grep call returns unless the call sets limit "
                f"(default: {d.grep_limit}); calls may ask for up to {d.grep_max_limit}, or this "
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
                "lines one read_file call returns unless the call sets limit "
                f"(default: {d.read_limit}); calls may ask for up to {d.read_max_limit}, or this "
                "number when it is larger"
            ),
        ),
        "--read-line-chars": (
            "read_line_chars",
            _int_at_least(MIN_LINE_CHARS),
            "N",
            (
                "read_file cuts each line to this many characters, saying how long it was "
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
_BUDGET_FLAGS = ("--max-result-chars", "--head-ratio")


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

    from .limits import ToolLimits

    names = [f.name for f in dataclasses.fields(ToolLimits)]
    given = {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}
    return ToolLimits(**given)


def add_workspace_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the `Workspace` and `Registry` the command works in (shared by all tools)."""
    from .workspace import DEFAULT_DENY_GLOBS, DEFAULT_EXCLUDE_DIRS

    group = parser.add_argument_group("workspace")
    group.add_argument(
        "--root",
        default=".",
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
        default=TIME_BUDGET,
        metavar="SECONDS",
        help="time one walk or search may take before it returns what it found so far, "
        "marked incomplete (default: %(default)g)",
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


def registry_from_args(args: argparse.Namespace, index: bool = False) -> Registry:
    """A registry with the built-in tools, bound to the workspace the options describe (with
    the warm index when `index`, its file kept in memory only with ``--no-persist``)."""
    from .registry import default_registry
    from .workspace import DEFAULT_DENY_GLOBS, DEFAULT_EXCLUDE_DIRS

    excludes = [] if args.no_default_excludes else list(DEFAULT_EXCLUDE_DIRS)
    excludes += [d for d in args.exclude_dir if d not in excludes]
    deny = list(DEFAULT_DENY_GLOBS) + [g for g in args.deny if g not in DEFAULT_DENY_GLOBS]
    return default_registry(
        args.root,
        limits=limits_from_args(args),
        exclude_dirs=excludes,
        deny=deny,
        time_budget=args.time_budget,
        respect_ignore_files=not args.no_ignore_files,
        index=index,
        persist=not getattr(args, "no_persist", False),
        log=operation_log_from_args(args),
    )


def _workspace_error(args: argparse.Namespace, error: Exception) -> str:
    return f"cannot use --root {args.root!r} with these options: {error}"


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def write_text(stream: TextIO, text: str) -> None:
    """Writes text the tools produced: on a terminal with every control character escaped
    (names and file contents can hold escape sequences); elsewhere as is, the bytes of
    non-UTF-8 names (surrogateescape) restored."""
    if _isatty(stream):
        stream.write(terminal_safe(text))
        return
    try:
        stream.write(text)
    except UnicodeEncodeError:
        buffer = getattr(stream, "buffer", None)
        if buffer is None:
            stream.write(terminal_safe(text))
            return
        stream.flush()
        buffer.write(text.encode(getattr(stream, "encoding", None) or "utf-8", "surrogateescape"))


def _json_text(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        # A non-UTF-8 name (a lone surrogate) is no valid UTF-8 for orjson; the stdlib writes it
        # as a \udcXX escape, which json.loads turns back into the same str (and os.fsencode
        # into the same bytes).
        return json.dumps(value, ensure_ascii=True, separators=(",", ":"))


def _fail(command: str, message: str) -> int:
    write_text(sys.stderr, f"ripsight {command}: {_one_line(message)}\n")
    return EXIT_ERROR


def _run_tool(args: argparse.Namespace, tool: str) -> int:
    """Runs one tool call through the registry and prints the result; returns the exit code.

    The call's arguments are the options named like the tool's schema properties (the parsers
    use those names as destinations), so the schema stays the one list of a tool's arguments.
    """
    from .errors import RipsightError
    from .tools import ENGINE_RESULT_KEY
    from .types import ToolCall
    from .workspace import to_dict

    try:
        registry = registry_from_args(args)
    except (RipsightError, ValueError, TypeError, OSError) as error:
        return _fail(args.command, _workspace_error(args, error))
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
        return _fail(args.command, result.content)
    engine_result = result.meta.get(ENGINE_RESULT_KEY)
    if args.json:
        if engine_result is None:
            return _fail(args.command, "the tool returned no structured result (a bug)")
        write_text(sys.stdout, _json_text(to_dict(engine_result)))
    else:
        write_text(sys.stdout, result.content)
    sys.stdout.write("\n")
    sys.stdout.flush()
    if tool == "glob" and engine_result is not None and engine_result.total == 0:
        return EXIT_NO_MATCH
    if tool == "grep" and engine_result is not None and engine_result.total_matches == 0:
        return EXIT_NO_MATCH
    if tool == "find_definitions" and engine_result is not None and engine_result.total == 0:
        return EXIT_NO_MATCH
    return EXIT_OK


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
    """

    tool: str
    help: str
    description: str
    epilog: str
    positionals: tuple[str, ...]
    short: Mapping[str, str] = field(default_factory=dict)
    shortcuts: Mapping[str, tuple[tuple[str, str, str], ...]] = field(default_factory=dict)
    limit_flags: tuple[str, ...] = ()


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
    ),
}

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
    from .tools import builtin_tools

    command = TOOL_COMMANDS[name]
    if spec is None:
        spec = next(s for s in builtin_tools() if s.name == command.tool)
    parser = sub.add_parser(
        name, help=command.help, description=command.description, epilog=command.epilog
    )
    add_schema_arguments(parser, spec, command)
    _add_output_arguments(parser)
    add_workspace_arguments(parser)
    add_limit_arguments(parser, (*command.limit_flags, *_BUDGET_FLAGS))
    return _intermixed(parser)


def add_glob_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    return add_tool_parser(sub, "glob")


def cmd_glob(args: argparse.Namespace) -> int:
    return _run_tool(args, "glob")


def add_grep_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    return add_tool_parser(sub, "grep")


def cmd_grep(args: argparse.Namespace) -> int:
    return _run_tool(args, "grep")


def add_read_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    return add_tool_parser(sub, "read")


def cmd_read(args: argparse.Namespace) -> int:
    return _run_tool(args, "read_file")


def add_outline_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    return add_tool_parser(sub, "outline")


def cmd_outline(args: argparse.Namespace) -> int:
    return _run_tool(args, "outline")


def add_defs_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    return add_tool_parser(sub, "defs")


def cmd_defs(args: argparse.Namespace) -> int:
    return _run_tool(args, "find_definitions")


# -- mcp -------------------------------------------------------------------------------------------


def add_mcp_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "mcp",
        help="serve the tools over MCP on stdio",
        description="Serve glob, grep and read_file as an MCP server on stdin/stdout, for "
        "Claude Desktop, Claude Code, Codex, Gemini CLI, Cursor and any MCP client. Every "
        "result is the text a model sees plus the typed result as structuredContent. "
        "Logging goes to stderr. Needs the optional extra: pip install 'ripsight[mcp]'.",
        epilog="A call's limit is a tool argument the model may set; the limit flags set its "
        "default and the line caps, and the listed tool schemas and descriptions state the "
        "configured numbers. The server exits when the client closes stdin.",
    )
    add_workspace_arguments(parser)
    # Under the 5 s that common MCP clients wait for a call.
    parser.set_defaults(time_budget=MCP_TIME_BUDGET)
    add_limit_arguments(parser, LIMIT_FLAGS)
    parser.add_argument(
        "--max-concurrent-calls",
        type=int,
        default=MAX_CONCURRENT_CALLS,
        metavar="N",
        help="tool calls running at the same time in worker threads (default: %(default)s)",
    )
    parser.add_argument(
        "--no-structured-content",
        action="store_true",
        help="leave out each tool's outputSchema and the typed result (structuredContent): "
        "results are the text only. For clients that show the model the structured JSON "
        "instead of the text, so the model keeps the bounded text and its paging hints",
    )
    parser.add_argument(
        "--log",
        metavar="FILE",
        help="record every call as one operation (tool, status, outcome, code, compact "
        "arguments, sizes; never file contents): JSON Lines, or SQLite when FILE ends in .db, "
        ".sqlite or .sqlite3",
    )
    parser.add_argument(
        "--log-level",
        choices=("debug", "info", "warning", "error"),
        default="warning",
        help="stderr logging; info logs one line per call (default: warning)",
    )
    parser.add_argument(
        "--no-index",
        action="store_true",
        help="answer every call by walking and reading the tree; by default a live index of "
        "the tree is built in the background and kept fresh by a file watcher (same answers)",
    )
    parser.add_argument(
        "--no-persist",
        action="store_true",
        help="keep the index in this process's memory only; by default it is one file per "
        "tree in the user's cache directory, memory-mapped and shared by every process on the "
        "tree (a second server on the same tree is ready in a fraction of a second)",
    )
    return parser


def cmd_mcp(args: argparse.Namespace) -> int:
    import logging

    from .errors import RipsightError

    try:
        import anyio

        from . import mcp_server
    except ImportError as error:
        missing = (error.name or "").split(".")[0]
        if missing not in ("mcp", "mcp_types", "anyio", "pydantic"):
            raise
        return _fail(
            "mcp",
            f"the MCP Python SDK is not installed ({error}); install it with: "
            "pip install 'ripsight[mcp]'",
        )
    if args.max_concurrent_calls < 1:
        return _fail("mcp", "--max-concurrent-calls must be at least 1")
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, args.log_level.upper()),
        format="%(asctime)s ripsight-mcp %(levelname)s %(name)s: %(message)s",
    )
    try:
        registry = registry_from_args(args, index=not args.no_index)
    except (RipsightError, ValueError, TypeError, OSError) as error:
        return _fail("mcp", _workspace_error(args, error))
    logging.getLogger("ripsight.mcp").info(
        "serving %s on stdio for %s",
        ", ".join(registry.names),
        registry.workspace.root if registry.workspace is not None else args.root,
    )
    with registry:
        try:
            anyio.run(
                lambda: mcp_server.serve_stdio(
                    registry,
                    max_concurrent_calls=args.max_concurrent_calls,
                    structured_content=not args.no_structured_content,
                )
            )
        finally:
            if registry.workspace is not None:
                registry.workspace.close()
    return EXIT_OK


def add_bench_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    # Only the options: the 1,000-line harness loads when `ripsight bench` runs.
    from .bench.options import add_arguments

    return add_arguments(
        sub.add_parser(
            "bench",
            help="time ripsight against ripgrep and others on a repository",
            description="Time ripsight against rg, fd, python-ripgrep, ripgrep-rs, pure Python "
            "and tail|head on a repository (default: a generated one); prints medians and "
            "ratios to rg.",
        )
    )


def cmd_bench(args: argparse.Namespace) -> int:
    if args.scale:
        from .bench.scale import run as run_scale

        return run_scale(args)
    if args.warm:
        from .bench.warm import run as run_warm

        return run_warm(args)
    from .bench.harness import run

    return run(args)


#: name -> (parser builder, command). Add a subcommand by adding one entry.
SUBCOMMANDS: dict[
    str,
    tuple[
        Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], argparse.ArgumentParser],
        Callable[[argparse.Namespace], int],
    ],
] = {
    "demo": (add_demo_parser, cmd_demo),
    "tools": (add_tools_parser, cmd_tools),
    "glob": (add_glob_parser, cmd_glob),
    "grep": (add_grep_parser, cmd_grep),
    "read": (add_read_parser, cmd_read),
    "outline": (add_outline_parser, cmd_outline),
    "defs": (add_defs_parser, cmd_defs),
    "mcp": (add_mcp_parser, cmd_mcp),
    "bench": (add_bench_parser, cmd_bench),
}


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="ripsight",
        description="Fast, bounded, read-only glob, grep and read_file tools for LLM agents.",
    )
    parser.add_argument("--version", action="version", version=f"ripsight {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add_parser, command in SUBCOMMANDS.values():
        add_parser(sub).set_defaults(func=command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `ripsight` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        return 141
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
