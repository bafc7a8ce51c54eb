"""Which definition a reference is bound to, against tools no one here wrote: jedi's `goto`
(`Script.goto(follow_imports=True)`) on a part of Python's standard library, and the
definitions of TypeScript's language service (`getDefinitionAtPosition`,
tests/data/ts_definitions.js) on Debian's node packages (express and the packages it requires,
and a few larger ones, laid out as node's global folder).

The sample: every few names defined in the tree as functions or classes, and of each the first
references ripsight lists by name; of those, the ones the oracle resolves to a function or class
of the tree spelled the same (Python: at module level). For each, ripsight's answer is read
through the public API: `find_references(name, definition="PATH:LINE")` for every file that
defines the name, whose rows say whether the reference was bound to that definition
("resolved") or found by name. A reference agrees when ripsight binds it to the oracle's
definition's file and to no other file; it disagrees when ripsight binds it elsewhere (or to
both), or leaves it by name. Each test prints its figures and every disagreement
(pytest -s shows them); docs/navigation.md quotes them. A tool or tree that is not on the
machine skips its test, and fails it under CI (.ci/run installs them; tests/_oracles.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sysconfig
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from _oracles import missing
from ripsight import Workspace

pytestmark = pytest.mark.slow

#: Modules and packages of Python's standard library: a tree that imports across itself.
STDLIB = (  # noqa: SIM905 (one word a line would be a page)
    "abc argparse ast base64 bisect calendar codecs collections concurrent configparser "
    "contextlib copy csv dataclasses datetime decimal difflib email enum fnmatch "
    "fractions functools genericpath getopt gettext glob gzip heapq http importlib "
    "inspect io json keyword linecache locale logging numbers operator optparse os "
    "platform posixpath pprint queue random re reprlib selectors shlex shutil signal "
    "socket stat statistics string struct subprocess sysconfig tarfile tempfile textwrap "
    "threading token tokenize traceback types unittest urllib warnings weakref xml "
    "zipfile"
).split()

#: Debian's node packages: express and what it requires (packages requiring each other by
#: bare name), and larger packages with many files requiring each other by relative path.
NODE_PACKAGES = (  # noqa: SIM905 (one word a line would be a page)
    "express accepts array-flatten body-parser content-disposition content-type cookie "
    "cookie-signature debug depd encodeurl escape-html etag finalhandler fresh "
    "http-errors merge-descriptors methods on-finished parseurl path-to-regexp proxy-addr "
    "qs range-parser safe-buffer send serve-static setprototypeof statuses type-is "
    "utils-merge vary mime mime-types negotiator ms ee-first destroy inherits "
    "toidentifier forwarded ipaddr.js raw-body iconv-lite bytes unpipe media-typer "
    "side-channel commander semver js-yaml ws bluebird"
).split()

#: TypeScript's language service over those files.
TS_DEFINITIONS = Path(__file__).with_name("data") / "ts_definitions.js"


@dataclass(frozen=True)
class Sampled:
    """A reference ripsight lists by name, and the definition the oracle resolves it to."""

    name: str
    path: str
    line: int
    column: int


def wait_symbols(ws: Workspace, timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while (status := ws.index_status()).get("symbols") not in ("ready", "failed"):
        assert time.monotonic() < deadline, f"no symbol index in {timeout} s"
        time.sleep(0.1)
    assert status["symbols"] == "ready", status


def aged(root: Path) -> Path:
    """`root`, just copied, once its files are older than the index's trust margin (a file
    changed within it is not vouched for and stays in the overlay, parsed at each call): what
    is measured is what the symbol file stores."""
    time.sleep(1.5)
    return root


def sample(ws: Workspace, root: Path, suffix: str, every: int, per_name: int) -> list[Sampled]:
    """Every `every`-th name the tree's `suffix` files define as a function or class, and of
    each its first `per_name` references by name."""
    names: set[str] = set()
    for path in sorted(root.rglob(f"*{suffix}")):
        if path.is_file():
            relative = str(path.relative_to(root))
            for symbol in ws.outline(relative, limit=None).symbols:
                if symbol.kind in ("function", "class"):
                    names.add(symbol.name)
    chosen: list[Sampled] = []
    for name in sorted(names)[::every]:
        for r in ws.references(name, limit=None).references[:per_name]:
            chosen.append(Sampled(name, r.path, r.line, r.column))
    return chosen


def bound_files(ws: Workspace, name: str) -> dict[tuple[str, int, int], set[str]]:
    """For each reference to `name`, the files of its definitions ripsight binds it to (an
    empty set: found by name), read from `find_references(definition=...)` asked once per file
    defining the name."""
    files: dict[str, int] = {}
    for d in ws.definitions(name, limit=None).definitions:
        files.setdefault(d.path, d.line)
    bound: dict[tuple[str, int, int], set[str]] = defaultdict(set)
    for path, line in files.items():
        result = ws.references(name, definition=f"{path}:{line}", limit=None)
        for r in result.references:
            key = (r.path, r.line, r.column)
            if r.binding == "resolved":
                bound[key].add(path)
            else:
                bound.setdefault(key, set())
    return bound


def compare(
    ws: Workspace, root: Path, oracle: str, answers: dict[Sampled, tuple[str, int]]
) -> tuple[Counter[str], list[str]]:
    """Sorts each sampled reference by how ripsight's binding meets the oracle's definition
    (`answers`: its path and line); returns the counts and the disagreements, described."""
    kinds: Counter[str] = Counter()
    shown: list[str] = []
    by_name: dict[str, dict[tuple[str, int, int], set[str]]] = {}
    for ref, (path, line) in sorted(answers.items(), key=lambda a: (a[0].path, a[0].line)):
        if ref.name not in by_name:
            by_name[ref.name] = bound_files(ws, ref.name)
        # The oracle's definition must be one ripsight lists (its line inside it).
        listed = [
            d
            for d in ws.definitions(ref.name, path=path, limit=None).definitions
            if d.path == path and d.line <= line <= max(d.end_line, d.line)
        ]
        ours = by_name[ref.name].get((ref.path, ref.line, ref.column), set())
        where = f"{ref.path}:{ref.line}:{ref.column} {ref.name}"
        if not listed:
            kinds["not a definition ripsight lists"] += 1
            shown.append(f"{where}: {oracle} {path}:{line}, which ripsight does not list")
        elif ours == {path}:
            kinds["agree"] += 1
        elif not ours:
            kinds["by name"] += 1
            shown.append(f"{where}: {oracle} {path}:{line}, ripsight by name")
        elif path in ours:
            kinds["bound to it and elsewhere"] += 1
            shown.append(f"{where}: {oracle} {path}:{line}, ripsight {sorted(ours)}")
        else:
            kinds["bound elsewhere"] += 1
            shown.append(f"{where}: {oracle} {path}:{line}, ripsight {sorted(ours)}")
    return kinds, shown


def judge(
    ws: Workspace,
    root: Path,
    oracle: str,
    found: dict[Sampled, list[tuple[str, int]]],
    spread: int,
) -> None:
    """Compares ripsight with the oracle's answers `found` (each reference's definitions, of
    which those with exactly one are compared), prints the figures and the disagreements, and
    asserts the goal: at least 95% agree, of at least 300 references across at least `spread`
    top directories (packages), counted among the references whose oracle's answer is a
    definition ripsight lists (one it does not list, as jedi's answer on a re-exporting
    import, binds nothing here to compare)."""
    answers = {ref: kept[0] for ref, kept in found.items() if len(kept) == 1}
    kinds, shown = compare(ws, root, oracle, answers)
    total = sum(kinds.values()) - kinds["not a definition ripsight lists"]
    agreed = kinds["agree"] / max(total, 1)
    print(
        f"\n{oracle}: {kinds['agree']}/{total} references bound as it binds them "
        f"({agreed:.1%}); {dict(kinds)}"
    )
    print("\n".join(shown))
    tops = {ref.path.split("/")[0] for ref in answers}
    assert total >= 300 and len(tops) >= spread, (total, len(tops))
    assert agreed >= 0.95, kinds


def stdlib_part(root: Path) -> Path:
    """`STDLIB` copied under `root` from the running interpreter's standard library (without
    its tests), so the tree is one no one here wrote and no other file is in it."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for name in STDLIB:
        package = stdlib / name
        if package.is_dir():
            shutil.copytree(
                package,
                root / name,
                ignore=shutil.ignore_patterns("__pycache__", "test", "tests", "idle_test"),
            )
        else:
            root.mkdir(parents=True, exist_ok=True)
            shutil.copy(stdlib / f"{name}.py", root / f"{name}.py")
    return root


