"""Races against the capability boundary (SPEC §2.1): a thread swaps files and directories for
symlinks and FIFOs while the main thread calls grep, glob and read_file, through `Workspace` and
through `Registry.execute`, for a few seconds per race.

Asserted for every answer: no byte of outside or secret content, no outside name, and an answer
within the time budget (a watchdog thread fails the test instead of hanging on a FIFO).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from ripsight import Workspace
from ripsight.errors import RipsightError
from ripsight.registry import default_registry
from ripsight.types import ToolCall

pytestmark = pytest.mark.slow  # seconds of swapping files under each call

RACE_SECONDS = float(os.environ.get("RIPSIGHT_RACE_SECONDS", "3"))
BUDGET = 2.0
#: A call must answer within the time budget plus this (SPEC: budget + 0.5 s; slack for CI).
SLACK = 1.5

OUTSIDE = "OUTSIDE_MARKER_7f3a"
OUTSIDE_NAME = "outside_name_7f3a"
SECRET = "SECRET_MARKER_9c1d"


def _text(value: Any) -> str:
    """Everything an answer could carry, as text (paths, lines, repr)."""
    parts = [repr(value)]
    for attr in ("paths", "lines", "files"):
        for item in getattr(value, attr, None) or ():
            parts.append(repr(item))
            parts.append(str(getattr(item, "text", "")))
            parts.append(str(getattr(item, "path", item)))
    content = getattr(value, "content", None)
    if content is not None:
        parts.append(str(content))
    return "\n".join(parts)


def _within_budget(call: Callable[[], Any]) -> tuple[Any, float]:
    """Runs `call` on a daemon thread; fails the test when it does not answer in time."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except RipsightError as error:  # a refusal is an answer
            box["value"] = error
        except BaseException as error:  # noqa: BLE001 - reported below
            box["error"] = error

    started = time.monotonic()
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(BUDGET + SLACK)
    elapsed = time.monotonic() - started
    assert not worker.is_alive(), f"a call hung for more than {BUDGET + SLACK} s"
    if "error" in box:
        raise box["error"]
    return box["value"], elapsed


@contextlib.contextmanager
def _swapper(step: Callable[[], None]) -> Iterator[None]:
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            try:
                step()
            except OSError:
                pass

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(5)


@pytest.fixture
def race_tree(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "repo"
    outside = tmp_path / "outside"
    (outside / OUTSIDE_NAME).mkdir(parents=True)
    (outside / OUTSIDE_NAME / "inner.txt").write_text(f"needle {OUTSIDE}\n")
    (outside / "secret.txt").write_text(f"needle {OUTSIDE}\n")
    (root / "dir").mkdir(parents=True)
    for i in range(20):
        (root / "dir" / f"f{i}.txt").write_text(f"needle inside {i}\n")
    (root / "file.txt").write_text("needle plain file\n")
    (root / "notes.txt").write_text("needle notes\n")
    (root / ".env").write_text(f"needle {SECRET}\n")
    (root / "listed.txt").write_text("needle listed\n")
    return root, outside


def _calls(root: Path, target: str) -> list[Callable[[], Any]]:
    ws = Workspace(root, time_budget=BUDGET)
    registry = default_registry(root, time_budget=BUDGET)

    def execute(name: str, arguments: str) -> Callable[[], Any]:
        return lambda: registry.execute(ToolCall("race", name, arguments))

    return [
        lambda: ws.grep("needle", limit=None),
        lambda: ws.grep("needle", path=target, limit=None),
        lambda: ws.glob("**/*", limit=None),
        lambda: ws.read_file(target if not target.endswith("dir") else "dir/f1.txt"),
        execute("grep", '{"pattern": "needle", "limit": 500}'),
        execute("glob", '{"pattern": "**/*"}'),
        execute("read_file", f'{{"path": "{target if target != "dir" else "dir/f1.txt"}"}}'),
    ]


def _race(root: Path, target: str, step: Callable[[], None]) -> int:
    calls = _calls(root, target)
    answered = 0
    deadline = time.monotonic() + RACE_SECONDS
    with _swapper(step):
        while time.monotonic() < deadline:
            for call in calls:
                value, elapsed = _within_budget(call)
                answered += 1
                text = _text(value)
                assert OUTSIDE not in text, text
                assert OUTSIDE_NAME not in text, text
                assert SECRET not in text, text
                assert elapsed < BUDGET + SLACK
    # The engine's threads are not stuck after the race: a plain call still answers.
    value, _ = _within_budget(lambda: Workspace(root).grep("needle", limit=None))
    assert value.total_matches >= 1
    return answered


def _swap_dir(path: Path, make_replacement: Callable[[Path], None]) -> Callable[[], None]:
    """A step that moves the directory `path` aside, puts a replacement (a link) in its place,
    then restores it."""
    aside = path.with_name(path.name + ".aside")

    def step() -> None:
        os.rename(path, aside)
        try:
            make_replacement(path)
            time.sleep(0)
            path.unlink()
        finally:
            os.rename(aside, path)

    return step


def _swap_file(path: Path, make_replacement: Callable[[Path], None]) -> Callable[[], None]:
    """A step that atomically replaces the file `path` by a replacement (a link, a FIFO) and then
    by the file again: the name always exists, about half the time as the replacement."""
    aside = path.with_name(path.name + ".aside")
    fresh = path.with_name(path.name + ".new")

    def step() -> None:
        make_replacement(fresh)
        os.link(path, aside)
        os.rename(fresh, path)
        time.sleep(0.0005)
        os.rename(aside, path)
        time.sleep(0.0005)

    return step


def test_directory_swapped_for_a_link_to_outside(race_tree: tuple[Path, Path]) -> None:
    root, outside = race_tree
    step = _swap_dir(root / "dir", lambda p: p.symlink_to(outside))
    assert _race(root, "dir", step) > 20


def test_file_swapped_for_a_link_to_an_outside_file(race_tree: tuple[Path, Path]) -> None:
    root, outside = race_tree
    step = _swap_file(root / "file.txt", lambda p: p.symlink_to(outside / "secret.txt"))
    assert _race(root, "file.txt", step) > 20


def test_notes_swapped_for_a_link_to_the_secret_env(race_tree: tuple[Path, Path]) -> None:
    root, _ = race_tree
    step = _swap_file(root / "notes.txt", lambda p: p.symlink_to(".env"))
    assert _race(root, "notes.txt", step) > 20


def test_listed_file_swapped_for_a_fifo(race_tree: tuple[Path, Path]) -> None:
    root, _ = race_tree
    step = _swap_file(root / "listed.txt", lambda p: os.mkfifo(p))
    assert _race(root, "listed.txt", step) > 20


def test_parent_directory_swapped_above_the_last_component(race_tree: tuple[Path, Path]) -> None:
    # read_file of dir/f1.txt while `dir` flips to a link whose target holds f1.txt outside.
    root, outside = race_tree
    (outside / OUTSIDE_NAME / "f1.txt").write_text(f"needle {OUTSIDE}\n")
    step = _swap_dir(root / "dir", lambda p: p.symlink_to(outside / OUTSIDE_NAME))
    assert _race(root, "dir", step) > 20
