"""Differential: real ripgrep judges grep's and glob's rg options, cold and warm.

Generated trees (ignore files at two levels, a `.ignore`, files of several types at depths 1 to
4) are searched with random combinations of `type`, `type_not`, `glob` lists, `max_count`,
`invert_match`, `before_context` / `after_context`, `max_depth`, `include_ignored`, every
`output_mode` and a `path`; each answer is compared with `rg` run with the same long options,
and the warm workspace (``index=True``) must give the cold answer field for field.

Mapping rg's answer to ripsight's:
- ripsight's `glob` only narrows: rg's `-g` can re-include what ignore files hide, so rg's
  answer is taken within the files rg lists without `-g`/`-t` (the same walk: ignore files,
  `--no-ignore`, `--max-depth`, the path).
- With `max_count`, rg 14 prints a match that falls in the after-context of the last counted
  one with ':' and counts it nowhere (its regression test for issue 1380); ripsight shows it
  as a match (`is_match`) that is not `counted`. The shown lines and the lines shown as
  matches are compared with rg's output with context, the counted matches with rg's without.
- `max_count=0` searches nothing, as `rg -m 0` (which exits at once, printing nothing).
- The glob tool's patterns are relative to `path` (rg's `-g` to the working directory): a
  pattern `p` is `-g /PATH/p`. Its `type` narrows what the patterns list (rg lets a file a `-g`
  names through whatever its type; for grep's `glob` ripsight does the same).

``test_rg_options_equal_rg`` runs a bounded number of trees; the ``slow`` one runs many more.
With ``-s``, each prints how many comparisons it made and how many were equal.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ripsight import ToolCall, Workspace, default_registry
from ripsight.file_types import FILE_TYPES
from ripsight.workspace import to_dict

SEP_MATCH, SEP_CONTEXT = "\x1f", "\x1e"

WORDS = ["alpha", "beta gamma", "TODO fix", "x = 1", "", "alpha beta", "Gamma"]
DIRS = ["", "a", "a/b", "a/b/c", "d", "d/e"]
NAMES = ["m.py", "n.rs", "o.md", "p.txt", "q.js", "r.json", "s.c", "t.toml", "Makefile", "u"]
GITIGNORES = ["*.md", "b/", "!keep.md", "e/", "*.txt", "/s.c", "c/*.py", "!n.rs"]

#: Types whose definitions rg 14 (the oracle) and the engine's `ignore` crate agree on.
TYPE_CANDIDATES = ["py", "rust", "md", "txt", "js", "json", "c", "toml", "markdown"]


def build(root: Path, seed: int) -> Path:
    """A tree of random small text files with ignore files; every directory of DIRS exists.
    Some trees are git repositories with an `info/exclude`, some have a linked worktree `d`
    (a `.git` file pointing into the root's `.git/worktrees/`)."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    if rng.random() < 0.8:
        (root / ".git" / "info").mkdir(parents=True)
        (root / ".git" / "info" / "exclude").write_text(rng.choice(["", "*.toml\n", "u\n"]))
        if rng.random() < 0.4:
            linked = root / ".git" / "worktrees" / "d"
            linked.mkdir(parents=True)
            (linked / "commondir").write_text("../..\n")
            (root / "d").mkdir()
            (root / "d" / ".git").write_text(f"gitdir: {linked}\n")
    for directory in DIRS:
        (root / directory).mkdir(parents=True, exist_ok=True)
        (root / directory / "keep.md").write_text("alpha kept\n")
    for _ in range(rng.randint(8, 30)):
        path = root / rng.choice(DIRS) / rng.choice(NAMES)
        lines = [rng.choice(WORDS) for _ in range(rng.randint(0, 9))]
        path.write_text("\n".join(lines) + ("\n" if lines and rng.random() < 0.8 else ""))
    if rng.random() < 0.8:
        rules = rng.sample(GITIGNORES, rng.randint(1, 3))
        (root / ".gitignore").write_text("\n".join(rules) + "\n")
    if rng.random() < 0.4:
        (root / "a" / ".gitignore").write_text(rng.choice(["*.json\n", "b/c/\n", "*.py\n!m.py\n"]))
    if rng.random() < 0.3:
        (root / "d" / ".ignore").write_text(rng.choice(["*.js\n", "e/\n"]))
    return root


def grep_query() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "pattern": st.sampled_from(["alpha", "beta", "TODO", "x = 1", "^$", "a", "Gamma"]),
            "invert_match": st.booleans(),
            "max_count": st.sampled_from([None, None, 1, 2]),
            "before_context": st.sampled_from([0, 0, 1, 2]),
            "after_context": st.sampled_from([0, 0, 1, 3]),
            "type": st.sampled_from([None, None, ["py"], ["md", "txt"], ["rust"], ["markdown"]]),
            "type_not": st.sampled_from([None, None, ["md"], ["json", "c"]]),
            "glob": st.sampled_from(
                [None, None, ["*.py"], ["!*.md"], ["a/**"], ["!b/"], ["*.md", "!/a/**"]]
            ),
            "max_depth": st.sampled_from([None, None, 1, 2, 3]),
            "include_ignored": st.booleans(),
            "output_mode": st.sampled_from(
                ["content", "files_with_matches", "count", "files_without_match"]
            ),
            "path": st.sampled_from([None, None, "a", "a/b", "d", "a/keep.md"]),
        }
    )


