"""References bound through imports, end to end (the worker's import extraction, the symbol
file, the resolvers, the binding rule, `find_references(definition=...)`), on small trees in
Python, JavaScript, TypeScript, Java and Go: each defines one name twice, in two files, and
each use must be listed under the definition its file's imports reach, and left out (bound
elsewhere) under the other."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from ripsight import Workspace

#: Per language: the files, and for each use (path, line) the definition (path, line) it means.
TREES: dict[str, tuple[dict[str, str], dict[tuple[str, int], tuple[str, int]]]] = {
    "python": (
        {
            "codec/__init__.py": "from .text import loads\n",
            "codec/text.py": "def loads(s):\n    return s\n",
            "codec/binary.py": "def loads(b):\n    return b\n",
            "app/__init__.py": "",
            "app/a.py": "from codec import loads\n\nx = loads('1')\n",
            "app/b.py": "from codec import binary\n\ny = binary.loads(b'1')\n",
            "app/c.py": "import codec.binary as raw\n\nz = raw.loads(b'1')\n",
        },
        {
            ("app/a.py", 3): ("codec/text.py", 1),
            ("app/b.py", 3): ("codec/binary.py", 1),
            ("app/c.py", 3): ("codec/binary.py", 1),
        },
    ),
    "javascript": (
        {
            "parse/package.json": '{"main": "lib/index.js"}\n',
            "parse/lib/index.js": "exports.read = require('./read');\n",
            "parse/lib/read.js": "module.exports = function read(s) { return s; };\n"
            "function read(s) { return s; }\n",
            "other/read.js": "function read(b) { return b; }\nmodule.exports = read;\n",
            "app/main.js": "const parse = require('parse');\nparse.read('x');\n",
            "app/side.js": "const read = require('../other/read');\nread('y');\n",
        },
        {
            ("app/main.js", 2): ("parse/lib/read.js", 2),
            ("app/side.js", 2): ("other/read.js", 1),
        },
    ),
    "typescript": (
        {
            "src/util/index.ts": "export { format } from './format';\n",
            "src/util/format.ts": "export function format(s: string) { return s; }\n",
            "src/log/format.ts": "export function format(s: string) { return s; }\n",
            "src/main.ts": "import { format } from './util';\nformat('x');\n",
            "src/log/main.ts": "import * as f from './format.js';\nf.format('y');\n",
        },
        {
            ("src/main.ts", 2): ("src/util/format.ts", 1),
            ("src/log/main.ts", 2): ("src/log/format.ts", 1),
        },
    ),
    "java": (
        {
            "core/src/main/java/org/acme/Strings.java": "package org.acme;\n"
            "public class Strings {}\n",
            "web/src/main/java/org/web/Strings.java": "package org.web;\npublic class Strings {}\n",
            "web/src/main/java/org/web/App.java": "package org.web;\nimport org.acme.*;\n"
            "class App { Strings s; }\n",
            "core/src/main/java/org/acme/Use.java": "package org.acme;\nclass Use { Strings s; }\n",
        },
        {
            ("web/src/main/java/org/web/App.java", 3): (
                "web/src/main/java/org/web/Strings.java",
                2,
            ),
            ("core/src/main/java/org/acme/Use.java", 2): (
                "core/src/main/java/org/acme/Strings.java",
                2,
            ),
        },
    ),
    "go": (
        {
            "go.mod": "module example.com/shop\n",
            "cart/cart.go": "package cart\n\nfunc Total() int { return 1 }\n",
            "bill/bill.go": "package bill\n\nfunc Total() int { return 2 }\n",
            "bill/use.go": "package bill\n\nfunc Sum() int { return Total() }\n",
            "main.go": 'package main\n\nimport "example.com/shop/cart"\n\n'
            "func main() { cart.Total() }\n",
        },
        {
            ("bill/use.go", 3): ("bill/bill.go", 3),
            ("main.go", 5): ("cart/cart.go", 3),
        },
    ),
}


#: The name each tree defines twice.
NAMES = {
    "python": "loads",
    "javascript": "read",
    "typescript": "format",
    "java": "Strings",
    "go": "Total",
}


def wait_symbols(ws: Workspace) -> None:
    """Waits (120 s at most) for the symbol index to be written."""
    deadline = time.monotonic() + 120
    while ws.index_status().get("symbols") not in ("ready", "failed"):
        assert time.monotonic() < deadline, "no symbol index in 120 s"
        time.sleep(0.05)
    assert ws.index_status().get("symbols") == "ready"


@pytest.mark.parametrize("language", sorted(TREES))
def test_uses_bind_to_the_definition_their_imports_reach(tmp_path: Path, language: str) -> None:
    files, meant = TREES[language]
    root = tmp_path / "tree"
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    # Files older than the index's trust margin are held by the symbol file (not the overlay).
    time.sleep(1.5)
    with Workspace(root, index=True, index_dir=tmp_path / "store") as ws:
        wait_symbols(ws)
        definitions = {target for target in meant.values()}
        for (use_path, use_line), (path, line) in meant.items():
            name = NAMES[language]
            for other in definitions:
                if other[0] == path or name not in files[other[0]]:
                    continue
                result = ws.references(name, definition=f"{other[0]}:{other[1]}", limit=None)
                rows = {(r.path, r.line) for r in result.references}
                assert (use_path, use_line) not in rows, (language, use_path, other)
            result = ws.references(name, definition=f"{path}:{line}", limit=None)
            rows = {(r.path, r.line): r.binding for r in result.references}
            assert rows.get((use_path, use_line)) == "resolved", (language, use_path, rows)


#: Per language: the name, the files, the file using it and the line of the use, the file of the
#: definition its import reaches first and that of the one its changed text (last) imports.
CHANGED: dict[str, tuple[str, dict[str, str], str, int, str, str, str]] = {
    "python": (
        "loads",
        {
            "codec/__init__.py": "",
            "codec/text.py": "def loads(s):\n    return s\n",
            "codec/binary.py": "def loads(b):\n    return b\n",
            "app/__init__.py": "",
            "app/a.py": "from codec.text import loads\n\nx = loads('1')\n",
        },
        "app/a.py",
        3,
        "codec/text.py",
        "codec/binary.py",
        "from codec.binary import loads\n\nx = loads('1')\n",
    ),
    # From a relative import to a package's (its `package.json` read at query time).
    "javascript": (
        "read",
        {
            "lib/text.js": "export function read(s) { return s; }\n",
            "binpkg/package.json": '{"main": "lib/binary.js"}\n',
            "binpkg/lib/binary.js": "export function read(b) { return b; }\n",
            "app/main.js": "import { read } from '../lib/text.js';\nread('x');\n",
        },
        "app/main.js",
        2,
        "lib/text.js",
        "binpkg/lib/binary.js",
        "import { read } from 'binpkg';\nread('x');\n",
    ),
    # A Go module's package by its import path (`go.mod` read at query time).
    "go": (
        "Total",
        {
            "go.mod": "module example.com/shop\n",
            "cart/cart.go": "package cart\n\nfunc Total() int { return 1 }\n",
            "bill/bill.go": "package bill\n\nfunc Total() int { return 2 }\n",
            "main.go": 'package main\n\nimport "example.com/shop/cart"\n\nfunc main() { cart.Total() }\n',
        },
        "main.go",
        5,
        "cart/cart.go",
        "bill/bill.go",
        'package main\n\nimport "example.com/shop/bill"\n\nfunc main() { bill.Total() }\n',
    ),
}


def test_a_file_changed_since_the_symbol_file_binds_by_its_imports_now(tmp_path: Path) -> None:
    # A Python, a JavaScript and a Go file, changed after the symbol file is written (so they
    # are the overlay, parsed at query time), import the other of two same-named definitions:
    # the answer follows the change before any merge.
    root = tmp_path / "tree"
    for _, files, *_ in CHANGED.values():
        for path, text in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)
    # Padding, so that the cold engine (which searches every file) is told from the overlay.
    for i in range(6):
        (root / "pad" / f"p{i}.py").parent.mkdir(parents=True, exist_ok=True)
        (root / "pad" / f"p{i}.py").write_text(f"def pad_{i}():\n    return {i}\n")
    time.sleep(1.5)
    with Workspace(root, index=True, index_dir=tmp_path / "store") as ws:
        wait_symbols(ws)

        def uses_in_map(name: str, path: str) -> int:
            # The uses the map counts for the definition of `name` in `path` (by name, each
            # definition would count every use).
            found = ws.repo_map(max_chars=100_000)
            assert found.bound
            (file,) = [f for f in found.files if f.path == path]
            return sum(d.references for d in file.definitions if d.name == name)

        def bindings(name: str, path: str) -> tuple[dict[tuple[str, int], str], int]:
            # The references to the definition of `name` in `path` (on its first line naming it).
            files = next(files for _, files, *_ in CHANGED.values() if path in files)
            line = next(i for i, t in enumerate(files[path].splitlines(), 1) if name in t)
            result = ws.references(name, definition=f"{path}:{line}", limit=None)
            rows = {(r.path, r.line): r.binding for r in result.references}
            return rows, result.files_searched

        counted: dict[str, int] = {}
        for language, (name, _, user, line, old, new, _) in CHANGED.items():
            rows, searched = bindings(name, old)
            assert rows.get((user, line)) == "resolved", (language, rows)
            assert searched == 0, (language, "not answered by the symbol file alone")
            rows, _ = bindings(name, new)
            assert (user, line) not in rows, (language, rows)
            counted[language] = uses_in_map(name, old)
            assert counted[language] >= 1, language
            assert uses_in_map(name, new) == 0, language
        for _, _, user, *_, changed in CHANGED.values():
            (root / user).write_text(changed)
        for language, (name, _, user, line, old, new, _) in CHANGED.items():
            rows, searched = bindings(name, new)
            assert rows.get((user, line)) == "resolved", (language, rows)
            # Answered by the symbol file and the changed files (the overlay), not a merge (0)
            # nor the cold engine (every file).
            assert 1 <= searched <= len(CHANGED), (language, searched)
            rows, _ = bindings(name, old)
            assert (user, line) not in rows, (language, rows)
            # The same uses (the import and the call), counted for the other definition now.
            assert (uses_in_map(name, old), uses_in_map(name, new)) == (0, counted[language])
