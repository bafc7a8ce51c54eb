"""The harness of `ripsight bench [ROOT]`: ripsight against ripgrep and its peers, on your repository or a generated one.

    ripsight bench                       # a generated 5,000-file repository (cached)
    ripsight bench ~/src/monorepo --json figures.json --plot figures.png
    ripsight bench --quick               # a generated ~300-file repository, 3 repeats

Every case first checks that each tool found the same answer (the same total of matching lines or
files), then times it. Figures are medians of `--repeat` runs, page cache warm (one untimed run
first), the tools of a case timed round-robin so that outside load falls on all alike; every
figure is also shown as a ratio to `rg`, the reference. ripsight is timed
in-process through the Python API (the way an agent pays for a call); `rg`, `fd` and
`tail | head` are timed as whole subprocesses started from Python.

This module also holds the deterministic corpus generators that `benches/` uses.
"""

from __future__ import annotations

import argparse
import fnmatch
import functools
import io
import itertools
import json
import math
import os
import platform
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..workspace import DEFAULT_DENY_GLOBS, DEFAULT_EXCLUDE_DIRS
from .options import NO_MATCH, add_arguments, build_parser

__all__ = [
    "GENERATOR_VERSION",
    "NO_MATCH",
    "add_arguments",
    "build_parser",
    "cache_dir",
    "fd_binary",
    "log_file",
    "main",
    "monorepo",
    "rg_binary",
    "same_set_fd_args",
    "same_set_rg_args",
    "small_repo",
]

# Bump when a generator's output changes: cached corpora are keyed by it.
GENERATOR_VERSION = 1
SEED = 20260101

# ripsight's defaults (SPEC 2.2, 2.5), from the engine, given to the peers as flags so every tool
# sees the same file set.
SKIP_DIRS = DEFAULT_EXCLUDE_DIRS
DENY_GLOBS = DEFAULT_DENY_GLOBS

# Tokens the generators plant, so a case knows its answer's shape before any tool runs.
RARE_LITERAL = "quixotic_flux_capacitor"
# ~14,000 matching lines in the 100,000-file monorepo, ~45 in the small repository.
COMMON_REGEX = r"FIXME: \w+ \w+ may overflow (cache|queue|buffer|token)\b"


# ---------------------------------------------------------------------------------------------
# Corpora
# ---------------------------------------------------------------------------------------------


def cache_dir() -> str:
    """Where generated corpora live: ``$RIPSIGHT_BENCH_DIR`` or ``~/.cache/ripsight-bench``."""
    d = os.environ.get("RIPSIGHT_BENCH_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "ripsight-bench"
    )
    os.makedirs(d, exist_ok=True)
    return d


def _cached(name: str, build: Callable[[str], None]) -> str:
    """Build into ``<cache>/<name>.partial`` then rename, so an interrupted build is never reused."""
    final = os.path.join(cache_dir(), name)
    if os.path.exists(final):
        return final
    tmp = f"{final}.partial-{os.getpid()}"
    if os.path.isdir(tmp):
        shutil.rmtree(tmp)
    elif os.path.exists(tmp):
        os.remove(tmp)
    build(tmp)
    try:
        os.rename(tmp, final)
    except OSError:  # another process won the race; its copy is identical
        if os.path.isdir(tmp):
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            os.remove(tmp)
    return final


_WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "value",
    "index",
    "count",
    "buffer",
    "record",
    "handle",
    "state",
    "config",
    "request",
    "response",
    "parser",
    "token",
    "stream",
    "result",
    "error",
    "cache",
    "entry",
    "node",
    "tree",
    "graph",
    "queue",
    "worker",
    "thread",
    "signal",
    "timer",
    "event",
    "client",
    "server",
    "module",
    "widget",
    "layout",
    "render",
    "update",
    "commit",
    "branch",
    "merge",
    "filter",
    "reduce",
    "select",
    "insert",
    "delete",
    "offset",
    "length",
    "size",
    "total",
]


