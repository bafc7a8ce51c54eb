"""The tools from a shell: each built-in tool whose spec has a `ToolCommand` (`glob`, `grep`,
`read`, `outline`, `defs`) is a subcommand whose options are generated from its schema, printing the text a model would see (the
registry's formatted, bounded result) or, with --json, `ripsight.to_dict` of the engine's typed
result."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, TypeAlias

from ..names import quote_path
from ..types import ToolCommand, ToolResult, ToolSpec
from .hints import (
    CommandWords,
    cut_in_command_words,
    data_prefixes,
    in_command_words,
    joined_items,
)
from .indexing import INDEX_HINT, INDEXED_TOOLS, SYMBOL_TOOLS, index_contents, load_index
from .options import (
    BUDGET_FLAGS,
    add_limit_arguments,
    add_workspace_arguments,
    limits_from_args,
    registry_from_args,
    root_of,
    workspace_error,
    workspace_options,
)
from .output import EXIT_NO_MATCH, EXIT_OK, fail, json_text, write_text

__all__ = [
    "TOOL_COMMANDS",
    "Subcommand",
    "ToolCommand",
    "add_schema_arguments",
    "add_tool_parser",
    "run_tool",
    "tool_commands",
    "tool_subcommand",
]


def tool_commands() -> dict[str, ToolCommand]:
    """Each built-in tool's subcommand by name, from the tools' specs (`ToolSpec.command`), in
    the tools' order."""
    from ..tools import builtin_tools

    return {spec.command.name: spec.command for spec in builtin_tools() if spec.command}


#: The built-in tools' subcommands by name (see `tool_commands`).
TOOL_COMMANDS: dict[str, ToolCommand] = tool_commands()

#: A subcommand: what adds its parser, and what runs it (returning the exit code).
Subcommand: TypeAlias = (
    "tuple[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], "
    "argparse.ArgumentParser], Callable[[argparse.Namespace], int]]"
)

#: Source files a map parses without a symbol index, on the command line: the shallowest of
#: the tree, in path order within a depth (the engine's choice), so the same tree gives the
#: same map at every run, however loaded the machine. An MCP server keeps the engine's larger
#: cap and its time budget (a model can call again); `ripsight index` maps the whole tree.
COLD_MAP_FILES = 5_000
#: The time budget of such a map unless --time-budget is given: long enough that the cap, not
#: the clock, decides which files are ranked.
COLD_MAP_TIME_BUDGET = 600.0

#: The Python type an option's text is parsed to, by JSON Schema type. Only the type: ranges
#: and lengths are the registry's to check, with its message saying what to do.
_SCHEMA_TYPES: dict[str, Callable[[str], Any]] = {"integer": int, "number": float, "string": str}


def _schema_help(prop: Mapping[str, Any], words: CommandWords | None = None) -> str:
    """An argument's help: its schema description, in the command's words (`words`)."""
    text = " ".join(str(prop.get("description", "")).split())
    if words is not None:
        text = words.line(text)
    # argparse expands % in help texts.
    return text.replace("%", "%%")


class _AppendValues(argparse.Action):
    """A repeatable option of a list argument: each use adds a value, or the values of a JSON
    list (``-t '["ts", "js"]'``, as the help's examples write them)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        import orjson

        text = str(values)
        items: list[Any] = [text]
        if text.lstrip().startswith("["):
            try:
                parsed = orjson.loads(text)
            except orjson.JSONDecodeError:
                parsed = None
            if not isinstance(parsed, list) or not all(isinstance(v, str) for v in parsed):
                raise argparse.ArgumentError(
                    self, f"expected a value or a JSON list of strings, got {text!r}"
                )
            items = parsed
        allowed = getattr(self, "allowed", None)
        for item in items:
            if allowed is not None and item not in allowed:
                raise argparse.ArgumentError(
                    self, f"invalid choice: {item!r} (choose from {', '.join(allowed)})"
                )
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest) or []), *items])


def _add_option(
    parser: argparse.ArgumentParser | argparse._MutuallyExclusiveGroup,
    dest: str,
    names: list[str],
    prop: Mapping[str, Any],
    words: CommandWords | None = None,
) -> None:
    kind = prop.get("type")
    options: dict[str, Any] = {"dest": dest, "help": _schema_help(prop, words)}
    if isinstance(kind, list):  # ["string", "array"]: one value or several, as repeated flags
        kind = "array" if "array" in kind else next((k for k in kind if k != "null"), "string")
    if kind == "boolean" and "default" not in prop and names[-1].startswith("--"):
        # No default: unset, true and false each mean something (--outline, --no-outline).
        options.update(action=argparse.BooleanOptionalAction, default=None)
    elif kind == "boolean":
        # Unset is None, not False, so the call leaves the argument out and the schema's
        # default applies, as when a model leaves it out.
        options.update(action="store_true", default=None)
    elif kind == "array":
        items = prop.get("items", {})
        options.update(action=_AppendValues, metavar=dest.upper())
        options["help"] += f" Repeat {names[0]} for several, or give a JSON list."
        if "enum" in items:
            options["help"] += f" One of: {', '.join(items['enum'])}."
            action = parser.add_argument(*names, **options)
            action.allowed = tuple(items["enum"])  # type: ignore[attr-defined]
            return
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
    words = _help_words(command.name)
    for name in command.positionals:
        prop = properties[name]
        kind = prop.get("type")
        parser.add_argument(
            name,
            nargs=None if name in required else "?",
            metavar=name.upper(),
            type=_SCHEMA_TYPES.get(kind, str) if isinstance(kind, str) else str,
            help=_schema_help(prop, words),
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
        _add_option(target, name, names, prop, words)
        for short, long, value in shortcuts:
            target.add_argument(
                *(flag_name for flag_name in (short, long) if flag_name),
                dest=name,
                action="store_const",
                const=value,
                help=f"same as {flag} {value}",
            )


def _help_words(command: str) -> CommandWords | None:
    """How the help of `command` names the tools' arguments (None: a command no built-in tool
    has, whose help stays as its schema says)."""
    from ..tools import builtin_tools

    commands = tool_commands()
    if command not in commands:
        return None
    properties = {
        spec.name: tuple(spec.parameters.get("properties", ())) for spec in builtin_tools()
    }
    return CommandWords(command, commands, properties)


class _TypeList(argparse.Action):
    """``--type-list``: the file types and their globs, as ``rg --type-list`` prints them."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        from ..file_types import FILE_TYPES

        write_text(
            sys.stdout,
            "".join(f"{name}: {', '.join(globs)}\n" for name, globs in FILE_TYPES.items()),
        )
        parser.exit(EXIT_OK)