def glob_query() -> st.SearchStrategy[dict[str, Any]]:
    patterns = ["**/*", "*", "**/*.py", "*.md", "b/**", "**/keep.md", "**/[mn].*"]
    negations = ["!**/*.md", "!b/**", "!**/c", "!*.txt"]
    return st.fixed_dictionaries(
        {
            "pattern": st.lists(st.sampled_from(patterns), min_size=1, max_size=2).flatmap(
                lambda kept: st.lists(st.sampled_from(negations), max_size=2).map(
                    lambda dropped: kept + dropped
                )
            ),
            "type": st.sampled_from([None, None, ["py"], ["md", "rust"]]),
            "max_depth": st.sampled_from([None, None, 1, 2, 3]),
            "include_ignored": st.booleans(),
            "path": st.sampled_from([None, None, "a", "d"]),
        }
    )


# ---- rg, the oracle -----------------------------------------------------------------------------


def _rg(rg: str, root: Path, args: list[str], path: str | None) -> list[str]:
    # ripsight's skip set holds .git; rg --hidden would search it.
    command = [rg, "--no-config", "--no-ignore-global", "--hidden", "--color", "never"]
    command += ["-g", "!.git/"]
    done = subprocess.run(
        [*command, *args, path or "./"],
        cwd=root,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert done.returncode in (0, 1), done.stderr.decode(errors="replace")
    # Not splitlines(): it also splits at the context separator (\x1e, a record separator).
    return [line for line in done.stdout.decode().split("\n") if line]


def _strip(path: str) -> str:
    return path.removeprefix("./")


def _walk_flags(q: dict[str, Any]) -> list[str]:
    """The flags that decide which files a walk meets (no `-g`, no `-t`)."""
    flags = ["--no-ignore"] if q.get("include_ignored") else []
    if q.get("max_depth") is not None:
        flags += ["--max-depth", str(q["max_depth"])]
    return flags


def _select_flags(q: dict[str, Any]) -> list[str]:
    flags = [arg for glob in q.get("glob") or () for arg in ("-g", glob)]
    flags += [arg for name in q.get("type") or () for arg in ("-t", name)]
    return flags + [arg for name in q.get("type_not") or () for arg in ("-T", name)]


def rg_files(rg: str, root: Path, q: dict[str, Any], extra: list[str]) -> set[str]:
    return {_strip(p) for p in _rg(rg, root, ["--files", *_walk_flags(q), *extra], q["path"])}


def _search_flags(q: dict[str, Any]) -> list[str]:
    flags = _walk_flags(q) + _select_flags(q)
    if q["invert_match"]:
        flags.append("-v")
    if q["max_count"] is not None:
        flags += ["-m", str(q["max_count"])]
    return flags


def rg_lines(rg: str, root: Path, q: dict[str, Any], context: bool) -> tuple[set, set]:
    """rg's matching lines and (with `context`) every line it shows, as (path, line)."""
    args = [
        "-n",
        "--no-heading",
        "--with-filename",
        "--field-match-separator",
        SEP_MATCH,
        "--field-context-separator",
        SEP_CONTEXT,
        *_search_flags(q),
    ]
    if context:
        args += ["-B", str(q["before_context"]), "-A", str(q["after_context"])]
    matches, shown = set(), set()
    for line in _rg(rg, root, [*args, "-e", q["pattern"]], q["path"]):
        if line == "--":
            continue
        sep = SEP_MATCH if SEP_MATCH in line.split(SEP_CONTEXT, 1)[0] else SEP_CONTEXT
        path, number, _ = line.split(sep, 2)
        where = (_strip(path), int(number))
        shown.add(where)
        if sep == SEP_MATCH:
            matches.add(where)
    return matches, shown


# ---- the comparisons ----------------------------------------------------------------------------


def _answer(ws: Workspace, call: str, kwargs: dict[str, Any]) -> Any:
    try:
        out = to_dict(getattr(ws, call)(**kwargs))
    except Exception as error:  # noqa: BLE001 - the error is the answer
        return (type(error).__name__, str(error))
    out.pop("elapsed_ms", None)
    return out


def grep_differences(rg: str, root: Path, q: dict[str, Any], warm: Workspace) -> Iterator[str]:
    """Where ripsight's grep differs from rg (and the warm answer from the cold one)."""
    kwargs = {k: v for k, v in q.items() if v is not None}
    cold = Workspace(root).grep(limit=None, **kwargs)
    walked = rg_files(rg, root, q, [])
    selected = rg_files(rg, root, q, _select_flags(q)) & walked
    if cold.files_searched != len(selected):
        yield f"files_searched {cold.files_searched} != rg's {len(selected)}"
    mode = q["output_mode"]
    if mode == "content":
        matches, _ = rg_lines(rg, root, q, context=False)
        shown_matches, shown = rg_lines(rg, root, q, context=True)
        matches = {m for m in matches if m[0] in walked}
        shown_matches = {m for m in shown_matches if m[0] in walked}
        shown = {s for s in shown if s[0] in walked}
        ours = {(line.path, line.line) for line in cold.lines if line.counted}
        if ours != matches:
            yield f"matches: ours-rg={sorted(ours - matches)} rg-ours={sorted(matches - ours)}"
        marked = {(line.path, line.line) for line in cold.lines if line.is_match}
        if marked != shown_matches:
            yield (
                f"shown as matches: ours-rg={sorted(marked - shown_matches)} "
                f"rg-ours={sorted(shown_matches - marked)}"
            )
        everything = {(line.path, line.line) for line in cold.lines}
        if everything != shown:
            yield f"shown: ours-rg={sorted(everything - shown)} rg-ours={sorted(shown - everything)}"
        if cold.total_matches != len(matches):
            yield f"total_matches {cold.total_matches} != {len(matches)}"
    elif mode == "count":
        counted = {}
        for line in _rg(
            rg,
            root,
            ["-c", "--null", "--with-filename", *_search_flags(q), "-e", q["pattern"]],
            q["path"],
        ):
            path, count = line.split("\0")
            if _strip(path) in walked:
                counted[_strip(path)] = int(count)
        ours = {f.path: f.count for f in cold.files}
        if ours != counted:
            yield f"counts: ours={ours} rg={counted}"
    else:
        flag = "-l" if mode == "files_with_matches" else "--files-without-match"
        listed = {
            _strip(p)
            for p in _rg(rg, root, [flag, *_search_flags(q), "-e", q["pattern"]], q["path"])
        } & walked
        ours = {f.path for f in cold.files}
        if ours != listed:
            yield f"{mode}: ours-rg={sorted(ours - listed)} rg-ours={sorted(listed - ours)}"
    # Paging: a page is the slice of the whole, with exact totals.
    page = Workspace(root).grep(limit=2, offset=1, **kwargs)
    entries = cold.files if mode != "content" else [line for line in cold.lines if line.counted]
    shown_page = page.files if mode != "content" else [line for line in page.lines if line.counted]
    if [e.to_dict() for e in shown_page] != [e.to_dict() for e in entries[1:3]]:
        yield "page 2 of 2 entries is not the slice [1:3] of the whole"
    if page.withheld != max(0, len(entries) - 3):
        yield f"withheld {page.withheld} != {max(0, len(entries) - 3)}"
    whole = _answer(Workspace(root), "grep", {"limit": None, **kwargs})
    if _answer(warm, "grep", {"limit": None, **kwargs}) != whole:
        yield "the warm answer differs from the cold one"
    if _answer(warm, "grep", {"limit": 2, "offset": 1, **kwargs}) != _answer(
        Workspace(root), "grep", {"limit": 2, "offset": 1, **kwargs}
    ):
        yield "the warm page differs from the cold one"


def _anchored(pattern: str, path: str | None) -> str:
    """A glob-tool pattern (relative to `path`) as rg's -g, anchored at the working directory."""
    negated = pattern.startswith("!")
    body = pattern.removeprefix("!")
    anchored = "/" + (f"{path}/" if path else "") + body
    return ("!" if negated else "") + anchored


def glob_differences(rg: str, root: Path, q: dict[str, Any], warm: Workspace) -> Iterator[str]:
    kwargs = {k: v for k, v in q.items() if v is not None}
    cold = Workspace(root).glob(limit=None, **kwargs)
    walked = rg_files(rg, root, q, [])
    globs = [arg for p in q["pattern"] for arg in ("-g", _anchored(p, q["path"]))]
    expected = rg_files(rg, root, q, globs) & walked
    if q.get("type"):
        types = [arg for name in q["type"] for arg in ("-t", name)]
        expected &= rg_files(rg, root, q, types)
    if cold.paths != sorted(expected):
        ours = set(cold.paths)
        yield f"glob: ours-rg={sorted(ours - expected)} rg-ours={sorted(expected - ours)}"
    if cold.total != len(expected):
        yield f"total {cold.total} != {len(expected)}"
    for sort in ("path", "mtime"):
        call = {"limit": None, "sort": sort, **kwargs}
        if _answer(warm, "glob", call) != _answer(Workspace(root), "glob", call):
            yield f"the warm answer (sort={sort}) differs from the cold one"


# ---- the tests ------------------------------------------------------------------------------------

TALLY: Counter[str] = Counter()


@pytest.fixture(scope="module", autouse=True)
def _report() -> Iterator[None]:
    yield
    if TALLY:
        options = ", ".join(
            f"{key.removeprefix('option ')} {count}"
            for key, count in sorted(TALLY.items())
            if key.startswith("option ")
        )
        sys.stdout.write(
            f"\nrg options differential: {TALLY['cases']} cases run, {TALLY['equal']} equal "
            f"({TALLY['grep']} grep, {TALLY['glob']} glob; each compared cold with rg and warm "
            f"with cold); cases per option set: {options}\n"
        )


def _count_options(tool: str, q: dict[str, Any]) -> None:
    """Counts the options a case set (for the summary: which options the run exercised)."""
    for key, value in q.items():
        if key == "output_mode":
            TALLY[f"option {tool} {value}"] += 1
        elif key == "pattern" and tool == "glob":
            TALLY["option glob pattern list"] += len(value) > 1
            TALLY["option glob ! pattern"] += any(p.startswith("!") for p in value)
        elif value not in (None, False, 0) and key != "pattern":
            TALLY[f"option {tool} {key}"] += 1


def check_tree(rg: str, root: Path, greps: list[dict], globs: list[dict]) -> None:
    problems = []
    with Workspace(root, index=True) as warm:
        assert warm.wait_index(30)
        for q in greps:
            found = list(grep_differences(rg, root, q, warm))
            TALLY.update(cases=1, grep=1, equal=not found)
            _count_options("grep", q)
            problems += [f"grep {q}: {p}" for p in found]
        for q in globs:
            found = list(glob_differences(rg, root, q, warm))
            TALLY.update(cases=1, glob=1, equal=not found)
            _count_options("glob", q)
            problems += [f"glob {q}: {p}" for p in found]
        assert warm.index_status()["warm_calls"] > 0
    assert not problems, "\n".join(problems)


def _run(rg: str, tmp_path_factory: pytest.TempPathFactory, seed: int, greps, globs) -> None:
    root = build(tmp_path_factory.mktemp("rgopt"), seed)
    check_tree(rg, root, greps, globs)


def test_type_candidates_agree_with_rg(rg: str) -> None:
    listed = {}
    for line in subprocess.run(
        [rg, "--type-list"], capture_output=True, text=True, check=True, timeout=60
    ).stdout.splitlines():
        name, globs = line.split(":", 1)
        listed[name] = sorted(g.strip() for g in globs.split(","))
    for name in TYPE_CANDIDATES:
        assert listed[name] == sorted(FILE_TYPES[name]), name


SETTINGS = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    "derandomize": True,
}