def _body(rng: random.Random, lang: str, n_lines: int) -> list[str]:
    """Plausible source lines: ``return f(...)``, ``TODO``/``FIXME`` comments (COMMON_REGEX)."""
    out: list[str] = []
    w = _WORDS
    for i in range(n_lines):
        a, b, c = rng.choice(w), rng.choice(w), rng.choice(w)
        r = rng.random()
        if lang == "py":
            if r < 0.12:
                out.append(f"    return {a}_{b}({c})")
            elif r < 0.2:
                out.append(f"def {a}_{b}_{i}({c}, {a}=None):")
            elif r < 0.25:
                out.append(f"    # TODO: handle {a} {b} when {c} is empty")
            else:
                out.append(f"    {a}_{b} = {c}.get({a!r}, {rng.randint(0, 999)})")
        elif lang in ("c", "h", "rs", "js", "ts"):
            if r < 0.12:
                out.append(f"\treturn {a}_{b}({c});")
            elif r < 0.2:
                out.append(
                    f"static int {a}_{b}_{i}(struct {c} *{a})" + (" {" if lang != "h" else ";")
                )
            elif r < 0.25:
                out.append(f"\t/* FIXME: {a} {b} may overflow {c} */")
            else:
                out.append(f"\t{a}->{b} = {c}[{rng.randint(0, 99)}];")
        else:  # md, txt, yml
            out.append(" ".join(rng.choice(w) for _ in range(rng.randint(4, 14))))
    return out


_EXTS = ("py", "c", "h", "rs", "js", "ts", "md", "txt", "yml")


class _Writer:
    """Writes one generated tree; a pool of bodies keeps 100,000 files fast to produce."""

    def __init__(self, root: str, seed: int) -> None:
        self.root = root
        self.rng = random.Random(seed)
        self.pool = {
            ext: [_body(self.rng, ext, self.rng.randint(20, 120)) for _ in range(40)]
            for ext in _EXTS
        }
        self.files = 0

    def text(self, rel: str, ext: str, extra: Sequence[str] = ()) -> None:
        lines = [f"// file {rel}"] + list(self.rng.choice(self.pool[ext])) + list(extra)
        self.raw(rel, ("\n".join(lines) + "\n").encode())

    def raw(self, rel: str, data: bytes) -> None:
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(data)
        self.files += 1

    def binary(self, rel: str) -> None:
        # PNG signature, then bytes with NULs; one planted token must NOT be found (binary skip).
        payload = bytes(self.rng.getrandbits(8) for _ in range(2048))
        self.raw(rel, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + payload + RARE_LITERAL.encode())

    def minified(self, rel: str) -> None:
        parts = [
            f"function {a}(){{return {b}({a},{c})}}"
            for a, b, c in (
                (self.rng.choice(_WORDS), self.rng.choice(_WORDS), self.rng.choice(_WORDS))
                for _ in range(600)
            )
        ]
        self.raw(rel, (";".join(parts) + "\n").encode())

    def utf16(self, rel: str, token: str = "") -> None:
        lines = [" ".join(self.rng.choice(_WORDS) for _ in range(8)) for _ in range(30)]
        if token:
            lines[17] = f"see {token} here"
        self.raw(rel, "\ufeff".encode("utf-16-le") + "\n".join(lines).encode("utf-16-le"))


def _git_init(root: str) -> None:
    # ripgrep, fd and ripsight apply .gitignore only inside a git repository: a bare `.git/` is enough.
    os.makedirs(os.path.join(root, ".git", "info"), exist_ok=True)
    with open(os.path.join(root, ".git", "HEAD"), "w") as fh:
        fh.write("ref: refs/heads/main\n")
    os.makedirs(os.path.join(root, ".git", "objects"), exist_ok=True)
    os.makedirs(os.path.join(root, ".git", "refs", "heads"), exist_ok=True)


