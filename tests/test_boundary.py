"""The path boundary as Python sees it: refusals arrive as `OutsideRootError` whose message
states the fact and whose model text adds the advice, and names that are not UTF-8 round-trip as
surrogate-escaped `str`.

What the boundary refuses (every way out of the root for every tool, links, `..`, absolute and
sibling paths, tildes, encoded names, NUL bytes, glob patterns that leave the root, a root given
through a link) is the engine's and lives in rust_core/tests/boundary.rs.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _trees import make_tree
from ripsight import OutsideRootError, Workspace
from ripsight.errors import model_text

SECRET = "TOP-SECRET-OUTSIDE-THE-ROOT"


@pytest.mark.parametrize("tool", ["read_file", "glob", "grep"])
def test_a_refusal_states_the_fact_and_model_text_adds_the_advice(
    tmp_path: Path, tool: str
) -> None:
    repo = make_tree(tmp_path / "repo", {"notes.txt": "inside\n"})
    make_tree(tmp_path / "outside", {"secret.txt": SECRET + "\n"})
    ws = Workspace(repo)
    call = {
        "read_file": lambda: ws.read_file("../outside/secret.txt"),
        "glob": lambda: ws.glob("**/*", path="../outside"),
        "grep": lambda: ws.grep("SECRET", path="../outside"),
    }[tool]
    with pytest.raises(OutsideRootError) as info:
        call()
    assert isinstance(info.value, PermissionError)
    message = model_text(info.value)
    assert SECRET not in message
    assert "outside the workspace root" in message
    assert "relative to the root" in message
    assert "relative to the root" not in str(info.value)


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
