"""The warm workspace (SPEC §2.8) is never stale: after random mutations made right before the
query, with the watcher's queue overflowing or its watch limit hit (both forced through the test
limits ``RIPSIGHT_INDEX_MAX_EVENTS`` / ``RIPSIGHT_INDEX_MAX_WATCHES``), for two indexed
workspaces on one tree, after many changes, and for the changes no directory's watch reports
(writes through another hard link, an edited git exclude, symlinks, a repository made below the
root). Each answer must equal the cold engine's at the same moment.

The marks, trees, queries and the oracle are in tests/_index_helpers.py."""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from _index_helpers import (
    DIRS,
    INDEX_MARKS,
    MODE,
    PATTERNS,
    PORTABLE,
    WORDS,
    answer,
    build_tree,
    needs_inotify,
    random_text,
    same,
    settle,
)
from ripsight import Workspace

pytestmark = INDEX_MARKS


def mutate(root: Path, rng: random.Random, outside: Path) -> str:
    """One random change to the tree; returns what it did."""
    files = [p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts]
    dirs = [p for p in root.rglob("*") if p.is_dir() and ".git" not in p.parts]
    action = rng.choice(
        [
            "create",
            "create",
            "modify",
            "modify",
            "append",
            "delete",
            "rename",
            "move_out",
            "move_in",
            "mkdir_tree",
            "rmtree",
            "rename_dir",
            "gitignore",
            "ignore",
            "chmod",
            "binary",
            "same_size",
        ]
    )
    if (
        action
        in ("modify", "append", "delete", "rename", "move_out", "chmod", "binary", "same_size")
        and not files
    ):
        action = "create"
    if action in ("rmtree", "rename_dir") and not dirs:
        action = "mkdir_tree"
    if action == "create":
        path = root / rng.choice(DIRS) / f"n{rng.randint(0, 99)}{rng.choice(['.py', '.md', ''])}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(random_text(rng))
    elif action == "modify":
        rng.choice(files).write_bytes(random_text(rng))
    elif action == "append":
        with open(rng.choice(files), "ab") as f:
            f.write(f"{rng.choice(WORDS)} appended\n".encode())
    elif action == "same_size":
        path = rng.choice(files)
        data = path.read_bytes()
        if data:
            word = rng.choice([b"cassini", b"alpha", b"zzzzz"])
            i = rng.randrange(len(data))
            data = (data[:i] + word + data[i:])[: len(data)]
            path.write_bytes(data)
    elif action == "delete":
        rng.choice(files).unlink()
    elif action == "rename":
        src = rng.choice(files)
        src.rename(src.parent / f"r{rng.randint(0, 99)}{src.suffix}")
    elif action == "move_out":
        src = rng.choice(files)
        src.rename(outside / f"{rng.randint(0, 10**9)}")
    elif action == "move_in":
        src = outside / f"in{rng.randint(0, 10**9)}.py"
        src.write_bytes(random_text(rng))
        dst = root / rng.choice(DIRS) / src.name
        dst.parent.mkdir(parents=True, exist_ok=True)
        src.rename(dst)
    elif action == "mkdir_tree":
        base = root / rng.choice(DIRS) / f"t{rng.randint(0, 99)}"
        for i in range(rng.randint(1, 4)):
            path = base / rng.choice(["", "x", "x/y"]) / f"f{i}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(random_text(rng))
    elif action == "rmtree":
        shutil.rmtree(rng.choice(dirs))
    elif action == "rename_dir":
        src = rng.choice(dirs)
        dst = src.parent / f"{src.name}_{rng.randint(0, 99)}"
        if not dst.exists():
            src.rename(dst)
    elif action == "gitignore":
        where = rng.choice([root, root / "src"])
        where.mkdir(exist_ok=True)
        (where / ".gitignore").write_text(rng.choice(["*.py\n", "", "x/\n", "*.md\n!c.md\n"]))
    elif action == "ignore":
        where = rng.choice([root, root / "src", root / "docs"])
        where.mkdir(exist_ok=True)
        target = where / rng.choice([".ignore", ".ripsightignore"])
        if target.exists() and rng.random() < 0.5:
            target.unlink()
        else:
            target.write_text(rng.choice(["*.rs\n", "n*\n", "!build/\n", "deep/\n"]))
    elif action == "chmod":
        path = rng.choice(files)
        path.chmod(rng.choice([0o644, 0o600, 0o444]))
    elif action == "binary":
        with open(rng.choice(files), "ab") as f:
            f.write(b"alpha\x00")
    return action


