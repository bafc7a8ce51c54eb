"""The command line speaks its own language: advice names its flags, a cut result says how to
see the rest from the command line, a path outside the root is searched as its root (or named
with the root in force), and `ripsight cache` and `ripsight bench` say what they hold and do."""

from __future__ import annotations

import argparse
import os
import subprocess
import time
from pathlib import Path

import orjson
import pytest
from _cli_helpers import run_ripsight
from ripsight.cli import TOOL_COMMANDS
from ripsight.cli.hints import CommandWords, in_command_words
from ripsight.tools import builtin_tools


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(
        "import os\n\n\ndef main():\n    # TODO: read the config\n    return os.getcwd()\n"
    )
    (root / "notes.txt").write_text("call grep again with offset=2 (a line of data)\n")
    return root


def ripsight(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run_ripsight(*args, cwd=cwd, env=env)


def words(command: str) -> CommandWords:
    properties = {spec.name: tuple(spec.parameters["properties"]) for spec in builtin_tools()}
    return CommandWords(command, TOOL_COMMANDS, properties)


# -- advice in the command's words -----------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "model", "cli"),
    [
        (
            "grep",
            (
                "12 more matches not shown: call grep again with offset=50 for the next page, or "
                "narrow the search with path or glob."
            ),
            (
                "12 more matches not shown: run the command again with --offset 50 for the next "
                "page, or narrow the search with PATH or -g."
            ),
        ),
        (
            "grep",
            "The search is case-sensitive; pass case_insensitive=true to ignore case.",
            "The search is case-sensitive; pass -i to ignore case.",
        ),
        (
            "grep",
            (
                "escape special characters with a backslash, or set literal=true to search for "
                "the text as written."
            ),
            (
                "escape special characters with a backslash, or pass -F to search for the text as "
                "written."
            ),
        ),
        (
            "glob",
            (
                "Hidden by ignore rules: 1 file or directory. Pass include_ignored=true to list "
                "them too."
            ),
            "Hidden by ignore rules: 1 file or directory. Pass --no-ignore to list them too.",
        ),
        (
            "read",
            "More lines follow: call read_file with offset=4 to read on.",
            "More lines follow: run the command again with --offset 4 to read on.",
        ),
        (
            "read",
            "Outline (3 definitions; line, kind, name; call outline for line ranges):",
            "Outline (3 definitions; line, kind, name; run ripsight outline for line ranges):",
        ),
        (
            "read",
            (
                'src is a directory. To see what it holds, call glob with path="src" and '
                'pattern="*" (or "**/*" for every depth).'
            ),
            (
                "src is a directory. To see what it holds, run ripsight glob '*' src (or "
                '"**/*" for every depth).'
            ),
        ),
        (
            "defs",
            (
                "3 more definitions not shown: call find_definitions again with offset=50 for the "
                "next page, or narrow it with kind, path or glob."
            ),
            (
                "3 more definitions not shown: run the command again with --offset 50 for the next "
                "page, or narrow it with -k, PATH or -g."
            ),
        ),
        (
            "read",
            (
                'More pages follow: call read_file with pages="4-6" to read on (at most 20 pages '
                "a call)."
            ),
            (
                "More pages follow: run the command again with --pages 4-6 to read on (at most 20 "
                "pages a call)."
            ),
        ),
        (
            "grep",
            (
                'Invalid arguments for grep (1 problem); nothing was run:\n- "limit" must be at '
                "least 1, got 0."
            ),
            (
                "Invalid arguments for grep (1 problem); nothing was run:\n- --limit must be at "
                "least 1, got 0."
            ),
        ),
        (
            "read",
            "nosuchfile.py does not exist. Use glob to find the file's real path.",
            "nosuchfile.py does not exist. Use ripsight glob to find the file's real path.",
        ),
    ],
)
def test_advice_names_the_commands_flags(command: str, model: str, cli: str) -> None:
    assert in_command_words(model, words(command)) == cli


