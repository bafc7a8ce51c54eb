"""The path boundary: nothing outside the workspace root is ever read, listed or searched.

Every case runs against read_file and against the `path` argument of glob and grep.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from _trees import make_tree
from ripsight import (
    InvalidArgumentError,
    OutsideRootError,
    PathNotFoundError,
    RipsightError,
    Workspace,
)
from ripsight.errors import model_text

SECRET = "TOP-SECRET-OUTSIDE-THE-ROOT"
TOOLS = ("read_file", "glob", "grep")


def call(ws: Workspace, tool: str, path: str) -> Any:
    if tool == "read_file":
        return ws.read_file(path)
    if tool == "glob":
        return ws.glob("**/*", path=path)
    return ws.grep("SECRET", path=path)


def leaked(result: Any) -> bool:
    """True when anything from outside the root made it into a result."""
    return SECRET in repr(result) or SECRET in str(getattr(result, "lines", ""))


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """/x/repo (the root), /x/repo-old (a sibling sharing its prefix), /x/outside (elsewhere)."""
    repo = make_tree(tmp_path / "repo", {"src/app.py": "print('hi')\n", "notes.txt": "inside\n"})
    old = make_tree(tmp_path / "repo-old", {"secret.txt": SECRET + "\n"})
    outside = make_tree(tmp_path / "outside", {"secret.txt": SECRET + "\n"})
    (repo / "link_to_file").symlink_to(outside / "secret.txt")
    (repo / "link_to_dir").symlink_to(outside, target_is_directory=True)
    (repo / "src" / "deep_link").symlink_to(outside, target_is_directory=True)
    return {"repo": repo, "old": old, "outside": outside}


def outside_paths(layout: dict[str, Path]) -> dict[str, str]:
    return {
        "dotdot": "../outside/secret.txt",
        "dotdot_dir": "../outside",
        "dotdot_deep": "src/../../outside/secret.txt",
        "dotdot_many": "../../../../../../../../etc/passwd",
        "absolute_outside": str(layout["outside"] / "secret.txt"),
        "absolute_outside_dir": str(layout["outside"]),
        "sibling_prefix_relative": "../repo-old/secret.txt",
        "sibling_prefix_absolute": str(layout["old"] / "secret.txt"),
        "sibling_prefix_dir": str(layout["old"]),
        "etc_passwd": "/etc/passwd",
        "etc": "/etc",
        "root_dir": "/",
        "symlink_to_file": "link_to_file",
        "symlink_to_dir": "link_to_dir",
        "file_under_symlinked_dir": "link_to_dir/secret.txt",
        "missing_under_symlinked_dir": "link_to_dir/not_there.txt",
        "nested_symlinked_dir": "src/deep_link/secret.txt",
        "dotdot_through_symlink": "link_to_dir/../repo-old/secret.txt",
    }


CASES = [
    "dotdot",
    "dotdot_dir",
    "dotdot_deep",
    "dotdot_many",
    "absolute_outside",
    "absolute_outside_dir",
    "sibling_prefix_relative",
    "sibling_prefix_absolute",
    "sibling_prefix_dir",
    "etc_passwd",
    "etc",
    "root_dir",
    "symlink_to_file",
    "symlink_to_dir",
    "file_under_symlinked_dir",
    "missing_under_symlinked_dir",
    "nested_symlinked_dir",
    "dotdot_through_symlink",
]


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("case", CASES)
def test_outside_paths_are_refused(layout: dict[str, Path], tool: str, case: str) -> None:
    ws = Workspace(layout["repo"])
    path = outside_paths(layout)[case]
    with pytest.raises(OutsideRootError) as info:
        call(ws, tool, path)
    message = model_text(info.value)
    assert SECRET not in message
    assert "outside the workspace root" in message
    assert "relative to the root" in message
    # The exception itself states the fact only; the advice is the formatting layer's.
    assert "relative to the root" not in str(info.value)


@pytest.mark.parametrize("tool", TOOLS)
def test_tilde_is_not_expanded(
    layout: dict[str, Path], tool: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home = make_tree(tmp_path / "home", {".bashrc": SECRET + "\n", "secret.txt": SECRET + "\n"})
    monkeypatch.setenv("HOME", str(home))
    ws = Workspace(layout["repo"])
    for path in ("~", "~/secret.txt", "~/.bashrc", "~root"):
        # "~" is an ordinary (missing) name inside the root, never the home directory.
        with pytest.raises(PathNotFoundError) as info:
            call(ws, tool, path)
        assert SECRET not in str(info.value)


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize(
    "path",
    [
        "%2e%2e/outside/secret.txt",
        "%2e%2e%2foutside%2fsecret.txt",
        "..%2Foutside%2Fsecret.txt",
        "..\\outside\\secret.txt",
        "..\\..\\etc\\passwd",
        "src\\..\\..\\outside\\secret.txt",
        "\u2025/outside/secret.txt",  # "two dot leader", not "..".
    ],
)
def test_encoded_tricks_are_plain_names(layout: dict[str, Path], tool: str, path: str) -> None:
    """No URL-decoding, no backslash separators: these are names inside the root that do not exist."""
    ws = Workspace(layout["repo"])
    with pytest.raises(PathNotFoundError) as info:
        call(ws, tool, path)
    assert SECRET not in str(info.value)


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize(
    "path", ["notes.txt\x00../../outside/secret.txt", "\x00", "src/\x00app.py"]
)
def test_nul_bytes_are_rejected(layout: dict[str, Path], tool: str, path: str) -> None:
    ws = Workspace(layout["repo"])
    with pytest.raises(InvalidArgumentError) as info:
        call(ws, tool, path)
    assert "NUL" in str(info.value)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("tool", TOOLS)
def test_every_refusal_is_a_ripsight_error_without_content(
    layout: dict[str, Path], tool: str
) -> None:
    ws = Workspace(layout["repo"])
    for path in outside_paths(layout).values():
        try:
            result = call(ws, tool, path)
        except RipsightError as error:
            assert SECRET not in str(error)
        else:  # pragma: no cover - would be a boundary bug
            assert not leaked(result), (tool, path)
            pytest.fail(f"{tool}({path!r}) returned instead of refusing")


def test_paths_inside_the_root_still_work(layout: dict[str, Path]) -> None:
    ws = Workspace(layout["repo"])
    repo = layout["repo"]
    assert ws.read_file("notes.txt").lines[0].text == "inside"
    assert ws.read_file(str(repo / "notes.txt")).lines[0].text == "inside"
    assert ws.read_file("src/../notes.txt").lines[0].text == "inside"
    assert ws.read_file("./src/app.py").path == "src/app.py"
    assert ws.read_file(repo / "src" / "app.py").path == "src/app.py"


def test_symlink_inside_the_root_is_followed(tmp_path: Path) -> None:
    repo = make_tree(tmp_path / "repo", {"real/data.txt": "inside\n"})
    (repo / "alias.txt").symlink_to(repo / "real" / "data.txt")
    (repo / "alias_dir").symlink_to(repo / "real", target_is_directory=True)
    ws = Workspace(repo)
    assert ws.read_file("alias.txt").lines[0].text == "inside"
    assert ws.read_file("alias_dir/data.txt").lines[0].text == "inside"


def test_root_given_through_a_symlink(tmp_path: Path) -> None:
    """A root reached through a symlink is canonicalised; its files stay inside."""
    real = make_tree(tmp_path / "real_repo", {"a.txt": "inside\n"})
    make_tree(tmp_path / "real_repo-old", {"secret.txt": SECRET + "\n"})
    link = tmp_path / "linked_repo"
    link.symlink_to(real, target_is_directory=True)
    ws = Workspace(link)
    assert ws.read_file("a.txt").lines[0].text == "inside"
    assert ws.read_file(str(link / "a.txt")).lines[0].text == "inside"
    with pytest.raises(OutsideRootError):
        ws.read_file("../real_repo-old/secret.txt")


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores permissions")
def test_unreadable_directory_on_the_way_is_not_a_leak(tmp_path: Path) -> None:
    repo = make_tree(tmp_path / "repo", {"locked/inner.txt": "x\n"})
    (repo / "locked").chmod(0)
    try:
        ws = Workspace(repo)
        with pytest.raises(RipsightError):
            ws.read_file("locked/inner.txt")
    finally:
        (repo / "locked").chmod(0o755)


@pytest.mark.parametrize(
    "pattern",
    ["../*", "../**/*", "../outside/secret.txt", "src/../../outside/*", "/etc/*", "/x/repo-old/*"],
)
def test_glob_pattern_cannot_leave_the_root(layout: dict[str, Path], pattern: str) -> None:
    from ripsight import PatternError

    ws = Workspace(layout["repo"])
    with pytest.raises(PatternError) as caught:
        ws.glob(pattern)
    assert "`path`" in model_text(caught.value)


def test_glob_pattern_may_be_absolute_inside_the_root(layout: dict[str, Path]) -> None:
    ws = Workspace(layout["repo"])
    assert ws.glob(os.path.join(ws.root, "src", "*.py")).paths == ["src/app.py"]


def test_non_utf8_names_round_trip_through_glob_grep_and_read(tmp_path: Path) -> None:
    # A name with an invalid UTF-8 byte: listed and searched as the surrogateescape `str` that
    # os.fsdecode gives, and that `str` passed back as a path opens the same file.
    raw = b"caf\xe9_notes.txt"
    (tmp_path / os.fsdecode(raw)).write_bytes(b"needle in a latin-1 name\n")
    (tmp_path / "plain.txt").write_text("needle\n")
    ws = Workspace(tmp_path)
    name = os.fsdecode(raw)
    assert ws.glob("*.txt").paths == sorted([name, "plain.txt"], key=os.fsencode)
    hits = ws.grep("latin-1").matches
    assert [m.path for m in hits] == [name] and os.fsencode(hits[0].path) == raw
    assert ws.read_file(name).lines[0].text == "needle in a latin-1 name"
    assert ws.grep("needle", path=name).total_matches == 1
    assert ws.identify(name).path == name
