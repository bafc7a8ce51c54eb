"""The `spyglass` command line.

    spyglass demo [--selftest]            the offline scripted agent loop
    spyglass tools [--format openai]      tool definitions as JSON

Each subcommand is one ``add_<name>_parser`` function plus one ``cmd_<name>(args) -> int``
function, registered in `SUBCOMMANDS`; adding a subcommand (glob, grep, read, mcp, bench) means
adding one pair and one entry.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

import orjson

from .registry import FORMATS, Registry

__all__ = ["SUBCOMMANDS", "build_parser", "main"]


def add_demo_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
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


def add_tools_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
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
    return parser


def cmd_tools(args: argparse.Namespace) -> int:
    from .tools import builtin_tools

    registry = Registry()
    for spec in builtin_tools():
        registry.register(spec)
    option = 0 if args.compact else orjson.OPT_INDENT_2
    sys.stdout.write(orjson.dumps(registry.definitions(args.format), option=option).decode())
    sys.stdout.write("\n")
    return 0


#: name -> (parser builder, command). Add a subcommand by adding one entry.
SUBCOMMANDS: dict[
    str,
    tuple[Callable[[argparse._SubParsersAction], argparse.ArgumentParser],
          Callable[[argparse.Namespace], int]],
] = {
    "demo": (add_demo_parser, cmd_demo),
    "tools": (add_tools_parser, cmd_tools),
}


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="spyglass",
        description="Fast, bounded, read-only glob, grep and read_file tools for LLM agents.",
    )
    parser.add_argument("--version", action="version", version=f"spyglass {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for (add_parser, command) in SUBCOMMANDS.values():
        add_parser(sub).set_defaults(func=command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `spyglass` console script; returns the exit code."""
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