@settings(max_examples=6, **SETTINGS)
@given(
    seed=st.integers(0, 1_000_000),
    greps=st.lists(grep_query(), min_size=8, max_size=8),
    globs=st.lists(glob_query(), min_size=4, max_size=4),
)
def test_rg_options_equal_rg(rg, tmp_path_factory, seed, greps, globs) -> None:
    _run(rg, tmp_path_factory, seed, greps, globs)


@pytest.mark.slow
@settings(max_examples=60, **SETTINGS)
@given(
    seed=st.integers(0, 1_000_000),
    greps=st.lists(grep_query(), min_size=12, max_size=12),
    globs=st.lists(glob_query(), min_size=6, max_size=6),
)
def test_rg_options_equal_rg_at_length(rg, tmp_path_factory, seed, greps, globs) -> None:
    _run(rg, tmp_path_factory, seed, greps, globs)


# ---- rg's own scenarios that once differed ------------------------------------------------------


def _lines_as_rg_prints_them(result: Any) -> list[str]:
    """ripsight's content lines as `rg -n` prints those of one file: `N:text` for a match,
    `N-text` for a context line, `--` between groups."""
    out: list[str] = []
    previous = None
    for line in result.lines:
        if previous is not None and line.line != previous + 1:
            out.append("--")
        out.append(f"{line.line}{':' if line.is_match else '-'}{line.text}")
        previous = line.line
    return out