def _generate_repo(root: str, visible: int, seed: int) -> None:
    """`visible` searchable files plus ignored, excluded, denied, binary and UTF-16 extras.

    Layout (sizes for visible=300): ~84% source in packages/pkgNN/{src,tests}, 1% minified
    one-line JS, 1% binaries (PNG header + NULs), 0.5% UTF-16LE with BOM, docs; plus
    node_modules/ (default-excluded, ~15% on top), build/ (gitignored, ~10% on top), `.env`
    (denied) and `.github/workflows/ci.yml` (hidden, included). RARE_LITERAL is planted in 3
    text files (one of them UTF-16), one binary and one ignored/excluded file each.
    """
    w = _Writer(root, seed)
    _git_init(root)
    w.raw(".gitignore", b"build/\n*.log\n")
    w.raw(".env", f"SECRET={RARE_LITERAL}\n".encode())
    w.raw(".github/workflows/ci.yml", b"on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n")
    w.raw("README.md", b"# generated repository\n\nreturn value(of) nothing\n")
    rng = w.rng
    n_pkgs = max(1, visible // 60)
    n_bin = max(1, visible // 100)
    n_min = max(1, visible // 100)
    n_u16 = max(1, visible // 200)
    n_src = visible - n_bin - n_min - n_u16 - 3
    rare_at = {n_src // 3, (2 * n_src) // 3}
    for i in range(n_src):
        pkg = f"packages/pkg{i % n_pkgs:03d}"
        ext = _EXTS[i % len(_EXTS)]
        sub = "tests" if i % 10 == 0 else f"src/mod{(i // n_pkgs) % 16:02d}"
        extra = [f"    # uses {RARE_LITERAL} once"] if i in rare_at else []
        w.text(f"{pkg}/{sub}/f{i:06d}.{ext}", ext, extra)
    for i in range(n_min):
        w.minified(f"web/static/bundle{i:04d}.min.js")
    for i in range(n_bin):
        w.binary(f"assets/img{i:04d}.png")
    for i in range(n_u16):
        w.utf16(f"i18n/strings{i:04d}.txt", RARE_LITERAL if i == 0 else "")
    # Not searched by default: node_modules (excluded dir) and build/ (gitignored).
    for i in range(max(2, visible * 15 // 100)):
        w.text(
            f"node_modules/dep{i % 40:02d}/lib/index{i:05d}.js",
            "js",
            [RARE_LITERAL] if i == 0 else [],
        )
    for i in range(max(2, visible // 10)):
        w.text(f"build/out/gen{i:05d}.c", "c", [RARE_LITERAL] if i == 0 else [])
    w.raw("debug.log", f"{RARE_LITERAL}\n".encode())
    del rng


def small_repo(files: int = 300) -> str:
    """A generated repository with ``files`` visible files (default ~300), cached."""
    return _cached(
        f"small-v{GENERATOR_VERSION}-{files}", lambda d: _generate_repo(d, files, SEED + files)
    )


def monorepo(files: int = 100_000) -> str:
    """A generated monorepo: ``files`` visible files plus ~25% more in node_modules/ and build/.

    At the default 100,000 it holds ~125,000 files, ~260 MB; generation takes about a minute once.
    """
    return _cached(
        f"monorepo-v{GENERATOR_VERSION}-{files}",
        lambda d: _generate_repo(d, files, SEED + 7 * files),
    )


LOG_LINE = "{n:09d} 2026-01-01T00:00:00Z INFO worker-{w:02d} request id={r:08x} status=200 {word}\n"
LOG_LINE_BYTES = 83  # about; 500 MB holds 6,000,000 lines


def log_file(megabytes: int = 500) -> str:
    """A log of numbered lines (~83 bytes each; 500 MB is 6,000,000 lines), cached.

    Line N starts with N zero-padded to 9 digits, so a read at any offset can be checked.
    """

    def build(path: str) -> None:
        target = megabytes * 1_000_000
        written, n = 0, 1
        with open(path, "w", encoding="ascii", buffering=1 << 20) as fh:
            while written < target:
                chunk = "".join(
                    LOG_LINE.format(
                        n=k, w=k % 16, r=(k * 2654435761) & 0xFFFFFFFF, word=_WORDS[k % len(_WORDS)]
                    )
                    for k in range(n, n + 50_000)
                )
                fh.write(chunk)
                written += len(chunk)
                n += 50_000

    # In a directory of its own: the deep-read Workspace is rooted there.
    os.makedirs(os.path.join(cache_dir(), f"logs-v{GENERATOR_VERSION}"), exist_ok=True)
    return _cached(f"logs-v{GENERATOR_VERSION}/{megabytes}mb.log", build)


# ---------------------------------------------------------------------------------------------
# Peers
# ---------------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------------
# Measurement
# ---------------------------------------------------------------------------------------------


@dataclass
class Row:
    case: str
    tool: str
    median_ms: float | None
    runs_ms: list[float] = field(default_factory=list)
    # CPU time (user + system, this process's threads and its children): steadier than wall
    # time when something else loads the machine.
    cpu_ms: float | None = None
    cpu_runs_ms: list[float] = field(default_factory=list)
    answer: int | None = None
    ratio_to_rg: float | None = None
    goal: str = ""
    met: bool | None = None
    note: str = ""


def _cpu_seconds() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


class _Progress:
    """A one-line text progress bar on stderr (no dependencies)."""

    def __init__(self, total: int, enabled: bool = True) -> None:
        self.total, self.done, self.enabled = max(total, 1), 0, enabled

    def step(self, label: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        width = 30
        filled = width * self.done // self.total
        bar = "#" * filled + "-" * (width - filled)
        sys.stderr.write(f"\r[{bar}] {self.done}/{self.total} {label[:48]:<48}")
        if self.done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _pick_glob(root: str) -> str:
    """The most common file extension in the file set (by ``rg --files``), as ``**/*.EXT``."""
    out = subprocess.run(
        [_binary(rg_binary(), "rg"), "--files", *same_set_rg_args(), "."],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    counts: dict[str, int] = {}
    for p in out.stdout.decode("utf-8", "replace").splitlines():
        base = p.rsplit("/", 1)[-1]
        if "." in base[1:]:
            ext = base.rsplit(".", 1)[1]
            counts[ext] = counts.get(ext, 0) + 1
    if not counts:
        return "**/*"
    return "**/*." + max(sorted(counts), key=lambda e: counts[e])


# Tried in order on a repository the generators did not make; the one whose match count is
# closest to ~15,000 (what the kernel gives for `list_for_each_entry\w*\(`) is used.
COMMON_CANDIDATES = (
    r"\b(TODO|FIXME|XXX)\b",
    r"\breturn\s+\w+\(",
    r"\b(if|while)\s*\(\w+\s*==",
    r"\bdef \w+\(self",
    r"\bfunction\s+\w+\(",
    r"list_for_each_entry\w*\(",
)


def _pick_rare(root: str) -> str:
    """RARE_LITERAL when the repository is a generated one; otherwise an identifier (10+
    characters) from a file in the middle of the listing that occurs on 1-100 lines."""
    if rg_count(root, RARE_LITERAL, literal=True) > 0:
        return RARE_LITERAL
    out = subprocess.run(
        [_binary(rg_binary(), "rg"), "--files", "--sort", "path", *same_set_rg_args(), "."],
        cwd=root,
        capture_output=True,
        check=False,
    )
    files = out.stdout.decode("utf-8", "replace").splitlines()
    for path in files[len(files) // 2 :][:20]:
        try:
            with open(os.path.join(root, path), "rb") as fh:
                text = fh.read(65536).decode("utf-8", "replace")
        except OSError:
            continue
        words = sorted(set(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]{9,40}\b", text)))
        for word in words[:: max(1, len(words) // 5)][:5]:
            if 1 <= rg_count(root, word, literal=True) <= 100:
                return str(word)
    return RARE_LITERAL


def _pick_none(root: str) -> str:
    """NO_MATCH, with a suffix added while the repository happens to contain it."""
    word, n = NO_MATCH, 0
    while rg_count(root, word, literal=True) > 0 and n < 10:
        n += 1
        word = f"{NO_MATCH}_{n}{n}{n}"
    return word


def _pick_common(root: str) -> str:
    """COMMON_REGEX in a generated repository (nothing else matches it); otherwise the
    candidate closest to ~15,000 matching lines."""
    if rg_count(root, COMMON_REGEX) > 0:
        return COMMON_REGEX
    counts = {c: rg_count(root, c) for c in COMMON_CANDIDATES}
    best = min(counts, key=lambda c: abs(math.log((counts[c] + 1) / 15_000)))
    return best if counts[best] > 0 else COMMON_REGEX


def _threads_throughput(fn: Callable[[], Any], threads: int, calls: int) -> float:
    """Calls per second when `threads` Python threads share `calls` calls."""
    per = max(1, calls // threads)
    barrier = threading.Barrier(threads + 1)

    def work() -> None:
        barrier.wait()
        for _ in range(per):
            fn()

    ts = [threading.Thread(target=work) for _ in range(threads)]
    for t in ts:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in ts:
        t.join()
    return per * threads / (time.perf_counter() - t0)


def run_suite(
    root: str,
    *,
    repeat: int = 5,
    quick: bool = False,
    log_mb: int | None = None,
    rare: str | None = None,
    common: str | None = None,
    none: str | None = None,
    glob: str | None = None,
    small_root: str | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Run every case on `root`; returns the raw figures (what ``--json`` writes)."""
    from ripsight import Workspace

    load_start = os.getloadavg()[0]
    root = os.path.realpath(root)
    ws = Workspace(root)
    fd = fd_binary()
    libs = {
        name: mod
        for name in ("python_ripgrep", "ripgrep_rs")
        if (mod := _rg_module(name)) is not None
    }
    missing = [n for n in ("python_ripgrep", "ripgrep_rs") if n not in libs]
    lib_hidden = {name: lib_has_hidden(mod) for name, mod in libs.items()}
    glob = glob or _pick_glob(root)
    patterns = [
        ("rare literal", rare or _pick_rare(root), True),
        ("common regex", common or _pick_common(root), False),
        ("no match", none or _pick_none(root), True),
    ]
    small = small_root or small_repo(60 if quick else 300)
    wss = Workspace(small)
    log_mb = log_mb if log_mb is not None else (20 if quick else 500)
    n_steps = (len(patterns) + 1) * (4 + len(libs)) + 9
    bar = _Progress(n_steps, progress)
    rows: list[Row] = []
    problems: list[str] = []

    pending: list[tuple[str, Callable[[], Any], int | None, int]] = []

    def measure(
        case: str, tool: str, fn: Callable[[], Any], expect: int | None, reps: int = repeat
    ) -> None:
        pending.append((tool, fn, expect, reps))

    def run_case(case: str) -> None:
        """Check every tool's answer (also the warm-up run), then time them round-robin, so
        that load from elsewhere on the machine falls on all of them alike."""
        alive: list[tuple[Row, Callable[[], Any], int]] = []
        for tool, fn, expect, reps in pending:
            bar.step(f"{case}: {tool}")
            try:
                ans = fn()
            except Exception as exc:  # noqa: BLE001 - a peer that breaks is reported, not fatal
                rows.append(Row(case, tool, None, note=f"failed: {exc}"))
                if tool == "ripsight":
                    problems.append(f"{case}: ripsight failed: {exc}")
                continue
            row = Row(case, tool, None, answer=ans if isinstance(ans, int) else None)
            if expect is not None and row.answer != expect:
                row.note = f"answer {row.answer} != expected {expect}"
                problems.append(
                    f"{case}: {tool} found {row.answer}, the reference (rg in the "
                    f"same file set, or 400 lines) {expect}"
                )
            rows.append(row)
            alive.append((row, fn, reps))
        pending.clear()
        for i in range(max((reps for _, _, reps in alive), default=0)):
            for row, fn, reps in alive:
                if i < reps:
                    c0 = _cpu_seconds()
                    t0 = time.perf_counter()
                    fn()
                    row.runs_ms.append((time.perf_counter() - t0) * 1000)
                    row.cpu_runs_ms.append((_cpu_seconds() - c0) * 1000)
        for row, _, _ in alive:
            row.median_ms = statistics.median(row.runs_ms)
            row.cpu_ms = statistics.median(row.cpu_runs_ms)

    # grep, content mode, 50 shown + exact totals, path-sorted
    for label, pat, lit in patterns:
        case = f"grep {label}"
        expect = rg_count(root, pat, lit)
        measure(case, "rg", functools.partial(rg_search, root, pat, lit), expect)
        measure(
            case, "rg --sort path", functools.partial(rg_search, root, pat, lit, sort=True), expect
        )

        def ripsight_grep(p: str = pat, is_literal: bool = lit) -> int:
            return ws.grep(p, literal=is_literal, limit=50).total_matches

        measure(case, "ripsight", ripsight_grep, expect)
        for name, mod in libs.items():
            # python-ripgrep cannot search hidden files: its answer is rg's without --hidden.
            hid = lib_hidden[name]
            measure(
                case,
                name.replace("_", "-"),
                functools.partial(rg_lib_search, mod, root, pat, lit, hid),
                rg_count(root, pat, lit, hidden=hid),
            )
        measure(
            case,
            "python (os.walk+re)",
            functools.partial(py_grep, root, pat, lit),
            rg_count(root, pat, lit),
            reps=1 if not quick else min(repeat, 2),
        )
        run_case(case)

    # glob
    case = f"glob {glob}"
    name_glob = glob.rsplit("/", 1)[-1]
    expect = rg_files_count(root, name_glob)
    measure(case, "rg", lambda: rg_files_count(root, name_glob), expect)
    if fd:
        measure(case, "fd", lambda: fd_count(root, name_glob), expect)
    else:
        bar.step("fd missing")
        rows.append(Row(case, "fd", None, note="fd not installed (apt-get install fd-find)"))
    measure(case, "ripsight", lambda: ws.glob(glob, limit=200).total, expect)
    for name, mod in libs.items():
        hid = lib_hidden[name]
        measure(
            case,
            name.replace("_", "-"),
            functools.partial(rg_lib_files, mod, root, name_glob, hid),
            rg_files_count(root, name_glob, hidden=hid),
        )
    measure(
        case,
        "python (os.walk+fnmatch)",
        lambda: py_glob(root, glob),
        rg_files_count(root, name_glob),
        reps=1 if not quick else min(repeat, 2),
    )
    run_case(case)

    # per-call latency on the small repository
    reps_small = max(repeat * 4, 10)
    case = "per-call grep (small repo)"
    expect = rg_count(small, COMMON_REGEX)
    measure(case, "rg", lambda: rg_search(small, COMMON_REGEX), expect, reps_small)
    measure(
        case, "ripsight", lambda: wss.grep(COMMON_REGEX, limit=50).total_matches, expect, reps_small
    )
    run_case(case)
    case = "per-call glob (small repo)"
    expect = rg_files_count(small, "*.py")
    measure(case, "rg", lambda: rg_files_count(small, "*.py"), expect, reps_small)
    measure(case, "ripsight", lambda: wss.glob("**/*.py", limit=200).total, expect, reps_small)
    run_case(case)

    # two threads vs one on small-repo grep
    bar.step("threads: 1 vs 2")
    calls = 40 if quick else 200
    call = lambda: wss.grep(COMMON_REGEX, limit=50)
    _threads_throughput(call, 1, 4)
    one = statistics.median(_threads_throughput(call, 1, calls) for _ in range(3))
    two = statistics.median(_threads_throughput(call, 2, calls) for _ in range(3))
    threads = {"one_thread_calls_per_s": one, "two_threads_calls_per_s": two, "speedup": two / one}

    # deep read
    log = log_file(log_mb)
    size = os.path.getsize(log)
    offset = 5_000_000 if log_mb >= 500 else max(1, (size // LOG_LINE_BYTES) // 2)
    case = f"read_file lines {offset:,}+400 ({log_mb} MB log)"
    measure(case, "tail | head", lambda: tail_head(log, offset, 400), 400)
    wsl = Workspace(os.path.dirname(log))
    rel = os.path.basename(log)

    def sg_read() -> int:
        r = wsl.read_file(rel, offset=offset, limit=400)
        first = r.lines[0].text
        if not first.startswith(f"{offset:09d} "):
            raise AssertionError(f"line {offset} reads {first[:20]!r}")
        return len(r.lines)

    measure(case, "ripsight", sg_read, 400)
    measure(case, "python (islice)", lambda: py_read(log, offset, 400), 400, reps=min(repeat, 3))
    run_case(case)
    bar.step("read peak memory")
    try:
        mem: dict[str, Any] = peak_rss_of_read(log, offset, 400)
    except RuntimeError as exc:
        mem = {
            "peak_mb": None,
            "baseline_mb": None,
            "delta_mb": None,
            "lines": 0,
            "error": str(exc),
        }
        problems.append(f"read_file peak memory: {exc}")

    _apply_goals(rows, threads, mem)
    return {
        "root": root,
        "small_root": small,
        "log": log,
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "machine": machine_info(),
        "repeat": repeat,
        "quick": quick,
        "patterns": {label: pat for label, pat, _ in patterns},
        "glob": glob,
        "missing_peers": {n.replace("_", "-"): "not importable" for n in missing},
        "peers_without_hidden_files": [n.replace("_", "-") for n, h in lib_hidden.items() if not h],
        "rows": [asdict(r) for r in rows],
        "threads": threads,
        "read_memory": mem,
        "problems": problems,
        # 1-minute load average before and after: above ~0.5 on 2 cores, other work shared the
        # CPUs with the run and the medians are noisy.
        "load_average": {"start": load_start, "end": os.getloadavg()[0]},
    }


def _apply_goals(rows: list[Row], threads: dict[str, Any], mem: dict[str, Any]) -> None:
    """Ratios to rg (or to the case's reference) and the goals of issue 4."""
    by_case: dict[str, dict[str, Row]] = {}
    for r in rows:
        by_case.setdefault(r.case, {})[r.tool] = r
    for case, tools in by_case.items():
        ref = tools.get("rg") or tools.get("tail | head")
        for r in tools.values():
            if ref and ref.median_ms and r.median_ms is not None:
                r.ratio_to_rg = r.median_ms / ref.median_ms
        sg = tools.get("ripsight")
        if sg is None or sg.median_ms is None:
            continue
        goals: list[tuple[str, float | None]] = []
        if case.startswith("grep "):
            goals.append(("<=1.0x rg", _ratio(sg, tools.get("rg"), 1.0)))
            goals.append(("<=0.6x rg --sort", _ratio(sg, tools.get("rg --sort path"), 0.6)))
        elif case.startswith("glob "):
            goals.append(("<=0.9x fd", _ratio(sg, tools.get("fd"), 0.9)))
        elif case.startswith("per-call"):
            goals.append(("<=0.2x rg", _ratio(sg, tools.get("rg"), 0.2)))
        elif case.startswith("read_file"):
            goals.append(("<=1.0x tail|head", _ratio(sg, tools.get("tail | head"), 1.0)))
            if mem.get("peak_mb") is not None:
                goals.append(("peak<64MB", 1.0 if mem["peak_mb"] < 64 else 0.0))
        peers_ok = all(
            p.median_ms is None or sg.median_ms < p.median_ms
            for name, p in tools.items()
            if name in ("python-ripgrep", "ripgrep-rs")
        )
        if any(n in tools for n in ("python-ripgrep", "ripgrep-rs")):
            goals.append(("< py-rg libs", 1.0 if peers_ok else 0.0))
        sg.goal = ", ".join(g for g, _ in goals)
        verdicts = [v for _, v in goals if v is not None]
        sg.met = all(v >= 1.0 for v in verdicts) if verdicts else None
        sg.note = "; ".join(
            f"{g}: {'met' if v >= 1.0 else 'MISSED'}" for g, v in goals if v is not None
        )
    threads["goal"] = ">=1.7x"
    threads["met"] = threads["speedup"] >= 1.7


def _ratio(sg: Row, ref: Row | None, limit: float) -> float | None:
    if ref is None or not ref.median_ms or sg.median_ms is None:
        return None
    return 1.0 if sg.median_ms / ref.median_ms <= limit else 0.0


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
    }
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    for key, cmd in (
        ("rustc", ["rustc", "--version"]),
        ("rg", [rg_binary() or "rg", "--version"]),
        ("fd", [fd_binary() or "fd", "--version"]),
    ):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=10)
            info[key] = out.stdout.splitlines()[0] if out.stdout else None
        except (OSError, subprocess.TimeoutExpired):
            info[key] = None
    try:
        import ripsight

        info["ripsight"] = getattr(ripsight, "__version__", None)
    except ImportError:
        pass
    return info


def format_table(fig: dict[str, Any]) -> str:
    """The figures as a Markdown table: median, ratio to rg (or tail|head), goal, met/missed."""
    out = io.StringIO()
    out.write("| case | tool | median ms | ratio to rg | cpu ms | goal | met |\n")
    out.write("|---|---|---:|---:|---:|---|---|\n")
    for r in fig["rows"]:
        med = "—" if r["median_ms"] is None else f"{r['median_ms']:.2f}"
        ratio = "" if r["ratio_to_rg"] is None else f"{r['ratio_to_rg']:.2f}x"
        met = "" if r["met"] is None else ("met" if r["met"] else "MISSED")
        goal = r["note"] if r["tool"] == "ripsight" else (r["note"] or "")
        cpu = "" if r.get("cpu_ms") is None else f"{r['cpu_ms']:.1f}"
        cells = [r["case"], r["tool"], med, ratio, cpu, goal, met]
        out.write("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |\n")
    t = fig["threads"]
    out.write(
        f"| 2 threads vs 1 (small-repo grep) | ripsight | {t['one_thread_calls_per_s']:.0f}"
        f" -> {t['two_threads_calls_per_s']:.0f} calls/s | {t['speedup']:.2f}x | "
        "| 2 threads >=1.7x one "
        f"| {'met' if t['met'] else 'MISSED'} |\n"
    )
    m = fig["read_memory"]
    if m.get("peak_mb") is not None:
        out.write(
            f"| read_file peak memory | ripsight | {m['peak_mb']:.1f} MB peak RSS "
            f"(+{m['delta_mb']:.1f} MB for the read) | | | <64 MB | "
            f"{'met' if m['peak_mb'] < 64 else 'MISSED'} |\n"
        )
    for name, why in fig.get("missing_peers", {}).items():
        out.write(f"\n{name}: {why}")
    for p in fig.get("problems", []):
        out.write(f"\nPROBLEM: {p}")
    return out.getvalue()


def plot(fig: dict[str, Any], path: str) -> None:
    """Horizontal bars of each case's ratios to rg (log scale). Needs matplotlib."""
    import matplotlib  # type: ignore[import-not-found]

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # type: ignore[import-not-found]

    rows = [r for r in fig["rows"] if r["ratio_to_rg"] is not None]
    labels = [f"{r['case']} — {r['tool']}" for r in rows]
    values = [r["ratio_to_rg"] for r in rows]
    colors = ["tab:blue" if r["tool"] == "ripsight" else "tab:gray" for r in rows]
    f, ax = plt.subplots(figsize=(10, 0.28 * len(rows) + 1.5))
    ax.barh(range(len(rows)), values, color=colors)
    ax.set_yticks(range(len(rows)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.axvline(1.0, color="k", lw=0.8)
    ax.set_xlabel("median time / rg's median time (lower is faster; log scale)")
    ax.set_title(f"ripsight bench on {os.path.basename(fig['root'])}")
    f.tight_layout()
    f.savefig(path, dpi=120)
    plt.close(f)


def main(argv: list[str] | None = None) -> int:
    """``ripsight bench [ROOT] [--quick] [--repeat N] [--json FILE] [--plot FILE.png]``."""
    from .options import build_parser

    return run(build_parser().parse_args(argv))


def run(args: argparse.Namespace) -> int:
    """Runs ``ripsight bench`` from parsed arguments (see `add_arguments`); returns the exit code:
    0, 1 when a tool found a different answer or ripsight failed, 2 for unusable arguments."""
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print(
                "--plot needs matplotlib, which is not installed: "
                "pip install 'ripsight[bench]' (or pip install matplotlib), or drop --plot.",
                file=sys.stderr,
            )
            return 2
    if rg_binary() is None:
        print(
            "rg (ripgrep) is the reference and was not found: pip install 'ripgrep<15'.",
            file=sys.stderr,
        )
        return 2
    if args.root and not os.path.isdir(args.root):
        print(f"{args.root} is not a directory: pass the repository to measure.", file=sys.stderr)
        return 2
    if args.repeat is not None and args.repeat < 1:
        print("--repeat must be at least 1.", file=sys.stderr)
        return 2
    if args.log_mb is not None and args.log_mb < 1:
        print("--log-mb must be at least 1 (megabytes of generated log).", file=sys.stderr)
        return 2
    repeat = args.repeat or (3 if args.quick else 5)
    root = args.root or (small_repo(300) if args.quick else monorepo(5_000))
    fig = run_suite(
        root,
        repeat=repeat,
        quick=args.quick,
        log_mb=args.log_mb,
        rare=args.rare,
        common=args.common,
        none=args.none,
        glob=args.glob,
        progress=not args.no_progress,
    )
    pats = ", ".join(f"{k}: {v!r}" for k, v in fig["patterns"].items())
    print(
        f"ripsight bench: {fig['root']} ({fig['machine'].get('cpu', '?')}, "
        f"{fig['machine']['cpus']} cpus, Python {fig['machine']['python']}), "
        f"median of {repeat} warm runs, load average {fig['load_average']['start']:.2f} -> "
        f"{fig['load_average']['end']:.2f}"
    )
    print(f"patterns: {pats}; glob: {fig['glob']!r}")
    print(format_table(fig))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(fig, fh, indent=2)
    if args.plot:
        plot(fig, args.plot)
    return 1 if fig["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
