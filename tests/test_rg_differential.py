"""Differential tests: real ripgrep is the oracle for what glob lists and what grep finds.

The tree is a generated git repository (a few hundred files in several languages, nested
`.gitignore` files with negations, an `.ignore`, a skip-set `node_modules`, secrets, a binary
file, a text file with a late NUL, UTF-16, invalid UTF-8 and CRLF files, symlinks to an in-root
directory, an in-root file, an outside directory, and a loop). ripgrep runs without `-L` (walks
follow no link) and with
`--no-config --no-ignore-global --hidden --crlf`, and ripsight's skip set and deny globs are
given to it as its own `-g '!…'` exclusions. ripsight's `.ripsightignore` is mirrored by an
`.rgignore` with the same content (both are the highest-precedence ignore file of their tool).

ripgrep lists the lines it matched before it met a NUL byte; ripsight skips such files entirely,
so files holding a NUL (outside a UTF-16 BOM file) are removed from ripgrep's answer.
"""

from __future__ import annotations

import random
import re
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from ripsight import Workspace
from ripsight.workspace import DEFAULT_DENY_GLOBS, DEFAULT_EXCLUDE_DIRS

SEP = "\x1f"

WORDS = ["alpha", "beta", "gamma", "delta", "needle", "haystack", "café", "naïve", "Error", "ERR"]


def _line(rng: random.Random) -> str:
    w = rng.choice(WORDS)
    n = rng.randrange(0, 5000)
    templates = [
        f"fn foo_{n}(x: u32) -> u32 {{",
        f"    // TODO: fix {w}",
        f"import {w}",
        f"def {w}_{n}():",
        f"class {w.capitalize()}{n}:",
        f"    return {n}",
        f"{w}: operation failed with error {n}",
        f"x = a.b({n})   ",
        "begin",
        "    end",
        "",
        f"// {w} {w}",
        f"#define FOO_{n} {n}",
        f'let {w} = "{n}";\t',
    ]
    return rng.choice(templates)


LANGS = ["py", "rs", "js", "ts", "go", "c", "h", "md", "txt"]
DIRS = [
    "",
    "src",
    "src/core",
    "src/core/deep",
    "lib",
    "pkg1",
    "pkg2/inner",
    "docs",
    "tests",
    ".config",
    "build",
    "vendor",
    "generated",
    "node_modules/dep",
]


def generate(root: Path, make_tree) -> Path:
    rng = random.Random(20261130)
    files: dict[str, str | bytes] = {}
    for i in range(320):
        directory = DIRS[i % len(DIRS)]
        ext = LANGS[rng.randrange(len(LANGS))]
        name = f"{rng.choice(['a', 'b', 'test_', 'mod', 'x'])}{i}.{ext}"
        if i % 23 == 0:
            name = f"{i}.gen.rs"
        body = "\n".join(_line(rng) for _ in range(rng.randrange(1, 40))) + "\n"
        files[f"{directory}/{name}" if directory else name] = body
    files.update(
        {
            ".gitignore": "build/\n*.log\n/generated/*\n!/generated/keep.py\n",
            "src/core/.gitignore": "*.gen.rs\n!0.gen.rs\ndeep/*.md\n",
            "pkg2/.gitignore": "inner/*.txt\n",
            ".ignore": "vendor/\n",
            ".ripsightignore": "!/generated/wanted.txt\n",
            ".rgignore": "!/generated/wanted.txt\n",
            "generated/keep.py": "# TODO kept by the .gitignore's negation\n",
            "generated/drop.py": "# TODO ignored\n",
            "src/core/0.gen.rs": "// TODO kept by the nested negation\n",
            "src/core/1.gen.rs": "// TODO ignored by the nested .gitignore\n",
            "app.log": "TODO in a log\n",
            "generated/wanted.txt": "TODO re-included by .ripsightignore\n",
            ".env": "TODO=secret\nAPI_KEY=alpha\n",
            "keys/server.pem": "needle TODO alpha\n",
            ".github/workflows/ci.yml": "name: ci # TODO alpha\n",
            "data/early.bin": b"\x00\x01TODO needle alpha\n",
            "data/late.txt": b"TODO needle alpha line\n" * 4000 + b"\x00\n",
            "text/utf16.txt": "\ufeffTODO utf16 needle\nalpha café\n".encode("utf-16-le"),
            "text/latin1.txt": b"caf\xe9 TODO needle \xff\xfe alpha 12345\n",
            "text/crlf.txt": b"TODO crlf\r\nneedle alpha;\r\n   \r\nbegin\r\n  end\r\n",
        }
    )
    repo = make_tree(files, root=root, git=True)
    # Links: walks follow none of them, as plain `rg` (no -L) does.
    outside = root.parent / f"{root.name}-outside"
    make_tree({"secret.txt": "TODO needle alpha outside\n"}, root=outside)
    (repo / "linked_src").symlink_to("src")
    (repo / "alias.py").symlink_to("generated/keep.py")
    (repo / "outside_dir").symlink_to(outside)
    (repo / "src" / "core" / "loop").symlink_to("..")
    return repo


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory, make_tree) -> Path:
    return generate(tmp_path_factory.mktemp("differential"), make_tree)


