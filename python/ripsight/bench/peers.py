"""The peers `ripsight bench` times ripsight against, each given the flags that make it search
ripsight's file set: rg and fd as subprocesses, the in-process ripgrep bindings, pure Python,
and `tail | head`."""

from __future__ import annotations

import fnmatch
import itertools
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from typing import Any

from .corpus import DENY_GLOBS, SKIP_DIRS


def _binary(path: str | None, name: str) -> str:
    if path is None:
        raise FileNotFoundError(f"{name} is not installed")
    return path


def rg_binary() -> str | None:
    """The PyPI ``ripgrep`` wheel's binary next to this interpreter, else ``rg`` on PATH."""
    # A venv with --system-site-packages has the wheel's binary under the base interpreter;
    # pyenv's `shims/rg` is a shell script that costs ~40 ms a run, so it is the last resort.
    for scripts in (
        sysconfig.get_path("scripts"),
        sysconfig.get_path("scripts", vars={"base": sys.base_prefix, "platbase": sys.base_prefix}),
    ):
        cand = os.path.join(scripts, "rg")
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return shutil.which("rg")


def fd_binary() -> str | None:
    """Debian's ``fdfind`` (package fd-find), else ``fd``."""
    return shutil.which("fdfind") or shutil.which("fd")


def same_set_rg_args(hidden: bool = True) -> list[str]:
    """Flags that make rg search exactly ripsight's default file set (hidden files in, skip set out)."""
    # No -L: ripsight's walks follow no symlink, as rg and fd by default.
    args = ["--hidden"] if hidden else []
    for d in SKIP_DIRS:
        args += ["-g", f"!{d}/"]
    for g in DENY_GLOBS:
        args += ["-g", f"!{g}"]
    return args


def same_set_fd_args() -> list[str]:
    args = ["--hidden", "--type", "f"]
    for d in SKIP_DIRS:
        args += ["--exclude", d]
    for g in DENY_GLOBS:
        args += ["--exclude", g]
    return args


def rg_count(root: str, pattern: str, literal: bool = False, hidden: bool = True) -> int:
    """Matching lines in ripsight's file set, by ``rg -c`` (the expected answer of a grep case).

    ``hidden=False`` leaves hidden files out, for a peer that cannot search them
    (python-ripgrep)."""
    rg = rg_binary()
    assert rg, "rg not found"
    cmd = [rg, "-c", "--no-messages", *same_set_rg_args(hidden)]
    cmd += ["-F"] if literal else []
    out = subprocess.run([*cmd, "-e", pattern, "."], cwd=root, capture_output=True, check=False)
    total = 0
    for line in out.stdout.splitlines():
        total += int(line.rsplit(b":", 1)[1])
    return total


