"""The `ripsight` command line.

    ripsight demo [--selftest]            the offline scripted agent loop
    ripsight tools [--format openai]      tool definitions as JSON
    ripsight glob|grep|read|outline|defs ... [--json]
                                          one tool call: the text a model sees, or the typed result
    ripsight index [DIR]                  build or refresh the tree's index files, which the tool
                                          commands load when they are valid for the tree
    ripsight mcp [--root DIR] [--no-index] [--no-persist]
                                          MCP server on stdio (warm index by default, its file
                                          shared with every process on the tree)
    ripsight bench [--warm | --scale | --navigation]
                                          ripsight against rg, indexed peers, cscope, Global
    ripsight cache [--prune]              the warm index's files: trees, sizes, ages, stale ones

The parts: `output` (exit codes, terminal-safe text, JSON), `options` (the limit and workspace
flags every command shares), `tool_commands` (a subcommand per tool, its options generated from
the tool's schema), `commands` (demo, tools, mcp, bench, cache). A subcommand is a parser builder
and a command (``args -> exit code``) registered in `SUBCOMMANDS`: a tool's comes from its spec
(`ToolSpec.command`, see `tool_commands`), any other from one ``add_<name>_parser`` /
``cmd_<name>`` pair.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ..tools import builtin_tools
from .commands import (
    add_bench_parser,
    add_cache_parser,
    add_demo_parser,
    add_mcp_parser,
    add_tools_parser,
    cmd_bench,
    cmd_cache,
    cmd_demo,
    cmd_mcp,
    cmd_tools,
)
from .indexing import add_index_parser, cmd_index
from .options import registry_from_args
from .tool_commands import (
    TOOL_COMMANDS,
    Subcommand,
    ToolCommand,
    add_tool_parser,
    tool_commands,
    tool_subcommand,
)

__all__ = [
    "SUBCOMMANDS",
    "TOOL_COMMANDS",
    "ToolCommand",
    "add_mcp_parser",
    "add_tool_parser",
    "build_parser",
    "main",
    "registry_from_args",
    "subcommands",
    "tool_commands",
]


def subcommands() -> dict[str, Subcommand]:
    """name -> subcommand, in the order `ripsight --help` lists them: the built-in tools' in
    the tools' order, between the others."""
    return {
        "demo": (add_demo_parser, cmd_demo),
        "tools": (add_tools_parser, cmd_tools),
        **{spec.command.name: tool_subcommand(spec) for spec in builtin_tools() if spec.command},
        "index": (add_index_parser, cmd_index),
        "mcp": (add_mcp_parser, cmd_mcp),
        "bench": (add_bench_parser, cmd_bench),
        "cache": (add_cache_parser, cmd_cache),
    }


#: The subcommands of `build_parser` (see `subcommands`).
SUBCOMMANDS: dict[str, Subcommand] = subcommands()


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="ripsight",
        description="Fast, bounded, read-only glob, grep and read_file tools for LLM agents.",
    )
    parser.add_argument("--version", action="version", version=f"ripsight {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add_parser, command in subcommands().values():
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