def test_rg_regression_1380_matches_in_the_last_after_context(rg: str, tmp_path: Path) -> None:
    """rg's regression test for issue 1380: with -m1 -A2 the after-context of the one counted
    match is shown, and a match inside it is printed as a match, counted nowhere."""
    (tmp_path / "foo").write_text("a\nb\nc\nd\ne\nd\ne\nd\ne\nd\ne\n")
    ws = Workspace(tmp_path)
    for max_count, after in [(1, 2), (2, 2), (1, 4), (3, 1)]:
        flags = ["-m", str(max_count), "-A", str(after)]
        printed = _rg(rg, tmp_path, ["-n", *flags, "d"], "foo")
        (counted,) = _rg(rg, tmp_path, ["-c", "-m", str(max_count), "d"], "foo")
        result = ws.grep("d", path="foo", max_count=max_count, after_context=after, limit=None)
        assert _lines_as_rg_prints_them(result) == printed, flags
        assert result.total_matches == int(counted) == max_count, flags
        assert sum(line.counted for line in result.lines) == max_count
    result = ws.grep("d", path="foo", max_count=1, after_context=2)
    assert [(line.line, line.is_match, line.counted) for line in result.lines] == [
        (4, True, True),
        (5, False, False),
        (6, True, False),
    ]


