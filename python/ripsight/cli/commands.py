"""The commands that are not one tool call: `demo`, `tools`, `mcp` and `bench`, each an
``add_<name>_parser`` and a ``cmd_<name>(args) -> int``."""

from __future__ import annotations

import argparse
import sys

import orjson

from ..limits import APPROVAL_DEADLINE, MAX_CONCURRENT_CALLS, MCP_TIME_BUDGET
from ..registry import FORMATS, Registry
from .options import (
    LIMIT_FLAGS,
    add_limit_arguments,
    add_workspace_arguments,
    limits_from_args,
    registry_from_args,
    workspace_error,
    workspace_options,
)
from .output import EXIT_OK, fail

__all__ = [
    "add_bench_parser",
    "add_demo_parser",
    "add_mcp_parser",
    "add_tools_parser",
    "cmd_bench",
    "cmd_demo",
    "cmd_mcp",
    "cmd_tools",
]


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
    from ..demo import run_demo, run_selftest

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
    from ..tools import builtin_tools

    limits = limits_from_args(args)
    registry = Registry(limits=limits)
    for spec in builtin_tools(limits):
        registry.register(spec)
    if args.strict and args.format not in ("openai", "openai-responses"):
        return fail("tools", f"--strict applies to the openai formats only, not {args.format}")
    option = 0 if args.compact else orjson.OPT_INDENT_2
    definitions = registry.definitions(args.format, strict=args.strict)
    sys.stdout.write(orjson.dumps(definitions, option=option).decode())
    sys.stdout.write("\n")
    return 0


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
    parser.add_argument(
        "roots",
        nargs="*",
        metavar="DIR",
        help="the directories to serve, beside --root (several: every path begins with its "
        "directory's name). A directory that cannot be opened is left out, logged and told to "
        "the model. With none, the client's workspace roots are served (roots/list, on "
        "protocol versions that have them), else the current directory",
    )
    # Under the 5 s that common MCP clients wait for a call; no --root: see `roots`.
    parser.set_defaults(time_budget=MCP_TIME_BUDGET, root=None)
    add_limit_arguments(parser, LIMIT_FLAGS)
    parser.add_argument(
        "--max-concurrent-calls",
        type=int,
        default=MAX_CONCURRENT_CALLS,
        metavar="N",
        help="tool calls running at the same time in worker threads (default: %(default)s)",
    )
    parser.add_argument(
        "--ask",
        action="append",
        default=[],
        metavar="GLOB",
        help="calls reaching paths this glob covers (read as --deny reads it) need a person's "
        "approval, asked through the client (an input request, or elicitation/create on older "
        "protocol versions); a client that cannot ask gets a refusal; repeatable",
    )
    parser.add_argument(
        "--approval-deadline",
        type=float,
        default=APPROVAL_DEADLINE,
        metavar="SECONDS",
        help="how long a call that needs approval waits for the person's answer before it is "
        "refused (default: %(default)g)",
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="a TOML file whose keys add to the repeatable flags: ask = [GLOB, ...], "
        "deny = [GLOB, ...]",
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

    from ..errors import RipsightError

    try:
        import anyio

        from .. import mcp_server
    except ImportError as error:
        missing = (error.name or "").split(".")[0]
        if missing not in ("mcp", "mcp_types", "anyio", "pydantic"):
            raise
        return fail(
            "mcp",
            f"the MCP Python SDK is not installed ({error}); install it with: "
            "pip install 'ripsight[mcp]'",
        )
    if args.max_concurrent_calls < 1:
        return fail("mcp", "--max-concurrent-calls must be at least 1")
    if not 0 < args.approval_deadline < float("inf"):
        return fail("mcp", "--approval-deadline must be a number of seconds more than 0")
    from ..approval import AskRules
    from .config import ConfigError, read_config

    if args.config:
        try:
            config = read_config(args.config)
        except ConfigError as error:
            return fail("mcp", f"--config: {error}")
        args.ask = [*args.ask, *config.get("ask", [])]
        args.deny = [*args.deny, *config.get("deny", [])]
    try:
        ask_rules = AskRules(args.ask)
    except RipsightError as error:
        return fail("mcp", f"cannot use the ask rules {args.ask}: {error}")
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, args.log_level.upper()),
        format="%(asctime)s ripsight-mcp %(levelname)s %(name)s: %(message)s",
    )
    from ..roots import Roots
    from ..workspace import Workspace

    given = [*([args.root] if args.root is not None else []), *args.roots]
    options = workspace_options(args, index=not args.no_index)
    try:
        if len(given) > 1:
            roots = Roots.open(given, strict=False, **options)
            if not len(roots):
                return fail("mcp", "no root can be served: " + "; ".join(roots.problems))
            registry = registry_from_args(args, index=not args.no_index, root=roots)
        else:
            args.root = given[0] if given else "."
            registry = registry_from_args(args, index=not args.no_index)
    except (RipsightError, ValueError, TypeError, OSError) as error:
        return fail("mcp", workspace_error(args, error))

    def open_root(path: str) -> Workspace:
        return Workspace(path, **options)

    if ask_rules:
        registry.policy = ask_rules
    registry.approval_deadline = args.approval_deadline
    logging.getLogger("ripsight.mcp").info(
        "serving %s on stdio for %s%s",
        ", ".join(registry.names),
        registry.workspace.root if registry.workspace is not None else args.root,
        "" if given else " (or the client's roots)",
    )
    with registry:
        try:
            anyio.run(
                lambda: mcp_server.serve_stdio(
                    registry,
                    max_concurrent_calls=args.max_concurrent_calls,
                    structured_content=not args.no_structured_content,
                    client_roots=None if given else open_root,
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
    from ..bench.options import add_arguments

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
    from ..bench.harness import run

    return run(args)