def rg_base(rg: str) -> list[str]:
    args = [rg, "--no-config", "--no-ignore-global", "--hidden", "--crlf", "--color", "never"]
    for name in DEFAULT_EXCLUDE_DIRS:
        args += ["-g", f"!{name}/"]
    for glob in DEFAULT_DENY_GLOBS:
        args += ["-g", f"!{glob}"]
    return args


def run_rg(rg: str, root: Path, args: list[str]) -> list[str]:
    proc = subprocess.run(
        rg_base(rg) + args + ["./"],
        cwd=root,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
        timeout=600,
    )
    assert proc.returncode in (0, 1), proc.stderr.decode(errors="replace")
    lines = proc.stdout.decode("utf-8", errors="replace").splitlines()
    # rg reports a binary file whose NUL it met after a match on stdout; such files are
    # removed from its answer below (see holds_nul).
    return [line for line in lines if line and "WARNING: stopped searching binary file" not in line]


def strip_dot(path: str) -> str:
    return path.removeprefix("./")


@cache
def holds_nul(path: Path) -> bool:
    data = path.read_bytes()
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    return b"\x00" in data


# ---- glob semantics in Python (the oracle's filter) ----


def glob_regex(pattern: str) -> str:
    """globset with literal_separator: `*`/`?` stay in one component, `**` spans components."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        at_component_start = i == 0 or pattern[i - 1] == "/"
        if pattern.startswith("**", i) and at_component_start:
            if pattern.startswith("**/", i):
                out.append("(?:[^/]*/)*")
                i += 3
                continue
            if i + 2 == n:
                out.append(".*")
                i += 2
                continue
        c = pattern[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.index("]", i + 2)
            body = pattern[i + 1 : j]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append(f"[{body}]")
            i = j + 1
            continue
        elif c == "{":
            j = pattern.index("}", i)
            alternatives = pattern[i + 1 : j].split(",")
            out.append("(?:" + "|".join(glob_regex(a) for a in alternatives) + ")")
            i = j + 1
            continue
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def glob_matches(pattern: str, path: str) -> bool:
    return re.fullmatch(glob_regex(pattern), path) is not None


def test_python_glob_oracle_sanity() -> None:
    assert glob_matches("*.py", "a.py") and not glob_matches("*.py", "src/a.py")
    assert glob_matches("**/*.py", "a.py") and glob_matches("**/*.py", "src/x/a.py")
    assert glob_matches("src/**/*.rs", "src/a.rs") and glob_matches("src/**/*.rs", "src/b/c/a.rs")
    assert glob_matches("*.{js,ts}", "x.ts") and not glob_matches("*.{js,ts}", "x.py")
    assert glob_matches("[ab]?.c", "a1.c") and not glob_matches("[ab]?.c", "c1.c")


GLOB_PATTERNS = [
    "**/*",
    "*",
    "**/*.py",
    "*.md",
    "src/**/*.rs",
    "src/*",
    "**/test_*",
    "**/*.{js,ts}",
    "pkg?/**",
    "**/[ab]*.go",
    "**/.*",
    "generated/*",
    "**/deep/*",
]


@pytest.mark.parametrize("pattern", GLOB_PATTERNS)
def test_glob_equals_rg_files(rg: str, tree: Path, pattern: str) -> None:
    listed = [strip_dot(p) for p in run_rg(rg, tree, ["--files"])]
    expected = sorted(p for p in listed if glob_matches(pattern, p))
    result = Workspace(tree).glob(pattern, limit=None)
    assert result.paths == expected
    assert result.total == len(expected)


def test_rg_oracle_sees_the_ignore_rules(rg: str, tree: Path) -> None:
    # Guards the oracle itself: if rg ignored nothing, the comparisons above would prove little.
    listed = {strip_dot(p) for p in run_rg(rg, tree, ["--files"])}
    assert "generated/keep.py" in listed and "generated/wanted.txt" in listed
    assert "generated/drop.py" not in listed
    assert not any(p.startswith(("build/", "vendor/", "node_modules/", ".git/")) for p in listed)
    assert not any(p.endswith(".log") for p in listed)
    assert ".env" not in listed and "keys/server.pem" not in listed
    assert "src/core/0.gen.rs" in listed and "src/core/1.gen.rs" not in listed
    assert ".github/workflows/ci.yml" in listed
    assert len(listed) > 150


def rg_matches(rg: str, root: Path, args: list[str]) -> set[str]:
    out = set()
    for line in run_rg(
        rg, root, ["-n", "--no-heading", "--with-filename", "--field-match-separator", SEP] + args
    ):
        path, number, _ = line.split(SEP, 2)
        path = strip_dot(path)
        if not holds_nul(root / path):
            out.add(f"{path}:{number}")
    return out


def ripsight_matches(root: Path, pattern: str, **kwargs) -> set[str]:
    result = Workspace(root).grep(pattern, limit=None, **kwargs)
    found = {f"{m.path}:{m.line}" for m in result.matches}
    assert len(found) == result.total_matches
    return found


GREP_CASES = [
    ("TODO", [], {}),
    (r"fn foo_\d+\(", [], {}),
    (r"^import ", [], {}),
    (r"\bfoo_\d{3}\b", [], {}),
    ("error", ["-i"], {"case_insensitive": True}),
    (r"[0-9]{4,}", [], {}),
    (r"\s+$", [], {}),
    ("def |class ", [], {}),
    ("café|naïve", [], {}),
    (r"^\s*//", [], {}),
    ("a.b(", ["-F"], {"literal": True}),
    ("needle", [], {}),
    (r"begin\r?\n\s*end", ["-U"], {"multiline": True}),
    (r"alpha;$", [], {}),
]


@pytest.mark.parametrize(("pattern", "rg_args", "kwargs"), GREP_CASES)
def test_grep_equals_rg(
    rg: str, tree: Path, pattern: str, rg_args: list[str], kwargs: dict
) -> None:
    expected = rg_matches(rg, tree, rg_args + ["-e", pattern])
    assert expected or pattern == "", "the oracle found nothing; the case proves little"
    assert ripsight_matches(tree, pattern, **kwargs) == expected


@pytest.mark.parametrize("glob", ["*.py", "src/**/*.rs", "*.{md,txt}", "pkg2/**"])
def test_grep_glob_filter_equals_rg_narrowed_in_python(rg: str, tree: Path, glob: str) -> None:
    everything = rg_matches(rg, tree, ["-e", "TODO"])

    def admitted(location: str) -> bool:
        path = location.rsplit(":", 1)[0]
        subject = path if "/" in glob else path.rsplit("/", 1)[-1]
        return glob_matches(glob, subject)

    expected = {loc for loc in everything if admitted(loc)}
    assert expected
    assert ripsight_matches(tree, "TODO", glob=glob) == expected


@pytest.mark.parametrize(
    "globs",
    [
        ["!*.md"],
        ["!src/"],
        ["!core/"],
        ["*.rs", "!src/core/**"],
        ["!src/core/**", "*.rs"],
        ["*.py", "!test_*"],
        ["!*.txt", "a*.txt"],
        ["/src/*.rs"],
        ["!/docs", "!*.h"],
        ["*.{c,h}", "!/lib/**"],
    ],
)
def test_grep_glob_lists_equal_rg(rg: str, tree: Path, globs: list[str]) -> None:
    # rg's -g can also re-include ignored files; ripsight's glob only narrows, so the oracle is
    # rg's answer within the files ripsight searches without a glob.
    args = [arg for glob in globs for arg in ("-g", glob)]
    searched = ripsight_matches(tree, "TODO")
    expected = rg_matches(rg, tree, [*args, "-e", "TODO"]) & searched
    assert ripsight_matches(tree, "TODO", glob=globs) == expected
    assert expected or globs == ["/src/*.rs"], "the oracle found nothing; the case proves little"


@pytest.mark.parametrize(
    ("flags", "kwargs"),
    [
        (["-C", "2"], {"context": 2}),
        (["-B", "3"], {"before_context": 3}),
        (["-A", "1"], {"after_context": 1}),
        (["-B", "1", "-A", "4"], {"before_context": 1, "after_context": 4}),
        (["-C", "2", "-A", "0"], {"context": 2, "after_context": 0}),
    ],
)
def test_grep_context_equals_rg(rg: str, tree: Path, flags: list[str], kwargs: dict) -> None:
    lines = run_rg(
        rg,
        tree,
        [
            "-n",
            "--no-heading",
            "--with-filename",
            *flags,
            "--field-match-separator",
            SEP,
            "--field-context-separator",
            SEP,
            "-e",
            "TODO",
        ],
    )
    expected = set()
    for line in lines:
        if line == "--":
            continue
        path, number, _ = line.split(SEP, 2)
        path = strip_dot(path)
        if not holds_nul(tree / path):
            expected.add(f"{path}:{number}")
    for offset, limit in ((0, None), (7, 5)):
        page = Workspace(tree).grep("TODO", limit=limit, offset=offset, **kwargs)
        whole = Workspace(tree).grep("TODO", limit=None, **kwargs)
        matches = [line for line in whole.lines if line.is_match][offset:][: limit or None]
        assert [line for line in page.lines if line.is_match] == matches
    result = Workspace(tree).grep("TODO", limit=None, **kwargs)
    shown = [f"{line.path}:{line.line}" for line in result.lines]
    assert len(shown) == len(set(shown)), "a line appears twice"
    assert set(shown) == expected


def test_grep_counts_equal_rg_count(rg: str, tree: Path) -> None:
    expected = {}
    for line in run_rg(
        rg, tree, ["--count", "--with-filename", "--field-match-separator", SEP, "-e", "alpha"]
    ):
        path, count = line.rsplit(":", 1) if SEP not in line else line.split(SEP, 1)
        path = strip_dot(path)
        if not holds_nul(tree / path):
            expected[path] = int(count)
    result = Workspace(tree).grep("alpha", output_mode="count", limit=None)
    assert {f.path: f.count for f in result.files} == expected
    assert result.total_matches == sum(expected.values())


# ---- the Linux tree (opt-in: RIPSIGHT_KERNEL_ROOT=DIR, prepared by benches/linux_source.py) ----

KERNEL_PATTERNS = [
    (r"spin_lock_irqsave\(&[a-z_]+->lock", []),
    (r'MODULE_AUTHOR\("Linus', []),
    ("static const struct file_operations", ["--fixed-strings"]),
    (r"todo\(", ["--ignore-case"]),
    (r"^#define\s+[A-Z_]+_MAGIC\s", []),
    (r"\bcopy_from_user\(", []),
    ("zyzzyva_not_present_anywhere_31", []),
    (r"Kconfig|Kbuild", []),
]


@pytest.fixture(scope="module")
def kernel() -> Path:
    import os

    root = os.environ.get("RIPSIGHT_KERNEL_ROOT")
    if not root:
        pytest.skip(
            "opt-in: RIPSIGHT_KERNEL_ROOT=~/.cache/ripsight-bench/linux-source-6.1 "
            "(prepare it with python benches/linux_source.py)"
        )
    return Path(root).expanduser()


@pytest.mark.parametrize(("pattern", "flags"), KERNEL_PATTERNS)
def test_kernel_grep_equals_rg(rg: str, kernel: Path, pattern: str, flags: list[str]) -> None:
    # Walks follow no symlink, as plain rg (no -L).
    lines = run_rg(
        rg, kernel, ["-n", "--no-heading", "--field-match-separator", SEP, *flags, "-e", pattern]
    )
    expected = set()
    for line in lines:
        path, number, _ = line.split(SEP, 2)
        if not holds_nul(kernel / path):
            expected.add((strip_dot(path), int(number)))
    result = Workspace(kernel).grep(
        pattern,
        literal="--fixed-strings" in flags,
        case_insensitive="--ignore-case" in flags,
        limit=None,
    )
    assert {(m.path, m.line) for m in result.matches} == expected
    assert result.total_matches == len(expected)


@pytest.mark.parametrize("pattern", ["**/*.c", "drivers/net/**/Kconfig", "*", "**/*.{S,lds}"])
def test_kernel_glob_equals_rg_files(rg: str, kernel: Path, pattern: str) -> None:
    listed = [strip_dot(p) for p in run_rg(rg, kernel, ["--files"])]
    expected = sorted(p for p in listed if glob_matches(pattern, p))
    assert Workspace(kernel).glob(pattern, limit=None).paths == expected


# The warm index on the Linux tree: broad and medium searches, whose candidates are read from
# the contents the index file holds (the small files) and from disk (the others).
WARM_KERNEL_PATTERNS = ["#include <linux/", "SPDX-License-Identifier", "module_platform_driver"]


@pytest.fixture(scope="module")
def warm_kernel(kernel: Path) -> Iterator[Workspace]:
    ws = Workspace(kernel, index=True)
    assert ws.wait_index(600)
    yield ws
    ws.close()


@pytest.mark.parametrize("pattern", WARM_KERNEL_PATTERNS)
def test_kernel_warm_grep_equals_rg(
    rg: str, kernel: Path, warm_kernel: Workspace, pattern: str
) -> None:
    expected: dict[str, int] = {}
    args = ["--count", "--with-filename", "--field-match-separator", SEP, "--fixed-strings"]
    for line in run_rg(rg, kernel, [*args, "-e", pattern]):
        path, count = line.rsplit(":", 1) if SEP not in line else line.split(SEP, 1)
        if not holds_nul(kernel / path):
            expected[strip_dot(path)] = int(count)
    assert warm_kernel.index_status()["content_files"] > 0
    counted = warm_kernel.grep(pattern, literal=True, output_mode="count", limit=None)
    assert {f.path: f.count for f in counted.files} == expected
    listed = warm_kernel.grep(pattern, literal=True, output_mode="files_with_matches", limit=None)
    assert [f.path for f in listed.files] == sorted(expected)
    for result in (counted, listed):
        assert result.total_matches == sum(expected.values())
        assert result.total_files == len(expected)
    if len(expected) < 10_000:
        # The content mode too, where the lines are few enough to compare.
        shown = run_rg(
            rg,
            kernel,
            [
                "-n",
                "--no-heading",
                "--field-match-separator",
                SEP,
                "--fixed-strings",
                "-e",
                pattern,
            ],
        )
        want = {(strip_dot(p), int(n)) for p, n, _ in (s.split(SEP, 2) for s in shown)}
        want = {(p, n) for p, n in want if p in expected}
        content = warm_kernel.grep(pattern, literal=True, limit=None)
        assert {(m.path, m.line) for m in content.matches} == want
    assert warm_kernel.index_status()["cold_calls"] == 0
