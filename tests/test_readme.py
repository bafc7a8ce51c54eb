"""The examples of the README and of every guide in docs/, run as written and compared with the
output they show.

Every plain fenced block (```` ``` ```` without a language) in README.md and in docs/*.md is
output some example printed, and each must be one of:
- the output of the ```` ```python ```` block just before it: the Python blocks of one page that
  show output run in order in one namespace (a later example may use an earlier one's names, as a
  reader running them in order would; each page starts afresh), and each block's stdout must
  equal the output shown;
- a shell session: lines starting with ``$ `` are commands, run in order by one bash in an empty
  directory (``ripsight`` is this interpreter's), and the lines after each command are its
  output;
- marked in the page's source, just above the block, as not compared and why:
  ``<!-- readme-test: not compared (a run on the development machine) -->``.

A part of the output that differs on every run (a reference's random digits) is named by a
marker above the output block, ``<!-- readme-test: vary REGEX -->``: the text it matches is
compared as a placeholder, the same text standing for the same value throughout.

So a new tool, a changed count or a reworded sentence fails here until the page shows it.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
#: Every page whose examples run: the README and the guides in docs/.
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]
MARKER = re.compile(r"<!-- readme-test: (?P<what>not compared|vary) (?P<detail>.+?) -->")


@dataclass(frozen=True)
class Block:
    line: int  # 1-based line of the opening fence
    language: str
    text: str
    markers: tuple[tuple[str, str], ...]  # (what, detail) of the comments just above it


def blocks(source: str) -> list[Block]:
    found: list[Block] = []
    lines = source.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            language = lines[i][3:].strip()
            end = i + 1
            while not lines[end].startswith("```"):
                end += 1
            markers: list[tuple[str, str]] = []
            above = i - 1
            while above >= 0 and (not lines[above].strip() or MARKER.fullmatch(lines[above])):
                match = MARKER.fullmatch(lines[above])
                if match:
                    markers.append((match["what"], match["detail"]))
                above -= 1
            found.append(Block(i + 1, language, "\n".join(lines[i + 1 : end]), tuple(markers)))
            i = end
        i += 1
    return found


def placeholders(expected: str, actual: str, patterns: list[str]) -> tuple[str, str]:
    """Both texts with each match of `patterns` replaced by a numbered placeholder, numbered in
    order of first appearance (so the same value must stand in the same places)."""

    def number(text: str) -> str:
        seen: dict[str, str] = {}
        for pattern in patterns:
            text = re.sub(pattern, lambda m: seen.setdefault(m[0], f"<{len(seen)}>"), text)
        return text

    return number(expected), number(actual)


def run_python(source: str, namespace: dict[str, object], page: Path) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, str(page), "exec"), namespace)  # noqa: S102 - the page's code
    return out.getvalue()


def _name(page: Path) -> str:
    return str(page.relative_to(REPO))


def _compared(block: Block) -> bool:
    """An output block this test compares: plain, and not marked as not compared."""
    return block.language == "" and not any(w == "not compared" for w, _ in block.markers)


def run_session(text: str, cwd: Path) -> tuple[str, str]:
    """The session's commands run by one bash in `cwd`; returns (expected, actual) transcripts."""
    commands: list[str] = []
    expected: list[str] = []
    for line in text.split("\n"):
        if line.startswith("$ "):
            commands.append(line[2:])
            expected.append(line)
        else:
            expected.append(line)
    script = [f'ripsight() {{ {shlex.quote(sys.executable)} -m ripsight "$@"; }}']
    for command in commands:
        script.append(f"printf '%s\\n' {shlex.quote('$ ' + command)}")
        script.append(command)
    done = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        check=False,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "100"},
    )
    return "\n".join(expected), done.stdout.rstrip("\n")


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_output_block_is_checked_or_marked(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = blocks(page.read_text(encoding="utf-8"))
    namespace: dict[str, object] = {"__name__": "readme"}
    previous: Block | None = None
    monkeypatch.chdir(tmp_path)
    for block in found:
        if _compared(block):
            varying = [detail for what, detail in block.markers if what == "vary"]
            if block.text.startswith("$ "):
                session = tmp_path / f"session-{block.line}"
                session.mkdir()
                expected, actual = run_session(block.text, session)
            elif previous is not None and previous.language == "python":
                expected, actual = block.text, run_python(previous.text, namespace, page).rstrip()
            else:
                pytest.fail(
                    f"{_name(page)}:{block.line}: an output block that no example precedes; "
                    "run it from a ```python block or a $ session, or mark it "
                    "<!-- readme-test: not compared (why) -->"
                )
            expected, actual = placeholders(expected, actual, varying)
            assert actual == expected, f"{_name(page)}:{block.line} shows other output"
        previous = block


def test_the_examples_are_found() -> None:
    # Every compared block is checked above; these floors catch a reader that finds none (a
    # changed fence, a page no longer read).
    compared = {
        _name(page): sum(map(_compared, blocks(page.read_text(encoding="utf-8")))) for page in PAGES
    }
    assert compared["README.md"] >= 2
    assert compared["docs/navigation.md"] >= 3  # the outline, calls and map sessions
    assert compared["docs/protocol.md"] >= 2  # the pipeline and the approvals
    assert sum(compared.values()) >= 9


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_markers_are_narrow(page: Path) -> None:
    # A marker says why (not compared) or names a pattern that matches in its block (vary).
    found = blocks(page.read_text(encoding="utf-8"))
    for block in found:
        for what, detail in block.markers:
            if what == "not compared":
                assert re.fullmatch(r"\(.{10,}\)", detail), f"{_name(page)}:{block.line}: say why"
            else:
                assert re.search(detail, block.text), f"{_name(page)}:{block.line}: {detail} unused"