def add_tool_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    spec: ToolSpec | None = None,
) -> argparse.ArgumentParser:
    """The subcommand `name` of a built-in tool (`tool_commands`), its arguments generated from
    `spec` (default: the built-in tool under the default limits; a spec without a command of
    that name gets the built-in one)."""
    from ..tools import builtin_tools

    if spec is None:
        spec = next(s for s in builtin_tools() if s.command and s.command.name == name)
    command = spec.command
    if command is None or command.name != name:
        command = tool_commands()[name]
    parser = sub.add_parser(
        name, help=command.help, description=command.description, epilog=command.epilog
    )
    add_schema_arguments(parser, spec, command)
    if "type" in spec.parameters.get("properties", {}):
        parser.add_argument(
            "--type-list",
            action=_TypeList,
            help="print the file types -t and -T take, with their globs, and exit (as rg does)",
        )
    _add_output_arguments(parser)
    if spec.name in INDEXED_TOOLS:
        parser.add_argument(
            "--no-index",
            action="store_true",
            help="answer cold (walk, read and parse) even when the tree has index files "
            "(ripsight index builds them; by default they are loaded and checked against the "
            "tree, the files changed since searched directly)",
        )
    add_workspace_arguments(parser)
    add_limit_arguments(parser, (*command.limit_flags, *BUDGET_FLAGS))
    return _intermixed(parser)


def run_tool(args: argparse.Namespace, tool: str, found: str | None = None) -> int:
    """Runs one tool call through the registry and prints the result; returns the exit code.

    The call's arguments are the options named like the tool's schema properties (the parsers
    use those names as destinations), so the schema stays the one list of a tool's arguments.
    `found` names the typed result's count whose 0 makes the exit status 1 (`ToolCommand.found`).
    A `path` outside the current directory, with no --root given, is searched as its own root,
    as rg searches the directory it is given. The text's advice names the command's flags
    (`hints`).
    """
    from ..tools import ENGINE_RESULT_KEY
    from ..workspace import to_dict

    answer = _call(args, tool)
    if isinstance(answer, str):
        return fail(args.command, answer)
    result, words, budget, root, unindexed, moved = answer
    engine_result = result.meta.get(ENGINE_RESULT_KEY)
    partial = getattr(engine_result, "partial", False) or getattr(
        engine_result, "incomplete", False
    )
    if unindexed and partial:
        write_text(sys.stderr, f"ripsight {args.command}: {INDEX_HINT}\n")
    if result.is_error:
        message = result.content
        if result.meta.get("code") == "outside_root":
            message = f"{message.split(' Use a path ')[0]} {_outside_root_hint(root)}"
        return fail(args.command, joined_items(in_command_words(message, words)))
    if args.json:
        if engine_result is None:
            return fail(args.command, "the tool returned no structured result (a bug)")
        write_text(sys.stdout, json_text(to_dict(engine_result)))
    else:
        text = in_command_words(result.content, words, data_prefixes(engine_result))
        if moved:
            # The root is the directory the user named: say which, not "the workspace root".
            text = text.replace("in the workspace root", f"in {quote_path(root)}")
        if result.meta.get("truncated"):
            text = cut_in_command_words(text, int(result.meta.get("original_chars", 0)), budget)
        write_text(sys.stdout, text)
    sys.stdout.write("\n")
    sys.stdout.flush()
    if found is not None and engine_result is not None and getattr(engine_result, found) == 0:
        return EXIT_NO_MATCH
    return EXIT_OK


