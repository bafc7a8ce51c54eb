"""grep, content mode (50 shown + exact totals, path-sorted) against rg, rg --sort path,
python-ripgrep, ripgrep-rs and a pure-Python reference, on the same file set.

The expected answer of every case is the number of matching lines `rg -c` finds in ripsight's
default file set (hidden files in; .git, node_modules, dist, __pycache__ and deny globs out).
"""

from __future__ import annotations

import pytest
from benchkit import Corpus, expected
from ripsight import Workspace
from ripsight import bench as sb

KINDS = ["rare", "common", "none"]
TOOLS = ["ripsight", "rg", "rg --sort path", "python-ripgrep", "ripgrep-rs", "python"]
_ws: dict[str, Workspace] = {}


def _pattern(tree: Corpus, kind: str) -> tuple[str, bool]:
    return {"rare": (tree.rare, True), "common": (tree.common, False), "none": (tree.none, True)}[
        kind
    ]


def _runner(tool: str, tree: Corpus, pattern: str, literal: bool):
    root = tree.root
    if tool == "ripsight":
        ws = _ws.setdefault(root, Workspace(root))

        def run() -> int:
            res = ws.grep(pattern, literal=literal, limit=50)
            assert len(res.matches) == min(50, res.total_matches)
            assert not res.incomplete
            return res.total_matches

        return run, True
    if tool == "rg":
        return (lambda: sb.rg_search(root, pattern, literal)), True
    if tool == "rg --sort path":
        return (lambda: sb.rg_search(root, pattern, literal, sort=True)), True
    if tool in ("python-ripgrep", "ripgrep-rs"):
        mod = pytest.importorskip(
            tool.replace("-", "_"), reason=f"{tool} not installed: pip install 'ripsight[bench]'"
        )
        hidden = sb.lib_has_hidden(mod)
        return (lambda: sb.rg_lib_search(mod, root, pattern, literal, hidden)), hidden
    if tool == "python":
        return (lambda: sb.py_grep(root, pattern, literal)), True
    raise ValueError(tool)


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("kind", KINDS)
def test_grep(benchmark, tree: Corpus, kind: str, tool: str) -> None:
    pattern, literal = _pattern(tree, kind)
    run, hidden = _runner(tool, tree, pattern, literal)
    # python-ripgrep cannot search hidden files (and no tool here follows symlinks):
    # their answer is rg's in that narrower file set.
    want = expected(
        (tree.root, pattern, hidden),
        lambda: sb.rg_count(tree.root, pattern, literal, hidden),
    )
    assert want > 0 or kind == "none"
    assert run() == want
    benchmark.group = f"grep {kind} [{tree.name}] {pattern}"
    benchmark.extra_info["tool"] = tool
    benchmark.extra_info["expected"] = want
    if tool == "python" and tree.name in ("monorepo", "kernel"):
        benchmark.pedantic(run, rounds=1, iterations=1)
    else:
        assert benchmark(run) == want