def fresh_queries(rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    pattern = rng.choice(PATTERNS + ["appended", "zzzzz"])
    return [
        ("grep", {"pattern": pattern, "output_mode": "count", "limit": None}),
        ("grep", {"pattern": pattern, "case_insensitive": True, "context": 1}),
        ("glob", {"pattern": "**/*", "limit": None}),
    ]


def run_mutations(tmp_path: Path, seed: int, steps: int, workspaces: int = 1) -> list[Workspace]:
    rng = random.Random(seed)
    root = build_tree(tmp_path / "tree", seed)
    outside = tmp_path / "outside"
    outside.mkdir()
    indexed = [Workspace(root, index=True) for _ in range(workspaces)]
    for ws in indexed:
        assert ws.wait_index(30)
    try:
        for _ in range(steps):
            action = mutate(root, rng, outside)
            for call, kwargs in fresh_queries(rng):
                for ws in indexed:
                    warm = answer(ws, call, kwargs)
                    cold = answer(Workspace(root), call, kwargs)
                    assert warm == cold, (action, call, kwargs)
        for ws in indexed:
            assert ws.index_status()["warm_calls"] > steps
    finally:
        for ws in indexed:
            ws.close()
    return indexed


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_change_is_in_the_next_answer(tmp_path: Path, seed: int) -> None:
    run_mutations(tmp_path, seed, steps=120)


def test_two_indexed_workspaces_on_one_tree(tmp_path: Path) -> None:
    run_mutations(tmp_path, 7, steps=60, workspaces=2)


def test_revision_changes_with_the_tree(tmp_path: Path) -> None:
    root = build_tree(tmp_path / "tree", 5)
    with Workspace(root, index=True) as ws:
        assert ws.wait_index(30)
        first = ws.revision
        assert ws.revision == first  # nothing changed
        (root / "new.py").write_text("alpha\n")
        second = ws.revision
        assert second != first
        assert ws.revision == second
    cold = Workspace(root)
    assert cold.revision is None
    assert cold.index_status() == {"state": "off"}


@needs_inotify
def test_overflowing_queue_still_gives_exact_answers(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("RIPSIGHT_INDEX_MAX_EVENTS", "3")
    (ws,) = run_mutations(tmp_path, 11, steps=60)
    assert ws.index_status()["state"] == "closed"


@needs_inotify
def test_overflow_is_counted_as_a_rescan(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("RIPSIGHT_INDEX_MAX_EVENTS", "2")
    root = build_tree(tmp_path / "tree", 3)
    with Workspace(root, index=True) as ws:
        assert ws.wait_index(30)
        for i in range(10):
            (root / f"burst{i}.py").write_text("cassini\n")
        same(ws, root, "grep", {"pattern": "cassini", "output_mode": "files_with_matches"})
        status = ws.index_status()
        assert status["rescans"] >= 1 and status["state"] == "ready"


@needs_inotify
def test_watch_limit_turns_to_rechecking_with_exact_answers(tmp_path: Path, monkeypatch) -> None:
    # SPEC §2.8: where events can be lost (a watch limit), re-check, never answer stale.
    root = build_tree(tmp_path / "tree", 4)
    with Workspace(root, index=True) as probe:
        assert probe.wait_index(30)
        watched = probe.index_status()["watched_dirs"]
    monkeypatch.setenv("RIPSIGHT_INDEX_MAX_WATCHES", str(watched))
    with Workspace(root, index=True) as ws:
        assert ws.wait_index(30)
        assert ws.index_status()["mode"] == "watch"
        before = ws.index_status()["warm_calls"]
        # A new directory needs one watch more than the limit allows.
        (root / "newdir" / "sub").mkdir(parents=True)
        (root / "newdir" / "sub" / "x.py").write_text("cassini\n")
        same(ws, root, "grep", {"pattern": "cassini"})
        same(ws, root, "glob", {"pattern": "**/*.py"})
        status = ws.index_status()
        assert status["state"] == "ready" and status["mode"] == "recheck", status
        assert "watch" in status["recheck_reason"]
        # Later changes, seen by re-checking (no event reports them any more).
        (root / "newdir" / "y.py").write_text("cassini\n")
        same(ws, root, "grep", {"pattern": "cassini", "output_mode": "count"})
        with open(root / "newdir" / "sub" / "x.py", "a") as f:
            f.write("PM_RESUME\n")
        same(ws, root, "grep", {"pattern": "PM_RESUME", "output_mode": "count"})
        shutil.rmtree(root / "newdir" / "sub")
        same(ws, root, "glob", {"pattern": "**/*"})
        assert ws.index_status()["warm_calls"] == before + 5


@needs_inotify
def test_watch_limit_at_build_rechecks(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("RIPSIGHT_INDEX_MAX_WATCHES", "1")
    root = build_tree(tmp_path / "tree", 4)
    (root / "src" / "core").mkdir(parents=True, exist_ok=True)
    with Workspace(root, index=True) as ws:
        assert ws.wait_index(30)
        status = ws.index_status()
        assert status["state"] == "ready" and status["mode"] == "recheck"
        same(ws, root, "grep", {"pattern": "alpha"})
        (root / "src" / "core" / "z.c").write_text("alpha\n")
        same(ws, root, "grep", {"pattern": "alpha", "output_mode": "count"})
        assert ws.index_status()["warm_calls"] == 2


def test_the_mode_is_the_one_this_run_asked_for(tmp_path: Path) -> None:
    # CI runs this file twice: with inotify, and under RIPSIGHT_PORTABLE=1 with re-checking.
    root = build_tree(tmp_path / "tree", 6)
    with Workspace(root, index=True) as ws:
        assert ws.wait_index(30)
        status = ws.index_status()
        assert status["mode"] == MODE, status
        assert (status["recheck_reason"] is not None) is PORTABLE
        assert (status["watched_dirs"] > 0) is not PORTABLE


def test_a_child_under_the_portable_switch_rechecks(tmp_path: Path) -> None:
    # The switch is read once per process: a child shows the re-checking path whatever this
    # run is, with an edit made between two of its calls.
    import subprocess

    root = build_tree(tmp_path / "tree", 8)
    script = (
        "import sys, json\n"
        "from ripsight import Workspace\n"
        "ws = Workspace(sys.argv[1], index=True)\n"
        "assert ws.wait_index(60)\n"
        "before = ws.grep('zz_later', output_mode='count').total_matches\n"
        "open(sys.argv[1] + '/src/later.py', 'w').write('zz_later\\n')\n"
        "after = ws.grep('zz_later', output_mode='count').total_matches\n"
        "print(json.dumps([ws.index_status()['mode'], before, after,\n"
        "                  ws.index_status()['warm_calls']]))\n"
    )
    (root / "src").mkdir(exist_ok=True)
    env = dict(os.environ, RIPSIGHT_PORTABLE="1")
    out = subprocess.run(
        [sys.executable, "-c", script, str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=True,
    )
    assert json.loads(out.stdout) == ["recheck", 0, 1, 2]


def test_many_changes_are_reindexed_in_the_background(tmp_path: Path) -> None:
    # After 512 changed files a call starts a background re-index; once it is done the changed
    # files are indexed again (not searched on every call) and answers stay the cold engine's,
    # also for edits made after it.
    root = tmp_path / "tree"
    for i in range(700):
        d = root / f"d{i % 7}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"f{i}.txt").write_text(f"old {i}\n")
    settle()
    with Workspace(root, index=True) as ws:
        assert ws.wait_index(60)
        for i in range(600):
            (root / f"d{i % 7}" / f"f{i}.txt").write_text(f"new {i} cassini\n")
        assert ws.revision is not None  # applies the queued changes without a search
        assert ws.index_status()["unindexed_files"] == 600
        # This call starts the re-index and is answered without waiting for it.
        same(ws, root, "grep", {"pattern": "cassini", "output_mode": "count"})
        deadline = time.monotonic() + 60
        while ws.index_status()["unindexed_files"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ws.index_status()["unindexed_files"] == 0
        (root / "d1" / "f1.txt").write_text("edited after the re-index\n")
        (root / "d2" / "late.txt").write_text("cassini, added late\n")
        for kwargs in (
            {"pattern": "cassini", "output_mode": "count"},
            {"pattern": "new 59\\d", "output_mode": "files_with_matches"},
            {"pattern": "edited|late"},
        ):
            same(ws, root, "grep", kwargs)


# ==== Changes no directory's watch reports ====


@pytest.mark.parametrize("file_watches", [None, "0"])
def test_writes_through_another_hard_link_are_seen(
    tmp_path: Path, monkeypatch, file_watches: str | None
) -> None:
    # A file with several links is indexed when guarded: its inode watched (a write through
    # any name, in the tree or outside it, is reported), or past the budget of file watches
    # ("0" here), its identity re-checked at every call.
    if file_watches is not None:
        monkeypatch.setenv("RIPSIGHT_INDEX_MAX_FILE_WATCHES", file_watches)
    root = tmp_path / "tree"
    (root / "src").mkdir(parents=True)
    for i in range(6):
        (root / "src" / f"linked{i}.py").write_text(f"alpha {i}\n")
        os.link(root / "src" / f"linked{i}.py", tmp_path / f"outside{i}.py")
    os.link(root / "src" / "linked0.py", root / "other_name.py")
    if file_watches == "0":
        # Only re-checking sees a write through another name: a document needs an identity
        # over a second old (see settle()).
        time.sleep(1.1)
    with Workspace(root, index=True) as ws:
        assert ws.wait_index(30)
        status = ws.index_status()
        if not PORTABLE:
            assert status["unindexed_files"] == 0, status
            guarded = "rechecked_files" if file_watches == "0" else "watched_files"
            assert status[guarded] == 7, status
        # The directory's watch hears nothing of a write through a name outside the tree.
        for i in range(6):
            with open(tmp_path / f"outside{i}.py", "a") as f:
                f.write("cassini\n")
            same(ws, root, "grep", {"pattern": "cassini", "output_mode": "count"})
        with open(root / "other_name.py", "a") as f:
            f.write("PM_RESUME\n")
        same(ws, root, "grep", {"pattern": "PM_RESUME", "output_mode": "count"})
        # Same size, same second: only the change time (and the inode's watch) tells.
        data = (tmp_path / "outside3.py").read_bytes()
        (tmp_path / "outside3.py").write_bytes(data.replace(b"alpha", b"omega"))
        same(ws, root, "grep", {"pattern": "omega|alpha", "output_mode": "count"})
        os.unlink(tmp_path / "outside2.py")  # a link less: the file's identity changes
        same(ws, root, "grep", {"pattern": "alpha", "output_mode": "files_with_matches"})
        assert ws.index_status()["warm_calls"] == 9


@needs_inotify
@pytest.mark.parametrize("age", [0.9, 0.95, 0.99])
def test_linked_files_that_age_while_the_index_is_built_are_answered_as_cold(
    tmp_path: Path, monkeypatch, age: float
) -> None:
    # Files with several links past the watch budget are re-checked; one whose change time
    # crosses the one-second trust margin between the walk and the writing of the index file is
    # vouched for then. It must come out searched (no document) or described by the file
    # written, never with a document the file does not name (which no query would search: on
    # the kernel tree made of `cp -al` links, 38% of the matches went missing that way).
    monkeypatch.setenv("RIPSIGHT_INDEX_MAX_FILE_WATCHES", "0")
    root = tmp_path / "tree"
    (root / "src").mkdir(parents=True)
    for i in range(400):
        (root / "src" / f"f{i}.c").write_text(f"int x{i};\n" + ("cassini\n" if i % 3 else ""))
        os.link(root / "src" / f"f{i}.c", tmp_path / f"other{i}.c")
    time.sleep(age)
    with Workspace(root, index=True) as ws:
        assert ws.wait_index(30)
        for pattern in ("cassini", "x1", "int"):
            same(ws, root, "grep", {"pattern": pattern, "output_mode": "count"})
        time.sleep(1.1 - age)
        for pattern in ("cassini", "x1", "int"):
            same(ws, root, "grep", {"pattern": pattern, "output_mode": "count"})
        assert ws.index_status()["rechecked_files"] == 400


def test_an_edited_git_exclude_is_seen_in_both_modes(tmp_path: Path) -> None:
    # `.git/info/exclude` lies in a directory the walk skips: watched where there is a watcher,
    # re-checked by identity where there is none (CI runs this file under both).
    root = tmp_path / "tree"
    (root / ".git" / "info").mkdir(parents=True)
    for name in ("a.py", "b.md", "sub/c.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("alpha\n")
    with Workspace(root, index=True) as ws:
        assert ws.wait_index(30)
        exclude = root / ".git" / "info" / "exclude"
        for rules in ("*.md\n", "*.py\n", "sub/\n", None):
            if rules is None:
                exclude.unlink()
            else:
                exclude.write_text(rules)  # two of them the same size, in the same second
            same(ws, root, "glob", {"pattern": "**/*"})
            same(ws, root, "grep", {"pattern": "alpha", "output_mode": "files_with_matches"})
        assert ws.index_status()["warm_calls"] == 8


def test_symlinks_are_answered_exactly(tmp_path: Path) -> None:
    root = build_tree(tmp_path / "tree", 13)
    (root / "src").mkdir(exist_ok=True)
    os.symlink(root / "src", root / "src_link")
    os.symlink(root / "src" / "missing", root / "broken.py")
    with Workspace(root, index=True) as ws:
        assert ws.wait_index(30)
        same(ws, root, "grep", {"pattern": "alpha", "output_mode": "files_with_matches"})
        same(ws, root, "glob", {"pattern": "**/*"})
        same(ws, root, "grep", {"pattern": "alpha", "path": "src_link"})
        (root / "src" / "new.py").write_text("alpha\n")
        os.symlink(root / "src" / "new.py", root / "new_link.py")
        same(ws, root, "grep", {"pattern": "alpha", "output_mode": "count"})
        assert ws.index_status()["warm_calls"] >= 3  # links are counted, not followed


@pytest.mark.parametrize("marker", [".git", ".jj"])
def test_a_repository_made_or_removed_below_the_root_is_seen(tmp_path: Path, marker: str) -> None:
    # `.gitignore` counts only inside a repository: making one (a `.git` or a `.jj`) in a
    # directory of the table changes what its subtree lists.
    root = tmp_path / "tree"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / ".gitignore").write_text("*.md\n")
    (root / "sub" / "deep").mkdir()
    for name in ["a.md", "b.py", "deep/c.md", "deep/d.py"]:
        (root / "sub" / name).write_text("alpha\n")
    with Workspace(root, index=True) as ws:
        assert ws.wait_index(30)
        same(ws, root, "glob", {"pattern": "**/*"})
        (root / "sub" / marker).mkdir()
        same(ws, root, "glob", {"pattern": "**/*"})
        same(ws, root, "grep", {"pattern": "alpha", "output_mode": "files_with_matches"})
        (root / "sub" / marker).rmdir()
        same(ws, root, "glob", {"pattern": "**/*"})
        assert ws.index_status()["warm_calls"] >= 4