def rg_search(root: str, pattern: str, literal: bool = False, sort: bool = False) -> int:
    """`rg -n PATTERN .` (optionally ``--sort path``) as a subprocess; returns output lines."""
    cmd = [_binary(rg_binary(), "rg"), "-n", "--no-messages", *same_set_rg_args()]
    if literal:
        cmd.append("-F")
    if sort:
        cmd += ["--sort", "path"]
    out = subprocess.run(
        [*cmd, "-e", pattern, "."],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return out.stdout.count(b"\n")


def fd_count(root: str, glob: str) -> int:
    """`fd -g GLOB` in ripsight's file set, as a subprocess; returns the number of paths."""
    out = subprocess.run(
        [_binary(fd_binary(), "fd"), *same_set_fd_args(), "-g", glob, "."],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return out.stdout.count(b"\n")


def rg_files_count(root: str, glob: str, hidden: bool = True) -> int:
    """`rg --files -g GLOB` in ripsight's file set."""
    out = subprocess.run(
        [_binary(rg_binary(), "rg"), "--files", *same_set_rg_args(hidden), "-g", glob, "."],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return out.stdout.count(b"\n")


def _rg_module(name: str) -> Any | None:
    try:
        return __import__(name)
    except ImportError:
        return None


def lib_has_hidden(mod: Any) -> bool:
    """ripgrep-rs can search hidden files; python-ripgrep 0.0.9 has no such option."""
    try:
        mod.search(patterns=["x"], paths=[os.devnull], hidden=True)
    except TypeError:
        return False
    except Exception:  # noqa: BLE001 - any other complaint means the keyword was accepted
        return True
    return True


def rg_lib_search(
    mod: Any, root: str, pattern: str, literal: bool = False, hidden: bool = True
) -> int:
    """python-ripgrep / ripgrep-rs ``search`` in-process; returns matching lines.

    Neither has a fixed-strings option, so a literal is escaped into a regex.
    """
    globs = [f"!{d}/" for d in SKIP_DIRS] + [f"!{g}" for g in DENY_GLOBS]
    kw = {"hidden": True} if hidden else {}
    res = mod.search(
        patterns=[re.escape(pattern) if literal else pattern],
        paths=[root],
        globs=globs,
        line_number=True,
        **kw,
    )
    return sum(block.count("\n") for block in res)


def rg_lib_files(mod: Any, root: str, glob: str, hidden: bool = True) -> int:
    globs = [glob] + [f"!{d}/" for d in SKIP_DIRS] + [f"!{g}" for g in DENY_GLOBS]
    kw = {"hidden": True} if hidden else {}
    return len(mod.files(patterns=[], paths=[root], globs=globs, **kw))


class _IgnoreRules:
    """Minimal .gitignore reading for the pure-Python reference: last matching rule wins,
    negation, dir-only and anchored patterns. ``*`` may cross ``/`` (fnmatch), a known gap."""

    def __init__(self) -> None:
        self.rules: list[tuple[str, str, bool, bool, bool]] = []  # base, pat, neg, dir_only, anch

    def load(self, base: str, path: str) -> None:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                lines = fh.read().splitlines()
        except OSError:
            return
        for raw in lines:
            line = raw.rstrip()
            if not line or line.startswith("#"):
                continue
            neg = line.startswith("!")
            if neg:
                line = line[1:]
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            anchored = "/" in line
            self.rules.append((base, line.lstrip("/"), neg, dir_only, anchored))

    def ignored(self, rel: str, is_dir: bool) -> bool:
        verdict = False
        name = rel.rsplit("/", 1)[-1]
        for base, pat, neg, dir_only, anchored in self.rules:
            if dir_only and not is_dir:
                continue
            if base:
                if not rel.startswith(base + "/"):
                    continue
                sub = rel[len(base) + 1 :]
            else:
                sub = rel
            if fnmatch.fnmatchcase(sub, pat) if anchored else fnmatch.fnmatchcase(name, pat):
                verdict = not neg
        return verdict


def py_walk(root: str) -> Iterator[tuple[str, str]]:
    """Pure-Python reference walk: os.walk, skip set, hidden included, .gitignore inside git
    repositories and .ignore everywhere (simplified, see _IgnoreRules), deny globs. Yields
    (relative path, absolute path) in path order."""
    in_git = os.path.isdir(os.path.join(root, ".git"))
    rules = _IgnoreRules()
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir
        for ign in (".gitignore", ".ignore") if in_git else (".ignore",):
            if ign in filenames:
                rules.load(rel_dir, os.path.join(dirpath, ign))
        keep = []
        for d in sorted(dirnames):
            rel = f"{rel_dir}/{d}" if rel_dir else d
            if d in SKIP_DIRS or rules.ignored(rel, True):
                continue
            if os.path.islink(os.path.join(dirpath, d)):  # not followed, as rg and fd do
                continue
            keep.append(d)
        dirnames[:] = keep
        for f in sorted(filenames):
            rel = f"{rel_dir}/{f}" if rel_dir else f
            if any(fnmatch.fnmatchcase(f, g) for g in DENY_GLOBS) or rules.ignored(rel, False):
                continue
            if os.path.islink(os.path.join(dirpath, f)):  # rg and fd skip links unless -L
                continue
            yield rel, os.path.join(dirpath, f)


def py_grep(root: str, pattern: str, literal: bool = False) -> int:
    """Pure-Python reference grep: py_walk + re, binary (NUL in first 8 KiB) skipped, UTF-16 BOM
    decoded. Returns matching lines."""
    rx = re.compile(re.escape(pattern) if literal else pattern)
    total = 0
    for _, path in py_walk(root):
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
            text = data.decode("utf-16", errors="replace")
        elif b"\x00" in data[:8192]:
            continue
        else:
            text = data.decode("utf-8", errors="replace")
        total += sum(1 for line in text.splitlines() if rx.search(line))
    return total


def py_glob(root: str, pattern: str) -> int:
    """Pure-Python reference for ``**/<name-glob>``: py_walk + fnmatch on the file name."""
    name = pattern.rsplit("/", 1)[-1]
    return sum(1 for rel, _ in py_walk(root) if fnmatch.fnmatchcase(rel.rsplit("/", 1)[-1], name))


def tail_head(path: str, offset: int, limit: int) -> int:
    """``tail -n +OFFSET FILE | head -LIMIT`` through the shell; returns lines printed."""
    out = subprocess.run(
        f"tail -n +{offset} '{path}' | head -{limit}",
        shell=True,
        stdout=subprocess.PIPE,
        check=True,
    )
    return out.stdout.count(b"\n")


def py_read(path: str, offset: int, limit: int) -> int:
    """Pure-Python reference read: itertools.islice over the file's lines."""
    with open(path, "rb") as fh:
        return sum(1 for _ in itertools.islice(fh, offset - 1, offset - 1 + limit))


def peak_rss_of_read(path: str, offset: int, limit: int) -> dict[str, float]:
    """Peak resident memory (MB) of one ripsight read, in a fresh interpreter.

    The high-water mark is reset just before the read (``/proc/self/clear_refs``), so the peak is
    the read's own plus what the interpreter already holds (``baseline_mb``). ``getrusage``'s
    ``ru_maxrss`` is not used: after fork+exec it still carries the parent's peak.
    """
    code = (
        "import os, sys\n"
        "def mem(key):\n"
        "    with open('/proc/self/status') as fh:\n"
        "        for line in fh:\n"
        "            if line.startswith(key + ':'):\n"
        "                return int(line.split()[1])\n"
        "from ripsight import Workspace\n"
        "ws = Workspace(os.path.dirname(sys.argv[1]))\n"
        "before = mem('VmRSS')\n"
        "with open('/proc/self/clear_refs', 'w') as fh:\n"
        "    fh.write('5')\n"
        "r = ws.read_file(os.path.basename(sys.argv[1]), offset=int(sys.argv[2]),"
        " limit=int(sys.argv[3]))\n"
        "print(before, mem('VmHWM'), len(r.lines))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, path, str(offset), str(limit)],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"the read in a fresh interpreter failed: {out.stderr.strip()[-500:]}")
    before, after, n = out.stdout.split()
    return {
        "peak_mb": int(after) / 1024,
        "baseline_mb": int(before) / 1024,
        "delta_mb": (int(after) - int(before)) / 1024,
        "lines": int(n),
    }