def test_python_bindings_match_jedi(tmp_path: Path) -> None:
    try:
        import jedi
    except ImportError:
        missing("jedi", "pip install -e '.[test]'")
    root = aged(stdlib_part(tmp_path / "stdlib"))
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    project = jedi.Project(root)

    def relative(module_path: Any) -> str | None:
        # jedi may follow an import into the interpreter's own copy of a module the tree
        # holds too (the same file): the tree's path.
        for base in (root, stdlib):
            try:
                found = str(Path(module_path).relative_to(base))
            except ValueError:
                continue
            return found if (root / found).is_file() else None
        return None

    with Workspace(root, index=True, index_dir=tmp_path / "store", time_budget=600) as ws:
        wait_symbols(ws)
        chosen = sample(ws, root, ".py", every=7, per_name=6)
        answers: dict[Sampled, list[tuple[str, int]]] = {}
        scripts: dict[str, Any] = {}
        for ref in chosen:
            script = scripts.setdefault(
                ref.path, jedi.Script(path=str(root / ref.path), project=project)
            )
            found = script.goto(ref.line, ref.column - 1, follow_imports=True)
            kept = [
                (path, name.line)
                for name in found
                if name.type in ("function", "class")
                and name.name == ref.name
                and name.module_path is not None
                and (parent := name.parent()) is not None
                and parent.type == "module"
                and (path := relative(name.module_path)) is not None
            ]
            answers[ref] = kept
        judge(ws, root, "jedi goto", answers, spread=30)