def test_data_lines_are_never_rewritten(tree: Path) -> None:
    done = ripsight("grep", "offset", "--root", str(tree))
    assert done.returncode == 0, done.stderr
    assert "notes.txt:1:call grep again with offset=2 (a line of data)" in done.stdout
    done = ripsight("read", "notes.txt", "--root", str(tree))
    assert "     1\tcall grep again with offset=2 (a line of data)" in done.stdout


def test_an_error_names_the_flag(tree: Path) -> None:
    done = ripsight("grep", "def (main", "--root", str(tree))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.endswith(" or pass -F to search for the text as written.\n")


def test_a_cut_result_says_how_to_see_the_rest_within_the_budget(tree: Path) -> None:
    (tree / "big.txt").write_text("".join(f"TODO item {n}\n" for n in range(400)))
    done = ripsight("grep", "TODO", "--limit", "400", "--max-result-chars", "1000", cwd=tree)
    assert done.returncode == 0, done.stderr
    assert "read_result" not in done.stdout and "ref_" not in done.stdout
    assert len(done.stdout) <= 1000 + 1  # the budget, and the final newline
    note = next(line for line in done.stdout.splitlines() if line.startswith("[... "))
    cut, original = (int(n.replace(",", "")) for n in note.split()[1:4:2])
    assert note == (
        f"[... {cut:,} of {original:,} characters cut from the middle; run the command again "
        f"with --max-result-chars {original} to see them, or with --offset and --limit for a "
        "page ...]"
    )
    assert len(done.stdout) - 1 - len(note) + cut == original
    whole = ripsight(
        "grep", "TODO", "--limit", "400", "--max-result-chars", str(original), cwd=tree
    )
    assert "characters cut" not in whole.stdout and "TODO item 399" in whole.stdout


# -- a path outside the root ---------------------------------------------------------------------


