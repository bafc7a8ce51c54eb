"""Deterministic corpora for `ripsight bench` and benches/: a generated repository of any size
(cached under ``RIPSIGHT_BENCH_DIR`` or ``~/.cache/ripsight-bench``, keyed by `GENERATOR_VERSION`)
and a large log file."""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable, Sequence

from ..workspace import DEFAULT_DENY_GLOBS, DEFAULT_EXCLUDE_DIRS

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


def _small_name(files: int) -> str:
    return f"small-v{GENERATOR_VERSION}-{files}"


def _monorepo_name(files: int) -> str:
    return f"monorepo-v{GENERATOR_VERSION}-{files}"


def _log_name(megabytes: int) -> str:
    return f"logs-v{GENERATOR_VERSION}/{megabytes}mb.log"


#: Bytes a generated repository takes on disk per visible file, measured with ``du -sb``
#: (monorepo-v1-2000: 10,669,729 bytes; small-v1-300: 1,889,695): the size said before a run.
REPO_BYTES_PER_FILE = 6_300


def corpus_plan(
    repositories: Sequence[tuple[str, int]], log_megabytes: int
) -> list[tuple[str, str, int, bool]]:
    """What a run generates, before it does: for each repository (``("monorepo", files)`` or
    ``("small", files)``) and the log, (what, where, about how many bytes, already there)."""
    names = {"monorepo": _monorepo_name, "small": _small_name}
    wanted = [
        (f"a {files:,}-file repository", names[kind](files), files * REPO_BYTES_PER_FILE)
        for kind, files in dict.fromkeys(repositories)
    ]
    wanted.append(
        (f"a {log_megabytes:,} MB log", _log_name(log_megabytes), log_megabytes * 1_000_000)
    )
    places = [(what, os.path.join(cache_dir(), name), size) for what, name, size in wanted]
    return [(what, where, size, os.path.exists(where)) for what, where, size in places]


def small_repo(files: int = 300) -> str:
    """A generated repository with ``files`` visible files (default ~300), cached."""
    return _cached(_small_name(files), lambda d: _generate_repo(d, files, SEED + files))


def monorepo(files: int = 100_000) -> str:
    """A generated monorepo: ``files`` visible files plus ~25% more in node_modules/ and build/.

    At the default 100,000 it holds ~125,000 files, ~260 MB; generation takes about a minute once.
    """
    return _cached(_monorepo_name(files), lambda d: _generate_repo(d, files, SEED + 7 * files))


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
    return _cached(_log_name(megabytes), build)