def test_javascript_bindings_match_typescript(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        missing("node", "apt-get install nodejs")
    if not Path("/usr/share/nodejs/typescript").is_dir():
        missing("TypeScript", "apt-get install node-typescript")
    base = Path("/usr/share/nodejs")
    if not all((base / name).is_dir() for name in NODE_PACKAGES):
        missing("Debian's node packages", "apt-get install node-express node-bluebird ...")
    root = tmp_path / "js"
    for name in NODE_PACKAGES:
        shutil.copytree(
            base / name,
            root / name,
            symlinks=False,
            ignore=shutil.ignore_patterns(
                "node_modules", "dist", "typings", "*.min.js", "*.mjs", "*.d.ts"
            ),
        )
    with Workspace(aged(root), index=True, index_dir=tmp_path / "store", time_budget=600) as ws:
        wait_symbols(ws)
        chosen = sample(ws, root, ".js", every=2, per_name=6)
        run = subprocess.run(
            [node, str(TS_DEFINITIONS), str(root)],
            input=json.dumps([(r.path, r.line, r.column) for r in chosen]),
            capture_output=True,
            text=True,
            timeout=600,
            check=True,
            env={**os.environ, "NODE_PATH": "/usr/share/nodejs"},
        )
        answers: dict[Sampled, list[tuple[str, int]]] = {}
        for ref, found in zip(chosen, json.loads(run.stdout)):
            kept = [
                (path, line)
                for path, line, _, kind, name in found
                if kind in ("function", "class", "local function", "local class")
                and name == ref.name
                and not path.startswith("..")
            ]
            answers[ref] = kept
        judge(ws, root, "TypeScript getDefinitionAtPosition", answers, spread=15)