def test_a_directory_outside_the_current_one_is_searched_as_the_root(
    tree: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = ripsight("grep", "TODO", str(tree / "src"), cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("1 match in 1 file")
    assert "app.py:5:    # TODO: read the config" in done.stdout
    listed = ripsight("glob", "*.py", str(tree / "src"), cwd=elsewhere)
    # The root is the directory named: the text names it as grep's "under" would.
    assert listed.stdout == f'1 file matches "*.py" in {tree / "src"}:\napp.py\n'
    # A path inside the current directory keeps it as the root.
    assert ripsight("glob", "*.py", "src", cwd=tree).stdout.endswith("\nsrc/app.py\n")
    read = ripsight("read", str(tree / "src" / "app.py"), "--limit", "1", cwd=elsewhere)
    assert read.returncode == 0, read.stderr
    page = (
        "app.py: line 1 of 6.\n     1\timport os\n"
        "More lines follow: run the command again with --offset 2 to read on.\n"
    )
    # An explicit --limit: at most one line about the outline; --outline shows it, and
    # --no-outline leaves out both.
    assert (
        read.stdout == page + "Outline: 1 definition (run ripsight outline app.py for its line).\n"
    )
    read = ripsight(
        "read", str(tree / "src" / "app.py"), "--limit", "1", "--outline", cwd=elsewhere
    )
    assert read.stdout == page + (
        "Outline (1 definition; line, kind, name; run ripsight outline for line ranges):\n"
        "     4  function main\n"
    )
    read = ripsight(
        "read", str(tree / "src" / "app.py"), "--limit", "1", "--no-outline", cwd=elsewhere
    )
    assert read.stdout == page


def test_outside_an_explicit_root_names_the_root_and_the_flag(tree: Path, tmp_path: Path) -> None:
    done = ripsight("grep", "TODO", str(tmp_path), "--root", str(tree / "src"))
    assert done.returncode == 2 and done.stdout == ""
    root = os.path.realpath(tree / "src")
    assert done.stderr.endswith(
        f"The root is {root} (--root, default: the current directory): name a path inside it, "
        "or give a --root that holds the path.\n"
    ), done.stderr


# -- ripsight cache --------------------------------------------------------------------------------


def test_cache_lists_and_prunes_index_files(tree: Path, tmp_path: Path) -> None:
    from ripsight import Workspace

    cache = tmp_path / "cache"
    gone = tmp_path / "gone"
    gone.mkdir()
    (gone / "a.txt").write_text("x\n")
    for root in (tree, gone):
        ws = Workspace(root, index=True, index_dir=str(cache))
        assert ws.wait_index(30)
        deadline = time.monotonic() + 60  # each tree has an n-gram file and a symbol file
        while ws.index_status().get("symbols") not in ("ready", "failed"):
            assert time.monotonic() < deadline, "the symbol index was not ready in 60 s"
            time.sleep(0.05)
        ws.close()
    (gone / "a.txt").unlink()
    gone.rmdir()
    listed = ripsight("cache", "--dir", str(cache))
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].startswith(f"{cache}: 4 index files, ")
    for content in ("ngrams", "symbols"):
        assert any(
            f"  {content}  " in line and line.endswith(f"{gone}  [stale: its tree is gone]")
            for line in lines
        ), lines
        assert any(f"  {content}  " in line and line.endswith(str(tree)) for line in lines), lines
    assert lines[-1].startswith("2 stale files (") and lines[-1].endswith(
        "): ripsight cache --prune removes them."
    )
    data = orjson.loads(ripsight("cache", "--dir", str(cache), "--json").stdout)
    assert sorted((f["content"], f["stale"] or "kept") for f in data) == [
        ("ngrams", "kept"),
        ("ngrams", "tree_gone"),
        ("symbols", "kept"),
        ("symbols", "tree_gone"),
    ]
    pruned = ripsight("cache", "--dir", str(cache), "--prune")
    assert pruned.returncode == 0, pruned.stderr
    assert pruned.stdout.splitlines()[-1].startswith("Removed 2 stale files (")
    assert sorted(f.suffix for f in cache.iterdir() if f.suffix in (".rsidx", ".rssym")) == [
        ".rsidx",
        ".rssym",
    ]
    # An age limit of 0 days makes every file stale.
    assert (
        "too_old" in ripsight("cache", "--dir", str(cache), "--max-age-days", "0", "--json").stdout
    )


def test_cache_of_a_missing_directory_lists_nothing(tmp_path: Path) -> None:
    done = ripsight("cache", "--dir", str(tmp_path / "none"))
    assert done.returncode == 0 and done.stdout == f"{tmp_path / 'none'}: 0 index files, 0 B\n"


# -- ripsight bench says what it writes --------------------------------------------------------


def test_bench_says_what_it_generates_where_and_how_large(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ripsight.bench.harness import plan_text

    monkeypatch.setenv("RIPSIGHT_BENCH_DIR", str(tmp_path))
    args = argparse.Namespace(quick=False, root=None, log_mb=None)
    assert plan_text(args) == (
        f"ripsight bench: its corpora are generated in {tmp_path} ($RIPSIGHT_BENCH_DIR chooses "
        "another place) and kept for later runs: a 5,000-file repository (about 32 MB), a "
        "300-file repository (about 2 MB), a 500 MB log (about 500 MB). This run writes about "
        "533 MB there first; --quick measures on smaller ones (about 22 MB in all)."
    )
    (tmp_path / "small-v1-300").mkdir()
    quick = argparse.Namespace(quick=True, root=None, log_mb=None)
    assert plan_text(quick) == (
        f"ripsight bench: its corpora are generated in {tmp_path} ($RIPSIGHT_BENCH_DIR chooses "
        "another place) and kept for later runs: a 300-file repository (about 2 MB, already "
        "there), a 60-file repository (about 1 MB), a 20 MB log (about 20 MB). This run writes "
        "about 20 MB there first."
    )