def _outside_root_hint(root: str) -> str:
    return (
        f"The root is {root} (--root, default: the current directory): name a path inside it, "
        "or give a --root that holds the path."
    )


class _Answer(NamedTuple):
    """A call made from the command line, with what its text needs."""

    result: ToolResult
    words: CommandWords
    budget: int  # the result budget (--max-result-chars)
    root: str  # the root in force
    unindexed: bool  # answered cold for want of index files (a partial answer says so)
    moved: bool = False  # the root is the path given, not the current directory (no --root)


def _workspace(args: argparse.Namespace, tool: str) -> tuple[Any, bool]:
    """The workspace the call runs in, and whether it lacks the index files the call could
    answer from: the tree's files loaded when valid ones are there (`indexing`), else cold.

    A cold map parses a fixed number of files, the same ones at every run (the time budget,
    unless --time-budget is given, is long enough never to decide which): see `COLD_MAP_FILES`.
    """
    from ..workspace import Workspace

    options = workspace_options(args)
    if tool == "repo_map" and args.time_budget is None:
        # Used only by a cold map: a warm one answers from the symbol file in milliseconds.
        options["time_budget"] = COLD_MAP_TIME_BUDGET
    if tool not in INDEXED_TOOLS or getattr(args, "no_index", False):
        return Workspace(root_of(args), **options), False
    with Workspace(root_of(args), **options) as probe:
        contents = index_contents(probe.root)
    if {"ngrams", "symbols"} <= contents or (tool == "grep" and "ngrams" in contents):
        warm = Workspace(root_of(args), **{**options, "index": True}, index_build=False)
        if load_index(warm, symbols=tool in SYMBOL_TOOLS):
            return warm, False
        warm.close()
    return Workspace(root_of(args), **options), True


def _call(args: argparse.Namespace, tool: str) -> _Answer | str:
    """The call's answer; or the error text when the workspace cannot be made. A `path`
    outside the current directory (the default root) is retried as the root itself (unless
    the command needs a path), then with its directory as the root and its name as the path."""
    import os

    from ..errors import RipsightError
    from ..types import ToolCall

    try:
        workspace, unindexed = _workspace(args, tool)
        limits = limits_from_args(args)
        if tool == "repo_map" and (unindexed or getattr(args, "no_index", False)):
            limits = limits.replace(repo_map_max_files=COLD_MAP_FILES)
        registry = registry_from_args(args, root=workspace, limits=limits)
    except (RipsightError, ValueError, TypeError, OSError) as error:
        return workspace_error(args, error)
    with workspace, registry:
        # The command line keeps no stored result: a cut result says how to see it whole.
        registry.unregister("read_result")
        properties = {
            name: tuple(registry.get(name).parameters["properties"])  # type: ignore[union-attr]
            for name in registry.names
        }
        arguments = {name: getattr(args, name, None) for name in properties[tool]}
        call = ToolCall(
            id="cli",
            name=tool,
            arguments={key: value for key, value in arguments.items() if value is not None},
        )
        result = registry.execute(call)
        root = str(workspace.root)
    # Read afresh: a tool module added since the import has a subcommand too.
    commands = tool_commands()
    path = arguments.get("path")
    if result.meta.get("code") == "outside_root" and args.root is None and isinstance(path, str):
        # As rg: `ripsight grep TODO /elsewhere` searches /elsewhere, when no --root was given
        # (an explicit one, `--root .` too, confines). A file's directory is its root when the
        # path names a file (the engine decides, through the workspace).
        tries: list[tuple[str, str | None]] = [
            (os.path.dirname(path) or "/", os.path.basename(path))
        ]
        if commands[args.command].positionals[0] != "path":
            tries.insert(0, (path, None))
        for new_root, new_path in tries:
            retry = argparse.Namespace(**{**vars(args), "root": new_root, "path": new_path})
            answer = _call(retry, tool)
            if not isinstance(answer, str):
                return answer._replace(moved=True)
    words = CommandWords(args.command, commands, properties)
    return _Answer(result, words, registry.limits.max_result_chars, root, unindexed)


def tool_subcommand(name: str | ToolSpec) -> Subcommand:
    """The parser builder and the command of a tool's subcommand (`name`: one of
    `tool_commands`, or the spec of a tool that has a command)."""
    from ..tools import builtin_tools

    if isinstance(name, str):
        spec = next(s for s in builtin_tools() if s.command and s.command.name == name)
    else:
        spec = name
    command = spec.command
    if command is None:
        raise ValueError(f"{spec.name} has no subcommand")
    return (lambda sub: add_tool_parser(sub, command.name, spec)), (
        lambda args: run_tool(args, spec.name, command.found)
    )


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