def test_max_count_0_searches_nothing_as_rg_does(rg: str, tmp_path: Path) -> None:
    """`rg -m 0` prints nothing in every mode (and exits 1); ripsight accepts max_count=0 and
    answers no match, with nothing searched, cold and warm, and through the tool."""
    root = build(tmp_path / "tree", 3)
    modes = {
        "content": ["-n"],
        "files_with_matches": ["-l"],
        "count": ["-c"],
        "files_without_match": ["--files-without-match"],
    }
    with Workspace(root, index=True) as warm:
        assert warm.wait_index(30)
        for mode, flags in modes.items():
            assert _rg(rg, root, [*flags, "-m", "0", "alpha"], None) == [], mode
            assert _rg(rg, root, [*flags, "alpha"], None), mode  # not empty without -m 0
            for ws in (Workspace(root), warm):
                result = ws.grep("alpha", max_count=0, output_mode=mode)
                assert (result.total_matches, result.total_files) == (0, 0), mode
                assert (result.lines, result.files, result.files_searched) == ([], [], 0), mode
    answer = default_registry(root).execute(
        ToolCall("c1", "grep", {"pattern": "alpha", "max_count": 0})
    )
    assert not answer.is_error and answer.content.startswith(
        'No matches for "alpha": max_count=0 asks for no match per file'
    ), answer.content
