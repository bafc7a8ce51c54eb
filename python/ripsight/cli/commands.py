"""The commands that are not one tool call: `demo`, `tools`, `mcp`, `bench` and `cache`, each an
``add_<name>_parser`` and a ``cmd_<name>(args) -> int``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

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
    "add_cache_parser",
    "add_demo_parser",
    "add_mcp_parser",
    "add_tools_parser",
    "cache_text",
    "cmd_bench",
    "cmd_cache",
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
    from ..tools import builtin_tools

    names = [spec.name for spec in builtin_tools()]
    parser = sub.add_parser(
        "mcp",
        help="serve the tools over MCP on stdio",
        description=f"Serve the {len(names)} tools ({', '.join(names[:-1])} and {names[-1]}) "
        "as an MCP server on stdin/stdout, for Claude Desktop, Claude Code, Codex, Gemini CLI, Cursor and any MCP client. Every "
        "result is the text a model sees plus the typed result as structuredContent. "
        "Logging goes to stderr. Needs the optional extra: pip install 'ripsight[mcp]'.",
        epilog="A call's limit is a tool argument the model may set; the limit flags set its "
        "default and the line caps, and the listed tool schemas and descriptions state the "
        "configured numbers. The server exits when the client closes stdin.",
    )
    add_workspace_arguments(parser, time_budget=MCP_TIME_BUDGET)
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


def add_cache_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    from ..limits import INDEX_CACHE_MAX_AGE, INDEX_CACHE_MAX_BYTES

    parser = sub.add_parser(
        "cache",
        help="list the warm index's files, or remove the stale ones",
        description="List the index files of the warm index (one per tree, in the user's cache "
        "directory) with the tree each describes, its size and when it was last used, and say "
        "which are stale: their tree is gone, another version wrote them, they are damaged, "
        f"unused for longer than the age limit (default {_days(INDEX_CACHE_MAX_AGE)}), or "
        "beyond the size cap once the more recently used files are counted (default "
        f"{_size(INDEX_CACHE_MAX_BYTES)}). Every index file written applies both limits to its "
        "directory; --prune applies them now.",
        epilog="exit status: 0 listed (or pruned), 2 error (one line on stderr)",
    )
    parser.add_argument(
        "--prune", action="store_true", help="remove the stale files (a file being written stays)"
    )
    parser.add_argument(
        "--dir",
        metavar="DIR",
        help="the directory of index files (default: ripsight/index in the user's cache "
        "directory; an index_dir given to Workspace)",
    )
    parser.add_argument(
        "--max-age-days",
        type=_days_argument,
        metavar="DAYS",
        help=f"files unused for longer are stale (default: {INDEX_CACHE_MAX_AGE / 86400:g})",
    )
    parser.add_argument(
        "--max-size",
        type=_size_argument,
        metavar="SIZE",
        help="the size the kept files may reach together, most recently used first, in bytes "
        f"or with K, M or G (default: {_size(INDEX_CACHE_MAX_BYTES)})",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the files as one line of JSON (IndexFile)"
    )
    return parser


def cmd_cache(args: argparse.Namespace) -> int:
    import time

    from ..errors import RipsightError
    from ..workspace import index_dir, index_files, prune_index_files, to_dict
    from .output import json_text, write_text

    directory = args.dir if args.dir is not None else index_dir()
    limits = {
        "max_age_seconds": None if args.max_age_days is None else args.max_age_days * 86400,
        "max_bytes": args.max_size,
    }
    try:
        files = (prune_index_files if args.prune else index_files)(directory, **limits)
    except (RipsightError, OSError, ValueError) as error:
        return fail("cache", str(error))
    if args.json:
        write_text(sys.stdout, json_text(to_dict(files)) + "\n")
        return EXIT_OK
    write_text(sys.stdout, cache_text(str(directory), files, time.time(), args.prune) + "\n")
    return EXIT_OK


#: What each staleness means, as `ripsight cache` says it.
_STALE_WORDS = {
    "tree_gone": "its tree is gone",
    "other_format": "another version wrote it",
    "unreadable": "damaged or not an index file",
    "too_old": "unused for longer than the age limit",
    "over_size_cap": "beyond the size cap",
}


def cache_text(directory: str, files: Sequence[Any], now: float, pruned: bool) -> str:
    """What `ripsight cache` prints: the directory, then one line a file (size, what it holds,
    last use, tree, staleness), then what --prune removes or removed."""
    total = sum(f.size_bytes for f in files)
    count = f"{len(files)} index file{'' if len(files) == 1 else 's'}"
    lines = [f"{directory}: {count}, {_size(total)}"]
    for f in files:
        tree = f.root if f.root is not None else "(unknown tree)"
        line = (
            f"  {_size(f.size_bytes):>10}  {f.content:<7}  used {_ago(now - f.last_used):<14}  "
            f"{tree}"
        )
        if f.stale is not None:
            state = "removed" if f.removed else "kept: being written" if f.busy else "stale"
            line += f"  [{state}: {_STALE_WORDS.get(f.stale, f.stale)}]"
        lines.append(line)
    stale = [f for f in files if f.stale is not None]
    if pruned:
        removed = [f for f in stale if f.removed]
        lines.append(
            f"Removed {len(removed)} stale file{'' if len(removed) == 1 else 's'} "
            f"({_size(sum(f.size_bytes for f in removed))})."
        )
    elif stale:
        lines.append(
            f"{len(stale)} stale file{'' if len(stale) == 1 else 's'} "
            f"({_size(sum(f.size_bytes for f in stale))}): ripsight cache --prune removes "
            f"{'it' if len(stale) == 1 else 'them'}."
        )
    return "\n".join(lines)


def _size(size: int) -> str:
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor:
            return f"{size / factor:.1f} {unit}"
    return f"{size} B"


def _days(seconds: float) -> str:
    return f"{seconds / 86400:g} days"


def _ago(seconds: float) -> str:
    seconds = max(0.0, seconds)
    for unit, length in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= length:
            n = int(seconds // length)
            return f"{n} {unit}{'' if n == 1 else 's'} ago"
    return "just now"


def _days_argument(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of days, got {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 days or more, got {text}")
    return value


def _size_argument(text: str) -> int:
    factors = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    body = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = body[-1:] if body[-1:] in factors else ""
    try:
        value = float(body[: len(body) - len(unit)])
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a size such as 500M or 4G, got {text!r}"
        ) from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return int(value * factors[unit])
