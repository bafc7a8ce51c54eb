"""The command line and the warm index's files (SPEC §2.8).

A command is one process, so it never builds an index: it loads the tree's index files when
valid ones are there (`ripsight index` writes them, and so does any MCP server on the tree),
and the engine checks them against the tree as it loads them (the files changed since are
searched or parsed directly: the overlay). Without them it answers cold, as before; an answer
that is partial for want of them says once how to build them. `ripsight index [DIR]` builds
or refreshes the files, with its progress on stderr.

Which commands load them: those the index answers (grep from the n-gram file; defs, refs,
calls and map from the symbol file). glob, read and outline gain nothing from it (loading
walks the tree first), so they never do.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, TextIO

from .options import add_workspace_arguments, root_of, workspace_error, workspace_options
from .output import EXIT_ERROR, EXIT_OK, fail, write_text

__all__ = [
    "INDEXED_TOOLS",
    "INDEX_HINT",
    "SYMBOL_TOOLS",
    "add_index_parser",
    "cmd_index",
    "index_contents",
    "load_index",
]

#: The tools the n-gram index answers (grep) or the symbol index (the rest).
SYMBOL_TOOLS = frozenset({"find_calls", "find_definitions", "find_references", "repo_map"})
INDEXED_TOOLS = SYMBOL_TOOLS | {"grep"}

#: How long a command waits for the index files to load: the load walks the tree (to tell the
#: files changed since), which a huge tree makes take seconds. Past it the call answers cold.
LOAD_TIMEOUT = 120.0

#: How long `ripsight index` waits for a merge it started (a merge past a share of the tree is
#: a rebuild).
REFRESH_TIMEOUT = 1800.0

#: A name no file is expected to hold.
_PROBE = "ripsight-index-refresh-probe-3f9c"

#: What a partial answer without an index says, once, on stderr.
INDEX_HINT = (
    "this tree has no index: `ripsight index` builds one (once; later commands load it and "
    "answer from it, whole)"
)


def index_contents(root: str) -> set[str]:
    """What the valid index files in the default cache directory hold for the tree at `root`
    (its canonical path): ``"ngrams"``, ``"symbols"``, both or neither. Only their keys are
    read (the engine checks the files themselves when it loads them)."""
    from ..workspace import index_files

    try:
        files = index_files()
    except (OSError, ValueError):
        return set()
    return {f.content for f in files if f.root == root and f.stale is None}


def load_index(workspace: Any, symbols: bool, timeout: float = LOAD_TIMEOUT) -> bool:
    """Waits until `workspace` (opened with ``index=True, index_build=False``) has loaded its
    n-gram file, and its symbol file when `symbols`; True when what the call needs answers."""
    deadline = time.monotonic() + timeout
    if not workspace.wait_index(timeout):
        return False
    status = workspace.index_status()
    if status.get("state") != "ready":
        return False
    if not symbols:
        return True
    while status.get("symbols") in ("waiting", "building"):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
        status = workspace.index_status()
    return bool(status.get("symbols") == "ready")


def add_index_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "index",
        help="build or refresh the tree's index files, which the other commands then load",
        description="Build the index files of a tree (the n-gram index grep answers from, and "
        "the symbol index defs, refs, calls and map answer from), or, when valid ones exist, "
        "load them and merge the files changed since into new ones. They are kept in the "
        "user's cache directory (see ripsight cache), shared with every process on the tree: "
        "the other commands load them when they are there, and answer whole and fast. "
        "Progress goes to stderr.",
        epilog="exit status: 0 built, up to date or refreshed, 2 error (one line on stderr)",
    )
    parser.add_argument(
        "dir",
        nargs="?",
        metavar="DIR",
        help="the tree to index (default: --root, else the current directory)",
    )
    add_workspace_arguments(parser)
    parser.add_argument(
        "--quiet", "-q", action="store_true", help="no progress display, only the summary"
    )
    return parser


def cmd_index(args: argparse.Namespace) -> int:
    from ..errors import RipsightError
    from ..workspace import Workspace

    if args.dir is not None and args.root is not None:
        return fail("index", "give the tree as DIR or as --root, not both")
    if args.dir is not None:
        args.root = args.dir
    started = time.monotonic()
    try:
        workspace = Workspace(root_of(args), **workspace_options(args, index=True))
    except (RipsightError, ValueError, TypeError, OSError) as error:
        return fail("index", workspace_error(args, error))
    show = _Progress(sys.stderr, quiet=args.quiet)
    with workspace:
        status = _wait(workspace, show)
        if status.get("state") != "ready":
            reason = status.get("fallback") or status.get("state")
            show.done()
            return fail("index", f"the index of {workspace.root} could not be kept: {reason}")
        loaded = status
        status = _refresh(workspace, status, show)
        show.done()
    if status.get("symbols") == "failed":
        return fail(
            "index",
            f"the symbol index of {workspace.root} could not be built: "
            f"{status.get('symbols_failure')}",
        )
    text = summary(workspace.root, status, time.monotonic() - started, loaded)
    write_text(sys.stdout, text + "\n")
    return EXIT_OK if status.get("symbols") in ("ready", "off") else EXIT_ERROR


def _wait(workspace: Any, show: _Progress) -> dict[str, Any]:
    """Waits for the first build (or load) of both indexes, showing what it does."""
    while True:
        status: dict[str, Any] = workspace.index_status()
        if status.get("state") == "building":
            files = int(status.get("files") or 0)
            show("walking and indexing the tree" + (f": {files:,} files" if files else ""))
        elif status.get("state") != "ready":
            return status
        elif status.get("symbols") == "building":
            done, total = status.get("symbol_files_parsed", 0), status.get("symbol_files_total", 0)
            show(f"parsing for the symbol index: {done:,} of {total:,} files")
        elif status.get("symbols") == "waiting":
            show("waiting for the symbol index (another process may be building it)")
        else:
            return status
        time.sleep(0.1)


def _refresh(workspace: Any, status: dict[str, Any], show: _Progress) -> dict[str, Any]:
    """When files were loaded: a call on each index lets the engine start what its upkeep
    decides is due (a merge into new files of the files changed since, when enough changed for
    one, and of the files the loaded ones record without vouching for them, written just before
    them); waits for what it started. What is left is searched directly (the summary says)."""
    if not status.get("loaded") and not status.get("symbols_loaded"):
        return status
    # Calls on names no file holds: each index's upkeep runs at a call.
    workspace.grep(_PROBE, literal=True, limit=1)
    if status.get("symbols") == "ready":
        workspace.definitions(_PROBE.replace("-", "_"), limit=1)
    deadline = time.monotonic() + REFRESH_TIMEOUT
    while True:
        now: dict[str, Any] = workspace.index_status()
        if not now.get("refreshing") or time.monotonic() >= deadline:
            return now
        show("merging the files changed since into new index files")
        time.sleep(0.1)


def summary(
    root: str, status: dict[str, Any], seconds: float, loaded: dict[str, Any] | None = None
) -> str:
    """What `ripsight index` prints when done: the tree, what each index holds, whether it was
    built, loaded, or loaded and refreshed (`loaded` is the status before the refresh), and the
    files the next commands search or parse directly."""
    before = loaded or status
    how = _how(before, status, "loaded", "merges", "unindexed_files")
    files = f"{status.get('files', 0):,} files, {_mib(status.get('bytes', 0))}"
    where = status.get("index_path") or "memory only"
    lines = [
        f"Indexed {root} in {seconds:.1f} s: {files}.",
        f"  n-gram index: {how}, {_mib(status.get('index_bytes', 0))} ({where})",
    ]
    if status.get("symbols") == "ready":
        how = _how(before, status, "symbols_loaded", "symbol_merges", "symbol_overlay_files")
        lines.append(f"  symbol index: {how}, {_mib(status.get('symbol_bytes', 0))}")
    elif status.get("symbols") == "off":
        lines.append("  symbol index: off (RIPSIGHT_SYMBOLS=0)")
    unindexed = int(status.get("unindexed_files", 0))
    if unindexed:
        lines.append(
            f"  {unindexed:,} files are searched directly (binary, too large, or changed since "
            f"the index was written or in the second before it{_AGAIN})"
        )
    parsed = int(status.get("symbol_overlay_files", 0)) if status.get("symbols") == "ready" else 0
    if parsed:
        lines.append(
            f"  {parsed:,} files are parsed directly by defs, refs, calls and map (not "
            f"parsable, or changed since the symbol index was written or in the second before "
            f"it{_AGAIN})"
        )
    return "\n".join(lines)


#: What the summary says of files changed in the second before an index file was written.
_AGAIN = ": `ripsight index` run again merges those once they are a second old"


def _how(before: dict[str, Any], after: dict[str, Any], loaded: str, merges: str, left: str) -> str:
    """How an index came to be: built; loaded as it was; or loaded, then refreshed (this
    process wrote a new file: the files it brought in are those no longer searched directly)."""
    if not after.get(loaded):
        return "built"
    if not int(after.get(merges, 0)):
        return "loaded (up to date)"
    brought = int(before.get(left, 0)) - int(after.get(left, 0))
    if brought > 0:
        return (
            f"loaded, then refreshed ({brought:,} {'file' if brought == 1 else 'files'} merged in)"
        )
    return "loaded, then refreshed (a new file written)"


def _mib(size: Any) -> str:
    return f"{int(size or 0) / (1 << 20):,.1f} MiB"


class _Progress:
    """One progress line on a terminal, rewritten in place (a line per change elsewhere)."""

    def __init__(self, stream: TextIO, quiet: bool = False) -> None:
        self.stream = stream
        self.quiet = quiet
        self.tty = _isatty(stream)
        self.last = ""
        self.shown_at = 0.0

    def __call__(self, text: str) -> None:
        if self.quiet or text == self.last:
            return
        now = time.monotonic()
        if not self.tty and now - self.shown_at < 2.0 and _same_kind(text, self.last):
            return  # a log gets a line every 2 s, not every tick
        self.last, self.shown_at = text, now
        if self.tty:
            self.stream.write(f"\r\x1b[Kripsight index: {text}")
        else:
            self.stream.write(f"ripsight index: {text}\n")
        self.stream.flush()

    def done(self) -> None:
        if self.tty and self.last and not self.quiet:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _same_kind(a: str, b: str) -> bool:
    return a.split(":")[0] == b.split(":")[0]


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
