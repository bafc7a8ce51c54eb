"""Shared helpers of the warm workspace's tests (tests/test_index_*.py, SPEC §2.8): the marks
every such module carries, random trees and queries, and the oracle: every answer of
``Workspace(root, index=True)`` must equal that of ``Workspace(root)`` on the same tree at the
same moment.

Under ``RIPSIGHT_PORTABLE=1`` (as CI runs these files a second time) the index has no watcher
and re-checks the tree at every call: every test then runs on that path
(``test_the_mode_is_the_one_this_run_asked_for`` proves it); those about inotify itself
(overflow, watch limits, file watches) are skipped (``needs_inotify``).
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st
from ripsight import Workspace
from ripsight.workspace import to_dict

#: The marks of every module of the warm workspace's tests (each sets ``pytestmark`` to them).
INDEX_MARKS = [
    pytest.mark.skipif(
        not sys.platform.startswith("linux"), reason="the index watches with inotify (Linux)"
    ),
    pytest.mark.slow,  # builds indexes and waits for the watcher: about a minute
]


#: This run has no watcher (CI's second run of this file): the table is re-checked instead.
PORTABLE = os.environ.get("RIPSIGHT_PORTABLE") == "1"


MODE = "recheck" if PORTABLE else "watch"


needs_inotify = pytest.mark.skipif(
    PORTABLE, reason="about inotify, which RIPSIGHT_PORTABLE=1 turns off"
)


def settle() -> None:
    """Re-checking (no watcher) trusts a file's identity only once its change time is over a
    second old (a change in the same tick would show in nothing): a test that counts indexed
    files lets its fresh files age first. With a watcher, events vouch for them at once."""
    if PORTABLE:
        time.sleep(1.1)


WORDS = ["alpha", "Beta", "gamma", "PM_RESUME", "cassini", "Copyright", "fooBar", "x_y", "été"]


DIRS = ["", "src", "src/core", "src/core/deep", "docs", "build", "node_modules/pkg", "lib"]


NAMES = ["a.py", "b.rs", "c.md", "d.txt", "e.c", "notes", ".hidden.py", "f.h"]


def random_text(rng: random.Random) -> bytes:
    lines = []
    for _ in range(rng.randint(0, 12)):
        words = [rng.choice(WORDS) for _ in range(rng.randint(0, 5))]
        sep = rng.choice([" ", "  ", "(", "."])
        lines.append(sep.join(words))
    ending = rng.choice(["\n", "\r\n"])
    text = ending.join(lines) + (ending if lines and rng.random() < 0.8 else "")
    data = text.encode("utf-8")
    kind = rng.random()
    if kind < 0.05:
        data = data[: len(data) // 2] + b"\x00" + data[len(data) // 2 :]  # binary
    elif kind < 0.08:
        data = b"\xff\xfe" + text.encode("utf-16-le")  # UTF-16 with a BOM
    elif kind < 0.1:
        data = b"\xef\xbb\xbf" + data  # UTF-8 BOM
    elif kind < 0.12:
        data += b"\xff\xfe bad utf8 alpha\n"
    return data


def build_tree(root: Path, seed: int) -> Path:
    """A random tree with ignore files, the skip set, secrets, binary and UTF-16 files."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    if rng.random() < 0.7:
        (root / ".git").mkdir(exist_ok=True)
    for _ in range(rng.randint(3, 25)):
        d = rng.choice(DIRS)
        path = root / d / rng.choice(NAMES)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(random_text(rng))
    if rng.random() < 0.6:
        (root / ".gitignore").write_text(rng.choice(["build/\n", "*.md\n", "*.txt\n!d.txt\n", ""]))
    if rng.random() < 0.3:
        (root / "src").mkdir(exist_ok=True)
        (root / "src" / ".ignore").write_text(rng.choice(["deep/\n", "*.rs\n", "a.*\n"]))
    if rng.random() < 0.3:
        (root / ".ripsightignore").write_text(rng.choice(["!build/\n", "*.h\n", "!*.md\n"]))
    if rng.random() < 0.3:
        (root / ".env").write_text("SECRET=alpha\n")
    if rng.random() < 0.2:
        (root / "src").mkdir(exist_ok=True)
        (root / "src" / "key.pem").write_text("alpha\n")
    if rng.random() < 0.1:
        os.mkfifo(root / "pipe")
    return root


PATTERNS = [
    "alpha",
    "Beta",
    "PM_RESUME",
    "cassini",
    "Copyright|cassini",
    "foo[A-Z]ar",
    r"\bx_y\b",
    "alp.a",
    "gam+a",
    r"\w+",
    ".",
    "^alpha",
    "alpha$",
    "été",
    "ÉTÉ",
    "beta gamma",
    r"(?i)copyRIGHT",
    "a(lpha|bc)",
    r"Beta\s+alpha",
    "alpha.*Beta",
    "zzz_absent",
    "x_y|alpha",
    "[cC]opy",
    "bad utf8",
    "pm_resume",
    "PM_resume",
    "[Pp]M_RESUME",
    "(?i)pm_RESUME",
    "BETA",
    "FOOBAR",
    "[A-Z]_RESUME",
]


def query_strategy() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "pattern": st.sampled_from(PATTERNS),
            "literal": st.booleans(),
            "case_insensitive": st.booleans(),
            "context": st.sampled_from([0, 0, 1, 2]),
            "multiline": st.sampled_from([False, False, False, True]),
            "output_mode": st.sampled_from(["content", "files_with_matches", "count"]),
            "limit": st.sampled_from([None, 1, 3, 50]),
            "offset": st.sampled_from([0, 0, 1, 4]),
            "glob": st.sampled_from([None, None, "*.py", "!*.md", "src/**", "*.{rs,c}"]),
            "path": st.sampled_from([None, None, "src", "src/core", "build", "docs", "src/a.py"]),
        }
    )


def answer(ws: Workspace, call: str, kwargs: dict[str, Any]) -> Any:
    """What a call returns, without its timing; an error by class and message."""
    try:
        result = getattr(ws, call)(**kwargs)
    except Exception as error:  # noqa: BLE001 - the error is the answer
        return (type(error).__name__, str(error))
    out = to_dict(result)
    out.pop("elapsed_ms", None)
    return out


def same(indexed: Workspace, root: Path, call: str, kwargs: dict[str, Any]) -> None:
    warm = answer(indexed, call, kwargs)
    cold = answer(Workspace(root), call, kwargs)
    assert warm == cold, (call, kwargs)
